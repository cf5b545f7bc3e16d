# ab.sh "ARGS" bin1 bin2 ... : max of 7 alternated runs each
args=$1; shift
declare -A best
for r in 1 2 3 4 5 6 7; do for b in "$@"; do v=$(taskset -c 1 $b/hb /tmp/il40 $args | awk '{print $3}'); [[ -z ${best[$b]} || $v -gt ${best[$b]} ]] && best[$b]=$v; done; done
for b in "$@"; do echo "$args $b ${best[$b]}"; done
