#!/bin/bash
# Session 21's third call (two H200; carry [".dev/s21d"], command bash .dev/s21d/run.sh):
# the split in pieces with the first two smaller (1, 2, 4, 4, ... units): the CLI's split of
# a 64 MiB archive of 32 KiB blocks (8 pieces, ramped) against the CPU, the 8 GiB archive host
# to host against the split before (gpu_split_main, 16e9b98), then tests/gpu.sh with 8 pieces
# forced, then memcheck of the ramped pieces.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
fqgen $T/il.fq $((64 << 20)) 3 > $T/f64.fq
wavelz -q -1 -T0 -B32K --depth=10 -c $T/f64.fq > $T/s64.wlz
wavelz -q -dc -T0 $T/s64.wlz | sha256sum > $T/s64.cpu
for P in "" 5 2; do
  WLZ_GPU_SPLIT_TRACE=1 WLZ_GPU_SPLIT_PIECES=$P WAVELZ_GPU_SPLIT_MIN=1 timeout 60 wavelz -q -dc --gpu=0,1 $T/s64.wlz 2>> $OUT/checks.txt | sha256sum > $T/s64.gpu
  cmp -s $T/s64.cpu $T/s64.gpu && r=same || r=DIFFERS
  echo "CLI split s64 (32 KiB blocks) pieces=${P:-auto}: $r as CPU" | tee -a $S
done
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $S
for r in 1 2 3; do for b in new main; do
  [ $b = main ] && [ $r = 3 ] && continue
  case $b in new) X=gpu_split;; main) X=gpu_split_main;; esac
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 $X $T/big.wlz 2 2 8 > $T/split.csv 2> $T/split.log
  echo "$b r$r exit $?: $(tail -2 $T/split.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $S
  grep "wavelz split" $T/split.log | tail -1 | tee -a $S
  cat $T/split.csv $T/split.log >> $OUT/split-all.txt
done; done
rm -f $T/big.wlz
s0=$(date +%s)
WLZ_GPU_SPLIT_PIECES=8 timeout 240 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh pieces=8 exit $? in $(( $(date +%s) - s0 )) s: $(tail -1 $OUT/gpu-tests.log)" | tee -a $S
WAVELZ_GPU_SPLIT_MIN=1 timeout 90 compute-sanitizer --tool memcheck wavelz -t --gpu=0,1 $T/s64.wlz > $T/san.txt 2>&1
echo "memcheck auto pieces (ramped) exit $?: $(grep 'ERROR SUMMARY' $T/san.txt | head -1)" | tee -a $S; tail -30 $T/san.txt >> $OUT/checks.txt
