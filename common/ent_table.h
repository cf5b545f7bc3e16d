/*
 * ent_table.h - what the two order-0 stream coders (rans32.c, huf32.c)
 * share: the symbol bitmap of their tables and the segment size list.
 */
#ifndef WLZ_ENT_TABLE_H
#define WLZ_ENT_TABLE_H

#include "common/wlz_internal.h"

/* Lanes per segment: one warp on a GPU, one unrolled loop on a CPU. */
#define WLZ_ENT_LANES 32

/* Stream kinds: coded, or one byte repeated (a stream of one symbol). */
#define WLZ_ENT_CODED 0
#define WLZ_ENT_RUN 1

static inline size_t wlz_ent_nseg(size_t n, unsigned seg_log)
{
	return (n + ((size_t)1 << seg_log) - 1) >> seg_log;
}

/* Writes the 32-byte bitmap of the symbols with cnt[s] != 0. */
static inline uint8_t *wlz_ent_put_bitmap(uint8_t *p, const uint32_t cnt[256])
{
	memset(p, 0, 32);
	for (unsigned s = 0; s < 256; s++)
		if (cnt[s])
			p[s >> 3] |= (uint8_t)(1u << (s & 7));
	return p + 32;
}

/* Reads a bitmap into sym[] (ascending); returns the symbol count. */
static inline unsigned wlz_ent_get_bitmap(const uint8_t *p, uint8_t sym[256])
{
	unsigned k = 0;
	for (unsigned s = 0; s < 256; s++)
		if (p[s >> 3] >> (s & 7) & 1)
			sym[k++] = (uint8_t)s;
	return k;
}

/* Decodes the segment list at src[at..csize) into dst[0..n): each segment
 * by fn, which returns 0 when its segment breaks a rule. */
typedef int (*wlz_ent_seg_fn)(const void *tab, const uint8_t *seg, size_t sz, uint8_t *out, size_t m);

static inline wlz_error wlz_ent_segments(const char *coder, wlz_ent_seg_fn fn, const void *tab,
					 const uint8_t *src, size_t csize, size_t at, unsigned seg_log,
					 uint8_t *dst, size_t n)
{
	const size_t nseg = wlz_ent_nseg(n, seg_log), seg = (size_t)1 << seg_log;
	if (nseg == 0 || (csize - at) / 4 < nseg)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: segment list truncated", coder);
	const uint8_t *sizes = src + at;
	at += 4 * nseg;
	for (size_t g = 0; g < nseg; g++) {
		const size_t sz = wlz_rd32(sizes + 4 * g);
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		if (sz > csize - at || !fn(tab, src + at, sz, dst + g * seg, m))
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: segment %zu does not decode", coder, g);
		at += sz;
	}
	if (at != csize)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: bytes after the last segment", coder);
	return WLZ_OK;
}

#endif
