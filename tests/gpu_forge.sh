#!/usr/bin/env bash
# gpu_forge.sh - forged archives on the GPU (label `gpu`; exit 77, skipped,
# where there is no GPU): bytes of block payloads damaged with each
# block's checksums computed again (`wlztool forge`), so that the damage
# reaches the GPU's entropy stage, token parser and pass, which must
# refuse it by their rules or by the content checksum.  Every forged
# archive goes through the CPU (`-t`) and, in one batch, the GPU
# (`-t --gpu`): the GPU must refuse exactly those the CPU refuses, never
# hang or crash, and decode those both accept to the CPU's bytes.
#   gpu_forge.sh WAVELZ WLZTOOL GPU_DECODE DATADIR [COUNT [MAXFLIPS]]
# COUNT forged archives of each of two archives (default 40), with 1 to
# MAXFLIPS damaged bytes each (default 4), of the data set's FASTQ slice
# or of the file FORGE_INPUT names.  FORGE_SPLIT=0,1 (GPUs) sends each
# archive alone through the split over those GPUs instead of one batch
# (the input should then have several groups of 8 blocks).
set -u
W=$1 T=$2 GD=$3 D=$4 N=${5:-40} F=${6:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${FORGE_INPUT:-}" ]; then
	cp "$FORGE_INPUT" "$tmp/in" || exit 1
else
	zstd -q -dc "$D/illumina_1000k.fastq.zst" > "$tmp/in" || exit 1
fi
"$W" -q -c "$tmp/in" > "$tmp/def.wlz" || exit 1
"$W" -q --depth=10 -c "$tmp/in" > "$tmp/d10.wlz" || exit 1
"$GD" "$tmp/def.wlz" 1 > "$tmp/probe" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	cat "$tmp/probe"
	exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: gpu_decode on the good archive"; cat "$tmp/probe"; exit 1; }
mkdir "$tmp/f"
for a in def d10; do
	for i in $(seq 1 "$N"); do
		"$T" forge "$tmp/$a.wlz" "$tmp/f/$a-$i.wlz" "$i" $(( 1 + i % F )) || exit 1
	done
done
files=("$tmp"/f/*.wlz)
# refused LOG: the paths the CLI named in its error lines, sorted.
refused() {
	sed -n "s|^wavelz: \\($tmp/f/[^:]*\\): .*|\\1|p" "$1" | sort -u
}
"$W" -q -t "${files[@]}" 2> "$tmp/cpu.err"
gpu=(--gpu)
if [ -n "${FORGE_SPLIT:-}" ]; then
	gpu=(--gpu="$FORGE_SPLIT")
	export WAVELZ_GPU_SPLIT_MIN=1
	: > "$tmp/gpu.err"
	for f in "${files[@]}"; do
		timeout 30 "$W" -q -t "${gpu[@]}" "$f" 2>> "$tmp/gpu.err"
		rc=$?
		if [ $rc -ge 124 ]; then
			echo "FAIL: -t ${gpu[*]} (split) on $f: exit $rc (timeout or signal)"
			tail -5 "$tmp/gpu.err"
			exit 1
		fi
	done
else
	timeout 300 "$W" -q -t --gpu "${files[@]}" 2> "$tmp/gpu.err"
	rc=$?
	if [ $rc -ge 124 ]; then
		echo "FAIL: -t --gpu over the forged archives: exit $rc (timeout or signal)"
		tail -5 "$tmp/gpu.err"
		exit 1
	fi
fi
refused "$tmp/cpu.err" > "$tmp/cpu.list"
refused "$tmp/gpu.err" > "$tmp/gpu.list"
if ! cmp -s "$tmp/cpu.list" "$tmp/gpu.list"; then
	echo "FAIL: the GPU and the CPU refuse different forged archives:"
	diff "$tmp/cpu.list" "$tmp/gpu.list" | head -20
	exit 1
fi
nref=$(wc -l < "$tmp/gpu.list")
nsum=$(grep -c "checksum mismatch" "$tmp/gpu.err")
# Those both accepted (damage in bits no code reads): the same bytes.
nok=0
for f in "${files[@]}"; do
	grep -qxF "$f" "$tmp/gpu.list" && continue
	"$W" -q -d "${gpu[@]}" -c "$f" > "$tmp/g.out" || { echo "FAIL: -d ${gpu[*]} refuses $f, -t accepted it"; exit 1; }
	cmp -s "$tmp/g.out" "$tmp/in" || { echo "FAIL: $f decodes on the GPU to other bytes"; exit 1; }
	nok=$((nok + 1))
done
[ "$nref" -gt 0 ] || { echo "FAIL: no forged archive was refused"; exit 1; }
echo "gpu_forge${FORGE_SPLIT:+ (split over GPUs $FORGE_SPLIT)}: ${#files[@]} forged archives: the GPU refused $nref as the CPU did ($((nref - nsum)) by a" \
	"decoding rule, $nsum by a checksum), $nok decoded to the original on both"
