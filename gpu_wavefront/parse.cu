/*
 * parse.cu - GPU token parsing: a thread block an archive block, tokens
 * 256 at a time, each token's place in the len and off streams and in the
 * output found by block-wide prefix sums instead of a serial pass.
 *
 *   1. The len stream's varints: a byte with its high bit clear ends one;
 *      a scan of those ends gives each varint's first byte.
 *   2. Per tile of tokens: a scan of (varints, heads) a token takes gives
 *      its varints and its head; the heads give their low-byte counts, and
 *      a scan of (low bytes, literals, literals + match) gives each
 *      token's low bytes, literals and output position.  A repeat takes
 *      the distance of the last token with a head before it (a max scan).
 * Every rule of SPEC.md section 6 is checked; a block that breaks one is
 * marked bad.
 */
#include "gpu_wavefront/parse.h"
#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>

#define NT 512
#define IPT 8 /* tokens (or len bytes) a thread, a tile */
#define TILE (NT * IPT)
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

__global__ void __launch_bounds__(NT)
	parse_kernel(const wlz_gpu_pblock *__restrict__ blks, const uint8_t *__restrict__ st,
		     uint32_t *__restrict__ scr, wlz_gpu_token *__restrict__ tok, uint32_t *__restrict__ bad,
		     uint64_t window)
{
	typedef cub::BlockScan<uint32_t, NT> ScanU;
	typedef cub::BlockScan<uint64_t, NT> Scan64;
	typedef cub::BlockScan<tri, NT> ScanT;
	__shared__ union {
		typename ScanU::TempStorage u;
		typename Scan64::TempStorage s64;
		typename ScanT::TempStorage t;
	} tmp;
	__shared__ int s_bad;

	const wlz_gpu_pblock B = blks[blockIdx.x];
	const unsigned t = threadIdx.x;
	const uint8_t *cmd = st + B.s_off[0], *len = st + B.s_off[2], *off = st + B.s_off[3];
	const uint32_t T = B.ntok, nlen = B.rsize[2], noff = B.rsize[3];
	const uint64_t nlit = B.rsize[1], blen = B.length, bend = B.bstart + blen;
	uint32_t *vs = scr + B.scr_off;
	if (t == 0) {
		s_bad = 0;
		vs[0] = 0;
	}

	/* 1. Each varint's first byte (vs[j]); nv varints in all.  A thread
	 * takes IPT neighbouring bytes. */
	uint32_t nv = 0;
	for (uint32_t base = 0; base < nlen; base += TILE) {
		const uint32_t j0 = base + t * IPT;
		const uint64_t w = j0 < nlen ? word8(len + j0) : 0;
		uint32_t ends = 0;
#pragma unroll
		for (int k = 0; k < IPT; k++)
			ends |= (uint32_t)(j0 + k < nlen && !(w >> (8 * k) & 0x80)) << k;
		uint32_t id, agg;
		ScanU(tmp.u).ExclusiveSum(__popc(ends), id, agg);
		for (uint32_t m = ends; m; m &= m - 1)
			vs[nv + ++id] = j0 + __ffs(m);
		nv += agg; /* (every thread has the aggregate) */
		__syncthreads();
	}

	/* 2. The heads: one per token without the repeat bit. */
	uint32_t H;
	{
		uint32_t h = 0;
		for (uint32_t i = t; i < T; i += NT)
			h += !(cmd[i] & 16);
		uint32_t dummy;
		ScanU(tmp.u).ExclusiveSum(h, dummy, H);
		__syncthreads();
	}
	bool ok = H <= noff;

	/* 3. Tokens a tile at a time, IPT neighbouring tokens a thread;
	 * carries from the tiles before. */
	uint64_t c_nvh = 0; /* varints | heads << 32 */
	tri c_tri = {0, 0, 0};
	uint64_t c_dist = 0;
	for (uint32_t base = 0; base < T; base += TILE) {
		const uint32_t i0 = base + t * IPT;
		const uint64_t cw = i0 < T ? word8(cmd + i0) : 0;
		/* a. Varints and heads the thread's tokens take. */
		uint32_t nvx = 0, nh = 0;
#pragma unroll
		for (int k = 0; k < IPT; k++) {
			const unsigned c = cw >> (8 * k) & 255;
			const bool in = i0 + k < T;
			nvx += in && (c >> 5) == LIT_MAX;
			nvx += in && (c & 15) == MATCH_MAX;
			nh += in && !(c & 16);
		}
		uint64_t nvh, agg;
		Scan64(tmp.s64).ExclusiveSum((uint64_t)nvx | (uint64_t)nh << 32, nvh, agg);
		__syncthreads();
		nvh += c_nvh;
		c_nvh += agg;
		/* b. Lengths, heads and low-byte counts. */
		uint32_t L[IPT], M[IPT];
		uint8_t hd[IPT];
		uint32_t vi = (uint32_t)nvh, hi = (uint32_t)(nvh >> 32);
		tri mine = {0, 0, 0};
#pragma unroll
		for (int k = 0; k < IPT; k++) {
			const unsigned c = cw >> (8 * k) & 255;
			const bool in = i0 + k < T;
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
			hd[k] = 0;
			if (in && !(c & 16) && hi < noff) {
				hd[k] = off[hi++];
				mine.low += hd[k] >> 5;
			}
			L[k] = in ? (uint32_t)l : 0;
			M[k] = in ? (uint32_t)m : 0;
			mine.lit += L[k];
			mine.out += (uint64_t)L[k] + M[k];
		}
		tri pre, tagg;
		ScanT(tmp.t).ExclusiveScan(mine, pre, tri{0, 0, 0}, tri_sum(), tagg);
		__syncthreads();
		/* c. Explicit distances; the thread's last one carries on. */
		uint64_t lw = H + c_tri.low + pre.low;
		uint64_t D[IPT], last = 0;
#pragma unroll
		for (int k = 0; k < IPT; k++) {
			const unsigned c = cw >> (8 * k) & 255;
			D[k] = 0;
			if (i0 + k < T && !(c & 16)) {
				const unsigned h = hd[k], nb = h >> 5;
				if (lw + nb > noff) {
					ok = false;
				} else {
					uint64_t low = 0;
					for (unsigned b = 0; b < nb; b++)
						low |= (uint64_t)off[lw + b] << (8 * b);
					D[k] = ((uint64_t)(h & 31) << (8 * nb) | low) + 1;
				}
				lw += nb;
				last = D[k];
			}
		}
		uint64_t carry, dagg;
		Scan64(tmp.s64).ExclusiveScan(last, carry, (uint64_t)0, last_dist(), dagg);
		__syncthreads();
		/* (a thread with no head before it in the tile takes the tile's
		 * carry; a head's distance is never 0) */
		uint64_t dist = t == 0 || !carry ? c_dist : carry;
		/* d. Check and write. */
		uint64_t litp = c_tri.lit + pre.lit, pos = B.bstart + c_tri.out + pre.out;
#pragma unroll
		for (int k = 0; k < IPT; k++) {
			const unsigned c = cw >> (8 * k) & 255;
			if (i0 + k >= T)
				break;
			if (!(c & 16))
				dist = D[k];
			if (dist == 0 || litp + L[k] > nlit || (uint64_t)L[k] + M[k] > bend - pos ||
			    dist > pos + L[k] || dist > window)
				ok = false;
			else
				tok[B.tok_off + i0 + k] = {L[k], M[k], pos + L[k] - dist, pos, B.s_off[1] + litp};
			litp += L[k];
			pos += (uint64_t)L[k] + M[k];
		}
		c_tri = tri_sum()(c_tri, tagg);
		c_dist = dagg ? dagg : c_dist;
	}
	/* Every stream consumed exactly; the literals end the block. */
	if (t == 0) {
		const uint64_t used_v = (uint32_t)c_nvh;
		if (used_v != nv || (nv ? vs[nv] : 0) != nlen)
			ok = false;
		if (H + c_tri.low != noff)
			ok = false;
		if (nlit - c_tri.lit != bend - (B.bstart + c_tri.out) || c_tri.lit > nlit)
			ok = false;
	}
	if (!ok)
		atomicOr(&s_bad, 1);
	__syncthreads();
	if (t == 0) {
		bad[blockIdx.x] = s_bad;
		if (s_bad)
			atomicOr(&bad[gridDim.x], 1u);
	}
}

extern "C" int wlz_gpu_parse(const wlz_gpu_pblock *d_blk, size_t n, const uint8_t *d_streams, uint32_t *d_scratch,
			     wlz_gpu_token *d_tok, uint32_t *d_bad, uint64_t window, void *stream)
{
	if (!n)
		return 0;
	parse_kernel<<<(unsigned)n, NT, 0, (cudaStream_t)stream>>>(d_blk, d_streams, d_scratch, d_tok, d_bad, window);
	return cudaGetLastError() != cudaSuccess;
}
