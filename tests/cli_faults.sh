#!/usr/bin/env bash
# cli_faults.sh - the CLI when the world misbehaves.  In every case: an
# error and a non-zero exit (or the signal's own death), no output file and
# no temporary file left, and the input untouched (--rm included).
#   full disk        output over `ulimit -f` (EFBIG), and stdout on /dev/full
#   unwritable dir   a directory without write permission (as an unprivileged
#                    user when we are root), and /proc
#   input removed    while the job runs: the open input still reads whole,
#                    so the output must be complete and correct
#   input truncated  while the job runs: an error (the mapped input raises
#                    SIGBUS), no output
#   SIGINT, SIGTERM  while compressing and while decompressing
#
# usage: cli_faults.sh WAVELZ WLZTOOL
set -u

W=$1
TOOL=$2
case $W in /*) ;; */*) W=$PWD/$W ;; esac
case $TOOL in /*) ;; */*) TOOL=$PWD/$TOOL ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wlz-faults.XXXXXX")
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

"$TOOL" gen fastq 3000000 11 >small
"$TOOL" gen random 2000000 12 >noise
"$W" -q -1 -o small.wlz small </dev/null || { echo "cannot compress" >&2; exit 1; }
"$W" -q -1 -o noise.wlz noise </dev/null || { echo "cannot compress" >&2; exit 1; }
for f in small noise small.wlz noise.wlz; do cp "$f" "$f.orig"; done

# left DIR EXPECTED...: the directory holds exactly these names.
left() {
  local dir=$1
  shift
  local want have
  want=$(printf '%s\n' "$@" | sort)
  have=$(ls -A "$dir" | sort)
  [ "$have" = "$want" ] || { echo "unexpected files in $dir: $(echo $have)" >&2; return 1; }
}
intact() { cmp -s "$1" "$1.orig" || fail "$1 was changed"; }
inputs="small noise small.wlz noise.wlz small.orig noise.orig small.wlz.orig noise.wlz.orig"

# ---------------------------------------------------------------- full disk
# 256 KiB file size limit: SIGXFSZ must not kill us before we clean up.
( ulimit -f 256; "$W" -q --rm -1 noise -o out.wlz </dev/null 2>err ); rc=$?
[ $rc -eq 1 ] || fail "full disk (compress): exit $rc, expected 1"
grep -q "write error" err || fail "full disk (compress): message '$(cat err)'"
left . $inputs err || fail "full disk (compress): files left"
intact noise
( ulimit -f 256; "$W" -q -d --rm noise.wlz -o out </dev/null 2>err ); rc=$?
[ $rc -eq 1 ] || fail "full disk (decompress): exit $rc, expected 1"
left . $inputs err || fail "full disk (decompress): files left"
intact noise.wlz
pass "output beyond the file size limit"
"$W" -q -c small </dev/null >/dev/full 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "write error" err || fail "stdout on /dev/full (compress): exit $rc, '$(cat err)'"
"$W" -q -dc small.wlz </dev/null >/dev/full 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "write error" err || fail "stdout on /dev/full (decompress): exit $rc, '$(cat err)'"
pass "stdout on /dev/full"
rm -f err

# ----------------------------------------------------------- unwritable dir
mkdir ro
chmod 555 ro
chmod 755 "$T"
as_user=
if [ "$(id -u)" -eq 0 ]; then
  # root writes anywhere: try as nobody, if it can reach the binary
  if command -v setpriv >/dev/null &&
     setpriv --reuid=65534 --regid=65534 --clear-groups "$W" -V >/dev/null 2>&1; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
  else
    echo "note: running as root and cannot run as nobody; only /proc is tried"
  fi
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
  chmod 644 small small.wlz
  $as_user "$W" -q small -o ro/small.wlz </dev/null 2>err; rc=$?
  [ $rc -eq 1 ] && grep -q "ro/small.wlz: Permission denied" err || fail "unwritable dir (compress): exit $rc, '$(cat err)'"
  $as_user "$W" -q -d small.wlz -o ro/small </dev/null 2>err; rc=$?
  [ $rc -eq 1 ] && grep -q "ro/small: Permission denied" err || fail "unwritable dir (decompress): exit $rc, '$(cat err)'"
  left ro || fail "unwritable dir: files left in it"
  pass "directory without write permission"
