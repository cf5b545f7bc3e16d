#!/bin/bash
# Session 20, call 4 (two H200, about 5 minutes; carry [".dev/s20e"]): the split with its
# payloads hashed on the GPUs, the stored bytes sent up while the host plans, and each
# share's plan finished on a thread of its own: the checks, then the 8 GiB archive host to
# host against call 2's build (traced, alternated).  At most 8 files in $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
timeout 60 gpu_api $T/slice.fq > $OUT/gpu_api.txt 2>&1
echo "gpu_api (2 GPUs) exit $?: $(tail -1 $OUT/gpu_api.txt)" | tee $S
timeout 150 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee -a $S
fqgen $T/il.fq $((16 << 20)) 3 | wavelz -q -1 -T0 -B256K --depth=10 -c > $T/small.wlz
wavelz -q -dc -T0 $T/small.wlz | sha256sum > $T/small.cpu
WAVELZ_GPU_SPLIT_MIN=1 timeout 60 compute-sanitizer --tool memcheck wavelz -t --gpu=0,1 $T/small.wlz > $OUT/san.txt 2>&1
echo "library split memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1)" | tee -a $S
WAVELZ_GPU_SPLIT_MIN=1 wavelz -q -dc --gpu=0,1 $T/small.wlz | sha256sum > $T/small.gpu
cmp -s $T/small.cpu $T/small.gpu && echo "CLI split 16 MiB ($(stat -c %s $T/small.wlz) B): same as CPU" | tee -a $S || echo "CLI split 16 MiB: DIFFERS" | tee -a $S
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $S
for r in 1 2; do for b in new prev; do
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 gpu_split_$b $T/big.wlz 2 2 8 > $T/split.csv 2> $T/split.log
  echo "$b r$r exit $?: $(tail -2 $T/split.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $S
  grep "wavelz split" $T/split.log | tail -3 | tee -a $S
  cat $T/split.csv $T/split.log >> $OUT/split-all.txt
done; done
