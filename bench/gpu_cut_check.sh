#!/bin/bash
# Branch gpu-cut's first round on a GPU (issue 15), in one call:
#   bash bench/gpu_cut_check.sh BINDIR OUTDIR illumina.fastq.xz gcide.txt.zst
# BINDIR: wavelz, gpu_decode, gpu_parse, gpu_checksum, gpu_api (tests/) and
# zstd, built on the dev machine from this branch.  The default (-3)
# archives of both corpora decoded by bench/gpu_decode with tokens cut
# (WLZ_GPU_CUT=1) and not, alternated twice, every row checked against
# the CPU decoder; then tests/gpu.sh (the library cuts where it resolves);
# then compute-sanitizer memcheck and racecheck with the cut on 8 MB
# slices, and memcheck of gpu_api.
set -u
bin=$1 out=$2
shift 2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PATH=$bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$out/gpu.txt"
for c in "$@"; do
	n=$(basename "$c"); n=${n%.zst}; n=${n%.xz}
	case $c in *.xz) xz -dc "$c" > "$tmp/$n" ;; *) zstd -q -dc --long=31 "$c" > "$tmp/$n" ;; esac
	wavelz -3 -T16 -q -c "$tmp/$n" > "$tmp/$n.wlz"
	for round in 1 2; do
		for cut in 0 1; do
			WLZ_GPU_CUT=$cut timeout 120 gpu_decode "$tmp/$n.wlz" 3 > "$tmp/rows" 2>&1
			echo "# $n cut $cut round $round: exit $?" >> "$out/cut.csv"
			grep "^$n.wlz" "$tmp/rows" | sed "s/^/cut=$cut,/" | tee -a "$out/cut.csv" | cut -d, -f1,2,6,7,12,18
		done
	done
	head -c 8000000 "$tmp/$n" > "$tmp/s"
	wavelz -3 -q -c "$tmp/s" > "$tmp/s.wlz"
	for tool in memcheck racecheck; do
		WLZ_GPU_CUT=1 timeout 200 compute-sanitizer --tool $tool gpu_decode "$tmp/s.wlz" 1 > "$tmp/san" 2>&1
		echo "$n $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$tmp/san")" | tee -a "$out/sanitizer.txt"
	done
done
timeout 300 bash "$(dirname "$0")/../tests/gpu.sh" "$bin/wavelz" "$bin" "$(dirname "$0")/../tests/data" \
	"$(dirname "$0")/../tests/golden-bad" "$bin/gpu_api" > "$out/gpu-tests.log" 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 "$out/gpu-tests.log")" | tee -a "$out/sanitizer.txt"
timeout 300 compute-sanitizer --tool memcheck "$bin/gpu_api" "$tmp/s" > "$tmp/san" 2>&1
echo "gpu_api memcheck exit $?: $(grep -E 'ERROR SUMMARY' "$tmp/san")" | tee -a "$out/sanitizer.txt"
