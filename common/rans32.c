/*
 * rans32.c - order-0 rANS in 32 interleaved lanes (layout in rans32.h).
 */
#include <stdlib.h>
#include "common/rans32.h"

#define PB WLZ_RANS_PROB_BITS
#define TOT (1u << PB)

/* Scales counts to frequencies summing to TOT, every present symbol >= 1. */
static void normalise(const uint32_t cnt[256], size_t n, uint32_t freq[256])
{
	uint32_t sum = 0;
	unsigned big = 0;
	for (unsigned s = 0; s < 256; s++) {
		freq[s] = 0;
		if (!cnt[s])
			continue;
		uint64_t f = ((uint64_t)cnt[s] * TOT + n / 2) / n;
		freq[s] = f ? (uint32_t)f : 1;
		sum += freq[s];
		if (cnt[s] > cnt[big])
			big = s;
	}
	/* Rounding leaves the sum off by a little: take it from (or give it
	 * to) the commonest symbol first, where it costs least. */
	while (sum != TOT) {
		if (sum < TOT) {
			freq[big] += TOT - sum;
			sum = TOT;
			break;
		}
		uint32_t over = sum - TOT;
		if (freq[big] > over) {
			freq[big] -= over;
			sum = TOT;
			break;
		}
		for (unsigned s = 0; s < 256 && sum > TOT; s++)
			if (freq[s] > 1)
				freq[s]--, sum--;
	}
}

size_t wlz_rans32_encode(const uint8_t *src, size_t n, unsigned seg_log, uint8_t *dst, size_t cap)
{
	uint32_t cnt[256] = {0};
	for (size_t i = 0; i < n; i++)
		cnt[src[i]]++;
	unsigned used = 0;
	for (unsigned s = 0; s < 256; s++)
		used += cnt[s] != 0;
	if (used <= 1) {
		if (cap < 2)
			return 0;
		dst[0] = WLZ_ENT_RUN;
		dst[1] = n ? src[0] : 0;
		return 2;
	}
	uint32_t freq[256], cum[257];
	normalise(cnt, n, freq);
	cum[0] = 0;
	for (unsigned s = 0; s < 256; s++)
		cum[s + 1] = cum[s] + freq[s];
	const size_t nseg = wlz_ent_nseg(n, seg_log);
	const size_t hdr = 2 + 32 + 2 * used + 4 * nseg;
	if (cap < hdr)
		return 0;
	uint8_t *p = dst;
	*p++ = WLZ_ENT_CODED;
	*p++ = (uint8_t)seg_log;
	p = wlz_ent_put_bitmap(p, cnt);
	for (unsigned s = 0; s < 256; s++)
		if (cnt[s])
			wlz_wr16(p, (uint16_t)freq[s]), p += 2;
	uint8_t *sizes = p;
	p += 4 * nseg;
	const size_t seg = (size_t)1 << seg_log;
	/* Words come out last first: they go to the end of a scratch buffer. */
	uint16_t *wbuf = malloc((seg + WLZ_ENT_LANES) * sizeof(uint16_t));
	if (!wbuf)
		return 0;
	for (size_t g = 0; g < nseg; g++) {
		const uint8_t *s = src + g * seg;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		uint32_t x[WLZ_ENT_LANES];
		for (unsigned l = 0; l < WLZ_ENT_LANES; l++)
			x[l] = WLZ_RANS_L;
		uint16_t *w = wbuf + seg + WLZ_ENT_LANES;
		for (size_t j = m; j-- > 0;) {
			const unsigned l = j & (WLZ_ENT_LANES - 1), y = s[j];
			const uint32_t f = freq[y];
			uint32_t v = x[l];
			if ((uint64_t)v >= (uint64_t)f << (32 - PB)) {
				*--w = (uint16_t)v;
				v >>= 16;
			}
			x[l] = ((v / f) << PB) + v % f + cum[y];
		}
		const size_t nw = (size_t)(wbuf + seg + WLZ_ENT_LANES - w);
		const size_t sz = 4 * WLZ_ENT_LANES + 2 * nw;
		if ((size_t)(dst + cap - p) < sz) {
			free(wbuf);
			return 0;
		}
		wlz_wr32(sizes + 4 * g, (uint32_t)sz);
		for (unsigned l = 0; l < WLZ_ENT_LANES; l++)
			wlz_wr32(p + 4 * l, x[l]);
		memcpy(p + 4 * WLZ_ENT_LANES, w, 2 * nw);
		p += sz;
	}
	free(wbuf);
	return (size_t)(p - dst);
}

