#!/usr/bin/env bash
# install_test.sh - `cmake --install` into a scratch prefix, then use what
# was installed the way a user would:
#   1. the expected files are there: wavelz, the unwavelz and wavelzcat links
#      to it, wavelz.h, libwavelz.a, wavelz.pc, the CMake package, and none
#      of the package files names the source or build tree;
#   2. the installed wavelz, unwavelz and wavelzcat round trip a file;
#   3. tests/install_consumer builds against the prefix with
#      find_package(wavelz CONFIG) and round trips a buffer through the API;
#   4. the same program builds with `cc $(pkg-config --cflags --libs wavelz)`
#      and runs (skipped, saying so, when pkg-config is not installed).
#
# usage: install_test.sh --cmake=CMAKE --build=BUILD_DIR [--config=CONFIG]
#          --cc=CC [--cflags=FLAGS] [--ldflags=FLAGS] --bindir=DIR
#          --includedir=DIR --libdir=DIR
# (the DIRs relative to the prefix, as GNUInstallDirs names them).
set -u

CMAKE=cmake BUILD='' CONFIG='' CC_=cc CFLAGS_='' LDFLAGS_='' BINDIR=bin INCLUDEDIR=include LIBDIR=lib
for arg; do
  case $arg in
    --cmake=*) CMAKE=${arg#*=} ;;
    --build=*) BUILD=${arg#*=} ;;
    --config=*) CONFIG=${arg#*=} ;;
    --cc=*) CC_=${arg#*=} ;;
    --cflags=*) CFLAGS_=${arg#*=} ;;
    --ldflags=*) LDFLAGS_=${arg#*=} ;;
    --bindir=*) BINDIR=${arg#*=} ;;
    --includedir=*) INCLUDEDIR=${arg#*=} ;;
    --libdir=*) LIBDIR=${arg#*=} ;;
    *) echo "install_test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ -n "$BUILD" ] || { echo "install_test.sh: --build is required" >&2; exit 2; }
