#!/usr/bin/env bash
# gpu.sh - the GPU stages against the CPU on small real archives (label
# `gpu`; exit 77, skipped, where there is no GPU):
#   gpu_decode (entropy, parse, waves, block checksums; content equal to
#   the CPU's), gpu_parse (every token equal to the CPU's; damaged blocks
#   refused) and gpu_checksum (XXH3 against libxxhash and the headers),
#   on the default archive, one of depth 2 and a two-member one.
#   gpu.sh WAVELZ BINDIR DATADIR
set -u
W=$1 B=$2 D=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -q -dc "$D/illumina_1000k.fastq.zst" > "$tmp/in" || exit 1
"$W" -q -c "$tmp/in" > "$tmp/def.wlz" || exit 1
"$W" -q --depth=2 -c "$tmp/in" > "$tmp/d2.wlz" || exit 1
head -c 300000 "$tmp/in" > "$tmp/a"
tail -c 200001 "$tmp/in" > "$tmp/b"
"$W" -q -c "$tmp/a" "$tmp/b" > "$tmp/two.wlz" || exit 1
run() {
	"$@" > "$tmp/out" 2>&1
	local rc=$?
	if [ $rc -eq 77 ]; then
		cat "$tmp/out"
		exit 77
	fi
	if [ $rc -ne 0 ]; then
		echo "FAIL ($rc): $*"
		cat "$tmp/out"
		exit 1
	fi
	tail -1 "$tmp/out"
}
run "$B/gpu_decode" "$tmp/def.wlz" 1
run "$B/gpu_decode" "$tmp/d2.wlz" 1
for a in def d2 two; do
	run "$B/gpu_parse" "$tmp/$a.wlz" 1
	run "$B/gpu_checksum" "$tmp/$a.wlz" 1
done
echo "gpu.sh: all GPU checks passed"
