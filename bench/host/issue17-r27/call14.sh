#!/bin/bash
# Session 27, call 14: PREPARED, NOT RUN (no device time was left).  The
# clustering passes' global path loading a row's counts 16 bytes at a time
# where every symbol occurs ("new": branch gc-code-vec) against
# git a98d988 ("base", the same kernels otherwise), one round on Illumina
# and a 256 MiB int16 field at S = 2; the test; CHECK=1 on a 40 MB int16
# field at S = 2.
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz, numgen; il.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
numgen i16-field $((128 * 1024 * 1024)) 1 > $T/i16f.bin
numgen i16-field $((20 * 1000 * 1000)) 1 > $T/i16f40.bin
for fs in il.fq:1 i16f.bin:2; do
	IFS=: read f s <<< "$fs"
	for v in base new; do
		SYMBOL=$s GPU_PEERS=none gcb-$v $T/$f 3 2>&1 | grep device-resident | sed "s/^/$v,/" | tee -a $OUT/ab.csv
	done
done
timeout 60 gpu_compress tests/data/*.zst > $OUT/test.txt 2>&1
echo "gpu_compress exit $?"; tail -1 $OUT/test.txt
SYMBOL=2 CHECK=1 GPU_PEERS=none timeout 30 gcb-new $T/i16f40.bin 1 > $OUT/check.txt 2>&1
echo "check exit $?"; grep -E "equal|differs|MISMATCH" $OUT/check.txt
