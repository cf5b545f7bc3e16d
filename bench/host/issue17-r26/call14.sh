#!/bin/bash
# Session 26, call 14 (one H200): k_assemble and k_write_raw over 16 CTAs a
# block, and k_write_meta a warp a part, against git f97e49c: call8.sh's
# runs, gcb-base now f97e49c.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
