#!/bin/bash
# Prepared in session 21 for session 22's first call (two H200, about 7 minutes; carry
# [".dev/s22a"], command: bash .dev/s22a/run.sh).  The split in pieces as committed (git
# 24ff5b2: the review's mends, not yet run on a device: t0 0, a pass that gives up
# releasing the other GPUs' flags, the stop waiting for step 1) against branch
# split-overlap (git fa7d576: each piece's plan staged in pinned memory, one copy; pieces
# after the first planned on a thread of their own).  Most important first: all of
# tests/gpu.sh on both GPUs (with the new lead archive), then the 8 GiB archive host to host,
# main and the branch alternated three times, then gpu_api with 8 pieces (both), the lead
# archive's CLI split (branch), memcheck (both) and racecheck (main) of its split in 2
# pieces, forged 64 MiB archives through the split in 4 pieces.  Merge the branch if it
# passes and is faster.  At most 8 files in $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
s0=$(date +%s)
timeout 240 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $? in $(( $(date +%s) - s0 )) s: $(tail -1 $OUT/gpu-tests.log)" | tee $S
grep "lead\|split" $OUT/gpu-tests.log | tee -a $S
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $S
for r in 1 2 3; do for b in main ov; do
  X=gpu_split; [ $b = ov ] && X=gpu_split_ov
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 $X $T/big.wlz 2 2 8 > $T/split.csv 2> $T/split.log
  echo "$b r$r exit $?: $(tail -2 $T/split.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $S
  grep "wavelz split" $T/split.log | tail -1 | tee -a $S
  cat $T/split.csv $T/split.log >> $OUT/split-all.txt
done; done
rm -f $T/big.wlz
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
for b in main ov; do
  X=gpu_api; [ $b = ov ] && X=gpu_api_ov
  WLZ_GPU_SPLIT_PIECES=8 timeout 60 $X $T/slice.fq > $T/api.txt 2>&1
  echo "$b gpu_api pieces=8 exit $?: $(tail -1 $T/api.txt)" | tee -a $S
done
zstd -q -19 -c $T/slice.fq | head -c 262144 > $T/r
cat $T/r <(head -c 393216 $T/slice.fq) $T/r <(tail -c +393217 $T/slice.fq) > $T/lead
wavelz -q --depth=10 -B64K -c $T/lead > $T/lead.wlz
wavelz -q -dc $T/lead.wlz | sha256sum > $T/lead.cpu
for P in 1 2; do
  WLZ_GPU_SPLIT_PIECES=$P WAVELZ_GPU_SPLIT_MIN=1 timeout 60 wavelz_ov -q -dc --gpu=0,1 $T/lead.wlz | sha256sum > $T/lead.gpu
  cmp -s $T/lead.cpu $T/lead.gpu && r=same || r=DIFFERS
  echo "ov CLI split lead pieces=$P: $r as CPU" | tee -a $S
done
for v in wavelz:memcheck wavelz_ov:memcheck wavelz:racecheck; do
  IFS=: read X tool <<< "$v"
  WLZ_GPU_SPLIT_PIECES=2 WAVELZ_GPU_SPLIT_MIN=1 timeout 90 compute-sanitizer --tool $tool $X -t --gpu=0,1 $T/lead.wlz > $T/san.txt 2>&1
  echo "$X $tool lead 2 pieces exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/san.txt | head -1)" | tee -a $S
  tail -20 $T/san.txt >> $OUT/checks.txt
done
fqgen $T/il.fq $((64 << 20)) 5 > $T/f64.fq
WLZ_GPU_SPLIT_PIECES=4 FORGE_SPLIT=0,1 FORGE_INPUT=$T/f64.fq timeout 100 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 10 4 > $OUT/forge.txt 2>&1
echo "gpu_forge split pieces=4 exit $?: $(tail -1 $OUT/forge.txt)" | tee -a $S
