#!/usr/bin/env bash
# Session 23, call 8 (one H200 machine, CPU only): issue 13's point 2, the
# level 2-4 fast parse with 4.6% fewer instructions on gcide (wavelz-new,
# archives identical) against git 8f25d5d (wavelz-ref), levels 1 and 3,
# T1 and T16, best of 5 alternated rounds, twice.
set -u
D=.dev/s23h
B=$D/bin; chmod +x $B/*
for r in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$r.md "3" $B/wavelz-ref $B/wavelz-new -- $D/gcide.txt.zst $D/illumina.fastq.zst
  cat $OUT/cspeed-$r.md
done
