#!/bin/bash
# Session 22, call 4 (one H200 machine): compression speed, best of 5 alternated rounds, of
# main before level 4's new row (wavelz-prev, git e739a30: level 1's 8-byte hashes and the
# page zeroing merged) and after it (wavelz-new, git 47662c7: level 4 hashes 6 bytes into
# 2^18 entries in 2 ways, far anchors one in 8 searched 8 deep, 8-byte table 2^19), levels 1
# and 3 (gcide and gc8: level 4), T1 and T16; then the new archives through the GPU decoder
# (wavelz-gpu: the CUDA build of 47662c7), content compared.  Carry [".dev/s22e", ".dev/keep"].
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | zstd -1 -q -o $C/illumina.fastq.zst
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst | zstd -1 -q -o $C/gcide.txt.zst
zstd -q -dc $C/gcide.txt.zst | head -c 8000000 | zstd -1 -q -o $C/gc8.zst
ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" $B/wavelz-prev $B/wavelz-new -- \
	$C/gcide.txt.zst $C/gc8.zst $C/illumina.fastq.zst
cat $OUT/cspeed.md
for f in gcide.txt gc8 illumina.fastq; do
  zstd -q -dc $C/$f.zst > $C/$f
  for l in 1 3; do
    wavelz-new -q -$l -T0 -c $C/$f > $C/a.wlz
    wavelz-gpu -q -dc --gpu $C/a.wlz | cmp - $C/$f && r=same || r=DIFFERS
    wavelz-gpu -q -t --gpu $C/a.wlz && t=ok || t=FAILED
    echo "GPU decode of $f -$l ($(stat -c %s $C/a.wlz) bytes): $r as the input, -t --gpu $t" | tee -a $OUT/gpu.txt
  done
done
