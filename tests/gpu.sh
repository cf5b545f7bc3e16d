#!/usr/bin/env bash
# gpu.sh - the GPU decoder against the CPU on small real archives (label
# `gpu`; exit 77, skipped, where there is no GPU):
#   gpu_decode (entropy, parse, execution, block checksums; content equal
#   to the CPU's), gpu_parse (every token equal to the CPU's; damaged
#   blocks refused) and gpu_checksum (XXH3 against libxxhash and the
#   headers), on the default archive, one of depth 2, a two-member one and
#   a level-19 one (gpu_parse, gpu_checksum);
#   then the CLI: `wavelz -d --gpu` equal to the CPU's output on those and
#   on golden-bad's good archives and golden-good's (but zstd), and every bad one refused by
#   `-t --gpu` and `-d --gpu` with no output left behind; where there are
#   two GPUs, the split of one archive over both (bench/gpu_split and the
#   CLI's --gpu=0,1); then gpu_api
#   (the API's every form, in pieces, and with only the window resident)
#   on generated data and the real slice.
#   gpu.sh WAVELZ BINDIR DATADIR [GOLDEN_BAD_DIR [GPU_API]]
set -u
W=$1 B=$2 D=$3 G=${4:-$(dirname "$0")/golden-bad} API=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -q -dc "$D/illumina_1000k.fastq.zst" > "$tmp/in" || exit 1
"$W" -q -c "$tmp/in" > "$tmp/def.wlz" || exit 1
"$W" -q --depth=2 -c "$tmp/in" > "$tmp/d2.wlz" || exit 1
head -c 300000 "$tmp/in" > "$tmp/a"
tail -c 200001 "$tmp/in" > "$tmp/b"
"$W" -q -c "$tmp/a" "$tmp/b" > "$tmp/two.wlz" || exit 1
# level 19 in 64 KiB blocks: no parallel-decode rules (the CPU runs its
# blocks in order), segments of 2^16
"$W" -q -19 -B64K -c "$tmp/a" > "$tmp/l19.wlz" || exit 1
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
# flip SRC I POS: SRC into $tmp/f.wlz with bit I % 8 of byte POS flipped.
flip() {
	cp "$1" "$tmp/f.wlz"
	local byte
	byte=$(od -An -tu1 -j "$3" -N1 "$tmp/f.wlz" | tr -d ' ')
	printf "$(printf '\\%03o' $(( byte ^ (1 << ($2 % 8)) )))" |
		dd of="$tmp/f.wlz" bs=1 seek="$3" conv=notrunc status=none
}
run "$B/gpu_decode" "$tmp/def.wlz" 1
run "$B/gpu_decode" "$tmp/d2.wlz" 1
for a in def d2 two l19; do
	run "$B/gpu_parse" "$tmp/$a.wlz" 1
	run "$B/gpu_checksum" "$tmp/$a.wlz" 1
done
# The CLI on the GPU.
for a in def d2 two l19; do
	"$W" -q -d --gpu -c "$tmp/$a.wlz" > "$tmp/gpu.out" || { echo "FAIL: -d --gpu $a"; exit 1; }
	"$W" -q -d -c "$tmp/$a.wlz" | cmp -s - "$tmp/gpu.out" || { echo "FAIL: -d --gpu $a differs from the CPU"; exit 1; }
	"$W" -q -t --gpu "$tmp/$a.wlz" || { echo "FAIL: -t --gpu $a"; exit 1; }
done
good=0 bad=0
while IFS=$'\t' read -r name want; do
	f=$G/$name.wlz
	[ -e "$f" ] || continue
	rm -f "$tmp/o"
	if [ "$want" = OK ] && [ "$name" != good-zstd ]; then
		"$W" -q -d --gpu "$f" -o "$tmp/o" || { echo "FAIL: $name: the GPU refuses a good archive"; exit 1; }
		"$W" -q -d -c "$f" | cmp -s - "$tmp/o" || { echo "FAIL: $name: GPU output differs"; exit 1; }
		good=$((good + 1))
		continue
	fi
	# (good-zstd: zstd streams, which the GPU cannot read: refused too)
	if "$W" -q -t --gpu "$f" 2> "$tmp/err"; then
		echo "FAIL: $name: -t --gpu accepts it"
		exit 1
	fi
	if "$W" -q -d --gpu "$f" -o "$tmp/o" 2>> "$tmp/err" || [ -e "$tmp/o" ]; then
		echo "FAIL: $name: -d --gpu accepts it or leaves output"
		exit 1
	fi
	bad=$((bad + 1))
