#!/usr/bin/env bash
# Session 25, call 5: where the time outside the round loop goes at
# levels 1 and 3 on 16 threads (gcide; wlz-tref = git 07d641a with
# trace-g.diff): process wall against the round loop, five runs each.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for r in 1 2 3 4 5; do for l in 1 3; do for t in 16 1; do
  [[ $t == 1 && $r -gt 2 ]] && continue
  TIMEFORMAT="%R %U %S"
  x=$( { time WLZ_TRACE=$C/tr.txt $B/wlz-tref -q -$l -T$t -c $C/gcide.txt > $C/a.wlz; } 2>&1 )
  tot=$(python3 bench/host/issue13-r24/tran.py $C/tr.txt 2>/dev/null | head -1)
  first=$(python3 bench/host/issue13-r24/tran.py $C/tr.txt 2>/dev/null | grep "first task")
  echo "level $l T$t run $r: real/user/sys $x; round loop $tot; $first"
  [[ $r == 1 && $t == 16 ]] && { echo "-- timeline level $l"; python3 bench/host/issue13-r25/timeline.py $C/tr.txt; }
done; done; done | tee $OUT/out.txt | grep -v "busy"
