#!/bin/bash
# Prepared in session 19 for session 20's first call (two H200, about 6 minutes; carry
# [".dev/s20a"], command: bash .dev/s20a/run.sh).  Branch split-host (git d0dad5f): the
# split's plan on a host thread a GPU, streams, events and the output mapping kept by the
# contexts, the stored bytes uploaded after the small copies; against main (git aa45119).
# Checks with the branch's binaries (tests/gpu_api on both GPUs, which splits several
# archives in a row with the same contexts; tests/gpu.sh; memcheck of the library's split),
# then the 8 GiB archive: device-resident and host to host (the API, traced), main and the
# branch alternated twice, content checked.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
ln -sf gpu_split_host $B/gpu_split
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
timeout 60 gpu_api $T/slice.fq > $OUT/gpu_api.txt 2>&1
echo "gpu_api (2 GPUs) exit $?: $(tail -1 $OUT/gpu_api.txt)" | tee $OUT/summary.txt
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee -a $OUT/summary.txt
WAVELZ_GPU_SPLIT_MIN=1 timeout 100 compute-sanitizer --tool memcheck wavelz -t --gpu=0,1 $D/il8-b256k-10.wlz > $OUT/san.txt 2>&1
echo "library split memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1)" | tee -a $OUT/summary.txt
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt
for r in 1 2; do for b in main host; do
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 100 gpu_split_$b $T/big.wlz 2 2 8 > $OUT/split-$b-$r.csv 2> $OUT/split-$b-$r.log
  echo "$b r$r exit $?: $(tail -2 $OUT/split-$b-$r.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $OUT/summary.txt
  grep "wavelz split" $OUT/split-$b-$r.log | tail -1 | tee -a $OUT/summary.txt
done; done
