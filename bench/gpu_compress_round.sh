#!/usr/bin/env bash
# gpu_compress_round.sh - issue 17's GPU round in one call, on the GPU
# host: the GPU compressor against its CPU reference and both decoders
# (tests/gpu_compress; under compute-sanitizer on the small cases), then
# timed beside nvCOMP's compressors, and the CPU encoder at level 1 on 16
# threads, on the same files in the same run; typed arrays at S = 1, 2, 4.
#   bench/gpu_compress_round.sh BINDIR CORPDIR OUT [CORPUS ...]
# CORPUS: a file of CORPDIR (.xz, .zst or plain).  env: REPS (5), DEPTHS
# ("10"), TESTS (1: run the tests), SANITIZE (1), NUMERIC (1).  OUT gets
# at most 6 files (the device returns 8): bench.csv, bench.log, test.txt,
# sanitize.txt, gpu.txt, cpu.txt.
set -u
BIN=$1 C=$2 OUT=$3
shift 3
mkdir -p "$OUT"
. bench/gpu_round_env.sh
gpu_round_env "$OUT"
tmp=/dev/shm/wlz-gc
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
if [ "${TESTS:-1}" = 1 ]; then
	env -u WLZ_GC_PROFILE timeout "${TEST_TIMEOUT:-240}" "$BIN/gpu_compress" tests/data/*.zst > "$OUT/test.txt" 2>&1
	echo "gpu_compress rc=$?" | tee -a "$OUT/test.txt"
	tail -3 "$OUT/test.txt"
fi
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
	# racecheck checks shared memory: it runs on the kernels that use it
	# (k_near, k_code, k_hist), each alone, the others uninstrumented (k_levels'
	# warps wait on each other's global writes, which racecheck's
	# serialised threads make crawl)
	for tool in memcheck racecheck-k_near racecheck-k_code racecheck-k_hist; do
		q=1 x=
		case $tool in racecheck-k_code) q=3 ;; racecheck-*) q=2 ;; esac
		case $tool in racecheck-*) x="--kernel-name kns=${tool#racecheck-}" ;; esac
		env -u WLZ_GC_PROFILE WLZ_GC_QUICK=$q timeout "${SAN_TIMEOUT:-150}" compute-sanitizer --tool ${tool%%-*} $x --error-exitcode 9 "$BIN/gpu_compress" \
			> "$OUT/sanitize-$tool.txt" 2>&1
		echo "compute-sanitizer $tool rc=$?" | tee -a "$OUT/sanitize-$tool.txt"
		grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize-$tool.txt" | tail -2
		grep -m 4 -A1 "Race reported" "$OUT/sanitize-$tool.txt" >> "$OUT/sanitize.txt"
		tail -4 "$OUT/sanitize-$tool.txt" >> "$OUT/sanitize.txt"
		rm -f "$OUT/sanitize-$tool.txt"
	done
fi
best_of3() {  # best wall seconds of 3 runs of "$@" (output discarded)
	local b=
	for i in 1 2 3; do
		local t0 t1
		t0=$(date +%s.%N)
		"$@" > /dev/null || return 1
		t1=$(date +%s.%N)
		b=$(echo "$t0 $t1 ${b:-1e9}" | awk '{d=$2-$1; print (d<$3)?d:$3}')
	done
	echo "$b"
}
for f in "$@"; do
	base=${f%.xz}
	base=${base%.zst}
	case $f in
	*.xz) xz -dc "$C/$f" > "$tmp/$base" ;;
	*.zst) "$BIN/zstd" -q -dc "$C/$f" > "$tmp/$base" 2> /dev/null || zstd -q -dc "$C/$f" > "$tmp/$base" ;;
	*) cp "$C/$f" "$tmp/$base" ;;
	esac
	first=1
	for d in ${DEPTHS:-10}; do
		if [ $first = 1 ]; then peers=${GPU_PEERS:-lz4,snappy,gdeflate,zstd}; else peers=none; fi
		DEPTH=$d GPU_PEERS=$peers "$BIN/gpu_compress_bench" "$tmp/$base" "${REPS:-5}" \
			2>> "$OUT/bench.log" | tee -a "$OUT/bench.csv"
		first=0
	done
	n=$(stat -c %s "$tmp/$base")
	t=$(best_of3 "$BIN/wavelz" -q -1 -T16 -c "$tmp/$base")
	a=$("$BIN/wavelz" -q -1 -T16 -c "$tmp/$base" | wc -c)
	echo "$base,wavelz-cpu-1-T16,$n,$a,$(awk "BEGIN{printf \"%.2f\", 100*$a/$n}"),$(awk "BEGIN{printf \"%.3f\", $n/$t/1e9}"),,host-to-host (file in page cache to /dev/null) CPU level 1 16 threads" \
		| tee -a "$OUT/bench.csv"
	rm -f "$tmp/$base"
done
if [ "${NUMERIC:-1}" = 1 ]; then
	for k in i16-field i16-quant f32-field f32-quant; do
		w=2
		case $k in f32*) w=4 ;; esac
		"$BIN/numgen" $k $((256 * 1024 * 1024 / w)) 1 > "$tmp/$k.bin"
		for s in 1 $w; do
			SYMBOL=$s GPU_PEERS=none "$BIN/gpu_compress_bench" "$tmp/$k.bin" "${REPS:-5}" \
				2>> "$OUT/bench.log" | grep -v '^file,' | tee -a "$OUT/bench.csv"
		done
		GPU_PEERS=${GPU_PEERS:-lz4,snappy,gdeflate,zstd} SYMBOL=$w "$BIN/gpu_compress_bench" "$tmp/$k.bin" 1 \
			2>> "$OUT/bench.log" | grep nvcomp | tee -a "$OUT/bench.csv"
		rm -f "$tmp/$k.bin"
	done
fi
