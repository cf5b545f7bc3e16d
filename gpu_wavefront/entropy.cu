/*
 * entropy.cu - GPU decode of stream codec 2: one warp per segment, thread l
 * decoding lane l, so the lanes of a warp never wait on each other.  Lane
 * starts come from a warp prefix sum of the lane sizes.
 *
 * Each symbol is a table lookup that depends on the one before, so the
 * loop keeps that chain short and free of branches: three codes of at most
 * 10 bits come from one 32-bit window, taken with a funnel shift from a
 * ring of the lane's bytes in shared memory (lane_dec).  The window is kept
 * shifted left by one, so that its low bits masked are a byte offset into
 * the tables.  Decoded bytes are staged per warp and written out a few
 * lanes' whole sectors at a time: stores of 16 bytes by each lane to its
 * own place, 32 places a store, took most of the kernel's time.
 *
 * Three blocks of eight warps fit an SM's shared memory (tables, rings and
 * staging).  The tables of a block (a group of segments sharing them, or
 * one part's for each warp of a packed block) are copied while the lanes'
 * first bytes are loaded.  A lane may read past its end, up to the
 * segment's last 16-byte chunk; symbols decoded from those bytes are
 * refused by the exact-length rule at the end.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/entropy.h"

#define FULL 0xffffffffu
#define LANES 32
#define MB 10                      /* codes of at most 10 bits (SPEC.md, section 5.2) */
static_assert((1u << MB) == WLZ_GPU_TAB, "one table entry per MB-bit window");
#define LANE_HDR (2 * (LANES - 1))
#define WARPS WLZ_GPU_GROUP
#define TAB_BYTES (WLZ_GPU_TAB * 2)
#define SMEM_TABS 16               /* tables in shared memory: 16 shared, or a warp's WLZ_GPU_OWN each */
static_assert(WARPS * WLZ_GPU_OWN <= SMEM_TABS, "packed warps' tables fit");
#define RING_BYTES ((4 * 5 + 2) * 4 * 32 * WARPS)  /* 5 chunks and 2 words a thread */

/* One count per bad segment, from its first lane, and its block's flag. */
__device__ __forceinline__ void report(bool bad, unsigned lane, int *err, uint32_t *flags, uint32_t blk)
{
	if (__any_sync(FULL, bad) && lane == 0) {
		atomicAdd(err, 1);
		if (flags)
			atomicOr(&flags[blk], WLZ_GPU_ENT_BAD);
	}
}

/* A lane's decoder.  The lane's bytes pass through a ring of 5 chunks of
 * 16 bytes in shared memory (word k of thread t at ring[k * blockDim + t],
 * so that a warp's reads hit 32 banks; word 20 repeats word 0, so that a
 * window's two words are always ring[k] and ring[k + 1]), and each window
 * is read from it.  refill<H>(), called every ROUND symbols or fewer,
 * stores the chunk that the call two before loaded into pending set H,
 * then loads into H the next chunk the lane will need.  Every lane refills
 * at the same points of the loop, and a loaded register is first read two
 * rounds later: a warp waits on a load only if it takes longer than that.
 * (A lane refilling only when it needed to would make the warp wait on the
 * load another lane issued just before.)
 *
 * A round consumes at most 120 bits and its last window ends less than 184
 * bits past its start: it reads up to 2 chunks past the current one, and
 * the current one moves at most 1 chunk a round.  The chunks up to 4 past
 * the current one are kept loaded, so that two rounds on the ring holds
 * what they read, and the ring's 5 chunks never overwrite one still read.
 *
 * pos counts bits from the aligned 16 bytes at or below the lane's start,
 * kw is the ring word holding bit pos; x is the window (shifted left by
 * one), tb the next lookup's table offset in bytes.  Chunk reads are
 * clamped to the segment's last chunk. */
