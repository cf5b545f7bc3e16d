#!/usr/bin/env bash
# Session 23, call 2 (one H200 machine, CPU only): level-19 archives without
# the parallel-decode rules (p1) run in block order by the new decoder,
# beside the rules' archives (p16), T = 1, 2, 4, 16; the decoder before
# (tbench-ref) and after (tbench) alternate; twice.
set -u
. bench/host/issue13-r23/setup.sh .dev/s23b
for f in gc8 gcide il32; do $B/wavelz -q -dc $D/$f.19p1.wlz > $T/$f; done
sha256sum $T/gc8 $T/gcide $T/il32 > $O/sha.txt
for f in gc8 gcide il32; do for p in 16 1; do
  $B/wavelz -q -t -T16 $D/$f.19p$p.wlz && $B/wavelz -q -dc -T16 $D/$f.19p$p.wlz | cmp - $T/$f && echo "$f p$p cli ok" >> $O/check.txt
done; done
for r in 1 2; do
  for f in gc8 gcide il32; do
    for tb in tbench-ref tbench; do
      $B/$tb -T 1,2,4,16 -r 5 -w $D/$f.19p16.wlz,$D/$f.19p1.wlz $T/$f | sed "s/^/$tb,/" >> $O/tb-$r.csv 2>&1
    done
  done
done
# the CLI (streaming decoder) to /dev/null, T16, best of 5
for f in gcide il32; do for p in 16 1; do
  best=999; for i in 1 2 3 4 5; do s=$(date +%s.%N); $B/wavelz -q -dc -T16 $D/$f.19p$p.wlz > /dev/null; e=$(date +%s.%N); t=$(echo "$e - $s" | bc); best=$(echo "if ($t < $best) $t else $best" | bc); done
  echo "cli $f p$p T16 best ${best}s" >> $O/cli.txt
done; done
cat $O/check.txt $O/cli.txt; grep -E "wavelz|zstd-3," $O/tb-*.csv
