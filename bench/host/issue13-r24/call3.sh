#!/usr/bin/env bash
# Session 24, call 3: does gcide's work grow at 16 threads because level
# 4's near tables (3 MiB a thread) leave L2?  Builds with the preload's
# fetch (git 1b0d7d5-ish): wlz-a = level 4 as it is (8-byte table 2^19,
# short 2^18), wlz-b = 2^18 and 2^17, wlz-c = 2^19 and 2^17.  Traces at
# T1 and T16, then best-of-5 alternated timing beside zstd -3, twice.
set -u
. bench/host/issue13-r24/traced.sh
traced wlz-a wlz-b wlz-c
cat $OUT/time.txt
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "3" $B/wlz-a $B/wlz-b $B/wlz-c -- $C/gcide.txt.zst
done
