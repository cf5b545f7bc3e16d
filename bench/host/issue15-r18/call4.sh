#!/bin/bash
# Session 18, call 4 (one H200): branch pass-words, the pass copying a round of
# non-overlapping matches a 4-byte word a unit (gpu_decode_w2: 2 units a lane in flight,
# _w4: 4) against main (gpu_decode_m), on the -3 --depth=10 archives of Illumina and gcide
# and default archives of an 8 MB Illumina slice and an 8 MB gcide slice, alternated twice,
# every row's content checked against the CPU; memcheck of w2 on slices; tests/gpu.sh with
# the w2 build; Nsight Compute per kernel (time, warp instructions) of m and w2 on Illumina.
set -u
D=$(cd "$(dirname "$0")" && pwd); S=$D
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
for r in 1 2; do for a in $S/il10 $S/gc8-10 $D/il8d $D/gc8d; do
  for v in m w2 w4; do
    n=$(basename $a)
    timeout 40 gpu_decode_$v $a.wlz 3 2>&1 | grep "^$n" | cut -d, -f1,6,7,10-13,17 | sed "s/^/v=$v /" | tee -a $OUT/words.txt
  done
done; done
for a in $S/il8-10 $S/gc8-10 $D/gc8d; do
  n=$(basename $a)
  timeout 120 compute-sanitizer --tool memcheck gpu_decode_w2 $a.wlz 1 > $OUT/san-$n.txt 2>&1
  echo "$n w2 memcheck exit $?: $(grep -E 'ERROR SUMMARY' $OUT/san-$n.txt) $(grep "^$n" $OUT/san-$n.txt | cut -d, -f17 | head -1)" | tee -a $OUT/words.txt
done
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh (w2) exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee -a $OUT/words.txt
for v in m w2; do
  NCU_TIMEOUT=100 bash bench/gpu_kernels.sh $OUT/ncu-$v 60 $B/gpu_decode_$v $S/il10.wlz 1 > /dev/null 2>&1
  rm -f $OUT/ncu-$v/ncu.txt; echo "== $v"; grep -E "flow|lits" $OUT/ncu-$v/kernels.txt
done
