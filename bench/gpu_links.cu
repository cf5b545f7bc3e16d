/*
 * gpu_links - what the host's links allow a multi-GPU decode host to host:
 *   gpu_links GIB [REPS]
 * Plain copies, no decoding: GIB GiB between one pinned host buffer and
 * the GPUs, down (device to host) and up, first on GPU 0 alone, then on
 * every GPU at once, each GPU its own interleaved 8 MiB groups of the
 * one buffer (as the split sends content back: a copy a group, or one
 * strided 2D copy of them all) or its own contiguous share.  A host-to-host decode on n GPUs cannot beat the n-GPU row
 * against the one-GPU row; CSV on stdout, best of REPS.
 */
#include "gpu_util.h"

struct gpu {
	uint8_t *d;
	cudaStream_t s;
};

/* Seconds for the copies of GPUs [0, ng): interleaved groups of unit
 * bytes (GPU k takes groups k, k+ng, ...; two_d: as one strided copy,
 * whole groups only), or contiguous shares when unit is 0. */
static double copy_all(std::vector<gpu> &g, int ng, uint8_t *h, size_t bytes, size_t unit, bool down, bool two_d)
{
	const double t0 = bench_now();
	for (int k = 0; k < ng; k++) {
		CK(cudaSetDevice(k));
		if (!unit) {
			const size_t share = bytes / ng, a = share * k, n = k == ng - 1 ? bytes - a : share;
			CK(down ? cudaMemcpyAsync(h + a, g[k].d + a, n, cudaMemcpyDeviceToHost, g[k].s)
				: cudaMemcpyAsync(g[k].d + a, h + a, n, cudaMemcpyHostToDevice, g[k].s));
			continue;
		}
		if (two_d) {
			const size_t rows = bytes / (unit * ng), a = unit * k;
			CK(down ? cudaMemcpy2DAsync(h + a, unit * ng, g[k].d + a, unit * ng, unit, rows,
						    cudaMemcpyDeviceToHost, g[k].s)
				: cudaMemcpy2DAsync(g[k].d + a, unit * ng, h + a, unit * ng, unit, rows,
						    cudaMemcpyHostToDevice, g[k].s));
			continue;
		}
		for (size_t a = unit * k; a < bytes; a += unit * ng) {
			const size_t n = std::min(unit, bytes - a);
			CK(down ? cudaMemcpyAsync(h + a, g[k].d + a, n, cudaMemcpyDeviceToHost, g[k].s)
				: cudaMemcpyAsync(g[k].d + a, h + a, n, cudaMemcpyHostToDevice, g[k].s));
		}
	}
	for (int k = 0; k < ng; k++) {
		CK(cudaSetDevice(k));
		CK(cudaStreamSynchronize(g[k].s));
	}
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gpu_links GIB [REPS]\n");
		return 2;
	}
	const size_t bytes = (size_t)(atof(argv[1]) * (double)(1ull << 30));
	const int reps = argc > 2 ? atoi(argv[2]) : 3;
	int ng = 0;
	CK(cudaGetDeviceCount(&ng));
	uint8_t *h;
	CK(cudaHostAlloc((void **)&h, bytes, cudaHostAllocPortable));
	memset(h, 1, bytes);
	std::vector<gpu> g(ng);
	for (int k = 0; k < ng; k++) {
		CK(cudaSetDevice(k));
		CK(cudaMalloc((void **)&g[k].d, bytes));
		CK(cudaMemset(g[k].d, 2, bytes));
		CK(cudaStreamCreateWithFlags(&g[k].s, cudaStreamNonBlocking));
	}
	printf("direction,gpus,layout,bytes,gbps,vs_one_gpu\n");
	for (bool down : {true, false}) {
		double one = 0;
		for (int n : {1, ng}) {
			for (int lay = 0; lay < 3; lay++) {
				const size_t unit = lay < 2 ? (size_t)8 << 20 : 0;
				if (n == 1 && unit)
					continue;
				/* (the strided copy moves whole rows of groups only) */
				const size_t moved = lay == 1 ? bytes / (unit * n) * unit * n : bytes;
				double best = 1e30;
				for (int r = 0; r < reps; r++)
					best = std::min(best, copy_all(g, n, h, moved, unit, down, lay == 1));
				const double gbps = (double)moved / best / 1e9;
				if (n == 1)
					one = gbps;
				static const char *const name[3] = {"8 MiB groups interleaved, a copy each",
								    "8 MiB groups interleaved, one 2D copy",
								    "contiguous shares"};
				printf("%s,%d,%s,%zu,%.1f,%.2f\n", down ? "down" : "up", n, name[lay], moved, gbps,
				       gbps / one);
			}
			if (ng == 1)
				break;
		}
	}
	for (int k = 0; k < ng; k++) {
		CK(cudaSetDevice(k));
		CK(cudaFree(g[k].d));
		CK(cudaStreamDestroy(g[k].s));
	}
	CK(cudaFreeHost(h));
	return 0;
}
