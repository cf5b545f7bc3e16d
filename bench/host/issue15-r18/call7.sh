#!/bin/bash
# Session 18, call 7 (one H200): Nsight Compute of main's entropy kernel (ent_kernel) on
# Illumina -3 --depth=10 (segments of 2^15): source counters per CUDA line and SASS
# instruction (the build has -lineinfo), warp states, scheduler, occupancy and launch
# statistics, to see why a warp takes ~150 us for its segment's 1024 symbols a lane.
set -u
D=$(cd "$(dirname "$0")" && pwd)
xz -dc $D/gpu_decode_li.xz > /tmp/gd && chmod +x /tmp/gd
timeout 300 ncu -k regex:"ent_kernel" -c 1 --section SourceCounters --section WarpStateStats \
  --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats \
  --section MemoryWorkloadAnalysis --section SpeedOfLight --import-source yes -o /tmp/ent /tmp/gd $D/il10.wlz 1 > $OUT/ncu.log 2>&1
echo "ncu exit $?"
ncu -i /tmp/ent.ncu-rep --page source --csv --print-source cuda,sass > $OUT/ent_kernel-cudasass.csv 2>&1
ncu -i /tmp/ent.ncu-rep --page details > $OUT/ent_kernel-details.txt 2>&1
xz -T4 $OUT/ent_kernel-cudasass.csv; ls -la $OUT; grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Registers|Waves Per SM|Block Limit" $OUT/ent_kernel-details.txt
