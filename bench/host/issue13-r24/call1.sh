#!/usr/bin/env bash
# Session 24, call 1 (one H200 machine, CPU only): where 16 threads lose
# time compressing gcide at the default (level 4): a traced build (the
# fifteenth session's trace-patch.py applied to git 8efd27c) at T1 and
# T16, beside Illumina, with user and system time of the plain build.
set -u
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; done
lscpu | head -20 > $OUT/lscpu.txt; uname -r >> $OUT/lscpu.txt; which perf >> $OUT/lscpu.txt 2>&1
for f in gcide.txt illumina.fastq; do
  for t in 1 16 16 16; do
    for r in 1 2; do
      WLZ_TRACE=$OUT/tr-$f-T$t-$r.txt $B/wavelz-trace -q -3 -T$t -c $C/$f > $C/a.wlz
    done
  done
  for t in 1 16; do for r in 1 2 3; do
    TIMEFORMAT="$f T$t wlz: %R real %U user %S sys"; { time $B/wavelz -q -3 -T$t -c $C/$f > $C/a.wlz; } 2>>$OUT/time.txt
    TIMEFORMAT="$f T$t zstd: %R real %U user %S sys"; { time $B/zstd -q -3 -T$t -c $C/$f > $C/z.zst; } 2>>$OUT/time.txt
  done; done
done
cat $OUT/time.txt
