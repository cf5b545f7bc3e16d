#!/bin/bash
# Session 26, call 13 (one H200): the finder skipping candidates that
# could not score higher even at the longest length it measures, against
# git f97e49c: call8.sh's runs, gcb-base now f97e49c.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
