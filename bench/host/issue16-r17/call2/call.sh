#!/bin/bash
# session 17, device call 2 (two H200): the split's remote publish by forwarder warps
# (gpu_split, WLZ_GPU_SPLIT_FWD=1) against a release at system scope a chunk (gpu_split_f0)
# and, a diagnostic only, that release without its fence (gpu_split_nf); 8 GiB -1 d10,
# group 16, alternated; Illumina d10; then tests/gpu.sh on both GPUs with the forwarders.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
wavelz -q -f --depth=10 -T0 $T/il.fq -o $T/il.wlz
s0=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s0 )) s" | tee $OUT/split.txt
for r in 1 2; do
  for v in f0 fwd nf; do
    bin=gpu_split; [ $v = fwd ] || bin=gpu_split_$v
    echo "== $v round $r" >> $OUT/split.log
    timeout 120 $bin $T/big.wlz 2 2 16 >> $OUT/split.log 2>&1; e=$?
    echo "$v r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/split.txt
  done
done
for v in f0 fwd; do
  bin=gpu_split; [ $v = fwd ] || bin=gpu_split_$v
  echo "== il d10 $v" >> $OUT/split.log
  timeout 60 $bin $T/il.wlz 3 2 8 >> $OUT/split.log 2>&1; e=$?
  echo "il d10 $v exit $e: $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/split.txt
done
rm -f $T/big.wlz
timeout 150 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh (2 GPUs, forwarders) exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee -a $OUT/split.txt
