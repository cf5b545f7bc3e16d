#!/bin/bash
# Session 26, call 6 (one H200): k_code's CTAs with the literal parts first
# (gcb-new) against main (gcb-base), alternated, Illumina at depth 10, with
# the per-stage profile; the test (GPU bytes equal to the CPU reference's,
# both decoders); a two-batch input (Illumina twice, 1,480 parts) decoded
# back by both decoders.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz)
set -u
. bench/gpu_call_setup.sh .dev/s26
wavelz -d -c .dev/s26/il.wlz > $T/il.fq
for r in 1 2; do
	for v in base new; do
		GPU_PEERS= gcb-$v $T/il.fq 5 2>&1 | grep device-resident | sed "s/^/$v,$r,/" | tee -a $OUT/ab.csv
	done
done
for v in base new; do
	WLZ_GC_PROFILE=1 GPU_PEERS= gcb-$v $T/il.fq 1 2>&1 | grep "gc profile: code" | tail -1 | sed "s/^/$v: /"
done
timeout 300 gpu_compress tests/data/*.zst > $OUT/test.txt 2>&1
echo "gpu_compress exit $?"; tail -3 $OUT/test.txt
cat $T/il.fq $T/il.fq > $T/il2.fq
GPU_PEERS= gcb-new $T/il2.fq 1 > $OUT/il2.txt 2>&1
echo "il2 exit $?"; cat $OUT/il2.txt
