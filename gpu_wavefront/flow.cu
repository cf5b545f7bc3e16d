/*
 * flow.cu - GPU token execution in one persistent pass (SPEC.md section
 * 6.1): every token runs once, and waits only until the bytes it reads are
 * final.  (Waves, every pending token checked again in each, measured 3
 * to 10 times slower: bench/host/issue15-decode.md.)
 *
 * First every literal byte is copied, by a kernel of its own: a warp a
 * 512 bytes of a block's literal stream, so that a literal run of a whole
 * block (a PacBio FASTQ is mostly literals) is copied by thousands of
 * warps, not one.  Then the pass, for matches only.  A token is pending
 * (state 0) until its match is copied (state 1).  Tokens are cut into
 * chunks of 32 (in member order, across blocks).  A warp takes the next
 * chunk from a ticket counter, so chunks start in order; every source
 * lies before its match, so the lowest pending token can always run, and
 * the pass cannot stall.  In its chunk the warp:
 *   1. finds, for each match, the tokens of earlier chunks whose matches
 *      wrote bytes it reads (a table giving the token at every 64th byte,
 *      then a short walk), and the tokens of its own chunk before it whose
 *      matches it reads;
 *   2. copies the matches in rounds: a round takes every match whose
 *      sources are final now (the earlier chunks' token states polled,
 *      its own chunk's rounds done), the bytes of all of them spread over
 *      the lanes (each finding its token by a search of the lanes' prefix
 *      sums), then publishes their states (a release store).  Waiting for
 *      a whole chunk instead chained every chunk to the one before, as
 *      FASTQ records read the record before.
 * A match overlapping its own output copies byte j from source byte
 * j % dist, which lies before it, so a match's bytes never wait on each
 * other.  Bytes other warps wrote are read through L2 (ld.global.cg), as
 * the L1 of this SM may hold an older line.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/flow.h"

#define FULL 0xffffffffu
/* Granules of 64 bytes: a source's token is found from its granule's
 * first token by a walk, shorter the smaller the granule (a table of 4
 * bytes a granule; bench/host/issue15-flow.md measured 256, 128 and 64).
 * WLZ_GPU_GRAN_BITS at build time for such a comparison. */
#ifndef WLZ_GPU_GRAN_BITS
#define WLZ_GPU_GRAN_BITS 6
#endif
#define GRAN_BITS WLZ_GPU_GRAN_BITS
#define FT 256
/* Bytes a lane copies at once: their loads issued before their stores. */
#define UNROLL 4
#define NONE (~0ull)
/* Polls of a stalled warp before it gives up (a defect, never expected:
 * the lowest pending token can always run; tens of seconds, so that a
 * valid archive's longest chain of the longest matches never reaches it). */
#define PATIENCE (1u << 28)

/* The work area: the granule table, the token states, the ticket and the
 * count of pieces (cut tokens: the pass runs over *count entries, known
 * only on the device; NULL: all). */
struct flow_area {
	uint32_t *gidx, *state, *ticket, *count;
	/* split over GPUs (flow.h): the other GPUs' states, and where this
	 * one writes its granules and states for them */
	uint32_t *rstate;
	uint32_t *peer_gidx[WLZ_GPU_FLOW_PEERS], *peer_rstate[WLZ_GPU_FLOW_PEERS];
	unsigned npeers;
	uint32_t epoch;         /* a done token's rstate */
	uint32_t *own;          /* a bit a token: this GPU's */
	/* every token's position, in this GPU's memory (each GPU writes its
	 * own tokens' into every GPU's), so that finding a source's tokens
	 * reads no other GPU's memory */
	uint64_t *tpos, *peer_tpos[WLZ_GPU_FLOW_PEERS];
	/* where set (flow.h): the pass's wait counters */
	unsigned long long *stats;
	/* where set (flow.h): a group's publication, and then the first
	 * token's position (this GPU's tokens only are in its memory) */
	uint32_t *gflag, *peer_gflag[WLZ_GPU_FLOW_PEERS], *gcount;
	uint32_t gshift, gpu, ngpus, gbase;
	uint64_t t0;
};

static size_t granules(uint64_t size)
{
	return (size_t)(size >> GRAN_BITS) + 2;
}

static flow_area area(void *work, size_t ntok, uint64_t size)
{
	flow_area a;
	a.gidx = (uint32_t *)work;
	a.state = a.gidx + granules(size);
	a.ticket = a.state + ntok;
	a.count = NULL;
	a.rstate = NULL;
	a.own = NULL;
	a.tpos = NULL;
	a.stats = NULL;
	a.gflag = a.gcount = NULL;
	a.gshift = a.gpu = a.gbase = 0, a.ngpus = 1;
	a.t0 = 0;
	a.npeers = 0;
	a.epoch = 1;
	return a;
}

/* A GPU's tokens when a member is split over GPUs (flow.h); n = 0: all
 * ntok tokens of tok, one range. */
struct tranges {
	const uint32_t *first, *tok, *chunk;
	uint32_t n;
};

/* The index of the last of the n + 1 non-decreasing values v at or below x
 * (v[0] <= x). */
