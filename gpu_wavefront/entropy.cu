/*
 * entropy.cu - GPU decode of the interleaved stream coders: one warp per
 * segment, lane l decoding the segment's lane l; the lanes that need a word
 * take consecutive words in lane order (a ballot and a population count),
 * which is the order the encoders wrote them in.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/entropy.h"

#define FULL 0xffffffffu

/* Unaligned little-endian loads from byte addresses (the input is padded
 * by 8 bytes so the second aligned word may always be read). */
__device__ __forceinline__ uint32_t ld32(const uint8_t *p)
{
	const uintptr_t a = (uintptr_t)p;
	const uint32_t *w = (const uint32_t *)(a & ~(uintptr_t)3);
	return __funnelshift_r(__ldg(w), __ldg(w + 1), (unsigned)(a & 3) * 8);
}

__device__ __forceinline__ uint32_t ld16(const uint8_t *p) { return ld32(p) & 0xffffu; }

/* The segment's words as the warp will use them, fetched ahead: lane i
 * holds word base + i of four windows of 32.  A round takes at most 32
 * words, all within the first two windows; loads for the last two are in
 * flight meanwhile, so a lane never waits on memory for its word. */
template <int W> struct window {
	const uint8_t *p;
	uint32_t n, base, w[4];
	__device__ __forceinline__ uint32_t fetch(uint32_t i) const
	{
		return i < n ? (W == 2 ? ld16(p + 2 * i) : ld32(p + 4 * i)) : 0;
	}
	__device__ __forceinline__ void init(const uint8_t *wp, uint32_t nw, unsigned lane)
	{
		p = wp;
		n = nw;
		base = 0;
#pragma unroll
		for (int k = 0; k < 4; k++)
			w[k] = fetch(32 * k + lane);
	}
	/* Word at (absolute index at, at - base < 64); every lane calls it. */
	__device__ __forceinline__ uint32_t get(uint32_t at) const
	{
		const uint32_t r = at - base;
		const uint32_t a = __shfl_sync(FULL, w[0], r & 31), b = __shfl_sync(FULL, w[1], r & 31);
		return r < 32 ? a : b;
	}
	__device__ __forceinline__ void advance(uint32_t wpos, unsigned lane)
	{
		if (wpos - base >= 32) {
			base += 32;
			w[0] = w[1];
			w[1] = w[2];
			w[2] = w[3];
			w[3] = fetch(base + 96 + lane);
		}
	}
};

/* One count per bad segment, from its first lane. */
__device__ __forceinline__ void report(bool bad, unsigned lane, int *err)
{
	if (__any_sync(FULL, bad) && lane == 0)
		atomicAdd(err, 1);
}

__device__ __forceinline__ bool run_segment(const wlz_gpu_seg &s, uint8_t *out, unsigned lane)
{
	if (s.tab != ~0u)
		return false;
	for (uint32_t i = lane; i < s.m; i += 32)
		out[s.out_off + i] = (uint8_t)s.in_size;
	return true;
}

__global__ void rans_kernel(const wlz_gpu_seg *__restrict__ segs, size_t nseg, const uint32_t *__restrict__ tabs,
			    const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int *err)
{
	const size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const unsigned lane = threadIdx.x & 31;
	if (w >= nseg)
		return;
	const wlz_gpu_seg s = segs[w];
	if (run_segment(s, out, lane))
		return;
	if (s.in_size < 128 || (s.in_size & 1)) {
		report(true, lane, err);
		return;
	}
	const uint32_t *tab = tabs + (size_t)s.tab * 4096;
	const uint8_t *p = in + s.in_off;
	const uint8_t *wp = p + 128;
	const uint32_t nw = (s.in_size - 128) / 2;
	const unsigned lt = (1u << lane) - 1;
	uint32_t x = ld32(p + 4 * lane), wpos = 0;
	bool bad = x < 65536u;
	window<2> win;
	win.init(wp, nw, lane);
	uint8_t *o = out + s.out_off;
	for (uint32_t base = 0; base < s.m; base += 32) {
		const uint32_t j = base + lane;
		const bool act = j < s.m;
		uint32_t v = x;
		if (act) {
			const uint32_t e = __ldg(tab + (x & 4095));
			o[j] = (uint8_t)e;
			v = ((e >> 8 & 4095) + 1) * (x >> 12) + (e >> 20);
		}
		const bool need = act && v < 65536u;
		const unsigned mask = __ballot_sync(FULL, need);
		const uint32_t at = wpos + __popc(mask & lt);
		const uint32_t word = win.get(at);
		if (need) {
			bad |= at >= nw;
			v = v << 16 | word;
		}
		wpos += __popc(mask);
		win.advance(wpos, lane);
		x = v;
	}
	report(bad || wpos != nw || x != 65536u, lane, err);
}