#define RING_CHUNKS 5
#define RING_WORDS (4 * RING_CHUNKS)
#define ROUND 12
#define T_STRIDE (32 * WARPS)       /* ring words of one thread are this far apart */
struct lane_dec {
	const uint4 *base;
	uint32_t *ring;
	uint32_t lim, pos, kw, x, tb, wb;
	uint32_t f;                 /* chunks fetched: in the ring or pending */
	uint32_t c[2];              /* chunk in pending set h, if pend[h] */
	bool pend[2];
	uint4 p[2];
	const char *sm;

	__device__ __forceinline__ uint4 chunk(uint32_t k) const
	{
		return __ldg(base + min(k, lim - 1));
	}
	__device__ __forceinline__ void put_chunk(uint32_t k, uint4 v)
	{
		const uint32_t slot = k % RING_CHUNKS;
		uint32_t *r = ring + slot * 4 * T_STRIDE;
		r[0 * T_STRIDE] = v.x;
		r[1 * T_STRIDE] = v.y;
		r[2 * T_STRIDE] = v.z;
		r[3 * T_STRIDE] = v.w;
		/* Word 0 again after the last; a spare word takes the others'
		 * copy, so that no branch waits on v. */
		ring[(slot == 0 ? RING_WORDS : RING_WORDS + 1) * T_STRIDE] = v.x;
	}
	/* Chunks 0 to 2 stored, 3 and 4 pending; the first window. */
	__device__ __forceinline__ void start(uint32_t pos0)
	{
		pos = pos0;
		kw = pos0 >> 5;
		put_chunk(0, chunk(0));
		put_chunk(1, chunk(1));
		put_chunk(2, chunk(2));
		p[0] = chunk(3), c[0] = 3, pend[0] = true;
		p[1] = chunk(4), c[1] = 4, pend[1] = true;
		f = 5;
		window();
	}
	template <int H>
	__device__ __forceinline__ void refill()
	{
		if (pend[H])
			put_chunk(c[H], p[H]);
		pend[H] = f < (pos >> 7) + 5;
		if (pend[H]) {
			c[H] = f;
			p[H] = chunk(f++);
		}
	}
	/* The same where the calls' order is not known when compiling: both
	 * sets stored (waiting on their loads), then what is needed stored. */
	__device__ __forceinline__ void refill_now()
	{
		if (pend[0])
			put_chunk(c[0], p[0]);
		if (pend[1])
			put_chunk(c[1], p[1]);
		pend[0] = pend[1] = false;
		for (; f < (pos >> 7) + 3; f++)
			put_chunk(f, chunk(f));
	}
	__device__ __forceinline__ void window()
	{
		const uint32_t *r = ring + kw * T_STRIDE;
		x = __funnelshift_r(r[0], r[T_STRIDE], pos) << 1;
	}
	/* One code: its entry (len | next << 4 | sym << 8). */
	__device__ __forceinline__ uint32_t sym()
	{
		const uint32_t e = *(const uint16_t *)(sm + ((x & 2046u) | tb));
		x >>= e & 15u;
		tb = ((e << 7) & 0x7800u) | wb;
		return e;
	}
	/* Consumes n bits (at most 30) and takes the next window. */
	__device__ __forceinline__ void advance(uint32_t n)
	{
		const uint32_t old = pos;
		pos += n;
		kw += (pos >> 5) - (old >> 5);
		kw = kw >= RING_WORDS ? kw - RING_WORDS : kw;
		window();
	}
	/* Bit pos's byte, from the ring. */
	__device__ __forceinline__ uint32_t byte_at_pos() const
	{
		return ring[kw * T_STRIDE] >> (pos & 24) & 255;
	}
};

/* Byte 1 of e (its symbol) into byte j of v; bytes above j are left
 * for the symbols that follow. */
__device__ __forceinline__ uint32_t put(uint32_t v, uint32_t e, int j)
{
	const uint32_t sel[4] = {0x3215, 0x3250, 0x3510, 0x5210};
	return j == 0 ? e >> 8 : __byte_perm(v, e, sel[j]);
}

