#!/bin/bash
# Session 26, call 12 (one H200): k_code's canonical codes a thread a
# symbol (gc_cta_table_codes) against git c523b24 (a thread a table):
# call8.sh's runs, gcb-base now c523b24.
#   carry: .dev/s26 (bins.tar.xz: gcb-base, gcb-new, gpu_compress, wavelz; il.wlz, gc20.wlz)
exec bash "$(dirname "$0")/call8.sh"
