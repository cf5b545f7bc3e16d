#!/bin/bash
# Session 26, call 10 (one H200): the parse stepping over 8 literal
# positions at once where none has a match (gc_lits8) against the build
# before (git c523b24): call8.sh's runs, gcb-base now c523b24.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
