#!/bin/bash
# Prepared in session 18 for session 19's first call (two H200, about 5 minutes; carry
# [".dev/s19a", ".dev/keep"], command: bash .dev/s19a/run.sh, from main's checkout).
# Branch split-grouppub: gpu_split_m (a chunk's states, as main) and gpu_split_gp (a group's
# publication), each with and without GPU_SPLIT_LOCALTOK=1 (each GPU's own tokens in its own
# memory instead of the spread array), on the 8 GiB resampled FASTQ (-1 --depth=10), groups
# 16 (m) and 8 (gp), alternated twice, content checked against the CPU; then memcheck of
# gp + LOCALTOK on an 8 MB slice in 256 KiB blocks (group 2, so both GPUs hold groups).
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes" | tee $OUT/lt.txt
for r in 1 2; do for v in m:16:0 m:16:1 gp:8:0 gp:8:1; do
  IFS=: read b g lt <<< "$v"
  echo "== big $b group $g localtok $lt round $r" >> $OUT/split.log
  GPU_SPLIT_LOCALTOK=$lt timeout 60 gpu_split_$b $T/big.wlz 2 2 $g >> $OUT/split.log 2>&1; e=$?
  echo "$b g$g localtok=$lt r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|index [0-9.]*\|literals [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/lt.txt
done; done
rm -f $T/big.wlz
GPU_SPLIT_LOCALTOK=1 timeout 150 compute-sanitizer --tool memcheck gpu_split_gp $D/il8-b256k-10.wlz 1 2 2 > $OUT/san.txt 2>&1
echo "gp localtok memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1) $(tail -1 $OUT/san.txt | cut -d, -f6-10)" | tee -a $OUT/lt.txt
