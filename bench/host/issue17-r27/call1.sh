#!/bin/bash
# Session 27, call 1 (one H200): the clustering rule of 25f7a1c (main, "new")
# against 4e22b58 ("base", the last build timed) and branch gc-stage
# ("stage"), alternated, Illumina and gcide's first 20 MB, with the profiled
# stage times; then the test at main (GPU bytes equal to the CPU reference's,
# both decoders), CHECK=1 for new and stage on gcide, and compute-sanitizer
# (memcheck, racecheck of k_code) on main's test.
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gcb-stage, gpu_compress, wavelz; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
wavelz -d -c .dev/s27/gc20.wlz > $T/gc20.txt
for r in 1 2; do
	for f in il.fq gc20.txt; do
		for v in base new stage; do
			GPU_PEERS= gcb-$v $T/$f 5 2>&1 | grep device-resident | sed "s/^/$v,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for f in il.fq gc20.txt; do
	for v in base new stage; do
		WLZ_GC_PROFILE=1 GPU_PEERS= gcb-$v $T/$f 1 2>&1 | grep -E "gc profile: " | sed "s/^/$v $f: /" >> $OUT/profile.txt
	done
done
grep -E "(find|parse|code) " $OUT/profile.txt
timeout 300 gpu_compress tests/data/*.zst > $OUT/test.txt 2>&1
echo "gpu_compress exit $?"; tail -2 $OUT/test.txt
for v in new stage; do
	CHECK=1 GPU_PEERS= gcb-$v $T/gc20.txt 1 > $OUT/check-$v.txt 2>&1
	echo "check $v exit $?"; tail -2 $OUT/check-$v.txt
done
for tool in memcheck racecheck-k_code; do
	q=1 x=
	case $tool in racecheck-*) q=3 x="--kernel-name kns=${tool#racecheck-}" ;; esac
	env WLZ_GC_QUICK=$q timeout 100 compute-sanitizer --tool ${tool%%-*} $x --error-exitcode 9 gpu_compress \
		> $OUT/sanitize-$tool.txt 2>&1
	echo "compute-sanitizer $tool rc=$?"
	grep -E "ERROR SUMMARY|RACECHECK SUMMARY|all checks passed" $OUT/sanitize-$tool.txt | tail -3
done
