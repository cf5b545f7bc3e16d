#!/bin/bash
# The stream codec's GPU round (issue 14), run on the GPU host in one call.
# For each corpus:
#   - a default archive (-3 -T16: raw and codec-2 streams) and one with
#     zstd streams (--streams=zstd), their sizes beside zstd -3;
#   - bench/streams.c on the zstd-streams archive: per stream kind, codec 2
#     (one table, up to 16) against the stored zstd frames, sizes and
#     one-core decode MB/s;
#   - bench/gpu_entropy.cu on the default archive: every stream decoded on
#     the GPU in one launch, checked against the CPU, beside nvCOMP ANS;
#   - bench/gpu_checksum.cu on it: every block's XXH3-64 on the GPU, checked
#     against libxxhash and the block headers;
#   - bench/tbench.c: CPU decode of the default archive at 1 and 16
#     threads beside zstd -3 (one frame, and 1 MiB frames), one run.
# Then compute-sanitizer memcheck and racecheck of gpu_entropy on a slice.
#   bash bench/gpu_entropy_round.sh BINDIR OUTDIR CORPUS.zst...
# BINDIR holds wavelz, streams, gpu_entropy, gpu_checksum, tbench and zstd, built on the
# dev machine (bench/README.md); .dev/nvcomp holds libnvcomp.so.6.xz.
set -euo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
. "$(dirname "$0")/gpu_round_env.sh"
gpu_round_env "$out"
tmp=$(mktemp -d)
for c in "$@"; do
	n=$(basename "$c" .zst)
	"$bin/zstd" -dc --long=31 "$c" > "$tmp/$n"
	"$bin/wavelz" -3 -T16 -q -c "$tmp/$n" > "$tmp/$n.wlz"
	"$bin/wavelz" -3 -T16 -q --streams=zstd -c "$tmp/$n" > "$tmp/$n.z.wlz"
	"$bin/zstd" -3 -q -c "$tmp/$n" > "$tmp/$n.zst"
	echo "$n,$(stat -c %s "$tmp/$n"),$(stat -c %s "$tmp/$n.wlz"),$(stat -c %s "$tmp/$n.z.wlz"),$(stat -c %s "$tmp/$n.zst")" \
		>> "$out/sizes.csv"
	"$bin/streams" -r 5 "$tmp/$n.z.wlz" > "$out/streams-$n.csv"
	"$bin/gpu_entropy" "$tmp/$n.wlz" 30 >> "$out/gpu-$n.csv"
	if [ -x "$bin/gpu_checksum" ]; then
		"$bin/gpu_checksum" "$tmp/$n.wlz" 30 | tail -1 >> "$out/gpu-$n.csv"
	fi
	"$bin/tbench" -T 1,16 -r 5 -w "$tmp/$n.wlz" "$tmp/$n" > "$out/tbench-$n.csv"
	if [ ! -e "$out/sanitizer.txt" ]; then
		head -c 8000000 "$tmp/$n" | "$bin/wavelz" -3 -q -c > "$tmp/slice.wlz"
		san=/usr/local/cuda/bin/compute-sanitizer
		[ -x "$san" ] || san=$(ls /usr/local/cuda-*/bin/compute-sanitizer | head -1)
		for tool in memcheck racecheck; do
			"$san" --tool $tool "$bin/gpu_entropy" "$tmp/slice.wlz" 2 2>&1 | tail -4 >> "$out/sanitizer.txt"
		done
	fi
	rm -f "$tmp/$n"*
done
rm -rf "$tmp"