__device__ __forceinline__ uint32_t last_at_or_below(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n + 1;
	while (hi - lo > 1) {
		const uint32_t m = (lo + hi) / 2;
		if (v[m] <= x)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

/* Chunk c's first token, and its range's first and end. */
__device__ __forceinline__ void chunk_tokens(const tranges &R, uint32_t ntok, uint32_t c, uint32_t *i0,
					     uint32_t *first, uint32_t *end, uint32_t *range)
{
	*range = 0;
	if (!R.n) {
		*i0 = c * 32;
		*first = 0;
		*end = ntok;
		return;
	}
	const uint32_t r = last_at_or_below(R.chunk, R.n, c);
	*range = r;
	*first = R.first[r];
	*i0 = R.first[r] + (c - R.chunk[r]) * 32;
	*end = R.first[r] + (R.tok[r + 1] - R.tok[r]);
}

/* Whether token j, before the first token rlo of the range being run, is
 * this GPU's: a bit of own (a search of the ranges in the pass, where most
 * sources lie before their own range, made its polls 1.6 times slower:
 * bench/host/issue16-split.md). */
__device__ __forceinline__ bool own_token(const uint32_t *own, uint32_t rlo, uint32_t j)
{
	return j >= rlo || (__ldg(own + (j >> 5)) >> (j & 31) & 1);
}

/* own's words: bit j set where token j is this GPU's (R's ranges). */
__global__ void own_kernel(tranges R, uint32_t ntok, uint32_t *own)
{
	const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
	if (w > ntok / 32)
		return;
	const uint32_t j0 = w * 32;
	uint32_t r = j0 < R.first[0] ? 0 : last_at_or_below(R.first, R.n - 1, j0), bits = 0;
	for (uint32_t b = 0; b < 32 && j0 + b < ntok; b++) {
		const uint32_t j = j0 + b;
		while (r + 1 < R.n && R.first[r + 1] <= j)
			r++;
		if (j >= R.first[r] && j - R.first[r] < R.tok[r + 1] - R.tok[r])
			bits |= 1u << b;
	}
	own[w] = bits;
}

/* The k-th token of the GPU's. */
__device__ __forceinline__ uint32_t kth_token(const tranges &R, uint32_t k)
{
	if (!R.n)
		return k;
	const uint32_t r = last_at_or_below(R.tok, R.n, k);
	return R.first[r] + (k - R.tok[r]);
}

extern "C" size_t wlz_gpu_flow_work(size_t ntok, uint64_t size)
{
	return (granules(size) + ntok + 2) * 4;
}

/* A whole token in two 16-byte accesses (wlz_gpu_token is 16-byte
 * aligned; field by field a token takes four or five, each a warp-wide
 * access of its own). */
__device__ __forceinline__ wlz_gpu_token get_token(const wlz_gpu_token *p)
{
	const ulonglong2 a = reinterpret_cast<const ulonglong2 *>(p)[0], b = reinterpret_cast<const ulonglong2 *>(p)[1];
	return wlz_gpu_token{(uint32_t)a.x, (uint32_t)(a.x >> 32), a.y, b.x, b.y};
}

__device__ __forceinline__ void put_token(wlz_gpu_token *p, uint32_t lit, uint32_t mlen, uint64_t src, uint64_t pos,
					  uint64_t lp)
{
	reinterpret_cast<ulonglong2 *>(p)[0] = make_ulonglong2((uint64_t)lit | (uint64_t)mlen << 32, src);
	reinterpret_cast<ulonglong2 *>(p)[1] = make_ulonglong2(pos, lp);
}

/* The tokens of a block that broke a rule (bad[b]) made empty, at the
 * block's start: they run, reading and writing nothing, so that the
 * other blocks (other archives') decode as if it were not there. */
__global__ void scrub_kernel(const wlz_gpu_pblock *__restrict__ blk, wlz_gpu_token *__restrict__ tok,
			     const uint32_t *__restrict__ bad)
{
	if (!bad[blockIdx.x])
		return;
	const wlz_gpu_pblock B = blk[blockIdx.x];
	for (uint32_t i = threadIdx.x; i < B.ntok; i += blockDim.x)
		put_token(tok + B.tok_off + i, 0, 0, B.bstart, B.bstart, B.s_off[1]);
}

/* Token i's state cleared (i the k-th of this GPU's count tokens of the
 * ntok in tok), and the granules (64 bytes) whose first byte
 * lies in it or in the tail after it: gidx[q] is the last token starting
 * at or before byte q << GRAN_BITS (token 0 from the granule holding its first
 * byte: the output before it is final, and not indexed).  This GPU's
 * tables only: mirror_kernel copies a split's to the other GPUs. */
__global__ void index_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok, tranges R, uint32_t count,
			     uint64_t size, flow_area A)
{
	/* (the range of the block's first token found once, the rest by
	 * stepping: ranges are much longer than a block) */
	__shared__ uint32_t r0;
	const uint32_t k0 = blockIdx.x * blockDim.x, k = k0 + threadIdx.x;
	if (threadIdx.x == 0)
		r0 = R.n ? last_at_or_below(R.tok, R.n, k0) : 0;
	__syncthreads();
	if (A.count)
		count = ntok = *A.count;
	if (k >= count)
		return;
	uint32_t i = k;
	if (R.n) {
		uint32_t r = r0;
		while (R.tok[r + 1] <= k)
			r++;
		i = R.first[r] + (k - R.tok[r]);
		if (A.gflag) {
			/* Group publication: tok holds this GPU's tokens only, a
			 * range is a group (none without tokens), and only its own
			 * bytes are looked up here.  Its first token takes the
			 * granules from the group's start (bytes before it are
			 * a tail, final), its last those up to the group's end,
			 * and the next token's place (another GPU's) the group's
			 * end, so that walks stop there. */
			const uint64_t G = 1u << GRAN_BITS, gs = (uint64_t)(A.gbase + r * A.ngpus + A.gpu) << A.gshift,
				       ge = gs + ((uint64_t)1 << A.gshift) < size ? gs + ((uint64_t)1 << A.gshift) : size;
			const bool end = k + 1 == R.tok[r + 1];
			const uint64_t s = tok[i].pos, e = end ? ge : tok[i + 1].pos;
			if (end && i + 1 < ntok && !(A.own[(i + 1) >> 5] >> ((i + 1) & 31) & 1))
				A.tpos[i + 1] = ge;
			A.state[i] = 0;
			A.tpos[i] = s;
			for (uint64_t q = k == R.tok[r] ? gs >> GRAN_BITS : (s + G - 1) >> GRAN_BITS; q < (e + G - 1) >> GRAN_BITS; q++)
				A.gidx[q] = i;
			return;
		}
	}
	const uint64_t s = tok[i].pos, e = i + 1 < ntok ? tok[i + 1].pos : size;
	const uint64_t G = 1u << GRAN_BITS;
	A.state[i] = 0;
	if (A.tpos)
		A.tpos[i] = s;
	for (uint64_t q = i ? (s + G - 1) >> GRAN_BITS : s >> GRAN_BITS; q < (e + G - 1) >> GRAN_BITS; q++)
		A.gidx[q] = i;
}

/* n words from src to dst (16-byte aligned alike: the tables of each GPU
 * are cudaMalloc'd apart, each range at the same offset in all), by the
 * block's threads, 16 bytes a move where they can. */
__device__ __forceinline__ void copy_words(uint32_t *dst, const uint32_t *src, uint64_t n)
{
	uint64_t head = ((16 - ((uintptr_t)src & 15)) & 15) / 4;
	if (head > n)
		head = n;
	const uint64_t nv = (n - head) / 4;
	for (uint64_t k = threadIdx.x; k < head; k += blockDim.x)
		dst[k] = src[k];
	const uint4 *s4 = (const uint4 *)(src + head);
	uint4 *d4 = (uint4 *)(dst + head);
	for (uint64_t k = threadIdx.x; k < nv; k += blockDim.x)
		d4[k] = s4[k];
	for (uint64_t k = head + 4 * nv + threadIdx.x; k < n; k += blockDim.x)
		dst[k] = src[k];
}

/* This GPU's token positions and granules (index_kernel's, written here
 * only; a split always has tpos) copied into every other GPU's tables:
 * whole runs of words move over NVLink faster than index_kernel's
 * scattered stores did.  Range r of R (blockIdx.x) in gridDim.y slices. */
__global__ void mirror_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok, tranges R, uint64_t size,
			      flow_area A)
{
	const uint64_t G = 1u << GRAN_BITS;
	const uint32_t r = blockIdx.x, t0 = R.first[r], cnt = R.tok[r + 1] - R.tok[r];
	if (!cnt)
		return;
	/* (the range's granules: index_kernel's over its tokens) */
	const uint64_t s = A.tpos[t0], e = t0 + cnt < ntok ? tok[t0 + cnt].pos : size;
	const uint64_t g0 = t0 ? (s + G - 1) >> GRAN_BITS : s >> GRAN_BITS, g1 = (e + G - 1) >> GRAN_BITS;
	const uint64_t nw = 2 * (uint64_t)cnt, ng = g1 > g0 ? g1 - g0 : 0, y = blockIdx.y, Y = gridDim.y;
	const uint64_t w0 = nw * y / Y, w1 = nw * (y + 1) / Y, q0 = g0 + ng * y / Y, q1 = g0 + ng * (y + 1) / Y;
	for (unsigned g = 0; g < A.npeers; g++) {
		copy_words((uint32_t *)(A.peer_tpos[g] + t0) + w0, (const uint32_t *)(A.tpos + t0) + w0, w1 - w0);
		copy_words(A.peer_gidx[g] + q0, A.gidx + q0, q1 - q0);
	}
}

/* Token j's position: split over GPUs, from this GPU's copy. */
template <bool SYS>
__device__ __forceinline__ uint64_t tpos(const wlz_gpu_token *tok, const flow_area &A, uint32_t j)
{
	return SYS ? A.tpos[j] : tok[j].pos;
}

