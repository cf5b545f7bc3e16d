#!/bin/bash
# Session 26, call 16 (one H200): gc_off_low by compares instead of a loop,
# and the parse's backward extension four bytes at a time, against git
# dd8a1c9: call8.sh's runs, gcb-base now dd8a1c9.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