__global__ void huf_kernel(const wlz_gpu_seg *__restrict__ segs, size_t nseg, const uint16_t *__restrict__ tabs,
			   const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int *err)
{
	extern __shared__ uint16_t stab[];
	const size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
	if (w >= nseg)
		return;
	const wlz_gpu_seg s = segs[w];
	if (run_segment(s, out, lane))
		return;
	/* The warp's table into its own part of shared memory. */
	uint16_t *tab = stab + wib * 2048;
	const uint4 *gt = (const uint4 *)(tabs + (size_t)s.tab * 2048);
	for (unsigned i = lane; i < 2048 * 2 / 16; i += 32)
		((uint4 *)tab)[i] = __ldg(gt + i);
	__syncwarp();
	if (s.in_size & 3) {
		report(true, lane, err);
		return;
	}
	const uint8_t *wp = in + s.in_off;
	const uint32_t nw = s.in_size / 4;
	const unsigned lt = (1u << lane) - 1;
	uint64_t buf = 0;
	uint32_t cnt = 0, wpos = 0;
	bool bad = false;
	window<4> win;
	win.init(wp, nw, lane);
	uint8_t *o = out + s.out_off;
	for (uint32_t base = 0; base < s.m; base += 64) {
		const uint32_t j = base + lane;
		const bool act = j < s.m;
		const bool need = act && cnt < 32;
		const unsigned mask = __ballot_sync(FULL, need);
		const uint32_t at = wpos + __popc(mask & lt);
		const uint32_t word = win.get(at);
		if (need) {
			bad |= at >= nw;
			buf |= (uint64_t)word << cnt;
			cnt += 32;
		}
		wpos += __popc(mask);
		win.advance(wpos, lane);
		if (act) {
			uint32_t e = tab[buf & 2047];
			o[j] = (uint8_t)e;
			buf >>= e >> 8;
			cnt -= e >> 8;
			if (j + 32 < s.m) {
				e = tab[buf & 2047];
				o[j + 32] = (uint8_t)e;
				buf >>= e >> 8;
				cnt -= e >> 8;
			}
		}
	}
	report(bad || wpos != nw || buf != 0, lane, err);
}

extern "C" int wlz_gpu_ent_launch(int coder, const wlz_gpu_seg *d_seg, size_t nseg, const void *d_tabs,
				  const uint8_t *d_in, uint8_t *d_out, int *d_err, void *stream)
{
	if (nseg == 0)
		return 0;
	const unsigned warps = 4, threads = warps * 32;
	const unsigned blocks = (unsigned)((nseg + warps - 1) / warps);
	cudaStream_t st = (cudaStream_t)stream;
	if (coder == WLZ_GPU_RANS)
		rans_kernel<<<blocks, threads, 0, st>>>(d_seg, nseg, (const uint32_t *)d_tabs, d_in, d_out, d_err);
	else
		huf_kernel<<<blocks, threads, warps * 2048 * 2, st>>>(d_seg, nseg, (const uint16_t *)d_tabs, d_in,
								       d_out, d_err);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
