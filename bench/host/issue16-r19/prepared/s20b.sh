#!/bin/bash
# Prepared in session 19 (four H200, about 5 minutes; carry [".dev/s20b"], command
# bash .dev/s20b/run.sh): which group of blocks a group's publication wants on 4 GPUs
# (the library has 8 for any number; on four the pass waited on groups other GPUs were
# still writing: bench/host/issue16-split.md).  The 8 GiB archive, device-resident,
# main's gpu_split (git aa45119) on 4 GPUs at groups 8, 4 and 2 and on 2 GPUs at 8 and
# 4, each twice, content checked.
set -u
D=$(cd "$(dirname "$0")" && pwd)
. bench/gpu_call_setup.sh "$D"
s=$(date +%s)
fqgen $T/il.fq $((8 << 30)) 7 | wavelz -q -1 -T0 --depth=10 -c > $T/big.wlz
echo "big: $(stat -c %s $T/big.wlz) bytes in $(( $(date +%s) - s )) s" | tee $OUT/summary.txt
for r in 1 2; do for v in 4:8 4:4 4:2 2:8 2:4; do
  IFS=: read ng g <<< "$v"
  timeout 60 gpu_split_main $T/big.wlz 2 $ng $g > $OUT/split-$ng-$g-$r.csv 2> $OUT/split-$ng-$g-$r.log
  echo "$ng GPUs group $g r$r exit $?: $(tail -1 $OUT/split-$ng-$g-$r.csv | cut -d, -f4-8,10) $(grep 'split GPU 0' $OUT/split-$ng-$g-$r.log | grep -o 'pass [0-9.]*')" | tee -a $OUT/summary.txt
done; done
