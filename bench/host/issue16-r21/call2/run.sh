#!/bin/bash
# Session 21's second call (two H200; carry [".dev/s21c"], command bash .dev/s21c/run.sh):
# the split in pieces (git: session 21, work tree) checked, then timed host to host on the
# 8 GiB archive against one piece and against the split before it (gpu_split_main, 16e9b98).
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
for P in 8 ""; do
  WLZ_GPU_SPLIT_PIECES=$P timeout 90 gpu_api $T/slice.fq > $T/api.txt 2>&1
  echo "gpu_api pieces=${P:-auto} exit $?: $(tail -1 $T/api.txt)" | tee -a $S; cat $T/api.txt >> $OUT/checks.txt
done
fqgen $T/il.fq $((64 << 20)) 3 > $T/f64.fq
wavelz -q -1 -T0 -B256K --depth=10 -c $T/f64.fq > $T/s64.wlz
wavelz -q -T0 -c $T/f64.fq > $T/d64.wlz
for a in s64 d64; do
  wavelz -q -dc -T0 $T/$a.wlz | sha256sum > $T/$a.cpu
  for P in 8 3 1; do
    WLZ_GPU_SPLIT_TRACE=1 WLZ_GPU_SPLIT_PIECES=$P WAVELZ_GPU_SPLIT_MIN=1 timeout 60 wavelz -q -dc --gpu=0,1 $T/$a.wlz 2>> $OUT/checks.txt | sha256sum > $T/$a.gpu
    cmp -s $T/$a.cpu $T/$a.gpu && r=same || r=DIFFERS
    echo "CLI split $a pieces=$P: $r as CPU" | tee -a $S
  done
done
WLZ_GPU_SPLIT_PIECES=8 WAVELZ_GPU_SPLIT_MIN=1 timeout 120 compute-sanitizer --tool memcheck wavelz -t --gpu=0,1 $T/s64.wlz > $T/san.txt 2>&1
echo "memcheck pieces=8 exit $?: $(grep 'ERROR SUMMARY' $T/san.txt | head -1)" | tee -a $S; tail -30 $T/san.txt >> $OUT/checks.txt
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $S
for r in 1 2; do for b in new8 new1 main new4; do
  case $b in new8) P=8 X=gpu_split;; new4) P=4 X=gpu_split;; new1) P=1 X=gpu_split;; main) P= X=gpu_split_main;; esac
  WLZ_GPU_SPLIT_PIECES=$P WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 $X $T/big.wlz 2 2 8 > $T/split.csv 2> $T/split.log
  echo "$b r$r exit $?: $(tail -2 $T/split.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $S
  grep "wavelz split" $T/split.log | tail -1 | tee -a $S
  cat $T/split.csv $T/split.log >> $OUT/split-all.txt
done; done
rm -f $T/big.wlz
fqgen $T/il.fq $((64 << 20)) 5 > $T/f64b.fq
WLZ_GPU_SPLIT_PIECES=4 FORGE_SPLIT=0,1 FORGE_INPUT=$T/f64b.fq timeout 150 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 12 4 > $OUT/forge.txt 2>&1
echo "gpu_forge split pieces=4 exit $?: $(tail -1 $OUT/forge.txt)" | tee -a $S
s0=$(date +%s)
WLZ_GPU_SPLIT_PIECES=8 timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh pieces=8 exit $? in $(( $(date +%s) - s0 )) s: $(tail -1 $OUT/gpu-tests.log)" | tee -a $S
