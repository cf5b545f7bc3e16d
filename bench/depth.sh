#!/usr/bin/env bash
# Ratio cost and dependency levels of the depth limit: for each corpus and
# D in unlimited 16 10 4 2 1 0, size at level 3 and the levels recomputed
# from the archive's decoded tokens (wavelz -lv).  Every archive is checked
# with wavelz -t.  Rows run in parallel (JOBS, default: all cores / 2).
#
#   bench/depth.sh OUT.md FILE...      (FILE may be .xz; WAVELZ=path/to/wavelz)
set -euo pipefail
W=${WAVELZ:-build/wavelz}
out=$1; shift
tmp=$(mktemp -d /dev/shm/wlzdepth.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
depths="unlimited 16 10 4 2 1 0"
row() {  # corpus-file depth -> tmp/NAME.DEPTH.row
  local in=$1 d=$2 name; name=$(basename "$in")
  local opt=(); [[ $d == unlimited ]] || opt=(--depth=$d)
  local a=$tmp/$name.$d.wlz
  "$W" -q -3 -T2 "${opt[@]}" -c "$in" > "$a"
  "$W" -q -t "$a"
  local st; st=$("$W" -lv "$a")
  echo "$(stat -c %s "$a") $(sed -n 's/.* bytes; \([0-9]*\) tokens.*/\1/p' <<<"$st")" \
       "$(sed -n 's/.*dependency level: max \([0-9+]*\),.*/\1/p' <<<"$st")" \
       "$(sed -n 's/.*, mean \([0-9.]*\);.*/\1/p' <<<"$st")" \
       "$(sed -n 's/.*crossing blocks \([0-9.]*\)%.*/\1/p' <<<"$st")" > "$tmp/$name.$d.row"
  rm -f "$a"
}
export -f row; export W tmp
names=()
for f in "$@"; do
  name=$(basename "$f" .xz)
  case $f in *.xz) ${XZ:-xz} -dc "$f" > "$tmp/$name" ;; *) cp "$f" "$tmp/$name" ;; esac
  names+=("$name")
done
for name in "${names[@]}"; do for d in $depths; do echo "$tmp/$name $d"; done; done |
  xargs -P "${JOBS:-$(( $(nproc) / 2 ))}" -n 2 bash -c 'row "$0" "$1"'
{
  echo "Level 3, 1 MiB blocks; $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads; $(date -u '+%F %H:%M UTC')"
  echo
  echo "| corpus | depth | ratio % | cost vs unlimited | max level | mean level | tokens | cross-block % |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for name in "${names[@]}"; do
    n=$(stat -c %s "$tmp/$name")
    base=$(cut -d' ' -f1 "$tmp/$name.unlimited.row")
    for d in $depths; do
      read -r c tokens maxl mean cross < "$tmp/$name.$d.row"
      awk -v nm="$name" -v d="$d" -v c="$c" -v n="$n" -v b="$base" -v ml="$maxl" -v me="$mean" -v t="$tokens" -v x="$cross" \
        'BEGIN { printf "| %s | %s | %.2f | %+.1f%% | %s | %s | %s | %s |\n", nm, d, 100*c/n, 100*(c/b-1), ml, me, t, x }'
    done
  done
} > "$out"
cat "$out"
