#!/bin/bash
# Session 18, call 8 (one H200): forged archives on the GPU (tests/gpu_forge.sh, new):
# the ctest's own run (40 + 40), then 1,000 + 1,000 with 1 to 8 damaged bytes each; then
# compute-sanitizer memcheck of `wavelz -t --gpu` over 40 forged archives in one batch.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
s=$(date +%s)
timeout 200 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 2>&1 | tail -3 | tee $OUT/forge.txt
echo "default run exit ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s" | tee -a $OUT/forge.txt
s=$(date +%s)
timeout 300 bash tests/gpu_forge.sh $B/wavelz $B/wlztool $B/gpu_decode tests/data 1000 8 2>&1 | tail -3 | tee -a $OUT/forge.txt
echo "1000 + 1000 run exit ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s" | tee -a $OUT/forge.txt
T=/tmp/fm; mkdir -p $T
zstd -q -dc tests/data/illumina_1000k.fastq.zst > $T/in && wavelz -q --depth=10 -c $T/in > $T/d10.wlz
for i in $(seq 1 40); do wlztool forge $T/d10.wlz $T/f$i.wlz $((5000 + i)) $((1 + i % 4)); done
timeout 150 compute-sanitizer --tool memcheck wavelz -q -t --gpu $T/f*.wlz > $OUT/san.txt 2>&1
echo "memcheck of -t --gpu over 40 forged archives: exit $?, $(grep -c '^wavelz: ' $OUT/san.txt) refused, $(grep 'ERROR SUMMARY' $OUT/san.txt)" | tee -a $OUT/forge.txt
