#!/bin/bash
# Prepared in session 21 (four H200, about 6 minutes; carry [".dev/s22b"], command bash
# .dev/s22b/run.sh): the library as of git 24ff5b2 on four GPUs: the 8 GiB archive,
# device-resident (bench's split) at groups 8, 4 and 2 on 4 GPUs and 8 on 2; then host to
# host through the API (pieces) on 4 and 2 GPUs, traced; gpu_links on 4.  At most 8 files.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee $S
for v in 4:8 4:4 4:2 2:8; do
  IFS=: read ng g <<< "$v"
  timeout 60 gpu_split $T/big.wlz 2 $ng $g > $T/s.csv 2> $T/s.log
  echo "$ng GPUs group $g exit $?: $(tail -1 $T/s.csv | cut -d, -f4-8,10)" | tee -a $S
  cat $T/s.csv $T/s.log >> $OUT/split-all.txt
done
for ng in 4 2 4 2; do
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 gpu_split $T/big.wlz 2 $ng 8 > $T/s.csv 2> $T/s.log
  echo "h2h $ng GPUs exit $?: $(tail -1 $T/s.csv | cut -d, -f4-8,10)" | tee -a $S
  grep "wavelz split" $T/s.log | tail -1 | tee -a $S
  cat $T/s.csv $T/s.log >> $OUT/split-all.txt
done
timeout 90 gpu_links 8 3 > $OUT/links.csv 2>&1
echo "gpu_links exit $?" | tee -a $S; cat $OUT/links.csv | tee -a $S
