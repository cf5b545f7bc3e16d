set -u
mkdir -p /tmp/w && tar xJf .dev/s7/bin.tar.xz -C /tmp/w && B=/tmp/w/bin && export PATH=$B:$PATH
zstd -q -dc .dev/s7/illumina.fastq.zst > /tmp/il.fq
wavelz -q -f --depth=10 -T0 /tmp/il.fq -o /tmp/il10.wlz
wavelz -q -f -T0 /tmp/il.fq -o /tmp/iln.wlz
wavelz -q -f --depth=2 -T0 /tmp/il.fq -o /tmp/il2.wlz
for r in 1 2; do for f in il10 il2; do timeout 60 gpu_decode /tmp/$f.wlz 5 2>&1 | tail -1 | cut -d, -f1-17; done; done
timeout 60 gpu_decode /tmp/iln.wlz 3 2>&1 | tail -1 | cut -d, -f1-17
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum -c 13 gpu_decode /tmp/il10.wlz 1 > $OUT/ncu.txt 2>&1
grep -v "^==PROF" $OUT/ncu.txt | grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|inst_executed" | sed -E 's/^  (void )?([a-zA-Z_0-9<>, ]+)\(.*/\2/' | awk '/gpu__time/{printf "%s %s; ", name, $NF; next}/inst_exec/{printf "(inst %s) ", $NF; next}{name=$0}'; echo
timeout 90 compute-sanitizer --tool memcheck $B/gpu_api > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; tail -1 $OUT/memcheck.log
(time timeout 250 bash tests/gpu.sh $B/wavelz $B tests/data tests/golden-bad $B/gpu_api > $OUT/gpu-tests.log 2>&1; echo "gpu.sh rc $?") 2>&1 | tail -2; tail -3 $OUT/gpu-tests.log
