#!/bin/bash
# session 15, device call 7 (one H200 host, CPU only): lists and inserts first
# the next round's lists and inserts before this round's blocks, blocks within the first gap done with the table when armed (wavelz) against 4443c94 (ref); read() speed (rd)
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
cat /sys/kernel/mm/transparent_hugepage/enabled > $OUT/thp.txt
xz -dc .dev/keep/illumina.fastq.xz | zstd -q -1 -c > $T/illumina.fastq.zst
cp .dev/keep/gcide.txt.zst $T/
REPS=5 timeout 480 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" $B/wavelz-ref $B/wavelz -- $T/illumina.fastq.zst $T/gcide.txt.zst > $OUT/cspeed.log 2>&1
echo "cspeed exit $?"; cat $OUT/cspeed.md
zstd -q -dc $T/illumina.fastq.zst > $T/il; zstd -q -dc --long=31 $T/gcide.txt.zst > $T/gc
for c in il gc; do for l in 1 3; do
  for r in 1 2 3; do WLZ_TRACE=$T/tr.txt wavelz-trc -$l -T16 -q -c $T/$c > /dev/null; python3 $D/tran.py $T/tr.txt > $T/an-$r.txt 2>&1; done
  cat $T/an-1.txt $T/an-2.txt $T/an-3.txt > $OUT/an-$c-L$l-T16.txt
  echo "== $c L$l T16"; grep -E "^total|^threads|^zero|^round   0|^reads" $OUT/an-$c-L$l-T16.txt
done; done
echo "== read speed of the corpus (tmpfs) into a buffer: 0 read fresh, 1 read touched, 2 mmap+memcpy, 3 mmap populate+memcpy touched"
for r in 1 2; do for m in 0 1 2 3; do rd $T/il $m; done; done
cp $T/il /tmp/il.disk; for m in 0 1 2 3; do rd /tmp/il.disk $m; done
