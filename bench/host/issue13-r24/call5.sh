#!/usr/bin/env bash
# Session 24, call 5: do the workers' page faults (4 KiB pages of their
# malloc'd tables and buffers) cost 16 threads?  The same builds with
# transparent huge pages on madvise (the host's setting) and then on
# always (every anonymous mapping), restored after.  wlz-a = git 9032772,
# wlz-e = wlz-a with a block's two pieces cut at 9/16.
set -u
. bench/host/issue13-r24/traced.sh  # (its setup)
T=/sys/kernel/mm/transparent_hugepage/enabled
old=$(sed 's/.*\[\(.*\)\].*/\1/' $T); echo "THP was: $(cat $T)"
for mode in $old always $old always; do
  echo $mode > $T || echo "cannot set THP"; echo "== THP $(cat $T)"
  for t in 1 16 16 16; do
    TIMEFORMAT="$mode wlz-a T$t: %R real %U user %S sys"; { time $B/wlz-a -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>&1
  done
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$mode-$RANDOM.md "3" $B/wlz-a $B/wlz-e -- $C/gcide.txt.zst | tail -3
done
echo $old > $T; echo "THP now: $(cat $T)"
