#!/bin/bash
# session 14, device call 4 (two H200): the split API hands members with no depth limit to one GPU;
# tests/gpu.sh (split and CLI split paths) and tests/gpu_api on two GPUs, memcheck of gpu_api
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
nvidia-smi -L | tee $OUT/gpu.txt
timeout 300 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?"; grep -E "split|GPUs|FAIL|passed" $OUT/gpu-tests.log
zstd -q -dc tests/data/illumina_1000k.fastq.zst > /tmp/in
timeout 200 compute-sanitizer --tool memcheck $B/gpu_api /tmp/in > $OUT/api-memcheck.txt 2>&1
echo "gpu_api memcheck exit $?: $(grep -E 'ERROR SUMMARY' $OUT/api-memcheck.txt | head -1)"; grep "split" $OUT/api-memcheck.txt