fi
"$W" -q small -o /proc/wavelz-test.wlz </dev/null 2>err; rc=$?
[ $rc -eq 1 ] || fail "output in /proc: exit $rc, expected 1"
[ -e /proc/wavelz-test.wlz ] && fail "output in /proc exists"
rm -rf ro err
left . $inputs || fail "unwritable dir: files left"
intact small
intact small.wlz
pass "output in /proc"

# --------------------------------------------------- a running job, stopped
# Starts `wavelz ARGS` in the background and stops it (SIGSTOP) once its
# temporary output exists, so that what we do next happens mid-job.
# Sets $pid.  Returns 1 if the job ended before a temporary file appeared.
# Job control on: a non-interactive shell starts background jobs with
# SIGINT ignored otherwise, and wavelz keeps signals its parent ignored.
set -m
start_stopped() {
  "$W" "$@" </dev/null 2>err &
  pid=$!
  local i
  for ((i = 0; i < 200000; i++)); do
    if compgen -G '.*.tmp*' >/dev/null; then
      kill -STOP "$pid" 2>/dev/null || break
      # Stopped for real (state T), not a job that ended meanwhile, with
      # its temporary file still there?
      local j
      for ((j = 0; j < 1000; j++)); do
        grep -q '^[0-9]* ([^)]*) [Tt]' /proc/"$pid"/stat 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
      done
      if grep -q '^[0-9]* ([^)]*) [Tt]' /proc/"$pid"/stat 2>/dev/null &&
         compgen -G '.*.tmp*' >/dev/null; then
        return 0
      fi
      kill -CONT "$pid" 2>/dev/null
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
  done
  finish
  return 1
}

# The job's exit status, once it has exited: with job control on, `wait`
# also returns (128 + SIGSTOP) when it merely saw the job stop.
finish() {
  local rc i
  for ((i = 0; i < 20; i++)); do
    wait "$pid"
    rc=$?
    [ $rc -eq $((128 + $(kill -l STOP))) ] && continue
    return $rc
  done
  return $rc
}

# Large enough that compressing at -19 takes a while.
"$TOOL" gen fastq 16000000 13 >big
cp big big.orig

# Input removed while compressing: the job reads the open file to its end.
if start_stopped -q -3 -T2 big -o big.wlz; then
  rm big
  kill -CONT "$pid"
  finish; rc=$?
  [ $rc -eq 0 ] || fail "input removed mid-run: exit $rc: $(cat err)"
  "$W" -q -dc big.wlz </dev/null | cmp -s - big.orig || fail "input removed mid-run: output wrong"
  left . $inputs big.orig big.wlz err || fail "input removed mid-run: files left"
  pass "input removed while compressing"
  cp big.orig big
  rm big.wlz
else
  fail "compress of 16 MB ended before it could be stopped"
fi

# Input truncated while compressing: input is read as the job goes, so
# either it had read everything already (a whole, correct archive) or it
# meets the early end, which must be an error naming it, with no output.
if start_stopped -q -3 -T2 big -o big.wlz; then
  : >big
  kill -CONT "$pid"
  finish; rc=$?
  if [ $rc -eq 0 ]; then
    "$W" -q -dc big.wlz </dev/null | cmp -s - big.orig || fail "input truncated mid-run: exit 0 but output wrong"
    left . $inputs big big.orig big.wlz err || fail "input truncated mid-run: files left"
    rm -f big.wlz
  else
    [ $rc -eq 1 ] && grep -q "shrank" err || fail "input truncated mid-run: exit $rc, '$(cat err)'"
    left . $inputs big big.orig err || fail "input truncated mid-run: files left"
  fi
  cp big.orig big
  pass "input truncated while compressing"
else
  fail "compress of 16 MB ended before it could be stopped"
fi

# Signals while compressing.
for sig in INT TERM; do
  if start_stopped -q -19 -T2 --rm big -o big.wlz; then
    kill -"$sig" "$pid"
    kill -CONT "$pid"
    finish; rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ $rc -eq $want ] || fail "SIG$sig while compressing: exit $rc, expected $want"
    left . $inputs big big.orig err || fail "SIG$sig while compressing: files left"
    intact big
    pass "SIG$sig while compressing"
  else
    fail "compress ended before SIG$sig"
  fi
