#!/bin/bash
# Session 18, call 5 (one H200): Nsight Compute source counters (per SASS instruction,
# with CUDA lines: the build has -lineinfo) of main's pass (flow_kernel) and literal kernel
# on Illumina -3 --depth=10, to see where the pass's 513 M warp instructions go.
set -u
D=$(cd "$(dirname "$0")" && pwd)
xz -dc $D/gpu_decode_li.xz > /tmp/gd && chmod +x /tmp/gd
/tmp/gd $D/il10.wlz 1 2>&1 | tail -1 | cut -d, -f1,6,7,10-13,17 | tee $OUT/log.txt
timeout 300 ncu -k regex:"flow_kernel|lits_kernel" -c 2 --section SourceCounters --section WarpStateStats \
  --section InstructionStats --import-source yes -o $OUT/prof /tmp/gd $D/il10.wlz 1 > $OUT/ncu.log 2>&1
echo "ncu exit $?" | tee -a $OUT/log.txt
for k in flow_kernel lits_kernel; do
  for ps in cuda,sass sass; do
    timeout 120 ncu -i $OUT/prof.ncu-rep -k regex:$k --page source --csv --print-source $ps > $OUT/$k-$ps.csv 2> $OUT/$k-$ps.err
    echo "$k $ps exit $? lines $(wc -l < $OUT/$k-$ps.csv)" | tee -a $OUT/log.txt
  done
  timeout 60 ncu -i $OUT/prof.ncu-rep -k regex:$k --page details --csv > $OUT/$k-details.csv 2>&1
done
for f in $OUT/*.csv; do [ $(stat -c %s $f) -gt 1000000 ] && xz -T4 $f; done
rm -f $OUT/prof.ncu-rep.xz; xz -T4 $OUT/prof.ncu-rep; ls -la $OUT
