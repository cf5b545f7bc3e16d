#!/bin/bash
# Session 26, call 15 (one H200): Nsight Compute source counters of k_parse
# on gcide's first 20 MB (depth 10), build with -lineinfo (git dd8a1c9).
#   carry: .dev/s26 (bins.tar.xz: gpu_compress_bench (-lineinfo), wavelz; gc20.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s26
wavelz -d -c .dev/s26/gc20.wlz > $T/gc20.txt
timeout 240 ncu --clock-control none -k regex:"^k_parse\$" -c 1 --section SourceCounters --section WarpStateStats \
	--section Occupancy --section LaunchStats --section SchedulerStats --import-source yes \
	-o $T/kp gpu_compress_bench $T/gc20.txt 0 > $OUT/ncu-k_parse.log 2>&1
echo "ncu exit $?"
ncu -i $T/kp.ncu-rep --page source --csv --print-source cuda,sass > $OUT/k_parse-cuda.csv 2>&1
ncu -i $T/kp.ncu-rep --page details > $OUT/k_parse-details.txt 2>&1
xz -T4 $OUT/k_parse-cuda.csv
grep -E "Duration|Avg. Active Threads|Warp Cycles Per Issued|Achieved Active|Issued Warp" $OUT/k_parse-details.txt
