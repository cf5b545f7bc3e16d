# gpu_round_env.sh - sourced by the GPU round scripts: nvCOMP (a bench
# comparator) unpacked from .dev/nvcomp/libnvcomp.so.6.xz where it was
# carried, on the library path; the machine described in OUT/gpu.txt and
# OUT/cpu.txt.
#   gpu_round_env OUT
gpu_round_env() {
	nvlib=.dev/nvcomp/lib
	if [ ! -s "$nvlib/libnvcomp.so.6" ] && [ -s .dev/nvcomp/libnvcomp.so.6.xz ]; then
		mkdir -p "$nvlib"
		xz -dc .dev/nvcomp/libnvcomp.so.6.xz > "$nvlib/libnvcomp.so.6"
	fi
	export LD_LIBRARY_PATH=$PWD/$nvlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$1/gpu.txt" || true
	lscpu | grep -E "Model name|^CPU\(s\)" > "$1/cpu.txt" || true
}
