/*
 * ranges.cu - headers.c's rounds of copies on a GPU (ranges.h).
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "gpu_wavefront/ranges.h"

struct buf {
	void *p;
	size_t cap;
};

struct wlz_gpu_ranges {
	struct buf harr, darr, hout, dout; /* pinned and device: range lists, packed bytes */
	cudaStream_t stream;
};

/* Range b: len[b] bytes at address src[b] to dst + to[b], a block of
 * threads a range, byte by byte: the ranges are short, and a range may
 * end where the caller's buffer does, so nothing past it is read. */
__global__ void ranges_kernel(const uint64_t *__restrict__ src, const uint64_t *__restrict__ len,
			      const uint64_t *__restrict__ to, uint8_t *__restrict__ dst, size_t n)
{
	for (size_t b = blockIdx.x; b < n; b += gridDim.x) {
		const uint8_t *s = (const uint8_t *)(uintptr_t)src[b];
		uint8_t *d = dst + to[b];
		for (uint64_t i = threadIdx.x; i < len[b]; i += blockDim.x)
			d[i] = s[i];
	}
}

extern "C" wlz_gpu_ranges *wlz_gpu_ranges_create(void)
{
	return (wlz_gpu_ranges *)calloc(1, sizeof(wlz_gpu_ranges));
}

extern "C" void wlz_gpu_ranges_free(wlz_gpu_ranges *g)
{
	if (!g)
		return;
	cudaFreeHost(g->harr.p);
	cudaFreeHost(g->hout.p);
	cudaFree(g->darr.p);
	cudaFree(g->dout.p);
	free(g);
}

extern "C" void wlz_gpu_ranges_stream(wlz_gpu_ranges *g, void *stream)
{
	g->stream = (cudaStream_t)stream;
}

static int grow(struct buf *b, size_t size, int pinned)
{
	if (size <= b->cap)
		return 1;
	if (pinned)
		cudaFreeHost(b->p);
	else
		cudaFree(b->p);
	b->p = NULL;
	b->cap = 0;
	const size_t cap = size + size / 2;
	if ((pinned ? cudaMallocHost(&b->p, cap) : cudaMalloc(&b->p, cap)) != cudaSuccess) {
		b->p = NULL;
		return 0;
	}
	b->cap = cap;
	return 1;
}

extern "C" int wlz_gpu_ranges_copy(void *opaque, const wlz_gpu_hrange *r, size_t n)
{
	wlz_gpu_ranges *g = (wlz_gpu_ranges *)opaque;
	if (!n)
		return 0;
	if (!grow(&g->harr, 3 * n * sizeof(uint64_t), 1) || !grow(&g->darr, 3 * n * sizeof(uint64_t), 0))
		return -1;
	uint64_t *src = (uint64_t *)g->harr.p, *len = src + n, *to = len + n, total = 0;
	for (size_t k = 0; k < n; k++) {
		src[k] = (uint64_t)(uintptr_t)r[k].src;
		len[k] = r[k].len;
		to[k] = total;
		total += (r[k].len + 7) & ~(uint64_t)7;
	}
	if (!grow(&g->hout, total, 1) || !grow(&g->dout, total, 0))
		return -1;
	uint64_t *d = (uint64_t *)g->darr.p;
	if (cudaMemcpyAsync(d, src, 3 * n * sizeof(uint64_t), cudaMemcpyHostToDevice, g->stream) != cudaSuccess)
		return -1;
	const unsigned grid = n < 65535 ? (unsigned)n : 65535;
	ranges_kernel<<<grid, 128, 0, g->stream>>>(d, d + n, d + 2 * n, (uint8_t *)g->dout.p, n);
	if (cudaGetLastError() != cudaSuccess ||
	    cudaMemcpyAsync(g->hout.p, g->dout.p, total, cudaMemcpyDeviceToHost, g->stream) != cudaSuccess ||
	    cudaStreamSynchronize(g->stream) != cudaSuccess)
		return -1;
	for (size_t k = 0; k < n; k++)
		memcpy(r[k].dst, (const uint8_t *)g->hout.p + to[k], r[k].len);
	return 0;
}
