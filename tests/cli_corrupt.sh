#!/usr/bin/env bash
# cli_corrupt.sh - the CLI on damaged archives: for ~200 single-byte flips
# spread over the header, the index, every stream and the ending, and for a
# sample of truncations, `wavelz -d` must fail and leave no output (nor a
# temporary file), `wavelz -t` must fail, and the archive must stay as it
# was.  The good archive must pass -t.
#
# usage: cli_corrupt.sh WAVELZ WLZTOOL
set -u

W=$1
TOOL=$2
# The tests run in a scratch directory: make relative paths absolute.
case $W in /*) ;; */*) W=$PWD/$W ;; esac
case $TOOL in /*) ;; */*) TOOL=$PWD/$TOOL ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wlz-cli-corrupt.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$TOOL" gen fastq 200000 7 >f
"$W" -q -3 --block-size=64K -o good.wlz f </dev/null || { echo "cannot compress" >&2; exit 1; }
cp good.wlz pristine
size=$(wc -c <good.wlz)
"$TOOL" info good.wlz >/dev/null || fail "wlztool info rejects the good archive"
"$W" -t good.wlz </dev/null >/dev/null 2>&1 || fail "-t rejects the good archive"
"$W" -d -c good.wlz </dev/null 2>/dev/null | cmp -s - f || fail "good archive does not round trip"
echo "archive: $size bytes"

# check_bad DESC: bad.wlz holds a damaged archive.
check_bad() {
  local before
  cp bad.wlz bad.copy
  before=$(ls -A | sort)
  if "$W" -d bad.wlz -o out </dev/null >/dev/null 2>&1; then
    fail "$1: -d exited 0"
  fi
  [ -e out ] && { fail "$1: -d left 'out'"; rm -f out; }
  if "$W" -t bad.wlz </dev/null >/dev/null 2>&1; then
    fail "$1: -t exited 0"
  fi
  # The default name (bad.wlz -> bad) must not appear either.
  if "$W" -d bad.wlz </dev/null >/dev/null 2>&1; then
    fail "$1: -d (default name) exited 0"
  fi
  [ -e bad ] && { fail "$1: -d left 'bad'"; rm -f bad; }
  [ "$(ls -A | sort)" = "$before" ] || fail "$1: files left behind: $(ls -A | tr '\n' ' ')"
  cmp -s bad.wlz bad.copy || fail "$1: the archive was modified"
}

# Positions: the whole 48-byte header, ~100 spread evenly over the middle
# (index and every stream), and the last 64 bytes (ending).
positions=$(seq 0 47)
mid=$((size - 64 - 48))
if [ "$mid" -gt 0 ]; then
  step=$(( (mid + 99) / 100 ))
  positions="$positions $(seq 48 "$step" $((size - 65)))"
fi
positions="$positions $(seq $((size - 64 > 48 ? size - 64 : 48)) $((size - 1)))"
count=0
for pos in $positions; do
  cp pristine bad.wlz
  mask=0x01
  [ $((pos % 3)) -eq 1 ] && mask=0x80
  [ $((pos % 3)) -eq 2 ] && mask=0x10
  "$TOOL" flip bad.wlz "$pos" "$mask" || { fail "cannot flip $pos"; continue; }
  check_bad "xor $mask @$pos"
  count=$((count + 1))
done
echo "flips tried: $count"

# Truncations.
for len in 0 1 4 47 48 49 $((size / 4)) $((size / 2)) $((size - 65)) $((size - 64)) \
  $((size - 33)) $((size - 9)) $((size - 8)) $((size - 2)) $((size - 1)); do
  [ "$len" -lt 0 ] && continue
  head -c "$len" pristine >bad.wlz
  check_bad "truncated to $len"
done

cmp -s good.wlz pristine || fail "the good archive changed"
if [ "$fails" -ne 0 ]; then
  echo "cli_corrupt: $fails check(s) FAILED" >&2
  exit 1
fi
echo "cli_corrupt: all checks passed"
