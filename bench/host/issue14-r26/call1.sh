#!/bin/bash
# Session 26, call 1 (one H200): the GPU entropy kernel's thread blocks packed
# by table slots (ent-new) against main's groups (ent-base), and six codes a
# 64-bit window on top (ent-w64); kernel-only, alternated, on the default
# Illumina archive (segments of 2^15) and a 40 MB slice's (2^14).  Then the
# whole GPU decode of the archive checked against the CPU, Nsight Compute's
# occupancy and warp states for both packings, and compute-sanitizer.
#   carry: .dev/s26 (bins.tar.xz: ent-*, gpu_decode, wavelz; il.wlz)
set -u
S=.dev/s26
B=/tmp/b
mkdir -p $B && tar xJf $S/bins.tar.xz -C $B
T=/dev/shm/w
mkdir -p $T
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
$B/wavelz -d -c $S/il.wlz > $T/il.fq
head -c 40000000 $T/il.fq | $B/wavelz -3 -T16 -q -c > $T/il40.wlz
head -c 8000000 $T/il.fq | $B/wavelz -3 -q -c > $T/il8.wlz
for a in $S/il.wlz $T/il40.wlz; do
	for v in base new; do
		echo "== $v $(basename $a)" >> $OUT/stats.txt
		WLZ_ENT_STATS=1 $B/ent-$v $a >> $OUT/stats.txt 2>&1
	done
done
for r in 1 2; do
	for a in $S/il.wlz $T/il40.wlz; do
		for v in base new w64; do
			$B/ent-$v $a 30 | tail -1 | sed "s/^/$v,$r,/" >> $OUT/entropy.csv
		done
	done
done
cat $OUT/entropy.csv
$B/gpu_decode $S/il.wlz 3 > $OUT/decode.txt 2>&1
echo "gpu_decode exit $?" >> $OUT/decode.txt
tail -5 $OUT/decode.txt
for v in base new; do
	timeout 200 ncu --clock-control none -k regex:ent_kernel -c 1 --section WarpStateStats --section SchedulerStats \
		--section Occupancy --section LaunchStats --section SpeedOfLight $B/ent-$v $S/il.wlz 1 > $OUT/ncu-$v.txt 2>&1
	echo "ncu $v exit $?"
	grep -E "Duration|SM Active Cycles|Elapsed Cycles|SM Frequency|Achieved Active|Eligible Warps|Warp Cycles Per Issued|Issued Ipc|Grid Size|Waves Per SM" $OUT/ncu-$v.txt
done
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
	for v in new w64; do
		echo "== $tool $v" >> $OUT/sanitizer.txt
		timeout 120 $san --tool $tool $B/ent-$v $T/il8.wlz 2 2>&1 | tail -3 >> $OUT/sanitizer.txt
	done
done
cat $OUT/sanitizer.txt
