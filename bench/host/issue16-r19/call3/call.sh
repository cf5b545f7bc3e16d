#!/bin/bash
# Session 19, call 3 (four H200, about 7 minutes; carry [".dev/s19c"]): the split with
# group publication on 4 GPUs (tests/gpu_api's split on every GPU), the 8 GiB archive
# on 1, 2 and 4 GPUs device-resident and host to host (GPU_SPLIT_H2H=1, the API), then
# the 1,000-archive batch (15.7 GB) on 1 and 4 GPUs beside nvCOMP's batched zstd,
# device-resident and host to host.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
nvidia-smi topo -m > $OUT/topo.txt 2>&1
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
timeout 150 gpu_api $T/slice.fq > $OUT/gpu_api.txt 2>&1
echo "gpu_api (4 GPUs) exit $?: $(tail -1 $OUT/gpu_api.txt)" | tee $OUT/summary.txt
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt
for ng in 2 4; do
  GPU_SPLIT_H2H=1 timeout 120 gpu_split $T/big.wlz 2 $ng 8 > $OUT/split$ng.csv 2> $OUT/split$ng.log
  echo "gpu_split $ng GPUs exit $?:" | tee -a $OUT/summary.txt; tail -2 $OUT/split$ng.csv | cut -d, -f4-10 | tee -a $OUT/summary.txt
done
rm -f $T/big.wlz
zstd -q -1 $T/il.fq -o $T/il.fq.zst && rm -f $T/il.fq
left=$(( 540 - ($(date +%s) - s) ))
GPU_BATCH_H2H=1 timeout $left bash bench/gpu_batch_round.sh $B $T/il.fq.zst $OUT/batch 16000000000 1000 2 > $OUT/batch.txt 2>&1
echo "batch exit $? (limit $left s)" | tee -a $OUT/summary.txt
grep -v "^gpus" $OUT/batch/batch.csv 2>/dev/null | cut -d, -f2,6-8 | tee -a $OUT/summary.txt
