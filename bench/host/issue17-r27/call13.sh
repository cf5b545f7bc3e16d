#!/bin/bash
# Session 27, call 13 (one H200): k_find a thread GC_FIND_RUN = 4
# positions, each handing its match lengths to the next (gc_carry), so
# that inside a repeat most are not measured again ("new", working tree on
# git a98d988), against git a98d988 ("base"), with call7.sh's runs, test,
# checks and memcheck (k_find uses no shared memory: no racecheck).
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz, numgen; il.wlz, gc20.wlz)
PROF="find|parse" RACE=" " exec bash "$(dirname "$0")/call7.sh"