/* The last token starting at or before byte p, from token j on. */
template <bool SYS>
__device__ __forceinline__ uint32_t walk(const wlz_gpu_token *tok, const flow_area &A, uint32_t ntok, uint32_t j,
					 uint64_t p)
{
	while (j + 1 < ntok && tpos<SYS>(tok, A, j + 1) <= p)
		j++;
	return j;
}

/* Sources resolved through the matches that wrote them: a match whose
 * source lies wholly inside one earlier match's output, neither match
 * overlapping itself, reads that match's source at the same offset
 * instead (the same bytes), so that the pass waits on fewer links.  One
 * round of pointer jumping: each token's source moves into the source, as
 * resolved so far, of the match that wrote it, so that round r resolves at
 * least 2^r - 1 links (more where a writer moved earlier in the same
 * round).  In place: a source read while another thread rewrites it is
 * its old value or its new one (relaxed 64-bit accesses: never torn),
 * and both hold the same bytes as the
 * token's original source (a move only lengthens a distance, so the tests
 * of overlap give the same answers either way).  A source is looked up
 * only at or after the first token (an earlier piece's writers are not
 * indexed), but may land before it: the window bound keeps it inside the
 * bytes kept resident before a piece.
 *
 * A token that does not move in a round never moves again (its source,
 * the match that wrote it and that match's length stay; that match's
 * source only moves back, which can only break the window), so each
 * round looks only at the tokens that moved in the round before: a bit a
 * token in `cur`, a warp's word, and the warp writes its word of `next`
 * (round 0 looks at every token).  Pointer jumping with links instead
 * (token, offset), searching once, resolved fewer sources: a link stops
 * where a match's source spans two matches, though a token's part of it
 * may not (bench/host/issue15-flow.md).  bench/chainsim.c models what it
 * saves. */
__device__ __forceinline__ uint64_t load_relaxed(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void store_relaxed(uint64_t *p, uint64_t v)
{
	asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* Cut tokens (CUT, bench/host/issue15-flow.md): where a token's source
 * runs past the edge of the match output it starts in, the token may be
 * cut there once, so that each piece resolves on its own.  Its lp (which
 * only the literal kernel reads, before) then holds the cut, c bytes into
 * the match, above the second piece's source: (c << CUT_SHIFT) | src2;
 * lp 0 means whole.  A cut token was a plain copy when cut, and its
 * pieces stay plain copies (a move only lengthens a distance). */
#define CUT_SHIFT 40
#define CUT_LOW ((1ull << CUT_SHIFT) - 1)

/* Where [a, a + len) reads from once moved through the match that wrote
 * it, as resolved so far (its pieces' sources if cut), or a itself where
 * no single plain copy holds it.  d: the range's own destination (the
 * window bounds d - result); t0: the first token's position. */
template <bool CUT>
__device__ __forceinline__ uint64_t hop(const wlz_gpu_token *tok, uint32_t ntok, const uint32_t *gidx, uint32_t k,
					uint64_t a, uint64_t len, uint64_t d, uint64_t t0, uint64_t window)
{
	if (a < t0)
		return a; /* (an earlier piece's writers are not indexed) */
	const uint32_t j = walk<false>(tok, flow_area{}, ntok, __ldg(gidx + (a >> GRAN_BITS)), a);
	const uint64_t ud = tok[j].pos + tok[j].lit, um = tok[j].mlen, us = load_relaxed(&tok[j].src);
	if (j >= k || a < ud || a + len > ud + um)
		return a;
	uint64_t n;
	const uint64_t jl = CUT ? load_relaxed(&tok[j].lp) : 0, jc = jl >> CUT_SHIFT;
	if (!jc) {
		if (ud - us < um)
			return a; /* (j overlaps its own output) */
		n = us + (a - ud);
	} else if (a + len <= ud + jc) {
		n = us + (a - ud);
	} else if (a >= ud + jc) {
		n = (jl & CUT_LOW) + (a - ud - jc);
	} else {
		return a; /* (across j's cut) */
	}
	return d - n <= window ? n : a;
}

/* A round: every token (all) or those whose bit cur holds moves its
 * source, or each piece's, one hop; a warp writes its word of next. */
template <bool CUT>
__global__ void resolve_kernel(wlz_gpu_token *__restrict__ tok, uint32_t ntok, const uint32_t *__restrict__ gidx,
			       uint64_t window, const uint32_t *__restrict__ cur, uint32_t *__restrict__ next, bool all)
{
	const unsigned lane = threadIdx.x & 31;
	const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x, w = k >> 5;
	if (w > (ntok - 1) >> 5)
		return; /* (a whole warp: ntok rounded up to 32) */
	bool moved = false;
	if (k < ntok && (all || (cur[w] >> lane & 1))) {
		const uint64_t pos = tok[k].pos, lit = tok[k].lit, mlen = tok[k].mlen, a = tok[k].src;
		const uint64_t dst = pos + lit, t0 = tok[0].pos;
		const uint64_t lp = CUT ? tok[k].lp : 0, c = lp >> CUT_SHIFT;
		/* (only matches not overlapping their own output; a token
		 * with no match reads nothing) */
		if (mlen && (c || dst - a >= mlen)) {
			const uint64_t n = hop<CUT>(tok, ntok, gidx, k, a, c ? c : mlen, dst, t0, window);
			if (n != a) {
				store_relaxed(&tok[k].src, n);
				moved = true;
			}
			if (c) {
				const uint64_t a2 = lp & CUT_LOW;
				const uint64_t n2 = hop<CUT>(tok, ntok, gidx, k, a2, mlen - c, dst + c, t0, window);
				if (n2 != a2) {
					store_relaxed(&tok[k].lp, c << CUT_SHIFT | n2);
					moved = true;
				}
			}
		}
	}
	const uint32_t m = __ballot_sync(FULL, moved);
	if (lane == 0)
		next[w] = m;
}

/* Between the rounds that move whole tokens and those that move pieces:
 * a token whose source starts in a match's output (or its literals) and
 * runs past its edge is cut there, where a piece would then lie inside a
 * plain copy (one that could move).  Only lp is written, so that no
 * thread reads a cut another is making. */
__global__ void cut_kernel(wlz_gpu_token *__restrict__ tok, uint32_t ntok, const uint32_t *__restrict__ gidx)
{
	const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= ntok)
		return;
	const wlz_gpu_token t = get_token(tok + k);
	const uint64_t dst = t.pos + t.lit, a = t.src, m = t.mlen, t0 = tok[0].pos;
	tok[k].lp = 0; /* (whole, unless cut below; nothing before read lp) */
	if (!m || dst - a < m || a < t0)
		return;
	const uint32_t j = walk<false>(tok, flow_area{}, ntok, __ldg(gidx + (a >> GRAN_BITS)), a);
	if (j >= k)
		return;
	const uint64_t ud = tok[j].pos + tok[j].lit, um = tok[j].mlen, us = tok[j].src;
	const bool plain = um && ud - us >= um;
	uint64_t edge;
	bool useful;
	if (a < ud) {
		/* in j's literals (final): the rest may lie in j's match */
		edge = ud;
		useful = plain && a + m <= ud + um;
	} else if (a < ud + um) {
		/* in j's match: the rest starts at token j + 1 */
		edge = ud + um;
		useful = plain;
		if (!useful && j + 1 < k) {
			/* (not u's lp, which its own thread may be writing) */
			const uint64_t ulit = tok[j + 1].lit, umlen = tok[j + 1].mlen, upos = tok[j + 1].pos,
				       usrc = tok[j + 1].src;
			useful = !ulit && umlen && a + m <= upos + umlen && upos - usrc >= umlen;
		}
	} else {
		return; /* (a block's tail of literals) */
	}
	if (a + m <= edge || !useful || edge - a >= (1ull << (64 - CUT_SHIFT)) || edge > CUT_LOW)
		return;
	tok[k].lp = (edge - a) << CUT_SHIFT | edge;
}

/* Cut tokens into pieces for the pass: ops[k + (cuts before k)] the
 * first (with the token's literals), the next the second; the cuts a
 * block of 256 tokens counted, then scanned by one block, then written;
 * the entries past the last piece (up to cap) made empty at size. */
#define EXP_T 256
__global__ void cut_count_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok, uint32_t *__restrict__ bsum)
{
	const uint32_t k = blockIdx.x * EXP_T + threadIdx.x;
	const int cut = k < ntok && (tok[k].lp >> CUT_SHIFT) != 0;
	const int n = __syncthreads_count(cut);
	if (threadIdx.x == 0)
		bsum[blockIdx.x] = (uint32_t)n;
}

