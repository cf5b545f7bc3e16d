/*
 * parse.cu - GPU token parsing: each token's place in the len and off
 * streams and in the output found by prefix sums instead of a serial
 * pass.  A block's tokens are cut into segments of TILE (a thread block
 * each, IPT neighbouring tokens a thread), so that a block's parse is
 * spread over many SMs; four launches:
 *   1. prep, two thread blocks an archive block: one the len stream's
 *      varints (a byte with its high bit clear ends one; a scan of those
 *      ends gives each varint's first byte), the other the heads (tokens
 *      with an explicit distance) and each segment's first varint and
 *      head (a scan of the cmd bytes alone);
 *   2. sums, a thread block a segment: lengths, heads and low-byte counts;
 *      the segment's sums of (low bytes, literals, output) and its last
 *      head;
 *   3. carry, a warp an archive block: the segments' sums in order (a
 *      scan), and the distance a repeat at each segment's start takes (the
 *      last head before it, read here); prep's two halves checked against
 *      each other;
 *   4. final, a thread block a segment: as 2, then every token's low
 *      bytes, literals, output position and distance (a repeat takes the
 *      last head's before it: a scan), checked and written.
 * Every rule of SPEC.md section 6 is checked; a block that breaks one is
 * marked bad.
 */
#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include "gpu_wavefront/parse.h"

#define FULL 0xffffffffu
#define IPT 8 /* tokens (or len bytes) a thread */
#define TILE WLZ_GPU_PARSE_TILE
#define NT (TILE / IPT) /* a segment is a thread block's tile */
/* A thread's staged tokens, 8-byte words apart (2 of padding: the
 * threads of a warp store to different banks). */
#define STAGE_STRIDE (IPT * 4 + 2)
#define STAGE_BYTES (NT * STAGE_STRIDE * 8)
#define LIT_MAX 7
#define MATCH_MAX 15
#define MINMATCH 3

struct tri {
	uint64_t low, lit, out;
};
struct tri_sum {
	__device__ __forceinline__ tri operator()(const tri &a, const tri &b) const
	{
		return {a.low + b.low, a.lit + b.lit, a.out + b.out};
	}
};
/* The distance a repeat takes: the later one where it has a head. */
struct last_dist {
	__device__ __forceinline__ uint64_t operator()(uint64_t a, uint64_t b) const { return b ? b : a; }
};

/* Varint j of the len stream (bytes vs[j] to vs[j + 1] - 1): 0 if it is
 * missing, longer than 10 bytes, over 64 bits or overlong. */
__device__ bool varint(const uint8_t *len, const uint32_t *vs, uint32_t nv, uint32_t j, uint64_t *x)
{
	if (j >= nv)
		return false;
	const uint32_t a = vs[j], n = vs[j + 1] - a;
	if (n > 10 || (n > 1 && len[a + n - 1] == 0) || (n == 10 && len[a + 9] > 1))
		return false;
	uint64_t v = 0;
	for (uint32_t i = 0; i < n; i++)
		v |= (uint64_t)(len[a + i] & 127) << (7 * i);
	*x = v;
	return true;
}

/* IPT bytes from p (8-aligned; the streams have 16 readable bytes after
 * each), as one word. */
__device__ __forceinline__ uint64_t word8(const uint8_t *p)
{
	return *(const uint64_t *)p;
}

/* After a block's varint starts in the scratch (8-byte aligned): the
 * block's record, then a record a segment (u64 words each). */
enum { R_NV, R_H, R_NVT, R_WORDS };
enum { S_NVH, S_LOW, S_LIT, S_OUT, S_LAST, S_CLOW, S_CLIT, S_COUT, S_DIST, S_WORDS };
static_assert(R_WORDS == WLZ_GPU_PARSE_BLOCK_WORDS && S_WORDS == WLZ_GPU_PARSE_SEG_WORDS, "parse.h's sizes");

__device__ __forceinline__ uint64_t *records(uint32_t *scr, const wlz_gpu_pblock &B)
{
	const uintptr_t p = (uintptr_t)(scr + B.scr_off + B.rsize[2] + 1);
	return (uint64_t *)((p + 7) & ~(uintptr_t)7);
}

__device__ __forceinline__ uint32_t segments(const wlz_gpu_pblock &B) { return (B.ntok + TILE - 1) / TILE; }

__device__ __forceinline__ void flag(uint32_t *bad, uint32_t b, uint32_t n)
{
	atomicOr(&bad[b], 1u);
	atomicOr(&bad[n], 1u);
}

