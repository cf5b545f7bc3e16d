#!/usr/bin/env bash
# Decoding to a file through each CLI (issue 13: "decoding to a file is at
# least as fast as zstd's CLI on one thread"): each corpus compressed once
# by wavelz at its default and by zstd -3, then RUNS alternated runs of
# `wavelz -d -T1` and `zstd -d` into a file in DIR (a disk, as a user's
# output; default: the current directory), wall seconds of each, and
# their medians.  Outputs are compared with the corpus once.
#
#   bench/host_cli_decode.sh OUT.csv WAVELZ ZSTD CORPUS.zst...
#
# RUNS (default 8), DIR, THREADS (wavelz -T, default 1).
set -euo pipefail
out=$1 W=$2 Z=$3
shift 3
RUNS=${RUNS:-8} DIR=${DIR:-.} TH=${THREADS:-1}
tmp=$(mktemp -d "$DIR/wlzcli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
echo "corpus,tool,run,seconds" > "$out"
for x in "$@"; do
	name=$(basename "$x" .zst)
	"$Z" -q -dc --long=31 "$x" > "$tmp/$name"
	"$W" -q -c "$tmp/$name" > "$tmp/$name.wlz"
	"$Z" -q -3 -c "$tmp/$name" > "$tmp/$name.zst"
	"$W" -q -d -T"$TH" -f "$tmp/$name.wlz" -o "$tmp/out" && cmp -s "$tmp/out" "$tmp/$name"
	"$Z" -q -d -f "$tmp/$name.zst" -o "$tmp/out" && cmp -s "$tmp/out" "$tmp/$name"
	for ((r = 0; r < RUNS; r++)); do
		rm -f "$tmp/out"
		t0=$(now)
		"$W" -q -d -T"$TH" "$tmp/$name.wlz" -o "$tmp/out"
		t1=$(now)
		echo "$name,wavelz -d -T$TH,$r,$(secs "$t0" "$t1")" >> "$out"
		rm -f "$tmp/out"
		t0=$(now)
		"$Z" -q -d "$tmp/$name.zst" -o "$tmp/out"
		t1=$(now)
		echo "$name,zstd -d,$r,$(secs "$t0" "$t1")" >> "$out"
	done
	rm -f "$tmp/$name" "$tmp/$name.wlz" "$tmp/$name.zst" "$tmp/out"
done
# The medians (with any awk: the times sorted by sort).
tail -n +2 "$out" | cut -d, -f1,2 | sort -u | while IFS= read -r k; do
	grep -F "$k," "$out" | cut -d, -f4 | sort -n |
		awk -v k="$k" '{ a[NR] = $1 } END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
			printf "%s,median %.3f s over %d runs\n", k, m, NR }'
done
