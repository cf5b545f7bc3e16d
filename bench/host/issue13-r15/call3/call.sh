#!/bin/bash
# session 15, device call 3 (one H200 host, CPU only): where 16 threads lose time compressing.
# wall/user/sys at T1, T8, T15, T16 (git c79097b); a task trace (WLZ_TRACE, a local build) at T16 and T1
set -u
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b1; mkdir -p $B && tar xJf "$D/bins.tar.xz" -C $B
export PATH=$B:$PATH
T=/dev/shm/w; mkdir -p $T
lscpu | sed -n 's/^Model name: *//p;s/^CPU(s): *//p' | tee $OUT/cpu.txt
cat /sys/kernel/mm/transparent_hugepage/enabled >> $OUT/cpu.txt
xz -dc .dev/keep/illumina.fastq.xz > $T/il &
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst > $T/gc
wait
for r in 1 2 3; do for c in il gc; do for l in 1 3; do for t in 1 8 15 16; do
  /usr/bin/time -f "$c L$l T$t wall %e user %U sys %S rss %M" wavelz -$l -T$t -q -c $T/$c 2>>$OUT/times.txt > /dev/null
done; done; done; done
sort $OUT/times.txt | awk '{k=$1" "$2" "$3; if(!(k in b)||$5<b[k]){b[k]=$5; l[k]=$0}} END{for(k in l) print l[k]}' | sort -k1,1 -k2,2 -k3,3V | tee $OUT/times-best.txt
for c in il gc; do for l in 1 3; do for t in 16 1; do for r in 1 2; do
  WLZ_TRACE=$OUT/tr-$c-L$l-T$t-r$r.txt wavelz-trc -$l -T$t -q -c $T/$c > /dev/null
done; python3 $D/tran.py $OUT/tr-$c-L$l-T$t-r2.txt > $OUT/an-$c-L$l-T$t.txt 2>&1; echo "== $c L$l T$t"; head -14 $OUT/an-$c-L$l-T$t.txt; done; done; done