/* 16 bytes to o, in one store where aligned. */
__device__ __forceinline__ void store16(uint8_t *o, uint4 v)
{
	if (((uintptr_t)o & 15) == 0) {
		*(uint4 *)o = v;
	} else if (((uintptr_t)o & 3) == 0) {
		uint32_t *w = (uint32_t *)o;
		w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
	} else {
		const uint32_t a[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
		for (int k = 0; k < 16; k++)
			o[k] = (uint8_t)(a[k / 4] >> 8 * (k % 4));
	}
}

/* A warp's staging of STAGE decoded bytes a lane (two whole sectors),
 * lanes STAGE + 16 bytes apart so that eight lanes' 16-byte stores hit 32
 * banks. */
#define STAGE 64
#define STAGE_STRIDE (STAGE + 16)
#define STAGE_BYTES (32 * STAGE_STRIDE)

/* A segment's lane: where its bytes and symbols are, and its decoder. */
struct seg_lane {
	lane_dec d;
	uint32_t ls, pos0, a, b, q;
};

/* Reads the lane sizes and starts the lane's decoder (no table is read
 * yet); false if the sizes do not fit the segment. */
__device__ bool seg_begin(seg_lane &z, const wlz_gpu_seg &s, uint32_t *ring, const uint8_t *__restrict__ in,
			  unsigned lane)
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
	const bool bad = s.in_size < LANE_HDR || sum31 > s.in_size - LANE_HDR;
	if (__any_sync(FULL, bad))
		return false;
	/* Exclusive prefix: lane 31 entered the scan with 0. */
	const uint32_t start = LANE_HDR + pre - ls;
	if (lane == LANES - 1)
		ls = s.in_size - LANE_HDR - sum31;
	z.ls = ls;
	z.q = (s.m + LANES - 1) / LANES;
	z.a = min(z.q * lane, s.m);
	z.b = min(z.a + z.q, s.m);
	/* The lane's bytes [p, p + ls), read 16 bytes at a time from the
	 * aligned 16 at or below p, none past the segment's last. */
	const uintptr_t p = (uintptr_t)(seg + start);
	const uintptr_t segend = (uintptr_t)(seg + s.in_size);
	z.d.base = (const uint4 *)(p & ~(uintptr_t)15);
	z.d.lim = max((uint32_t)((segend + 15 - (p & ~(uintptr_t)15)) / 16), 1u);
	z.d.ring = ring;
	z.pos0 = (uint32_t)(p & 15) * 8;
	z.d.start(z.pos0);
	return true;
}

/* Decodes the lane with the tables at sm (this warp's from byte wb); true
 * if every lane of the warp used its bytes exactly. */
