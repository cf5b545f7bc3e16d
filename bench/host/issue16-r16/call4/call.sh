#!/bin/bash
# session 16, device call 4 (two H200): the split's index copied to the peer by mirror_kernel
# on a side stream beside the literals, the index first, alone; tests/gpu.sh on both GPUs; memcheck of gpu_api and gpu_split
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | $B/zstd -1 -q -o $C/illumina.fastq.zst
GPU_SPLIT_SELF=1 TESTS=0 SIZES="16 8" bash bench/gpu_split_round.sh $B $C $OUT/split 8 2>&1 | grep -v "alone GPU\|^file" | tail -22
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh (2 GPUs) exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee $OUT/checks.txt
T=/dev/shm/w; mkdir -p $T
zstd -q -dc $C/illumina.fastq.zst | head -c 8000000 > $T/s
wavelz -q --depth=10 -c $T/s > $T/s.wlz
timeout 150 compute-sanitizer --tool memcheck gpu_split $T/s.wlz 1 2 2 > $T/san 2>&1
echo "gpu_split 2 GPUs memcheck exit $?: $(grep -E 'ERROR SUMMARY' $T/san)" | tee -a $OUT/checks.txt
timeout 250 compute-sanitizer --tool memcheck gpu_api $T/s > $T/san 2>&1
echo "gpu_api memcheck (2 GPUs) exit $?: $(grep -E 'ERROR SUMMARY' $T/san)" | tee -a $OUT/checks.txt
