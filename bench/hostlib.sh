# hostlib.sh - timing helpers shared by the host benchmark scripts
# (sourced, not run).

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $* }"; }

# best_of N OUT CMD...: the best wall time of N runs of CMD, stdout to OUT.
best_of() {
  local reps=$1 out=$2 b=1000000000 t0 t1 d
  shift 2
  for _ in $(seq "$reps"); do
    t0=$(now); "$@" > "$out"; t1=$(now)
    d=$(calc "$t1 - $t0"); b=$(calc "($d < $b) ? $d : $b")
  done
  echo "$b"
}
