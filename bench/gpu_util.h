/*
 * gpu_util.h - what the GPU benches share: a CUDA error check, reading a
 * file whole, and timing a launch sequence with events.
 */
#ifndef WLZ_BENCH_GPU_UTIL_H
#define WLZ_BENCH_GPU_UTIL_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x)                                                                                  \
	do {                                                                                   \
		cudaError_t e_ = (x);                                                          \
		if (e_ != cudaSuccess) {                                                       \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(2);                                                               \
		}                                                                              \
	} while (0)

static inline std::vector<uint8_t> slurp(const char *path)
{
	std::vector<uint8_t> b;
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	uint8_t tmp[1 << 16];
	size_t k;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		b.insert(b.end(), tmp, tmp + k);
	fclose(f);
	return b;
}

/* Times fn over reps runs on one stream: best and median milliseconds. */
template <class F> static inline void timed(int reps, F fn, double *best, double *med)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	std::vector<float> ms;
	fn(); /* warm-up */
	CK(cudaDeviceSynchronize());
	for (int r = 0; r < reps; r++) {
		CK(cudaEventRecord(a));
		fn();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float t;
		CK(cudaEventElapsedTime(&t, a, b));
		ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	*best = ms[0];
	*med = ms[ms.size() / 2];
}

/* A bench's arguments, ARCHIVE [reps]: the archive's bytes; reps (default
 * def) to *reps.  Exits with usage when the archive is missing, and with
 * 77 (a test's "skipped") when there is no GPU. */
static inline std::vector<uint8_t> bench_open(int argc, char **argv, const char *tool, int def, int *reps)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s ARCHIVE [reps]\n", tool);
		exit(2);
	}
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		fprintf(stderr, "%s: no CUDA device here: skipped\n", tool);
		exit(77);
	}
	*reps = argc > 2 ? atoi(argv[2]) : def;
	return slurp(argv[1]);
}

#endif
