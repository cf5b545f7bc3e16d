#!/bin/bash
# Session 27, call 6 (one H200): call5.sh's round on the whole gcide
# (main at git def5907 built with nvCOMP; beside nvCOMP's four compressors
# and the CPU encoder at level 1 on 16 threads, in the same run).
#   carry: .dev/r27g (bins.tar.xz as call5's; gcide.txt.xz), .dev/nvcomp/libnvcomp.so.6.xz
set -u
B=/tmp/wlz-bin
mkdir -p $B && tar xJf .dev/r27g/bins.tar.xz -C $B
export PATH=$B:$PATH
REPS=5 TESTS=0 SANITIZE=0 NUMERIC=0 bash bench/gpu_compress_round.sh $B .dev/r27g $OUT/corpora gcide.txt.xz
cut -d, -f1-8 $OUT/corpora/bench.csv
# where the typed fields' time goes (call 5: entropy about 19 ms of 30)
numgen i16-field $((128 * 1024 * 1024)) 1 > /dev/shm/i16-field.bin
numgen f32-field $((64 * 1024 * 1024)) 1 > /dev/shm/f32-field.bin
for v in i16-field:1 i16-field:2 f32-field:4; do
	IFS=: read k s <<< "$v"
	SYMBOL=$s WLZ_GC_PROFILE=1 GPU_PEERS=none gpu_compress_bench /dev/shm/$k.bin 1 2>&1 | grep -E "gc profile: " | sed "s/^/$k S=$s: /" >> $OUT/profile-typed.txt
done
grep -E "code " $OUT/profile-typed.txt
