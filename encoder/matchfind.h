/*
 * matchfind.h - hashing and match measuring shared by the match finders:
 * the parser's dense near chain (parse.c) and the sparse far table
 * (farfind.h).
 */
#ifndef WLZ_MATCHFIND_H
#define WLZ_MATCHFIND_H

#include "common/wlz_internal.h"

static inline uint64_t wlz_hash_bytes(const uint8_t *p, unsigned len, unsigned hlog)
{
	const uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
	if (len == 8)
		return (wlz_rd64(p) * k1) >> (64 - hlog);
	if (len > 8) {
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
