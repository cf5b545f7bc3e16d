#!/usr/bin/env bash
# big_roundtrip.sh - an input larger than 4 GiB round-trips through the CLI
# (issue 5), with references that reach back more than 4 GiB.
#
# The input is A + B + A', where A and B are generated FASTQ of HALF bytes
# each (different seeds) and A' is the first TAIL bytes of A again: A' can
# only compress well through offsets beyond 2^32.  The script compresses,
# tests, decompresses on THREADS threads, compares, and also compresses A + B
# alone, so that the cost of A' in the archive shows whether the far
# references were found.  Needs about 6x the input in memory and 3x on disk.
#
# usage: [SKIP_AB=1] WAVELZ=... WLZTOOL=... bench/big_roundtrip.sh DIR [HALF [TAIL [THREADS]]]
#        (defaults: HALF 2300000000, TAIL 67108864, THREADS all cores)
set -euo pipefail
DIR=$1
HALF=${2:-2300000000}
TAIL=${3:-67108864}
THREADS=${4:-0}
W=${WAVELZ:-wavelz}
TOOL=${WLZTOOL:-wlztool}
mkdir -p "$DIR"
cd "$DIR"
t() {
  local s=$EPOCHREALTIME
  "$@"
  awk -v a="$s" -v b="$EPOCHREALTIME" -v c="$*" 'BEGIN { printf "%.1f s: %s\n", b - a, c }' >&2
}

t "$TOOL" gen fastq "$HALF" 1 >ab
t "$TOOL" gen fastq "$HALF" 2 >>ab
head -c "$TAIL" ab >tail
cat ab tail >in
rm tail
n=$(stat -c %s in)
echo "input: $n bytes ($(awk -v n="$n" 'BEGIN { printf "%.3f", n / 2^30 }') GiB)"
t "$W" -q -f -1 -T"$THREADS" in -o in.wlz
t "$W" -t -T"$THREADS" in.wlz
t "$W" -q -f -d -T"$THREADS" in.wlz -o out
t cmp in out
echo "round trip: OK, $n bytes"
rm -f out
"$W" -lv in.wlz | tail -n 4
[ "${SKIP_AB:-0}" = 1 ] && exit 0
t "$W" -q -f -1 -T"$THREADS" ab -o ab.wlz
a=$(stat -c %s in.wlz)
b=$(stat -c %s ab.wlz)
echo "archive: $a bytes; A + B alone: $b; the $TAIL-byte tail cost $((a - b)) bytes"
