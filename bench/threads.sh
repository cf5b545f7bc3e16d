#!/usr/bin/env bash
# Decode throughput against threads (issue 4): wavelz -3 (one archive),
# zstd -3 (one frame), zstd -3 and lz4 in independent 1 MiB frames, and
# memcpy, all by bench/tbench in one run per file.  Writes OUT.csv; then
# `python3 bench/plot_threads.py OUT.csv PNG MD` draws the plot and table.
#
#   bench/threads.sh OUT.csv FILE...     (FILE may be .xz; TBENCH=path/to/tbench,
#                                         THREADS=1,2,4,8,16, REPS=8)
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
  "$TB" -T "${THREADS:-1,2,4,8,16}" -r "${REPS:-8}" "$tmp/$name" | grep -v '^file,' >> "$out"
  rm -f "$tmp/$name"
done
cat "$out"