done < "$G/EXPECTED"
echo "gpu.sh: CLI on the GPU: $good good archives equal to the CPU's, $bad bad ones refused"
# Golden good archives (forge_good: every token form and codec-2 part):
# the GPU's output equals the CPU's; the zstd one is refused.
gg=$(dirname "$G")/golden-good
ngood=0
for f in "$gg"/*.wlz; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .wlz)
	rm -f "$tmp/o"
	if [ "$name" = zstd ]; then
		"$W" -q -t --gpu "$f" 2> /dev/null && { echo "FAIL: golden-good $name: -t --gpu accepts zstd streams"; exit 1; }
		continue
	fi
	"$W" -q -d --gpu "$f" -o "$tmp/o" || { echo "FAIL: golden-good $name: the GPU refuses it"; exit 1; }
	"$W" -q -d -c "$f" | cmp -s - "$tmp/o" || { echo "FAIL: golden-good $name: GPU output differs"; exit 1; }
	"$W" -q -t --gpu "$f" || { echo "FAIL: golden-good $name: -t --gpu"; exit 1; }
	ngood=$((ngood + 1))
done
[ "$ngood" -ge 4 ] || { echo "FAIL: only $ngood golden good archives in $gg"; exit 1; }
echo "gpu.sh: $ngood golden good archives decoded on the GPU equal to the CPU's"
# Random damage: every flipped byte is covered by a checksum or a rule, so
# each must be refused, in bounded time, with no output left.
size=$(stat -c %s "$tmp/d2.wlz")
flips=0
for i in $(seq 1 40); do
	pos=$(( (i * 7919 + 13) * 104729 % size ))
	flip "$tmp/d2.wlz" "$i" "$pos"
	rm -f "$tmp/o"
	if timeout 60 "$W" -q -d --gpu "$tmp/f.wlz" -o "$tmp/o" 2> /dev/null || [ -e "$tmp/o" ]; then
		echo "FAIL: byte $pos flipped: -d --gpu accepts it or leaves output"
		exit 1
	fi
	flips=$((flips + 1))
done
echo "gpu.sh: $flips archives with a flipped byte refused on the GPU"
# Many files at once: one batch on the GPUs; every bad archive named and
# without output, every good one decoded.
mkdir "$tmp/batch"
n=0
for a in def d2 two; do cp "$tmp/$a.wlz" "$tmp/batch/good-$a.wlz"; done
while IFS=$'\t' read -r name want; do
	[ "$want" != OK ] && [ -e "$G/$name.wlz" ] && [ $n -lt 12 ] || continue
	cp "$G/$name.wlz" "$tmp/batch/bad-$name.wlz"
	n=$((n + 1))
done < "$G/EXPECTED"
if "$W" -q -d -k --gpu "$tmp"/batch/*.wlz 2> "$tmp/err"; then
	echo "FAIL: a batch with bad archives exits 0"
	exit 1
fi
for f in "$tmp"/batch/bad-*.wlz; do
	[ -e "${f%.wlz}" ] && { echo "FAIL: batch: $f left output"; exit 1; }
	grep -q "$(basename "$f")" "$tmp/err" || { echo "FAIL: batch: $f not named"; cat "$tmp/err"; exit 1; }
done
for a in def d2 two; do
	cmp -s "$tmp/batch/good-$a" <("$W" -q -d -c "$tmp/$a.wlz") || { echo "FAIL: batch: good-$a differs"; exit 1; }
done
"$W" -q -t --gpu "$tmp"/batch/good-*.wlz || { echo "FAIL: -t --gpu on a good batch"; exit 1; }
echo "gpu.sh: a batch of 3 good and $n bad archives: the good decoded, the bad named, no output left"
# One archive on every GPU at once (bench/gpu_split), where there are two
# or more and the binary was built: output equal to the CPU's.
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# (CUDA sees only those CUDA_VISIBLE_DEVICES lists, nvidia-smi all)
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
	ngpu=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
fi
if [ "${ngpu:-0}" -ge 2 ] && [ -x "$B/gpu_split" ]; then
	for a in def d2; do
		"$B/gpu_split" "$tmp/$a.wlz" 1 > "$tmp/split.out" 2>&1 || { echo "FAIL: gpu_split $a"; cat "$tmp/split.out"; exit 1; }
	done
	echo "gpu.sh: one archive on $ngpu GPUs at once equal to the CPU's"
fi
# The CLI's split of one archive over GPUs 0 and 1 (the size from which it
# splits lowered): equal to the CPU's, without falling back to one GPU
# (-v says so where it does); damaged archives refused with no output.
if [ "${ngpu:-0}" -ge 2 ]; then
	# (lead: 64 KiB blocks, the first four of high-entropy bytes without
	# tokens, which blocks of GPU 1's first group copy: sources before the
	# member's first token, on another GPU)
	zstd -q -19 -c "$tmp/in" | head -c 262144 > "$tmp/r"
	cat "$tmp/r" <(head -c 393216 "$tmp/in") "$tmp/r" <(tail -c +393217 "$tmp/in") > "$tmp/lead"
	"$W" -q --depth=10 -B64K -c "$tmp/lead" > "$tmp/lead.wlz" || exit 1
	for a in def d2 two lead lead; do
		# (the second lead in two pieces: WLZ_GPU_SPLIT_PIECES)
		[ "$a" = lead ] && [ -e "$tmp/gs.lead" ] && export WLZ_GPU_SPLIT_PIECES=2
		WAVELZ_GPU_SPLIT_MIN=1 timeout 120 "$W" -v -d --gpu=0,1 -c "$tmp/$a.wlz" > "$tmp/gs.out" 2> "$tmp/gs.err" ||
			{ echo "FAIL: -d --gpu=0,1 $a"; cat "$tmp/gs.err"; exit 1; }
		grep -q "GPUs at once" "$tmp/gs.err" && { echo "FAIL: -d --gpu=0,1 $a fell back to one GPU"; cat "$tmp/gs.err"; exit 1; }
		"$W" -q -d -c "$tmp/$a.wlz" | cmp -s - "$tmp/gs.out" || { echo "FAIL: -d --gpu=0,1 $a differs from the CPU"; exit 1; }
		WAVELZ_GPU_SPLIT_MIN=1 timeout 120 "$W" -q -t --gpu=0,1 "$tmp/$a.wlz" || { echo "FAIL: -t --gpu=0,1 $a"; exit 1; }
		[ "$a" = lead ] && touch "$tmp/gs.lead"
	done
	unset WLZ_GPU_SPLIT_PIECES
	size=$(stat -c %s "$tmp/def.wlz")
	for i in $(seq 1 8); do
		pos=$(( (i * 7919 + 13) * 104729 % size ))
		flip "$tmp/def.wlz" "$i" "$pos"
		rm -f "$tmp/o"
		if WAVELZ_GPU_SPLIT_MIN=1 timeout 60 "$W" -q -d --gpu=0,1 "$tmp/f.wlz" -o "$tmp/o" 2> /dev/null ||
			[ -e "$tmp/o" ]; then
			echo "FAIL: byte $pos flipped: -d --gpu=0,1 accepts it or leaves output"
			exit 1
		fi
	done
	echo "gpu.sh: the CLI's split over GPUs 0,1 equal to the CPU's (lead in one piece and two); 8 damaged archives refused"
fi
if [ -n "$API" ]; then
	"$API" "$tmp/in" || { echo "FAIL: gpu_api"; exit 1; }
	# (the split as a fresh process's first GPU work: no kernel loaded)
	if [ "${ngpu:-0}" -ge 2 ]; then
		timeout 120 "$API" --split-first "$tmp/in" > "$tmp/split-first.out" 2>&1 ||
			{ echo "FAIL: gpu_api --split-first"; cat "$tmp/split-first.out"; exit 1; }
		echo "gpu.sh: the split as a process's first GPU work: checked"
	fi
fi
echo "gpu.sh: all GPU checks passed"