typedef cub::BlockScan<uint32_t, NT> ScanU;
typedef cub::BlockScan<uint64_t, NT> Scan64;
typedef cub::BlockScan<tri, NT> ScanT;
union scan_tmp {
	typename ScanU::TempStorage u;
	typename Scan64::TempStorage s64;
	typename ScanT::TempStorage t;
};

/* The distance head h and its low bytes at off[lw..] give; 0 where they
 * run past the stream's noff bytes. */
__device__ __forceinline__ uint64_t head_dist(const uint8_t *off, uint64_t noff, uint64_t lw, unsigned h)
{
	const unsigned nb = h >> 5;
	if (lw + nb > noff)
		return 0;
	uint64_t low = 0;
	for (unsigned b = 0; b < nb; b++)
		low |= (uint64_t)off[lw + b] << (8 * b);
	return ((uint64_t)(h & 31) << (8 * nb) | low) + 1;
}

/* The varints and heads the thread's tokens take (IPT of them from i0;
 * cw their cmd bytes), as varints | heads << 32. */
__device__ __forceinline__ uint64_t takes(uint64_t cw, uint32_t i0, uint32_t T)
{
	uint32_t nvx = 0, nh = 0;
#pragma unroll
	for (int k = 0; k < IPT; k++) {
		const unsigned c = cw >> (8 * k) & 255;
		const bool in = i0 + k < T;
		nvx += in && (c >> 5) == LIT_MAX;
		nvx += in && (c & 15) == MATCH_MAX;
		nh += in && !(c & 16);
	}
	return (uint64_t)nvx | (uint64_t)nh << 32;
}

/* A segment's tokens, a thread's IPT of them: their lengths and heads
 * (L, M, hd), the thread's sums (mine), from its first varint and head
 * (nvh, the scan of takes plus the segment's). */
struct tokens_of {
	uint64_t cw;
	uint32_t i0;
	uint32_t L[IPT], M[IPT];
	uint8_t hd[IPT];
	tri mine;
};

__device__ __forceinline__ bool lengths(tokens_of &k, uint64_t nvh, const uint8_t *len, const uint32_t *vs,
					uint32_t nv, const uint8_t *off, uint32_t noff, uint32_t T, uint64_t blen)
{
	bool ok = true;
	uint32_t vi = (uint32_t)nvh, hi = (uint32_t)(nvh >> 32);
	k.mine = {0, 0, 0};
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		const unsigned c = k.cw >> (8 * j) & 255;
		const bool in = k.i0 + j < T;
		uint64_t l = c >> 5, m = c & 15, x;
		if (in && l == LIT_MAX) {
			if (!varint(len, vs, nv, vi++, &x) || x > blen)
				ok = false;
			else
				l += x;
		}
		if (in && m == MATCH_MAX) {
			if (!varint(len, vs, nv, vi++, &x) || x > blen)
				ok = false;
			else
				m += x;
		}
		m += MINMATCH;
		k.hd[j] = 0;
		if (in && !(c & 16) && hi < noff) {
			k.hd[j] = off[hi++];
			k.mine.low += k.hd[j] >> 5;
		}
		k.L[j] = in ? (uint32_t)l : 0;
		k.M[j] = in ? (uint32_t)m : 0;
		k.mine.lit += k.L[j];
		k.mine.out += (uint64_t)k.L[j] + k.M[j];
	}
	return ok;
}

/* Segment s's start: its tokens' cmd bytes, and passes a and b. */
__device__ __forceinline__ bool segment_start(scan_tmp &tmp, tokens_of &k, const wlz_gpu_pblock &B,
					      const uint8_t *st, uint32_t *scr, uint32_t s)
{
	const uint8_t *cmd = st + B.s_off[0], *len = st + B.s_off[2], *off = st + B.s_off[3];
	const uint64_t *rec = records(scr, B), *seg = rec + R_WORDS + (size_t)s * S_WORDS;
	const uint32_t T = B.ntok;
	k.i0 = s * TILE + threadIdx.x * IPT;
	k.cw = k.i0 < T ? word8(cmd + k.i0) : 0;
	uint64_t nvh, agg;
	Scan64(tmp.s64).ExclusiveSum(takes(k.cw, k.i0, T), nvh, agg);
	__syncthreads();
	return lengths(k, nvh + seg[S_NVH], len, scr + B.scr_off, (uint32_t)rec[R_NV], off, B.rsize[3], T, B.length);
}

