#!/usr/bin/env bash
# wavelz benchmark: ratio, compression and decompression speed of wavelz and
# reference codecs on the corpora built by bench/corpora.sh.
#
#   bench/run.sh [--reuse] [--codecs REGEX] [CORPUS...]
#
# CORPUS is a name in bench/data/ (default: illumina.fastq pacbio.fastq
# gcide.txt cldr.tar) or a path to any file.  For each corpus, writes
# bench/out/results-NAME.tsv and .md, then assembles bench/RESULTS.md.
#
#   --reuse          reuse cached reference-codec rows (bench/out/cache/) measured
#                    on the same corpus, tool version, command and CPU model
#   --codecs REGEX   only codecs whose id matches REGEX (ids: wavelz-1 wavelz-3
#                    wavelz-9 wavelz-19 zstd-1 zstd-3 zstd-19 zstd-19-long27 lz4
#                    xz-6 bgzip)
#
# Environment:
#   WAVELZ=PATH      wavelz CLI (default build/wavelz, relative to the repo root)
#   SKIP_WAVELZ=1    measure the reference codecs only (also automatic when the
#                    wavelz binary is missing)
#   WAVELZ_LEVELS="1 3 9 19"   wavelz levels to measure
#   SLOW=t0|t1|both  how to compress the slow references (zstd -19, xz -6):
#                    t0 (default) with all cores, to keep the run short; t1 single
#                    thread; both
#   BENCH_TMP=DIR    tmpfs for inputs/outputs (default /dev/shm)
#   MIN_TIME=S       repeat compression (at most 3 runs) until it has run S seconds
#                    in total (default 1)
#   DEC_MIN_TIME=S   same for decompression, at most 10 runs (default 2)
#   DEC_RUNS=N       minimum decode runs (default 3)
#   STEP_TIMEOUT=S   kill a compression or decompression run that takes longer
#                    than S seconds (default 600); the row is marked TIMEOUT
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DATA=${WAVELZ_BENCH_DATA:-$HERE/data}
OUTD=$HERE/out
TIMECMD=(python3 "$HERE/timecmd.py")
MIN_TIME=${MIN_TIME:-1}
DEC_RUNS=${DEC_RUNS:-3}
DEC_MIN_TIME=${DEC_MIN_TIME:-2}
STEP_TIMEOUT=${STEP_TIMEOUT:-600}
SLOW=${SLOW:-t0}
DEFAULT_CORPORA=(illumina.fastq pacbio.fastq gcide.txt cldr.tar)

die() { printf '\nrun.sh: ERROR: %s\n\n' "$*" >&2; exit 1; }
log() { printf 'run.sh: %s\n' "$*" >&2; }
loud() {
  printf '\n************************************************************\n' >&2
  printf 'run.sh: FAILURE: %s\n' "$*" >&2
  printf '************************************************************\n\n' >&2
}

reuse=0
codec_re=.
corpora=()
invocation="bench/run.sh"
for v in WAVELZ SKIP_WAVELZ WAVELZ_LEVELS SLOW STEP_TIMEOUT MIN_TIME DEC_MIN_TIME DEC_RUNS BENCH_TMP; do
  [[ -n ${!v:-} ]] && invocation="$v='${!v}' $invocation"
done
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reuse) reuse=1; invocation+=" --reuse" ;;
    --codecs) codec_re=${2:?--codecs needs a regex}; invocation+=" --codecs '$2'"; shift ;;
    --codecs=*) codec_re=${1#*=}; invocation+=" '$1'" ;;
    -h|--help) sed -n "2,/^set -euo/{/^#/p}" "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) corpora+=("$1"); invocation+=" $1" ;;
  esac
  shift
done
[[ ${#corpora[@]} -gt 0 ]] || corpora=("${DEFAULT_CORPORA[@]}")
case $SLOW in t0|t1|both) ;; *) die "SLOW must be t0, t1 or both" ;; esac

# ---------------------------------------------------------------- tools
need_tool() {  # need_tool BINARY DEBIAN-PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  log "installing $2 (for $1)"
  { apt-get install -y -q "$2" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "$2" >/dev/null; }; } \
    || die "cannot install $2; install it by hand"
  command -v "$1" >/dev/null 2>&1 || die "$1 still missing after installing $2"
}
need_tool python3 python3
need_tool cmp diffutils
need_tool zstd zstd
need_tool lz4 lz4
need_tool xz xz-utils
need_tool bgzip tabix

