#!/bin/bash
# Session 26, call 2 (one H200): main's entropy kernel (ent-base) against the
# blocks packed by table slots with main's ring and staging (ent-slots, 3
# blocks an SM) and with 8-byte ring chunks and 32-byte staging (ent-lean,
# 64 registers, 56 KB: 4 blocks an SM); kernel-only, alternated, on the
# default Illumina archive (2^15-symbol segments) and a 40 MB slice's
# (2^14).  Then the whole GPU decode checked against the CPU, Nsight
# Compute on ent-lean, and compute-sanitizer.
#   carry: .dev/s26 (bins.tar.xz: ent-*, gpu_decode, wavelz; il.wlz)
set -u
S=.dev/s26
B=/tmp/b
mkdir -p $B && tar xJf $S/bins.tar.xz -C $B
T=/dev/shm/w
mkdir -p $T
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
$B/wavelz -d -c $S/il.wlz > $T/il.fq
head -c 40000000 $T/il.fq > $T/il40.fq && $B/wavelz -3 -T16 -q -k -f $T/il40.fq -o $T/il40.wlz
head -c 8000000 $T/il.fq > $T/il8.fq && $B/wavelz -3 -q -k -f $T/il8.fq -o $T/il8.wlz
for a in $S/il.wlz $T/il40.wlz; do
	WLZ_ENT_STATS=1 $B/ent-lean $a >> $OUT/stats.txt 2>&1
done
for r in 1 2; do
	for a in $S/il.wlz $T/il40.wlz; do
		for v in base slots lean; do
			$B/ent-$v $a 30 | tail -1 | sed "s/^/$v,$r,/" >> $OUT/entropy.csv
		done
	done
done
cat $OUT/entropy.csv
for a in $S/il.wlz $T/il40.wlz; do
	$B/gpu_decode $a 3 2>&1 | tail -1 >> $OUT/decode.txt
done
cat $OUT/decode.txt
timeout 200 ncu --clock-control none -k regex:ent_kernel -c 1 --section WarpStateStats --section SchedulerStats \
	--section Occupancy --section LaunchStats --section SpeedOfLight --section MemoryWorkloadAnalysis \
	$B/ent-lean $S/il.wlz 1 > $OUT/ncu-lean.txt 2>&1
echo "ncu exit $?"
grep -E "Duration|SM Active Cycles|Elapsed Cycles|SM Frequency|Achieved Active|Eligible Warps|Warp Cycles Per Issued|Grid Size|Waves Per SM|L1/TEX Cache Throughput|Block Limit (Reg|Shared)" $OUT/ncu-lean.txt
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
	echo "== $tool" >> $OUT/sanitizer.txt
	timeout 120 $san --tool $tool $B/ent-lean $T/il8.wlz 2 2>&1 | tail -2 >> $OUT/sanitizer.txt
done
timeout 120 $san --tool memcheck $B/gpu_decode $T/il8.wlz 1 2>&1 | tail -2 >> $OUT/sanitizer.txt
cat $OUT/sanitizer.txt
