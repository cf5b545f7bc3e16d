/*
 * xxh3.cu - XXH3-64 of many buffers on the GPU, written from xxHash's
 * specification (seed 0, the default 192-byte secret, which the host takes
 * from xxhash.h).
 *
 * Long inputs are read in 1 KiB blocks of 16 stripes.  Within a block the
 * accumulators only add (each stripe adds a product and a data word to
 * them), and what a block adds does not depend on them: phase 1 sums every
 * block's additions at once (a warp a block, the 128 words four to a
 * thread, summed with shuffles), and phase 2 runs the one serial step, the
 * scramble between blocks, on those sums alone.  Thread t works for
 * accumulator t % 8.  Inputs of up to 240 bytes take the short paths on
 * one thread.
 */
#include <cuda_runtime.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "gpu_wavefront/xxh3.h"

#define FULL 0xffffffffu
#define P32_1 0x9E3779B1u
#define P32_2 0x85EBCA77u
#define P32_3 0xC2B2AE3Du
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull
#define SECRET 192
#define BLOCK 1024                 /* 16 stripes of 64 bytes */

/* The secret, and the words the long path reads from it: at 8i (the
 * stripes' keys), at 121 + 8i (the last stripe's) and 11 + 8i (merging). */
struct xxh_keys {
	uint8_t secret[SECRET];
	uint64_t key[SECRET / 8], last[8], merge[8];
};
__constant__ xxh_keys K;

__device__ __forceinline__ uint64_t fold64(uint64_t a, uint64_t b) { return a * b ^ __umul64hi(a, b); }

__device__ __forceinline__ uint64_t avalanche(uint64_t h)
{
	h ^= h >> 37;
	h *= 0x165667919E3779F9ull;
	return h ^ h >> 32;
}

__device__ __forceinline__ uint64_t avalanche64(uint64_t h)
{
	h ^= h >> 33;
	h *= P64_2;
	h ^= h >> 29;
	h *= P64_3;
	return h ^ h >> 32;
}

__device__ __forceinline__ uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

__device__ __forceinline__ uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

__device__ __forceinline__ uint64_t mix16(const uint8_t *in, unsigned s)
{
	return fold64(rd64(in) ^ rd64(K.secret + s), rd64(in + 8) ^ rd64(K.secret + s + 8));
}

/* Inputs of at most 240 bytes. */
__device__ uint64_t xxh3_short(const uint8_t *in, uint64_t len)
{
	const uint8_t *sec = K.secret;
	if (len == 0)
		return avalanche64(rd64(sec + 56) ^ rd64(sec + 64));
	if (len <= 3) {
		const uint32_t c = (uint32_t)in[0] << 16 | (uint32_t)in[len >> 1] << 24 | in[len - 1] |
				   (uint32_t)len << 8;
		return avalanche64(c ^ (uint64_t)(rd32(sec) ^ rd32(sec + 4)));
	}
	if (len <= 8) {
		const uint64_t x = ((uint64_t)rd32(in) << 32) + rd32(in + len - 4);
		uint64_t h = x ^ (rd64(sec + 8) ^ rd64(sec + 16));
		h ^= (h << 49 | h >> 15) ^ (h << 24 | h >> 40);
		h *= 0x9FB21C651E98DF25ull;
		h ^= (h >> 35) + len;
		h *= 0x9FB21C651E98DF25ull;
		return h ^ h >> 28;
	}
	if (len <= 16) {
		const uint64_t lo = rd64(in) ^ (rd64(sec + 24) ^ rd64(sec + 32));
		const uint64_t hi = rd64(in + len - 8) ^ (rd64(sec + 40) ^ rd64(sec + 48));
		return avalanche(len + __byte_perm((uint32_t)(lo >> 32), 0, 0x0123) +
				 ((uint64_t)__byte_perm((uint32_t)lo, 0, 0x0123) << 32) + hi + fold64(lo, hi));
	}
	uint64_t acc = len * P64_1;
	if (len <= 128) {
		for (unsigned r = (unsigned)((len - 1) / 32); ; r--) {
			acc += mix16(in + 16 * r, 32 * r) + mix16(in + len - 16 * (r + 1), 32 * r + 16);
			if (r == 0)
				break;
		}
		return avalanche(acc);
	}
	const unsigned rounds = (unsigned)(len / 16);
	for (unsigned i = 0; i < 8; i++)
		acc += mix16(in + 16 * i, 16 * i);
	acc = avalanche(acc);
	for (unsigned i = 8; i < rounds; i++)
		acc += mix16(in + 16 * i, 16 * (i - 8) + 3);
	acc += mix16(in + len - 16, 136 - 17);
	return avalanche(acc);
}

