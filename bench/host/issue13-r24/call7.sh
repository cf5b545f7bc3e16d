#!/usr/bin/env bash
# Session 24, call 7: the workers read a regular file at offsets (git
# 368ca08, wlz-f) against the caller's thread reading it (wlz-e, git
# 5e4bdd7: the cut at 9/16).  Traces of wlz-f (trace-f.diff), then
# best-of-5 alternated timing beside zstd -3, gcide and Illumina, twice.
set -u; r=0
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; $B/zstd -q -1 $C/$f -o $C/$f.zst
done
for t in 1 16 16 16; do
  r=$((r+1))
  TIMEFORMAT="wlz-f T$t run $r: %R real %U user %S sys"
  { time WLZ_TRACE=$OUT/tr-wlz-f-T$t-$r.txt $B/wlz-f-trace -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
done
cat $OUT/time.txt
(cd $OUT && tar czf traces.tgz tr-*.txt && rm tr-*.txt)
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "1 3" $B/wlz-e $B/wlz-f -- $C/gcide.txt.zst $C/illumina.fastq.zst
done
