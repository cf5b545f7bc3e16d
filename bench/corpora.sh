#!/usr/bin/env bash
# Build the wavelz benchmark corpora from Debian packages into bench/data/.
#
#   bench/corpora.sh            build missing corpora (idempotent), print table
#   bench/corpora.sh --pack     also write bench/data/<corpus>.zst (zstd -19 -T0)
#   bench/corpora.sh --unpack   restore corpora from bench/data/<corpus>.zst
#
# Corpora:
#   illumina.fastq  Illumina FASTQ reads (trim-galore, gasic-examples,
#                   seqprep-data, velvet-tests, seqkit-examples)
#   pacbio.fastq    PacBio reads (wtdbg2-examples: pacbio_filtered.fastq)
#   gcide.txt       GNU Collaborative International Dictionary (dict-gcide)
#   cldr.tar        Unicode CLDR core data (unicode-cldr-core), reproducible tar
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=${WAVELZ_BENCH_DATA:-$HERE/data}
CORPORA=(illumina.fastq pacbio.fastq gcide.txt cldr.tar)

die() { echo "corpora.sh: error: $*" >&2; exit 1; }
log() { echo "corpora.sh: $*" >&2; }

mode=build
case "${1:-}" in
  "") ;;
  --pack) mode=pack ;;
  --unpack) mode=unpack ;;
  -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
  *) die "unknown option '$1' (use --pack, --unpack or nothing)" ;;
esac

mkdir -p "$DATA"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wavelz-corpora.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

need_tool() {  # need_tool BINARY DEBIAN-PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  log "installing $2 (for $1)"
  apt-get install -y -q "$2" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "$2" >/dev/null; } \
    || die "cannot install $2"
}

