/*
 * gc_kernels.cu - the GPU compressor: gc_core.h's steps as kernels, and
 * the calls of include/wavelz_gpu.h that run them.
 *
 * One member (at most 2 GiB) is compressed by one launch sequence on the
 * context's stream, with no wait for the host.  Order-free steps
 * (histograms, far table, checksums) use the GPU's own methods; their
 * results do not depend on the order, so the bytes equal the reference's.
 */
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "common/gpu_stream.h"
#include "common/wlz_internal.h"
#include "gpu_compress/gc_host.h"
#include "gpu_wavefront/xxh3.h"
}
#include "gpu_compress/gc_code.cuh"

#define CU(x, what)                                                                                    \
	do {                                                                                           \
		cudaError_t e_ = (x);                                                                  \
		if (e_ != cudaSuccess) {                                                               \
			err = wlz_fail(e_ == cudaErrorMemoryAllocation ? WLZ_ERR_NOMEM : WLZ_ERR_GPU,    \
				       "GPU compression: %s: %s", what, cudaGetErrorString(e_));        \
			goto out;                                                                      \
		}                                                                                      \
	} while (0)

enum { EV_START, EV_TABLES, EV_FIND, EV_PARSE, EV_LEVELS, EV_STREAMS, EV_ENTROPY, EV_END, EV_COUNT };

struct wlz_gcctx {
	int device;
	cudaStream_t own;
	cudaStream_t st;       /* the call's stream */
	void *arena;
	size_t arena_size;
	uint8_t *pin;          /* pinned: member header, counts, sizes */
	cudaEvent_t ev[EV_COUNT];
	cudaEvent_t legacy;    /* the legacy default stream's work before a call on own */
	wlz_gpu_cstats stats;
	/* WLZ_GC_PROFILE=1: an event after each launch, printed per call */
	int prof, nprof;
	unsigned lev_ctas;     /* k_levels' persistent grid: all resident */
	cudaEvent_t pev[64];
	const char *pname[64];
	size_t *dst_size;      /* where _d2d's size goes after the wait */
};

/* Pinned area layout. */
#define PIN_SIZE 8          /* member size, u64 */
#define PIN_FLAG 16         /* layout overflow flag, u32 */
#define PIN_HEAD 128        /* member header, or a whole empty member */
#define PIN_BYTES 256

/* Parts whose context counts are held at once. */
#define GC_CODE_BATCH 1024

/* ------------------------------------------------------------ kernels */

/* One CTA a near segment (gc_near_seg), tile by tile from its warm-up
 * on: look up, then insert where the entry the lookups saw is
 * GC_NEAR_KEEP old (the largest such position of the tile wins), as
 * gc_ref.c's ref_near. */
__global__ void k_near(gc_geom g, const uint8_t *in, uint16_t *near)
{
	extern __shared__ uint32_t tab[];
	const uint64_t nseg = gc_near_segs(&g);
	const uint64_t b = blockIdx.x / nseg;
	const uint64_t bs = b << g.block_log;
	uint64_t ws, ss, se;
	gc_near_seg(&g, b, blockIdx.x % nseg, &ws, &ss, &se);
	if (ss >= se)
		return;
	const unsigned tsz = 1u << g.near_log;
	for (unsigned i = threadIdx.x; i < tsz; i += blockDim.x)
		tab[i] = 0;
	__syncthreads();
	for (uint64_t t0 = ws; t0 < se; t0 += (uint64_t)GC_TILE * g.sym) {
		const uint64_t p = t0 + (uint64_t)threadIdx.x * g.sym;
		const uint32_t rel = (uint32_t)(p - bs) + 1;
		uint32_t h = UINT32_MAX, v = 0;
		if (p < se && p + 4 <= g.n) {
			h = gc_hash_near(in + p, g.near_log);
			v = tab[h];
			if (p >= ss)
				near[p] = (uint16_t)(v && p - (bs + v - 1) <= 0xFFFF ? p - (bs + v - 1) : 0);
		}
		__syncthreads();
		if (h != UINT32_MAX && !(v && rel - v <= GC_NEAR_KEEP))
			atomicMax(&tab[h], rel);
		__syncthreads();
	}
}

__global__ void k_far(gc_geom g, const uint8_t *in, uint32_t *far)
{
	const uint64_t p = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * g.sym;
	/* the 16 bytes at p from five aligned words, where they lie before n */
	uint32_t x[4] = {0, 0, 0, 0};
	const int words = p + 20 <= g.n;
	if (words) {
		const uint32_t *pa = (const uint32_t *)((uintptr_t)(in + p) & ~(uintptr_t)3);
		const unsigned sh = (unsigned)((uintptr_t)(in + p) & 3) * 8;
		uint32_t w0 = pa[0];
#pragma unroll
		for (unsigned i = 0; i < 4; i++) {
			const uint32_t w1 = pa[i + 1];
			x[i] = __funnelshift_r(w0, w1, sh);
			w0 = w1;
		}
	}
	for (unsigned t = 0; t < 2; t++)
		if (p + gc_far_len(t) <= g.n) {
			const int64_t k = words ? gc_far_key_w(x[0], x[1], x[2], x[3], g.far_log, t)
						: gc_far_key(in + p, g.far_log, t);
			/* (most positions of a common key find an earlier one
			 * there already: no atomic, no contention) */
			if (k >= 0 && *(volatile uint32_t *)&far[k] > (uint32_t)p)
				atomicMin(&far[k], (uint32_t)p);
		}
}

__global__ void k_find(gc_geom g, const uint8_t *in, const uint32_t *far, uint16_t *near, uint32_t *bdist)
{
	const uint64_t p = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * g.sym;
	if (p < g.n)
		gc_find_pos(&g, in, far, p, &near[p], &bdist[p]);
}

__global__ void k_parse(gc_geom g, const uint8_t *in, const uint16_t *blen, const uint32_t *bdist, uint32_t *ntok,
			gc_tok *tok)
{
	const uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (c < g.nchunks)
		ntok[c] = gc_parse_chunk(&g, in, blen, bdist, c, tok);
}

/* The sum of x over this lane and the lanes below it. */
__device__ __forceinline__ uint32_t warp_incl_sum(uint32_t x)
{
	const unsigned l = threadIdx.x % 32;
	for (int o = 1; o < 32; o <<= 1) {
		const uint32_t v = __shfl_up_sync(0xffffffffu, x, o);
		if (l >= (unsigned)o)
			x += v;
	}
	return x;
}

/* Map bytes [a, a + n) set to v: bytes up to a 16-byte boundary, whole
 * 16-byte words, bytes after; no word holds another token's bytes. */
__device__ __forceinline__ void map_fill(uint8_t *map, uint64_t a, uint32_t n, uint8_t v)
{
	const uint64_t e = a + n;
	uint64_t w = (a + 15) & ~(uint64_t)15;
	if (w > e)
		w = e;
	for (; a < w; a++)
		map[a] = v;
	const uint32_t x = v * 0x01010101u;
	for (; a + 16 <= e; a += 16)
		*(uint4 *)(map + a) = make_uint4(x, x, x, x);
	for (; a < e; a++)
		map[a] = v;
}

/* A warp a chunk, a lane a token: match bytes unresolved and levels
 * unresolved (gc_level_init), and the chunk's groups of 32 tokens for
 * k_levels: how many (ngrp) and where each starts in the chunk (gbase,
 * GC_GPC a chunk).  The chunk's map is built in the warp's shared memory,
 * then stored whole, 16 bytes a lane (each lane storing its own matches
 * straight to the map scattered its stores). */
#define GC_GPC(g) (((g).cap + 31) / 32)
#define GC_LEVEL_INIT_T 128
__global__ void __launch_bounds__(GC_LEVEL_INIT_T) k_level_init(gc_geom g, const gc_tok *tok, const uint32_t *ntok,
								 uint8_t *lev, uint8_t *map, uint32_t *ngrp,
								 uint16_t *gbase)
{
	extern __shared__ uint4 lmap[];
	const unsigned l = threadIdx.x % 32;
	const uint64_t c = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (c >= g.nchunks)
		return;
	const uint32_t csz = 1u << g.chunk_log;
	uint4 *mw = lmap + (threadIdx.x / 32) * (csz / 16);
	for (uint32_t w = l; w < csz / 16; w += 32)
		mw[w] = make_uint4(0, 0, 0, 0);
	__syncwarp();
	uint8_t *m = (uint8_t *)mw;
	const gc_tok *t = tok + c * g.cap;
	const uint32_t nt = ntok[c];
	uint32_t base = 0;
	for (uint32_t i0 = 0; i0 < nt; i0 += 32) {
		const uint32_t i = i0 + l;
		uint32_t lit = 0, mlen = 0;
		if (i < nt) {
			lit = t[i].lm & 0xFFFF, mlen = t[i].lm >> 16;
			lev[c * g.cap + i] = GC_UNRESOLVED;
		}
		const uint32_t x = lit + mlen;
		const uint32_t incl = warp_incl_sum(x);
		if (mlen)
			map_fill(m, base + (incl - x) + lit, mlen, GC_UNRESOLVED);
		if (l == 0)
			gbase[c * GC_GPC(g) + i0 / 32] = (uint16_t)base;
		base += __shfl_sync(0xffffffffu, incl, 31);
	}
	if (l == 0)
		ngrp[c] = (nt + 31) / 32;
	__syncwarp();
	/* the chunk's words (past the input's end: zeros, in the map's padding) */
	const uint64_t cs = c << g.chunk_log;
	const uint32_t nw = (uint32_t)(gc_chunk_end(&g, c) - cs + 15) / 16;
	for (uint32_t w = l; w < nw; w += 32)
		((uint4 *)(map + cs))[w] = mw[w];
}

