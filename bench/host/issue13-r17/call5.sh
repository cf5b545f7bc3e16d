#!/bin/bash
# session 17, device call 5 (one H200 machine; CPU only): blocks in pieces in rounds of
# under 32 blocks (wavelz-t32; gcide's rounds of 16 then parse in 32 pieces) and also up to
# 4 pieces a block (wavelz-t32m4) against main (under 16, 2 pieces: wavelz-t16);
# level 3 (gcide and gc8: level 4's parse), T1 and T16, Illumina, gcide, gc8.
set -u
. bench/host_call_corpora.sh "$(cd "$(dirname "$0")" && pwd)"
ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "3" $B/wavelz-t16 $B/wavelz-t32 $B/wavelz-t32m4 -- \
	$C/gcide.txt.zst $C/gc8.zst $C/illumina.fastq.zst
cat $OUT/cspeed.md
