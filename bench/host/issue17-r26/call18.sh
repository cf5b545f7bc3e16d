#!/bin/bash
# Session 26, call 18 (one H200): the clustering rule limited to parts of
# lengths and offsets (literals of typed arrays need it), and the parse's
# L1 prefetch of the finder's next lines, against git 16f9d61: call8.sh's
# runs, gcb-base now 16f9d61.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
