#!/bin/bash
# Session 18, call 3 (two H200): branch split-pub's publisher warp (gpu_split_pub, built with
# -DWLZ_GPU_FLOW_PUB=1) against main (gpu_split_m) on the 8 GiB resampled FASTQ (-1 --depth=10,
# group 16) and Illumina -3 --depth=10 (group 8), alternated twice, each row's content checked
# against the CPU; then memcheck of the publisher on an 8 MB slice in 256 KiB blocks (group 2).
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
wavelz -q -f --depth=10 -T0 $T/il.fq -o $T/il.wlz
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes" | tee $OUT/pub.txt
for r in 1 2; do
  for v in m pub; do
    echo "== big $v round $r" >> $OUT/split.log
    timeout 90 gpu_split_$v $T/big.wlz 2 2 16 >> $OUT/split.log 2>&1; e=$?
    echo "big $v r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/pub.txt
    echo "== il $v round $r" >> $OUT/split.log
    timeout 60 gpu_split_$v $T/il.wlz 3 2 8 >> $OUT/split.log 2>&1; e=$?
    echo "il $v r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/pub.txt
  done
done
rm -f $T/big.wlz
timeout 150 compute-sanitizer --tool memcheck gpu_split_pub $D/il8-b256k-10.wlz 1 2 2 > $OUT/san.txt 2>&1
echo "pub split memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1) $(tail -1 $OUT/san.txt | cut -d, -f6-10)" | tee -a $OUT/pub.txt
timeout 150 compute-sanitizer --tool synccheck gpu_split_pub $D/il8-b256k-10.wlz 1 2 2 > $OUT/sync.txt 2>&1
echo "pub split synccheck exit $?: $(grep 'ERROR SUMMARY' $OUT/sync.txt | head -1)" | tee -a $OUT/pub.txt
