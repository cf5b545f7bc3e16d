#!/usr/bin/env bash
# Session 25, call 3: what the machine gives 16 independent jobs.  Each
# job alone, then 16 copies at once (separate processes, one thread each):
# a dependent multiply chain (freq.c: the clock), wavelz -3 -T1 on gcide
# slices of 2.5 MB (16 different ones), and zstd -3 on the same slices.
set -u
D=.dev/s25; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
for i in $(seq 0 15); do dd if=$C/gcide.txt of=$C/s$i bs=2500000 skip=$i count=1 status=none; done
now() { date +%s.%N; }
for r in 1 2 3; do
  echo "== round $r"
  echo "freq alone: $($B/freq)"
  echo "freq x16:"; for i in $(seq 0 15); do $B/freq & done | sort | uniq -c; wait
  for tool in wlz zstd; do
    [[ $tool == wlz ]] && cmd="$B/wlz-ref -q -3 -T1 -c" || cmd="$B/zstd -q -3 -T1 -c"
    s=$(now); for i in $(seq 0 15); do $cmd $C/s$i > /dev/null; done; e=$(now)
    echo "$tool 16 slices one after another: $(python3 -c "print(round($e - $s, 3))") s"
    s=$(now); for i in $(seq 0 15); do $cmd $C/s$i > /dev/null & done; wait; e=$(now)
    echo "$tool 16 slices at once: $(python3 -c "print(round($e - $s, 3))") s"
  done
  s=$(now); $B/wlz-ref -q -3 -T16 -c $C/gcide.txt > /dev/null; e=$(now); echo "wlz -T16 whole gcide: $(python3 -c "print(round($e - $s, 3))") s"
  s=$(now); $B/wlz-ref -q -3 -T1 -c $C/gcide.txt > /dev/null; e=$(now); echo "wlz -T1 whole gcide: $(python3 -c "print(round($e - $s, 3))") s"
done 2>&1 | tee $OUT/out.txt
