#!/usr/bin/env bash
# How far the host itself lets one-thread work scale: N separate processes
# compress N different slices of a corpus at once, against one process on
# one slice.  No code is shared between them, so what they lose against N
# times one is the machine's (shared caches, memory bandwidth, SMT, the
# hypervisor), the ceiling for any compressor's threads.
#
#   bench/host_scaling.sh DIR CORPUS.zst [N]
#
# DIR holds the wavelz and zstd binaries; N defaults to nproc.  Prints one
# row per codec: one slice's time, N slices' wall time, and N * one / all.
set -euo pipefail
bin=$1; corpus=$2; N=${3:-$(nproc)}
W=$bin/wavelz; Z=$bin/zstd
tmp=$(mktemp -d /dev/shm/wlzsc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/hostlib.sh"
"$Z" -q -dc "$corpus" > "$tmp/all"
size=$(stat -c %s "$tmp/all")
per=$((size / N))
for i in $(seq 0 $((N - 1))); do
  dd if="$tmp/all" of="$tmp/s$i" bs=1M iflag=skip_bytes,count_bytes skip=$((i * per)) count=$per status=none
done
echo "| codec | slice MB | one slice s | $N slices at once s | scaling |"
echo "| --- | ---: | ---: | ---: | ---: |"
for codec in ${CODECS:-zstd-3 wavelz-1 wavelz-3}; do
  case $codec in
    zstd-*) cmd=("$Z" -q "-${codec#zstd-}" -T1 -c) ;;
    wavelz-*) cmd=("$W" -q "-${codec#wavelz-}" -T1 -c) ;;
  esac
  one=1000
  for _ in 1 2 3; do
    t0=$(now); "${cmd[@]}" "$tmp/s0" > /dev/null; t1=$(now)
    one=$(calc "($t1 - $t0 < $one) ? $t1 - $t0 : $one")
  done
  all=1000
  for _ in 1 2; do
    t0=$(now)
    for i in $(seq 0 $((N - 1))); do "${cmd[@]}" "$tmp/s$i" > /dev/null & done
    wait
    t1=$(now)
    all=$(calc "($t1 - $t0 < $all) ? $t1 - $t0 : $all")
  done
  printf '| %s | %.1f | %.3f | %.3f | %.1fx |\n' "$codec" "$(calc "$per / 1000000")" "$one" "$all" \
    "$(calc "$N * $one / $all")"
done
