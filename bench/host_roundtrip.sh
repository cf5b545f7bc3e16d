#!/usr/bin/env bash
# Round trips of whole corpora at wavelz levels 1, 3 and 19 on a many-core
# machine (the GPU host's CPU), beside zstd -3 and zstd -19 --long=27 run
# there in the same job.  Every archive is checked with `wavelz -t` and
# decoded and compared with cmp.
#
#   bench/host_roundtrip.sh DIR OUT.md CORPUS.xz...
#
# CODECS="zstd-3 wavelz-19 ..." picks a subset (zstd-3 first: it is the
# speed reference).  DIR holds the wavelz and zstd binaries; corpora come xz-compressed (to
# carry them) and are unpacked to /dev/shm.  Decode speeds are one thread,
# best of 3, output to /dev/null, wall time including process start.
set -euo pipefail
bin=$1; out=$2; shift 2
W=$bin/wavelz; Z=${ZSTD:-$bin/zstd}
T=$(nproc)
tmp=$(mktemp -d /dev/shm/wlzrt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/hostlib.sh"
best3() { best_of 3 /dev/null "$@"; }
PATH=$bin:$PATH
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $T threads; $(date -u '+%F %H:%M UTC')"
  echo
  echo "| corpus | codec | ratio % | compress s (-T$T) | decode MB/s (1 thread) | decode vs zstd -3 | checks |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | --- |"
} > "$out"
for x in "$@"; do
  name=$(basename "$x" .xz)
  in=$tmp/$name
  xz -dc "$x" > "$in"
  n=$(stat -c %s "$in")
  rows=()
  zt=""
  for codec in ${CODECS:-zstd-3 zstd-19-long wavelz-1 wavelz-3 wavelz-19}; do
    arc=$tmp/arc; dec=(); chk="cmp"
    t0=$(now)
    case $codec in
      zstd-3) "$Z" -q -3 -T$T -c "$in" > "$arc"; dec=("$Z" -q -d -c "$arc") ;;
      zstd-19-long) "$Z" -q -19 --long=27 -T$T -c "$in" > "$arc"; dec=("$Z" -q -d --long=27 -c "$arc") ;;
      wavelz-*) "$W" -q -${codec#wavelz-} -T$T -c "$in" > "$arc"; dec=("$W" -q -d -T1 -c "$arc")
                "$W" -q -t "$arc"; chk="cmp, -t" ;;
    esac
    t1=$(now)
    "${dec[@]}" | cmp - "$in"
    ds=$(best3 "${dec[@]}")
    mbs=$(calc "$n / $ds / 1000000")
    [[ $codec == zstd-3 ]] && zt=$mbs
    c=$(stat -c %s "$arc")
    printf '| %s | %s | %.2f | %.1f | %.0f | %.2fx | %s |\n' "$name" "$codec" \
      "$(calc "100 * $c / $n")" "$(calc "$t1 - $t0")" "$mbs" \
      "$(calc "$mbs / $zt")" "$chk" >> "$out"
  done
  rm -f "$in" "$tmp/arc"
done
cat "$out"
