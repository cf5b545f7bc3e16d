#!/bin/bash
# Session 22, call 2 (two H200): the checks call 1 did not reach (its split runs took
# about a minute each, so the 60 s limits cut two and the call ended in memcheck),
# then the 8 GiB archive host to host with more reps: git 24ff5b2's gpu_split, then
# gpu_split_tr (the same code with the trace's plans and buffers in parts), then gpu_split_rb
# (that, with at least 64 blocks a planning thread), then the forged archives.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
{ nvidia-smi topo -m; lscpu | grep -i "numa\|model name\|^CPU(s)"; } > $OUT/topo.txt 2>&1
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/slice.fq
zstd -q -19 -c $T/slice.fq | head -c 262144 > $T/r
cat $T/r <(head -c 393216 $T/slice.fq) $T/r <(tail -c +393217 $T/slice.fq) > $T/lead
wavelz -q --depth=10 -B64K -c $T/lead > $T/lead.wlz
for v in memcheck racecheck; do
  s=$(date +%s)
  WLZ_GPU_SPLIT_PIECES=2 WAVELZ_GPU_SPLIT_MIN=1 timeout 150 compute-sanitizer --tool $v wavelz -t --gpu=0,1 $T/lead.wlz > $T/san.txt 2>&1
  echo "wavelz $v lead 2 pieces exit $? in $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/san.txt | head -1)" | tee -a $S
  tail -20 $T/san.txt >> $OUT/checks.txt
done
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee -a $S
for X in gpu_split gpu_split_tr gpu_split_rb; do
  s=$(date +%s)
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 150 $X $T/big.wlz 5 2 8 > $T/split.csv 2> $T/split.log
  echo "$X reps=5 exit $? in $(( $(date +%s) - s )) s: $(tail -2 $T/split.csv | cut -d, -f6-8,10 | tr '\n' ' ')" | tee -a $S
  cat $T/split.csv $T/split.log >> $OUT/split-all.txt
done
rm -f $T/big.wlz
s=$(date +%s)
fqgen $T/il.fq $((64 << 20)) 5 > $T/f64.fq
WLZ_GPU_SPLIT_PIECES=4 FORGE_SPLIT=0,1 FORGE_INPUT=$T/f64.fq timeout 100 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 10 4 > $OUT/forge.txt 2>&1
echo "gpu_forge split pieces=4 exit $? in $(( $(date +%s) - s )) s: $(tail -1 $OUT/forge.txt)" | tee -a $S
