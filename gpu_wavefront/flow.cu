/*
 * flow.cu - GPU token execution in one persistent pass (SPEC.md section
 * 6.1), the alternative to waves (exec.cu): every token runs once, and
 * waits only until the bytes it reads are final.
 *
 * Every token has a state: 0, 1 once its literals are final, 2 once its
 * match is too.  Tokens are cut into chunks of 32 (in member order,
 * across blocks).  A warp takes the next chunk from a ticket counter, so
 * chunks start in order; every source lies before its match, so the
 * lowest token not yet final can always run, and the pass cannot stall.
 * In its chunk the warp:
 *   1. copies every token's literals (the chunk's literal bytes spread
 *      over the lanes, each finding its token by a search of the lanes'
 *      prefix sums);
 *   2. finds, for each match, the tokens of earlier chunks that wrote the
 *      bytes it reads (a table giving the token at every 256th byte, then
 *      a short walk), and the tokens of its own chunk before it that it
 *      reads from;
 *   3. copies the matches in rounds: a round takes every match whose
 *      sources are final now (the earlier chunks' token states polled,
 *      its own chunk's rounds done), the bytes of all of them spread over
 *      the lanes as the literals were, then publishes their states (a
 *      fence first).  Only when no match can go does it publish its
 *      literals' states and sleep.  Waiting for a whole chunk instead
 *      chained every chunk to the one before, as FASTQ records read the
 *      record before.
 * A match overlapping its own output copies byte j from source byte
 * j % dist, which lies before it, so a match's bytes never wait on each
 * other.  Bytes other warps wrote are read through L2 (ld.global.cg), as
 * the L1 of this SM may hold an older line.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/flow.h"

#define FULL 0xffffffffu
#define GRAN_BITS 8
#define FT 256
/* Polls of a stalled warp before it gives up (a defect, never expected:
 * the lowest pending token can always run). */
#define PATIENCE (1u << 24)

/* The work area: the granule table, the token states and the ticket. */
struct flow_area {
	uint32_t *gidx, *state, *ticket;
};

static size_t granules(uint64_t size) { return (size_t)(size >> GRAN_BITS) + 2; }

static flow_area area(void *work, size_t ntok, uint64_t size)
{
	flow_area a;
	a.gidx = (uint32_t *)work;
	a.state = a.gidx + granules(size);
	a.ticket = a.state + ntok;
	return a;
}

extern "C" size_t wlz_gpu_flow_work(size_t ntok, uint64_t size) { return (granules(size) + ntok + 1) * 4; }

/* Token i's state cleared, and the granules (256 bytes) whose first byte
 * lies in it or in the tail after it: gidx[q] is the last token starting
 * at or before byte q << 8. */
__global__ void index_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok, uint64_t size,
			     uint32_t *__restrict__ gidx, uint32_t *__restrict__ state)
{
	const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= ntok)
		return;
	const uint64_t s = tok[i].pos, e = i + 1 < ntok ? tok[i + 1].pos : size;
	const uint64_t G = 1u << GRAN_BITS;
	state[i] = 0;
	for (uint64_t q = i ? (s + G - 1) >> GRAN_BITS : 0; q < (e + G - 1) >> GRAN_BITS; q++)
		gidx[q] = i;
}

/* The last token starting at or before byte p, from token j on. */
__device__ __forceinline__ uint32_t walk(const wlz_gpu_token *tok, uint32_t ntok, uint32_t j, uint64_t p)
{
	while (j + 1 < ntok && tok[j + 1].pos <= p)
		j++;
	return j;
}

/* The lane whose exclusive prefix (pre, non-decreasing over the lanes)
 * is the last at or below k. */
__device__ __forceinline__ unsigned owner(uint32_t pre, uint32_t k)
{
	unsigned o = 0;
#pragma unroll
	for (unsigned s = 16; s; s >>= 1) {
		const uint32_t v = __shfl_sync(FULL, pre, o + s);
		if (v <= k)
			o += s;
	}
	return o;
}