__global__ void cut_scan_kernel(uint32_t *bsum, uint32_t nb, uint32_t ntok, uint32_t *total)
{
	/* (one block of 1024: the blocks' counts to offsets, in order) */
	__shared__ uint32_t carry;
	__shared__ uint32_t wsum[32];
	const unsigned lane = threadIdx.x & 31, wid = threadIdx.x / 32;
	if (threadIdx.x == 0)
		carry = 0;
	__syncthreads();
	for (uint32_t base = 0; base < nb; base += blockDim.x) {
		const uint32_t i = base + threadIdx.x, v = i < nb ? bsum[i] : 0;
		uint32_t x = v;
#pragma unroll
		for (unsigned s = 1; s < 32; s <<= 1) {
			const uint32_t y = __shfl_up_sync(FULL, x, s);
			if (lane >= s)
				x += y;
		}
		if (lane == 31)
			wsum[wid] = x;
		__syncthreads();
		if (wid == 0) {
			uint32_t z = lane < blockDim.x / 32 ? wsum[lane] : 0;
#pragma unroll
			for (unsigned s = 1; s < 32; s <<= 1) {
				const uint32_t y = __shfl_up_sync(FULL, z, s);
				if (lane >= s)
					z += y;
			}
			wsum[lane] = z;
		}
		__syncthreads();
		const uint32_t before = carry + (wid ? wsum[wid - 1] : 0) + x - v;
		if (i < nb)
			bsum[i] = before;
		__syncthreads();
		if (threadIdx.x == blockDim.x - 1)
			carry = before + v;
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*total = ntok + carry;
}

__global__ void cut_write_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok,
				 const uint32_t *__restrict__ bsum, wlz_gpu_token *__restrict__ ops)
{
	const unsigned lane = threadIdx.x & 31, wid = threadIdx.x / 32;
	const uint32_t k = blockIdx.x * EXP_T + threadIdx.x;
	const wlz_gpu_token t = k < ntok ? get_token(tok + k) : wlz_gpu_token{0, 0, 0, 0, 0};
	const uint64_t c = t.lp >> CUT_SHIFT;
	const uint32_t ball = __ballot_sync(FULL, k < ntok && c);
	__shared__ uint32_t wc[EXP_T / 32];
	if (lane == 0)
		wc[wid] = __popc(ball);
	__syncthreads();
	uint32_t before = bsum[blockIdx.x] + __popc(ball & ((1u << lane) - 1));
	for (unsigned w = 0; w < wid; w++)
		before += wc[w];
	if (k >= ntok)
		return;
	const uint64_t i = (uint64_t)k + before;
	if (!c) {
		put_token(ops + i, t.lit, t.mlen, t.src, t.pos, 0);
		return;
	}
	put_token(ops + i, t.lit, (uint32_t)c, t.src, t.pos, 0);
	put_token(ops + i + 1, 0, (uint32_t)(t.mlen - c), t.lp & CUT_LOW, t.pos + t.lit + c, 0);
}

/* (one empty entry at size after the last piece: nothing reads past the
 * count, but a stray read then finds an empty token, not a stale one) */
__global__ void cut_tail_kernel(wlz_gpu_token *__restrict__ ops, uint64_t cap, const uint32_t *__restrict__ total,
				uint64_t size)
{
	if (*total < cap)
		ops[*total] = wlz_gpu_token{0, 0, size, size, 0};
}

/* Up to rounds rounds (after flow_prep: the granule table is built and
 * the literals are placed).  The two bit arrays borrow the tokens' state
 * words, which are zeroed again for the pass.  CUT: then a cut where
 * useful (every token's lp written), and the rounds again over the
 * pieces. */
template <bool CUT>
static int resolve(wlz_gpu_token *tok, size_t ntok, unsigned rounds, uint64_t window, const flow_area &A,
		   cudaStream_t st)
{
	const size_t words = ntok / 32 + 1;
	if (!rounds || ntok < 4 * words)
		return 0; /* (fewer than 4 tokens: the bits would not fit their states) */
	uint32_t *bits[2] = {A.state, A.state + words};
	const unsigned grid = (unsigned)((ntok + 255) / 256);
	for (unsigned r = 0; r < rounds; r++)
		resolve_kernel<false><<<grid, 256, 0, st>>>(tok, (uint32_t)ntok, A.gidx, window, bits[r & 1],
							     bits[~r & 1], r == 0);
	if (CUT) {
		cut_kernel<<<grid, 256, 0, st>>>(tok, (uint32_t)ntok, A.gidx);
		for (unsigned r = 0; r < rounds; r++)
			resolve_kernel<true><<<grid, 256, 0, st>>>(tok, (uint32_t)ntok, A.gidx, window, bits[r & 1],
								    bits[~r & 1], r == 0);
	}
	if (cudaMemsetAsync(A.state, 0, 2 * words * 4, st) != cudaSuccess)
		return 1;
	return cudaGetLastError() != cudaSuccess;
}

/* The pieces of the ntok cut tokens into ops (cap = 2 ntok entries) and
 * their count into *A.count, with the blocks' counts in the state words
 * (zeroed again by index_kernel over ops). */
