#!/bin/bash
# Prepared in session 22 for a later session (one H200 machine, CPU only, about 3 minutes;
# carry [".dev/s23a", ".dev/keep"]): issue 13's point 2 on the code of git 2b96e7d (wavelz),
# levels 1 and 3, T1 and T16, best of 7 alternated rounds, run twice in the call so that
# zstd -3's own spread between rounds shows (the last call's zstd ran 25% slower than the
# calls before it).
set -u
. bench/host_call_corpora.sh "$(cd "$(dirname "$0")" && pwd)"
for r in 1 2; do
  ZSTD=$B/zstd REPS=7 bash bench/host_cspeed_ab.sh $OUT/cspeed-$r.md "1 3" $B/wavelz -- $C/gcide.txt.zst $C/illumina.fastq.zst
  cat $OUT/cspeed-$r.md
done
