#!/bin/bash
# Session 22, call 3 (one H200 machine; CPU only): compression speed, best of 5 alternated
# rounds, of git d4c31cf's encoder (wavelz-ref), main with level 1 hashing 8 bytes into 2^17
# entries (wavelz-l1, git 8730871), and branch l4-memory (wavelz-mem: the kernel's page
# zeroing off the worker's path), levels 1 and 3 (gcide and gc8: level 4's parse), T1 and
# T16, on Illumina, gcide and gc8.  Carry [".dev/s22d", ".dev/keep"].
set -u
. bench/host_call_corpora.sh "$(cd "$(dirname "$0")" && pwd)"
ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" $B/wavelz-ref $B/wavelz-l1 $B/wavelz-mem -- \
	$C/gcide.txt.zst $C/gc8.zst $C/illumina.fastq.zst
cat $OUT/cspeed.md