apt_updated=0
# fetch PKG: download the .deb and extract it; prints the extraction root.
fetch() {
  local pkg=$1 dir="$WORK/pkg-$1"
  if [[ -d $dir ]]; then echo "$dir"; return; fi
  mkdir -p "$dir/deb"
  if ! (cd "$dir/deb" && apt-get download -q "$pkg" >/dev/null 2>&1); then
    if [[ $apt_updated == 0 ]]; then
      log "apt-get download $pkg failed; running apt-get update"
      apt-get update -q >/dev/null || die "apt-get update failed"
      apt_updated=1
    fi
    (cd "$dir/deb" && apt-get download -q "$pkg" >/dev/null) || die "cannot download package $pkg"
  fi
  local deb
  deb=$(ls "$dir"/deb/*.deb | head -n1)
  log "extracting $(basename "$deb")"
  dpkg-deb -x "$deb" "$dir/root"
  echo "$dir/root"
}

# find_one ROOT PATTERN: exactly one file named PATTERN (or PATTERN.gz) under ROOT.
find_matches() {
  local root=$1; shift
  local args=() p
  for p in "$@"; do args+=(-o -name "$p" -o -name "$p.gz"); done
  find "$root" -type f \( "${args[@]:1}" \) | LC_ALL=C sort
}

# cat_maybe_gz FILE...: write (decompressed) contents to stdout.
cat_maybe_gz() {
  local f
  for f in "$@"; do
    case "$f" in
      *.gz) gzip -dc "$f" ;;
      *) cat "$f" ;;
    esac
  done
}

build_illumina() {
  local out=$1 tmp="$1.part" root files=()
  : >"$tmp"
  # trim-galore: test data in /usr/share/doc/trim-galore/examples (names may vary).
  root=$(fetch trim-galore)
  mapfile -t files < <(find_matches "$root" 'illumina_100K*.fastq' 'nextera_100K*.fastq' 'smallRNA_100K*.fastq' \
                                          'illumina_100K*.fq' 'nextera_100K*.fq' 'smallRNA_100K*.fq')
  [[ ${#files[@]} -ge 3 ]] || die "trim-galore: expected 3 example FASTQ files, found ${#files[@]}: ${files[*]:-none}"
  add_files "${files[@]}"
  root=$(fetch gasic-examples)
  mapfile -t files < <(find_matches "$root" 'SRR059298_subset*')
  [[ ${#files[@]} -ge 1 ]] || die "gasic-examples: no reads/SRR059298_subset* found"
  add_files "${files[@]}"
  root=$(fetch seqprep-data)
  mapfile -t files < <(find_matches "$root" 'multiplex_bad_contam_1*' 'multiplex_bad_contam_2*')
  [[ ${#files[@]} -ge 2 ]] || die "seqprep-data: expected multiplex_bad_contam_1/2, found ${#files[@]}"
  add_files "${files[@]}"
  root=$(fetch velvet-tests)
  mapfile -t files < <(find_matches "$root" 'reads.fq')
  [[ ${#files[@]} -ge 1 ]] || die "velvet-tests: no reads.fq.gz found"
  add_files "${files[@]}"
  root=$(fetch seqkit-examples)
  mapfile -t files < <(find_matches "$root" 'Illimina1.8.fq')
  [[ ${#files[@]} -ge 1 ]] || die "seqkit-examples: no Illimina1.8.fq.gz found"
  add_files "${files[@]}"
  mv "$tmp" "$out"
}
add_files() {  # appends to $tmp (dynamic scope from build_illumina)
  local f
  for f in "$@"; do
    log "  + ${f#"$WORK"/pkg-} ($(stat -c %s "$f") bytes on disk)"
    cat_maybe_gz "$f" >>"$tmp"
  done
}

build_pacbio() {
  local out=$1 root tgz member
  root=$(fetch wtdbg2-examples)
  tgz=$(find "$root" -type f -name 'selfSampleData.tar.gz' | head -n1)
  [[ -n $tgz ]] || die "wtdbg2-examples: selfSampleData.tar.gz not found"
  member=$(tar -tzf "$tgz" | grep -E '(^|/)pacbio_filtered\.fastq(\.gz)?$' | head -n1) \
    || die "wtdbg2-examples: pacbio_filtered.fastq not in $tgz"
  log "  + $(basename "$tgz"):$member"
  case "$member" in
    *.gz) tar -xzOf "$tgz" "$member" | gzip -dc >"$out.part" ;;
    *) tar -xzOf "$tgz" "$member" >"$out.part" ;;
  esac
  mv "$out.part" "$out"
}

build_gcide() {
  local out=$1 root dz
  root=$(fetch dict-gcide)
  dz=$(find "$root" -type f -name 'gcide.dict.dz' | head -n1)
  [[ -n $dz ]] || die "dict-gcide: gcide.dict.dz not found"
  log "  + ${dz#"$root"}"
  gzip -dc <"$dz" >"$out.part"   # dictzip is gzip with an extra header field
  mv "$out.part" "$out"
}

build_cldr() {
  local out=$1 root
  root=$(fetch unicode-cldr-core)
  [[ -d $root/usr/share/unicode/cldr ]] || die "unicode-cldr-core: /usr/share/unicode/cldr missing"
  log "  + /usr/share/unicode/cldr ($(find "$root/usr/share/unicode/cldr" -type f | wc -l) files)"
  # Reproducible: fixed order, mtime, owner; no PAX atime/ctime headers.
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
      --format=gnu -C "$root/usr/share/unicode" -cf "$out.part" cldr
  mv "$out.part" "$out"
}

build_one() {
  local name=$1 out="$DATA/$1"
  if [[ -s $out ]]; then log "$name: exists, skipping"; return; fi
  log "$name: building"
  case "$name" in
    illumina.fastq) build_illumina "$out" ;;
    pacbio.fastq) build_pacbio "$out" ;;
    gcide.txt) build_gcide "$out" ;;
    cldr.tar) build_cldr "$out" ;;
  esac
}

table() {
  printf '%-16s %14s  %s\n' corpus bytes sha256
  local name f
  for name in "${CORPORA[@]}"; do
    f="$DATA/$name"
    if [[ -f $f ]]; then
      printf '%-16s %14s  %s\n' "$name" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
    else
      printf '%-16s %14s  %s\n' "$name" "-" "(missing)"
    fi
  done
}

case $mode in
  build)
    command -v apt-get >/dev/null || die "apt-get not found (Debian/Ubuntu required to build corpora)"
    command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
    for name in "${CORPORA[@]}"; do build_one "$name"; done
    ;;
  pack)
    need_tool zstd zstd
    for name in "${CORPORA[@]}"; do build_one "$name"; done
    for name in "${CORPORA[@]}"; do
      f="$DATA/$name"
      if [[ -s $f.zst && $f.zst -nt $f ]]; then log "$name.zst: up to date"; continue; fi
      log "$name.zst: packing (zstd -19 -T0)"
      zstd -q -f -19 -T0 "$f" -o "$f.zst.part" && mv "$f.zst.part" "$f.zst"
    done
    ls -l "$DATA"/*.zst
    ;;
  unpack)
    need_tool zstd zstd
    for name in "${CORPORA[@]}"; do
      f="$DATA/$name"
      if [[ -s $f ]]; then log "$name: exists, skipping"; continue; fi
      [[ -f $f.zst ]] || die "$name.zst not found in $DATA"
      log "$name: unpacking"
      zstd -q -d -f "$f.zst" -o "$f.part" && mv "$f.part" "$f"
    done
    ;;
esac
table
