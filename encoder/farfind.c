/*
 * farfind.c - the sparse long-distance table: sizing, anchors, insertion.
 */
#include <stdlib.h>
#include "common/large.h"
#include "encoder/farfind.h"

unsigned wlz_far_log_for(uint64_t window, unsigned rate)
{
	uint64_t want = window / rate;
	unsigned lg = 10;
	/* (at most 2^30 ways: 4 GiB) */
	while (((uint64_t)WLZ_FAR_WAYS << (lg + 1)) <= ((uint64_t)1 << 30) && ((uint64_t)WLZ_FAR_WAYS << lg) < want)
		lg++;
	return lg;
}

uint64_t wlz_far_memory(unsigned log)
{
	return ((uint64_t)WLZ_FAR_WAYS << log) * sizeof(uint32_t);
}

wlz_error wlz_far_init(wlz_far *f, unsigned log, unsigned hash_len, unsigned rate, uint64_t window)
{
	memset(f, 0, sizeof(*f));
	f->slot = wlz_large_alloc(wlz_far_memory(log));
	if (!f->slot)
		return WLZ_ERR_NOMEM;
	f->log = log;
	f->hash_len = hash_len;
	/* Distances up to the window need its log2 + 1 bits (modulo that,
	 * an entry older than the window may alias a nearer position; every
	 * candidate is checked against the bytes).  The bits left, up to the
	 * 5 an anchor has room for, hold the tag. */
	unsigned wl = 0;
	while (wl < 63 && ((uint64_t)2 << wl) <= window)
		wl++;
	f->pos_bits = wl + 1 < 32 ? wl + 1 : 32;
	f->tag_bits = 32 - f->pos_bits < 5 ? 32 - f->pos_bits : 5;
	f->pos_mask = f->pos_bits == 32 ? 0xFFFFFFFFu : ((uint32_t)1 << f->pos_bits) - 1;
	/* Bit j of the rolling hash depends on the last j + 1 bytes only, so
	 * bits below hash_len (at most 16) select by the hashed bytes alone. */
	unsigned r = 0;
	while ((2u << r) <= rate && r + 1 < hash_len)
		r++;
	f->amask = (uint16_t)((((uint32_t)1 << r) - 1) << (hash_len - r));
	uint64_t x = 0x243F6A8885A308D3ull;  /* (any fixed seed: the table only has to be the same each run) */
	for (unsigned t = 0; t < 2; t++)
		for (unsigned b = 0; b < 16; b++) {
			/* splitmix64 */
			x += 0x9E3779B97F4A7C15ull;
			uint64_t z = x;
			z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
			z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
			f->nib[t][b] = (uint16_t)(z ^ (z >> 31));
		}
	for (unsigned b = 0; b < 256; b++)
		f->gear[b] = f->nib[0][b & 15] ^ f->nib[1][b >> 4];
	return WLZ_OK;
}

void wlz_far_zero(wlz_far *f, unsigned part, unsigned nparts)
{
	const size_t words = (size_t)WLZ_FAR_WAYS << f->log;
	const size_t lo = words / nparts * part, hi = part + 1 == nparts ? words : words / nparts * (part + 1);
	/* (the table came zeroed: only its pages are to be faulted in) */
	if (!wlz_large_prefault(f->slot + lo, (hi - lo) * sizeof(*f->slot)))
		memset(f->slot + lo, 0, (hi - lo) * sizeof(*f->slot));
}

void wlz_far_destroy(wlz_far *f)
{
	wlz_large_free(f->slot, wlz_far_memory(f->log));
	f->slot = NULL;
}

/* The rolling hash after the bytes src[a, b) (in its bits below 16 only
 * the last 16 bytes count: earlier ones are left out). */
static uint16_t gear_hash(const wlz_far *f, const uint8_t *src, uint64_t a, uint64_t b)
{
	uint16_t h = 0;
	for (uint64_t k = b - a > 16 ? b - 16 : a; k < b; k++)
		h = (uint16_t)((h << 1) + f->gear[src[k]]);
	return h;
}

/* Anchors of positions [p, to), the hash h standing after the byte before
 * p's newest (s = src + hash_len - 1: position p's newest byte is s[p]). */
