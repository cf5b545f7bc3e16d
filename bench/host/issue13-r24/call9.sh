#!/usr/bin/env bash
# Session 24, call 9: the workers' buffers in 2 MiB pages (wlz-h: the
# parser's tables and tokens and the anchor list; the block coder's
# streams stay in malloc's pages) against wlz-f (git 368ca08), gcide and
# Illumina, best-of-5 alternated rounds beside zstd -3, three times; RSS
# and system time of each at T16.
set -u
. bench/host/issue13-r24/ab.sh wlz-f wlz-h 3
