#!/bin/bash
# Session 18, call 11 (two H200): branch split-grouppub, a group's publication instead of a
# chunk's (gpu_split_gp, built with -DWLZ_GPU_FLOW_GROUPPUB=1: a range's last chunk done
# publishes its group to the other GPU after one system-scope fence; a token's reads of the
# other GPU's bytes wait for their group) against main's (gpu_split_m), on the 8 GiB
# resampled FASTQ (-1 --depth=10), groups 16, 8 and 4 (with the gap of 15 blocks, groups of
# 8 or fewer put every cross-GPU source 3 or more groups back); content checked vs the CPU.
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
xz -dc .dev/keep/illumina.fastq.xz > $T/il.fq
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes" | tee $OUT/gp.txt
for r in 1 2; do for v in m:16 gp:8 gp:4 m:8; do
  b=${v%:*} g=${v#*:}
  [ $r = 2 ] && [ $v = m:8 ] && continue
  echo "== big $b group $g round $r" >> $OUT/split.log
  timeout 60 gpu_split_$b $T/big.wlz 2 2 $g >> $OUT/split.log 2>&1; e=$?
  echo "$b g$g r$r exit $e: $(grep 'split GPU 0' $OUT/split.log | tail -1 | grep -o 'prepare [0-9.]*\|pass [0-9.]*' | tr '\n' ' ') $(tail -1 $OUT/split.log | cut -d, -f6-10)" | tee -a $OUT/gp.txt
done; done
