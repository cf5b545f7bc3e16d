#!/bin/bash
# Session 27, call 4 (one H200): what a faster, looser GPU level would
# gain: test builds of git 4759cd4 without far candidates (NOFAR=1, an
# environment hook of these builds: no far tables built or read) and
# without context clustering (nocl: one table a part), alternated,
# Illumina and gcide's first 20 MB, with profiled stages.  Their sizes
# from the CPU reference: issue17-r26.md (first 40 / 20 MB).
#   carry: .dev/s27 (bins.tar.xz: gcb-m64, gcb-nocl, wavelz; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
wavelz -d -c .dev/s27/gc20.wlz > $T/gc20.txt
V="m64: m64:1 nocl: nocl:1"
for r in 1 2; do
	for f in il.fq gc20.txt; do
		for v in $V; do
			IFS=: read b nf <<< "$v"
			env ${nf:+NOFAR=1} GPU_PEERS= gcb-$b $T/$f 5 2>&1 | grep device-resident | sed "s/^/$b-nofar$nf,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for f in il.fq gc20.txt; do
	for v in $V; do
		IFS=: read b nf <<< "$v"
		env ${nf:+NOFAR=1} WLZ_GC_PROFILE=1 GPU_PEERS= gcb-$b $T/$f 1 2>&1 | grep -E "gc profile: " | sed "s/^/$b-nofar$nf $f: /" >> $OUT/profile.txt
	done
done