/* Scans map bytes [a, e) from *cur (16-aligned; a & ~15 at first), read
 * past the L1 (other warps write the map), 16 bytes at a time (the map is
 * padded past the input's end), folding them into *acc, up to the first
 * word that holds an unresolved byte: true when the whole range is final.
 * Final bytes stay final, so a retry resumes there. */
__device__ __forceinline__ bool range_scan(const uint8_t *map, uint64_t a, uint64_t e, uint64_t *cur, unsigned *acc)
{
	for (uint64_t w = *cur; w < e; w += 16) {
		unsigned v[4];
		asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
			     : "l"(map + w));
		unsigned x = 0, un = 0;
#pragma unroll
		for (unsigned j = 0; j < 4; j++) {
			const uint64_t q = w + 4 * j;
			unsigned u = v[j];
			if (q + 4 <= a || q >= e)
				u = 0;
			else {
				if (q < a)
					u &= 0xFFFFFFFFu << (8 * (a - q));
				if (q + 4 > e)
					u &= 0xFFFFFFFFu >> (8 * (q + 4 - e));
			}
			x = __vmaxu4(x, u);
			un |= __vcmpeq4(u, 0xFFFFFFFFu);
		}
		if (un) {
			*cur = w;
			return false;
		}
		*acc = __vmaxu4(*acc, x);
	}
	*cur = e;
	return true;
}

/* k_levels' back-off when a warp's lanes all wait (ns, doubling from the
 * first to the last): waiting warps that poll often slow those that
 * work (bench/host/issue17-gpu-compress.md). */
#define GC_NAP_MIN 256u
#define GC_NAP_MAX 2048u

/* Levels (gc_level_chunk), a warp a group of 32 tokens, a lane a token.
 * Persistent warps take groups in content order from a ticket (*ticket;
 * group s of goff[c] <= s < goff[c] + ngrp[c] is chunk c's), so the
 * groups a token's sources lie in are done or held by running warps, and
 * waiting on them cannot deadlock.  A lane takes its level once every
 * source byte is final (map bytes are written once, unresolved to final);
 * a warp whose lanes all wait backs off.  Groups do not wait for the
 * groups before them, only for their sources: the longest wait is the
 * longest chain of matches reading matches. */
__global__ void k_levels(gc_geom g, const gc_tok *tok, const uint32_t *ntok, uint8_t *lev, uint8_t *map,
			 const uint32_t *ngrp, const uint32_t *goff, const uint16_t *gbase, uint32_t *ticket)
{
	const unsigned l = threadIdx.x % 32;
	const uint32_t total = goff[g.nchunks - 1] + ngrp[g.nchunks - 1];
	for (;;) {
		uint32_t s = 0;
		if (l == 0)
			s = atomicAdd(ticket, 1u);
		s = __shfl_sync(0xffffffffu, s, 0);
		if (s >= total)
			return;
		uint64_t lo = 0, hi = g.nchunks - 1;
		while (lo < hi) {
			const uint64_t mid = (lo + hi + 1) / 2;
			if (goff[mid] <= s)
				lo = mid;
			else
				hi = mid - 1;
		}
		const uint64_t c = lo;
		const uint32_t gi = s - goff[c];
		const uint32_t i = gi * 32 + l, nt = ntok[c];
		const gc_tok *t = tok + c * g.cap;
		uint32_t lit = 0, mlen = 0, d = 0;
		bool pend = i < nt;
		if (pend)
			lit = t[i].lm & 0xFFFF, mlen = t[i].lm >> 16, d = t[i].dist;
		const uint32_t x = lit + mlen;
		const uint32_t incl = warp_incl_sum(x);
		const uint64_t pos = (c << g.chunk_log) + gbase[c * GC_GPC(g) + gi] + (incl - x) + lit;
		const uint64_t src = pos - d, end = src + mlen < pos ? src + mlen : pos;
		uint64_t cur = src & ~(uint64_t)15;
		unsigned acc = 0;
		for (unsigned ns = GC_NAP_MIN;;) {
			bool did = false;
			if (pend && range_scan(map, src, end, &cur, &acc)) {
				const unsigned m = max(max(acc & 0xFF, (acc >> 8) & 0xFF), max((acc >> 16) & 0xFF, acc >> 24));
				/* gc_level_set, the bytes by map_fill */
				lev[c * g.cap + i] = gc_level_of(&g, m);
				map_fill(map, pos, mlen, gc_map_of(&g, m));
				pend = false;
				did = true;
			}
			__syncwarp();
			if (!__any_sync(0xffffffffu, pend))
				break;
			if (__any_sync(0xffffffffu, did)) {
				ns = GC_NAP_MIN;
			} else {
				__nanosleep(ns);
				ns = ns < GC_NAP_MAX ? 2 * ns : ns;
			}
		}
	}
}

__global__ void k_chunk_stat(gc_geom g, const gc_tok *tok, const uint32_t *ntok, const uint8_t *lev,
			     const uint8_t *map, gc_cstat *cst)
{
	const uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (c < g.nchunks)
		gc_chunk_stat(&g, tok, ntok, lev, map, c, &cst[c]);
}

__device__ __forceinline__ uint32_t warp_excl_sum(uint32_t x) { return warp_incl_sum(x) - x; }

/* gc_block_scan by a warp a block, a lane a run of its chunks (a thread a
 * block walked 1,024 chunks in turn): the runs' carries chained by a scan
 * of their transitions (a run with a kept token sets the carry and the
 * repeat offset; one without adds its bytes), then each run's sums with
 * its true carry, their offsets by a second scan, and a last walk that
 * writes them; the same fields as the reference. */

__global__ void k_block_scan(gc_geom g, gc_cstat *cst, gc_blk *blk)
{
	const uint64_t b = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const unsigned l = threadIdx.x % 32;
	if (b >= g.nblocks)
		return;
	const uint64_t per = (uint64_t)1 << (g.block_log - g.chunk_log);
	const uint64_t c0 = b * per, c1 = c0 + per < g.nchunks ? c0 + per : g.nchunks;
	const uint64_t q = (c1 - c0 + 31) / 32;
	const uint64_t a = c0 + l * q < c1 ? c0 + l * q : c1, e = a + q < c1 ? a + q : c1;
	/* the run's transition: any ? (C, P) : (carry + C, prev) */
	unsigned any = 0;
	uint32_t C = 0, P = 0;
	for (uint64_t c = a; c < e; c++) {
		if (cst[c].nk)
			any = 1, C = cst[c].tail, P = cst[c].last_dist;
		else
			C += (uint32_t)(gc_chunk_end(&g, c) - (c << g.chunk_log));
	}
	/* inclusive scan of the transitions, lane order (earlier first) */
	for (int o = 1; o < 32; o <<= 1) {
		const unsigned a2 = __shfl_up_sync(0xffffffffu, any, o);
		const uint32_t C2 = __shfl_up_sync(0xffffffffu, C, o), P2 = __shfl_up_sync(0xffffffffu, P, o);
		if (l >= (unsigned)o && !any)
			C += C2, P = P2, any = a2;
	}
	/* the state entering this run: the lanes before it applied to (0, 0) */
	/* (P stays 0 while no run has a kept token) */
	uint32_t carry = __shfl_up_sync(0xffffffffu, C, 1), prev = __shfl_up_sync(0xffffffffu, P, 1);
	if (l == 0)
		carry = 0, prev = 0;
	/* the run's sums */
	gc_scan x = {carry, prev, 0, 0, 0, 0, 0};
	uint32_t chained = 0, maxlev = 0;
	for (uint64_t c = a; c < e; c++) {
		gc_scan_chunk(&g, &cst[c], c, &x);
		chained += cst[c].chained;
		maxlev = cst[c].maxlev > maxlev ? cst[c].maxlev : maxlev;
	}
	/* where they start: the runs before, summed */
	gc_scan o = {carry, prev, warp_excl_sum(x.T), warp_excl_sum(x.lit), warp_excl_sum(x.lenb), warp_excl_sum(x.H),
		     warp_excl_sum(x.lows)};
	const uint32_t tT = __shfl_sync(0xffffffffu, o.T + x.T, 31), tlit = __shfl_sync(0xffffffffu, o.lit + x.lit, 31);
	const uint32_t tlen = __shfl_sync(0xffffffffu, o.lenb + x.lenb, 31), tH = __shfl_sync(0xffffffffu, o.H + x.H, 31);
	const uint32_t tlow = __shfl_sync(0xffffffffu, o.lows + x.lows, 31);
	for (int k = 16; k; k >>= 1) {
		chained += __shfl_xor_sync(0xffffffffu, chained, k);
		const uint32_t m = __shfl_xor_sync(0xffffffffu, maxlev, k);
		maxlev = m > maxlev ? m : maxlev;
	}
	for (uint64_t c = a; c < e; c++) {
		gc_cstat *s = &cst[c];
		s->carry_in = o.carry, s->prev_in = o.prev;
		s->o_cmd = o.T, s->o_lit = o.lit, s->o_len = o.lenb, s->o_head = o.H, s->o_low = o.lows;
		gc_scan_chunk(&g, s, c, &o);
	}
	if (l == 0) {
		gc_blk *k = &blk[b];
		k->L = (uint32_t)(gc_block_end(&g, b) - (b << g.block_log));
		k->T = tT, k->lit = tlit, k->lenb = tlen, k->H = tH, k->lows = tlow;
		k->chained = chained, k->maxlev = maxlev;
		k->rsize[0] = tT, k->rsize[1] = tlit, k->rsize[2] = tlen, k->rsize[3] = tH + tlow;
		gc_block_parts(&g, k);
	}
}

