#!/bin/bash
# Session 26, call 8 (one H200): k_code with 112 KB of shared memory (the
# clustering's copy of the counts fits more parts) against main, alternated,
# Illumina and gcide's first 20 MB at depth 10, with k_code's profiled time;
# then the test (GPU bytes equal to the CPU reference's, both decoders).
# The profile line's grep printed only "code" in calls 8 to 13; it was
# widened for call 14 (write meta, write raw, assemble) and call 16
# (find, parse, code), as it stands now.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s26
wavelz -d -c .dev/s26/il.wlz > $T/il.fq
wavelz -d -c .dev/s26/gc20.wlz > $T/gc20.txt
for r in 1 2; do
	for f in il.fq gc20.txt; do
		for v in base new; do
			GPU_PEERS= gcb-$v $T/$f 5 2>&1 | grep device-resident | sed "s/^/$v,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for f in il.fq gc20.txt; do
	for v in base new; do
		WLZ_GC_PROFILE=1 GPU_PEERS= gcb-$v $T/$f 1 2>&1 | grep -E "gc profile: (find|parse|code) " | tail -3 | sed "s/^/$v $f: /" | tee -a $OUT/code.txt
	done
done
timeout 300 gpu_compress tests/data/*.zst > $OUT/test.txt 2>&1
echo "gpu_compress exit $?"; tail -2 $OUT/test.txt
CHECK=1 GPU_PEERS= gcb-new $T/gc20.txt 1 > $OUT/check.txt 2>&1
echo "check exit $?"; tail -3 $OUT/check.txt
