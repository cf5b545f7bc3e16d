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
#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include "gpu_wavefront/parse.h"

#define NT 256
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
struct imax {
	__device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; }
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

__global__ void __launch_bounds__(NT) parse_kernel(const wlz_gpu_pblock *__restrict__ blks,
						   const uint8_t *__restrict__ st, uint32_t *__restrict__ scr,
						   wlz_gpu_token *__restrict__ tok, uint32_t *__restrict__ bad,
						   uint64_t window)
{
	typedef cub::BlockScan<uint32_t, NT> ScanU;
	typedef cub::BlockScan<uint64_t, NT> Scan64;
	typedef cub::BlockScan<tri, NT> ScanT;
	typedef cub::BlockScan<int, NT> ScanI;
	__shared__ union {
		typename ScanU::TempStorage u;
		typename Scan64::TempStorage s64;
		typename ScanT::TempStorage t;
		typename ScanI::TempStorage i;
	} tmp;
	__shared__ uint64_t tdist[NT];
	__shared__ uint64_t s_carry;
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

	/* 1. Each varint's first byte (vs[j]); s_nv varints in all. */
	uint32_t nv = 0;
	for (uint32_t base = 0; base < nlen; base += NT) {
		const uint32_t j = base + t;
		const uint32_t end = j < nlen && !(len[j] & 0x80);
		uint32_t id, agg;
		ScanU(tmp.u).ExclusiveSum(end, id, agg);
		if (end)
			vs[nv + id + 1] = j + 1;
		nv += agg;  /* (every thread has the aggregate) */
		__syncthreads();
	}

	/* 2. Tokens a tile at a time; carries from the tiles before. */
	uint64_t c_nvh = 0;               /* varints | heads << 32 */
	tri c_tri = {0, 0, 0};
	uint64_t c_dist = 0;
	bool ok = true;
	uint32_t heads_total = 0;
	/* The heads: one per token without the repeat bit. */
	{
		uint32_t h = 0;
		for (uint32_t i = t; i < T; i += NT)
			h += !(cmd[i] & 16);
		uint32_t agg;
		uint32_t dummy;
		ScanU(tmp.u).ExclusiveSum(h, dummy, agg);
		heads_total = agg;
		__syncthreads();
	}
	const uint64_t H = heads_total;
	if (H > noff)
		ok = false;
	for (uint32_t base = 0; base < T; base += NT) {
		const uint32_t i = base + t;
		const bool in = i < T;
		const unsigned c = in ? cmd[i] : 16;
		const uint32_t xl = (c >> 5) == LIT_MAX, xm = (c & 15) == MATCH_MAX, ho = in && !(c & 16);
		uint64_t nvh, agg;
		Scan64(tmp.s64).ExclusiveSum((uint64_t)(xl + xm) | (uint64_t)ho << 32, nvh, agg);
		__syncthreads();
		nvh += c_nvh;
		c_nvh += agg;
		uint64_t L = c >> 5, M = c & 15, x;
		const uint32_t vi = (uint32_t)nvh, hi = (uint32_t)(nvh >> 32);
		if (in && xl) {
			if (!varint(len, vs, nv, vi, &x) || x > blen)
				ok = false;
			else
				L += x;
		}
		if (in && xm) {
			if (!varint(len, vs, nv, vi + xl, &x) || x > blen)
				ok = false;
			else
				M += x;
		}
		M += MINMATCH;
		unsigned h = 0, k = 0;
		if (ho) {
			h = off[hi];
			k = h >> 5;
		}
		tri v = {k, in ? L : 0, in ? L + M : 0}, pre, tagg;
		ScanT(tmp.t).ExclusiveScan(v, pre, tri{0, 0, 0}, tri_sum(), tagg);
		__syncthreads();
		const uint64_t lw = H + c_tri.low + pre.low, litp = c_tri.lit + pre.lit,
			       pos = B.bstart + c_tri.out + pre.out;
		c_tri = tri_sum()(c_tri, tagg);
		uint64_t dist = 0;
		if (ho) {
			if (lw + k > noff) {
				ok = false;
			} else {
				uint64_t low = 0;
				for (unsigned b = 0; b < k; b++)
					low |= (uint64_t)off[lw + b] << (8 * b);
				dist = ((uint64_t)(h & 31) << (8 * k) | low) + 1;
			}
			tdist[t] = dist;
		}
		/* A repeat: the last head at or before it in this tile, else the
		 * tiles before. */
		int last;
		ScanI(tmp.i).InclusiveScan(ho ? (int)t : -1, last, imax());
		__syncthreads();
		if (in) {
			if (!ho)
				dist = last >= 0 ? tdist[last] : c_dist;
			if (dist == 0)
				ok = false;
			if (litp + L > nlit || L + M > bend - pos || dist > pos + L || dist > window)
				ok = false;
			if (ok)
				tok[B.tok_off + i] = {(uint32_t)L, (uint32_t)M, pos + L - dist, pos, B.s_off[1] + litp};
		}
		/* The tile's last head's distance carries on. */
		if (t == NT - 1)
			s_carry = last >= 0 ? tdist[last] : c_dist;
		__syncthreads();
		c_dist = s_carry;
		__syncthreads();
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
