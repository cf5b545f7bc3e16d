#!/bin/bash
# Session 22, call 3 (one H200 machine; CPU only): compression speed, best of 5 alternated
# rounds, of git d4c31cf's encoder (wavelz-ref), main with level 1 hashing 8 bytes into 2^17
# entries (wavelz-l1, git 8730871), and branch l4-memory (wavelz-mem: the kernel's page
# zeroing off the worker's path), levels 1 and 3 (gcide and gc8: level 4's parse), T1 and
# T16, on Illumina, gcide and gc8.  Carry [".dev/s22d", ".dev/keep"].
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | zstd -1 -q -o $C/illumina.fastq.zst
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst | zstd -1 -q -o $C/gcide.txt.zst
zstd -q -dc $C/gcide.txt.zst | head -c 8000000 | zstd -1 -q -o $C/gc8.zst
ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" $B/wavelz-ref $B/wavelz-l1 $B/wavelz-mem -- \
	$C/gcide.txt.zst $C/gc8.zst $C/illumina.fastq.zst
cat $OUT/cspeed.md
