#!/bin/bash
# Issue 16's batch round on the GPU host, in one call:
#   bash bench/gpu_batch_round.sh BINDIR CORPUS.zst OUTDIR BYTES N [REPS]
# BYTES of FASTQ resampled from the corpus (fqgen, seed 7) in /dev/shm,
# cut into N archives of 1 to 64 MiB at level $WLZ_BENCH_LEVEL (default
# 1) and depth 10, and timed by bench/gpu_batch (the batch on one GPU and
# on every GPU, beside one archive and nvCOMP's batched zstd) into
# OUTDIR/batch.csv.  BINDIR holds gpu_batch, fqgen and zstd; nvCOMP comes
# from .dev/nvcomp/libnvcomp.so.6.xz (gpu_round_env.sh).
set -uo pipefail
bin=$1 corpus=$2 out=$3 bytes=$4 n=$5 reps=${6:-3}
mkdir -p "$out"
. "$(dirname "$0")/gpu_round_env.sh"
gpu_round_env "$out"
tmp=$(mktemp -d /dev/shm/batch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bin/zstd" -q -dc --long=31 "$corpus" > "$tmp/src.fq"
"$bin/fqgen" "$tmp/src.fq" "$bytes" 7 > "$tmp/big.fq"
rm -f "$tmp/src.fq"
WLZ_BENCH_LEVEL=${WLZ_BENCH_LEVEL:-1} "$bin/gpu_batch" "$tmp/big.fq" "$n" "$reps" > "$out/batch.csv" 2> "$out/batch.err"
echo "gpu_batch: exit $?" >> "$out/batch.err"
cat "$out/batch.csv" "$out/batch.err"
