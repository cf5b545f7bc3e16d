# traced.sh - sourced by calls 3, 4 and 7: $B, $C and $C/gcide.txt (and
# its .zst) from the carried .dev/s24, and traced BIN...: each BIN-trace
# build (trace.diff or trace-f.diff) on gcide at the default, once on one
# thread and three times on 16, its trace in $OUT/tr-BIN-Tt-run.txt and
# its times in $OUT/time.txt.
D=.dev/s24; B=$D/bin; chmod +x $B/*
C=/dev/shm/c; mkdir -p $C
$B/zstd -q -dc --long=31 $D/gcide.txt.zst > $C/gcide.txt
$B/zstd -q -f -1 $C/gcide.txt -o $C/gcide.txt.zst
r=0
traced() {
  local b t
  for b in "$@"; do
    for t in 1 16 16 16; do
      r=$((r+1))
      TIMEFORMAT="$b T$t run $r: %R real %U user %S sys"
      { time WLZ_TRACE=$OUT/tr-$b-T$t-$r.txt $B/$b-trace -q -3 -T$t -c $C/gcide.txt > $C/a.wlz; } 2>>$OUT/time.txt
    done
  done
}
