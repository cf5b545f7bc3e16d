#!/bin/bash
# Session 27, call 12 (one H200): Nsight Compute on the GPU compressor's
# slowest kernels at git a98d988 (Illumina, depth 10): k_find, k_far,
# k_parse, k_levels, k_code, one launch each, for the next session.
#   carry: .dev/s27 (bins.tar.xz: gcb-new, wavelz; il.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s27
wavelz -d -c .dev/s27/il.wlz > $T/il.fq
GPU_PEERS= timeout 400 ncu --clock-control none -k regex:"^k_(find|far|parse|levels|code)$" -c 6 --section SpeedOfLight \
	--section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
	--section MemoryWorkloadAnalysis gcb-new $T/il.fq 0 > $OUT/ncu.txt 2>&1
echo "ncu exit $?"
grep -E "^  k_|Duration|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp|Registers Per|Memory Throughput|DRAM Throughput|L2 Hit|Compute \(SM\) Th|Avg. Active Threads" $OUT/ncu.txt
