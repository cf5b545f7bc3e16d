#!/usr/bin/env bash
# Session 25, call 9: wlz-stamps (git 708cf80), wlz-rel1 (git c33fd67: every
# worker gives back its own and its share of the job's pages at the job's
# end) and wlz-rel2 (release-at-free.diff: the job's buffers at the job's
# end, the workers' own at wlz_cctx_free, a thread each), all with
# stamps.diff; gcide at levels 1 and 3, 16 threads and one, alternated,
# five runs.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for r in 1 2 3 4 5; do for l in 1 3; do for t in 16 1; do for b in wlz-stamps wlz-rel1 wlz-rel2; do
  [[ $t == 1 && $r -gt 2 ]] && continue
  s=$(date +%s.%N)
  WLZ_STAMPS=1 $B/$b -q -$l -T$t -c $C/gcide.txt 2>$C/st.txt > $C/a.wlz
  e=$(date +%s.%N)
  echo "$b level $l T$t run $r: process $(python3 -c "print(round(($e - $s) * 1e3, 1))") ms | $(awk '{if (p) printf "%s %.2f, ", $3, $2 - p; p = $2}' $C/st.txt)"
done; done; done; done | tee $OUT/out.txt | sed 's/ | .*joined/ ... joined/'