__device__ bool seg_decode(seg_lane &z, const wlz_gpu_seg &s, const char *sm, uint32_t wb, uint8_t *stage,
			   uint8_t *__restrict__ out, unsigned lane)
{
	lane_dec &d = z.d;
	d.sm = sm;
	d.wb = wb;
	d.tb = wb;
	const uint32_t a = z.a, b = z.b, q = z.q;
	uint8_t *o = out + s.out_off;
	uint32_t j = a;
	/* Rounds of STAGE symbols that every lane has: each lane's bytes go to
	 * the warp's staging area, then the warp writes them out, eight lanes'
	 * 64 bytes a store, where each lane writing its own 16 bytes would
	 * touch 32 places a store. */
	static_assert((STAGE + ROUND - 1) / ROUND % 2 == 0, "refills alternate, and each round of STAGE starts with set 0");
	const uint32_t rounds = __shfl_sync(FULL, (b - a) / STAGE, LANES - 1);
	for (uint32_t r = 0; r < rounds; r++, j += STAGE) {
		uint32_t v[STAGE / 4] = {0};
#pragma unroll
		for (int t = 0; t < (STAGE + 2) / 3; t++) {
			const int k = 3 * t;
			if (k % ROUND == 0) {
				if (k / ROUND % 2 == 0)
					d.refill<0>();
				else
					d.refill<1>();
			}
			const uint32_t e0 = d.sym();
			v[k / 4] = put(v[k / 4], e0, k % 4);
			uint32_t c = e0 & 15;
			if (k + 1 < STAGE) {
				const uint32_t e1 = d.sym();
				c += e1 & 15;
				v[(k + 1) / 4] = put(v[(k + 1) / 4], e1, (k + 1) % 4);
			}
			if (k + 2 < STAGE) {
				const uint32_t e2 = d.sym();
				c += e2 & 15;
				v[(k + 2) / 4] = put(v[(k + 2) / 4], e2, (k + 2) % 4);
			}
			d.advance(c);
		}
		uint4 *st = (uint4 *)(stage + lane * STAGE_STRIDE);
#pragma unroll
		for (int k = 0; k < STAGE / 16; k++)
			st[k] = make_uint4(v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]);
		__syncwarp();
#pragma unroll
		for (int i = 0; i < STAGE / 16; i++) {
			const uint32_t L = (i * 32 + lane) / (STAGE / 16), piece = (i * 32 + lane) % (STAGE / 16);
			store16(o + q * L + j - a + 16 * piece,
				*(const uint4 *)(stage + L * STAGE_STRIDE + 16 * piece));
		}
		__syncwarp();
	}
	for (; j + 4 <= b; j += 4) {
		d.refill_now();
		const uint32_t e0 = d.sym(), e1 = d.sym(), e2 = d.sym();
		d.advance((e0 & 15) + (e1 & 15) + (e2 & 15));
		const uint32_t e3 = d.sym();
		d.advance(e3 & 15);
		const uint32_t w = __byte_perm(__byte_perm(e0, e1, 0x0051), __byte_perm(e2, e3, 0x0051), 0x5410);
		if (((uintptr_t)(o + j) & 3) == 0) {
			*(uint32_t *)(o + j) = w;
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				o[j + k] = (uint8_t)(w >> 8 * k);
		}
	}
	for (; j < b; j++) {
		d.refill_now();
		const uint32_t e = d.sym();
		d.advance(e & 15);
		o[j] = (uint8_t)(e >> 8);
	}
	/* Used exactly: the lane's bytes hold the bits read, then zeros. */
	d.refill_now();
	const uint32_t used = d.pos - z.pos0;
	bool bad = used > 8u * z.ls || (used + 7) / 8 != z.ls;
	if (!bad && (used & 7))
		bad = (d.byte_at_pos() >> (used & 7)) != 0;
	return !__any_sync(FULL, bad);
}

/* n4 16-byte pieces of tables to shared memory, thread t of nt copying
 * every nt-th: asynchronous copies, all in flight at once. */
__device__ __forceinline__ void copy_tables(uint4 *dst, const uint16_t *src, uint32_t n4, uint32_t t, uint32_t nt)
{
	const uint4 *s4 = (const uint4 *)src;
#if __CUDA_ARCH__ >= 800
	for (uint32_t i = t; i < n4; i += nt) {
		const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst + i);
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s4 + i) : "memory");
	}
	asm volatile("cp.async.wait_all;" ::: "memory");
#else
	for (uint32_t i = t; i < n4; i += nt)
		dst[i] = __ldg(s4 + i);
#endif
}

/* n bytes from src to dst by a warp: aligned 32-bit stores, each word
 * from the two aligned source words it spans; the ends bytewise. */