wlz_error wlz_rans32_table(const uint8_t *src, size_t csize, uint32_t tab[TOT], unsigned *seg_log,
			   size_t *hdr)
{
	if (csize < 2 + 32 || src[0] != WLZ_ENT_CODED || src[1] < 12 || src[1] > 20)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "rans32 stream: bad kind or segment size");
	uint8_t sym[256];
	const unsigned k = wlz_ent_get_bitmap(src + 2, sym);
	if (k < 2 || csize < 34 + 2 * (size_t)k)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "rans32 stream: bad symbol table");
	uint32_t c = 0;
	for (unsigned i = 0; i < k; i++) {
		const uint32_t f = wlz_rd16(src + 34 + 2 * i);
		if (f == 0 || f > TOT - c)
			return wlz_fail(WLZ_ERR_BAD_STREAM, "rans32 stream: frequencies do not sum to %u", TOT);
		for (uint32_t j = 0; j < f; j++)
			tab[c + j] = sym[i] | (f - 1) << 8 | j << 20;
		c += f;
	}
	if (c != TOT)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "rans32 stream: frequencies do not sum to %u", TOT);
	*seg_log = src[1];
	*hdr = 34 + 2 * (size_t)k;
	return WLZ_OK;
}

#define RANS_STEP(l)                                                                        \
	do {                                                                                \
		const uint32_t e = tab[x[l] & (TOT - 1)];                                   \
		o[l] = (uint8_t)e;                                                          \
		uint32_t v = ((e >> 8 & (TOT - 1)) + 1) * (x[l] >> PB) + (e >> 20);         \
		const uint32_t need = v < WLZ_RANS_L;                                       \
		const uint32_t w = wlz_rd16(p) & (0u - need);                               \
		x[l] = v << (need << 4) | w;  /* no branch: renormalising is a coin toss */ \
		p += need << 1;                                                             \
	} while (0)

/* One segment of m symbols from seg[0..sz). */
static int decode_segment(const void *tabv, const uint8_t *seg, size_t sz, uint8_t *out, size_t m)
{
	const uint32_t *tab = tabv;
	if (sz < 4 * WLZ_ENT_LANES || (sz & 1))
		return 0;
	uint32_t x[WLZ_ENT_LANES];
	for (unsigned l = 0; l < WLZ_ENT_LANES; l++) {
		x[l] = wlz_rd32(seg + 4 * l);
		if (x[l] < WLZ_RANS_L)
			return 0;
	}
	const uint8_t *p = seg + 4 * WLZ_ENT_LANES, *end = seg + sz;
	size_t j = 0;
	/* A full row reads at most 32 words (64 bytes): the bound is checked
	 * once per row, and the reads of a row may pass end by that much only
	 * within the checked margin. */
	for (; j + WLZ_ENT_LANES <= m && end - p >= 2 * WLZ_ENT_LANES; j += WLZ_ENT_LANES) {
		uint8_t *o = out + j;
#pragma GCC unroll 32
		for (unsigned l = 0; l < WLZ_ENT_LANES; l++)
			RANS_STEP(l);
	}
	for (; j < m; j++) {
		const unsigned l = j & (WLZ_ENT_LANES - 1);
		const uint32_t e = tab[x[l] & (TOT - 1)];
		out[j] = (uint8_t)e;
		uint32_t v = ((e >> 8 & (TOT - 1)) + 1) * (x[l] >> PB) + (e >> 20);
		if (v < WLZ_RANS_L) {
			if (end - p < 2)
				return 0;
			v = v << 16 | wlz_rd16(p);
			p += 2;
		}
		x[l] = v;
	}
	if (p != end)
		return 0;
	for (unsigned l = 0; l < WLZ_ENT_LANES; l++)
		if (x[l] != WLZ_RANS_L)
			return 0;
	return 1;
}

wlz_error wlz_rans32_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t n)
{
	if (csize == 2 && src[0] == WLZ_ENT_RUN) {
		memset(dst, src[1], n);
		return WLZ_OK;
	}
	uint32_t tab[TOT];
	unsigned seg_log;
	size_t at;
	WLZ_TRY(wlz_rans32_table(src, csize, tab, &seg_log, &at));
	return wlz_ent_segments("rans32", decode_segment, tab, src, csize, at, seg_log, dst, n);
}
