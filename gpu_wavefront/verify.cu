/*
 * verify.cu - what the GPU decoder's checks need beside XXH3 (xxh3.cu):
 * payloads gathered to 8-byte aligned places (the hash reads words), and
 * digests compared with the archive's.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/verify.h"

/* Range b: len[b] bytes from src + from[b] to dst + to[b] (to[b] 16-byte
 * aligned); each thread writes a word, taken from the two aligned words
 * that hold it (src has 8 readable bytes past every range). */
__global__ void gather_kernel(const uint8_t *__restrict__ src, const uint64_t *__restrict__ from,
			      const uint64_t *__restrict__ to, const uint64_t *__restrict__ len, uint8_t *__restrict__ dst,
			      size_t n)
{
	for (size_t b = blockIdx.x; b < n; b += gridDim.x) {
		const uint64_t f = from[b], L = len[b];
		const uint8_t *s = src + (f & ~(uint64_t)3);
		const unsigned sh = (unsigned)(f & 3) * 8;
		uint32_t *d = (uint32_t *)(dst + to[b]);
		for (uint64_t w = threadIdx.x; w < (L + 3) / 4; w += blockDim.x) {
			const uint32_t lo = ((const uint32_t *)s)[w], hi = ((const uint32_t *)s)[w + 1];
			d[w] = __funnelshift_r(lo, hi, sh);
		}
	}
}

extern "C" int wlz_gpu_gather(const uint8_t *d_src, const uint64_t *d_from, const uint64_t *d_to,
			      const uint64_t *d_len, uint8_t *d_dst, size_t n, void *stream)
{
	if (!n)
		return 0;
	const unsigned grid = n < 65535 ? (unsigned)n : 65535;
	gather_kernel<<<grid, 256, 0, (cudaStream_t)stream>>>(d_src, d_from, d_to, d_len, d_dst, n);
	return cudaGetLastError() != cudaSuccess;
}

__global__ void compare_kernel(const uint64_t *__restrict__ got, const uint64_t *__restrict__ want, size_t n,
			       uint32_t *first, uint32_t *flags, uint32_t bit)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && got[i] != want[i]) {
		atomicMin(first, (uint32_t)i);
		atomicOr(&flags[i], bit);
	}
}

extern "C" int wlz_gpu_compare(const uint64_t *d_got, const uint64_t *d_want, size_t n, uint32_t *d_first,
			       uint32_t *d_flags, uint32_t bit, void *stream)
{
	if (!n)
		return 0;
	compare_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(d_got, d_want, n, d_first,
											 d_flags, bit);
	return cudaGetLastError() != cudaSuccess;
}
