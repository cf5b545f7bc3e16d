#!/bin/bash
# Session 26, call 4 (one H200): the GPU compressor's stages today
# (WLZ_GC_PROFILE=1: an event after each launch) on the Illumina corpus at
# depth 10, and Nsight Compute on its three slowest kernels.
#   carry: .dev/s26 (bins.tar.xz: gpu_compress_bench, wavelz; il.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s26
wavelz -d -c .dev/s26/il.wlz > $T/il.fq
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
GPU_PEERS= gpu_compress_bench $T/il.fq 5 > $OUT/bench.csv 2>&1
cat $OUT/bench.csv
WLZ_GC_PROFILE=1 GPU_PEERS= gpu_compress_bench $T/il.fq 1 > $OUT/profile.txt 2>&1
tail -40 $OUT/profile.txt
timeout 240 ncu --clock-control none -k regex:"k_code|k_find|k_far" -c 3 --section SpeedOfLight --section Occupancy \
	--section LaunchStats --section WarpStateStats --section SchedulerStats \
	gpu_compress_bench $T/il.fq 0 > $OUT/ncu.txt 2>&1
echo "ncu exit $?"
grep -E "^  k_|Duration|Achieved Active|Warp Cycles Per Issued|Grid Size|Block Size|Registers Per|Issued Warp|Theoretical Occ" $OUT/ncu.txt
