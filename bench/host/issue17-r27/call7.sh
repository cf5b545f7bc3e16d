#!/bin/bash
# Session 27, call 7 (one H200): the lane kernels (k_lanes, k_write_lanes)
# with each part's codes in shared memory and the symbols read a word at
# a time ("new", working tree on git def5907) against main ("base", git
# def5907), alternated, on Illumina, gcide's first 20 MB and two typed
# arrays (int16 field S = 2, float32 codes S = 4, 256 MiB each), with the
# profiled entropy stages; then the test, CHECK=1 on gcide and a 40 MB
# int16 field at S = 2, and compute-sanitizer on the test (memcheck;
# racecheck of the two kernels).  call8.sh reuses it: for that, the
# profile grep gained "chunk write" (call 9: "level init"; call 13:
# $PROF) and the racecheck list $RACE.
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz, numgen; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
wavelz -d -c .dev/s27/gc20.wlz > $T/gc20.txt
numgen i16-field $((128 * 1024 * 1024)) 1 > $T/i16f.bin
numgen f32-quant $((64 * 1024 * 1024)) 1 > $T/f32q.bin
numgen i16-field $((20 * 1000 * 1000)) 1 > $T/i16f40.bin
V="il.fq:1 gc20.txt:1 i16f.bin:2 f32q.bin:4"
for r in 1 2; do
	for fs in $V; do
		IFS=: read f s <<< "$fs"
		for v in base new; do
			SYMBOL=$s GPU_PEERS=none gcb-$v $T/$f 5 2>&1 | grep device-resident | sed "s/^/$v,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for fs in $V; do
	IFS=: read f s <<< "$fs"
	for v in base new; do
		SYMBOL=$s WLZ_GC_PROFILE=1 GPU_PEERS=none gcb-$v $T/$f 1 2>&1 | grep -E "gc profile: " | sed "s/^/$v $f: /" >> $OUT/profile.txt
	done
done
grep -E "(${PROF:-lanes|chunk write|level init}) " $OUT/profile.txt | awk "NR % 4 == 0"
timeout 300 gpu_compress tests/data/*.zst > $OUT/test.txt 2>&1
echo "gpu_compress exit $?"; tail -1 $OUT/test.txt
for fs in gc20.txt:1 i16f40.bin:2; do
	IFS=: read f s <<< "$fs"
	SYMBOL=$s CHECK=1 GPU_PEERS=none gcb-new $T/$f 1 > $OUT/check-$f.txt 2>&1
	echo "check $f exit $?"; grep -E "equal|differs|MISMATCH" $OUT/check-$f.txt
done
for tool in memcheck $(for k in ${RACE:-k_lanes k_write_lanes}; do echo racecheck-$k; done); do
	x= q=1
	case $tool in racecheck-*) q=2 x="--kernel-name kns=${tool#racecheck-}" ;; esac
	env WLZ_GC_QUICK=$q timeout 100 compute-sanitizer --tool ${tool%%-*} $x --error-exitcode 9 gpu_compress \
		> $OUT/sanitize-$tool.txt 2>&1
	echo "compute-sanitizer $tool rc=$?"
	grep -E "ERROR SUMMARY|RACECHECK SUMMARY|all checks passed" $OUT/sanitize-$tool.txt | tail -2
done
