#!/bin/bash
# Prepared in session 26, not run (its device time ran out): the kept
# clustering rule (non-literal parts of over 160 symbols, at most 4
# tables) against the first rule (none), with call8.sh's runs and test.
# Build gcb-base from git 4e22b58 and gcb-new from git 25f7a1c or later.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
