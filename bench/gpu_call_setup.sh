# gpu_call_setup.sh - sourced first by a device call's script (saved with
# its results under bench/host/), so that the calls share their setup:
#   . bench/gpu_call_setup.sh DIR
# DIR's bins.tar.xz unpacked into $B (put first on PATH), a scratch folder
# $T in tmpfs, the Illumina corpus as $T/il.fq (DIR's illumina.fastq.xz,
# else .dev/keep's), and nvCOMP's library where DIR carries it
# (libnvcomp.so.6.xz, for gpu_round_env.sh).
B=/tmp/wlz-bin
mkdir -p "$B" && tar xJf "$1/bins.tar.xz" -C "$B"
export PATH=$B:$PATH
T=/dev/shm/wlz-call
mkdir -p "$T"
for f in "$1/illumina.fastq.xz" .dev/keep/illumina.fastq.xz; do
	if [ -s "$f" ]; then
		xz -dc "$f" > "$T/il.fq"
		break
	fi
done
if [ -s "$1/libnvcomp.so.6.xz" ]; then
	mkdir -p .dev/nvcomp
	cp "$1/libnvcomp.so.6.xz" .dev/nvcomp/
fi
