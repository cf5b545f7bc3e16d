/*
 * checksum_avx2.c - checksum.c's XXH3 built with -mavx2 (x86-64 only),
 * called only where the CPU has AVX2.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "common/wlz_internal.h"

#ifndef __AVX2__
#error "build this file with -mavx2"
#endif

uint64_t wlz_xxh3_avx2(const void *p, size_t n) { return XXH3_64bits(p, n); }

void wlz_xxh3_avx2_update(void *state, const void *p, size_t n)
{
	XXH3_64bits_update((XXH3_state_t *)state, p, n);
}

uint64_t wlz_xxh3_avx2_digest(const void *state)
{
	return XXH3_64bits_digest((const XXH3_state_t *)state);
}