static int expand(const wlz_gpu_token *tok, size_t ntok, wlz_gpu_token *ops, uint64_t size, const flow_area &A,
		  cudaStream_t st)
{
	const uint32_t nb = (uint32_t)((ntok + EXP_T - 1) / EXP_T);
	uint32_t *bsum = A.state, *total = A.count;
	const uint64_t cap = 2 * (uint64_t)ntok;
	if (nb) {
		cut_count_kernel<<<nb, EXP_T, 0, st>>>(tok, (uint32_t)ntok, bsum);
		cut_scan_kernel<<<1, 1024, 0, st>>>(bsum, nb, (uint32_t)ntok, total);
		cut_write_kernel<<<nb, EXP_T, 0, st>>>(tok, (uint32_t)ntok, bsum, ops);
		cut_tail_kernel<<<1, 1, 0, st>>>(ops, cap, total, size);
	}
	return cudaGetLastError() != cudaSuccess;
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

/* Literal bytes a warp of lits_kernel copies, and 32-byte steps a lane
 * has in flight (their owners found, loads issued, then stores). */
#define LIT_TILE 1024
#define LIT_UNROLL 4

/* Every literal byte: the warp (blockIdx.y, warp) of block blockIdx.x
 * copies bytes [start, start + LIT_TILE) of the block's literal stream,
 * to its tokens' places or, past the last token's, to the block's tail.
 * The warp loads its tile whole first (two 16-byte loads a lane, in flight
 * during the search for its first token) into shared memory, whence each
 * byte is taken: a byte load from global memory a byte, four in flight a
 * lane, left the kernel waiting on them (bench/host/issue15-flow.md). */
__global__ void lits_kernel(const wlz_gpu_pblock *__restrict__ blk, const wlz_gpu_token *__restrict__ tok,
			    const uint8_t *__restrict__ st, uint8_t *__restrict__ out, const uint32_t *bad)
{
	if (bad[blockIdx.x])
		return; /* the block broke a rule: its tokens are not to be trusted */
	const unsigned lane = threadIdx.x & 31;
	const wlz_gpu_pblock B = blk[blockIdx.x];
	const uint32_t nlit = B.rsize[1], nt = B.ntok;
	const uint32_t start = (blockIdx.y * (blockDim.x / 32) + threadIdx.x / 32) * LIT_TILE;
	if (start >= nlit)
		return;
	const uint32_t end = nlit - start < LIT_TILE ? nlit : start + LIT_TILE;
	const wlz_gpu_token *T = tok + B.tok_off;
	const uint8_t *lit = st + B.s_off[1];
	/* (16-byte aligned: streams lie at such places, and start is a
	 * multiple of LIT_TILE; a chunk may run up to 15 bytes past end, into
	 * the 16 readable bytes after every stream) */
	__shared__ uint4 tile[FT / 32][LIT_TILE / 16];
	static_assert(LIT_TILE == 32 * 32, "two 16-byte chunks a lane");
	uint4 *const tw = tile[threadIdx.x / 32];
	const uint4 *src4 = (const uint4 *)(lit + start);
	uint4 c0 = make_uint4(0, 0, 0, 0), c1 = c0;
	if (16 * lane < end - start)
		c0 = src4[lane];
	if (16 * (lane + 32) < end - start)
		c1 = src4[lane + 32];
	const uint64_t lbase = B.s_off[1];
	/* The tail: stream bytes from tail0 on, to the output from tend on. */
	uint64_t tend = B.bstart;
	if (nt)
		tend = T[nt - 1].pos + T[nt - 1].lit + T[nt - 1].mlen;
	const uint32_t tail0 = nlit - (uint32_t)(B.bstart + B.length - tend);
	/* The last token whose literals start at or before start: a search
	 * 32 ways at a time (token 0's start at 0). */
	uint32_t lo = 0, hi = nt;
	while (hi - lo > 32) {
		const uint32_t step = (hi - lo + 31) / 32, j = lo + lane * step;
		const uint32_t m = __ballot_sync(FULL, j < hi && T[j].lp - lbase <= start);
		lo += (31 - __clz(m)) * step;
		hi = lo + step < hi ? lo + step : hi;
	}
	if (hi > lo) {
		const uint32_t m = __ballot_sync(FULL, lo + lane < hi && T[lo + lane].lp - lbase <= start);
		lo += 31 - __clz(m);
	}
	/* 32 tokens at a time: the bytes before the next batch's first
	 * token's literals are theirs (a block's literals lie back to back,
	 * so byte x is the literal of the last token starting at or before
	 * it). */
	tw[lane] = c0;
	tw[lane + 32] = c1;
	__syncwarp();
	const uint8_t *const tb = (const uint8_t *)tw; /* (byte x of the stream at tb[x - start]) */
	uint32_t x0 = start < tail0 ? start : tail0, x1 = end < tail0 ? end : tail0;
	for (uint32_t j = lo; x0 < x1; j += 32) {
		const uint32_t jj = j + lane;
		const bool h = jj < nt;
		const uint32_t lpr = h ? (uint32_t)(T[jj].lp - lbase) : UINT32_MAX;
		const uint64_t ps = h ? T[jj].pos : 0;
		const uint32_t cover = j + 32 < nt ? (uint32_t)(T[j + 32].lp - lbase) : tail0;
		const uint32_t stop = x1 < cover ? x1 : cover;
		for (uint32_t base = x0; base < stop; base += 32 * LIT_UNROLL) {
			uint8_t v[LIT_UNROLL];
			uint64_t to[LIT_UNROLL];
#pragma unroll
			for (int u = 0; u < LIT_UNROLL; u++) {
				const uint32_t x = base + u * 32 + lane;
				const unsigned o = owner(lpr, x);
				const uint32_t q = __shfl_sync(FULL, lpr, o);
				const uint64_t p = __shfl_sync(FULL, ps, o);
				to[u] = x < stop ? p + (x - q) : NONE;
				v[u] = x < stop ? tb[x - start] : 0;
			}
#pragma unroll
			for (int u = 0; u < LIT_UNROLL; u++)
				if (to[u] != NONE)
					out[to[u]] = v[u];
		}
		x0 = stop > x0 ? stop : x0;
	}
#pragma unroll 4
	for (uint32_t x = (start > tail0 ? start : tail0) + lane; x < end; x += 32)
		out[tend + (x - tail0)] = tb[x - start];
}

/* Copies tot bytes spread over the lanes, UNROLL a lane at a time (their
 * loads before their stores): byte k belongs to the lane whose exclusive
 * prefix pre is the last at or below it, and byte(lane, k, &to) gives
 * where it comes from and goes (called by every lane, k < tot or not: it
 * shuffles).  Steps of 32 bytes past tot are skipped, the warp as one: a
 * round copies a few dozen bytes, and the pass spent most of its
 * instructions here (bench/host/issue15-flow.md). */
template <class F>
__device__ __forceinline__ void spread(uint32_t pre, uint32_t tot, unsigned lane, uint8_t *out, F byte)
{
	for (uint32_t base = 0; base < tot; base += 32 * UNROLL) {
		uint8_t v[UNROLL];
		uint64_t to[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			to[u] = NONE;
			v[u] = 0;
			if (base + u * 32 < tot) {
				const uint32_t k = base + u * 32 + lane;
				const uint8_t *from = byte(owner(pre, k), k, &to[u]);
				if (k < tot)
					v[u] = __ldcg(from);
				else
					to[u] = NONE;
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			if (to[u] != NONE)
				out[to[u]] = v[u];
	}
}

/* Publishes this warp's lanes' states (where set) after every byte the
 * warp wrote: the warp's barrier orders its lanes' stores before the
 * release.  SYS: at system scope, for a member split over GPUs, whose
 * other GPUs poll these states and read these bytes over NVLink. */
template <bool SYS>
__device__ __forceinline__ void publish(uint32_t *state, uint32_t i, bool set, uint32_t v)
{
	__syncwarp();
	if (set) {
		if (SYS)
			asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(state + i), "r"(v) : "memory");
		else
			asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(state + i), "r"(v) : "memory");
	}
}

/* A token's state, read with acquire: the bytes its state says are final
 * are read after (a release store and acquire loads measured faster than
 * fences on either side). */
template <bool SYS>
__device__ __forceinline__ uint32_t poll(const uint32_t *p)
{
	uint32_t v;
	if (SYS)
		asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	else
		asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

/* GP: range r's group published as done, in the other GPUs' flags (for
 * their passes) and in this one's (for the host's copy of the group),
 * after the caller's fence at system scope. */
static __device__ __forceinline__ void publish_group(const flow_area &A, uint32_t r)
{
	const uint32_t gid = A.gbase + r * A.ngpus + A.gpu;
	for (unsigned g = 0; g < A.npeers; g++)
		asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(A.peer_gflag[g] + gid), "r"(A.epoch) : "memory");
	asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(A.gflag + gid), "r"(A.epoch) : "memory");
}

