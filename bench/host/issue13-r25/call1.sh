#!/usr/bin/env bash
# Session 25, call 1: wlz-ref (git 07d641a) against wlz-a (blocks that
# read no far-table entry start without waiting for their anchor lists)
# and wlz-b (wlz-a, and up to three pieces a block in small rounds, cut
# at 7/16 and 12/16), levels 1 and 3 on gcide and Illumina, best of 5
# alternated rounds beside zstd -3; then 16-thread wall times on gcide.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; $B/zstd -q -f -1 $C/$f -o $C/$f.zst
done
for r in 1 2 3; do for b in wlz-ref wlz-a wlz-b; do
  TIMEFORMAT="$b gcide -3 T16: %R real %U user %S sys"
  { time $B/$b -q -3 -T16 -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
done; done
cat $OUT/time.txt
ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-1.md "1 3" $B/wlz-ref $B/wlz-a $B/wlz-b -- \
  $C/gcide.txt.zst $C/illumina.fastq.zst
cat $OUT/cspeed-1.md
