#!/usr/bin/env bash
# gpu_split_round.sh - issue 16's one archive split over GPUs, as one call
# on the two-GPU host:
#   1. tests/gpu.sh on the first GPU (the CLI and the kernels against the
#      CPU, golden good and bad archives, flipped bytes, a batch);
#   2. bench/gpu_split on the Illumina corpus at depths unlimited and 10:
#      one GPU against every GPU, output checked against the CPU's;
#   3. GIB GiB of FASTQ resampled from it (fqgen), compressed at -1
#      --depth=10 on every core, and gpu_split on that: device-resident,
#      and with H2H=1 (the default) host to host through the API too,
#      the host's steps traced (WLZ_GPU_SPLIT_TRACE) in the log;
#   4. with two GPUs or more: forged archives of 64 MiB through the split
#      in 4 pieces (tests/gpu_forge.sh, FORGE_SPLIT; WLZ_GPU_SPLIT_PIECES)
#      and plain copies between the host and the GPUs (gpu_links: the
#      bound of any host-to-host split) to OUT/links.csv.
# BINDIR holds wavelz, fqgen, zstd, gpu_split, gpu_decode, gpu_parse,
# gpu_checksum, gpu_api, gpu_links and wlztool; CORPDIR
# illumina.fastq.zst.  Rows to OUT/split.csv, logs beside it.  The group
# sizes (blocks) tried on the large archive (SIZES, default 8, the
# library's); STATS=1 adds, for each, a run with the pass's wait counters
# ($GPU_SPLIT_STATS of bench/gpu_split: slower, not a figure); TESTS=0
# skips steps 1 and 4's forged archives; RUNS (default 1) runs each
# large-archive row that many times.  $GPU_SPLIT_SELF=1 passes on.
#   gpu_split_round.sh BINDIR CORPDIR OUT [GIB]
set -u
B=$1 C=$2 OUT=$3 GIB=${4:-8} SIZES=${SIZES:-8} TESTS=${TESTS:-1} STATS=${STATS:-0} H2H=${H2H:-1} RUNS=${RUNS:-1}
mkdir -p "$OUT"
. "$(dirname "$0")/gpu_round_env.sh"
gpu_round_env "$OUT"
export PATH=$B:$PATH
T=$(mktemp -d /dev/shm/wlz-split.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$T"' EXIT
rc=0
if [ "$TESTS" != 0 ]; then
	echo "== tests/gpu.sh" | tee "$OUT/gpu-tests.log"
	CUDA_VISIBLE_DEVICES=0 timeout 300 bash tests/gpu.sh "$B/wavelz" "$B" tests/data tests/golden-bad "$B/gpu_api" \
		>> "$OUT/gpu-tests.log" 2>&1 || { echo "tests/gpu.sh FAILED"; rc=1; }
	tail -8 "$OUT/gpu-tests.log"
fi
zstd -q -dc "$C/illumina.fastq.zst" > "$T/il.fq" || exit 1
: > "$OUT/split.csv"
for d in none 10; do
	opt=; [ "$d" = none ] || opt=--depth=$d
	wavelz -q -f $opt -T0 "$T/il.fq" -o "$T/il.wlz" || exit 1
	echo "== illumina depth $d" >> "$OUT/split.log"
	timeout 300 gpu_split "$T/il.wlz" 3 >> "$OUT/split.log" 2>&1 || { echo "gpu_split illumina depth $d FAILED"; rc=1; }
	tail -1 "$OUT/split.log" | sed "s/^/depth $d,/" >> "$OUT/split.csv"
done
if [ "$GIB" != 0 ]; then
	s0=$(date +%s.%N)
	fqgen "$T/il.fq" $((GIB << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > "$T/big.wlz" || exit 1
	s1=$(date +%s.%N)
	echo "== ${GIB} GiB fqgen, -1 --depth=10: $(stat -c %s "$T/big.wlz") bytes in $(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.1f", b-a}') s" >> "$OUT/split.log"
	rm -f "$T/il.fq"
	for g in $SIZES; do for r in $(seq "$RUNS"); do
		echo "== group $g, run $r" >> "$OUT/split.log"
		GPU_SPLIT_H2H=$H2H WLZ_GPU_SPLIT_TRACE=1 timeout 300 gpu_split "$T/big.wlz" 2 2 "$g" > "$T/rows.csv" \
			2>> "$OUT/split.log" || { echo "gpu_split ${GIB} GiB group $g FAILED"; rc=1; }
		cat "$T/rows.csv" >> "$OUT/split.log"
		grep -v "^file," "$T/rows.csv" | sed "s/^/depth 10 ${GIB}GiB,/" >> "$OUT/split.csv"
		if [ "$STATS" = 1 ]; then
			echo "== group $g, wait counters (times not the product's)" >> "$OUT/split.log"
			GPU_SPLIT_STATS=1 timeout 300 gpu_split "$T/big.wlz" 1 2 "$g" >> "$OUT/split.log" 2>&1 ||
				{ echo "gpu_split ${GIB} GiB group $g counters FAILED"; rc=1; }
		fi
	done; done
fi
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$ngpu" -ge 2 ]; then
	if [ "$TESTS" != 0 ]; then
		zstd -q -dc "$C/illumina.fastq.zst" | head -c $((64 << 20)) > "$T/f64.fq"
		WLZ_GPU_SPLIT_PIECES=4 FORGE_SPLIT=0,1 FORGE_INPUT="$T/f64.fq" timeout 300 bash tests/gpu_forge.sh "$B/wavelz" "$B/wlztool" \
			"$B/gpu_decode" tests/data 20 4 >> "$OUT/split.log" 2>&1 || { echo "gpu_forge (split) FAILED"; rc=1; }
	fi
	timeout 120 gpu_links "$GIB" 3 > "$OUT/links.csv" 2>> "$OUT/split.log" || { echo "gpu_links FAILED"; rc=1; }
	cat "$OUT/links.csv"
fi
cat "$OUT/split.log"
exit $rc