/* gc_chunk_write's cmd, len and off bytes (its literals: k_lit_write), a
 * warp a chunk, a lane a token, 32 tokens a step: each kept token's bytes
 * at offsets the warp scans, so that a step's stores lie together (a
 * thread a chunk wrote each byte apart from every other thread's).  A
 * token's literal count and repeat test read the last kept token before
 * it: the nearest kept lane below, else the steps before. */
__global__ void k_chunk_write(gc_geom g, const gc_tok *tok, const uint32_t *ntok, const uint8_t *lev,
			      const gc_cstat *cst, uint8_t *raw)
{
	const unsigned l = threadIdx.x % 32;
	const uint64_t c = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (c >= g.nchunks)
		return;
	const gc_tok *t = tok + c * g.cap;
	const uint8_t *lv = lev + c * g.cap;
	const gc_cstat *s = &cst[c];
	uint8_t *r = raw + (c >> (g.block_log - g.chunk_log)) * g.raw_stride;
	uint8_t *cmd = r + gc_raw_cmd(&g) + s->o_cmd, *len = r + gc_raw_len(&g) + s->o_len;
	uint8_t *head = r + gc_raw_head(&g) + s->o_head, *low = r + gc_raw_low(&g) + s->o_low;
	const uint32_t nt = ntok[c];
	/* before each step (positions from the chunk's start): where its
	 * tokens start, the last kept token's end and distance, and the
	 * carry, which only the chunk's first kept token adds */
	uint32_t pos = 0, last_end = 0, prev = s->prev_in, carry = s->carry_in;
	for (uint32_t i0 = 0; i0 < nt; i0 += 32) {
		const uint32_t i = i0 + l;
		uint32_t lit = 0, mlen = 0, d = 0;
		bool kept = false;
		if (i < nt) {
			const gc_tok tk = t[i];
			lit = tk.lm & 0xFFFF, mlen = tk.lm >> 16, d = tk.dist;
			kept = lv[i] <= g.depth;
		}
		const uint32_t x = lit + mlen, incl = warp_incl_sum(x);
		const uint32_t at = pos + incl - x + lit, end = at + mlen;
		const uint32_t km = __ballot_sync(0xffffffffu, kept), below = km & ((1u << l) - 1);
		const int from = below ? 31 - __clz(below) : 0;
		const uint32_t b_end = __shfl_sync(0xffffffffu, end, from), b_d = __shfl_sync(0xffffffffu, d, from);
		const uint32_t nl = at - (below ? b_end : last_end) + (below ? 0 : carry);
		const bool rep = d == (below ? b_d : prev);
		const unsigned k = kept && !rep ? gc_off_low(d) : 0;
		const uint32_t nlen = kept ? gc_len_bytes(nl, mlen) : 0;
		/* cmd, head and low byte counts in one word (at most 32, 32
		 * and 128 a step) */
		const uint32_t cnt = kept ? 1u | (rep ? 0u : 1u << 8) | k << 16 : 0;
		const uint32_t ci = warp_incl_sum(cnt), li = warp_incl_sum(nlen);
		if (kept) {
			const uint32_t o = ci - cnt;
			gc_tok_put(nl, mlen, d, rep, cmd + (o & 0xFF), len + (li - nlen), head + ((o >> 8) & 0xFF),
				   low + (o >> 16));
		}
		const uint32_t tc = __shfl_sync(0xffffffffu, ci, 31);
		cmd += tc & 0xFF, head += (tc >> 8) & 0xFF, low += tc >> 16;
		len += __shfl_sync(0xffffffffu, li, 31);
		pos += __shfl_sync(0xffffffffu, incl, 31);
		if (km) {
			const int hi = 31 - __clz(km);
			last_end = __shfl_sync(0xffffffffu, end, hi), prev = __shfl_sync(0xffffffffu, d, hi);
			carry = 0;
		}
	}
}

/* A warp a chunk: its literal bytes (map value 0) into its block's lit
 * stream from the chunk's offset on, 32 bytes a step, in order. */
__global__ void k_lit_write(gc_geom g, const uint8_t *in, const uint8_t *map, const gc_cstat *cst, uint8_t *raw)
{
	const uint64_t c = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const unsigned l = threadIdx.x % 32;
	if (c >= g.nchunks)
		return;
	const uint64_t b = c >> (g.block_log - g.chunk_log);
	uint8_t *lit = raw + b * g.raw_stride + gc_raw_lit(&g) + cst[c].o_lit;
	const uint64_t ce = gc_chunk_end(&g, c);
	uint32_t at = 0;
	for (uint64_t x0 = c << g.chunk_log; x0 < ce; x0 += 32) {
		const uint64_t x = x0 + l;
		const bool is = x < ce && map[x] == 0;
		const unsigned m = __ballot_sync(0xffffffffu, is);
		if (is)
			lit[at + __popc(m & ((1u << l) - 1))] = in[x];
		at += __popc(m);
	}
}

/* Context counts (gc_context) of a part, GC_HIST_SLICE symbols a CTA:
 * counted in shared memory, two 16-bit counts a word (a slice cannot
 * overflow one), then added to the part's counts (zeroed before), so that
 * the hot symbols of a part do not queue on global atomics. */
#define GC_HIST_SLICE 65535u
#define GC_HIST_THREADS 1024
#define GC_HIST_SMEM (WLZ_HUF_NCTX * 256 / 2 * sizeof(uint32_t))
__global__ void __launch_bounds__(GC_HIST_THREADS) k_hist(gc_geom g, const gc_blk *blk, const uint8_t *raw,
							 uint32_t *hist, uint64_t u0, unsigned per)
{
	extern __shared__ uint32_t cnt2[];
	const uint64_t u = u0 + blockIdx.x / per;
	const uint32_t j0 = (blockIdx.x % per) * GC_HIST_SLICE;
	const uint64_t b = u / GC_PARTS;
	const gc_part *pt = &blk[b].part[u % GC_PARTS];
	if (j0 >= pt->n)
		return;
	const uint32_t j1 = pt->n - j0 < GC_HIST_SLICE ? pt->n : j0 + GC_HIST_SLICE;
	for (unsigned w = threadIdx.x; w < WLZ_HUF_NCTX * 256 / 2; w += blockDim.x)
		cnt2[w] = 0;
	__syncthreads();
	const uint8_t *src = raw + b * g.raw_stride + pt->src;
	for (uint32_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
		const unsigned x = gc_context(src, pt->n, j) * 256 + src[j];
		atomicAdd(&cnt2[x / 2], 1u << (x % 2 * 16));
	}
	__syncthreads();
	uint32_t *h = hist + (uint64_t)(blockIdx.x / per) * WLZ_HUF_NCTX * 256;
	for (unsigned w = threadIdx.x; w < WLZ_HUF_NCTX * 256 / 2; w += blockDim.x) {
		const uint32_t v = cnt2[w];
		if (v & 0xFFFF)
			atomicAdd(&h[2 * w], v & 0xFFFF);
		if (v >> 16)
			atomicAdd(&h[2 * w + 1], v >> 16);
	}
}

