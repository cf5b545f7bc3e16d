#!/bin/bash
# Session 19, call 4 (two H200, about 3 minutes; carry [".dev/s19d"]): the split with
# its buffers kept by the contexts, one allocation a GPU for the output, payload
# checksums on the host's threads and each GPU's own download (git after 9c25e4b):
# tests/gpu_api (its split on both GPUs), then the 8 GiB archive device-resident and
# host to host through the API (GPU_SPLIT_H2H=1), the host's steps traced.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
timeout 45 gpu_api $T/slice.fq > $OUT/gpu_api.txt 2>&1
echo "gpu_api (2 GPUs) exit $?: $(tail -1 $OUT/gpu_api.txt)" | tee $OUT/summary.txt
s=$(date +%s)
fqgen $T/il.fq $((2 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt
WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 40 gpu_split $T/big.wlz 2 2 8 > $OUT/split2.csv 2> $OUT/split2.log
echo "gpu_split 2 GPUs exit $?:" | tee -a $OUT/summary.txt; tail -2 $OUT/split2.csv | cut -d, -f4-10 | tee -a $OUT/summary.txt
grep "wavelz split" $OUT/split2.log | tail -3 | tee -a $OUT/summary.txt
