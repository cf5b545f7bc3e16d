/*
 * wlz_internal.h - helpers shared by every part of the library (not public).
 */
#ifndef WLZ_INTERNAL_H
#define WLZ_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "wavelz.h"

#define WLZ_EXPORT __attribute__((visibility("default")))
#define WLZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define WLZ_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Fuzzing builds (and only they) skip checksum comparisons, so that the
 * fuzzer reaches the parsers behind them; every bound is still checked. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define WLZ_CHECKSUMS 0
#else
#define WLZ_CHECKSUMS 1
#endif

/* Error detail (wlz_error_detail): the failing check says what failed, in a
 * per-thread buffer; the code it returns stays the coarse category.  Cold:
 * only error paths call these. */
wlz_error wlz_fail(wlz_error code, const char *fmt, ...)
	__attribute__((cold, format(printf, 2, 3)));
void wlz_detail_clear(void);
void wlz_detail_block(uint64_t block);      /* prefix "block N: " */
void wlz_detail_set(const char *text);      /* copy another thread's */

/* The options' --parallel, the level's where not given (encoder/compress.c). */
int wlz_parallel_of(const wlz_options *o);

/* How the dctx's last run of blocks went (for tests): 1 side by side, 2 in
 * order (cpu_decoder/decompress.c), 0 on one thread. */
int wlz_dctx_last_order(const wlz_dctx *dc);

/* Return early on error, keeping error paths one line long. */
#define WLZ_TRY(expr) do { wlz_error e_ = (expr); if (e_ != WLZ_OK) return e_; } while (0)

static inline uint16_t wlz_rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t wlz_rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t wlz_rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void wlz_wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void wlz_wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void wlz_wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "wavelz reads its little-endian fields with memcpy: port wlz_rd*/wlz_wr* first"
#endif

/* LEB128 varint: 7 bits per byte, low groups first, high bit = more. */
static inline uint8_t *wlz_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads one varint from [*pp, end); returns 0 on overrun, more than 64
 * bits, or an overlong form (SPEC.md, section 6). */
static inline int wlz_get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (WLZ_UNLIKELY(p >= end || shift > 63))
			return 0;
		uint8_t b = *p++;
		if (WLZ_UNLIKELY(shift == 63 && b > 1))
			return 0;  /* more than 64 bits */
		v |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80)) {
			if (WLZ_UNLIKELY(b == 0 && shift))
				return 0;  /* overlong: a last group of zero */
			break;
		}
		shift += 7;
	}
	*pp = p;
	*out = v;
	return 1;
}

static inline unsigned wlz_highbit64(uint64_t v) { return 63u - (unsigned)__builtin_clzll(v | 1); }

/* Number of online cores, at least 1. */
int wlz_cpu_count(void);
/* threads option -> worker count (0 = all cores), at least 1. */
int wlz_resolve_threads(int threads);

/* *p (an array of *cap elements of unit bytes) with room for need, grown
 * to exactly need; 0 when memory runs out (*p and *cap as they were). */
int wlz_grow(void **p, size_t *cap, size_t need, size_t unit);

/* XXH3-64 of a buffer (xxHash used header-only). */
uint64_t wlz_xxh3(const void *p, size_t n);

/* The same digest, fed in pieces: the decoder hashes each chunk of output
 * while it is still in L1 rather than reading the block back. */
typedef struct wlz_xxh3_state wlz_xxh3_state;
wlz_xxh3_state *wlz_xxh3_create(void);
void wlz_xxh3_free(wlz_xxh3_state *st);
void wlz_xxh3_reset(wlz_xxh3_state *st);
void wlz_xxh3_update(wlz_xxh3_state *st, const void *p, size_t n);
uint64_t wlz_xxh3_digest(const wlz_xxh3_state *st);

/* checksum_avx2.c (built where WLZ_HAVE_AVX2): the same, with AVX2; the
 * state is xxHash's own. */
uint64_t wlz_xxh3_avx2(const void *p, size_t n);
void wlz_xxh3_avx2_update(void *state, const void *p, size_t n);
uint64_t wlz_xxh3_avx2_digest(const void *state);

#endif
