#!/usr/bin/env bash
# Session 24, call 8: the workers' buffers in 2 MiB pages (wlz-g: the
# parser's tables and tokens, the block coder's streams, the anchor list)
# against wlz-f (git 368ca08), gcide and Illumina, best-of-5 alternated
# rounds beside zstd -3, twice; RSS and system time of each at T16.
set -u
. bench/host/issue13-r24/ab.sh wlz-f wlz-g 2
