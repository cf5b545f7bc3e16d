#!/bin/bash
# Session 27, call 3 (one H200): the finder's longest measured match
# (GC_FIND_MAX 64 as main, 32, 16: builds m64, m32, m16 of git 4759cd4
# with -DGC_FIND_MAX) and a cap on the far tables' size (FARMAX=24 or 23,
# an environment hook of these test builds; Illumina's own is 26),
# alternated, Illumina and gcide's first 20 MB, with profiled stages.
# Sizes of the same settings from the CPU reference: issue17-r27.md.
#   carry: .dev/s27 (bins.tar.xz: gcb-m64, gcb-m32, gcb-m16, wavelz; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
wavelz -d -c .dev/s27/gc20.wlz > $T/gc20.txt
V="m64:27 m32:27 m16:27 m64:24 m64:23 m32:24"
for r in 1 2; do
	for f in il.fq gc20.txt; do
		for v in $V; do
			IFS=: read b fm <<< "$v"
			FARMAX=$fm GPU_PEERS= gcb-$b $T/$f 5 2>&1 | grep device-resident | sed "s/^/$b-far$fm,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for f in il.fq gc20.txt; do
	for v in $V; do
		IFS=: read b fm <<< "$v"
		FARMAX=$fm WLZ_GC_PROFILE=1 GPU_PEERS= gcb-$b $T/$f 1 2>&1 | grep -E "gc profile: " | sed "s/^/$b-far$fm $f: /" >> $OUT/profile.txt
	done
done
grep -E "(far|find|parse) " $OUT/profile.txt | awk "NR % 4 == 0"
