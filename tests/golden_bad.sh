#!/usr/bin/env bash
# golden_bad.sh - the hand-made malformed archives of tests/golden-bad/.
#  1. forge_bad still writes exactly the saved files (so they follow the
#     format as it stands; after a format change, regenerate them: README
#     there).
#  2. `wavelz -t` passes the good-*.wlz files and rejects every other file,
#     exit 1, with the file's own message (EXPECTED) on stderr, at 1 and 3
#     threads from the file and at 2 threads from a pipe.
#  3. `wavelz -d` of each bad file fails and leaves no output file behind;
#     of each good one, it writes the same bytes as `wavelz -dc` from a pipe.
#
# usage: golden_bad.sh WAVELZ FORGE_BAD GOLDEN_DIR
set -u

W=$1
FORGE=$2
G=$3
case $W in /*) ;; */*) W=$PWD/$W ;; esac
case $FORGE in /*) ;; */*) FORGE=$PWD/$FORGE ;; esac
case $G in /*) ;; */*) G=$PWD/$G ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wlz-golden.XXXXXX")
trap 'rm -rf "$T"' EXIT

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

mkdir "$T/forged" "$T/work"
"$FORGE" "$T/forged" || { echo "forge_bad failed" >&2; exit 1; }
cmp -s "$T/forged/EXPECTED" "$G/EXPECTED" || fail "EXPECTED differs from what forge_bad writes"
for f in "$T"/forged/*.wlz; do
  b=$(basename "$f")
  cmp -s "$f" "$G/$b" || fail "$b differs from what forge_bad writes (regenerate: see $G/README.md)"
done
for f in "$G"/*.wlz; do
  [ -e "$T/forged/$(basename "$f")" ] || fail "$(basename "$f") is no longer written by forge_bad"
done

cd "$T/work" || exit 1
n=0
while IFS=$'\t' read -r name expect; do
  [ -n "$name" ] || continue
  n=$((n + 1))
  cp "$G/$name.wlz" in.wlz
  for threads in 1 3 pipe; do
    if [ "$threads" = pipe ]; then
      cat in.wlz | "$W" -t -T2 >out.txt 2>err.txt
    else
      "$W" -t -T"$threads" in.wlz </dev/null >out.txt 2>err.txt
    fi
    rc=$?
    if [ "$expect" = OK ]; then
      [ $rc -eq 0 ] || fail "$name (T=$threads): -t exit $rc: $(cat err.txt)"
      continue
    fi
    [ $rc -eq 1 ] || fail "$name (T=$threads): -t exit $rc, expected 1"
    grep -qF -- "$expect" err.txt ||
      fail "$name (T=$threads): message '$(cat err.txt)' lacks '$expect'"
  done
  if [ "$expect" = OK ]; then
    "$W" -d -q in.wlz -o out </dev/null >/dev/null 2>err.txt || fail "$name: -d failed: $(cat err.txt)"
    cat in.wlz | "$W" -dc >pipe.out 2>err.txt || fail "$name: -dc from a pipe failed: $(cat err.txt)"
    cmp -s out pipe.out || fail "$name: -d and -dc from a pipe differ"
    rm -f out pipe.out
    continue
  fi
  "$W" -d -q in.wlz -o out </dev/null >/dev/null 2>&1 && fail "$name: -d exited 0"
  left=$(ls -A | grep -v -e '^in.wlz$' -e '^out.txt$' -e '^err.txt$')
  [ -z "$left" ] || { fail "$name: -d left: $left"; rm -f -- $left; }
  cmp -s in.wlz "$G/$name.wlz" || fail "$name: the archive was modified"
done <"$G/EXPECTED"

[ "$n" -ge 80 ] || fail "only $n cases in EXPECTED"
echo "golden-bad cases: $n"
if [ $fails -ne 0 ]; then
  echo "$fails failure(s)" >&2
  exit 1
fi
echo "golden_bad: all passed"
