#!/usr/bin/env bash
# Session 23, call 4 (one H200 machine, CPU only): issue 13's point 2, the
# code of this session (wavelz-ref, git 3e6c6b0) against the caller's
# thread faulting in memory ahead of the workers at every thread count
# (wavelz-pf; archives identical), levels 1 and 3, T1 and T16, best of 5
# alternated rounds, twice.
set -u
D=.dev/s23d
B=$D/bin; chmod +x $B/*
for r in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$r.md "1 3" $B/wavelz-ref $B/wavelz-pf -- $D/gcide.txt.zst $D/illumina.fastq.zst
  cat $OUT/cspeed-$r.md
done
