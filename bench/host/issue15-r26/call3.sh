#!/bin/bash
# Session 26, call 3 (one H200): encoder options against GPU decode speed.
# The Illumina corpus (from il.wlz) compressed on the host's 16 threads
# with each option set; each archive's size, then gpu_decode ARCHIVE 3
# (device-resident and host-to-host, every row checked against the CPU).
#   carry: .dev/s26 (bins.tar.xz: gpu_decode, wavelz; il.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s26
wavelz -d -c .dev/s26/il.wlz > $T/il.fq
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
run() {
	local name=$1
	shift
	wavelz -T16 -q -k -f "$@" $T/il.fq -o $T/a.wlz
	local sz=$(stat -c %s $T/a.wlz)
	local row=$(gpu_decode $T/a.wlz 3 2>&1 | tail -1)
	echo "$name,$sz,$row" | tee -a $OUT/options.csv
}
for r in 1 2; do
	run "d10" -3 --depth=10
	run "d10-p64" -3 --depth=10 --parallel=64
	run "d10-p1024" -3 --depth=10 --parallel=1024
	run "d10-flatfull" -3 --depth=10 --flatten=full
	run "d10-noflat" -3 --depth=10 --no-flatten
	run "d10-B4M" -3 --depth=10 -B 4M
	run "d10-B256K" -3 --depth=10 -B 256K
	run "d10-l1" -1 --depth=10
	run "d10-l9" -9 --depth=10
	run "d4" -3 --depth=4
	run "default" -3
	run "default-p1024" -3 --parallel=1024
	run "default-B4M" -3 -B 4M
done
