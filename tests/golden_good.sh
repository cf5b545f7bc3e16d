#!/usr/bin/env bash
# golden_good.sh - the golden good archives of tests/golden-good/.
#  1. forge_good still writes exactly the saved files and contents
#     (EXPECTED: size and XXH3-64 of each content); the zstd case's bytes
#     depend on libzstd's version, so there only its content must agree.
#  2. Every saved file decodes to forge_good's content: `wavelz -dc` at 1
#     and 3 threads, from a pipe, `-d` to a file, `-t`; and all of them
#     concatenated (members of every kind back to back) decode to the
#     contents concatenated.
#
# usage: golden_good.sh WAVELZ FORGE_GOOD GOLDEN_DIR
set -u

W=$1
FORGE=$2
G=$3
case $W in /*) ;; */*) W=$PWD/$W ;; esac
case $FORGE in /*) ;; */*) FORGE=$PWD/$FORGE ;; esac
case $G in /*) ;; */*) G=$PWD/$G ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wlz-good.XXXXXX")
trap 'rm -rf "$T"' EXIT

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$FORGE" "$T" || { echo "forge_good failed" >&2; exit 1; }
cmp -s "$T/EXPECTED" "$G/EXPECTED" || fail "EXPECTED differs from what forge_good writes (regenerate: see $G/README.md)"
n=0
: > "$T/all.wlz"
: > "$T/all.out"
while IFS=$'\t' read -r name size sum; do
  [ -n "$name" ] || continue
  n=$((n + 1))
  f=$G/$name.wlz
  [ -e "$f" ] || { fail "$name.wlz is missing"; continue; }
  if ! cmp -s "$f" "$T/$name.wlz"; then
    case $name in
      zstd) echo "note: $name.wlz differs from this libzstd's frames; its content is checked" ;;
      *) fail "$name.wlz differs from what forge_good writes (regenerate: see $G/README.md)" ;;
    esac
  fi
  [ "$(stat -c %s "$T/$name.out")" = "$size" ] || fail "$name: forge_good's content is not $size bytes"
  for threads in 1 3; do
    "$W" -q -dc -T"$threads" "$f" > "$T/o" 2> "$T/err" || fail "$name (T=$threads): -dc failed: $(cat "$T/err")"
    cmp -s "$T/o" "$T/$name.out" || fail "$name (T=$threads): -dc differs from the content"
  done
  cat "$f" | "$W" -q -dc -T2 > "$T/o" 2> "$T/err" || fail "$name (pipe): -dc failed: $(cat "$T/err")"
  cmp -s "$T/o" "$T/$name.out" || fail "$name (pipe): -dc differs from the content"
  rm -f "$T/file"
  "$W" -q -d "$f" -o "$T/file" 2> "$T/err" || fail "$name: -d failed: $(cat "$T/err")"
  cmp -s "$T/file" "$T/$name.out" || fail "$name: -d to a file differs from the content"
  "$W" -q -t "$f" 2> "$T/err" || fail "$name: -t failed: $(cat "$T/err")"
  cat "$f" >> "$T/all.wlz"
  cat "$T/$name.out" >> "$T/all.out"
done < "$T/EXPECTED"
[ "$n" -ge 5 ] || fail "only $n cases in EXPECTED"
for g in "$G"/*.wlz; do
  grep -q "^$(basename "$g" .wlz)	" "$T/EXPECTED" || fail "$(basename "$g") is no longer written by forge_good"
done
"$W" -q -dc -T4 "$T/all.wlz" > "$T/o" 2> "$T/err" || fail "all files back to back: -dc failed: $(cat "$T/err")"
cmp -s "$T/o" "$T/all.out" || fail "all files back to back: content differs"

if [ $fails -gt 0 ]; then
  echo "golden_good: $fails failure(s)" >&2
  exit 1
fi
echo "golden_good: $n archives, their bytes and contents as forge_good writes them, decoded every way"
