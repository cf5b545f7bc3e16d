/*
 * checksum.c - XXH3-64, whole or fed in pieces.
 *
 * Where libxxhash has its x86 run-time dispatch (WLZ_XXH_DISPATCH: the
 * shared library; Debian's static one lacks it), the accumulation loop is
 * the library's, built for SSE2, AVX2 and AVX-512 and picked by the CPU.
 * Elsewhere xxHash is used header-only, and on x86-64 the same functions
 * are also built for AVX2 (checksum_avx2.c) and picked at run time: with
 * SSE2 alone, hashing the decoded bytes is a sizeable part of a decode.
 * Every vector width gives the same digest.
 */
#include <stdlib.h>
#if WLZ_XXH_DISPATCH
#include <xxhash.h>
#include <xxh_x86dispatch.h>
#else
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif
#include "common/wlz_internal.h"

uint64_t wlz_xxh3(const void *p, size_t n)
{
#if WLZ_XXH_DISPATCH
	return XXH3_64bits_dispatch(p, n);
#else
#if WLZ_HAVE_AVX2
	if (__builtin_cpu_supports("avx2"))
		return wlz_xxh3_avx2(p, n);
#endif
	return XXH3_64bits(p, n);
#endif
}

/* xxHash's own allocator: its state wants 64-byte alignment. */
struct wlz_xxh3_state {
	XXH3_state_t *x;
};

wlz_xxh3_state *wlz_xxh3_create(void)
{
	wlz_xxh3_state *st = malloc(sizeof(*st));
	if (!st)
		return NULL;
	st->x = XXH3_createState();
	if (!st->x) {
		free(st);
		return NULL;
	}
	XXH3_64bits_reset(st->x);
	return st;
}

void wlz_xxh3_free(wlz_xxh3_state *st)
{
	if (!st)
		return;
	XXH3_freeState(st->x);
	free(st);
}

void wlz_xxh3_reset(wlz_xxh3_state *st) { XXH3_64bits_reset(st->x); }

/* The state's layout does not depend on the vector width, only the
 * accumulation loop does. */
void wlz_xxh3_update(wlz_xxh3_state *st, const void *p, size_t n)
{
#if WLZ_XXH_DISPATCH
	XXH3_64bits_update_dispatch(st->x, p, n);
#else
#if WLZ_HAVE_AVX2
	if (__builtin_cpu_supports("avx2")) {
		wlz_xxh3_avx2_update(st->x, p, n);
		return;
	}
#endif
	XXH3_64bits_update(st->x, p, n);
#endif
}

uint64_t wlz_xxh3_digest(const wlz_xxh3_state *st)
{
#if !WLZ_XXH_DISPATCH && WLZ_HAVE_AVX2
	if (__builtin_cpu_supports("avx2"))
		return wlz_xxh3_avx2_digest(st->x);
#endif
	return XXH3_64bits_digest(st->x);
}