__device__ void copy_piece(uint8_t *dst, const uint8_t *__restrict__ src, uint32_t n, unsigned lane)
{
	const uint32_t head = min((uint32_t)((4 - ((uintptr_t)dst & 3)) & 3), n);
	if (lane < head)
		dst[lane] = __ldg(src + lane);
	dst += head, src += head, n -= head;
	const uint32_t nw = n / 4, sh = (uint32_t)((uintptr_t)src & 3) * 8;
	const uint32_t *s4 = (const uint32_t *)((uintptr_t)src & ~(uintptr_t)3);
	uint32_t *d4 = (uint32_t *)dst;
#pragma unroll 4
	for (uint32_t i = lane; i < nw; i += 32) {
		/* The second word only where the shift reaches into it: never
		 * past the source's last byte. */
		const uint32_t lo = __ldg(s4 + i);
		const uint32_t hi = sh ? __ldg(s4 + i + 1) : 0;
		d4[i] = __funnelshift_r(lo, hi, sh);
	}
	for (uint32_t i = 4 * nw + lane; i < n; i += 32)
		dst[i] = __ldg(src + i);
}

#ifndef WLZ_GPU_MINB
#define WLZ_GPU_MINB 3             /* blocks per SM: shared memory allows 3 */
#endif
__global__ void __launch_bounds__(32 * WARPS, WLZ_GPU_MINB)
	ent_kernel(const wlz_gpu_seg *__restrict__ segs, const wlz_gpu_group *__restrict__ grps,
		   const uint16_t *__restrict__ tabs, const uint8_t *__restrict__ in, uint8_t *__restrict__ out,
		   int *err, uint32_t *flags)
{
	extern __shared__ uint4 stab4[];
	const wlz_gpu_group gr = grps[blockIdx.x];
	const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
	const bool active = w < gr.nseg;
	const wlz_gpu_seg s = segs[gr.seg + min(w, gr.nseg - 1)];
	const bool huf = s.tab != WLZ_GPU_COPY && s.tab != WLZ_GPU_RUN;
	/* The lane's start first: its loads are in flight while the tables
	 * are copied. */
	uint32_t *ring = (uint32_t *)(stab4 + SMEM_TABS * TAB_BYTES / 16) + threadIdx.x;
	seg_lane z;
	bool ok = true;
	if (active && huf)
		ok = seg_begin(z, s, ring, in, lane);
	if (gr.ntab) {
		/* The group's tables, 16 bytes a thread at a time. */
		copy_tables(stab4, tabs + (size_t)gr.tab * WLZ_GPU_TAB, gr.ntab * TAB_BYTES / 16, threadIdx.x,
			    blockDim.x);
		__syncthreads();
	}
	if (!active)
		return;
	if (s.tab == WLZ_GPU_COPY) {
		copy_piece(out + s.out_off, in + s.in_off, s.m, lane);
		return;
	}
	if (s.tab == WLZ_GPU_RUN) {
		for (uint32_t i = lane; i < s.m; i += 32)
			out[s.out_off + i] = (uint8_t)s.in_size;
		return;
	}
	uint32_t wb = 0;
	if (!gr.ntab) {
		/* A packed block: this warp's own tables, in its own slice. */
		wb = w * WLZ_GPU_OWN * TAB_BYTES;
		copy_tables(stab4 + wb / 16, tabs + (size_t)s.tab * WLZ_GPU_TAB,
			    min(s.ntab, (uint32_t)WLZ_GPU_OWN) * TAB_BYTES / 16, lane, 32);
		__syncwarp();
	}
	if (ok) {
		uint8_t *stage = (uint8_t *)(stab4 + (SMEM_TABS * TAB_BYTES + RING_BYTES) / 16) + w * STAGE_BYTES;
		ok = seg_decode(z, s, (const char *)stab4, wb, stage, out, lane);
	}
	report(!ok, lane, err, flags, s.blk);
}

