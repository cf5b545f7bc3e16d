#!/bin/bash
# PREPARED in session 27, NOT RUN (no device time was left): two branches
# against main, alternated, two rounds on Illumina, gcide's first 20 MB and
# a 256 MiB int16 field at S = 2, with the profiled find and code stages;
# then each build's test and CHECK=1 on a 40 MB int16 field at S = 2
# (main's too: its k_chunk_write since 069395a has run only in a host
# emulation).
#   vec: branch gc-code-vec (the clustering passes' global path loads a
#        row 16 bytes at a time where every symbol occurs);
#   m8:  branch gc-match8 (gc_match_len eight bytes a step).
# Build gcb-base (main), gcb-vec, gcb-m8 (gpu_compress_bench) and
# gpu_compress-base, -vec, -m8 (tests/gpu_compress) here first (rebase
# the branches on main).
#   carry: .dev/s28 (bins.tar.xz: those, wavelz, numgen; il.wlz, gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s28
wavelz -d -c .dev/s28/il.wlz > $T/il.fq
wavelz -d -c .dev/s28/gc20.wlz > $T/gc20.txt
numgen i16-field $((128 * 1024 * 1024)) 1 > $T/i16f.bin
numgen i16-field $((20 * 1000 * 1000)) 1 > $T/i16f40.bin
V="il.fq:1 gc20.txt:1 i16f.bin:2"
for r in 1 2; do
	for fs in $V; do
		IFS=: read f s <<< "$fs"
		for v in base vec m8; do
			SYMBOL=$s GPU_PEERS=none gcb-$v $T/$f 5 2>&1 | grep device-resident | sed "s/^/$v,$r,/" | tee -a $OUT/ab.csv
		done
	done
done
for fs in $V; do
	IFS=: read f s <<< "$fs"
	for v in base vec m8; do
		SYMBOL=$s WLZ_GC_PROFILE=1 GPU_PEERS=none gcb-$v $T/$f 1 2>&1 | grep -E "gc profile: (find|code) " | sed "s/^/$v $f: /" >> $OUT/profile.txt
	done
done
for v in base vec m8; do
	timeout 120 gpu_compress-$v tests/data/*.zst > $OUT/test-$v.txt 2>&1
	echo "gpu_compress $v exit $?"; tail -1 $OUT/test-$v.txt
	SYMBOL=2 CHECK=1 GPU_PEERS=none gcb-$v $T/i16f40.bin 1 > $OUT/check-$v.txt 2>&1
	echo "check $v exit $?"; grep -E "equal|differs|MISMATCH" $OUT/check-$v.txt
done