/* The lane kernels: a CTA of GC_LANE_WARPS warps, a warp a (block, part,
 * segment), a lane a thread.  A part's segments are a multiple of
 * GC_LANE_WARPS (at least 4: blocks of 64 KiB or more), so a CTA's warps
 * share their part, whose codes the CTA copies into shared memory first:
 * read from global memory, every symbol's two dependent lookups went to
 * L2, as the CTAs on an SM hold many parts' tables. */
#define GC_LANE_WARPS 4
/* (wlz_gc_geom allows blocks of 2^16 bytes or more) */
static_assert(((1u << 16) >> GC_SEG_LOG) % GC_LANE_WARPS == 0, "a CTA's warps share a part");

/* A part's codes: code | bits << 16 for each (table, symbol), and the
 * table after each symbol. */
struct lane_code {
	uint32_t cb[GC_TMAX * 256];
	uint8_t next[256];
};

/* The CTA's part (u) and whether it has huf lanes; *c filled when so.
 * Every thread of the CTA calls it (it waits at a barrier). */
__device__ __forceinline__ bool lane_code_load(const gc_geom &g, const gc_blk *blk, const gc_code *code, bool write,
					       lane_code *c, uint64_t *u)
{
	*u = (uint64_t)blockIdx.x * GC_LANE_WARPS / g.segmax;
	if (*u >= g.nblocks * GC_PARTS)
		return false;
	const gc_blk *k = &blk[*u / GC_PARTS];
	const gc_part *pt = &k->part[*u % GC_PARTS];
	if (pt->kind != GC_HUF || (write && k->codec[pt->stream] != 2))
		return false;
	const gc_code *cu = &code[*u];
	const unsigned T = cu->T;
	for (unsigned i = threadIdx.x; i < T * 256; i += blockDim.x)
		c->cb[i] = cu->code[i / 256][i % 256] | (uint32_t)cu->bits[i / 256][i % 256] << 16;
	for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
		c->next[i] = cu->next[i];
	__syncthreads();
	return true;
}

/* Lane l of segment sg of a part of n symbols at src: its bits counted
 * (dst NULL: returns its bytes) or written to dst, as gc_lane_bytes and
 * gc_lane_write.  The symbols are read four at a time from aligned words
 * (a lane's words may reach up to 3 bytes past its symbols on either
 * side, into the parts or the block beside it: all in the raw area, which
 * nothing writes meanwhile, and those bytes are not used). */
/* its accumulator: under 8 bits and a step's four codes while dst is not
 * aligned; then, after the bytes that align dst, at most a code less than
 * that and one code more before a word goes out; under 32 bits and a code
 * after that */
static_assert(4 * GC_MAXBITS + 7 <= 64 && 5 * GC_MAXBITS - 1 <= 64 && GC_MAXBITS + 31 <= 64,
	      "lane_walk: accumulator too small");
__device__ __forceinline__ uint32_t lane_walk(const uint8_t *src, uint32_t n, const lane_code *c, uint32_t sg,
					      unsigned l, uint8_t *dst)
{
	const uint32_t s0 = sg << GC_SEG_LOG;
	const uint32_t m = n - s0 < ((uint32_t)1 << GC_SEG_LOG) ? n - s0 : (uint32_t)1 << GC_SEG_LOG;
	const uint32_t q = gc_lane_q(m);
	const uint32_t a = l * q < m ? l * q : m, e = (l + 1) * q < m ? (l + 1) * q : m;
	const uint8_t *p = src + s0 + a;
	const uint32_t *wp = (const uint32_t *)((uintptr_t)p & ~(uintptr_t)3);
	const unsigned sh = (unsigned)((uintptr_t)p & 3) * 8;
	uint64_t acc = 0, bits = 0;
	unsigned nb = 0, t = 0;
	uint32_t w0 = a < e ? wp[0] : 0;
	for (uint32_t i = a; i < e; i += 4) {
		/* the next word, where this step's bytes or the next step's
		 * reach into it */
		const uint32_t w1 = i + 4 - sh / 8 < e ? wp[1] : 0;
		uint32_t x = __funnelshift_r(w0, w1, sh);
		wp++;
		w0 = w1;
		const unsigned k = e - i < 4 ? e - i : 4;
		for (unsigned j = 0; j < k; j++, x >>= 8) {
			const uint8_t s = (uint8_t)x;
			const uint32_t v = c->cb[t * 256 + s];
			t = c->next[s];
			if (!dst) {
				bits += v >> 16;
				continue;
			}
			acc |= (uint64_t)(v & 0xFFFF) << nb;
			nb += v >> 16;
			/* whole aligned words once dst is aligned: each word
			 * holds this lane's bytes alone */
			if (nb >= 32 && !((uintptr_t)dst & 3)) {
				*(uint32_t *)dst = (uint32_t)acc;
				dst += 4, acc >>= 32, nb -= 32;
			}
		}
		if (dst)
			for (; nb >= 8 && ((uintptr_t)dst & 3); nb -= 8, acc >>= 8)
				*dst++ = (uint8_t)acc;
	}
	if (dst) {
		for (; nb >= 8; nb -= 8, acc >>= 8)
			*dst++ = (uint8_t)acc;
		if (nb)
			*dst = (uint8_t)acc;
	}
	return (uint32_t)((bits + 7) / 8);
}

__global__ void __launch_bounds__(GC_LANE_WARPS * 32) k_lanes(gc_geom g, const gc_blk *blk, const uint8_t *raw,
								 const gc_code *code, uint32_t *lanes)
{
	__shared__ lane_code c;
	uint64_t u;
	if (!lane_code_load(g, blk, code, false, &c, &u))
		return;
	const uint64_t w = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const unsigned l = threadIdx.x % 32;
	const uint32_t sg = (uint32_t)(w % g.segmax);
	const gc_part *pt = &blk[u / GC_PARTS].part[u % GC_PARTS];
	if (((uint64_t)sg << GC_SEG_LOG) >= pt->n)
		return;
	const uint8_t *src = raw + (u / GC_PARTS) * g.raw_stride + pt->src;
	lanes[w * 32 + l] = lane_walk(src, pt->n, &c, sg, l, NULL);
}

GC_HD uint32_t seg_size(const uint32_t *lanes)
{
	uint32_t t = 2 * (GC_LANES - 1);
	for (unsigned l = 0; l < GC_LANES; l++)
		t += lanes[l];
	return t;
}

/* One thread a block: huf body sizes, codecs, payload size. */
__global__ void k_layout(gc_geom g, gc_blk *blk, const gc_code *code, const uint32_t *lanes, uint64_t *psz,
			 uint64_t *fsz, uint32_t *flag)
{
	const uint64_t b = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= g.nblocks)
		return;
	gc_blk *k = &blk[b];
	for (unsigned i = 0; i < GC_PARTS; i++) {
		gc_part *pt = &k->part[i];
		if (pt->kind != GC_HUF)
			continue;
		const uint32_t G = (pt->n + (1u << GC_SEG_LOG) - 1) >> GC_SEG_LOG;
		uint32_t c = gc_huf_prelude(pt->k, code[b * GC_PARTS + i].T, G);
		for (uint32_t s = 0; s < G; s++)
			c += seg_size(lanes + ((b * GC_PARTS + i) * g.segmax + s) * 32);
		pt->c = c;
	}
	gc_block_layout(k);
	if (k->P > k->L + k->L / 4 + 8)
		atomicOr(flag, 1u);
	psz[b] = ((uint64_t)k->P + 7) & ~(uint64_t)7;
	fsz[b] = 80 + (uint64_t)k->P;
}

__global__ void k_offsets(gc_geom g, gc_blk *blk, const uint64_t *soff, const uint64_t *foff, uint64_t *hoff,
			  uint64_t *hlen, uint64_t *poff, uint64_t *plen, uint64_t *coff, uint64_t *clen)
{
	const uint64_t b = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= g.nblocks)
		return;
	blk[b].stage = soff[b];
	blk[b].final = 32 + foff[b];
	poff[b] = soff[b], plen[b] = blk[b].P;
	coff[b] = b << g.block_log, clen[b] = blk[b].L;
	hoff[b] = 80 * b, hlen[b] = 72;
}

/* gc_huf_prelude_write's bytes, by a warp: the tables' bitmap from
 * ballots, each nibble of the next tables and lengths from the present
 * symbol of its rank (rk: the warp's 256 bytes of shared scratch), and
 * the segment sizes a lane a segment.  (A thread a part wrote them byte
 * by byte, 740 threads in all for Illumina: bench/host/issue17-r26.md.) */
