#!/usr/bin/env bash
# gpu_split_check.sh - the one-archive split through the API, in one call
# on the two-GPU host: tests/gpu_api on every GPU (its split check on each
# archive; then again with the split as the process's first GPU work),
# tests/gpu.sh on every GPU, then GIB GiB of resampled FASTQ
# (-1 --depth=10) decoded by `wavelz -d --gpu=0` and `--gpu=0,1` (timed,
# wall) against the CPU's output (--gpu=0,1 with SPLIT_MIN, default 256
# MiB, as WAVELZ_GPU_SPLIT_MIN: the split over both,
# wlz_gpu_decompress_split).
#   gpu_split_check.sh BINDIR CORPDIR OUT [GIB]
set -u
B=$1 C=$2 OUT=$3 GIB=${4:-2}
mkdir -p "$OUT"
export PATH=$B:$PATH
T=$(mktemp -d /dev/shm/wlz-check.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$T"' EXIT
rc=0
zstd -q -dc tests/data/illumina_1000k.fastq.zst > "$T/slice.fq" || exit 1
echo "== gpu_api (every GPU)" | tee "$OUT/check.log"
timeout 200 gpu_api "$T/slice.fq" >> "$OUT/check.log" 2>&1 || { echo "gpu_api FAILED"; rc=1; }
echo "== gpu_api --split-first (every GPU; the split before any other GPU work)" >> "$OUT/check.log"
timeout 120 gpu_api --split-first "$T/slice.fq" >> "$OUT/check.log" 2>&1 || { echo "gpu_api --split-first FAILED"; rc=1; }
echo "== tests/gpu.sh (every GPU: the CLI's split too)" >> "$OUT/check.log"
timeout 300 bash tests/gpu.sh "$B/wavelz" "$B" tests/data tests/golden-bad "$B/gpu_api" \
	>> "$OUT/check.log" 2>&1 || { echo "tests/gpu.sh FAILED"; rc=1; }
zstd -q -dc "$C/illumina.fastq.zst" > "$T/il.fq" || exit 1
fqgen "$T/il.fq" $((GIB << 30)) 11 | wavelz -q -1 -T0 --depth=10 -c > "$T/big.wlz" || exit 1
rm -f "$T/il.fq"
want=$(wavelz -q -dc -T0 "$T/big.wlz" | sha256sum | cut -d' ' -f1)
for g in 0 0,1 0 0,1; do
	s0=$(date +%s.%N)
	got=$(WAVELZ_GPU_SPLIT_MIN=${SPLIT_MIN:-268435456} wavelz -q -dc --gpu=$g "$T/big.wlz" | sha256sum | cut -d' ' -f1)
	s1=$(date +%s.%N)
	same=no; [ "$got" = "$want" ] && same=yes
	[ "$same" = yes ] || rc=1
	echo "--gpu=$g: $(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.2f", b-a}') s wall, same as the CPU: $same" >> "$OUT/check.log"
done
WAVELZ_GPU_SPLIT_MIN=${SPLIT_MIN:-268435456} wavelz -q -t --gpu=0,1 "$T/big.wlz" && echo "-t --gpu=0,1: ok" >> "$OUT/check.log" || { echo "-t --gpu=0,1 FAILED" >> "$OUT/check.log"; rc=1; }
grep -E "gpu_api:|gpu.sh:|--gpu|FAIL|-t " "$OUT/check.log"
exit $rc
