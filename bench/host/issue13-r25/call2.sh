#!/usr/bin/env bash
# Session 25, call 2: traces (trace-g.diff) of gcide at the default on 16
# threads, wlz-tref (git 07d641a) against wlz-ta (blocks that read no
# far-table entry start before their lists), three runs each, alternated.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for r in 1 2 3; do for b in wlz-tref wlz-ta; do
  TIMEFORMAT="$b run $r: %R real %U user %S sys"
  { time WLZ_TRACE=$C/tr-$b-$r.txt $B/$b -q -3 -T16 -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
  echo "== $b run $r"; python3 bench/host/issue13-r24/tran.py $C/tr-$b-$r.txt | head -12
  python3 bench/host/issue13-r25/timeline.py $C/tr-$b-$r.txt
done; done > $OUT/traces.txt
cat $OUT/time.txt
(cd $C && tar czf $OUT/traces.tgz tr-*.txt)
grep -E "^==|total|threads|first task" $OUT/traces.txt
