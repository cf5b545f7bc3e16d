#!/bin/bash
# Session 22, call 5 (one H200 machine): compression speed, best of 5 alternated rounds, of
# git 47662c7 (wavelz-prev: level 4's new row) against main after it (wavelz-new, git 2b96e7d:
# level 4's scan made cheaper, output identical; level 1 on FASTQ-like blocks: 2^16 entries and
# a step that grows from the first literal; the far prepass fetching 64 anchors ahead),
# levels 1 and 3, T1 and T16; then the new archives through the GPU decoder
# (wavelz-gpu: the CUDA build of 2b96e7d), content compared.  Carry [".dev/s22f", ".dev/keep"].
set -u
. bench/host_call_corpora.sh "$(cd "$(dirname "$0")" && pwd)"
ab_recheck $B/wavelz-prev $B/wavelz-new
