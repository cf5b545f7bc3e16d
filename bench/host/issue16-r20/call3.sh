#!/bin/bash
# Session 20, call 3 (two H200, warm after call 2): the memcheck and the CLI's split of
# call 2 again (its -B had no size), then the 1,000-archive batch (reps 1, nvCOMP not run),
# its rows line by line; at most 8 files in $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
fqgen $T/il.fq $((16 << 20)) 3 | wavelz -q -1 -T0 -B256K --depth=10 -c > $T/small.wlz
echo "small: $(stat -c %s $T/small.wlz) bytes" | tee $S
wavelz -q -dc -T0 $T/small.wlz | sha256sum > $T/small.cpu
WAVELZ_GPU_SPLIT_MIN=1 timeout 120 compute-sanitizer --tool memcheck wavelz -t --gpu=0,1 $T/small.wlz > $OUT/san.txt 2>&1
echo "library split memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1)" | tee -a $S
WAVELZ_GPU_SPLIT_MIN=1 wavelz -q -dc --gpu=0,1 $T/small.wlz | sha256sum > $T/small.gpu
cat $T/small.cpu $T/small.gpu >> $S
cmp -s $T/small.cpu $T/small.gpu && echo "CLI split 16 MiB: same as CPU" | tee -a $S || echo "CLI split 16 MiB: DIFFERS" | tee -a $S
zstd -q -1 -T0 $T/il.fq -o $T/il.fq.zst && rm -f $T/il.fq
s=$(date +%s)
mkdir -p $T/b
GPU_BATCH_NVCOMP=0 GPU_BATCH_H2H=1 timeout 330 stdbuf -oL -eL bash bench/gpu_batch_round.sh $B $T/il.fq.zst $T/b 16000000000 1000 1 > $OUT/batch.txt 2>&1
echo "batch exit $? in $(( $(date +%s) - s )) s" | tee -a $S
cat $T/b/batch.csv >> $OUT/batch.txt 2>/dev/null
cut -d, -f1-8 $T/b/batch.csv 2>/dev/null | tee -a $S
