#!/bin/bash
# session 17, device call 3 (two H200): forwarders v2 (a fence a window of 64 chunks,
# once the window is done; 16 blocks) against a release at system scope a chunk
# (gpu_split_f0); 8 GiB -1 d10 group 16 alternated; Illumina d10; tests/gpu.sh traced.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
wavelz -q -f --depth=10 -T0 $T/il.fq -o $T/il.wlz
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes" | tee $OUT/split.txt
for r in 1 2; do
  for v in f0 fwd; do
    bin=gpu_split; [ $v = fwd ] || bin=gpu_split_$v
    echo "== $v round $r" >> $OUT/split.log
    timeout 60 $bin $T/big.wlz 2 2 16 >> $OUT/split.log 2>&1; e=$?
    echo "$v r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/split.txt
  done
done
for v in f0 fwd; do
  bin=gpu_split; [ $v = fwd ] || bin=gpu_split_$v
  echo "== il d10 $v" >> $OUT/split.log
  timeout 60 $bin $T/il.wlz 3 2 8 >> $OUT/split.log 2>&1; e=$?
  echo "il d10 $v exit $e: $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/split.txt
done
rm -f $T/big.wlz
PS4='+ $SECONDS ' timeout 200 bash -x tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh (2 GPUs, forwarders) exit $?: $(grep -v '^+' $OUT/gpu-tests.log | tail -1)" | tee -a $OUT/split.txt
grep "^+ [0-9]* timeout\|^+ [0-9]* .*gpu_api\|^+ [0-9]* .*gpu_split" $OUT/gpu-tests.log | awk '{print $2}' | uniq -c | tail -5
grep -n "^+ [0-9]* timeout 60" $OUT/gpu-tests.log | head -50 | awk '{print $2}' | tr '\n' ' '
