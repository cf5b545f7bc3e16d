#!/usr/bin/env bash
# Session 23, call 3 (one H200): (1) the GPU decodes level 19's new archives
# (no parallel-decode rules, segments of 2^16) and default ones, equal to
# their contents; (2) point 4 of issue 13: default archives decoded by the
# decoder before this session (tbench-ref, git f50554b) and now (tbench),
# T = 1 and 16, beside zstd, alternated, twice; (3) level 19's archives,
# run in order now, T = 1, 2, 16.
set -u
. bench/host/issue13-r23/setup.sh .dev/s23c
$B/wavelz -q -dc $D/gc8.n19.wlz > $T/gc8
$B/wavelz -q -dc $D/gcide.d3.wlz > $T/gcide
$B/wavelz -q -dc $D/il32.d3.wlz > $T/il32
sha256sum $T/gc8 $T/gcide $T/il32 > $O/sha.txt
nvidia-smi -L > $O/gpu.txt 2>&1
for a in gc8.n19:gc8 gcide.n19:gcide gcide.d3:gcide il32.d3:il32; do
  n=${a%%:*}; c=${a##*:}
  timeout 60 $B/wavelz -q -t --gpu $D/$n.wlz && echo "$n -t --gpu ok" >> $O/check.txt || echo "$n -t --gpu FAILED" >> $O/check.txt
  timeout 60 $B/wavelz -q -dc --gpu $D/$n.wlz | cmp - $T/$c && echo "$n -dc --gpu equal" >> $O/check.txt || echo "$n -dc --gpu DIFFERS" >> $O/check.txt
  $B/wavelz -q -dc -T16 $D/$n.wlz | cmp - $T/$c && echo "$n -dc -T16 equal" >> $O/check.txt
done
for r in 1 2; do
  for f in gcide il32; do
    for tb in tbench-ref tbench; do
      $B/$tb -T 1,16 -r 7 -w $D/$f.d3.wlz $T/$f | sed "s/^/$tb,/" >> $O/ab-$r.csv
    done
  done
  $B/tbench -T 1,2,16 -r 5 -w $D/gc8.n19.wlz $T/gc8 | sed "s/^/tbench,/" >> $O/l19-$r.csv
  $B/tbench -T 1,2,16 -r 5 -w $D/gcide.n19.wlz $T/gcide | sed "s/^/tbench,/" >> $O/l19-$r.csv
done
cat $O/check.txt; grep -hE "wavelz|zstd-3," $O/ab-*.csv $O/l19-*.csv
