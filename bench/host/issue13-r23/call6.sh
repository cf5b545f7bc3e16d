#!/usr/bin/env bash
# Session 23, call 6 (one H200 machine, CPU only): ordered runs with at most
# 3 opening workers (tbench) against all threads opening (tbench-parse,
# call 5's), level 19's archives, T = 1, 4, 8, 16, twice.
set -u
. bench/host/issue13-r23/setup.sh .dev/s23f
$B/wavelz -q -dc $D/gc8.n19.wlz > $T/gc8
$B/wavelz -q -dc $D/gcide.n19.wlz > $T/gcide
$B/wavelz -q -dc $D/il32.d3.wlz > $T/il32
for r in 1 2; do
  for x in gc8.n19:gc8 gcide.n19:gcide il32.19p1:il32; do
    a=${x%%:*}; c=${x##*:}
    for tb in tbench-parse tbench; do
      $B/$tb -T 1,4,8,16 -r 5 -w $D/$a.wlz $T/$c | sed "s/^/$tb,$a,/" >> $O/tb-$r.csv
    done
  done
done
