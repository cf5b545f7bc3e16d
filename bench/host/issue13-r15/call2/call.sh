#!/bin/bash
# session 15, device call 2 (one H200): head 3705821 (gpu-vec merged): tests/gpu.sh;
# compression speed, encoder before 07139e1 (ref) vs head, levels 1 and 3, T1 and T16 (issue 13 point 2);
# decode T1/T16 of gcide default archives at --parallel 16, 8, 4, 2, 1 (the gap rule's decode cost)
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
nvidia-smi -L | tee $OUT/gpu.txt
lscpu | sed -n 's/^Model name: *//p' >> $OUT/gpu.txt
timeout 200 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1
echo "tests/gpu.sh exit $?: $(tail -1 $OUT/gpu-tests.log)"
xz -dc .dev/keep/illumina.fastq.xz | zstd -q -1 -c > $T/illumina.fastq.zst
cp .dev/keep/gcide.txt.zst $T/
REPS=5 timeout 400 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" $B/wavelz-ref $B/wavelz -- $T/illumina.fastq.zst $T/gcide.txt.zst > $OUT/cspeed.log 2>&1
echo "cspeed exit $?"; cat $OUT/cspeed.md
zstd -q -dc --long=31 $T/gcide.txt.zst > $T/gcide.txt
w=
for p in 16 8 4 2 1; do wavelz -q -T16 --parallel=$p -c $T/gcide.txt > $T/p$p.wlz; w=$w${w:+,}$T/p$p.wlz; ls -l $T/p$p.wlz >> $OUT/par-sizes.txt; done
timeout 150 tbench -T 1,16 -r 8 -w $w $T/gcide.txt > $OUT/par-decode.csv 2>&1
echo "tbench exit $?"; cat $OUT/par-sizes.txt $OUT/par-decode.csv
