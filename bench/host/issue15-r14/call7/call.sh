#!/bin/bash
# session 14, device call 7 (one H200): granules of 64 bytes as the default (main after d9ae41c):
# gpu_decode against granules of 32 (gd5) and 128 (gd7) bytes, alternated; memcheck, racecheck, tests/gpu.sh
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il &
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gc
wait
for c in il gc; do wavelz -3 -T16 -q -c $T/$c > $T/$c-none.wlz; wavelz -3 -T16 -q --depth=10 -c $T/$c > $T/$c-10.wlz; done
for a in il-none gc-none il-10 gc-10; do for r in 1 2; do for g in 6 5 7; do
  b=gd$g; [ $g = 6 ] && b=gpu_decode
  timeout 60 $b $T/$a.wlz 3 | grep "^$a.wlz" | sed "s/^/gran=$g,/" | tee -a $OUT/gran.csv | cut -d, -f1,2,7,8,19
done; done; done
for c in il gc; do
  head -c 8000000 $T/$c > $T/s; wavelz -3 -q -c $T/s > $T/s.wlz
  for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool gpu_decode $T/s.wlz 1 > $T/san 2>&1
    echo "$c gpu_decode $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/san)" | tee -a $OUT/sanitizer.txt
  done
done
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)"
