#!/bin/bash
# session 14, device call 3: main at the cut's merge (a186b7e): the library's rule (cut where a piece
# resolves and averages >= 24 bytes a token) against no cut, the API, sanitizers, tests/gpu.sh
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/illumina.fastq &
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gcide.txt
zstd -q -dc --long=31 .dev/keep/cldr120.tar.zst > $T/cldr120.tar
wait
: > $OUT/decode.csv; : > $OUT/api.csv; : > $OUT/sizes.csv
for c in illumina.fastq gcide.txt cldr120.tar; do
  wavelz -3 -T16 -q -c $T/$c > $T/a.wlz
  echo "$c,$(stat -c %s $T/$c),$(stat -c %s $T/a.wlz)" >> $OUT/sizes.csv
  for r in 1 2; do
    WLZ_GPU_CUT=0 timeout 90 gpu_decode $T/a.wlz 3 | grep "^a.wlz" | sed "s/^a\.wlz/$c-nocut/" | tee -a $OUT/decode.csv | cut -d, -f1,5-8,11,12,18
    timeout 90 gpu_decode $T/a.wlz 3 | grep "^a.wlz" | sed "s/^a\.wlz/$c-rule/" | tee -a $OUT/decode.csv | cut -d, -f1,5-8,11,12,18
  done
  timeout 120 gpu_api_bench $T/a.wlz 5 > $T/rows; echo "# $c: exit $?" >> $OUT/api.csv
  sed "s/^a\.wlz/$c/" $T/rows | tee -a $OUT/api.csv | grep -E "d2d,auto|h2h,auto"
  head -c 8000000 $T/$c > $T/s; wavelz -3 -q -c $T/s > $T/s.wlz
  for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool $tool gpu_decode $T/s.wlz 1 > $T/san 2>&1
    echo "$c gpu_decode $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/san)" | tee -a $OUT/sanitizer.txt
  done
  timeout 300 compute-sanitizer --tool memcheck gpu_api $T/s > $T/san 2>&1
  echo "$c gpu_api memcheck exit $?: $(grep -E 'ERROR SUMMARY' $T/san) $(tail -1 $T/san)" | tee -a $OUT/sanitizer.txt
done
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)"
