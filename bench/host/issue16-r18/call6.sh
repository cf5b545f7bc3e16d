#!/bin/bash
# Session 18, call 6 (two H200): main's split (gpu_split) on 8 GiB of resampled FASTQ
# compressed at the default level with depth 10 (-3 --depth=10, the setting of issue 15's
# depth-10 figures) instead of -1 --depth=10, groups 16 and 8, twice each; every row's
# content checked against the CPU.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
s=$(date +%s.%N)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -3 -T0 --depth=10 -c > $T/big3.wlz
echo "big3 (-3 --depth=10): $(stat -c %s $T/big3.wlz) bytes, compressed in $(echo "$(date +%s.%N) - $s" | bc) s" | tee $OUT/split3.txt
for r in 1 2; do for g in 16 8; do
  echo "== big3 group $g round $r" >> $OUT/split.log
  timeout 100 gpu_split_m $T/big3.wlz 2 2 $g >> $OUT/split.log 2>&1; e=$?
  echo "big3 g$g r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/split3.txt
done; done