__device__ void warp_prelude_write(uint8_t *p, const gc_code *cd, const uint32_t *lanes, uint32_t G, uint8_t *rk)
{
	const unsigned lane = threadIdx.x % 32, T = cd->T;
	if (lane == 0)
		p[0] = GC_SEG_LOG, p[1] = (uint8_t)T;
	unsigned k = 0;
	for (unsigned j = 0; j < 8; j++) {
		const unsigned x = 32 * j + lane;
		bool pr = false;
		for (unsigned t = 0; t < T; t++)
			pr |= cd->len[t][x] != 0;
		const unsigned m = __ballot_sync(0xFFFFFFFFu, pr);
		if (lane < 4)
			p[2 + 4 * j + lane] = (uint8_t)(m >> (8 * lane));
		if (pr)
			rk[k + __popc(m & ((1u << lane) - 1))] = (uint8_t)x;
		k += __popc(m);
	}
	__syncwarp();
	/* round 0 the next tables (where there are several), then each
	 * table's lengths; two nibbles a byte, the first low */
	const unsigned n = (T > 1 ? T + 1 : T) * k, nb = (n + 1) / 2;
	uint8_t *q = p + 34;
	for (unsigned b = lane; b < nb; b += 32) {
		unsigned v = 0;
		for (unsigned h = 0; h < 2 && 2 * b + h < n; h++) {
			const unsigned e = 2 * b + h, r = e / k, x = rk[e % k];
			v |= (T > 1 ? (r ? cd->len[r - 1][x] : cd->next[x]) : cd->len[r][x]) << (4 * h);
		}
		q[b] = (uint8_t)v;
	}
	q += nb;
	for (uint32_t s = lane; s < G; s += 32) {
		const uint32_t z = seg_size(lanes + 32 * s);
		q[4 * s] = (uint8_t)z, q[4 * s + 1] = (uint8_t)(z >> 8);
		q[4 * s + 2] = (uint8_t)(z >> 16), q[4 * s + 3] = (uint8_t)(z >> 24);
	}
}

/* A warp a (block, part): the codec-2 part lists (lane 0, parts of
 * streams 0 to 3), the huf preludes and run bytes. */
#define META_T 128
__global__ void __launch_bounds__(META_T) k_write_meta(gc_geom g, const gc_blk *blk, const uint8_t *raw,
						       const gc_code *code, const uint32_t *lanes, uint8_t *stage)
{
	__shared__ uint8_t rank[META_T / 32][256];
	const uint64_t u = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const unsigned lane = threadIdx.x % 32;
	if (u >= g.nblocks * GC_PARTS)
		return;
	const uint64_t b = u / GC_PARTS;
	const unsigned i = (unsigned)(u % GC_PARTS);
	const gc_blk *k = &blk[b];
	uint8_t *pay = stage + k->stage;
	if (i < 4 && lane == 0)
		gc_stream_head_write(k, i, pay);
	const gc_part *pt = &k->part[i];
	if (k->codec[pt->stream] != 2)
		return;
	if (pt->kind == GC_RUN) {
		if (lane == 0)
			pay[pt->dst] = raw[b * g.raw_stride + pt->src];
	} else if (pt->kind == GC_HUF) {
		const uint32_t G = (pt->n + (1u << GC_SEG_LOG) - 1) >> GC_SEG_LOG;
		warp_prelude_write(pay + pt->dst, &code[u], lanes + u * g.segmax * 32, G, rank[threadIdx.x / 32]);
	}
}

/* GC_COPY_CTAS CTAs a (block, part), as k_assemble's: bytes stored as
 * they are (raw parts, and every part of a raw stream). */
__global__ void k_write_raw(gc_geom g, const gc_blk *blk, const uint8_t *raw, uint8_t *stage)
{
	const uint64_t b = blockIdx.x / GC_PARTS;
	const unsigned i = blockIdx.x % GC_PARTS;
	const gc_blk *k = &blk[b];
	const gc_part *pt = &k->part[i];
	if (pt->kind == GC_EMPTY || (k->codec[pt->stream] == 2 && pt->kind != GC_RAW))
		return;
	const uint8_t *src = raw + b * g.raw_stride + pt->src;
	uint8_t *dst = stage + k->stage + pt->dst;
	for (uint32_t j = blockIdx.y * blockDim.x + threadIdx.x; j < pt->n; j += gridDim.y * blockDim.x)
		dst[j] = src[j];
}

/* Lane kernels' layout (above): lane sizes and lane bits. */
__global__ void __launch_bounds__(GC_LANE_WARPS * 32) k_write_lanes(gc_geom g, const gc_blk *blk, const uint8_t *raw,
								       const gc_code *code, const uint32_t *lanes,
								       uint8_t *stage)
{
	__shared__ lane_code c;
	uint64_t u;
	if (!lane_code_load(g, blk, code, true, &c, &u))
		return;
	const uint64_t w = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const unsigned l = threadIdx.x % 32;
	const uint32_t sg = (uint32_t)(w % g.segmax);
	const gc_blk *k = &blk[u / GC_PARTS];
	const gc_part *pt = &k->part[u % GC_PARTS];
	if (((uint64_t)sg << GC_SEG_LOG) >= pt->n)
		return;
	const uint32_t G = (pt->n + (1u << GC_SEG_LOG) - 1) >> GC_SEG_LOG;
	const uint32_t *ls = lanes + u * g.segmax * 32;
	/* the segment's start: the segments before it, summed by the warp */
	uint32_t before = 0;
	for (uint32_t s = l; s < sg; s += 32)
		before += seg_size(ls + s * 32);
	for (int o = 16; o; o >>= 1)
		before += __shfl_xor_sync(0xffffffffu, before, o);
	uint8_t *seg = stage + k->stage + pt->dst + gc_huf_prelude(pt->k, code[u].T, G) + before;
	const uint32_t mine = ls[sg * 32 + l];
	uint32_t at = mine;
	for (int o = 1; o < 32; o <<= 1) {
		const uint32_t v = __shfl_up_sync(0xffffffffu, at, o);
		if (l >= (unsigned)o)
			at += v;
	}
	at -= mine;  /* exclusive: lane l's bytes start after lanes 0..l-1 */
	if (l < GC_LANES - 1)
		seg[2 * l] = (uint8_t)mine, seg[2 * l + 1] = (uint8_t)(mine >> 8);
	const uint8_t *src = raw + (u / GC_PARTS) * g.raw_stride + pt->src;
	lane_walk(src, pt->n, &c, sg, l, seg + 2 * (GC_LANES - 1) + at);
}

__global__ void k_one(uint64_t *off, uint64_t *len, uint64_t n)
{
	*off = 0;
	*len = n;
}

__global__ void k_bhead(gc_geom g, gc_blk *blk, const uint64_t *chash, const uint64_t *phash, uint8_t *hdr)
{
	const uint64_t b = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= g.nblocks)
		return;
	blk[b].content_hash = chash[b];
	blk[b].payload_hash = phash[b];
	gc_block_header(&blk[b], hdr + 80 * b);
}

/* GC_COPY_CTAS CTAs a block (blockIdx.y, each every GC_COPY_CTAS-th
 * stretch of blockDim.x bytes): a block's header (with the checksum) and
 * payload into place.  (One CTA a block left most SMs idle and each
 * thread a thousand byte copies in turn: bench/host/issue17-r26.md.) */
#define GC_COPY_CTAS 16
__global__ void k_assemble(gc_geom g, const gc_blk *blk, const uint8_t *hdr, const uint64_t *hhash,
			   const uint8_t *stage, uint8_t *out)
{
	const uint64_t b = blockIdx.x;
	const gc_blk *k = &blk[b];
	uint8_t *d = out + k->final;
	if (blockIdx.y == 0)
		for (unsigned j = threadIdx.x; j < 80; j += blockDim.x)
			d[j] = j < 72 ? hdr[80 * b + j] : (uint8_t)(hhash[b] >> (8 * (j - 72)));
	const uint8_t *s = stage + k->stage;
	for (uint32_t j = blockIdx.y * blockDim.x + threadIdx.x; j < k->P; j += gridDim.y * blockDim.x)
		d[80 + j] = s[j];
}

/* The index (but its checksum) in an aligned scratch. */
__global__ void k_index(gc_geom g, const gc_blk *blk, const uint64_t *chash, const uint64_t *digest,
			uint8_t *idx)
{
	const uint64_t nb = g.nblocks;
	for (uint64_t b = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nb; b += (uint64_t)gridDim.x * blockDim.x)
		for (unsigned i = 0; i < 8; i++) {
			idx[16 + 16 * b + i] = (uint8_t)(blk[b].final >> (8 * i));
			idx[24 + 16 * b + i] = (uint8_t)(chash[b] >> (8 * i));
		}
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		idx[0] = 'w', idx[1] = 'l', idx[2] = 'z', idx[3] = 'I';
		for (unsigned i = 4; i < 8; i++)
			idx[i] = 0;
		for (unsigned i = 0; i < 8; i++) {
			idx[8 + i] = (uint8_t)(nb >> (8 * i));
			idx[16 + 16 * nb + i] = (uint8_t)(g.n >> (8 * i));
			idx[24 + 16 * nb + i] = (uint8_t)(*digest >> (8 * i));
		}
	}
}

