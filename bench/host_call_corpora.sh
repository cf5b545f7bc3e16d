# host_call_corpora.sh DIR - sourced first by a device call that times the
# compressor (bench/host_cspeed_ab.sh): DIR's bins.tar.xz unpacked into $B
# (put first on PATH), and in $C, as the A/B script wants them (zstd -1),
# the Illumina set, gcide and gc8 (its first 8,000,000 bytes), from the
# carried .dev/keep.  gpu_recheck WAVELZ then decodes each corpus at
# levels 1 and 3, as WAVELZ writes it, with wavelz-gpu, into $OUT/gpu.txt;
# ab_recheck (below) times two builds first.
B=/tmp/b1; mkdir -p $B && tar xJf "$1/bins.tar.xz" -C $B
export PATH=$B:$PATH
C=/dev/shm/c; mkdir -p $C
xz -dc .dev/keep/illumina.fastq.xz | zstd -1 -q -o $C/illumina.fastq.zst
zstd -q -dc --long=31 .dev/keep/gcide.txt.zst | zstd -1 -q -o $C/gcide.txt.zst
zstd -q -dc $C/gcide.txt.zst | head -c 8000000 | zstd -1 -q -o $C/gc8.zst
gpu_recheck() {
  local f l r t
  for f in gcide.txt gc8 illumina.fastq; do
    zstd -q -dc $C/$f.zst > $C/$f
    for l in 1 3; do
      "$1" -q -$l -T0 -c $C/$f > $C/a.wlz
      wavelz-gpu -q -dc --gpu $C/a.wlz | cmp - $C/$f && r=same || r=DIFFERS
      wavelz-gpu -q -t --gpu $C/a.wlz && t=ok || t=FAILED
      echo "GPU decode of $f -$l ($(stat -c %s $C/a.wlz) bytes): $r as the input, -t --gpu $t" | tee -a $OUT/gpu.txt
    done
  done
}
# ab_recheck OLD NEW: levels 1 and 3 of OLD against NEW on the three
# corpora (best of 5 alternated rounds, $OUT/cspeed.md), then gpu_recheck NEW.
ab_recheck() {
  ZSTD=$B/zstd REPS=5 bash bench/host_cspeed_ab.sh $OUT/cspeed.md "1 3" "$1" "$2" -- \
	$C/gcide.txt.zst $C/gc8.zst $C/illumina.fastq.zst
  cat $OUT/cspeed.md
  gpu_recheck "$2"
}
