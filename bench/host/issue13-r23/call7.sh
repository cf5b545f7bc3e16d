#!/usr/bin/env bash
# Session 23, call 7 (one H200): tests/gpu.sh on the session's final code
# (with a level-19 archive in 64 KiB blocks now among its archives).
set -u
B=.dev/s23g/bin; chmod +x $B/*; export PATH=$PWD/$B:$PATH
s=$(date +%s)
bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-sh.txt 2>&1
echo "tests/gpu.sh exit $? in $(( $(date +%s) - s )) s" | tee -a $OUT/gpu-sh.txt
tail -25 $OUT/gpu-sh.txt
