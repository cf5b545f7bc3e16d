#!/usr/bin/env bash
# host_scale.sh - issue 13 on the GPU host's CPU, in one device call:
#  1. compression speed and ratio on one thread and on all cores, wavelz -1
#     and -3 beside zstd -1 and -3, on the Illumina set and gcide;
#  2. a FASTQ of GIB GiB resampled from the real reads (bench/fqgen.c)
#     compressed through a pipe, `gen | wavelz -T16 > x.wlz`, then
#     `wavelz -dc x.wlz | sha256sum` against the generator's own sum, with
#     the peak RSS of both steps, beside `zstd -3 -T16 --long=31`.
#
#   bench/host_scale.sh BIN CORPORA OUT.md [GIB [LEVEL]]
#
# BIN holds wavelz, fqgen and zstd; CORPORA the corpora as .zst.
# PIPE=wavelz|zstd|both (default both) picks the pipe runs; TABLE=0 skips
# the corpus table.
set -euo pipefail
bin=$1; corp=$2; out=$3; gib=${4:-20}; lvl=${5:-1}
T=$(nproc)
tmp=$(mktemp -d /dev/shm/wlzsc.XXXXXX)
big=${BIG_DIR:-/tmp}/wlzsc.$$
mkdir -p "$big"
trap 'rm -rf "$tmp" "$big"' EXIT
W=$bin/wavelz; Z=$bin/zstd; G=$bin/fqgen
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.2f\", $* }"; }
# run CMD...: prints "seconds maxrss_kb" of the command (stdout to /dev/null)
run() { /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > "$tmp/o"; cat "$tmp/t"; }
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $T threads; $(date -u '+%F %H:%M UTC')"
  echo
  echo "| corpus | codec | threads | ratio % | compress MB/s | vs zstd -3 (1 thread) | RSS MB | round trip |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
} > "$out"
for c in illumina.fastq gcide.txt; do
  $Z -dc "$corp/$c.zst" > "$tmp/$c"
  [ "${TABLE:-1}" = 1 ] || continue
  n=$(stat -c %s "$tmp/$c")
  ref=
  for spec in "zstd -3 1" "zstd -1 1" "wavelz -1 1" "wavelz -3 1" "zstd -3 $T" "wavelz -1 $T" "wavelz -3 $T"; do
    set -- $spec
    if [ "$1" = zstd ]; then
      read -r s kb < <(run $Z -q $2 -T$3 -c "$tmp/$c")
      rt=$($Z -dc "$tmp/o" | cmp -s - "$tmp/$c" && echo ok || echo FAIL)
    else
      read -r s kb < <(run $W -q $2 -T$3 -c "$tmp/$c")
      rt=$($W -dc "$tmp/o" | cmp -s - "$tmp/$c" && echo ok || echo FAIL)
    fi
    sz=$(stat -c %s "$tmp/o")
    mbs=$(calc "$n / $s / 1e6")
    [ -z "$ref" ] && ref=$mbs
    echo "| $c | $1 $2 | $3 | $(calc "100 * $sz / $n") | $mbs | $(calc "$mbs / $ref")x | $((kb / 1024)) | $rt |" >> "$out"
  done
done
echo >> "$out"
echo "Pipe of ${gib} GiB (fqgen from illumina.fastq, seed 13), level $lvl, $T threads:" >> "$out"
echo >> "$out"
bytes=$((gib * 1073741824))
echo "| step | seconds | MB/s of content | peak RSS MB | result |" >> "$out"
echo "| --- | ---: | ---: | ---: | --- |" >> "$out"
gsum=
if [ "${PIPE:-both}" != zstd ]; then
gsum=$( { /usr/bin/time -f "%e %M" -o "$tmp/tg" $G "$tmp/illumina.fastq" $bytes 13 | tee >(sha256sum > "$tmp/gsum") | /usr/bin/time -f "%e %M" -o "$tmp/tc" $W -$lvl -T$T -q > "$big/x.wlz"; } ; sleep 1; cut -d' ' -f1 "$tmp/gsum")
read -r cs ckb < "$tmp/tc"
asz=$(stat -c %s "$big/x.wlz")
read -r ds dkb < <( { /usr/bin/time -f "%e %M" -o "$tmp/td" $W -dc -T$T "$big/x.wlz" | sha256sum > "$tmp/dsum"; } ; cat "$tmp/td")
dsum=$(cut -d' ' -f1 "$tmp/dsum")
echo "| gen \| wavelz -$lvl -T$T | $cs | $(calc "$bytes / $cs / 1e6") | $((ckb / 1024)) | $asz bytes, $(calc "100 * $asz / $bytes")% |" >> "$out"
echo "| wavelz -dc -T$T \| sha256sum | $ds | $(calc "$bytes / $ds / 1e6") | $((dkb / 1024)) | $([ "$gsum" = "$dsum" ] && echo "sha256 matches" || echo "MISMATCH $gsum $dsum") |" >> "$out"
rm -f "$big/x.wlz"
fi
if [ "${PIPE:-both}" != wavelz ]; then
  # one generator run: its sum taken on the way (tee), as above
  $G "$tmp/illumina.fastq" $bytes 13 | tee >(sha256sum > "$tmp/gsum2") | /usr/bin/time -f "%e %M" -o "$tmp/tz" $Z -3 -T$T --long=31 -q -c > "$big/x.zst"
  sleep 1
  [ -n "$gsum" ] || gsum=$(cut -d' ' -f1 "$tmp/gsum2")
  read -r zs zkb < "$tmp/tz"
  zsz=$(stat -c %s "$big/x.zst")
  read -r zds zdkb < <( { /usr/bin/time -f "%e %M" -o "$tmp/tzd" $Z -dc --long=31 "$big/x.zst" | sha256sum > "$tmp/zsum"; } ; cat "$tmp/tzd")
  echo "| gen \| zstd -3 -T$T --long=31 | $zs | $(calc "$bytes / $zs / 1e6") | $((zkb / 1024)) | $zsz bytes, $(calc "100 * $zsz / $bytes")% |" >> "$out"
  echo "| zstd -dc --long=31 \| sha256sum | $zds | $(calc "$bytes / $zds / 1e6") | $((zdkb / 1024)) | $([ "$gsum" = "$(cut -d' ' -f1 "$tmp/zsum")" ] && echo "sha256 matches" || echo MISMATCH) |" >> "$out"
fi
cat "$out"
