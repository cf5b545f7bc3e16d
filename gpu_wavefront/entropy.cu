/*
 * entropy.cu - GPU decode of stream codec 2: one warp per segment, thread l
 * decoding lane l with its own bit buffer, so the lanes of a warp never
 * wait on each other.  Lane starts come from a warp prefix sum of the lane
 * sizes.  Words are read aligned (the first one shifted by the lane's byte
 * offset) and only up to the lane's last byte; bits past it read as zero,
 * so a damaged lane cannot read another's bytes unseen.  Decoded bytes are
 * gathered four at a time into one 32-bit store where the output allows.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/entropy.h"

#define FULL 0xffffffffu
#define LANES 32
#define MB 11
#define LANE_HDR (2 * (LANES - 1))
#define WARPS 4

/* One count per bad segment, from its first lane. */
__device__ __forceinline__ void report(bool bad, unsigned lane, int *err)
{
	if (__any_sync(FULL, bad) && lane == 0)
		atomicAdd(err, 1);
}

struct bitreader {
	const uint32_t *w;          /* aligned word holding the lane's next bits */
	uint32_t next, last;        /* next word to load, last word of the lane */
	uint64_t buf;
	uint32_t nb;

	__device__ __forceinline__ uint32_t word(uint32_t i, uint32_t end_mask) const
	{
		if (i > last)
			return 0;
		const uint32_t v = __ldg(w + i);
		return i == last ? v & end_mask : v;
	}
};

__device__ bool huf_segment(const wlz_gpu_seg &s, const uint16_t *__restrict__ tabs, const uint8_t *__restrict__ in,
			    uint8_t *__restrict__ out, unsigned lane)
{
	const uint8_t *seg = in + s.in_off;
	/* Lane sizes: 31 stored, the last what remains. */
	uint32_t ls = 0;
	if (lane < LANES - 1)
		ls = (uint32_t)seg[2 * lane] | (uint32_t)seg[2 * lane + 1] << 8;
	uint32_t pre = ls;
#pragma unroll
	for (int d = 1; d < LANES; d <<= 1) {
		const uint32_t v = __shfl_up_sync(FULL, pre, d);
		if ((int)lane >= d)
			pre += v;
	}
	const uint32_t sum31 = __shfl_sync(FULL, pre, LANES - 2);
	bool bad = s.in_size < LANE_HDR || sum31 > s.in_size - LANE_HDR;
	if (__any_sync(FULL, bad))
		return false;
	/* Exclusive prefix: lane 31 entered the scan with 0. */
	const uint32_t start = LANE_HDR + pre - ls;
	if (lane == LANES - 1)
		ls = s.in_size - LANE_HDR - sum31;
	const uint32_t q = (s.m + LANES - 1) / LANES;
	const uint32_t a = min(q * lane, s.m), b = min(a + q, s.m);

	/* The lane's bytes [p, p + ls) as aligned words; bytes past the end
	 * masked off in the last word. */
	const uintptr_t p = (uintptr_t)(seg + start);
	bitreader r;
	r.w = (const uint32_t *)(p & ~(uintptr_t)3);
	const uint32_t skip = (uint32_t)(p & 3) * 8;
	const uint32_t endb = (uint32_t)(p & 3) + ls;       /* byte end, from r.w */
	r.last = ls ? (endb - 1) / 4 : 0;
	const uint32_t em = (endb & 3) ? (1u << 8 * (endb & 3)) - 1 : FULL;
	const uint32_t emask = ls ? em : 0;
	r.buf = r.word(0, emask) >> skip;
	r.nb = 32 - skip;
	r.next = 1;
	uint64_t used = 0;
	uint32_t t = 0, acc = 0;
	uint8_t *o = out + s.out_off;
	const bool wide = ((s.out_off + a) & 3) == 0;
	for (uint32_t j = a; j < b; j++) {
		if (r.nb < 32) {
			r.buf |= (uint64_t)r.word(r.next++, emask) << r.nb;
			r.nb += 32;
		}
		const uint32_t e = __ldg(tabs + (size_t)(s.tab + t) * WLZ_GPU_TAB + (uint32_t)(r.buf & (WLZ_GPU_TAB - 1)));
		const uint32_t l = e >> 8 & 15;
		r.buf >>= l;
		r.nb -= l;
		used += l;
		t = e >> 12;
		if (wide) {
			acc |= (e & 255) << 8 * ((j - a) & 3);
			if (((j - a) & 3) == 3 || j + 1 == b) {
				if (((j - a) & 3) == 3)
					*(uint32_t *)(o + j - 3) = acc;
				else
					for (uint32_t k = (j - a) & ~3u; k <= j - a; k++)
						o[a + k] = (uint8_t)(acc >> 8 * (k & 3));
				acc = 0;
			}
		} else {
			o[j] = (uint8_t)e;
		}
	}
	/* Used exactly: the lane's bytes hold the bits read, then zeros. */
	bad = used > 8ull * ls || (used + 7) / 8 != ls;
	if (!bad && (used & 7)) {
		const uint32_t rest = (uint32_t)(8 * ls - used);
		bad = (r.buf & ((1ull << rest) - 1)) != 0;
	}
	return !__any_sync(FULL, bad);
}

__global__ void ent_kernel(const wlz_gpu_seg *__restrict__ segs, size_t nseg, const uint16_t *__restrict__ tabs,
			   const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int *err)
{
	const size_t g = (size_t)blockIdx.x * WARPS + threadIdx.x / 32;
	const unsigned lane = threadIdx.x & 31;
	if (g >= nseg)
		return;
	const wlz_gpu_seg s = segs[g];
	if (s.tab == WLZ_GPU_COPY) {
		for (uint32_t i = lane; i < s.m; i += 32)
			out[s.out_off + i] = in[s.in_off + i];
		return;
	}
	if (s.tab == WLZ_GPU_RUN) {
		for (uint32_t i = lane; i < s.m; i += 32)
			out[s.out_off + i] = (uint8_t)s.in_size;
		return;
	}
	report(!huf_segment(s, tabs, in, out, lane), lane, err);
}

extern "C" int wlz_gpu_ent_launch(const wlz_gpu_seg *d_seg, size_t nseg, const uint16_t *d_tabs,
				  const uint8_t *d_in, uint8_t *d_out, int *d_err, void *stream)
{
	if (nseg == 0)
		return 0;
	const unsigned grid = (unsigned)((nseg + WARPS - 1) / WARPS);
	ent_kernel<<<grid, 32 * WARPS, 0, (cudaStream_t)stream>>>(d_seg, nseg, d_tabs, d_in, d_out, d_err);
	return cudaGetLastError() != cudaSuccess;
}
