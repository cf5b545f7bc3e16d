#!/bin/bash
# Session 18, call 9 (one H200, warm): tests/gpu_forge.sh on 8 MB slices of Illumina and
# gcide (default and --depth=10 archives of each, 8 blocks), 300 + 300 forged archives each.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
for c in il8 gc8; do
  s=$(date +%s)
  FORGE_INPUT=$D/$c timeout 250 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 300 8 2>&1 | tail -3 | tee -a $OUT/forge2.txt
  echo "$c exit ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s" | tee -a $OUT/forge2.txt
done
