#!/bin/bash
# session 16, device call 2 (two H200): the split's step 1 timed kernel by kernel, groups 16/64/256
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | $B/zstd -1 -q -o $C/illumina.fastq.zst
GPU_SPLIT_SELF=1 TESTS=0 SIZES="16 64 256" bash bench/gpu_split_round.sh $B $C $OUT/split 8 2>&1 | tail -40
