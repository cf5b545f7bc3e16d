#!/bin/bash
# session 15, device call 1 (one H200): main 9f844eb (016b2ea, 48ea2e9, d990fa7 first on a GPU):
# sanitizers + tests/gpu.sh; resolve rounds 8 vs 4 (WLZ_GPU_RESOLVE); branch gpu-vec (3db6b39) vs main
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
nvidia-smi -L | tee $OUT/gpu.txt
xz -dc .dev/keep/illumina.fastq.xz > $T/il &
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gc
wait
for c in il gc; do wavelz -3 -T16 -q -c $T/$c > $T/$c-none.wlz; wavelz -3 -T16 -q --depth=10 -c $T/$c > $T/$c-10.wlz; done
# sanitizers first (correctness before speed)
for c in il gc; do
  head -c 8000000 $T/$c > $T/s-$c; wavelz -3 -q -c $T/s-$c > $T/s-$c.wlz
  for b in gpu_decode gpu_decode_vec; do for tool in memcheck racecheck; do
    [ $c = gc ] && [ $tool = racecheck ] && [ $b = gpu_decode_vec ] && continue
    timeout 120 compute-sanitizer --tool $tool $b $T/s-$c.wlz 1 > $T/san 2>&1
    echo "$c $b $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/san)" | tee -a $OUT/sanitizer.txt
  done; done
done
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)" | tee -a $OUT/sanitizer.txt
timeout 100 compute-sanitizer --tool memcheck $B/gpu_api $T/s-il > $T/san 2>&1
echo "gpu_api memcheck exit $?: $(grep -E 'ERROR SUMMARY' $T/san)" | tee -a $OUT/sanitizer.txt
timeout 100 compute-sanitizer --tool memcheck $B/gpu_api_vec $T/s-il > $T/san 2>&1
echo "gpu_api_vec memcheck exit $?: $(grep -E 'ERROR SUMMARY' $T/san)" | tee -a $OUT/sanitizer.txt
# speed: main (resolve 8), main resolve 4, gpu-vec; alternated
for a in il-none gc-none il-10 gc-10; do for r in 1 2; do for v in main res4 vec; do
  case $v in main) cmd="gpu_decode";; res4) cmd="env WLZ_GPU_RESOLVE=4 gpu_decode";; vec) cmd=gpu_decode_vec;; esac
  timeout 60 $cmd $T/$a.wlz 3 | grep "^$a.wlz" | sed "s/^/$v,/" | tee -a $OUT/ab.csv | cut -d, -f1,2,7,8,19
done; done; done
