#!/bin/bash
# Session 27, call 8 (one H200): the lanes' bits stored a word at a time
# once aligned, and the token bytes written a warp a chunk, a lane a token
# ("new", working tree on git 751fbcf), against git 751fbcf ("base"),
# with call7.sh's runs, test, checks and compute-sanitizer (racecheck of
# k_write_lanes and k_chunk_write).
#   carry: .dev/s27 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz, numgen; il.wlz, gc20.wlz)
RACE="k_write_lanes k_chunk_write" exec bash "$(dirname "$0")/call7.sh"
