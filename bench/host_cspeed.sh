#!/usr/bin/env bash
# Compression speed at wavelz levels 1, 2 and 3 on one thread and on all
# threads, beside zstd -3 in the same job (issue 13's speed points): the
# one-build case of host_cspeed_ab.sh.
#
#   bench/host_cspeed.sh DIR OUT.md CORPUS.zst...
#
# DIR holds the wavelz and zstd binaries.  REPS (default 2) as there.
set -euo pipefail
bin=$1; out=$2; shift 2
ZSTD=${ZSTD:-$bin/zstd} REPS=${REPS:-2} exec "$(dirname "$0")/host_cspeed_ab.sh" "$out" "${LEVELS:-1 2 3}" "$bin/wavelz" -- "$@"
