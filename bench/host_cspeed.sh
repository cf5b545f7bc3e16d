#!/usr/bin/env bash
# Compression speed at wavelz levels 1, 2 and 3 on one thread and on all
# threads, beside zstd -3 in the same job (issue 13's speed points).  Every
# archive is tested (`wavelz -t`) and decoded and compared.
#
#   bench/host_cspeed.sh DIR OUT.md CORPUS.zst...
#
# DIR holds the wavelz and zstd binaries; corpora come zstd-compressed and
# are unpacked to /dev/shm.  Times are wall times, best of REPS (default 2),
# input from /dev/shm, archive to /dev/shm.
set -euo pipefail
bin=$1; out=$2; shift 2
W=$bin/wavelz; Z=${ZSTD:-$bin/zstd}
T=$(nproc); REPS=${REPS:-2}
tmp=$(mktemp -d /dev/shm/wlzcs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/hostlib.sh"
best() { best_of "$REPS" "$tmp/arc" "$@"; }
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $T threads; $(date -u '+%F %H:%M UTC')"
  echo
  echo "| corpus | codec | ratio % | MB/s T1 | vs zstd -3 T1 | MB/s T$T | T$T / T1 |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
} > "$out"
for x in "$@"; do
  name=$(basename "$x" .zst)
  in=$tmp/$name
  "$Z" -q -dc "$x" > "$in"
  n=$(stat -c %s "$in")
  zt=""
  for codec in ${CODECS:-zstd-3 wavelz-1 wavelz-2 wavelz-3}; do
    case $codec in
      zstd-*) cmd=("$Z" -q -${codec#zstd-} -c "$in"); t1=(-T1); tn=(-T$T); dec=("$Z" -q -dc) ;;
      wavelz-*) cmd=("$W" -q -${codec#wavelz-} -c "$in"); t1=(-T1); tn=(-T$T); dec=("$W" -q -dc) ;;
    esac
    s1=$(best "${cmd[@]}" "${t1[@]}")
    c=$(stat -c %s "$tmp/arc")
    sn=$(best "${cmd[@]}" "${tn[@]}")
    "${dec[@]}" "$tmp/arc" | cmp - "$in"
    [[ $codec == wavelz-* ]] && "$W" -q -t "$tmp/arc"
    m1=$(calc "$n / $s1 / 1000000"); mn=$(calc "$n / $sn / 1000000")
    [[ $codec == zstd-3 ]] && zt=$m1
    printf '| %s | %s | %.2f | %.1f | %.2fx | %.1f | %.1fx |\n' "$name" "$codec" \
      "$(calc "100 * $c / $n")" "$m1" "$(calc "$m1 / $zt")" "$mn" "$(calc "$mn / $m1")" >> "$out"
  done
done
cat "$out"
