/*
 * matchfind.h - the whole-input match finder.
 *
 * Two hash chains feed the parser:
 *  - a global "long" chain over every position of the input, hashed on
 *    long_len bytes, built once before blocks are parsed; being read-only
 *    afterwards, all parser threads share it.  It finds references anywhere
 *    earlier in the input, across blocks.
 *  - a per-block "short" chain, hashed on short_len bytes, built by each
 *    parser thread over the block and the `near` bytes before it: short
 *    matches only pay for themselves at short distances.
 */
#ifndef WLZ_MATCHFIND_H
#define WLZ_MATCHFIND_H

#include "common/wlz_internal.h"

typedef struct wlz_lchain {
	const uint8_t *src;
	uint64_t n;
	unsigned len;       /* bytes hashed, 8..16 */
	uint32_t *delta;    /* distance to the previous same-hash position, 0 = none */
} wlz_lchain;

/* Memory the long chain needs for n input bytes (chain plus head table). */
uint64_t wlz_lchain_memory(uint64_t n);

/* Builds the chain over src[0..n).  delta must hold n entries. */
wlz_error wlz_lchain_build(wlz_lchain *lc, const uint8_t *src, uint64_t n, unsigned len, uint32_t *delta);

static inline uint64_t wlz_hash_bytes(const uint8_t *p, unsigned len, unsigned hlog)
{
	const uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
	if (len >= 8) {
		uint64_t a = wlz_rd64(p), b = wlz_rd64(p + len - 8);
		return ((a * k1) ^ (b * k2) ^ ((a * k1) >> 29)) * k2 >> (64 - hlog);
	}
	uint64_t a = wlz_rd64(p) << (64 - 8 * len);
	return (a * k1) >> (64 - hlog);
}

/* Length of the common prefix of a and b, at most limit; both may be read
 * up to limit bytes. */
static inline uint64_t wlz_match_len(const uint8_t *a, const uint8_t *b, uint64_t limit)
{
	uint64_t k = 0;
	while (k + 8 <= limit) {
		uint64_t x = wlz_rd64(a + k) ^ wlz_rd64(b + k);
		if (x)
			return k + ((unsigned)__builtin_ctzll(x) >> 3);
		k += 8;
	}
	while (k < limit && a[k] == b[k])
		k++;
	return k;
}

#endif
