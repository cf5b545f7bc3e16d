#!/usr/bin/env bash
# gpu_kernels.sh - every kernel of one GPU command, timed by Nsight Compute
# (each launch alone; clocks left to the GPU, as bench/ measures), with
# its warp instructions: where a GPU round's time goes before it is
# changed (bench/host/issue15-flow.md, eighth session).
#   bench/gpu_kernels.sh OUT LAUNCHES CMD [ARGS...]
# LAUNCHES: how many launches to profile (the first ones).  OUT/ncu.txt
# gets ncu's report, OUT/kernels.txt one line a launch: name, microseconds,
# warp instructions.
set -u
out=$1 n=$2
shift 2
mkdir -p "$out"
timeout "${NCU_TIMEOUT:-300}" ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
	-c "$n" "$@" > "$out/ncu.txt" 2>&1
rc=$?
grep -v '^==PROF' "$out/ncu.txt" |
	awk '/^  [A-Za-z_].*\(/ { name = $0; sub(/^  (void )?/, "", name); sub(/\(.*/, "", name) }
	     /gpu__time_duration.sum/ { us = $NF }
	     /smsp__inst_executed.sum/ { gsub(",", "", $NF); print name, us, $NF }' > "$out/kernels.txt"
cat "$out/kernels.txt"
exit $rc
