#!/usr/bin/env bash
# The three fuzzers at once on a many-core machine (half the cores on
# fuzz_decode, a quarter each on fuzz_index and fuzz_roundtrip), seeded from
# a tarball of corpus folders (decode/, index/, roundtrip/), then each
# corpus minimised with -merge=1.  Writes to OUT: the logs, the executions
# per target (execs.txt), the minimised corpora (corpus.tar.xz) and any
# crash inputs (artifacts/).
#
#   tests/fuzz/hostrun.sh BIN SEEDS.tar.xz OUT SECONDS
#
# BIN holds fuzz_decode, fuzz_index and fuzz_roundtrip (tests/fuzz/README.md
# says how to build them).
set -uo pipefail
bin=$(cd "$1" && pwd); seeds=$2; out=$(mkdir -p "$3" && cd "$3" && pwd); secs=${4:-300}
w=$(mktemp -d /dev/shm/fz.XXXXXX)
trap 'rm -rf "$w"' EXIT
tar -C "$w" -xJf "$seeds"
T=$(nproc); nd=$((T / 2)); ni=$((T / 4)); nr=$((T - nd - ni))
mkdir -p "$out/artifacts"
run() {  # target workers
  mkdir -p "$w/new-$1" "$w/log-$1"
  (cd "$w/log-$1" && "$bin/fuzz_$1" -jobs="$2" -workers="$2" -max_total_time="$secs" -print_final_stats=1 \
     -rss_limit_mb=4096 -artifact_prefix="$out/artifacts/$1-" "$w/new-$1" "$w/$1" > "$out/$1.log" 2>&1)
}
run decode $nd & run index $ni & run roundtrip $nr & wait
: > "$out/execs.txt"
for t in decode index roundtrip; do
  n=$(cat "$w/log-$t"/fuzz-*.log 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
  echo "$t $n" >> "$out/execs.txt"
  mkdir -p "$w/min/$t"
  "$bin/fuzz_$t" -merge=1 "$w/min/$t" "$w/$t" "$w/new-$t" > "$out/$t-merge.log" 2>&1
done
tar -C "$w/min" -cJf "$out/corpus.tar.xz" decode index roundtrip
cat "$out/execs.txt"; ls "$out/artifacts"