__device__ __forceinline__ uint32_t warp_excl(uint32_t x, unsigned lane, uint32_t *total)
{
	uint32_t v = x;
#pragma unroll
	for (unsigned s = 1; s < 32; s <<= 1) {
		const uint32_t y = __shfl_up_sync(FULL, v, s);
		if (lane >= s)
			v += y;
	}
	*total = __shfl_sync(FULL, v, 31);
	return v - x;
}

/* Publishes this warp's lanes' states (where set) after every byte they
 * wrote. */
__device__ __forceinline__ void publish(uint32_t *state, uint32_t i, bool set, uint32_t v)
{
	__threadfence();
	__syncwarp();
	if (set)
		*(volatile uint32_t *)(state + i) = v;
}

__global__ void __launch_bounds__(FT) flow_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok,
						  const uint8_t *__restrict__ st, uint8_t *out, flow_area A,
						  const uint32_t *bad, uint32_t *fail)
{
	if (*(const volatile uint32_t *)bad)
		return;  /* a block broke a rule: its tokens were never written */
	const unsigned lane = threadIdx.x & 31;
	const uint32_t nch = (ntok + 31) / 32;
	for (;;) {
		uint32_t c = 0;
		if (lane == 0)
			c = atomicAdd(A.ticket, 1);
		c = __shfl_sync(FULL, c, 0);
		if (c >= nch)
			return;
		const uint32_t i = c * 32 + lane;
		const bool have = i < ntok;
		wlz_gpu_token t = {0, 0, 0, 0, 0};
		if (have)
			t = tok[i];
		const uint64_t cs = __shfl_sync(FULL, t.pos, 0);
		/* Positions from the chunk's start: a chunk spans at most 32
		 * tokens of one block each. */
		const uint64_t dst = t.pos + t.lit;
		const uint32_t rpos = have ? (uint32_t)(t.pos - cs) : UINT32_MAX;

		/* 1. Literals. */
		uint32_t ltot;
		const uint32_t lpre = warp_excl(t.lit, lane, &ltot);
		for (uint32_t base = 0; base < ltot; base += 32) {
			const uint32_t k = base + lane;
			const unsigned o = owner(lpre, k);
			const uint32_t j = k - __shfl_sync(FULL, lpre, o);
			const uint64_t p = __shfl_sync(FULL, t.pos, o), lp = __shfl_sync(FULL, t.lp, o);
			if (k < ltot)
				out[p + j] = st[lp + j];
		}

		/* 2. Sources: tokens next..last of earlier chunks (the last one's
		 * match too where last2), and the tokens of this chunk before it
		 * (need). */
		const uint64_t dist = dst - t.src;
		const uint32_t own = have ? (uint32_t)(dist < t.mlen ? dist : t.mlen) : 0;
		const uint64_t a = t.src, b = t.src + own;
		uint32_t next = 1, last = 0;
		bool last2 = false;
		if (own && a < cs) {
			const uint64_t e = (b < cs ? b : cs) - 1;
			next = walk(tok, ntok, A.gidx[a >> GRAN_BITS], a);
			last = walk(tok, ntok, next, e);
			if (tok[last].pos > e)
				next = 1, last = 0;  /* all before the first token: a tail, written */
			last2 = e >= tok[last].pos + tok[last].lit;
		}
		const bool inside = own && b > cs;
		const uint32_t lo = inside ? (uint32_t)((a > cs ? a : cs) - cs) : 0, hi = inside ? (uint32_t)(b - 1 - cs) : 0;
		const unsigned jlo = owner(rpos, lo), jhi = owner(rpos, hi);
		/* (its own literals, jhi == lane, are written already) */
		const int top = jhi < lane ? (int)jhi : (int)lane - 1;
		const uint32_t need = inside && top >= (int)jlo ? (uint32_t)((2ull << top) - (1ull << jlo)) : 0;

		/* 3. Matches in rounds. */
		uint32_t polls = 0;
		uint32_t fin = __ballot_sync(FULL, !have);
		bool lits_out = false;
		while (fin != FULL) {
			const bool mine = !(fin >> lane & 1);
			while (mine && next <= last) {
				const uint32_t v = *(const volatile uint32_t *)(A.state + next);
				if (v < (next < last || last2 ? 2u : 1u))
					break;
				next++;
			}
			const bool go = mine && next > last && !(need & ~fin);
			const uint32_t ready = __ballot_sync(FULL, go);
			if (!ready) {
				if (!lits_out) {  /* (not over a state 2 already published) */
					publish(A.state, i, mine, 1);
					lits_out = true;
				}
				uint32_t quit = 0;
				if (lane == 0)
					quit = ++polls > PATIENCE || *(volatile uint32_t *)fail;
				if (__shfl_sync(FULL, quit, 0)) {
					/* (the first stalled lane's token and what it waits on) */
					const unsigned f = __ffs(~fin) - 1;
					const uint32_t fn = __shfl_sync(FULL, next, f), fl = __shfl_sync(FULL, last, f),
						       fneed = __shfl_sync(FULL, need, f);
					if (lane == 0 && atomicCAS(fail, 0, 1) == 0) {
						fail[1] = c * 32 + f, fail[2] = fn, fail[3] = fl;
						fail[4] = fn < ntok ? A.state[fn] : ~0u;
						fail[5] = fneed;
					}
					return;
				}
				__nanosleep(64);
				continue;
			}
			__threadfence();  /* the states seen before the bytes read */
			__syncwarp();
			uint32_t mtot;
			const uint32_t mpre = warp_excl(go ? t.mlen : 0, lane, &mtot);
			for (uint32_t base = 0; base < mtot; base += 32) {
				const uint32_t k = base + lane;
				const unsigned o = owner(mpre, k);
				const uint32_t j = k - __shfl_sync(FULL, mpre, o);
				const uint64_t d = __shfl_sync(FULL, dst, o), s = __shfl_sync(FULL, t.src, o);
				const uint32_t ow = __shfl_sync(FULL, own, o);
				if (k < mtot) {
					const uint32_t from = j < ow ? j : j % ow;  /* ow == dist when it overlaps */
					out[d + j] = __ldcg(out + s + from);
				}
			}
			publish(A.state, i, go, 2);
			fin |= ready;
		}
	}
}

