#!/usr/bin/env bash
# Session 23, call 5 (one H200 machine, CPU only): ordered runs with the
# tokens parsed by the workers (tbench) against the runner parsing them
# (tbench-ref, git 3e6c6b0): level 19's archives (no rules) and, as a
# control, default ones (side by side either way), T = 1, 2, 4, 16, twice.
set -u
. bench/host/issue13-r23/setup.sh .dev/s23e
$B/wavelz -q -dc $D/gc8.n19.wlz > $T/gc8
$B/wavelz -q -dc $D/gcide.d3.wlz > $T/gcide
$B/wavelz -q -dc $D/il32.d3.wlz > $T/il32
for r in 1 2; do
  for x in gc8.n19:gc8 gcide.n19:gcide il32.19p1:il32 gcide.d3:gcide il32.d3:il32; do
    a=${x%%:*}; c=${x##*:}
    for tb in tbench-ref tbench; do
      $B/$tb -T 1,2,4,16 -r 5 -w $D/$a.wlz $T/$c | sed "s/^/$tb,$a,/" >> $O/tb-$r.csv
    done
  done
done
grep -h "wavelz" $O/tb-*.csv | awk -F, '{print $1","$2","$6","$8}'
