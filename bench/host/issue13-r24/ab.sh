# ab.sh OLD NEW ROUNDS - sourced by calls 8 and 9: RSS and system time of
# OLD and NEW at T16 on gcide and Illumina (twice), then ROUNDS runs of
# bench/host_cspeed_ab.sh, levels 1 and 3, beside zstd -3.
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
for f in gcide.txt illumina.fastq; do
  $B/zstd -q -dc --long=31 $D/$f.zst > $C/$f; $B/zstd -q -f -1 $C/$f -o $C/$f.zst
done
for b in $1 $2 $1 $2; do for f in gcide.txt illumina.fastq; do
  /usr/bin/time -f "$b $f T16: %e s %U user %S sys %R minflt %M KB" $B/$b -q -3 -T16 -c $C/$f > $C/a.wlz 2>>$OUT/time.txt || \
    { TIMEFORMAT="$b $f T16: %R real %U user %S sys"; { time $B/$b -q -3 -T16 -c $C/$f > $C/a.wlz; } 2>>$OUT/time.txt; }
done; done
cat $OUT/time.txt
for k in $(seq $3); do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "1 3" $B/$1 $B/$2 -- $C/gcide.txt.zst $C/illumina.fastq.zst
done
