#!/usr/bin/env bash
# Session 25, call 6: the phases of a 16-thread run outside the round loop
# (wlz-stamps = git 708cf80 with stamps.diff: CLOCK_MONOTONIC stamps on
# stderr under WLZ_STAMPS), gcide at levels 1 and 3, four runs each; the
# process's own wall time beside them.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for r in 1 2 3 4; do for l in 1 3; do
  s=$(date +%s.%N)
  WLZ_STAMPS=1 $B/wlz-stamps -q -$l -T16 -c $C/gcide.txt 2>$C/st.txt > $C/a.wlz
  e=$(date +%s.%N)
  echo "== level $l run $r: process $(python3 -c "print(round(($e - $s) * 1e3, 1))") ms (date to date)"
  awk '{if (p) printf "%8.2f  %s %s\n", $2 - p, $3, $4; p = $2}' $C/st.txt
done; done | tee $OUT/out.txt
