#!/bin/bash
# Session 27, call 10 (one H200): issue 17's round on git a98d988 built
# with nvCOMP: the test, Illumina beside nvCOMP's four compressors and the
# CPU encoder at level 1 on 16 threads in the same run, and the typed
# arrays at S = 1 and the width (with nvCOMP at the width), all rows in
# one bench.csv.  compute-sanitizer ran on this build in call 9.
#   carry: .dev/r27 (bins.tar.xz: gpu_compress_bench with nvCOMP,
#          gpu_compress, wavelz, numgen, zstd; il.fastq.zst),
#          .dev/nvcomp/libnvcomp.so.6.xz
set -u
B=/tmp/wlz-bin
mkdir -p $B && tar xJf .dev/r27/bins.tar.xz -C $B
export PATH=$B:$PATH
REPS=5 TESTS=1 SANITIZE=0 NUMERIC=0 bash bench/gpu_compress_round.sh $B .dev/r27 $OUT/round il.fastq.zst
REPS=3 TESTS=0 SANITIZE=0 NUMERIC=1 timeout 280 bash bench/gpu_compress_round.sh $B .dev/r27 $OUT/round
cut -d, -f1-7 $OUT/round/bench.csv