/* The index's checksum, the footer, and both into place after the blocks;
 * the member header at the start. */
__global__ void k_tail(gc_geom g, const uint8_t *idx, const uint64_t *ihash, const uint64_t *foff,
		       const uint64_t *fsz, const uint8_t *head, uint8_t *out, uint64_t *size)
{
	const uint64_t nb = g.nblocks;
	const uint64_t at = 32 + (nb ? foff[nb - 1] + fsz[nb - 1] : 0);
	const uint64_t il = 40 + 16 * nb;
	for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < il + 24 + 32;
	     j += (uint64_t)gridDim.x * blockDim.x) {
		if (j < il - 8)
			out[at + j] = idx[j];
		else if (j < il)
			out[at + j] = (uint8_t)(*ihash >> (8 * (j - (il - 8))));
		else if (j < il + 8)
			out[at + j] = (uint8_t)(at >> (8 * (j - il)));
		else if (j < il + 16)
			out[at + j] = (uint8_t)((at + il + 24) >> (8 * (j - il - 8)));
		else if (j < il + 24)
			out[at + j] = (uint8_t)("wlzEND\r\n"[j - il - 16]);
		else
			out[j - il - 24] = head[j - il - 24];
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*size = at + il + 24;
}

/* ------------------------------------------------------------ context */

wlz_gcctx *wlz_gcctx_create(int device)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n || cudaSetDevice(device) != cudaSuccess)
		return NULL;
	wlz_gcctx *g = (wlz_gcctx *)calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->device = device;
	if (cudaStreamCreateWithFlags(&g->own, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaMallocHost((void **)&g->pin, PIN_BYTES) != cudaSuccess) {
		if (g->own)
			cudaStreamDestroy(g->own);
		free(g);
		return NULL;
	}
	for (int i = 0; i < EV_COUNT; i++)
		cudaEventCreate(&g->ev[i]);
	cudaEventCreateWithFlags(&g->legacy, cudaEventDisableTiming);
	/* k_hist's 129 KiB of shared memory a block: sm_80 and sm_90 have it,
	 * sm_86 and sm_89 not (no context there) */
	if (cudaFuncSetAttribute(k_code, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)GC_CODE_SMEM) != cudaSuccess ||
	    cudaFuncSetAttribute(k_hist, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)GC_HIST_SMEM) != cudaSuccess) {
		cudaGetLastError();
		wlz_gcctx_free(g);
		return NULL;
	}
	int sms = 0, per = 0;
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_levels, 128, 0);
	g->lev_ctas = (unsigned)(sms > 0 && per > 0 ? sms * per : 1);
	g->prof = getenv("WLZ_GC_PROFILE") && atoi(getenv("WLZ_GC_PROFILE"));
	for (int i = 0; g->prof && i < 64; i++)
		cudaEventCreate(&g->pev[i]);
	return g;
}

void wlz_gcctx_free(wlz_gcctx *g)
{
	if (!g)
		return;
	cudaSetDevice(g->device);
	cudaStreamSynchronize(g->own);
	for (int i = 0; i < EV_COUNT; i++)
		cudaEventDestroy(g->ev[i]);
	cudaEventDestroy(g->legacy);
	for (int i = 0; g->prof && i < 64; i++)
		cudaEventDestroy(g->pev[i]);
	cudaFree(g->arena);
	cudaFreeHost(g->pin);
	cudaStreamDestroy(g->own);
	free(g);
}

void wlz_gcctx_stats(const wlz_gcctx *g, wlz_gpu_cstats *s)
{
	memset(s, 0, sizeof(*s));
	if (!g)
		return;
	float ms[EV_COUNT] = {0};
	for (int i = 1; i < EV_COUNT; i++)
		if (cudaEventElapsedTime(&ms[i], g->ev[i - 1], g->ev[i]) != cudaSuccess)
			ms[i] = 0;
	s->tables_s = ms[EV_TABLES] / 1e3;
	s->find_s = ms[EV_FIND] / 1e3;
	s->parse_s = ms[EV_PARSE] / 1e3;
	s->levels_s = ms[EV_LEVELS] / 1e3;
	s->streams_s = ms[EV_STREAMS] / 1e3;
	s->entropy_s = ms[EV_ENTROPY] / 1e3;
	s->finish_s = ms[EV_END] / 1e3;
}

/* Device buffers of one member of n bytes, carved from the arena. */
struct bufs {
	uint16_t *near;
	uint32_t *bdist;
	uint32_t *far, *ntok, *hist, *lanes, *flag, *lsync, *ngrp, *goff;
	uint16_t *gbase;
	gc_tok *tok;
	uint8_t *lev, *map, *raw, *stage, *hdr, *idx, *head, *in, *out;
	gc_cstat *cst;
	gc_blk *blk;
	gc_code *code;
	uint64_t *psz, *soff, *fsz, *foff, *hoff, *hlen, *poff, *plen, *coff, *clen, *chash, *phash, *hhash, *dig,
		*ihash, *one_off, *one_len, *size;
	uint8_t *xs;
	void *cub;
	size_t cub_bytes;
};

/* need_in: 1 an input buffer, 2 an output buffer as well. */
static size_t carve(const gc_geom *g, uint8_t *base, struct bufs *b, size_t cub_bytes, size_t xs_bytes, int need_in)
{
	size_t at = 0;
#define TAKE(ptr, type, count)                                                                   \
	do {                                                                                     \
		if (base)                                                                        \
			b->ptr = (type *)(base + at);                                            \
		at += ((size_t)(count) * sizeof(type) + 255) & ~(size_t)255;                     \
	} while (0)
	const uint64_t nb = g->nblocks + 1, nc = g->nchunks + 1;
	TAKE(near, uint16_t, g->n + 16);
	TAKE(bdist, uint32_t, g->n + 16);
	TAKE(far, uint32_t, (uint64_t)2 << g->far_log);
	TAKE(ntok, uint32_t, nc);
	TAKE(tok, gc_tok, nc * g->cap);
	TAKE(lev, uint8_t, nc * g->cap);
	TAKE(map, uint8_t, g->n + 16);
	TAKE(lsync, uint32_t, 1);
	TAKE(ngrp, uint32_t, nc);
	TAKE(goff, uint32_t, nc);
	TAKE(gbase, uint16_t, nc * GC_GPC(*g));
	TAKE(cst, gc_cstat, nc);
	TAKE(blk, gc_blk, nb);
	TAKE(raw, uint8_t, nb * g->raw_stride);
	TAKE(hist, uint32_t, (nb * GC_PARTS < GC_CODE_BATCH ? nb * GC_PARTS : GC_CODE_BATCH) * WLZ_HUF_NCTX * 256);
	TAKE(code, gc_code, nb * GC_PARTS);
	TAKE(lanes, uint32_t, nb * GC_PARTS * g->segmax * 32);
	TAKE(stage, uint8_t, g->n + g->n / 4 + 16 * nb + 64);
	TAKE(hdr, uint8_t, 80 * nb);
	TAKE(idx, uint8_t, 40 + 16 * nb + 64);
	TAKE(head, uint8_t, 32);
	TAKE(flag, uint32_t, 1);
	TAKE(psz, uint64_t, nb);
	TAKE(soff, uint64_t, nb);
	TAKE(fsz, uint64_t, nb);
	TAKE(foff, uint64_t, nb);
	TAKE(hoff, uint64_t, nb);
	TAKE(hlen, uint64_t, nb);
	TAKE(poff, uint64_t, nb);
	TAKE(plen, uint64_t, nb);
	TAKE(coff, uint64_t, nb);
	TAKE(clen, uint64_t, nb);
	TAKE(chash, uint64_t, nb);
	TAKE(phash, uint64_t, nb);
	TAKE(hhash, uint64_t, nb);
	TAKE(dig, uint64_t, 1);
	TAKE(ihash, uint64_t, 1);
	TAKE(one_off, uint64_t, 1);
	TAKE(one_len, uint64_t, 1);
	TAKE(size, uint64_t, 1);
	TAKE(xs, uint8_t, xs_bytes);
	TAKE(cub, uint8_t, cub_bytes);
	if (need_in)
		TAKE(in, uint8_t, g->n + 16);
	if (need_in > 1)
		TAKE(out, uint8_t, wlz_gc_member_bound(g->n, g->block_log));
#undef TAKE
	b->cub_bytes = cub_bytes;
	return at;
}

