#!/bin/bash
# session 16, device call 5 (two H200): mirror_kernel in slices (few ranges) on a
# high-priority side stream; 8 GiB split group 16; then tests/gpu.sh on both GPUs
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | $B/zstd -1 -q -o $C/illumina.fastq.zst
TESTS=0 SIZES="16" bash bench/gpu_split_round.sh $B $C $OUT/split 8 2>&1 | grep -v "alone GPU\|^file" | tail -12
timeout 100 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh (2 GPUs) exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee $OUT/checks.txt