static size_t anchors_scalar(const wlz_far *f, const uint8_t *s, uint64_t from, uint64_t p, uint64_t to, uint16_t h,
			     wlz_anchor *out, size_t n)
{
	const uint16_t m = f->amask;
	const uint16_t *g = f->gear;
	if (__builtin_popcount(m) >= 4) {
		/* Sparse (one in 16 or fewer): a branch, rarely taken, once
		 * every four positions. */
		for (; p + 4 <= to; p += 4) {
			const uint16_t h0 = (uint16_t)((h << 1) + g[s[p]]), h1 = (uint16_t)((h0 << 1) + g[s[p + 1]]);
			const uint16_t h2 = (uint16_t)((h1 << 1) + g[s[p + 2]]), h3 = (uint16_t)((h2 << 1) + g[s[p + 3]]);
			h = h3;
			/* (the product of the four is 0 just where one is: each
			 * nonzero one is under 2^16, so the product never wraps
			 * to 0 in 64 bits) */
			if ((uint64_t)(h0 & m) * (h1 & m) * (h2 & m) * (h3 & m) != 0)
				continue;
			if (!(h0 & m))
				out[n++].pos = (uint32_t)(p - from);
			if (!(h1 & m))
				out[n++].pos = (uint32_t)(p + 1 - from);
			if (!(h2 & m))
				out[n++].pos = (uint32_t)(p + 2 - from);
			if (!(h3 & m))
				out[n++].pos = (uint32_t)(p + 3 - from);
		}
		for (; p < to; p++) {
			h = (uint16_t)((h << 1) + g[s[p]]);
			if (!(h & m))
				out[n++].pos = (uint32_t)(p - from);
		}
	} else {
		/* Branch-free (an anchor every few positions would
		 * mispredict): out has room for every position. */
		for (; p < to; p++) {
			h = (uint16_t)((h << 1) + g[s[p]]);
			out[n].pos = (uint32_t)(p - from);
			n += (h & m) == 0;
		}
	}
	return n;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WLZ_FAR_AVX2 1

/* The 16 hashes of a vector of 16 bytes' values y, in the order of their
 * positions: the hash of the newest byte i is the sum over k < 16 of
 * y[i - k] << k (16 bits), built in four doublings, each reading lanes
 * back into the previous vector's partial sums (py, p1..p3; a lane's
 * 128-bit halves are rejoined by permute2x128). */
#define WLZ_FAR_STEP(y, py, p1, p2, p3, out)                                                          \
	do {                                                                                          \
		const __m256i b0_ = _mm256_alignr_epi8(y, _mm256_permute2x128_si256(py, y, 0x21), 14);  \
		const __m256i s1_ = _mm256_add_epi16(y, _mm256_slli_epi16(b0_, 1));                   \
		const __m256i b1_ = _mm256_alignr_epi8(s1_, _mm256_permute2x128_si256(p1, s1_, 0x21), 12); \
		const __m256i s2_ = _mm256_add_epi16(s1_, _mm256_slli_epi16(b1_, 2));                 \
		const __m256i b2_ = _mm256_alignr_epi8(s2_, _mm256_permute2x128_si256(p2, s2_, 0x21), 8); \
		const __m256i s3_ = _mm256_add_epi16(s2_, _mm256_slli_epi16(b2_, 4));                 \
		const __m256i b3_ = _mm256_permute2x128_si256(p3, s3_, 0x21);                          \
		out = _mm256_add_epi16(s3_, _mm256_slli_epi16(b3_, 8));                                \
		py = y, p1 = s1_, p2 = s2_, p3 = s3_;                                                 \
	} while (0)

/* 32 positions a round: the bytes' values by byte shuffles of the two
 * nibble tables (their low and high bytes apart), the hashes by
 * doubling, and a mask of the anchors.  Bytes before `from` count as
 * values of 0: they only reach hash bits at or above hash_len. */
__attribute__((target("avx2"))) static size_t anchors_avx2(const wlz_far *f, const uint8_t *src, uint64_t from,
							    uint64_t to, wlz_anchor *out)
{
	const unsigned back = f->hash_len - 1;
	uint8_t t[4][16];
	for (unsigned b = 0; b < 16; b++) {
		t[0][b] = (uint8_t)f->nib[0][b], t[1][b] = (uint8_t)(f->nib[0][b] >> 8);
		t[2][b] = (uint8_t)f->nib[1][b], t[3][b] = (uint8_t)(f->nib[1][b] >> 8);
	}
	const __m256i l0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t[0]));
	const __m256i l1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t[1]));
	const __m256i h0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t[2]));
	const __m256i h1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t[3]));
	const __m256i m = _mm256_set1_epi16((short)f->amask), zero = _mm256_setzero_si256();
	const __m256i lo4 = _mm256_set1_epi8(15);
	__m256i py = zero, p1 = zero, p2 = zero, p3 = zero;
	size_t n = 0;
	/* q: the newest byte of the round's first position */
	const uint64_t qend = to + back;
	uint64_t q = from;
	for (; q + 32 <= qend; q += 32) {
		/* (bytes 0-7, 16-23 | 8-15, 24-31: the in-lane unpacks then
		 * give positions 0-15 and 16-31) */
		const __m256i x = _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)(src + q)), 0xD8);
		const __m256i nl = _mm256_and_si256(x, lo4), nh = _mm256_and_si256(_mm256_srli_epi16(x, 4), lo4);
		const __m256i ylo = _mm256_xor_si256(_mm256_shuffle_epi8(l0, nl), _mm256_shuffle_epi8(h0, nh));
		const __m256i yhi = _mm256_xor_si256(_mm256_shuffle_epi8(l1, nl), _mm256_shuffle_epi8(h1, nh));
		const __m256i ya = _mm256_unpacklo_epi8(ylo, yhi), yb = _mm256_unpackhi_epi8(ylo, yhi);
		__m256i ha, hb;
		WLZ_FAR_STEP(ya, py, p1, p2, p3, ha);
		WLZ_FAR_STEP(yb, py, p1, p2, p3, hb);
		const __m256i ca = _mm256_cmpeq_epi16(_mm256_and_si256(ha, m), zero);
		const __m256i cb = _mm256_cmpeq_epi16(_mm256_and_si256(hb, m), zero);
		uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_permute4x64_epi64(_mm256_packs_epi16(ca, cb), 0xD8));
		/* (the first round's first hash_len - 1 bytes end no position) */
		if (q < from + back)
			bits &= ~0u << (from + back - q);
		for (; bits; bits &= bits - 1)
			out[n++].pos = (uint32_t)(q + (unsigned)__builtin_ctz(bits) - back - from);
	}
	/* The rest one by one, the hash rebuilt from the bytes before. */
	const uint64_t p = q > from + back ? q - back : from;
	return anchors_scalar(f, src + back, from, p, to, gear_hash(f, src, from, p + back), out, n);
}
#endif

