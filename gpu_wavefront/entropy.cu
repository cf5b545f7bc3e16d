/*
 * entropy.cu - GPU decode of stream codec 2: one warp per segment, thread l
 * decoding lane l with its own bit buffer, so the lanes of a warp never
 * wait on each other.  Lane starts come from a warp prefix sum of the lane
 * sizes.  Lanes are read 16 aligned bytes at a time (lane_words); words
 * past the lane's last byte read as zero, so a damaged lane cannot read
 * another's bytes unseen.  Decoded bytes are
 * gathered four at a time into one 32-bit store where the output allows.
 * A thread block takes a group of segments that share tables and copies
 * the tables into shared memory first: each symbol is a dependent table
 * lookup, and from global memory (even through L1) that chain is what the
 * first version of this kernel waited on.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/entropy.h"

#define FULL 0xffffffffu
#define LANES 32
#define MB 10                      /* codes of at most 10 bits (SPEC.md, section 5.2) */
static_assert((1u << MB) == WLZ_GPU_TAB, "one table entry per MB-bit window");
#define LANE_HDR (2 * (LANES - 1))
#define WARPS WLZ_GPU_GROUP

/* One count per bad segment, from its first lane. */
__device__ __forceinline__ void report(bool bad, unsigned lane, int *err)
{
	if (__any_sync(FULL, bad) && lane == 0)
		atomicAdd(err, 1);
}

/* A lane's bytes as a queue of 32-bit words read 16 bytes at a time from
 * a 16-byte aligned base, one load ahead: the words are spent four to a
 * load, and the load for the next four is in flight meanwhile.  Words
 * past the lane's last read as zero, the last masked to its bytes. */
struct lane_words {
	const uint4 *base;
	uint32_t k, last, emask;    /* index of q[0]; the last word's index */
	uint32_t r;                 /* words left in q */
	uint4 q, n;

	__device__ __forceinline__ uint4 chunk(uint32_t c) const
	{
		return c <= last / 4 ? __ldg(base + c) : make_uint4(0, 0, 0, 0);
	}
	__device__ __forceinline__ void init(uintptr_t p, uint32_t ls)
	{
		base = (const uint4 *)(p & ~(uintptr_t)15);
		const uint32_t off = (uint32_t)(p & 15), endb = off + ls;
		last = ls ? (endb - 1) / 4 : 0;
		emask = ls ? ((endb & 3) ? (1u << 8 * (endb & 3)) - 1 : 0xffffffffu) : 0;
		q = ls ? chunk(0) : make_uint4(0, 0, 0, 0);
		n = chunk(1);
		k = 0;
		r = 4;
		for (uint32_t i = 0; i < off / 4; i++)
			pop();
	}
	__device__ __forceinline__ uint32_t pop()
	{
		uint32_t v = k < last ? q.x : (k == last ? q.x & emask : 0);
		q.x = q.y, q.y = q.z, q.z = q.w;
		k++;
		if (--r == 0) {
			q = n;
			r = 4;
			n = chunk(k / 4 + 1);
		}
		return v;
	}
};

/* One symbol: the table lookup and its bits consumed. */
#define HUF_SYM(out)                                                                           \
	do {                                                                                   \
		const uint32_t e_ = tabs[(t << MB) | (uint32_t)(buf & (WLZ_GPU_TAB - 1))];     \
		const uint32_t l_ = e_ >> 8 & 15;                                              \
		buf >>= l_;                                                                    \
		nb -= l_;                                                                      \
		t = e_ >> 12;                                                                  \
		(out) = e_ & 255;                                                              \
	} while (0)

