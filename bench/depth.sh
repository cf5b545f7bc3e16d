#!/usr/bin/env bash
# Ratio cost and dependency levels of the depth limit: for each corpus and
# D in unlimited 16 10 4 2 1 0, size at level 3 and the levels recomputed
# from the archive's decoded tokens (wavelz -lv).  Every archive is checked
# with wavelz -t.
#
#   bench/depth.sh OUT.md FILE...      (FILE may be .xz; WAVELZ=path/to/wavelz)
set -euo pipefail
W=${WAVELZ:-build/wavelz}
out=$1; shift
tmp=$(mktemp -d /dev/shm/wlzdepth.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
{
  echo "Level 3, 1 MiB blocks; $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads; $(date -u '+%F %H:%M UTC')"
  echo
  echo "| corpus | depth | ratio % | cost vs unlimited | max level | mean level | tokens | cross-block % |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$out"
for f in "$@"; do
  name=$(basename "$f" .xz)
  in=$tmp/$name
  case $f in *.xz) xz -dc "$f" > "$in" ;; *) cp "$f" "$in" ;; esac
  n=$(stat -c %s "$in")
  base=""
  for d in unlimited 16 10 4 2 1 0; do
    opt=(); [[ $d == unlimited ]] || opt=(--depth=$d)
    "$W" -q -3 "${opt[@]}" -c "$in" > "$tmp/a.wlz"
    "$W" -q -t "$tmp/a.wlz"
    c=$(stat -c %s "$tmp/a.wlz"); [[ -n $base ]] || base=$c
    st=$("$W" -lv "$tmp/a.wlz")
    tokens=$(sed -n 's/.* bytes; \([0-9]*\) tokens.*/\1/p' <<<"$st")
    maxl=$(sed -n 's/.*dependency level: max \([0-9+]*\),.*/\1/p' <<<"$st")
    mean=$(sed -n 's/.*, mean \([0-9.]*\);.*/\1/p' <<<"$st")
    cross=$(sed -n 's/.*crossing blocks \([0-9.]*\)%.*/\1/p' <<<"$st")
    awk -v nm="$name" -v d="$d" -v c="$c" -v n="$n" -v b="$base" -v ml="$maxl" -v me="$mean" -v t="$tokens" -v x="$cross" \
      'BEGIN { printf "| %s | %s | %.2f | %+.1f%% | %s | %s | %s | %s |\n", nm, d, 100*c/n, 100*(c/b-1), ml, me, t, x }' >> "$out"
  done
  rm -f "$in"
done
cat "$out"