#define PROF(name)                                                                     \
	do {                                                                           \
		if (g->prof && g->nprof < 64) {                                        \
			g->pname[g->nprof] = name;                                     \
			cudaEventRecord(g->pev[g->nprof++], st);                       \
		}                                                                      \
	} while (0)

static unsigned grid(uint64_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

/* Queues one member: d_in (n bytes, device) to d_out (device, at least
 * wlz_gc_member_bound), on g->st.  in_host: the input is host memory to
 * upload first.  A device input off a 16-byte boundary is copied to one
 * first: the checksums and match lengths read aligned words. */
static wlz_error member(wlz_gcctx *g, const wlz_gpu_copts *o, const uint8_t *src, int in_host, uint64_t n,
			uint8_t *d_out, uint8_t **used)
{
	wlz_error err = WLZ_OK;
	gc_geom geom;
	struct bufs b;
	memset(&b, 0, sizeof(b));
	err = wlz_gc_geom(&geom, n, o);
	if (err)
		return err;
	const gc_geom *gm = &geom;
	const uint64_t nb = gm->nblocks, nc = gm->nchunks;
	size_t cub_bytes = 0, cub_groups = 0;
	size_t need;
	const uint8_t *in;
	cudaStream_t st = g->st;
	const int stage = in_host ? 2 : ((uintptr_t)src & 15) != 0;
	CU(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, (uint64_t *)NULL, (uint64_t *)NULL, (int)(nb + 1)), "scan size");
	CU(cub::DeviceScan::ExclusiveSum(NULL, cub_groups, (uint32_t *)NULL, (uint32_t *)NULL, (int)nc), "scan size");
	cub_bytes = cub_bytes > cub_groups ? cub_bytes : cub_groups;
	{
		const uint64_t span = n + n / 4 + 16 * (nb + 1) + 64 + 80 * (nb + 1);
		const size_t xs = wlz_gpu_xxh3_scratch(span > 8 * (nb + 1) ? span : 8 * (nb + 1));
		need = carve(gm, NULL, &b, cub_bytes, xs, stage);
		if (need > g->arena_size) {
			cudaFree(g->arena);
			g->arena = NULL;
			g->arena_size = 0;
			CU(cudaMalloc(&g->arena, need), "memory");
			g->arena_size = need;
		}
		carve(gm, (uint8_t *)g->arena, &b, cub_bytes, xs, stage);
	}
	if (in_host) {
		CU(cudaMemcpyAsync(b.in, src, n, cudaMemcpyHostToDevice, st), "upload");
		in = b.in;
		d_out = b.out;
	} else if (stage) {
		CU(cudaMemcpyAsync(b.in, src, n, cudaMemcpyDeviceToDevice, st), "copy");
		in = b.in;
	} else {
		in = src;
	}
	wlz_gc_member_head(gm, g->pin + PIN_HEAD);
	CU(cudaMemcpyAsync(b.head, g->pin + PIN_HEAD, 32, cudaMemcpyHostToDevice, st), "header");
	CU(cudaMemsetAsync(b.flag, 0, 4, st), "flag");
	cudaEventRecord(g->ev[EV_START], st);
	g->nprof = 0;
	PROF("start");
	{
		/* find */
		if (gm->sym > 1)
			CU(cudaMemsetAsync(b.near, 0, 2 * n, st), "near");
		k_near<<<(unsigned)(nb * gc_near_segs(gm)), GC_TILE, sizeof(uint32_t) << gm->near_log, st>>>(geom, in, b.near);
		PROF("near");
		CU(cudaMemsetAsync(b.far, 0xFF, sizeof(uint32_t) << (gm->far_log + 1), st), "far");
		k_far<<<grid(n / gm->sym + 1, 256), 256, 0, st>>>(geom, in, b.far);
		PROF("far");
		cudaEventRecord(g->ev[EV_TABLES], st);
		k_find<<<grid(n / gm->sym + 1, 256), 256, 0, st>>>(geom, in, b.far, b.near, b.bdist);
		PROF("find");
		cudaEventRecord(g->ev[EV_FIND], st);
		k_parse<<<grid(nc, 64), 64, 0, st>>>(geom, in, b.near, b.bdist, b.ntok, b.tok);
		PROF("parse");
		cudaEventRecord(g->ev[EV_PARSE], st);
		/* levels */
		/* k_level_init writes the map up to a 16-byte word past n: its
		 * padding's last word zeroed here */
		CU(cudaMemsetAsync(b.map + (n & ~(uint64_t)15), 0, n + 16 - (n & ~(uint64_t)15), st), "map");
		k_level_init<<<grid(nc * 32, GC_LEVEL_INIT_T), GC_LEVEL_INIT_T, GC_LEVEL_INIT_T / 32 << gm->chunk_log, st>>>(
			geom, b.tok, b.ntok, b.lev, b.map, b.ngrp, b.gbase);
		PROF("level init");
		cub_groups = b.cub_bytes;
		CU(cub::DeviceScan::ExclusiveSum(b.cub, cub_groups, b.ngrp, b.goff, (int)nc, st), "scan");
		CU(cudaMemsetAsync(b.lsync, 0, sizeof(uint32_t), st), "memset");
		k_levels<<<g->lev_ctas, 128, 0, st>>>(geom, b.tok, b.ntok, b.lev, b.map, b.ngrp, b.goff, b.gbase, b.lsync);
		PROF("levels");
		cudaEventRecord(g->ev[EV_LEVELS], st);
		/* token streams */
		k_chunk_stat<<<grid(nc, 128), 128, 0, st>>>(geom, b.tok, b.ntok, b.lev, b.map, b.cst);
		PROF("chunk stat");
		k_block_scan<<<grid(nb * 32, 128), 128, 0, st>>>(geom, b.cst, b.blk);
		PROF("block scan");
		k_chunk_write<<<grid(nc * 32, 128), 128, 0, st>>>(geom, b.tok, b.ntok, b.lev, b.cst, b.raw);
		PROF("chunk write");
		k_lit_write<<<grid(nc * 32, 128), 128, 0, st>>>(geom, in, b.map, b.cst, b.raw);
		PROF("literals");
		cudaEventRecord(g->ev[EV_STREAMS], st);
		/* codec 2 */
		/* parts' context counts (257 KB a part) for
		 * GC_CODE_BATCH parts at a time */
		const unsigned per = (unsigned)((((uint64_t)1 << gm->block_log) + GC_HIST_SLICE - 1) / GC_HIST_SLICE);
		for (uint64_t u0 = 0; u0 < nb * GC_PARTS; u0 += GC_CODE_BATCH) {
			const uint64_t m = nb * GC_PARTS - u0 < GC_CODE_BATCH ? nb * GC_PARTS - u0 : GC_CODE_BATCH;
			CU(cudaMemsetAsync(b.hist, 0, m * WLZ_HUF_NCTX * 256 * sizeof(uint32_t), st), "memset");
			k_hist<<<(unsigned)(m * per), GC_HIST_THREADS, GC_HIST_SMEM, st>>>(geom, b.blk, b.raw, b.hist, u0, per);
			PROF("hist");
			k_code<<<(unsigned)m, GC_CODE_THREADS, GC_CODE_SMEM, st>>>(b.blk, b.hist, b.code, u0);
			PROF("code");
		}
		const uint64_t warps = nb * GC_PARTS * gm->segmax;
		k_lanes<<<grid(warps * 32, GC_LANE_WARPS * 32), GC_LANE_WARPS * 32, 0, st>>>(geom, b.blk, b.raw, b.code,
											       b.lanes);
		PROF("lanes");
		k_layout<<<grid(nb, 64), 64, 0, st>>>(geom, b.blk, b.code, b.lanes, b.psz, b.fsz, b.flag);
		PROF("layout");
		size_t cb = b.cub_bytes;
		CU(cub::DeviceScan::ExclusiveSum(b.cub, cb, b.psz, b.soff, (int)nb, st), "scan");
		cb = b.cub_bytes;
		CU(cub::DeviceScan::ExclusiveSum(b.cub, cb, b.fsz, b.foff, (int)nb, st), "scan");
		k_offsets<<<grid(nb, 64), 64, 0, st>>>(geom, b.blk, b.soff, b.foff, b.hoff, b.hlen, b.poff, b.plen,
						      b.coff, b.clen);
		PROF("scans, offsets");
		k_write_meta<<<grid(nb * GC_PARTS * 32, META_T), META_T, 0, st>>>(geom, b.blk, b.raw, b.code, b.lanes,
										    b.stage);
		PROF("write meta");
		k_write_raw<<<dim3((unsigned)(nb * GC_PARTS), GC_COPY_CTAS), 256, 0, st>>>(geom, b.blk, b.raw, b.stage);
		PROF("write raw");
		k_write_lanes<<<grid(warps * 32, GC_LANE_WARPS * 32), GC_LANE_WARPS * 32, 0, st>>>(
			geom, b.blk, b.raw, b.code, b.lanes, b.stage);
		PROF("write lanes");
		cudaEventRecord(g->ev[EV_ENTROPY], st);
		/* checksums and assembly */
		if (wlz_gpu_xxh3(in, b.coff, b.clen, b.chash, nb, (uint64_t *)b.xs, st) ||
		    wlz_gpu_xxh3(b.stage, b.poff, b.plen, b.phash, nb, (uint64_t *)b.xs, st)) {
			err = wlz_fail(WLZ_ERR_GPU, "GPU compression: checksums");
			goto out;
		}
		PROF("checksums");
		k_bhead<<<grid(nb, 64), 64, 0, st>>>(geom, b.blk, b.chash, b.phash, b.hdr);
		PROF("block headers");
		if (wlz_gpu_xxh3(b.hdr, b.hoff, b.hlen, b.hhash, nb, (uint64_t *)b.xs, st)) {
			err = wlz_fail(WLZ_ERR_GPU, "GPU compression: checksums");
			goto out;
		}
		k_assemble<<<dim3((unsigned)nb, GC_COPY_CTAS), 256, 0, st>>>(geom, b.blk, b.hdr, b.hhash, b.stage, d_out);
		PROF("assemble");
		/* the index: its digest hashes the content checksums back to back */
		k_one<<<1, 1, 0, st>>>(b.one_off, b.one_len, 8 * nb);
		if (wlz_gpu_xxh3((const uint8_t *)b.chash, b.one_off, b.one_len, b.dig, 1, (uint64_t *)b.xs, st)) {
			err = wlz_fail(WLZ_ERR_GPU, "GPU compression: checksums");
			goto out;
		}
		k_index<<<grid(nb, 128), 128, 0, st>>>(geom, b.blk, b.chash, b.dig, b.idx);
		PROF("index");
		k_one<<<1, 1, 0, st>>>(b.one_off, b.one_len, 32 + 16 * nb);
		if (wlz_gpu_xxh3(b.idx, b.one_off, b.one_len, b.ihash, 1, (uint64_t *)b.xs, st)) {
			err = wlz_fail(WLZ_ERR_GPU, "GPU compression: checksums");
			goto out;
		}
		k_tail<<<grid(40 + 16 * nb + 24 + 32, 128), 128, 0, st>>>(geom, b.idx, b.ihash, b.foff, b.fsz, b.head, d_out,
									 b.size);
		PROF("index hash, tail");
		cudaEventRecord(g->ev[EV_END], st);
		CU(cudaMemcpyAsync(g->pin + PIN_SIZE, b.size, 8, cudaMemcpyDeviceToHost, st), "size");
		CU(cudaMemcpyAsync(g->pin + PIN_FLAG, b.flag, 4, cudaMemcpyDeviceToHost, st), "flag");
		CU(cudaGetLastError(), "launch");
	}
	*used = d_out;
	err = WLZ_OK;
out:
	return err;
}

