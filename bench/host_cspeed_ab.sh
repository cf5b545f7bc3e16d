#!/usr/bin/env bash
# Compression speed of several wavelz builds side by side, beside zstd -3,
# on one thread and on all threads (issue 13's speed point).  Runs are
# alternated between the builds, REPS rounds (each runs every job on one
# thread, then on all), best wall time kept; every
# archive of the last round is tested and decoded and compared.
#
#   bench/host_cspeed_ab.sh OUT.md "LEVELS" WAVELZ... -- CORPUS.zst...
#
# Corpora come zstd-compressed and are unpacked to /dev/shm, archives go
# there too.  ZSTD names the zstd binary (default: zstd on PATH).
set -euo pipefail
out=$1; levels=$2; shift 2
bins=()
while [[ $1 != -- ]]; do bins+=("$1"); shift; done
shift
Z=${ZSTD:-zstd}; T=$(nproc); REPS=${REPS:-3}
tmp=$(mktemp -d /dev/shm/wlzab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/hostlib.sh"
# best wall time of REPS alternated rounds for each job, in $best[job]
declare -A best size
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $T threads; $(date -u '+%F %H:%M UTC'); best of $REPS alternated rounds"
  echo
  echo "| corpus | codec | ratio % | MB/s T1 | vs zstd -3 T1 | MB/s T$T | vs zstd -3 T$T | T$T / T1 |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$out"
for x in "$@"; do
  name=$(basename "$x" .zst)
  in=$tmp/$name
  "$Z" -q -dc "$x" > "$in"
  n=$(stat -c %s "$in")
  jobs=("zstd|3")
  for b in "${bins[@]}"; do for l in $levels; do jobs+=("$b|$l"); done; done
  best=(); size=()
  # One-thread runs first, then all-thread ones (a busy machine's heat
  # slowed the one-thread run after it), each round starting one job later.
  nj=${#jobs[@]}
  for r in $(seq "$REPS"); do
    for t in 1 "$T"; do
      for i in $(seq 0 $((nj - 1))); do
        j=${jobs[$(( (i + r) % nj ))]}
        b=${j%|*}; l=${j#*|}
        [[ $b == zstd ]] && cmd=("$Z" -q -"$l" -T"$t" -c "$in") || cmd=("$b" -q -"$l" -T"$t" -c "$in")
        s=$(now); "${cmd[@]}" > "$tmp/arc"; e=$(now)
        k="$j|$t"; d=$(calc "$e - $s")
        [[ -z ${best[$k]:-} ]] && best[$k]=$d; best[$k]=$(calc "($d < ${best[$k]}) ? $d : ${best[$k]}")
        size[$j]=$(stat -c %s "$tmp/arc")
        if (( r == REPS )); then
          if [[ $b == zstd ]]; then "$Z" -q -dc "$tmp/arc" | cmp - "$in"
          else "$b" -q -t "$tmp/arc"; "$b" -q -dc "$tmp/arc" | cmp - "$in"; fi
        fi
      done
    done
  done
  z1=$(calc "$n / ${best[zstd|3|1]} / 1000000"); zn=$(calc "$n / ${best[zstd|3|$T]} / 1000000")
  for j in "${jobs[@]}"; do
    m1=$(calc "$n / ${best[$j|1]} / 1000000"); mn=$(calc "$n / ${best[$j|$T]} / 1000000")
    b=${j%|*}; l=${j#*|}
    printf '| %s | %s -%s | %.2f | %.1f | %.2fx | %.1f | %.2fx | %.1fx |\n' "$name" "$(basename "$b")" "$l" \
      "$(calc "100 * ${size[$j]} / $n")" "$m1" "$(calc "$m1 / $z1")" "$mn" \
      "$(calc "$mn / $zn")" "$(calc "$mn / $m1")" >> "$out"
  done
  rm -f "$in"
done
cat "$out"