/* 1. Two thread blocks an archive block, the first reading the len
 * stream, the second the cmd stream: the varint starts (vs), and the
 * segments' first varints and heads, the heads (H) and the varints the
 * tokens take; each next tile's load is in flight during this tile's scan.
 * Whether they agree is checked by carry_kernel. */
__global__ void __launch_bounds__(NT) prep_kernel(const wlz_gpu_pblock *__restrict__ blks,
						  const uint8_t *__restrict__ st, uint32_t *__restrict__ scr,
						  uint32_t *__restrict__ bad)
{
	__shared__ scan_tmp tmp;
	const wlz_gpu_pblock B = blks[blockIdx.x];
	const unsigned t = threadIdx.x;
	const uint8_t *cmd = st + B.s_off[0], *len = st + B.s_off[2];
	const uint32_t T = B.ntok, nlen = B.rsize[2];
	uint32_t *vs = scr + B.scr_off;
	uint64_t *rec = records(scr, B);
	if (blockIdx.y == 0) {
		/* Each varint's first byte (vs[j]); nv varints in all. */
		if (t == 0) {
			vs[0] = 0;
			bad[blockIdx.x] = 0;
		}
		uint32_t nv = 0;
		uint64_t w = t * IPT < nlen ? word8(len + t * IPT) : 0;
		for (uint32_t base = 0; base < nlen; base += TILE) {
			const uint32_t j0 = base + t * IPT, jn = j0 + TILE;
			const uint64_t cur = w;
			w = jn < nlen ? word8(len + jn) : 0;
			uint32_t ends = 0;
#pragma unroll
			for (int k = 0; k < IPT; k++)
				ends |= (uint32_t)(j0 + k < nlen && !(cur >> (8 * k) & 0x80)) << k;
			uint32_t id, agg;
			ScanU(tmp.u).ExclusiveSum(__popc(ends), id, agg);
			for (uint32_t m = ends; m; m &= m - 1)
				vs[nv + ++id] = j0 + __ffs(m);
			nv += agg; /* (every thread has the aggregate) */
			__syncthreads();
		}
		if (t == 0)
			rec[R_NV] = nv;
		return;
	}
	/* Each segment's first varint and head. */
	uint64_t c_nvh = 0;
	uint64_t w = t * IPT < T ? word8(cmd + t * IPT) : 0;
	for (uint32_t s = 0; s < segments(B); s++) {
		const uint32_t i0 = s * TILE + t * IPT, in = i0 + TILE;
		const uint64_t cur = w;
		w = in < T ? word8(cmd + in) : 0;
		uint64_t dummy, agg;
		Scan64(tmp.s64).ExclusiveSum(takes(cur, i0, T), dummy, agg);
		__syncthreads();
		if (t == 0)
			rec[R_WORDS + (size_t)s * S_WORDS + S_NVH] = c_nvh;
		c_nvh += agg;
	}
	if (t == 0) {
		rec[R_H] = (uint32_t)(c_nvh >> 32);
		rec[R_NVT] = (uint32_t)c_nvh;
	}
}

/* 2. Segment blockIdx.y of block blockIdx.x: its sums and its last head
 * (the low bytes before it in the segment | head << 32 | 1 << 40). */
__global__ void __launch_bounds__(NT) sums_kernel(const wlz_gpu_pblock *__restrict__ blks,
						  const uint8_t *__restrict__ st, uint32_t *__restrict__ scr,
						  uint32_t *__restrict__ bad)
{
	__shared__ scan_tmp tmp;
	__shared__ int s_last;
	const wlz_gpu_pblock B = blks[blockIdx.x];
	const uint32_t s = blockIdx.y;
	if (s >= segments(B))
		return;
	if (threadIdx.x == 0)
		s_last = -1;
	tokens_of k;
	bool ok = segment_start(tmp, k, B, st, scr, s);
	tri pre, agg;
	ScanT(tmp.t).ExclusiveScan(k.mine, pre, tri{0, 0, 0}, tri_sum(), agg);
	/* The thread's last head, and the low bytes before it. */
	uint64_t low = pre.low, mylast = 0;
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		if (k.i0 + j < B.ntok && !(k.cw >> (8 * j) & 16)) {
			mylast = low | (uint64_t)k.hd[j] << 32 | 1ull << 40;
			low += k.hd[j] >> 5;
		}
	}
	if (mylast)
		atomicMax(&s_last, (int)threadIdx.x);
	__syncthreads();
	uint64_t *seg = records(scr, B) + R_WORDS + (size_t)s * S_WORDS;
	if ((int)threadIdx.x == s_last || (s_last < 0 && threadIdx.x == 0))
		seg[S_LAST] = mylast;
	if (threadIdx.x == 0) {
		seg[S_LOW] = agg.low;
		seg[S_LIT] = agg.lit;
		seg[S_OUT] = agg.out;
	}
	if (!ok)
		flag(bad, blockIdx.x, gridDim.x);
}