base=${BENCH_TMP:-/dev/shm}
[[ -d $base && -w $base ]] || base=${TMPDIR:-/tmp}
TMP=$(mktemp -d "$base/wavelz-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
[[ $TMP != *[[:space:]]* ]] || die "temporary directory path contains spaces: $TMP"

# wavelz: copy the binary so a concurrent rebuild cannot change it mid-run.
use_wavelz=1
wavelz_why=""
WAVELZ_SRC=${WAVELZ:-build/wavelz}
[[ $WAVELZ_SRC == /* ]] || WAVELZ_SRC=$ROOT/$WAVELZ_SRC
if [[ ${SKIP_WAVELZ:-0} == 1 ]]; then
  use_wavelz=0; wavelz_why="wavelz (SKIP_WAVELZ=1)"
elif [[ ! -x $WAVELZ_SRC ]]; then
  use_wavelz=0; wavelz_why="wavelz (binary $WAVELZ_SRC not found)"
fi
if [[ $use_wavelz == 1 ]]; then
  cp "$WAVELZ_SRC" "$TMP/wavelz"
  W=$TMP/wavelz
  ver_wavelz=$("$W" -V 2>&1 | head -n1 || true)
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)
  [[ -z $(git -C "$ROOT" status --porcelain -- format encoder cpu_decoder tools include CMakeLists.txt 2>/dev/null) ]] || rev+="+dirty"
  ver_wavelz="${ver_wavelz:-?} (git $rev)"
  log "wavelz: $WAVELZ_SRC — $ver_wavelz"
else
  log "###  skipping wavelz rows: ${wavelz_why#wavelz }  (set WAVELZ=path to the CLI)  ###"
fi
ver_zstd=$(zstd -V | grep -o 'v[0-9][0-9.]*' | head -n1)
ver_lz4=$(lz4 -V 2>&1 | grep -o 'v[0-9][0-9.]*' | head -n1)
ver_xz=$(xz -V | head -n1 | grep -o '[0-9][0-9.]*$')
ver_bgzip=$(bgzip --version | head -n1 | grep -o '[0-9][0-9.]*$')
cpu_model=$(LC_ALL=C lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
ncpu=$(nproc)

# ---------------------------------------------------------------- codecs
# id | label | compress (1 thread) | compress (-T0) | decompress | version
# @IN is the input file, @ARC the archive; the command writes to stdout.
codec_table() {
  local l
  if [[ $use_wavelz == 1 ]]; then
    for l in ${WAVELZ_LEVELS:-1 3 9 19}; do
      echo "wavelz-$l|wavelz -$l|$W -q -$l -T1 -c @IN|$W -q -$l -T0 -c @IN|$W -q -d -T1 -c @ARC|$ver_wavelz"
    done
  fi
  local zd="zstd -q -d --no-asyncio -c @ARC"
  echo "zstd-1|zstd -1|zstd -q -1 -T1 -c @IN||$zd|$ver_zstd"
  echo "zstd-3|zstd -3|zstd -q -3 -T1 -c @IN||$zd|$ver_zstd"
  local s1="" s0="" x1="" x0="" xl="xz -6"
  [[ $SLOW == t0 ]] || s1=1
  [[ $SLOW == t1 ]] || s0=1
  [[ $SLOW == t0 ]] && xl="xz -6 -T0"
  echo "zstd-19|zstd -19|${s1:+zstd -q -19 -T1 -c @IN}|${s0:+zstd -q -19 -T0 -c @IN}|$zd|$ver_zstd"
  echo "zstd-19-long27|zstd -19 --long=27|${s1:+zstd -q -19 --long=27 -T1 -c @IN}|${s0:+zstd -q -19 --long=27 -T0 -c @IN}|zstd -q -d --long=27 --no-asyncio -c @ARC|$ver_zstd"
  echo "lz4|lz4|lz4 -q -c @IN||lz4 -q -d -c @ARC|$ver_lz4"
  echo "xz-6|$xl|${s1:+xz -q -6 -T1 -c @IN}|${s0:+xz -q -6 -T0 -c @IN}|xz -q -d -T1 -c @ARC|$ver_xz"
  echo "bgzip|bgzip|bgzip -c -@1 @IN||bgzip -d -c -@1 @ARC|$ver_bgzip"
}

# expand CMD-TEMPLATE IN ARC -> sets array CMD
expand() {
  local t=${1//@IN/$2}
  t=${t//@ARC/$3}
  read -r -a CMD <<<"$t"
}
fsize() { stat -c %s "$1"; }
# Human-facing command (no tmp paths)
show() { local t=${1//@IN/FILE}; t=${t//@ARC/ARCHIVE}; t=${t//$TMP\//}; echo "$t"; }

# verify ARC DEC-TEMPLATE ORIG: decode to a file, compare byte for byte.
verify() {
  local arc=$1 dec=$2 orig=$3
  expand "$dec" "" "$arc"
  if ! "${CMD[@]}" >"$TMP/dec" 2>"$TMP/dec.err"; then
    VERR="decoder exited non-zero: $(show "$dec"): $(head -c 300 "$TMP/dec.err" | tr '\n\t|' '   ')"; rm -f "$TMP/dec"; return 1
  fi
  if ! cmp -s "$TMP/dec" "$orig"; then
    VERR="decoded output differs from the original ($(cmp "$TMP/dec" "$orig" 2>&1 | head -n1))"; rm -f "$TMP/dec"; return 1
  fi
  rm -f "$TMP/dec"
  return 0
}

# time_step OUTFILE MIN_RUNS MAX_RUNS MIN_TIME TEMPLATE IN ARC -> sets T_SEC T_RUNS T_CPU
time_step() {
  local out=$1 minr=$2 maxr=$3 mint=$4 res
  expand "$5" "$6" "$7"
  T_RC=0
  res=$("${TIMECMD[@]}" --out "$out" --min-runs "$minr" --max-runs "$maxr" --min-time "$mint" \
          --timeout "$STEP_TIMEOUT" -- "${CMD[@]}") || { T_RC=$?; return 1; }
  read -r T_SEC T_RUNS _ T_CPU <<<"$res"
}

step_fail() {
  if [[ $T_RC == 124 ]]; then echo "TIMEOUT: $1 ran over STEP_TIMEOUT=${STEP_TIMEOUT} s"
  else echo "FAIL: $1 exited with an error"; fi
}

status=0

bench_corpus() {
  local src=$1 name=$2
  local in=$TMP/$name orig sha t_start
  t_start=$(date +%s.%N)
  log "[$name] copying to tmpfs"
  cp "$src" "$in"
  orig=$(fsize "$in")
  sha=$(sha256sum "$in" | cut -d' ' -f1)
  local tsv=$OUTD/results-$name.tsv
  local load_start
  load_start=$(cut -d' ' -f1-3 /proc/loadavg)
  local rows=$TMP/rows.tsv
  : >"$rows"
  mkdir -p "$OUTD/cache"

  local id label c1 c0 dec ver reused=()
  while IFS='|' read -r id label c1 c0 dec ver; do
    [[ $id =~ $codec_re ]] || continue
    local cache=$OUTD/cache/$name.$id.tsv
    local key="$sha|$(show "$c1")|$(show "$c0")|$(show "$dec")|$ver|$cpu_model|$ncpu"
    if [[ $reuse == 1 && $id != wavelz-* && -f $cache && "$(head -n1 "$cache")" == "$key" ]]; then
      log "[$name] $label: reusing cached row ($cache)"
      reused+=("$label")
      # mark the row as reused: verified column (field 11) gets the cache date
      tail -n +2 "$cache" | awk -F'\t' -v OFS='\t' -v d="$(date -r "$cache" +%F)" '{ $11 = $11 " (cached " d ")"; print }' >>"$rows"
      continue
    fi
    local arc1=$TMP/arc1 arc0=$TMP/arc0 st=ok note="" verified="cmp" csize="" cs="" c0s="" ds="" druns="" dcpu="" ccpu=""
    rm -f "$arc1" "$arc0"
    # compression, 1 thread
    if [[ -n $c1 ]]; then
      log "[$name] $label: compress (1 thread)"
      if time_step "$arc1" 1 3 "$MIN_TIME" "$c1" "$in" ""; then
        cs=$T_SEC; ccpu=$T_CPU; csize=$(fsize "$arc1")
      else st=$(step_fail compressor); fi
    fi
    # compression, all cores
    if [[ $st == ok && -n $c0 ]]; then
      log "[$name] $label: compress (-T0)"
      if time_step "$arc0" 1 3 "$MIN_TIME" "$c0" "$in" ""; then
        c0s=$T_SEC
        [[ -n $csize ]] || csize=$(fsize "$arc0")
      else st=$(step_fail "compressor (-T0)"); fi
    fi
    local arc=$arc1
    [[ -n $c1 ]] || arc=$arc0
    # correctness: decode every archive made and compare with the original
    if [[ $st == ok ]]; then
      local a
      for a in "$arc1" "$arc0"; do
        [[ -f $a ]] || continue
        local which="-T1 archive"; [[ $a == "$arc0" ]] && which="-T0 archive"
        if ! verify "$a" "$dec" "$in"; then VERR=${VERR//$TMP\//}; st="FAIL: $VERR ($which)"; break; fi
        if [[ $id == wavelz-* ]]; then
          if "$W" -q -t "$a" 2>"$TMP/t.err"; then :; else
            st="FAIL: wavelz -t rejected the $which: $(head -c 200 "$TMP/t.err" | tr '\n\t|' '   ')"; break
          fi
        fi
      done
      [[ $id == wavelz-* && $st == ok ]] && verified="cmp, -t"
      if [[ $st == ok && -f $arc1 && -f $arc0 ]]; then
        local s0
        s0=$(fsize "$arc0")
        [[ $s0 == "$csize" ]] || note="-T0 output is $s0 bytes ($(python3 -c "print(f'{100*$s0/$orig:.2f}')") %), -T1 output $csize bytes"
      fi
    fi
    # decompression speed (output to /dev/null)
    if [[ $st == ok ]]; then
      log "[$name] $label: decompress (1 thread)"
      if time_step /dev/null "$DEC_RUNS" 10 "$DEC_MIN_TIME" "$dec" "" "$arc"; then
        ds=$T_SEC; druns=$T_RUNS; dcpu=$T_CPU
      else st=$(step_fail decompressor); fi
    fi
    if [[ $st == TIMEOUT* ]]; then
      log "###  [$name] $label: $st; row left without figures  ###"
    elif [[ $st != ok ]]; then
      loud "[$name] $label: $st"
      status=1
    else
      log "[$name] $label: $csize bytes ($(python3 -c "print(f'{100*$csize/$orig:.2f}')") %), compress ${cs:-–} s${c0s:+ (-T0 $c0s s)}, decompress $ds s (best of $druns), verified: $verified"
    fi
    local row
    row=$(printf '%s\t' "$id" "$label" "$csize" "$cs" "$c0s" "$ds" "$druns" "$ccpu" "$dcpu" "$st" "$verified" "$note" \
            "$(show "$c1")" "$(show "$c0")" "$(show "$dec")")
    row=${row%$'\t'}
    echo "$row" >>"$rows"
    if [[ $st == ok && $id != wavelz-* ]]; then
      { echo "$key"; echo "$row"; } >"$cache"
    fi
    rm -f "$arc1" "$arc0"
  done < <(codec_table)

  local skipped=""
  [[ $use_wavelz == 1 ]] || skipped="$wavelz_why"
  {
    printf '# corpus\t%s\n# bytes\t%s\n# sha256\t%s\n' "$name" "$orig" "$sha"
    printf '# date\t%s\n' "$(date '+%Y-%m-%d %H:%M %Z')"
    printf '# elapsed_s\t%s\n' "$(python3 -c "print(round($(date +%s.%N) - $t_start, 1))")"
    printf '# load_start\t%s\n# load_end\t%s\n' "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '# cpu\t%s (%s cores)\n' "$cpu_model" "$ncpu"
    printf '# skipped\t%s\n' "$skipped"
    printf '# reused\t%s\n' "$(IFS=,; echo "${reused[*]}")"
    [[ $use_wavelz == 1 ]] && printf '# ver_wavelz\t%s\n' "$ver_wavelz"
    printf '# ver_zstd\t%s\n# ver_lz4\t%s\n# ver_xz\t%s\n# ver_bgzip\t%s\n' "$ver_zstd" "$ver_lz4" "$ver_xz" "$ver_bgzip"
    printf 'id\tlabel\tcsize\tcomp_s\tcomp_t0_s\tdec_s\tdec_runs\tcomp_cpu_s\tdec_cpu_s\tstatus\tverified\tnote\tcomp_cmd\tcomp_t0_cmd\tdec_cmd\n'
    cat "$rows"
  } >"$tsv"
  python3 "$HERE/mkresults.py" table "$tsv" >/dev/null
  rm -f "$in"
  log "[$name] done in $(python3 -c "print(round($(date +%s.%N) - $t_start))") s -> ${tsv%.tsv}.md"
}

mkdir -p "$OUTD"
t0=$(date +%s)
for c in "${corpora[@]}"; do
  if [[ -f $DATA/$c ]]; then
    bench_corpus "$DATA/$c" "$c"
  elif [[ -f $c ]]; then
    bench_corpus "$c" "$(basename "$c")"
  else
    die "corpus '$c' not found (neither $DATA/$c nor a file); run bench/corpora.sh"
  fi
done
names=()
for c in "${corpora[@]}"; do names+=("$(basename "$c")"); done
python3 "$HERE/mkresults.py" assemble --cmd "$invocation" "${names[@]}" >/dev/null
log "all done in $(( $(date +%s) - t0 )) s; results in $HERE/RESULTS.md"
for c in "${corpora[@]}"; do cat "$OUTD/results-$(basename "$c").md" >&2; done
if [[ $status != 0 ]]; then
  loud "one or more codecs FAILED (see above and the tables); exit status 1"
  exit 1
fi
