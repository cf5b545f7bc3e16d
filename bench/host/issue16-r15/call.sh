#!/bin/bash
# session 15, device call 8 (two H200): the 8 GiB split again at the head (64-byte granules, 16-byte
# tokens, since the last measurement), and Illumina at depths unlimited and 10; group 16, GPU_SPLIT_SELF=1
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | zstd -q -3 -c > $C/illumina.fastq.zst
nvidia-smi -L | tee $OUT/gpu.txt
GPU_SPLIT_SELF=1 TESTS=0 SIZES=16 timeout 360 bash bench/gpu_split_round.sh $B $C $OUT 8 > $OUT/round.log 2>&1
echo "round exit $?"; cat $OUT/split.csv; grep -E "gpu_split:|GiB fqgen" $OUT/split.log
