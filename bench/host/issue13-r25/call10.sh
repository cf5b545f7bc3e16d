#!/usr/bin/env bash
# Session 25, call 10: the session's end (wlz-end, git bfbadd5) against
# its start (wlz-start, git 07d641a), levels 1 and 3, gcide and the whole
# Illumina set, best of 5 alternated rounds beside zstd -3, twice.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; $B/zstd -q -f -1 $C/$f -o $C/$f.zst; rm -f $C/$f
done
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "1 3" $B/wlz-start $B/wlz-end -- \
    $C/gcide.txt.zst $C/illumina.fastq.zst
  cat $OUT/cspeed-$k.md
done
