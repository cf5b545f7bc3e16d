#!/bin/bash
# Prepared in session 17 for session 18's first call (one H200, about 7 minutes; carry
# [".dev/s17g"], command: bash .dev/s17g/run.sh, from main's checkout).
# 1. Branch flow-take: the pass taking 1 (main), 2 or 4 chunks a ticket (gpu_decode1/2/4:
#    WLZ_GPU_FLOW_TAKE), polling with no sleep or 256 ns (gpu_decode_s0/_s256; main sleeps
#    64), and reading the fail word once in 32 stalls (gpu_decode_fc31).
# 2. Branch level-waves (gpu_decode_wv): WLZ_GPU_WAVES=10 decodes in waves by level
#    (writers, 10 rounds of levels, a sort, 11 waves) against the pass (unset).
# gpu_decode on the -3 --depth=10 archives of Illumina and gcide carried here, alternated
# twice, every row checked against the CPU; then memcheck of the waves on 8 MB slices, and
# Nsight Compute's per-kernel times of the waves path on Illumina.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
for r in 1 2; do for a in il10 gc10; do
  for v in 1 2 4 _s0 _s256 _fc31; do
    timeout 25 $B/gpu_decode$v $D/$a.wlz 3 2>&1 | grep "^$a" | cut -d, -f1,6,7,10-13,17 | sed "s/^/v=$v /" | tee -a $OUT/take.txt
  done
  for wv in 0 10; do
    if [ $wv = 0 ]; then unset WLZ_GPU_WAVES; else export WLZ_GPU_WAVES=$wv; fi
    timeout 25 $B/gpu_decode_wv $D/$a.wlz 3 2>&1 | grep "^$a" | cut -d, -f1,6,7,10-13,17 | sed "s/^/waves=$wv /" | tee -a $OUT/waves.txt
  done
  unset WLZ_GPU_WAVES
done; done
export WLZ_GPU_WAVES=10
for a in il8-10 gc8-10; do
  timeout 120 compute-sanitizer --tool memcheck $B/gpu_decode_wv $D/$a.wlz 1 > $OUT/san-$a.txt 2>&1
  echo "$a waves memcheck exit $?: $(grep -E 'ERROR SUMMARY' $OUT/san-$a.txt) $(grep "^$a" $OUT/san-$a.txt | cut -d, -f17 | head -1)" | tee -a $OUT/waves.txt
done
NCU_TIMEOUT=150 bash bench/gpu_kernels.sh $OUT/ncu 60 $B/gpu_decode_wv $D/il10.wlz 1 > /dev/null 2>&1
rm -f $OUT/ncu/ncu.txt; cat $OUT/ncu/kernels.txt
