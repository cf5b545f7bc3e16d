#!/bin/bash
# Session 27, call 5 (one H200): issue 17's round on git def5907 (main),
# built with nvCOMP: the test (GPU bytes = CPU reference, both decoders),
# Illumina beside nvCOMP's four compressors and the CPU encoder at level 1
# on 16 threads, in the same run; then compute-sanitizer; then the typed
# arrays at S = 1 and the width.  gcide: call6.sh (a call carries 64 MiB).
#   carry: .dev/r27 (bins.tar.xz: gpu_compress_bench with nvCOMP,
#          gpu_compress, wavelz, numgen, zstd; il.fastq.zst),
#          .dev/nvcomp/libnvcomp.so.6.xz
set -u
B=/tmp/wlz-bin
mkdir -p $B && tar xJf .dev/r27/bins.tar.xz -C $B
export PATH=$B:$PATH
REPS=5 TESTS=1 SANITIZE=0 NUMERIC=0 bash bench/gpu_compress_round.sh $B .dev/r27 $OUT/corpora il.fastq.zst
cut -d, -f1-8 $OUT/corpora/bench.csv
SAN_TIMEOUT=100 TESTS=0 SANITIZE=1 NUMERIC=0 timeout 200 bash bench/gpu_compress_round.sh $B .dev/r27 $OUT/sanitize
REPS=3 TESTS=0 SANITIZE=0 NUMERIC=1 timeout 230 bash bench/gpu_compress_round.sh $B .dev/r27 $OUT/typed
cut -d, -f1-8 $OUT/typed/bench.csv
