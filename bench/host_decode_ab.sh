#!/usr/bin/env bash
# Decode speed of several builds side by side (an A/B of decoder changes):
# each corpus is compressed once at the default level, then every build's
# tbench decodes that archive on 1 and on all threads, beside zstd -3 (one
# frame at T=1, 1 MiB frames at T>1) in the same tbench run.  The builds
# alternate over RUNS rounds and each row keeps its best round, since a
# shared host's speed drifts between runs.
#
#   bench/host_decode_ab.sh OUT.md WAVELZ NAME=TBENCH[,NAME=TBENCH...] CORPUS.zst...
#
# ZSTD: the zstd CLI that unpacks the corpora (default: zstd on PATH);
# THREADS (default 1,$(nproc)), REPS (tbench rounds, default 5), RUNS (2).
set -euo pipefail
out=$1; W=$2; builds=$3; shift 3
Z=${ZSTD:-zstd}
T=$(nproc)
THREADS=${THREADS:-1,$T}; REPS=${REPS:-5}; RUNS=${RUNS:-2}
tmp=$(mktemp -d /dev/shm/wlzab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
IFS=, read -r -a blist <<< "$builds"
for x in "$@"; do
  name=$(basename "$x" .zst)
  "$Z" -q -dc "$x" > "$tmp/$name"
  "$W" -q -T0 -c "$tmp/$name" > "$tmp/$name.wlz"
  "$W" -q -t "$tmp/$name.wlz"
  for ((r = 0; r < RUNS; r++)); do
    for b in "${blist[@]}"; do
      "${b#*=}" -T "$THREADS" -r "$REPS" -w "$tmp/$name.wlz" "$tmp/$name" | grep -v '^file,' |
        sed "s/^/${b%%=*},/"
    done
  done > "$tmp/$name.csv"
  rm -f "$tmp/$name"
  cat "$tmp/$name.csv" >> "$tmp/all.csv"
done
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $T threads; $(date -u '+%F %H:%M UTC'); best of $RUNS runs of $REPS rounds"
  echo
  echo "| corpus | build | threads | wavelz GB/s | zstd -3 GB/s | wavelz / zstd |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
  # zstd's row: one frame at T=1, 1 MiB frames above (what T threads can use).
  awk -F, '{ k = $2 FS $1 FS $4
             if ($3 == "wavelz" && $6 > w[k]) w[k] = $6
             z1 = ($4 == 1 && $3 == "zstd-3") || ($4 > 1 && $3 == "zstd-3-1MiB")
             if (z1 && $6 > z[k]) z[k] = $6
             if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
       END { for (i = 0; i < n; i++) { split(order[i], f, FS)
               printf "| %s | %s | %s | %.3f | %.3f | %.2fx |\n", f[1], f[2], f[3], w[order[i]], z[order[i]], w[order[i]] / z[order[i]] } }' \
    "$tmp/all.csv"
} > "$out"
cat "$out"