template <bool SYS, bool ST, bool GP>
static __device__ __forceinline__ void flow_warp(const wlz_gpu_token *__restrict__ tok, uint32_t ntok, tranges R,
						 uint32_t nch, uint8_t *out, const flow_area &A, uint32_t *fail)
{
	const unsigned lane = threadIdx.x & 31;
	/* (ST, a diagnostic: chunks, and the warp's stalled polls by what the
	 * first stalled lane waits on: another GPU's token, one of its own
	 * GPU's earlier chunks, one of its own chunk) */
	unsigned long long n_chunk = 0, n_peer = 0, n_own = 0, n_in = 0;
	/* (tok holds all ntok tokens of the member; this GPU's are R's) */
	/* (bytes before the first token are final: an earlier piece's) */
	const uint64_t t0 = GP ? A.t0 : SYS ? A.tpos[0] : tok[0].pos;
	if (A.count) {
		ntok = *A.count;
		nch = (ntok + 31) / 32;
	}
	for (;;) {
		uint32_t c = 0;
		if (lane == 0)
			c = atomicAdd(A.ticket, 1);
		c = __shfl_sync(FULL, c, 0);
		if (c >= nch) {
			if (ST && lane == 0) {
				atomicAdd(A.stats, n_chunk);
				atomicAdd(A.stats + 1, n_peer);
				atomicAdd(A.stats + 2, n_own);
				atomicAdd(A.stats + 3, n_in);
			}
			return;
		}
		n_chunk++;
		/* (tokens rlo.. of the range, up to the chunk, are this GPU's) */
		uint32_t i0, rlo, tend;
		uint32_t rng;
		chunk_tokens(R, ntok, c, &i0, &rlo, &tend, &rng);
		const uint32_t i = i0 + lane;
		const bool have = i < tend;
		wlz_gpu_token t = {0, 0, 0, 0, 0};
		if (have)
			t = get_token(tok + i);
		const uint64_t cs = __shfl_sync(FULL, t.pos, 0);
		/* Positions from the chunk's start, in 32 bits unless the chunk
		 * spans 4 GiB (blocks without tokens between two of its tokens):
		 * then a match inside the chunk waits on every token before it. */
		const uint64_t dst = t.pos + t.lit;
		const bool wide = __any_sync(FULL, have && t.pos - cs >= UINT32_MAX);
		const uint32_t rpos = have && !wide ? (uint32_t)(t.pos - cs) : UINT32_MAX;

		/* 1. Sources: tokens next..last of earlier chunks whose matches
		 * it reads, and those of this chunk before it (need). */
		const uint64_t dist = dst - t.src;
		const uint32_t own = have ? (uint32_t)(dist < t.mlen ? dist : t.mlen) : 0;
		const uint64_t a = t.src, b = t.src + own, a0 = a > t0 ? a : t0;
		uint32_t next = 1, last = 0;
		/* (GP: another GPU's groups it reads, waited on by their flags:
		 * the first's number << 2 | how many, consecutive) */
		uint32_t wait = 0;
		if (own && a0 < cs && b > t0) {
			uint64_t w0 = a0, e = (b < cs ? b : cs) - 1;
			if (GP) {
				/* (a source is no longer than a match, a match than
				 * its block, a block than a group: two groups at most) */
				const uint32_t ga = (uint32_t)(a0 >> A.gshift), ge = (uint32_t)(e >> A.gshift);
				const bool oa = ga % A.ngpus == A.gpu, oe = ge % A.ngpus == A.gpu;
				if (!oa) {
					wait = ga << 2 | 1;
					w0 = (uint64_t)(ga + 1) << A.gshift;
				}
				if (!oe && ge != ga) {
					wait = oa ? ge << 2 | 1 : wait + 1;
					e = ((uint64_t)ge << A.gshift) - 1;
				}
				/* (its own bytes before the piece: final) */
				const uint64_t pb = (uint64_t)A.gbase << A.gshift;
				if (w0 < pb)
					w0 = pb;
			}
			if (w0 <= e) {
				next = walk<SYS>(tok, A, ntok, A.gidx[w0 >> GRAN_BITS], w0);
				last = walk<SYS>(tok, A, ntok, next, e);
				/* (its reads end in last's literals: last's match is not
				 * read; all before the first token: a tail) */
				const uint64_t lp = tpos<SYS>(tok, A, last);
				if (lp > e || e < lp + tok[last].lit) {
					if (last == next || lp > e)
						next = 1, last = 0;
					else
						last--;
				}
			}
		}
		const bool inside = own && b > cs;
		const uint32_t lo = inside ? (uint32_t)((a > cs ? a : cs) - cs) : 0,
			       hi = inside ? (uint32_t)(b - 1 - cs) : 0;
		const unsigned jlo = owner(rpos, lo), jhi = owner(rpos, hi);
		/* Only tokens whose match it reads: those from jlo up to jhi
		 * (it reads on to their ends), and jhi if it reaches jhi's match
		 * (jhi == lane: its own literals, written already). */
		const uint32_t rmatch = rpos + t.lit, mhi = __shfl_sync(FULL, rmatch, jhi);
		uint32_t need = 0;
		if (inside)
			need = wide ? (1u << lane) - 1 : (1u << jhi) - (1u << jlo) | (jhi < lane && hi >= mhi ? 1u << jhi : 0);

		/* 2. Matches in rounds, each round's states published. */
		uint32_t polls = 0;
		uint32_t fin = __ballot_sync(FULL, !have);
		while (fin != FULL) {
			const bool mine = !(fin >> lane & 1);
			/* (GP: the groups first, then its own GPU's tokens) */
			while (GP && mine && (wait & 3) && poll<true>(A.gflag + (wait >> 2)) == A.epoch)
				wait += 3; /* (the next group, one fewer) */
			while (mine && !(wait & 3) && next <= last) {
				/* (another GPU's token: its chunk's state, written
				 * here at system scope once the chunk is done) */
				const bool done = SYS && !GP && !own_token(A.own, rlo, next)
							  ? poll<true>(A.rstate + next) == A.epoch
							  : poll<false>(A.state + next) != 0;
				if (!done)
					break;
				next++;
			}
			const bool go = mine && !(wait & 3) && next > last && !(need & ~fin);
			const uint32_t ready = __ballot_sync(FULL, go);
			if (!ready) {
				if (ST) {
					const unsigned f = __ffs(~fin) - 1;
					const uint32_t fn = __shfl_sync(FULL, next, f), fl = __shfl_sync(FULL, last, f);
					if (fn > fl)
						n_in++;
					else if (!own_token(A.own, rlo, fn))
						n_peer++;
					else
						n_own++;
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
						fail[1] = i0 + f, fail[2] = fn, fail[3] = fl;
						fail[4] = fn < ntok ? (SYS && !own_token(A.own, rlo, fn) ? A.rstate[fn] : A.state[fn]) : ~0u;
						fail[5] = fneed;
					}
					return;
				}
				__nanosleep(64);
				continue;
			}
			__syncwarp();
			/* Byte k of the round's goes to mdst + k, from src + j
			 * (j % own past own: own == dist where it overlaps). */
			uint32_t mtot;
			const uint32_t mpre = warp_excl(go ? t.mlen : 0, lane, &mtot);
			const uint64_t mdst = dst - mpre;
			if (__any_sync(FULL, go && own < t.mlen)) {
				spread(mpre, mtot, lane, out, [&](unsigned o, uint32_t k, uint64_t *to) {
					const uint32_t j = k - __shfl_sync(FULL, mpre, o), ow = __shfl_sync(FULL, own, o);
					*to = __shfl_sync(FULL, mdst, o) + k;
					return out + __shfl_sync(FULL, t.src, o) + (j < ow ? j : j % ow);
				});
			} else {
				/* (no match of the round overlaps its own output: byte
				 * k comes from msrc + k) */
				const uint64_t msrc = t.src - mpre;
				spread(mpre, mtot, lane, out, [&](unsigned o, uint32_t k, uint64_t *to) {
					*to = __shfl_sync(FULL, mdst, o) + k;
					return out + __shfl_sync(FULL, msrc, o) + k;
				});
			}
			/* (published every round: holding them to the chunk's end
			 * measured slower at depth 10) */
			publish<false>(A.state, i, go, 1);
			fin |= ready;
		}
		/* Split over GPUs: the chunk's states into the others' memory,
		 * at system scope once (a release at system scope costs far
		 * more than at the GPU's, and a chunk publishes about ten
		 * rounds; states polled across NVLink cost more again). */
		if (GP) {
			/* The range's last chunk done publishes its group: its
			 * count taken with acquire and release at the GPU's scope
			 * (every chunk's bytes before it), then one fence at
			 * system scope before the other GPUs' flags. */
			__syncwarp();
			if (lane == 0) {
				uint32_t old;
				asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
					     : "=r"(old)
					     : "l"(A.gcount + rng)
					     : "memory");
				if (old + 1 == R.chunk[rng + 1] - R.chunk[rng]) {
					asm volatile("fence.sc.sys;" ::: "memory");
					publish_group(A, rng);
				}
			}
		} else if (SYS) {
			for (unsigned g = 0; g < A.npeers; g++)
				publish<true>(A.peer_rstate[g], i, have, A.epoch);
		}
	}
}

