#!/bin/bash
# session 16, device call 1 (one H200), git 77f74d7: checks of the depth-limited
# fast parse's archives (tests/gpu.sh, sanitizers), then gpu_decode of -3/-1 --depth=10
# archives of Illumina, gcide and 2 GiB fqgen, and one ncu kernel breakdown.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
timeout 150 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee $OUT/checks.txt
xz -dc .dev/keep/illumina.fastq.xz > $T/il &
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gc
wait
for c in il gc; do
  head -c 8000000 $T/$c > $T/s
  for d in 0 10; do
    if [ $d = 0 ]; then wavelz -3 -q -c $T/s > $T/s.wlz; else wavelz -3 -q --depth=$d -c $T/s > $T/s.wlz; fi
    for tool in memcheck racecheck; do
      timeout 120 compute-sanitizer --tool $tool gpu_decode $T/s.wlz 1 > $T/san 2>&1
      echo "$c d$d $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/san | tr '\n' ' ')" | tee -a $OUT/checks.txt
    done
  done
done
timeout 200 compute-sanitizer --tool memcheck gpu_api $T/s > $T/san 2>&1
echo "gpu_api memcheck exit $?: $(grep -E 'ERROR SUMMARY' $T/san)" | tee -a $OUT/checks.txt
fqgen $T/il 2147483648 7 > $T/fq2g
for c in il gc fq2g; do
  for l in 3 1; do
    wavelz -$l -T16 -q --depth=10 -c $T/$c > $T/$c-$l.wlz
    echo "$c -$l --depth=10: $(stat -c %s $T/$c) -> $(stat -c %s $T/$c-$l.wlz)" | tee -a $OUT/sizes.txt
    timeout 60 gpu_decode $T/$c-$l.wlz 3 > $T/rows 2>&1; echo "exit $?" >> $T/rows
    sed "s/^/$c-$l,/" $T/rows >> $OUT/decode.csv
    grep -v "^file" $T/rows | cut -d, -f1,6,7,9-12,17 | tail -2
  done
done
rm -f $T/fq2g*
NCU_TIMEOUT=200 bash bench/gpu_kernels.sh $OUT/ncu 60 gpu_decode $T/il-3.wlz 1 > /dev/null 2>&1
cut -c1-100 $OUT/ncu/kernels.txt | head -40; rm -f $OUT/ncu/ncu.txt
