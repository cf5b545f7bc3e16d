#!/usr/bin/env bash
# Session 24, call 4: wlz-a = git 9032772 (the preload's fetch), wlz-d =
# wlz-a with a block's two pieces cut at 11/16 (piece_cut); *-thp = the
# same with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (malloc's large chunks
# in 2 MiB pages: do the workers' faults and their freeing cost 16
# threads?).  Traces of wlz-d, then best-of-5 alternated timing, twice.
set -u
. bench/host/issue13-r24/traced.sh
traced wlz-d wlz-a
for b in wlz-a wlz-a-thp; do for t in 1 16 16 16; do
    TIMEFORMAT="$b T$t: %R real %U user %S sys"
    { time $B/$b -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
done; done
cat $OUT/time.txt
(cd $OUT && tar czf traces.tgz tr-*.txt && rm tr-*.txt)
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "3" $B/wlz-a $B/wlz-a-thp $B/wlz-d $B/wlz-d-thp -- $C/gcide.txt.zst
done
