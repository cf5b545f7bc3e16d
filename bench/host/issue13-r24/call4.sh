#!/usr/bin/env bash
# Session 24, call 4: wlz-a = git 9032772 (the preload's fetch), wlz-d =
# wlz-a with a block's two pieces cut at 11/16 (piece_cut); *-thp = the
# same with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (malloc's large chunks
# in 2 MiB pages: do the workers' faults and their freeing cost 16
# threads?).  Traces of wlz-d, then best-of-5 alternated timing, twice.
set -u; r=0
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
$B/zstd -q -1 $C/gcide.txt -o $C/gcide.txt.zst
for b in wlz-d wlz-a; do
  for t in 1 16 16 16; do
    r=$((r+1))
    TIMEFORMAT="$b T$t run $r: %R real %U user %S sys"
    { time WLZ_TRACE=$OUT/tr-$b-T$t-$r.txt $B/$b-trace -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
  done
done
for b in wlz-a wlz-a-thp; do for t in 1 16 16 16; do
    TIMEFORMAT="$b T$t: %R real %U user %S sys"
    { time $B/$b -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
done; done
cat $OUT/time.txt
(cd $OUT && tar czf traces.tgz tr-*.txt && rm tr-*.txt)
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "3" $B/wlz-a $B/wlz-a-thp $B/wlz-d $B/wlz-d-thp -- $C/gcide.txt.zst
done
