#!/bin/bash
# session 14, device call 8 (two H200): tests/gpu.sh with 64-byte granules (git 8443573): the split paths
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
nvidia-smi -L | tee $OUT/gpu.txt
timeout 240 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?"; grep -E "split|GPUs|FAIL|passed" $OUT/gpu-tests.log
