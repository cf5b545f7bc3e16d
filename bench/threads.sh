#!/usr/bin/env bash
# Decode throughput against threads (issue 4): wavelz -3 (one archive),
# zstd -3 (one frame), zstd -3 and lz4 in independent 1 MiB frames, and
# memcpy, all by bench/tbench in one run per file.  Writes OUT.csv; then
# `python3 bench/plot_threads.py OUT.csv PNG MD` draws the plot and table.
#
#   bench/threads.sh OUT.csv FILE...     (FILE may be .xz; TBENCH=path/to/tbench,
#                                         THREADS=1,2,4,8,16, REPS=8, RUNS=1)
#
# RUNS=N runs tbench N times per file and keeps each row's best figure: a
# shared host's speed drifts by tens of percent between runs.
set -euo pipefail
TB=${TBENCH:-build/tbench}
out=$1; shift
tmp=$(mktemp -d /dev/shm/wlzthreads.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads; $(date -u '+%F %H:%M UTC')" > "$out"
echo "file,codec,threads,ratio_pct,gbps" >> "$out"
for f in "$@"; do
  name=$(basename "$f" .xz)
  case $f in *.xz) ${XZ:-xz} -dc "$f" > "$tmp/$name" ;; *) cp "$f" "$tmp/$name" ;; esac
  for ((run = 0; run < ${RUNS:-1}; run++)); do
    "$TB" -T "${THREADS:-1,2,4,8,16}" -r "${REPS:-8}" "$tmp/$name" | grep -v '^file,'
  done | awk -F, '!($1 FS $2 FS $3 in best) { order[n++] = $1 FS $2 FS $3 }
                  !($1 FS $2 FS $3 in best) || $5 > best[$1 FS $2 FS $3] { best[$1 FS $2 FS $3] = $5; row[$1 FS $2 FS $3] = $0 }
                  END { for (i = 0; i < n; i++) print row[order[i]] }' >> "$out"
  rm -f "$tmp/$name"
done
cat "$out"