/* Tops the buffer up to 32 bits or more. */
#define HUF_REFILL()                                                                           \
	do {                                                                                   \
		if (nb < 32) {                                                                 \
			buf |= (uint64_t)lw.pop() << nb;                                       \
			nb += 32;                                                              \
			merged++;                                                              \
		}                                                                              \
	} while (0)

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

	/* The lane's bytes [p, p + ls). */
	const uintptr_t p = (uintptr_t)(seg + start);
	lane_words lw;
	lw.init(p, ls);
	const uint32_t skip = (uint32_t)(p & 3) * 8;
	uint64_t buf = lw.pop() >> skip;
	uint32_t nb = 32 - skip, merged = 0, t = 0;
	uint8_t *o = out + s.out_off;
	uint32_t j = a;
	/* Sixteen symbols to one 16-byte store where aligned: each lane writes
	 * its own run of the output, so a warp's store touches 32 places, and
	 * fewer, larger stores are what the L2 keeps up with. */
	if (((s.out_off + a) & 15) == 0) {
		for (; j + 16 <= b; j += 16) {
			uint32_t c[16];
#pragma unroll
			for (int u = 0; u < 16; u += 2) {
				HUF_REFILL();
				HUF_SYM(c[u]);
				HUF_SYM(c[u + 1]);
			}
			uint4 v;
			v.x = c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24;
			v.y = c[4] | c[5] << 8 | c[6] << 16 | c[7] << 24;
			v.z = c[8] | c[9] << 8 | c[10] << 16 | c[11] << 24;
			v.w = c[12] | c[13] << 8 | c[14] << 16 | c[15] << 24;
			*(uint4 *)(o + j) = v;
		}
	}
	if (((s.out_off + j) & 3) == 0) {
		for (; j + 4 <= b; j += 4) {
			uint32_t c0, c1, c2, c3;
			HUF_REFILL();
			HUF_SYM(c0);
			HUF_SYM(c1);
			HUF_REFILL();
			HUF_SYM(c2);
			HUF_SYM(c3);
			*(uint32_t *)(o + j) = c0 | c1 << 8 | c2 << 16 | c3 << 24;
		}
	}
	for (; j < b; j++) {
		uint32_t c;
		HUF_REFILL();
		HUF_SYM(c);
		o[j] = (uint8_t)c;
	}
	/* Used exactly: the lane's bytes hold the bits read, then zeros. */
	const uint64_t used = (uint64_t)(32 - skip) + 32ull * merged - nb;
	bad = used > 8ull * ls || (used + 7) / 8 != ls;
	if (!bad && (used & 7)) {
		const uint32_t rest = (uint32_t)(8 * ls - used);
		const uint64_t bits = nb >= 8 ? buf : buf | (uint64_t)lw.pop() << nb;
		bad = (bits & ((1ull << rest) - 1)) != 0;
	}
	return !__any_sync(FULL, bad);
}

__global__ void ent_kernel(const wlz_gpu_seg *__restrict__ segs, const wlz_gpu_group *__restrict__ grps,
			   const uint16_t *__restrict__ tabs, const uint8_t *__restrict__ in,
			   uint8_t *__restrict__ out, int *err)
{
	extern __shared__ uint4 stab4[];
	const wlz_gpu_group gr = grps[blockIdx.x];
	/* The group's tables, 16 bytes a thread at a time. */
	const uint4 *src = (const uint4 *)(tabs + (size_t)gr.tab * WLZ_GPU_TAB);
	const uint32_t n4 = gr.ntab * WLZ_GPU_TAB * 2 / 16;
	for (uint32_t i = threadIdx.x; i < n4; i += blockDim.x)
		stab4[i] = __ldg(src + i);
	__syncthreads();
	const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
	if (w >= gr.nseg)
		return;
	const wlz_gpu_seg s = segs[gr.seg + w];
	if (s.tab == WLZ_GPU_COPY) {
		/* Loads in flight together (a piece is at most 4 KiB). */
#pragma unroll 16
		for (uint32_t i = lane; i < s.m; i += 32)
			out[s.out_off + i] = __ldg(in + s.in_off + i);
		return;
	}
	if (s.tab == WLZ_GPU_RUN) {
		for (uint32_t i = lane; i < s.m; i += 32)
			out[s.out_off + i] = (uint8_t)s.in_size;
		return;
	}
	report(!huf_segment(s, (const uint16_t *)stab4, in, out, lane), lane, err);
}

extern "C" int wlz_gpu_ent_launch(const wlz_gpu_ent_plan *p, const wlz_gpu_seg *d_seg, const wlz_gpu_group *d_grp,
				  const uint16_t *d_tabs, const uint8_t *d_in, uint8_t *d_out, int *d_err, void *stream)
{
	const size_t n[2] = {p->nsmall, p->ngrp - p->nsmall};
	const size_t smem[2] = {WLZ_GPU_SMALL * WLZ_GPU_TAB * 2, (size_t)p->max_tab * WLZ_GPU_TAB * 2};
	if (smem[1] > 48 * 1024 &&
	    cudaFuncSetAttribute(ent_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem[1]) != cudaSuccess)
		return 1;
	for (int k = 0; k < 2; k++)
		if (n[k])
			ent_kernel<<<(unsigned)n[k], 32 * WARPS, smem[k], (cudaStream_t)stream>>>(
				d_seg, d_grp + (k ? n[0] : 0), d_tabs, d_in, d_out, d_err);
	return cudaGetLastError() != cudaSuccess;
}