extern "C" int wlz_gpu_flow(const wlz_gpu_token *d_tok, size_t ntok, const uint8_t *d_streams, uint8_t *d_out,
			    uint64_t size, void *d_work, const uint32_t *d_bad, uint32_t *d_fail, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (!ntok)
		return 0;
	const uint32_t nch = (uint32_t)((ntok + 31) / 32);
	const flow_area A = area(d_work, ntok, size);
	if (cudaMemsetAsync(A.ticket, 0, 4, st) != cudaSuccess ||
	    cudaMemsetAsync(d_fail, 0, WLZ_GPU_FLOW_FAIL * 4, st) != cudaSuccess)
		return 1;
	index_kernel<<<(unsigned)((ntok + 255) / 256), 256, 0, st>>>(d_tok, (uint32_t)ntok, size, A.gidx, A.state);
	int dev, nsm, per;
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, flow_kernel, FT, 0) != cudaSuccess)
		return 1;
	/* Only as many warps as run at once: the ticket hands out the work. */
	const uint32_t want = (nch + FT / 32 - 1) / (FT / 32), most = (uint32_t)(nsm * (per > 0 ? per : 1));
	flow_kernel<<<want < most ? want : most, FT, 0, st>>>(d_tok, (uint32_t)ntok, d_streams, d_out, A, d_bad, d_fail);
	return cudaGetLastError() != cudaSuccess;
}
