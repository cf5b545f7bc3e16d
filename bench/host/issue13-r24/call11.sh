#!/usr/bin/env bash
# Session 24, call 11: the session's end (wlz-new, git f066201) against
# its start (wlz-ref, git 8efd27c), levels 1 and 3, gcide, gc8 (its first
# 8,000,000 bytes) and Illumina, best of 5 alternated rounds beside
# zstd -3, twice.
set -u
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; $B/zstd -q -f -1 $C/$f -o $C/$f.zst
done
head -c 8000000 $C/gcide.txt | $B/zstd -q -1 -o $C/gc8.zst
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "1 3" $B/wlz-ref $B/wlz-new -- \
    $C/gcide.txt.zst $C/gc8.zst $C/illumina.fastq.zst
done
