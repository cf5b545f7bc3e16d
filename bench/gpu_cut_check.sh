#!/bin/bash
# The GPU pass's A/B on default archives (issue 15), in one call:
#   bash bench/gpu_cut_check.sh BINDIR OUTDIR illumina.fastq.xz gcide.txt.zst
# BINDIR: wavelz, gpu_decode, gpu_parse, gpu_checksum, gpu_api (tests/) and
# zstd, built on the dev machine from this tree.  The default (-3)
# archives of the corpora decoded by bench/gpu_decode with $KNOB set to
# each of $VALUES (default: WLZ_GPU_CUT, "0 1": tokens cut and not),
# alternated twice, every row checked against the CPU decoder; then,
# unless SAN=0, compute-sanitizer memcheck and racecheck on 8 MB slices,
# tests/gpu.sh and memcheck of gpu_api.  The next call's:
#   KNOB=WLZ_GPU_RESOLVE VALUES="8 4" SAN=0 bash bench/gpu_cut_check.sh ...
# (4 resolution rounds before the cut and 4 after it against 8 and 8).
set -u
KNOB=${KNOB:-WLZ_GPU_CUT} VALUES=${VALUES:-0 1} SAN=${SAN:-1}
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
		for v in $VALUES; do
			env "$KNOB=$v" timeout 120 gpu_decode "$tmp/$n.wlz" 3 > "$tmp/rows" 2>&1
			echo "# $n $KNOB=$v round $round: exit $?" >> "$out/cut.csv"
			grep "^$n.wlz" "$tmp/rows" | sed "s/^/$KNOB=$v,/" | tee -a "$out/cut.csv" | cut -d, -f1,2,7,13,19
		done
	done
	[ "$SAN" = 0 ] && continue
	head -c 8000000 "$tmp/$n" > "$tmp/s"
	wavelz -3 -q -c "$tmp/s" > "$tmp/s.wlz"
	for tool in memcheck racecheck; do
		timeout 200 compute-sanitizer --tool $tool gpu_decode "$tmp/s.wlz" 1 > "$tmp/san" 2>&1
		echo "$n $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$tmp/san")" | tee -a "$out/sanitizer.txt"
	done
done
[ "$SAN" = 0 ] && exit 0
timeout 300 bash "$(dirname "$0")/../tests/gpu.sh" "$bin/wavelz" "$bin" "$(dirname "$0")/../tests/data" \
	"$(dirname "$0")/../tests/golden-bad" "$bin/gpu_api" > "$out/gpu-tests.log" 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 "$out/gpu-tests.log")" | tee -a "$out/sanitizer.txt"
timeout 300 compute-sanitizer --tool memcheck "$bin/gpu_api" "$tmp/s" > "$tmp/san" 2>&1
echo "gpu_api memcheck exit $?: $(grep -E 'ERROR SUMMARY' "$tmp/san")" | tee -a "$out/sanitizer.txt"
