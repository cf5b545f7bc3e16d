#!/usr/bin/env bash
# Session 24, call 7: the workers read a regular file at offsets (git
# 368ca08, wlz-f) against the caller's thread reading it (wlz-e, git
# 5e4bdd7: the cut at 9/16).  Traces of wlz-f (trace-f.diff), then
# best-of-5 alternated timing beside zstd -3, gcide and Illumina, twice.
set -u
. bench/host/issue13-r24/traced.sh
$B/zstd -q -dc --long=31 $D/illumina.fastq.zst > $C/illumina.fastq
$B/zstd -q -f -1 $C/illumina.fastq -o $C/illumina.fastq.zst
traced wlz-f
cat $OUT/time.txt
(cd $OUT && tar czf traces.tgz tr-*.txt && rm tr-*.txt)
for k in 1 2; do
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed-$k.md "1 3" $B/wlz-e $B/wlz-f -- $C/gcide.txt.zst $C/illumina.fastq.zst
done
