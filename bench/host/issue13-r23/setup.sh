# setup.sh DIR - sourced first by this session's call scripts: $D the
# carried folder, $B its binaries, $T scratch space in tmpfs, $O the
# output folder under $OUT.
D=$1
B=$D/bin; chmod +x "$B"/*
T=/dev/shm/s23; mkdir -p "$T"
O=${OUT:-/tmp}/$(basename "$D"); mkdir -p "$O"
