#!/bin/bash
# Prepared in session 22 for a later session (one H200 machine, CPU only, about 3 minutes;
# carry [".dev/s23a", ".dev/keep"]): issue 13's point 2 on the code of git 2b96e7d (wavelz),
# levels 1 and 3, T1 and T16, best of 7 alternated rounds, run twice in the call so that
# zstd -3's own spread between rounds shows (the last call's zstd ran 25% slower than the
# calls before it).
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | zstd -1 -q -o $C/illumina.fastq.zst
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst | zstd -1 -q -o $C/gcide.txt.zst
for r in 1 2; do
  ZSTD=$B/zstd REPS=7 bash bench/host_cspeed_ab.sh $OUT/cspeed-$r.md "1 3" $B/wavelz -- $C/gcide.txt.zst $C/illumina.fastq.zst
  cat $OUT/cspeed-$r.md
done