/* (8 blocks an SM: 32 registers, a few spilled, measured faster than 46
 * registers at 5 blocks; so were acquire loads than relaxed polls and a
 * fence) */
template <bool SYS, bool ST = false, bool GP = false>
__global__ void __launch_bounds__(FT, 8)
	flow_kernel(const wlz_gpu_token *__restrict__ tok, uint32_t ntok, tranges R, uint32_t nch, uint8_t *out,
		    flow_area A, uint32_t *fail)
{
	flow_warp<SYS, ST, GP>(tok, ntok, R, nch, out, A, fail);
	/* GP: the last warp out (gcount's word after the ranges' counts)
	 * sets every one of this GPU's own groups' flags, here and on the
	 * other GPUs, so that the host's copies and the other passes waiting
	 * on them go on even where the pass gave up. */
	if (GP && (threadIdx.x & 31) == 0) {
		const uint32_t warps = gridDim.x * (blockDim.x / 32);
		if (atomicAdd(A.gcount + R.n, 1) + 1 == warps) {
			__threadfence_system();
			/* (the other GPUs' words too: their passes stop waiting
			 * on a group abandoned here, and fail its checksum) */
			for (uint32_t r = 0; r < R.n; r++)
				publish_group(A, r);
		}
	}
}

/* Literals, the fail words, the ticket, the scrub of bad blocks, and the
 * granules and states of this GPU's count tokens (R) of tok (ntok). */
static int flow_prep(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_lit, wlz_gpu_token *tok, uint64_t ntok,
		     const tranges &R, uint64_t count, const uint8_t *d_streams, uint8_t *d_out, uint64_t size,
		     const flow_area &A, const uint32_t *d_bad, uint32_t *d_fail, cudaStream_t st)
{
	const unsigned per = LIT_TILE * (FT / 32);
	if (n && max_lit)
		lits_kernel<<<dim3((unsigned)n, (max_lit + per - 1) / per), FT, 0, st>>>(d_blk, tok, d_streams, d_out,
											   d_bad);
	if (cudaMemsetAsync(d_fail, 0, WLZ_GPU_FLOW_FAIL * 4, st) != cudaSuccess ||
	    cudaMemsetAsync(A.ticket, 0, 4, st) != cudaSuccess)
		return 1;
	if (n)
		scrub_kernel<<<(unsigned)n, 256, 0, st>>>(d_blk, tok, d_bad);
	if (R.n)
		own_kernel<<<(unsigned)((ntok / 32 + 256) / 256), 256, 0, st>>>(R, (uint32_t)ntok, A.own);
	if (count)
		index_kernel<<<(unsigned)((count + 255) / 256), 256, 0, st>>>(tok, (uint32_t)ntok, R, (uint32_t)count,
									     size, A);
	return cudaGetLastError() != cudaSuccess;
}

/* The pass over this GPU's tokens (R, nch chunks) of tok (ntok). */
template <bool SYS>
static int flow_run(const wlz_gpu_token *tok, uint64_t ntok, const tranges &R, uint64_t nchunk, uint8_t *d_out,
		    const flow_area &A, uint32_t *d_fail, cudaStream_t st)
{
	if (!nchunk)
		return 0;
	const uint32_t nch = (uint32_t)nchunk;
	/* (the device's SMs and the pass's blocks an SM, asked once a
	 * device: the queries cost more than the launches) */
	static int known[64], sms[64], fits[64];
	int dev, nsm, fit;
	if (cudaGetDevice(&dev) != cudaSuccess)
		return 1;
	if (dev < 0 || dev >= 64 || !known[dev]) {
		if (cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, flow_kernel<SYS>, FT, 0) != cudaSuccess)
			return 1;
		if (dev >= 0 && dev < 64)
			sms[dev] = nsm, fits[dev] = fit, known[dev] = 1;
	} else {
		nsm = sms[dev], fit = fits[dev];
	}
	/* Only as many warps as run at once: the ticket hands out the work. */
	const uint32_t want = (nch + FT / 32 - 1) / (FT / 32), most = (uint32_t)(nsm * (fit > 0 ? fit : 1));
	const unsigned grid = want < most ? want : most;
	if constexpr (SYS) {
		if (A.stats && A.gflag)
			flow_kernel<true, true, true><<<grid, FT, 0, st>>>(tok, (uint32_t)ntok, R, nch, d_out, A, d_fail);
		else if (A.stats)
			flow_kernel<true, true><<<grid, FT, 0, st>>>(tok, (uint32_t)ntok, R, nch, d_out, A, d_fail);
		else if (A.gflag)
			flow_kernel<true, false, true><<<grid, FT, 0, st>>>(tok, (uint32_t)ntok, R, nch, d_out, A, d_fail);
		if (A.stats || A.gflag)
			return cudaGetLastError() != cudaSuccess;
	}
	flow_kernel<SYS><<<grid, FT, 0, st>>>(tok, (uint32_t)ntok, R, nch, d_out, A, d_fail);
	return cudaGetLastError() != cudaSuccess;
}

extern "C" unsigned wlz_gpu_flow_resolve_for(unsigned max_level)
{
	return max_level > WLZ_GPU_FLOW_RESOLVE_LEVEL ? WLZ_GPU_FLOW_RESOLVE_ROUNDS : 0;
}

extern "C" int wlz_gpu_flow_cut_for(unsigned max_level, uint64_t bytes, uint64_t ntok)
{
	return wlz_gpu_flow_resolve_for(max_level) && ntok >= 64 && bytes >= WLZ_GPU_FLOW_CUT_BYTES * ntok;
}

