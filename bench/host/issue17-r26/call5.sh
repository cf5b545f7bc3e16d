#!/bin/bash
# Session 26, call 5 (one H200): Nsight Compute source counters of k_code
# (the codec-2 tables of every part: clustering, Huffman lengths, codes)
# and k_far on the Illumina corpus, depth 10, build with -lineinfo.
#   carry: .dev/s26 (bins.tar.xz: gpu_compress_bench (-lineinfo), wavelz; il.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s26
wavelz -d -c .dev/s26/il.wlz > $T/il.fq
for k in ${KERNELS:-k_code k_far}; do
	timeout 240 ncu --clock-control none -k regex:"^$k\$" -c 1 --section SourceCounters --section WarpStateStats \
		--section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --import-source yes \
		-o $T/$k gpu_compress_bench $T/il.fq 0 > $OUT/ncu-$k.log 2>&1
	echo "ncu $k exit $?"
	ncu -i $T/$k.ncu-rep --page source --csv --print-source cuda,sass > $OUT/$k-cuda.csv 2>&1
	ncu -i $T/$k.ncu-rep --page details > $OUT/$k-details.txt 2>&1
	xz -T4 $OUT/$k-cuda.csv
done
ls -la $OUT
