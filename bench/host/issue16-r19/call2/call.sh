#!/bin/bash
# Session 19, call 2 (two H200, about 8 minutes; carry [".dev/s19b", ".dev/keep"]):
# group publication without the tables' copy (git after 723996b): tests on both GPUs
# (gpu_api with a tokenless-group archive, tests/gpu.sh, the CLI's split of 2 GiB),
# then the 8 GiB archive, group publication (group 8) against each chunk's states
# (GPU_SPLIT_GROUPPUB=0, group 16), alternated twice, content checked; then memcheck of
# the bench's and the library's split on an 8 MB slice in 256 KiB blocks.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b2; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
zstd -q -1 $T/il.fq -o $T/illumina.fastq.zst
mkdir -p $OUT/check
timeout 330 bash bench/gpu_split_check.sh $B $T $OUT/check 2 > $OUT/check.txt 2>&1
echo "check exit $?" >> $OUT/check.txt
rm -f $T/illumina.fastq.zst
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes" | tee $OUT/gp.txt
for r in 1 2; do for v in 0:16 1:8; do
  IFS=: read gp g <<< "$v"
  echo "== big groups published $gp group $g round $r" >> $OUT/split.log
  GPU_SPLIT_GROUPPUB=$gp timeout 60 gpu_split $T/big.wlz 2 2 $g >> $OUT/split.log 2>&1; e=$?
  echo "grouppub=$gp g$g r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|index [0-9.]*\|literals [0-9.]*\|copy [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/gp.txt
done; done
rm -f $T/big.wlz
timeout 120 compute-sanitizer --tool memcheck gpu_split $D/il8-b256k-10.wlz 1 2 2 > $OUT/san1.txt 2>&1
echo "bench gp memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san1.txt | head -1) $(tail -1 $OUT/san1.txt | cut -d, -f6-10)" | tee -a $OUT/gp.txt
WAVELZ_GPU_SPLIT_MIN=1 timeout 120 compute-sanitizer --tool memcheck wavelz -v -t --gpu=0,1 $D/il8-b256k-10.wlz > $OUT/san2.txt 2>&1
echo "library split memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san2.txt | head -1)" | tee -a $OUT/gp.txt
tail -3 $OUT/check.txt
