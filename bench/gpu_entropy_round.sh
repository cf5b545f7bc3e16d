#!/bin/bash
# The stream codec study's GPU round (issue 14), run on the GPU host in one
# call: for each corpus, a default archive (-3 -T16), the CPU study of its
# streams (bench/streams.c: sizes, one-core decode MB/s beside zstd), then
# the GPU study (bench/gpu_entropy.cu: both coders beside nvCOMP ANS).
#   bash bench/gpu_entropy_round.sh BINDIR OUTDIR CORPUS.zst...
# BINDIR holds wavelz, streams, gpu_entropy and zstd, built on the dev
# machine (bench/README.md); .dev/nvcomp holds libnvcomp.so.6.xz.
set -euo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
lib=.dev/nvcomp/lib
if [ ! -s "$lib/libnvcomp.so.6" ]; then
	mkdir -p "$lib"
	xz -dc .dev/nvcomp/libnvcomp.so.6.xz > "$lib/libnvcomp.so.6"
fi
export LD_LIBRARY_PATH=$PWD/$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/gpu.txt" || true
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/cpu.txt" || true
tmp=$(mktemp -d)
for c in "$@"; do
	n=$(basename "$c" .zst)
	"$bin/zstd" -dc --long=31 "$c" > "$tmp/$n"
	"$bin/wavelz" -3 -T16 -q -c "$tmp/$n" > "$tmp/$n.wlz"
	# (segments of 2^14 and 2^15 symbols: the GPU's parallelism against
	# the lanes' flush bytes; the sizes of both are in the streams table)
	for s in 15 14; do
		"$bin/streams" -r 5 -s $s -o "$tmp/$n" "$tmp/$n.wlz" > "$out/streams-$n-s$s.csv"
		"$bin/gpu_entropy" "$tmp/$n" 30 | sed "s/,kernel-only/,kernel-only seg_log $s/" >> "$out/gpu-$n.csv"
	done
	rm -f "$tmp/$n"*
done
rm -rf "$tmp"
