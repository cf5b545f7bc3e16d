#!/bin/bash
# Session 26, call 9 (one H200): call8.sh's runs again, gcb-new now built
# with no clustering of parts where more than 160 symbols occur
# (GC_CLUSTER_KMAX) beside the 112 KB of shared memory a CTA.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