extern "C" int wlz_gpu_flow(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_lit, wlz_gpu_token *d_tok,
			    size_t ntok, const uint8_t *d_streams, uint8_t *d_out, uint64_t size, void *d_work,
			    const uint32_t *d_bad, uint32_t *d_fail, unsigned rounds, uint64_t window,
			    wlz_gpu_token *d_ops, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	const tranges all = {NULL, NULL, NULL, 0};
	/* (cut only where resolve runs its rounds, and the pieces' indices
	 * fit 32 bits) */
	if (!d_ops || !rounds || ntok < 64 || ntok > UINT32_MAX / 2) {
		const flow_area A = area(d_work, ntok, size);
		return flow_prep(d_blk, n, max_lit, d_tok, ntok, all, ntok, d_streams, d_out, size, A, d_bad, d_fail,
				 st) ||
		       resolve<false>(d_tok, ntok, rounds, window, A, st) ||
		       flow_run<false>(d_tok, ntok, all, (ntok + 31) / 32, d_out, A, d_fail, st);
	}
	/* Cut tokens: the pass runs over the pieces (2 ntok entries, the
	 * last empty), with their own granules and states. */
	const flow_area A = area(d_work, 2 * ntok, size);
	const uint64_t cap = 2 * (uint64_t)ntok;
	if (flow_prep(d_blk, n, max_lit, d_tok, ntok, all, ntok, d_streams, d_out, size, A, d_bad, d_fail, st) ||
	    resolve<true>(d_tok, ntok, rounds, window, A, st))
		return 1;
	/* (the index and the pass over the pieces bounded by their count,
	 * which expand writes on the device; resolve<true> always reaches
	 * cut_kernel here, ntok >= 64, so every lp holds a cut or 0 and no
	 * longer the literal kernel's stream offset) */
	flow_area P = A;
	P.count = A.ticket + 1;
	if (expand(d_tok, ntok, d_ops, size, P, st))
		return 1;
	index_kernel<<<(unsigned)((cap + 255) / 256), 256, 0, st>>>(d_ops, (uint32_t)cap, all, (uint32_t)cap, size, P);
	return cudaGetLastError() != cudaSuccess || flow_run<false>(d_ops, cap, all, (cap + 31) / 32, d_out, P, d_fail, st);
}

extern "C" size_t wlz_gpu_flow_granules(uint64_t size)
{
	return granules(size);
}

static tranges split_ranges(const wlz_gpu_flow_split *sp)
{
	const tranges R = {sp->rfirst, sp->rtok, sp->rchunk, sp->nr};
	return R;
}

static flow_area split_area(const wlz_gpu_flow_split *sp)
{
	flow_area A;
	A.gidx = sp->gidx;
	A.state = sp->state;
	A.count = NULL;
	A.rstate = sp->rstate;
	A.npeers = sp->npeers < WLZ_GPU_FLOW_PEERS ? sp->npeers : WLZ_GPU_FLOW_PEERS;
	A.epoch = sp->epoch;
	A.own = sp->own;
	A.tpos = sp->tpos;
	A.stats = sp->stats;
	A.gflag = sp->gflag, A.gcount = sp->gcount;
	A.gshift = sp->gshift, A.gpu = sp->gpu, A.ngpus = sp->ngpus ? sp->ngpus : 1, A.gbase = sp->gbase;
	for (unsigned g = 0; g < A.npeers; g++)
		A.peer_gflag[g] = sp->peer_gflag[g];
	A.t0 = sp->t0;
	for (unsigned g = 0; g < A.npeers; g++)
		A.peer_gidx[g] = sp->peer_gidx[g], A.peer_rstate[g] = sp->peer_rstate[g], A.peer_tpos[g] = sp->peer_tpos[g];
	A.ticket = sp->ticket;
	return A;
}

extern "C" int wlz_gpu_flow_split_prep(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_lit,
				       const wlz_gpu_flow_split *sp, const uint8_t *d_streams, uint8_t *d_out,
				       uint64_t size, const uint32_t *d_bad, uint32_t *d_fail, void *stream, void *side)
{
	cudaStream_t st = (cudaStream_t)stream, sd = side ? (cudaStream_t)side : st;
	cudaEvent_t *ev = (cudaEvent_t *)sp->prep_ev;
	const tranges R = split_ranges(sp);
	const flow_area A = split_area(sp);
	const uint64_t ntok = sp->ntok, count = sp->count;
	/* The tables first (after the scrub, whose tokens they index), alone
	 * on the GPU; then their copy to the other GPUs on the side stream
	 * while this one places the literals. */
	if (ev)
		cudaEventRecord(ev[0], st);
	if (cudaMemsetAsync(d_fail, 0, WLZ_GPU_FLOW_FAIL * 4, st) != cudaSuccess ||
	    cudaMemsetAsync(A.ticket, 0, 4, st) != cudaSuccess ||
	    (A.gcount && cudaMemsetAsync(A.gcount, 0, (size_t)R.n * 4 + 4, st) != cudaSuccess))
		return 1;
	if (n)
		scrub_kernel<<<(unsigned)n, 256, 0, st>>>(d_blk, sp->tok, d_bad);
	if (R.n)
		own_kernel<<<(unsigned)((ntok / 32 + 256) / 256), 256, 0, st>>>(R, (uint32_t)ntok, A.own);
	if (ev)
		cudaEventRecord(ev[1], st);
	flow_area L = A;
	L.npeers = 0;
	if (count)
		index_kernel<<<(unsigned)((count + 255) / 256), 256, 0, st>>>(sp->tok, (uint32_t)ntok, R, (uint32_t)count,
									      size, L);
	if (ev)
		cudaEventRecord(ev[3], st);
	cudaEvent_t fork = NULL, join = NULL;
	if (sd != st) {
		if (cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) != cudaSuccess)
			return 1;
		if (cudaEventCreateWithFlags(&join, cudaEventDisableTiming) != cudaSuccess) {
			cudaEventDestroy(fork);
			return 1;
		}
		cudaEventRecord(fork, st);
		cudaStreamWaitEvent(sd, fork, 0);
	}
	if (A.npeers && R.n && !A.gflag) {
		/* (about two blocks an SM however few the ranges) */
		const unsigned y = R.n >= 256 ? 1 : (256 + R.n - 1) / R.n;
		mirror_kernel<<<dim3(R.n, y), 256, 0, sd>>>(sp->tok, (uint32_t)ntok, R, size, A);
	}
	if (ev)
		cudaEventRecord(ev[4], sd);
	const unsigned per = LIT_TILE * (FT / 32);
	if (n && max_lit)
		lits_kernel<<<dim3((unsigned)n, (max_lit + per - 1) / per), FT, 0, st>>>(d_blk, sp->tok, d_streams,
											   d_out, d_bad);
	if (ev)
		cudaEventRecord(ev[2], st);
	if (sd != st) {
		cudaEventRecord(join, sd);
		cudaStreamWaitEvent(st, join, 0);
		/* (released once both have fired) */
		cudaEventDestroy(fork);
		cudaEventDestroy(join);
	}
	return cudaGetLastError() != cudaSuccess;
}

extern "C" int wlz_gpu_flow_split_run(const wlz_gpu_flow_split *sp, uint8_t *d_out, uint32_t *d_fail, void *stream)
{
	return flow_run<true>(sp->tok, sp->ntok, split_ranges(sp), sp->nchunk, d_out, split_area(sp), d_fail,
			      (cudaStream_t)stream);
}
