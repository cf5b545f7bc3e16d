#!/bin/bash
# Session 26, call 17 (one H200): compute-sanitizer on the GPU compressor's
# test at git 4e22b58: memcheck of every kernel, racecheck of the kernels
# changed this session that use shared memory (k_code, k_write_meta).
#   carry: .dev/s26 (bins.tar.xz: gpu_compress)
set -u
. bench/gpu_call_setup.sh .dev/s26
for tool in memcheck racecheck-k_code racecheck-k_write_meta; do
	q=1 x=
	case $tool in racecheck-k_code) q=3 ;; racecheck-*) q=2 ;; esac
	case $tool in racecheck-*) x="--kernel-name kns=${tool#racecheck-}" ;; esac
	env WLZ_GC_QUICK=$q timeout 90 compute-sanitizer --tool ${tool%%-*} $x --error-exitcode 9 gpu_compress \
		> $OUT/sanitize-$tool.txt 2>&1
	echo "compute-sanitizer $tool rc=$?"
	grep -E "ERROR SUMMARY|RACECHECK SUMMARY|all checks passed" $OUT/sanitize-$tool.txt | tail -3
done
