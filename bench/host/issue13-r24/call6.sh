#!/usr/bin/env bash
# Session 24, call 6: what the 16-thread run spends outside the round
# loop.  wlz-times = git 5e4bdd7 with times.diff (trace.diff, plus the
# CLI's and wlz_compress_stream's phases on stderr under WLZ_TIMES).
set -u
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for t in 1 16 16 16 1 16 16 16; do
  echo "== T$t"
  TIMEFORMAT="process: %R real %U user %S sys"
  { time WLZ_TIMES=1 WLZ_TRACE=$C/tr.txt $B/wlz-times -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>&1
  python3 bench/host/issue13-r24/tran.py $C/tr.txt | head -1
done
