#!/bin/bash
# Session 22, call 5 (one H200 machine): compression speed, best of 5 alternated rounds, of
# git 47662c7 (wavelz-prev: level 4's new row) against main after it (wavelz-new, git 2b96e7d:
# level 4's scan made cheaper, output identical; level 1 on FASTQ-like blocks: 2^16 entries and
# a step that grows from the first literal; the far prepass fetching 64 anchors ahead),
# levels 1 and 3, T1 and T16; then the new archives through the GPU decoder
# (wavelz-gpu: the CUDA build of 2b96e7d), content compared.  Carry [".dev/s22f", ".dev/keep"].
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
