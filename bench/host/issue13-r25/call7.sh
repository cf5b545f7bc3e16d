#!/usr/bin/env bash
# Session 25, call 7: the workers give back their pages at the job's end
# (wlz-rel = release-stamps.diff on git 708cf80) against freeing by the
# caller's thread (wlz-stamps = stamps.diff on git 708cf80), gcide at
# levels 1 and 3, 16 threads and one, alternated, five runs; the phases
# on stderr (WLZ_STAMPS) and the process's wall time.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for r in 1 2 3 4 5; do for l in 1 3; do for t in 16 1; do for b in wlz-stamps wlz-rel; do
  [[ $t == 1 && $r -gt 2 ]] && continue
  s=$(date +%s.%N)
  WLZ_STAMPS=1 $B/$b -q -$l -T$t -c $C/gcide.txt 2>$C/st.txt > $C/a.wlz
  e=$(date +%s.%N)
  echo "$b level $l T$t run $r: process $(python3 -c "print(round(($e - $s) * 1e3, 1))") ms | $(awk '{if (p) printf "%s %.2f, ", $3, $2 - p; p = $2}' $C/st.txt)"
done; done; done; done | tee $OUT/out.txt | sed 's/ | .*joined/ ... joined/'