for d in "$BINDIR" "$INCLUDEDIR" "$LIBDIR"; do
  case $d in /*) echo "install_test.sh: '$d' is absolute: it would install outside the scratch prefix" >&2; exit 2 ;; esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)

T=$(mktemp -d "${TMPDIR:-/tmp}/wlz-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
P=$T/prefix

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }
# quiet LOG CMD...: runs CMD with its output in LOG, shown if it fails.
quiet() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "--- $* failed:" >&2
    cat "$log" >&2
    return 1
  fi
}

# ------------------------------------------------------------------ install
cfg=()
[ -n "$CONFIG" ] && cfg=(--config "$CONFIG")
quiet "$T/install.log" "$CMAKE" --install "$BUILD" --prefix "$P" ${cfg[@]+"${cfg[@]}"} || {
  echo "FAIL: cmake --install" >&2
  exit 1
}

B=$P/$BINDIR L=$P/$LIBDIR
stage=$fails
[ -f "$B/wavelz" ] && [ -x "$B/wavelz" ] || fail "$BINDIR/wavelz missing or not executable"
for a in unwavelz wavelzcat; do
  if [ ! -L "$B/$a" ]; then
    fail "$BINDIR/$a is not a symbolic link"
  elif [ "$(readlink "$B/$a")" != wavelz ]; then
    fail "$BINDIR/$a points at '$(readlink "$B/$a")', not wavelz"
  fi
done
cmp -s "$P/$INCLUDEDIR/wavelz.h" "$SRC/include/wavelz.h" || fail "$INCLUDEDIR/wavelz.h missing or not the source's"
[ -f "$L/libwavelz.a" ] || fail "$LIBDIR/libwavelz.a missing"
PC=$L/pkgconfig/wavelz.pc
if [ -f "$PC" ]; then
  grep -qx "prefix=$P" "$PC" || fail "wavelz.pc does not name the prefix installed to: $(grep '^prefix=' "$PC")"
  libs=$(grep '^Libs:' "$PC")
  for l in -lwavelz -lzstd -lpthread; do
    case " $libs " in *" $l "*) ;; *) fail "wavelz.pc: '$libs' lacks $l" ;; esac
  done
else
  fail "$LIBDIR/pkgconfig/wavelz.pc missing"
fi
CM=$L/cmake/wavelz
for f in wavelzConfig.cmake wavelzConfigVersion.cmake wavelzTargets.cmake; do
  [ -f "$CM/$f" ] || fail "$LIBDIR/cmake/wavelz/$f missing"
done
# The package must stand on its own once the trees are gone.
case $P in
  "$SRC"/* | "$BUILD"/*) echo "note: the scratch prefix is inside the trees; not checking for their paths" ;;
  *) if grep -l -F -e "$SRC" -e "$BUILD" "$CM"/*.cmake "$PC" 2>/dev/null; then
       fail "installed package files name the source or build tree (above)"
     fi ;;
esac
# Every installed file is in the manifest (what an uninstall removes).
for f in "$B/wavelz" "$B/unwavelz" "$B/wavelzcat" "$L/libwavelz.a" "$PC" "$CM/wavelzConfig.cmake"; do
  grep -qxF "$f" "$BUILD/install_manifest.txt" 2>/dev/null || fail "$f not in install_manifest.txt"
done
[ $fails -eq $stage ] && pass "installed files"

# -------------------------------------------- the installed command line
stage=$fails
mkdir "$T/cli"
for ((i = 0; i < 3000; i++)); do echo "line $i: ACGTACGTTTGACCA $((i % 17))"; done >"$T/cli/f"
cp "$T/cli/f" "$T/cli/f.orig"
(
  cd "$T/cli" || exit 1
  "$B/wavelz" -q f </dev/null || { echo "FAIL: installed wavelz cannot compress" >&2; exit 1; }
  rm f
  "$B/unwavelz" -q f.wlz </dev/null || { echo "FAIL: unwavelz f.wlz failed" >&2; exit 1; }
  cmp -s f f.orig || { echo "FAIL: unwavelz: output differs" >&2; exit 1; }
  "$B/wavelzcat" f.wlz </dev/null | cmp -s - f.orig || { echo "FAIL: wavelzcat: output differs" >&2; exit 1; }
) || fail "installed command line"
[ $fails -eq $stage ] && pass "installed wavelz, unwavelz and wavelzcat round trip a file"

# ------------------------------------- consumer: find_package(wavelz CONFIG)
stage=$fails
# Only the scratch prefix is searched: no package registry, no system
# prefixes holding another wavelz.
if quiet "$T/cmake.log" "$CMAKE" -S "$HERE/install_consumer" -B "$T/consumer-cmake" \
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$CC_" \
     -DCMAKE_C_FLAGS="$CFLAGS_" -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS_" \
     -DCMAKE_PREFIX_PATH="$P" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
     -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF; then
  dir=$(sed -n 's/^wavelz_DIR:[A-Z]*=//p' "$T/consumer-cmake/CMakeCache.txt")
  [ "$dir" = "$CM" ] || fail "find_package found wavelz in '$dir', not $CM"
  if quiet "$T/build.log" "$CMAKE" --build "$T/consumer-cmake"; then
    "$T/consumer-cmake/consumer" || fail "consumer built with CMake: exit $?"
  else
    fail "consumer does not build with find_package(wavelz CONFIG)"
  fi
else
  fail "consumer: find_package(wavelz CONFIG) against $P"
fi
[ $fails -eq $stage ] && pass "consumer built with find_package(wavelz CONFIG)"

# -------------------------------------------------- consumer: pkg-config
if command -v pkg-config >/dev/null 2>&1; then
  stage=$fails
  export PKG_CONFIG_PATH="$L/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  got=$(pkg-config --variable=prefix wavelz 2>&1)
  [ "$got" = "$P" ] || fail "pkg-config finds wavelz with prefix '$got', not $P"
  if flags=$(pkg-config --cflags --libs wavelz); then
    # shellcheck disable=SC2086  # the flags are words
    if quiet "$T/cc.log" "$CC_" $CFLAGS_ -o "$T/consumer-pc" "$HERE/install_consumer/consumer.c" $flags $LDFLAGS_; then
      "$T/consumer-pc" || fail "consumer built with pkg-config: exit $?"
    else
      fail "consumer does not build with: $CC_ consumer.c $flags"
    fi
  else
    fail "pkg-config --cflags --libs wavelz"
  fi
  [ $fails -eq $stage ] && pass "consumer built with pkg-config ($flags)"
else
  echo "SKIPPED: the pkg-config half (pkg-config is not installed; apt-get install pkg-config)"
fi

if [ $fails -ne 0 ]; then
  echo "$fails failure(s)" >&2
  exit 1
fi
echo "install_test: all passed"
