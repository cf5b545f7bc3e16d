#!/bin/bash
# The GPU decoder's round (issue 15), run on the GPU host in one call:
#   bash bench/gpu_decode_round.sh BINDIR OUTDIR "DEPTHS" CORPUS.zst|CORPUS.xz...
# DEPTHS: e.g. "none 32 10 4 2" (none: the default, no depth limit).  For
# each corpus and depth: an archive (-3 -T16, --depth=D), then
# bench/gpu_decode on it (both designs of match execution, every stage on
# the GPU, checked against the CPU decoder, device-resident and host to
# host, beside the CPU decoder on every core), its rows to
# OUTDIR/decode.csv; and bench/gpu_peers on the corpus (nvCOMP's LZ4,
# Snappy, GDeflate and zstd decoders, 64 KiB chunks) to OUTDIR/peers.csv,
# where BINDIR has it.  Then compute-sanitizer memcheck and racecheck of
# gpu_decode on an 8 MB slice of the first corpus (OUTDIR/sanitizer.txt),
# and of gpu_api (the API: pieces, batches, only the window resident).
# With gpu_api_bench in BINDIR: the API timed at each depth
# (OUTDIR/api.csv) and each corpus as one batch of 1 to 64 MiB archives
# beside one archive (OUTDIR/batch.csv).
# BINDIR holds wavelz, gpu_decode, zstd, gpu_peers, gpu_api_bench and
# gpu_api (tests/), built on the dev
# machine (bench/README.md); .dev/nvcomp holds libnvcomp.so.6.xz.
set -uo pipefail
bin=$1 out=$2 depths=$3
shift 3
mkdir -p "$out"
. "$(dirname "$0")/gpu_round_env.sh"
gpu_round_env "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first=
for c in "$@"; do
	n=$(basename "$c"); n=${n%.zst}; n=${n%.xz}
	case $c in
	*.xz) xz -dc "$c" > "$tmp/$n" ;;
	*) "$bin/zstd" -q -dc --long=31 "$c" > "$tmp/$n" ;;
	esac
	for d in $depths; do
		o=
		[ "$d" = none ] || o=--depth=$d
		"$bin/wavelz" -3 -T16 -q $o -c "$tmp/$n" > "$tmp/a.wlz"
		echo "$n,$d,$(stat -c %s "$tmp/$n"),$(stat -c %s "$tmp/a.wlz")" >> "$out/sizes.csv"
		timeout 120 "$bin/gpu_decode" "$tmp/a.wlz" 3 > "$tmp/rows"
		echo "# $n depth $d: exit $?" >> "$out/decode.csv"
		sed "s/^$n\.wlz\|^a\.wlz/$n-$d/" "$tmp/rows" >> "$out/decode.csv"
		# the public API as a user calls it (every check, pieces, transfers)
		if [ -x "$bin/gpu_api_bench" ]; then
			timeout 120 "$bin/gpu_api_bench" "$tmp/a.wlz" 5 > "$tmp/rows"
			echo "# $n depth $d: exit $?" >> "$out/api.csv"
			sed "s/^a\.wlz/$n-$d/" "$tmp/rows" >> "$out/api.csv"
		fi
	done
	if [ -x "$bin/gpu_peers" ] && [ -s "$nvlib/libnvcomp.so.6" ]; then
		timeout 300 "$bin/gpu_peers" "$tmp/$n" 10 > "$tmp/rows"
		echo "# $n peers: exit $?" >> "$out/peers.csv"
		cat "$tmp/rows" >> "$out/peers.csv"
	fi
	if [ -x "$bin/gpu_batch" ]; then
		# the corpus cut into archives of 1 to 64 MiB, decoded as one
		# batch, beside one archive of it (and on every GPU), and
		# beside nvCOMP's batched zstd where built with it
		timeout 300 "$bin/gpu_batch" "$tmp/$n" 1000 3 > "$tmp/rows"
		echo "# $n batch: exit $?" >> "$out/batch.csv"
		cat "$tmp/rows" >> "$out/batch.csv"
	fi
	if [ -z "$first" ]; then
		first=$n
		head -c 8000000 "$tmp/$n" | "$bin/wavelz" -3 -q -c > "$tmp/slice.wlz"
		san=/usr/local/cuda/bin/compute-sanitizer
		[ -x "$san" ] || san=$(ls /usr/local/cuda-*/bin/compute-sanitizer | head -1)
		for tool in memcheck racecheck; do
			echo "$tool gpu_decode $n slice: $(timeout 150 "$san" --tool $tool "$bin/gpu_decode" "$tmp/slice.wlz" 0 2>&1 | tail -1)" \
				>> "$out/sanitizer.txt"
		done
		# the API's every form, in pieces, a batch, the window resident
		if [ -x "$bin/gpu_api" ]; then
			for tool in memcheck racecheck; do
				WLZ_GPU_API_QUICK=1 timeout 280 "$san" --tool $tool --log-file "$tmp/san.log" "$bin/gpu_api" \
					> "$tmp/api.txt" 2>&1
				echo "$tool gpu_api (exit $?): $(tail -1 "$tmp/api.txt") :: $(tail -1 "$tmp/san.log")" \
					>> "$out/sanitizer.txt"
			done
		fi
	fi
	rm -f "$tmp/$n"
done