extern "C" int wlz_gpu_ent_launch(const wlz_gpu_ent_plan *p, const wlz_gpu_seg *d_seg, const wlz_gpu_group *d_grp,
				  const uint16_t *d_tabs, const uint8_t *d_in, uint8_t *d_out, int *d_err,
				  uint32_t *d_flags, void *stream)
{
	if (!p->ngrp)
		return 0;
	const size_t smem = SMEM_TABS * TAB_BYTES + RING_BYTES + WARPS * STAGE_BYTES;
	if (p->max_tab > SMEM_TABS)
		return 1;
	if (smem > 48 * 1024 &&
	    cudaFuncSetAttribute(ent_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess)
		return 1;
	ent_kernel<<<(unsigned)p->ngrp, 32 * WARPS, smem, (cudaStream_t)stream>>>(d_seg, d_grp, d_tabs, d_in, d_out,
										   d_err, d_flags);
	return cudaGetLastError() != cudaSuccess;
}

/* Table blockIdx.x from its codes (canonical, as wlz_huf_canonical gives
 * them: by length, then by symbol, bit-reversed for an LSB-first stream).
 * Thread s finds symbol s's rank among the symbols of its length (a warp
 * match, then the warps before it), which lists the symbols in code
 * order; then each thread fills 4 of the 1024 entries, finding the code
 * that entry e starts with by its length's range of codes.  (A thread a
 * symbol filling its own entries left one thread 512 stores where another
 * had one.) */
__global__ void __launch_bounds__(256) tables_kernel(const uint8_t *__restrict__ codes, uint16_t *__restrict__ tabs)
{
	__shared__ uint16_t byrank[256];
	__shared__ uint32_t cnt[8][16], nl[16], first[16], at[16];
	const unsigned s = threadIdx.x, w = s / 32, lane = s & 31;
	const uint8_t c = codes[(size_t)blockIdx.x * 256 + s];
	const unsigned l = c & 15;
	if (lane < 16)
		cnt[w][lane] = 0;
	__syncwarp();
	const uint32_t same = __match_any_sync(FULL, l);
	if (lane == (unsigned)__ffs(same) - 1)
		cnt[w][l] = __popc(same);
	__syncthreads();
	if (s < 16) {
		uint32_t x = 0;
		for (unsigned v = 0; v < 8; v++)
			x += cnt[v][s];
		nl[s] = x;
	}
	__syncthreads();
	if (s == 0) {
		uint32_t f = 0, a = 0;
		for (unsigned b = 1; b <= MB; b++) {
			first[b] = f;
			at[b] = a;
			a += nl[b];
			f = (f + nl[b]) << 1;
		}
	}
	__syncthreads();
	const uint16_t entry = (uint16_t)(l | (c >> 4) << 4 | s << 8);
	if (l >= 1 && l <= MB) {
		uint32_t rank = __popc(same & ((1u << lane) - 1));
		for (unsigned v = 0; v < w; v++)
			rank += cnt[v][l];
		byrank[at[l] + rank] = entry;
	}
	__syncthreads();
	uint16_t *tab = tabs + (size_t)blockIdx.x * WLZ_GPU_TAB;
	const uint32_t coded = at[MB] + nl[MB];
	for (uint32_t e = s; e < WLZ_GPU_TAB; e += 256) {
		uint16_t v = 0;
		if (coded == 1) {
			v = (uint16_t)(byrank[0] & ~15u); /* one symbol: no bits read */
		} else {
			const uint32_t r = __brev(e);
#pragma unroll
			for (unsigned b = 1; b <= MB; b++) {
				const uint32_t x = (r >> (32 - b)) - first[b];
				if (x < nl[b]) {
					v = byrank[at[b] + x];
					break;
				}
			}
		}
		tab[e] = v;
	}
}

extern "C" int wlz_gpu_ent_tables(const uint8_t *d_codes, size_t ntab, uint16_t *d_tabs, void *stream)
{
	if (!ntab)
		return 0;
	tables_kernel<<<(unsigned)ntab, 256, 0, (cudaStream_t)stream>>>(d_codes, d_tabs);
	return cudaGetLastError() != cudaSuccess;
}
