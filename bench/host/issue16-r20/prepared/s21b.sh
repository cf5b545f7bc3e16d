#!/bin/bash
# Prepared in session 20 (four H200, about 5 minutes; carry [".dev/s21b"], command bash
# .dev/s21b/run.sh): which group of blocks a group's publication wants on 4 GPUs (the
# library has 8 for any number; on four the pass waited on groups other GPUs were still
# writing: bench/host/issue16-split.md).  The 8 GiB archive, device-resident, main's
# gpu_split (git 19840eb) on 4 GPUs at groups 8, 4 and 2 and on 2 GPUs at 8 and 4, each
# twice, content checked; then host to host on 4 and 2 GPUs (traced).  At most 8 files
# in $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
S=$OUT/summary.txt
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee $S
for r in 1 2; do for v in 4:8 4:4 4:2 2:8 2:4; do
  IFS=: read ng g <<< "$v"
  timeout 60 gpu_split_main $T/big.wlz 2 $ng $g > $T/s.csv 2> $T/s.log
  echo "$ng GPUs group $g r$r exit $?: $(tail -1 $T/s.csv | cut -d, -f4-8,10) $(grep 'split GPU 0' $T/s.log | grep -o 'pass [0-9.]*')" | tee -a $S
  cat $T/s.csv $T/s.log >> $OUT/split-all.txt
done; done
for ng in 4 2; do
  WLZ_GPU_SPLIT_TRACE=1 GPU_SPLIT_H2H=1 timeout 60 gpu_split_main $T/big.wlz 2 $ng 8 > $T/s.csv 2> $T/s.log
  echo "h2h $ng GPUs exit $?: $(tail -2 $T/s.csv | cut -d, -f4-8,10 | tr '\n' ' ')" | tee -a $S
  grep "wavelz split" $T/s.log | tail -2 | tee -a $S
  cat $T/s.csv $T/s.log >> $OUT/split-all.txt
done