/* A 1 KiB block's words t + 32k (k < 4) of this thread, stripes
 * [0, nstripes), into this thread's accumulator; key[k] is word k's key
 * (the same in every block: held in registers, as constant memory
 * serializes a warp's reads of different words). */
__device__ __forceinline__ uint64_t stripes(uint64_t acc, const uint64_t (&d)[4], const uint64_t (&key)[4],
					    unsigned nstripes, unsigned t)
{
	uint64_t prod = 0, data = 0;
#pragma unroll
	for (unsigned k = 0; k < 4; k++) {
		const unsigned s = (t + 32 * k) >> 3;
		if (s < nstripes) {
			const uint64_t dk = d[k] ^ key[k];
			prod += (dk & 0xffffffffu) * (dk >> 32);
			data += d[k];
		}
	}
	prod += __shfl_xor_sync(FULL, prod, 8);
	prod += __shfl_xor_sync(FULL, prod, 16);
	data += __shfl_xor_sync(FULL, data, 8);
	data += __shfl_xor_sync(FULL, data, 16);
	/* Each stripe adds word i's data to accumulator i ^ 1. */
	return acc + prod + __shfl_xor_sync(FULL, data, 1);
}

__device__ __forceinline__ uint64_t scramble(uint64_t acc, uint64_t key)
{
	acc ^= acc >> 47;
	acc ^= key;
	return acc * P32_1;
}

#define CONTRIB_BLOCKS 8            /* thread blocks a buffer in phase 1 */

/* Phase 1, every whole 1 KiB block of every buffer at once: what its 16
 * stripes add to each accumulator (they only add, so this needs no state).
 * Grid (x, buffer); a warp a block, C[word(b, k) + i] for accumulator i. */
__global__ void contrib_kernel(const uint8_t *__restrict__ base, const uint64_t *__restrict__ off,
			       const uint64_t *__restrict__ len, uint64_t *__restrict__ C)
{
	const unsigned b = blockIdx.y, t = threadIdx.x & 31, i = t & 7;
	const uint64_t L = len[b];
	if (L <= 240)
		return;
	const uint64_t nb = (L - 1) / BLOCK;
	const uint64_t *p = (const uint64_t *)(base + off[b]);
	uint64_t key[4];
#pragma unroll
	for (unsigned k = 0; k < 4; k++)
		key[k] = K.key[((t + 32 * k) >> 3) + i];
	const uint64_t w0 = off[b] / BLOCK;
	const unsigned warps = gridDim.x * blockDim.x / 32;
	for (uint64_t k = (blockIdx.x * blockDim.x + threadIdx.x) / 32; k < nb; k += warps) {
		uint64_t d[4];
#pragma unroll
		for (unsigned j = 0; j < 4; j++)
			d[j] = __ldg(p + k * (BLOCK / 8) + t + 32 * j);
		const uint64_t c = stripes(0, d, key, 16, t);
		if (t < 8)
			C[(w0 + k) * 8 + i] = c;
	}
}

/* Phase 2, a warp a buffer: the serial part, acc = scramble(acc + C) block
 * after block (eight independent chains, lanes 0 to 7), then the partial
 * block, the last stripe and the merge; short buffers whole. */
