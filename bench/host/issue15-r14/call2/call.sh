#!/bin/bash
# session 14, device call 2: gpu-cut with the pass bounded by the pieces' count (A/B against no cut),
# its checks; then the CPU: one-thread compression of gcide under candidate level parameters (WLZ_LP, experiment)
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
cp "$D/gpu_cut_check.sh" bench/gpu_cut_check.sh
timeout 400 bash bench/gpu_cut_check.sh $B/cut $OUT/cut .dev/keep/illumina.fastq.xz .dev/keep/gcide.txt.zst .dev/keep/cldr120.tar.zst
T=/dev/shm/w; mkdir -p $T
$B/cut/zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gc
lscpu | grep -E "Model name" > $OUT/cpu.txt
for r in 1 2 3; do
  for lp in base 2,16,2,16,1,32,262144 2,16,2,4,1,32,262144 2,12,4,8,1,32,262144 4,16,2,8,1,32,262144 4,12,4,4,1,64,262144; do
    if [ $lp = base ]; then
      /usr/bin/time -f "zstd-3 %e %U" $B/cut/zstd -3 -T1 -q -c $T/gc > $T/o; echo "size $(stat -c %s $T/o)"
      /usr/bin/time -f "wavelz-1 %e %U" $B/exp/wavelz -1 -T1 -q -c $T/gc > $T/o; echo "size $(stat -c %s $T/o)"
      /usr/bin/time -f "zstd-3 %e %U" $B/cut/zstd -3 -T1 -q -c $T/gc > $T/o; echo "size $(stat -c %s $T/o)"
    else
      WLZ_LP=$lp /usr/bin/time -f "lp=$lp %e %U" $B/exp/wavelz -3 -T1 -q -c $T/gc > $T/o; echo "size $(stat -c %s $T/o)"
    fi
  done
done > $OUT/cpu-lp.txt 2>&1
cat $OUT/cpu-lp.txt | paste - - | awk '{print $1,$2,$3,$5}' | sort | awk '{n[$1]++; s[$1]+=$2; if(!($1 in m)||$2<m[$1])m[$1]=$2; z[$1]=$4} END{for(k in n) print k, "best wall", m[k], "size", z[k]}'