size_t wlz_far_anchors_with(const wlz_far *f, const uint8_t *src, uint64_t from, uint64_t to, wlz_anchor *out,
			    int simd)
{
	if (to <= from)
		return 0;
	const unsigned back = f->hash_len - 1;
	size_t n;
#ifdef WLZ_FAR_AVX2
	if (simd && __builtin_cpu_supports("avx2"))
		n = anchors_avx2(f, src, from, to, out);
	else
#endif
	{
		(void)simd;
		n = anchors_scalar(f, src + back, from, from, to, gear_hash(f, src, from, from + back), out, 0);
	}
	for (size_t i = 0; i < n; i++)
		out[i].bucket = wlz_far_bucket_of(f, wlz_far_hash64(f, src + from + out[i].pos));
	return n;
}

size_t wlz_far_anchors(const wlz_far *f, const uint8_t *src, uint64_t from, uint64_t to, wlz_anchor *out)
{
	return wlz_far_anchors_with(f, src, from, to, out, 1);
}

/* Anchor x of a block into its bucket, newest first. */
static inline void put(wlz_far *f, const wlz_anchor *x, uint64_t block_abs)
{
	uint32_t *w = f->slot + (size_t)wlz_anchor_index(x->bucket) * WLZ_FAR_WAYS;
	for (int k = WLZ_FAR_WAYS - 1; k > 0; k--)
		w[k] = w[k - 1];
	w[0] = ((uint32_t)(block_abs + x->pos + 1) & f->pos_mask) | wlz_anchor_tag(f, x->bucket);
}

void wlz_far_insert(wlz_far *f, const wlz_anchor *a, const uint32_t *idx, size_t n, uint64_t block_abs)
{
	for (size_t i = 0; i < n; i++) {
		/* The table is far larger than the caches: fetch ahead. */
		if (i + 16 < n)
			__builtin_prefetch(f->slot + (size_t)wlz_anchor_index(a[idx ? idx[i + 16] : i + 16].bucket) *
						     WLZ_FAR_WAYS,
					   1);
		put(f, &a[idx ? idx[i] : i], block_abs);
	}
}
