#!/usr/bin/env bash
# Whole corpora round-tripped at levels 1, 3 and 19 and at depths 10 and 2
# (level 3) on the GPU host's CPU, default streams (codec 2): each archive
# checked with `wavelz -t` and decoded with 16 threads and compared with
# cmp.  Prints a Markdown table (corpus, options, ratio, compress seconds).
#
#   bash bench/roundtrip_depths.sh BINDIR CORPUS.zst...
# BINDIR holds wavelz and zstd (corpora come zstd-compressed to carry).
set -euo pipefail
bin=$1; shift
tmp=$(mktemp -d /dev/shm/wlzrd.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
T=$(nproc)
echo "| corpus | options | ratio % | compress s (-T$T) | checks |"
echo "| --- | --- | ---: | ---: | --- |"
for c in "$@"; do
  name=$(basename "$c" .zst)
  "$bin/zstd" -q -dc --long=31 "$c" > "$tmp/in"
  n=$(stat -c %s "$tmp/in")
  for opts in "-1" "-3" "-19" "-3 --depth=10" "-3 --depth=2"; do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$bin/wavelz" -q $opts -T"$T" -c "$tmp/in" > "$tmp/a.wlz"
    t1=$(date +%s.%N)
    "$bin/wavelz" -q -t "$tmp/a.wlz"
    "$bin/wavelz" -q -d -T"$T" -c "$tmp/a.wlz" | cmp - "$tmp/in"
    awk -v n="$name" -v o="$opts" -v c="$(stat -c %s "$tmp/a.wlz")" -v s="$n" -v a="$t0" -v b="$t1" \
      'BEGIN { printf "| %s | %s | %.2f | %.1f | -t, cmp |\n", n, o, 100 * c / s, b - a }'
  done
  rm -f "$tmp/in" "$tmp/a.wlz"
done