__global__ void finish_kernel(const uint8_t *__restrict__ base, const uint64_t *__restrict__ off,
			      const uint64_t *__restrict__ len, const uint64_t *__restrict__ C,
			      uint64_t *__restrict__ hash, size_t n)
{
	const size_t b = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const unsigned t = threadIdx.x & 31, i = t & 7;
	if (b >= n)
		return;
	const uint8_t *in = base + off[b];
	const uint64_t L = len[b];
	if (L <= 240) {
		if (t == 0)
			hash[b] = xxh3_short(in, L);
		return;
	}
	const uint64_t init[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
	uint64_t acc = init[i];
	const uint64_t nb = (L - 1) / BLOCK, skey = K.key[16 + i];
	/* The sums come four blocks a load, lane t reading word t of the
	 * four (block t / 8's accumulator t % 8), AHEAD loads ahead of the
	 * chain, which takes block j's sum from lane 8j + i.  (Loads only 8
	 * blocks ahead, by the chain's own lanes, left the chain waiting on
	 * them.) */
	enum { AHEAD = 8 };
	const uint64_t *c = C + off[b] / BLOCK * 8 + t;
	const uint64_t nw = nb * 8;
	uint64_t q[AHEAD];
#pragma unroll
	for (unsigned r = 0; r < AHEAD; r++)
		q[r] = 32 * r + t < nw ? c[32 * r] : 0;
	for (uint64_t g = 0; 4 * g < nb; g += AHEAD) {
#pragma unroll
		for (unsigned r = 0; r < AHEAD; r++) {
			const uint64_t cur = q[r], gn = g + r + AHEAD;
			q[r] = 32 * gn + t < nw ? c[32 * gn] : 0;
#pragma unroll
			for (unsigned j = 0; j < 4; j++) {
				const uint64_t x = __shfl_sync(FULL, cur, 8 * j + i);
				if (4 * (g + r) + j < nb)
					acc = scramble(acc + x, skey);
			}
		}
	}
	/* The last, partial block's whole stripes, by the whole warp. */
	const uint64_t *p = (const uint64_t *)in;
	uint64_t key[4];
#pragma unroll
	for (unsigned j = 0; j < 4; j++)
		key[j] = K.key[((t + 32 * j) >> 3) + i];
	{
		const unsigned ns = (unsigned)(((L - 1) - BLOCK * nb) / 64);
		uint64_t d[4];
#pragma unroll
		for (unsigned j = 0; j < 4; j++)
			d[j] = (t + 32 * j) >> 3 < ns ? __ldg(p + nb * (BLOCK / 8) + t + 32 * j) : 0;
		acc = stripes(acc, d, key, ns, t);
	}
	/* The last 64 bytes, with the last stripe's keys. */
	{
		const uint64_t d = rd64(in + L - 64 + 8 * i), dk = d ^ K.last[i];
		acc += (dk & 0xffffffffu) * (dk >> 32) + __shfl_xor_sync(FULL, d, 1);
	}
	uint64_t a[8];
#pragma unroll
	for (unsigned j = 0; j < 8; j++)
		a[j] = __shfl_sync(FULL, acc, j);
	if (t == 0) {
		uint64_t r = L * P64_1;
		for (unsigned j = 0; j < 4; j++)
			r += fold64(a[2 * j] ^ K.merge[2 * j], a[2 * j + 1] ^ K.merge[2 * j + 1]);
		hash[b] = avalanche(r);
	}
}


static uint64_t host_rd64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

extern "C" size_t wlz_gpu_xxh3_scratch(uint64_t span) { return (size_t)(span / BLOCK + 1) * 8 * sizeof(uint64_t); }

extern "C" int wlz_gpu_xxh3(const uint8_t *d_base, const uint64_t *d_off, const uint64_t *d_len, uint64_t *d_hash,
			    size_t n, uint64_t *d_scratch, void *stream)
{
	if (!n)
		return 0;
	xxh_keys k;
	memcpy(k.secret, XXH3_kSecret, SECRET);
	for (unsigned j = 0; j < SECRET / 8; j++)
		k.key[j] = host_rd64(k.secret + 8 * j);
	for (unsigned j = 0; j < 8; j++) {
		k.last[j] = host_rd64(k.secret + SECRET - 64 - 7 + 8 * j);
		k.merge[j] = host_rd64(k.secret + 11 + 8 * j);
	}
	cudaStream_t st = (cudaStream_t)stream;
	/* Each call's own copy of the keys: the symbol is per device. */
	if (cudaMemcpyToSymbolAsync(K, &k, sizeof k, 0, cudaMemcpyHostToDevice, st) != cudaSuccess)
		return 1;
	/* (65535 buffers a launch: the grid's y dimension) */
	for (size_t at = 0; at < n; at += 65535) {
		const size_t m = n - at < 65535 ? n - at : 65535;
		contrib_kernel<<<dim3(CONTRIB_BLOCKS, (unsigned)m), 256, 0, st>>>(d_base, d_off + at, d_len + at,
										  d_scratch);
		const unsigned threads = 256, per = threads / 32;
		finish_kernel<<<(unsigned)((m + per - 1) / per), threads, 0, st>>>(d_base, d_off + at, d_len + at,
										     d_scratch, d_hash + at, m);
	}
	return cudaGetLastError() != cudaSuccess;
}
