#!/bin/sh
# check_symbols.sh - every symbol libwavelz.a defines globally must start
# with wlz_: a static library's internal functions are linked into users'
# programs, where any other name can collide (hidden visibility does not
# help in a .a).
#
# usage: check_symbols.sh LIBRARY [NM]
set -u
lib=$1
nm=${2:-nm}

[ -f "$lib" ] || { echo "no such library: $lib" >&2; exit 1; }
# nm -g --defined-only prints "ADDR TYPE NAME" per symbol and "member.o:"
# headers; keep the names.
syms=$("$nm" -g --defined-only "$lib") || { echo "$nm failed on $lib" >&2; exit 1; }
names=$(printf '%s\n' "$syms" | awk 'NF >= 3 { print $NF }')
[ -n "$names" ] || { echo "no global symbols found in $lib" >&2; exit 1; }
bad=$(printf '%s\n' "$names" | grep -v '^wlz_' || true)
if [ -n "$bad" ]; then
  echo "symbols without the wlz_ prefix in $lib:" >&2
  # Name the object file each offender comes from.
  printf '%s\n' "$syms" | awk '/:$/ { obj = $0 } NF >= 3 && $NF !~ /^wlz_/ { print "  " obj " " $NF }' >&2
  exit 1
fi
echo "$(printf '%s\n' "$names" | wc -l) global symbols, all wlz_"
