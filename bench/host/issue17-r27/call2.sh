#!/bin/bash
# Session 27, call 2 (one H200): the finder run inside the parse, only at
# the positions it looks at (WLZ_GC_FUSED=1, the new default), against the
# finder over every position first (WLZ_GC_FUSED=0, same build: also the
# far tables' loads issued before the candidates' compares) and main
# ("base"), alternated, Illumina and gcide's first 20 MB; profiled stages;
# the test in both modes; CHECK=1 (GPU bytes = CPU reference) on both
# inputs; Nsight Compute on the fused k_parse.
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
wavelz -d -c .dev/s27/gc20.wlz > $T/gc20.txt
run() { # label fused binary file reps
	WLZ_GC_FUSED=$2 GPU_PEERS= $3 $T/$4 $5 2>&1
}
for r in 1 2; do
	for f in il.fq gc20.txt; do
		for v in base:1:gcb-base fused:1:gcb-new twopass:0:gcb-new; do
			IFS=: read l m b <<< "$v"
			run $l $m $b $f 5 | grep device-resident | sed "s/^/$l,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for f in il.fq gc20.txt; do
	for v in base:1:gcb-base fused:1:gcb-new twopass:0:gcb-new; do
		IFS=: read l m b <<< "$v"
		WLZ_GC_PROFILE=1 run $l $m $b $f 1 | grep -E "gc profile: " | sed "s/^/$l $f: /" >> $OUT/profile.txt
	done
done
grep -E "(find|parse) " $OUT/profile.txt | awk 'NR%2==0'
for m in 1 0; do
	WLZ_GC_FUSED=$m timeout 300 gpu_compress tests/data/*.zst > $OUT/test-fused$m.txt 2>&1
	echo "gpu_compress fused=$m exit $?"; tail -1 $OUT/test-fused$m.txt
done
for f in il.fq gc20.txt; do
	CHECK=1 WLZ_GC_FUSED=1 GPU_PEERS= gcb-new $T/$f 1 > $OUT/check-$f.txt 2>&1
	echo "check $f exit $?"; grep -E "equal|differs|MISMATCH" $OUT/check-$f.txt
done
WLZ_GC_FUSED=1 GPU_PEERS= timeout 200 ncu --clock-control none -k regex:k_parse -c 1 --section SpeedOfLight \
	--section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
	gcb-new $T/il.fq 1 > $OUT/ncu-parse.txt 2>&1
echo "ncu exit $?"; grep -E "Duration|Achieved Occupancy|Registers Per|Memory Throughput|Compute \(SM\)|Warp Cycles Per Issued" $OUT/ncu-parse.txt | head -12