/* 3. A block's segments in order, a warp a block and 32 segments a round:
 * their carries (a scan), the distance in force at each one's start (the
 * last head before it; each segment's own head read by its lane, all at
 * once); every stream consumed exactly, and the literals ending the
 * block.  (A thread a block walking its segments one after another spent
 * tens of microseconds on dependent loads.) */
__device__ __forceinline__ tri shfl_up_tri(const tri &v, unsigned d)
{
	return {__shfl_up_sync(FULL, v.low, d), __shfl_up_sync(FULL, v.lit, d), __shfl_up_sync(FULL, v.out, d)};
}

__global__ void carry_kernel(const wlz_gpu_pblock *__restrict__ blks, const uint8_t *__restrict__ st,
			     uint32_t *__restrict__ scr, uint32_t *__restrict__ bad, uint32_t n)
{
	const uint32_t b = (uint32_t)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32);
	const unsigned lane = threadIdx.x & 31;
	if (b >= n)
		return; /* (the whole warp) */
	const wlz_gpu_pblock B = blks[b];
	const uint8_t *off = st + B.s_off[3];
	uint64_t *rec = records(scr, B);
	const uint64_t H = rec[R_H], noff = B.rsize[3], nlit = B.rsize[1];
	const uint32_t S = segments(B);
	tri c = {0, 0, 0};
	uint64_t dist = 0;
	bool ok = true;
	for (uint32_t s0 = 0; s0 < S; s0 += 32) {
		const uint32_t s = s0 + lane;
		const bool in = s < S;
		uint64_t *seg = rec + R_WORDS + (size_t)s * S_WORDS;
		tri mine = {0, 0, 0};
		uint64_t last = 0;
		if (in) {
			mine = tri{seg[S_LOW], seg[S_LIT], seg[S_OUT]};
			last = seg[S_LAST];
		}
		tri inc = mine;
#pragma unroll
		for (unsigned d = 1; d < 32; d <<= 1) {
			const tri y = shfl_up_tri(inc, d);
			if (lane >= d)
				inc = tri_sum()(inc, y);
		}
		const tri ex = {c.low + inc.low - mine.low, c.lit + inc.lit - mine.lit, c.out + inc.out - mine.out};
		/* This segment's last head's distance (0: none, or it runs
		 * past the off stream, which breaks the block). */
		uint64_t dd = 0;
		if (in && (last >> 40)) {
			dd = head_dist(off, noff, H + ex.low + (uint32_t)last, (unsigned)(last >> 32) & 255);
			ok &= dd != 0;
		}
		const uint32_t has = __ballot_sync(FULL, dd != 0), before = has & ((1u << lane) - 1);
		const uint64_t prev = __shfl_sync(FULL, dd, before ? 31 - __clz(before) : 0);
		if (in) {
			seg[S_CLOW] = ex.low;
			seg[S_CLIT] = ex.lit;
			seg[S_COUT] = ex.out;
			seg[S_DIST] = before ? prev : dist;
		}
		const uint64_t lastd = __shfl_sync(FULL, dd, has ? 31 - __clz(has) : 0);
		dist = has ? lastd : dist;
		c = tri{__shfl_sync(FULL, c.low + inc.low, 31), __shfl_sync(FULL, c.lit + inc.lit, 31),
			__shfl_sync(FULL, c.out + inc.out, 31)};
	}
	ok = __all_sync(FULL, ok);
	if (lane == 0) {
		/* prep's: every varint used, ending the stream; a head each */
		const uint64_t nv = rec[R_NV];
		if (rec[R_NVT] != nv || (nv ? scr[B.scr_off + nv] : 0) != B.rsize[2] || H > noff)
			ok = false;
		if (H + c.low != noff || c.lit > nlit || nlit - c.lit != B.length - c.out || c.out > B.length)
			ok = false;
		if (!ok)
			flag(bad, b, n);
	}
}

/* 4. Segment blockIdx.y of block blockIdx.x: every token checked and
 * written. */
