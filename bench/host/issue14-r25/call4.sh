#!/usr/bin/env bash
# Session 25, call 4: CPU decode of the default archives, tb-ref (git
# 7b5380d) against tb-new (git 708cf80: codec 2's lane loop with one
# output pointer), beside zstd -3, on 1 and 16 threads; two runs of 5
# rounds, alternated, best kept.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina120.fastq pacbio16.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst | $B/zstd -q -1 -o $C/$f.zst
done
ZSTD=$B/zstd RUNS=2 REPS=5 bash bench/host_decode_ab.sh $OUT/decode.md $B/wlz-new ref=$B/tb-ref,new=$B/tb-new \
  $C/illumina120.fastq.zst $C/pacbio16.fastq.zst $C/gcide.txt.zst
cat $OUT/decode.md
