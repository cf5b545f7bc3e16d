#!/bin/bash
# Session 27, call 9 (one H200): k_level_init building each chunk's map in
# shared memory, then storing it whole ("new", working tree on git
# a30e73b), against git a30e73b ("base"), with call7.sh's runs, test,
# checks and compute-sanitizer (racecheck of k_level_init).
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz, numgen; il.wlz, gc20.wlz)
RACE="k_level_init" exec bash "$(dirname "$0")/call7.sh"