__global__ void __launch_bounds__(NT) final_kernel(const wlz_gpu_pblock *__restrict__ blks,
						   const uint8_t *__restrict__ st, uint32_t *__restrict__ scr,
						   wlz_gpu_token *__restrict__ tok, uint32_t *__restrict__ bad)
{
	__shared__ scan_tmp tmp;
	const wlz_gpu_pblock B = blks[blockIdx.x];
	const uint32_t s = blockIdx.y, T = B.ntok;
	if (s >= segments(B))
		return;
	const uint8_t *off = st + B.s_off[3];
	const uint64_t *rec = records(scr, B), *seg = rec + R_WORDS + (size_t)s * S_WORDS;
	const uint64_t noff = B.rsize[3], nlit = B.rsize[1], bend = B.bstart + B.length;
	tokens_of k;
	bool ok = segment_start(tmp, k, B, st, scr, s);
	tri pre, agg;
	ScanT(tmp.t).ExclusiveScan(k.mine, pre, tri{0, 0, 0}, tri_sum(), agg);
	__syncthreads();
	/* c. Explicit distances; the thread's last one carries on. */
	uint64_t lw = rec[R_H] + seg[S_CLOW] + pre.low;
	uint64_t D[IPT], last = 0;
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		D[j] = 0;
		if (k.i0 + j < T && !(k.cw >> (8 * j) & 16)) {
			D[j] = head_dist(off, noff, lw, k.hd[j]);
			ok &= D[j] != 0;
			lw += k.hd[j] >> 5;
			last = D[j];
		}
	}
	uint64_t carry, dagg;
	Scan64(tmp.s64).ExclusiveScan(last, carry, (uint64_t)0, last_dist(), dagg);
	/* (a thread with no head before it in the segment takes the
	 * segment's carry; a head's distance is never 0) */
	uint64_t dist = threadIdx.x == 0 || !carry ? seg[S_DIST] : carry;
	/* d. Check, and stage in shared memory: a thread's neighbouring
	 * tokens, stored straight to global memory, made every store
	 * instruction touch 32 places. */
	extern __shared__ uint64_t stage[];
	uint64_t litp = seg[S_CLIT] + pre.lit, pos = B.bstart + seg[S_COUT] + pre.out;
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		if (k.i0 + j >= T)
			break;
		if (!(k.cw >> (8 * j) & 16))
			dist = D[j];
		const uint32_t L = k.L[j], M = k.M[j];
		if (dist == 0 || litp + L > nlit || (uint64_t)L + M > bend - pos || dist > pos + L - B.mfirst ||
		    dist > B.window)
			ok = false;
		uint64_t *w = stage + threadIdx.x * STAGE_STRIDE + j * 4;
		w[0] = L | (uint64_t)M << 32;
		w[1] = pos + L - dist;
		w[2] = pos;
		w[3] = B.s_off[1] + litp;
		litp += L;
		pos += (uint64_t)L + M;
	}
	__syncthreads();
	/* The segment's tokens, 8-byte words in order. */
	const uint32_t first = s * TILE, count = T - first < TILE ? T - first : TILE;
	uint64_t *to = (uint64_t *)(tok + B.tok_off + first);
	for (uint32_t w = threadIdx.x; w < count * 4; w += NT) {
		const uint32_t i = w / 4;
		to[w] = stage[i / IPT * STAGE_STRIDE + i % IPT * 4 + w % 4];
	}
	if (!ok)
		flag(bad, blockIdx.x, gridDim.x);
}

extern "C" int wlz_gpu_parse(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_tok, const uint8_t *d_streams,
			     uint32_t *d_scratch, wlz_gpu_token *d_tok, uint32_t *d_bad, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (!n)
		return 0;
	prep_kernel<<<dim3((unsigned)n, 2), NT, 0, st>>>(d_blk, d_streams, d_scratch, d_bad);
	const unsigned nseg = (max_tok + TILE - 1) / TILE;
	if (nseg) {
		sums_kernel<<<dim3((unsigned)n, nseg), NT, 0, st>>>(d_blk, d_streams, d_scratch, d_bad);
		carry_kernel<<<(unsigned)((n + 3) / 4), 128, 0, st>>>(d_blk, d_streams, d_scratch, d_bad, (uint32_t)n);
		if (cudaFuncSetAttribute(final_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, STAGE_BYTES) !=
		    cudaSuccess)
			return 1;
		final_kernel<<<dim3((unsigned)n, nseg), NT, STAGE_BYTES, st>>>(d_blk, d_streams, d_scratch, d_tok,
									       d_bad);
	} else {
		carry_kernel<<<(unsigned)((n + 3) / 4), 128, 0, st>>>(d_blk, d_streams, d_scratch, d_bad, (uint32_t)n);
	}
	return cudaGetLastError() != cudaSuccess;
}
