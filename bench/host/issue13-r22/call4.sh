#!/bin/bash
# Session 22, call 4 (one H200 machine): compression speed, best of 5 alternated rounds, of
# main before level 4's new row (wavelz-prev, git e739a30: level 1's 8-byte hashes and the
# page zeroing merged) and after it (wavelz-new, git 47662c7: level 4 hashes 6 bytes into
# 2^18 entries in 2 ways, far anchors one in 8 searched 8 deep, 8-byte table 2^19), levels 1
# and 3 (gcide and gc8: level 4), T1 and T16; then the new archives through the GPU decoder
# (wavelz-gpu: the CUDA build of 47662c7), content compared.  Carry [".dev/s22e", ".dev/keep"].
set -u
. bench/host_call_corpora.sh "$(cd "$(dirname "$0")" && pwd)"
ab_recheck $B/wavelz-prev $B/wavelz-new
