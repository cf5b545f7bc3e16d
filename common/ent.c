/*
 * ent.c - stream codec 2's parts (layout in SPEC.md, section 5.2).
 */
#include "common/ent.h"

static wlz_error bad(const char *what)
{
	return wlz_fail(WLZ_ERR_BAD_STREAM, "codec 2 stream: %s", what);
}

wlz_error wlz_ent_parts(const uint8_t *src, size_t csize, size_t rsize, wlz_ent_part p[WLZ_ENT_MAX_PARTS],
			unsigned *np)
{
	const uint8_t *q = src, *end = src + csize;
	if (csize < 1 || src[0] < 1 || src[0] > WLZ_ENT_MAX_PARTS)
		return bad("bad part count");
	const unsigned n = *q++;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v, c;
		if (q == end || *q > WLZ_PART_HUF)
			return bad("bad part kind");
		p[i].kind = *q++;
		if (!wlz_get_varint(&q, end, &v) || v == 0 || v > rsize)
			return bad("bad part size");
		p[i].n = (size_t)v;
		if (p[i].kind == WLZ_PART_HUF) {
			if (!wlz_get_varint(&q, end, &c) || c == 0 || c > csize)
				return bad("bad coded size");
		} else {
			c = p[i].kind == WLZ_PART_RAW ? v : 1;
		}
		p[i].c = (size_t)c;
	}
	size_t at = (size_t)(q - src), sum = 0;
	for (unsigned i = 0; i < n; i++) {
		if (p[i].c > csize - at)
			return bad("parts overrun the stream");
		p[i].at = at;
		at += p[i].c;
		if (p[i].n > rsize - sum)
			return bad("parts decode to more than the stream");
		sum += p[i].n;
	}
	if (at != csize || sum != rsize)
		return bad("parts do not fill the stream exactly");
	*np = n;
	return WLZ_OK;
}

wlz_error wlz_ent_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t rsize, wlz_huf_tables *t)
{
	wlz_ent_part p[WLZ_ENT_MAX_PARTS];
	unsigned np;
	WLZ_TRY(wlz_ent_parts(src, csize, rsize, p, &np));
	for (unsigned i = 0; i < np; i++) {
		const uint8_t *s = src + p[i].at;
		if (p[i].kind == WLZ_PART_RAW)
			memcpy(dst, s, p[i].n);
		else if (p[i].kind == WLZ_PART_RUN)
			memset(dst, s[0], p[i].n);
		else
			WLZ_TRY(wlz_huf_decode(s, p[i].c, dst, p[i].n, t));
		dst += p[i].n;
	}
	return WLZ_OK;
}

size_t wlz_ent_bound(size_t n)
{
	return 1 + WLZ_ENT_MAX_PARTS * 21 + n;
}

#ifndef WLZ_ENT_SYMS_PER_TABLE
#define WLZ_ENT_SYMS_PER_TABLE 8192
#endif

size_t wlz_ent_encode(const uint8_t *src, size_t n, const size_t *cut, unsigned ncut, unsigned max_tables,
		      unsigned seg_log, unsigned more, unsigned iters, uint8_t *dst, size_t cap, void *work)
{
	size_t edge[WLZ_ENT_MAX_PARTS + 1];
	unsigned np = 0;
	edge[0] = 0;
	for (unsigned i = 0; i < ncut && i + 1 < WLZ_ENT_MAX_PARTS; i++)
		if (cut[i] > edge[np] && cut[i] < n)
			edge[++np] = cut[i];
	if (n > edge[np])
		edge[++np] = n;
	if (np == 0 || cap < 1 + 21 * np)
		return 0;
	/* Bodies go after the largest header they can need, then move down. */
	uint8_t *body = dst + 1 + 21 * np, *bp = body, *end = dst + cap;
	uint8_t *h = dst;
	*h++ = (uint8_t)np;
	for (unsigned i = 0; i < np; i++) {
		const uint8_t *s = src + edge[i];
		const size_t m = edge[i + 1] - edge[i];
		size_t run = 1;
		while (run < m && s[run] == s[0])
			run++;
		if (run == m) {
			if (bp == end)
				return 0;
			*h++ = WLZ_PART_RUN;
			h = wlz_put_varint(h, m);
			*bp++ = s[0];
			continue;
		}
		/* A table costs a decoder 2^10 entries to build, as much as that
		 * many symbols: one table per WLZ_ENT_SYMS_PER_TABLE symbols. */
		const size_t mt = m / WLZ_ENT_SYMS_PER_TABLE < max_tables ? m / WLZ_ENT_SYMS_PER_TABLE : max_tables;
		const size_t mt2 = more ? (m / more < max_tables ? m / more : max_tables) : 0;
		size_t c = m > 64 ? wlz_huf_encode2(s, m, seg_log, mt ? (unsigned)mt : 1, (unsigned)mt2, iters, bp,
						    (size_t)(end - bp), work)
				  : 0;
		/* (a gain under 1/16 is not worth a decoder's lookups) */
		if (c && c <= m - m / 16) {
			*h++ = WLZ_PART_HUF;
			h = wlz_put_varint(h, m);
			h = wlz_put_varint(h, c);
			bp += c;
			continue;
		}
		if ((size_t)(end - bp) < m)
			return 0;
		*h++ = WLZ_PART_RAW;
		h = wlz_put_varint(h, m);
		memcpy(bp, s, m);
		bp += m;
	}
	memmove(h, body, (size_t)(bp - body));
	return (size_t)(h - dst) + (size_t)(bp - body);
}
