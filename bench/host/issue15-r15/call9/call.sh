#!/bin/bash
# session 15, device call 9 (one H200): the head after step_far (depth-limited archives smaller):
# tests/gpu.sh; gpu_decode of depth-10 archives (Illumina, gcide, 2 GiB fqgen)
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
nvidia-smi -L | tee $OUT/gpu.txt
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)"
xz -dc .dev/keep/illumina.fastq.xz > $T/il &
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gc
wait
fqgen $T/il $((2 << 30)) 7 > $T/fq2g
for c in il gc fq2g; do
  s0=$(date +%s.%N); wavelz -1 -T16 -q --depth=10 -c $T/$c > $T/$c-10.wlz; s1=$(date +%s.%N)
  echo "$c -1 --depth=10: $(stat -c %s $T/$c) -> $(stat -c %s $T/$c-10.wlz) in $(awk -v a=$s0 -v b=$s1 'BEGIN{printf "%.2f", b-a}') s" | tee -a $OUT/sizes.txt
  timeout 100 gpu_decode $T/$c-10.wlz 3 | tee -a $OUT/decode.csv | grep -v "^file" | cut -d, -f1,2,5,6,7,9-12,18
done
