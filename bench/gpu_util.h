/*
 * gpu_util.h - what the GPU benches share: a CUDA error check, reading a
 * file whole, and timing a launch sequence with events.
 */
#ifndef WLZ_BENCH_GPU_UTIL_H
#define WLZ_BENCH_GPU_UTIL_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
extern "C" {
#include "common/ent.h"
#include "format/format.h"
#include "gpu_wavefront/parse.h"
}

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

/* The batch benches' slices of a content of have bytes: sizes spread
 * log-uniformly from 1 to 64 MiB (a fixed xorshift sequence, so every
 * bench cuts the same slices), in order, until the content or want_n
 * slices end.  Returns the bytes covered. */
static inline size_t bench_slices(size_t have, int want_n, std::vector<size_t> *starts, std::vector<size_t> *sizes)
{
	uint64_t x = 88172645463325252ull;
	size_t at = 0;
	while (at < have && (int)sizes->size() < want_n) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = (size_t)((1u << 20) * exp2((double)(x % 6000) / 1000.0));
		n = std::min(n, have - at);
		starts->push_back(at);
		sizes->push_back(n);
		at += n;
	}
	return at;
}

/* job(t, i) for i in [0, n) on every core, t the thread's index (below
 * bench_threads()). */
static inline unsigned bench_threads()
{
	return std::max(1u, std::thread::hardware_concurrency());
}
template <class Job> static inline void bench_parallel(size_t n, Job job)
{
	std::atomic<size_t> next(0);
	std::vector<std::thread> pool;
	for (unsigned t = 0; t < bench_threads(); t++)
		pool.emplace_back([&, t] {
			for (size_t i; (i = next++) < n;)
				job(t, i);
		});
	for (auto &th : pool)
		th.join();
}

/* Wall seconds on the monotonic clock. */
static inline double bench_now()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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
	if (ms.empty())
		ms.push_back(0); /* (no timed runs: a check only) */
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

/* Calls fn(e, bstart) for every block of every member of arc: e its
 * entry, bstart its first byte in its member's content.  Returns the
 * members' count; exits (2) on an archive that does not parse. */
template <class F> static inline unsigned each_block(const std::vector<uint8_t> &arc, const char *tool, F fn)
{
	unsigned members = 0;
	for (uint64_t at = 0; at < arc.size(); members++) {
		wlz_member m;
		if (wlz_member_parse(arc.data(), arc.size(), at, &m) != WLZ_OK) {
			fprintf(stderr, "%s: not a valid archive\n", tool);
			exit(2);
		}
		uint64_t bstart = 0;
		for (uint64_t b = 0; b < m.nblocks; b++) {
			fn(&m.blocks[b], bstart);
			bstart += m.blocks[b].length;
		}
		at += m.size;
		wlz_member_free(&m);
	}
	return members;
}

/* Stream k of block e, stored at src, decoded on the CPU to dst (raw
 * copied); false if it does not decode. */
static inline bool cpu_stream(const uint8_t *src, const wlz_block_entry *e, int k, uint8_t *dst, wlz_huf_tables *ht)
{
	if (!e->rsize[k])
		return true;
	if (e->codec[k] == WLZ_CODEC_RAW) {
		memcpy(dst, src, e->rsize[k]);
		return true;
	}
	return wlz_ent_decode(src, e->csize[k], dst, e->rsize[k], ht) == WLZ_OK;
}

#endif
