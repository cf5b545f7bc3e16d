#!/bin/bash
# Session 27, call 11 (one H200): call10.sh's round on the whole gcide
# (git a98d988 built with nvCOMP; beside nvCOMP's four compressors
# and the CPU encoder at level 1 on 16 threads, in the same run).
#   carry: .dev/r27g (bins.tar.xz as call10's; gcide.txt.xz), .dev/nvcomp/libnvcomp.so.6.xz
set -u
B=/tmp/wlz-bin
mkdir -p $B && tar xJf .dev/r27g/bins.tar.xz -C $B
export PATH=$B:$PATH
REPS=5 TESTS=0 SANITIZE=0 NUMERIC=0 bash bench/gpu_compress_round.sh $B .dev/r27g $OUT/corpora gcide.txt.xz
cut -d, -f1-8 $OUT/corpora/bench.csv
