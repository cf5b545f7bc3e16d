#!/usr/bin/env bash
# Session 24, call 10: does freeing the context at the CLI's end cost 16
# threads?  wlz-nf = git 75e17df whose CLI skips wlz_cctx_free under
# WLZ_NOFREE (the kernel then frees it all at the exit).  Process wall
# time, alternated, 15 runs each, levels 1 and 3, T1 and T16.
set -u
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for l in 1 3; do for t in 16 1; do
  n=15; [ $t = 1 ] && n=5
  for i in $(seq $n); do for e in "" 1; do
    s=$(date +%s%N); WLZ_NOFREE=$e $B/wlz-nf -q -$l -T$t -c $C/gcide.txt > $C/a.wlz; x=$(date +%s%N)
    echo "L$l T$t nofree=${e:-0} $(( (x - s) / 1000 ))"
  done; done
done; done > $OUT/runs.txt
python3 - $OUT/runs.txt <<'PY'
import sys, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    a, b, c, us = l.split(); d[(a, b, c)].append(int(us) / 1000)
for k in sorted(d):
    v = sorted(d[k]); print(*k, "min %.1f ms, median %.1f ms, n %d" % (v[0], v[len(v) // 2], len(v)))
PY