/* After a member's launches: its size, or the error its layout flagged. */
static wlz_error member_result(wlz_gcctx *g, size_t *size)
{
	wlz_error err = WLZ_OK;
	CU(cudaStreamSynchronize(g->st), "compression");
	if (*(uint32_t *)(g->pin + PIN_FLAG))
		return wlz_fail(WLZ_ERR_INTERNAL, "GPU compression: a payload over its reserve");
	*size = (size_t)*(uint64_t *)(g->pin + PIN_SIZE);
	for (int i = 1; i < g->nprof; i++) {
		float ms = 0;
		cudaEventElapsedTime(&ms, g->pev[i - 1], g->pev[i]);
		fprintf(stderr, "gc profile: %-14s %8.3f ms\n", g->pname[i], ms);
	}
out:
	return err;
}

/* ------------------------------------------------------------ API */

wlz_error wlz_gpu_compress(wlz_gcctx *g, const wlz_gpu_copts *o, void *dst, size_t dst_cap, const void *src,
			   size_t src_size, size_t *dst_size)
{
	if (!g || !o || !dst || !dst_size || (!src && src_size))
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: NULL argument");
	wlz_error err = WLZ_OK;
	CU(cudaSetDevice(g->device), "device");
	g->st = g->own;
	{
		const uint8_t *in = (const uint8_t *)src;
		uint8_t *outp = (uint8_t *)dst;
		size_t at = 0;
		uint64_t left = src_size;
		do {
			const uint64_t m = left < WLZ_GC_PIECE ? left : WLZ_GC_PIECE;
			size_t w = 0;
			if (m == 0) {
				/* an empty member: header, index and footer only */
				err = wlz_gc_ref_compress(o, outp + at, dst_cap - at, in, 0, &w);
				if (err)
					return err;
			} else {
				uint8_t *d_out = NULL;
				err = member(g, o, in, 1, m, NULL, &d_out);
				if (!err)
					err = member_result(g, &w);
				if (err)
					return err;
				if (w > dst_cap - at)
					return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "GPU compression: destination too small");
				CU(cudaMemcpy(outp + at, d_out, w, cudaMemcpyDeviceToHost), "download");
			}
			at += w, in += m, left -= m;
		} while (left);
		*dst_size = at;
	}
out:
	return err;
}

wlz_error wlz_gpu_compress_d2d(wlz_gcctx *g, const wlz_gpu_copts *o, void *d_dst, size_t dst_cap,
			       const void *d_src, size_t src_size, size_t *dst_size, void *stream)
{
	if (!g || !o || !d_dst || !dst_size || (!d_src && src_size))
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: NULL argument");
	if (g->dst_size)
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: the context's last call was not waited for");
	if (src_size > WLZ_GC_PIECE)
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: device to device takes at most 2 GiB a call");
	gc_geom gm;
	wlz_error err = wlz_gc_geom(&gm, src_size, o);
	if (err)
		return err;
	if (dst_cap < wlz_gc_member_bound(src_size, o->block_log))
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "GPU compression: destination under wlz_gpu_compress_bound");
	CU(cudaSetDevice(g->device), "device");
	CU(wlz_gpu_pick_stream(stream, g->own, g->legacy, &g->st), "stream");
	if (src_size == 0) {
		size_t w = 0;
		uint8_t tmp[128];
		err = wlz_gc_ref_compress(o, tmp, sizeof(tmp), NULL, 0, &w);
		if (err)
			return err;
		memcpy(g->pin + PIN_HEAD, tmp, w);
		CU(cudaMemcpyAsync(d_dst, g->pin + PIN_HEAD, w, cudaMemcpyHostToDevice, g->st), "upload");
		*(uint64_t *)(g->pin + PIN_SIZE) = w;
		*(uint32_t *)(g->pin + PIN_FLAG) = 0;
	} else {
		uint8_t *used = NULL;
		err = member(g, o, (const uint8_t *)d_src, 0, src_size, (uint8_t *)d_dst, &used);
		if (err)
			return err;
	}
	g->dst_size = dst_size;
out:
	return err;
}

wlz_error wlz_gcctx_wait(wlz_gcctx *g)
{
	if (!g)
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: NULL context");
	if (!g->dst_size)
		return WLZ_OK;
	size_t w = 0;
	const wlz_error err = member_result(g, &w);
	if (!err)
		*g->dst_size = w;
	g->dst_size = NULL;
	return err;
}

wlz_error wlz_gpu_compress_batch(wlz_gcctx *g, const wlz_gpu_copts *o, wlz_gpu_citem *items, size_t n,
				 unsigned flags)
{
	const unsigned dev = WLZ_GPU_SRC_DEVICE | WLZ_GPU_DST_DEVICE;
	if (!g || !o || (!items && n) || ((flags & dev) && (flags & dev) != dev))
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: a batch is host to host or device to device");
	wlz_error first = WLZ_OK;
	for (size_t i = 0; i < n; i++) {
		wlz_gpu_citem *it = &items[i];
		it->dst_size = 0;
		if (flags & dev) {
			it->err = wlz_gpu_compress_d2d(g, o, it->dst, it->dst_cap, it->src, it->src_size, &it->dst_size,
						       NULL);
			if (!it->err)
				it->err = wlz_gcctx_wait(g);
		} else {
			it->err = wlz_gpu_compress(g, o, it->dst, it->dst_cap, it->src, it->src_size, &it->dst_size);
		}
		if (it->err && !first)
			first = it->err;
		if (it->err && (flags & WLZ_GPU_STOP_ON_ERROR)) {
			for (size_t j = i + 1; j < n; j++)  /* not compressed: the stop's error */
				items[j].err = it->err, items[j].dst_size = 0;
			break;
		}
	}
	return first;
}
