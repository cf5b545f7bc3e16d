#!/bin/bash
# session 13, device call 5 (H100): default and depth-10 archives at the head (sources resolved), kernels and API
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
nvidia-smi --query-gpu=name --format=csv,noheader
T=/dev/shm/w; mkdir -p $T
xz -dc "$D/illumina.fastq.xz" > $T/illumina.fastq &
$B/zstd -q -dc "$D/gcide.txt.zst" > $T/gcide.txt
wait
: > $OUT/decode.csv; : > $OUT/api.csv; : > $OUT/sizes.csv
for c in illumina.fastq gcide.txt; do for d in none 10; do
  o=; [ $d = none ] || o=--depth=$d
  $B/wavelz -3 -T16 -q $o -c $T/$c > $T/a.wlz
  echo "$c,$d,$(stat -c %s $T/$c),$(stat -c %s $T/a.wlz)" >> $OUT/sizes.csv
  for r in 1 2; do
    [ $d = none ] && { WLZ_GPU_RESOLVE=0 timeout 90 $B/gpu_decode $T/a.wlz 3 | grep "^a.wlz" | sed "s/^a\.wlz/$c-$d-noresolve/" | tee -a $OUT/decode.csv | cut -d, -f1,5-8,11; }
    timeout 90 $B/gpu_decode $T/a.wlz 3 | grep "^a.wlz" | sed "s/^a\.wlz/$c-$d/" | tee -a $OUT/decode.csv | cut -d, -f1,5-8,11,17
  done
  timeout 120 $B/gpu_api_bench $T/a.wlz 5 > $T/rows; echo "# $c $d: exit $?" >> $OUT/api.csv
  sed "s/^a\.wlz/$c-$d/" $T/rows | tee -a $OUT/api.csv | head -5
done; done