done

# Signals while decompressing: a larger archive, decoded on one thread,
# so that the job is likely still running when the temporary file shows;
# a job that finished first is tried again.
"$W" -q -1 -o big.wlz big </dev/null
cp big.wlz big.wlz.orig
for sig in INT TERM; do
  caught=0
  for attempt in 1 2 3 4 5; do
    if start_stopped -q -d -T1 --rm big.wlz -o big.out; then
      kill -"$sig" "$pid"
      kill -CONT "$pid"
      finish; rc=$?
      want=$((128 + $(kill -l "$sig")))
      [ $rc -eq $want ] || fail "SIG$sig while decompressing: exit $rc, expected $want"
      caught=1
      break
    fi
    rm -f big.out
    cp big.wlz.orig big.wlz
  done
  [ $caught -eq 1 ] || fail "decompression always ended before SIG$sig (5 tries)"
  left . $inputs big big.orig big.wlz big.wlz.orig err || fail "SIG$sig while decompressing: files left"
  intact big.wlz
  pass "SIG$sig while decompressing"
done

# ----------------------------------------------------------- symbolic links
# An output name that is a symbolic link: without -f it already exists (a
# dangling link too); with -f the link itself is replaced by a regular file
# and the file it pointed at is left as it was.  A link to a device is
# still written through, like the device itself.
mkdir links
printf 'not to be overwritten\n' >links/target
cp links/target links/target.orig
ln -s target links/out.wlz
ln -s target links/out
ln -s missing links/dangling.wlz
"$W" -q -1 small -o links/out.wlz </dev/null 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "already exists" err || fail "link without -f: exit $rc, '$(cat err)'"
"$W" -q -1 small -o links/dangling.wlz </dev/null 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "already exists" err || fail "dangling link without -f: exit $rc, '$(cat err)'"
[ -L links/out.wlz ] && [ -L links/dangling.wlz ] || fail "link without -f: a link was replaced"
"$W" -q -1 -f small -o links/out.wlz </dev/null 2>err; rc=$?
[ $rc -eq 0 ] || fail "link with -f (compress): exit $rc, '$(cat err)'"
"$W" -q -d -f small.wlz -o links/out </dev/null 2>err; rc=$?
[ $rc -eq 0 ] || fail "link with -f (decompress): exit $rc, '$(cat err)'"
"$W" -q -1 -f small -o links/dangling.wlz </dev/null 2>err; rc=$?
[ $rc -eq 0 ] || fail "dangling link with -f: exit $rc, '$(cat err)'"
for f in out.wlz out dangling.wlz; do
  [ -f links/$f ] && [ ! -L links/$f ] || fail "link with -f: links/$f is not a regular file now"
done
cmp -s links/target links/target.orig || fail "link with -f: the link's target was written"
[ -e links/missing ] && fail "dangling link with -f: its target was created"
"$W" -q -dc links/out.wlz </dev/null | cmp -s - small || fail "link with -f: links/out.wlz does not decode to the input"
"$W" -q -dc links/dangling.wlz </dev/null | cmp -s - small || fail "dangling link with -f: wrong output"
cmp -s links/out small || fail "link with -f (decompress): wrong output"
ln -s /dev/null links/null
"$W" -q -1 small -o links/null </dev/null 2>err; rc=$?
[ $rc -eq 0 ] || fail "link to /dev/null: exit $rc, '$(cat err)'"
"$W" -q -1 -f small -o links/null </dev/null 2>err; rc=$?
[ $rc -eq 0 ] && [ -L links/null ] || fail "link to /dev/null with -f: exit $rc, '$(cat err)', or the link was replaced"
left links target target.orig out.wlz out dangling.wlz null || fail "symbolic links: files left"
intact small
intact small.wlz
rm -rf links err
pass "output names that are symbolic links"

if [ $fails -ne 0 ]; then
  echo "$fails failure(s)" >&2
  exit 1
fi
echo "cli_faults: all passed"
