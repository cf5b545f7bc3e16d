#!/bin/bash
# Prepared in session 20 for session 21's first call (two H200, about 8 minutes; carry
# [".dev/s21a"], command: bash .dev/s21a/run.sh).  First the whole of tests/gpu.sh on main
# (git 19840eb: its last call ran out of time before the parts with flipped bytes and the
# split's damaged archives, which reach the split's payload check on the GPUs), then
# forged archives through main's split (tests/gpu_forge.sh, FORGE_SPLIT), then branch
# split-plan (git 151a8f6: each run's plan finished on its own thread and sent up to its
# place, no append; the plan's steps traced): tests/gpu_api and memcheck of its split, and
# the 8 GiB archive host to host against main, alternated twice.  At most 8 files in $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
s0=$(date +%s)
timeout 400 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh (main) exit $? in $(( $(date +%s) - s0 )) s: $(tail -1 $OUT/gpu-tests.log)" | tee $S
fqgen $T/il.fq $((16 << 20)) 5 > $T/f16.fq
FORGE_SPLIT=0,1 FORGE_INPUT=$T/f16.fq timeout 200 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 15 4 > $OUT/forge.txt 2>&1
echo "gpu_forge through the split (main) exit $?: $(tail -1 $OUT/forge.txt)" | tee -a $S
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
timeout 60 gpu_api_plan $T/slice.fq > $OUT/gpu_api.txt 2>&1
echo "gpu_api (split-plan, 2 GPUs) exit $?: $(tail -1 $OUT/gpu_api.txt)" | tee -a $S
fqgen $T/il.fq $((16 << 20)) 3 | wavelz -q -1 -T0 -B256K --depth=10 -c > $T/small.wlz
wavelz -q -dc -T0 $T/small.wlz | sha256sum > $T/small.cpu
WAVELZ_GPU_SPLIT_MIN=1 timeout 60 compute-sanitizer --tool memcheck wavelz_plan -t --gpu=0,1 $T/small.wlz > $OUT/san.txt 2>&1
echo "split-plan memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/san.txt | head -1)" | tee -a $S
WAVELZ_GPU_SPLIT_MIN=1 wavelz_plan -q -dc --gpu=0,1 $T/small.wlz | sha256sum > $T/small.gpu
cmp -s $T/small.cpu $T/small.gpu && echo "split-plan CLI split: same as CPU" | tee -a $S || echo "split-plan CLI split: DIFFERS" | tee -a $S
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $S
for r in 1 2; do for b in plan main; do
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 gpu_split_$b $T/big.wlz 2 2 8 > $T/split.csv 2> $T/split.log
  echo "$b r$r exit $?: $(tail -2 $T/split.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $S
  grep "wavelz split" $T/split.log | tail -2 | tee -a $S
  cat $T/split.csv $T/split.log >> $OUT/split-all.txt
done; done
timeout 90 gpu_links 8 3 > $OUT/links.csv 2>&1
echo "gpu_links exit $? (with the strided 2D copies)" | tee -a $S; cat $OUT/links.csv | tee -a $S
