C=.dev/r72; mkdir -p /dev/shm/x; $C/zstd -q -dc .dev/host/illumina.fastq.zst > /dev/shm/x/il
( $C/fqgen /dev/shm/x/il 21474836480 13 | /usr/bin/time -f "%e s rss %M KB" -o $OUT/tz $C/zstd -3 -T16 --long=31 -q -c > /tmp/x.zst ) ; echo "zstd exit $? $(cat $OUT/tz) size $(stat -c %s /tmp/x.zst)"
