#!/bin/bash
# Session 20, call 2 (two H200, about 8 minutes; carry [".dev/s20c"], command:
# bash .dev/s20c/run.sh).  The host's links alone (bench/gpu_links: plain copies, one GPU
# and both), the checks of the new split (its plan on the host's threads in runs, only its
# own groups' stored bytes uploaded, each group sent back as its flag is set), the 8 GiB
# archive host to host against call 1's build (traced, alternated), then the 1,000-archive
# batch on 1 and 2 GPUs, device-resident and host to host (nvCOMP's rows not run).
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
timeout 60 gpu_links 8 3 > $OUT/links.csv 2> $OUT/links.err
echo "gpu_links exit $?" | tee $OUT/summary.txt; cat $OUT/links.csv | tee -a $OUT/summary.txt
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
timeout 60 gpu_api $T/slice.fq > $OUT/gpu_api.txt 2>&1
echo "gpu_api (2 GPUs) exit $?: $(tail -1 $OUT/gpu_api.txt)" | tee -a $OUT/summary.txt
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee -a $OUT/summary.txt
fqgen $T/il.fq $((16 << 20)) 3 | wavelz -q -1 -T0 -B 256K --depth=10 -c > $T/small.wlz
wavelz -q -dc -T0 $T/small.wlz | sha256sum > $T/small.cpu
WAVELZ_GPU_SPLIT_MIN=1 timeout 100 compute-sanitizer --tool memcheck wavelz -t --gpu=0,1 $T/small.wlz > $OUT/san.txt 2>&1
echo "library split memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1)" | tee -a $OUT/summary.txt
WAVELZ_GPU_SPLIT_MIN=1 wavelz -q -dc --gpu=0,1 $T/small.wlz | sha256sum > $T/small.gpu
cmp -s $T/small.cpu $T/small.gpu && echo "CLI split 16 MiB: same as CPU" | tee -a $OUT/summary.txt || echo "CLI split 16 MiB: DIFFERS" | tee -a $OUT/summary.txt
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt
for r in 1 2; do for b in prev new; do
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 100 gpu_split_$b $T/big.wlz 2 2 8 > $OUT/split-$b-$r.csv 2> $OUT/split-$b-$r.log
  echo "$b r$r exit $?: $(tail -2 $OUT/split-$b-$r.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $OUT/summary.txt
  grep "wavelz split" $OUT/split-$b-$r.log | tail -1 | tee -a $OUT/summary.txt
done; done
rm -f $T/big.wlz
zstd -q -1 -T0 $T/il.fq -o $T/il.fq.zst && rm -f $T/il.fq
left=$(( 500 - ($(date +%s) - s) ))
GPU_BATCH_NVCOMP=0 GPU_BATCH_H2H=1 timeout $left bash bench/gpu_batch_round.sh $B $T/il.fq.zst $OUT/batch 16000000000 1000 2 > $OUT/batch.txt 2>&1
echo "batch exit $? (limit $left s)" | tee -a $OUT/summary.txt
grep -v "^gpus" $OUT/batch/batch.csv 2>/dev/null | cut -d, -f1-8 | tee -a $OUT/summary.txt
