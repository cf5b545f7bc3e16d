#!/usr/bin/env bash
# Session 24, call 2: the traced build (trace.diff on git 8efd27c) at T1
# and T16, default level, gcide and Illumina (call 1's traced runs failed
# on a zero task, which has no round).
set -u; r=0
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; done
for f in gcide.txt illumina.fastq; do
  for t in 1 16 16 16 16; do
    r=$((r+1))
    TIMEFORMAT="$f T$t run $r: %R real %U user %S sys"
    { time WLZ_TRACE=$OUT/tr-$f-T$t-$r.txt $B/wavelz-trace -q -3 -T$t -c $C/$f > $C/a.wlz; } 2>>$OUT/time.txt
  done
done
cat $OUT/time.txt
