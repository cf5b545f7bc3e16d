#!/usr/bin/env bash
# Session 25, call 8: the short round first (wlz-first = git c8a8ee1 with
# first.diff) against last (wlz-rel0 = git c8a8ee1): best of 5 alternated
# rounds beside zstd -3, levels 1 and 3, gcide and Illumina; then one
# trace of each level on gcide at 16 threads (wlz-tfirst: trace-g.diff).
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina120.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; $B/zstd -q -f -1 $C/$f -o $C/$f.zst
done
for l in 1 3; do
  WLZ_TRACE=$C/tr-$l.txt $B/wlz-tfirst -q -$l -T16 -c $C/gcide.txt > $C/a.wlz
  echo "== level $l"; python3 bench/host/issue13-r24/tran.py $C/tr-$l.txt | head -24
  python3 bench/host/issue13-r25/timeline.py $C/tr-$l.txt
done > $OUT/traces.txt
ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" $B/wlz-rel0 $B/wlz-first -- \
  $C/gcide.txt.zst $C/illumina120.fastq.zst
cat $OUT/cspeed.md
grep -E "^==|total|threads 16|first task" $OUT/traces.txt
