/*
 * huf32.c - order-0 Huffman in 32 interleaved lanes (layout in huf32.h).
 */
#include <stdlib.h>
#include "common/huf32.h"

#define MB WLZ_HUF_MAX_BITS

/* Code lengths of the k symbols with counts c (k >= 2), at most MB bits:
 * Huffman's, then lengths over MB clamped and the Kraft sum repaired. */
static void code_lengths(const uint32_t *c, unsigned k, uint8_t *len)
{
	uint64_t w[512];
	int parent[512];
	unsigned alive[512], na = 0, nn = k;
	for (unsigned i = 0; i < k; i++)
		w[i] = c[i], alive[na++] = i;
	while (na > 1) {
		/* The two lightest (k <= 256: quadratic is cheap enough here). */
		unsigned a = 0, b = 1;
		if (w[alive[b]] < w[alive[a]])
			a = 1, b = 0;
		for (unsigned i = 2; i < na; i++) {
			if (w[alive[i]] < w[alive[a]])
				b = a, a = i;
			else if (w[alive[i]] < w[alive[b]])
				b = i;
		}
		w[nn] = w[alive[a]] + w[alive[b]];
		parent[alive[a]] = parent[alive[b]] = (int)nn;
		const unsigned hi = a > b ? a : b, lo = a > b ? b : a;
		alive[hi] = alive[--na];
		alive[lo] = nn++;
	}
	parent[nn - 1] = -1;
	for (unsigned i = 0; i < k; i++) {
		unsigned d = 0;
		for (int q = parent[i]; q >= 0; q = parent[q])
			d++;
		len[i] = (uint8_t)(d > MB ? MB : d);
	}
	uint32_t kraft = 0;
	for (unsigned i = 0; i < k; i++)
		kraft += 1u << (MB - len[i]);
	/* Over-full: lengthen the rarest of the longest codes below MB. */
	while (kraft > (1u << MB)) {
		unsigned best = k;
		for (unsigned i = 0; i < k; i++)
			if (len[i] < MB && (best == k || len[i] > len[best] ||
					    (len[i] == len[best] && c[i] < c[best])))
				best = i;
		kraft -= 1u << (MB - len[best] - 1);
		len[best]++;
	}
	/* Room left: shorten the commonest codes that fit. */
	for (int again = 1; again && kraft < (1u << MB);) {
		again = 0;
		unsigned best = k;
		for (unsigned i = 0; i < k; i++)
			if (len[i] > 1 && kraft + (1u << (MB - len[i])) <= (1u << MB) &&
			    (best == k || c[i] > c[best]))
				best = i;
		if (best < k) {
			kraft += 1u << (MB - len[best]);
			len[best]--;
			again = 1;
		}
	}
}

/* Canonical codes, bit-reversed for an LSB-first stream. */
static void canonical(const uint8_t *len, unsigned k, uint32_t *code)
{
	unsigned nl[MB + 1] = {0};
	uint32_t next[MB + 2];
	for (unsigned i = 0; i < k; i++)
		nl[len[i]]++;
	next[1] = 0;
	for (unsigned b = 1; b <= MB; b++)
		next[b + 1] = (next[b] + nl[b]) << 1;
	for (unsigned i = 0; i < k; i++) {
		uint32_t v = next[len[i]]++, r = 0;
		for (unsigned b = 0; b < len[i]; b++)
			r |= (v >> b & 1) << (len[i] - 1 - b);
		code[i] = r;
	}
}

size_t wlz_huf32_encode(const uint8_t *src, size_t n, unsigned seg_log, uint8_t *dst, size_t cap)
{
	uint32_t cnt[256] = {0};
	for (size_t i = 0; i < n; i++)
		cnt[src[i]]++;
	uint32_t c[256];
	uint8_t sym[256], len[256], slen[256] = {0};
	uint32_t code[256], scode[256] = {0};
	unsigned k = 0;
	for (unsigned s = 0; s < 256; s++)
		if (cnt[s])
			c[k] = cnt[s], sym[k++] = (uint8_t)s;
	if (k <= 1) {
		if (cap < 2)
			return 0;
		dst[0] = WLZ_ENT_RUN;
		dst[1] = n ? src[0] : 0;
		return 2;
	}
	code_lengths(c, k, len);
	canonical(len, k, code);
	for (unsigned i = 0; i < k; i++)
		slen[sym[i]] = len[i], scode[sym[i]] = code[i];
	const size_t nseg = wlz_ent_nseg(n, seg_log);
	const size_t hdr = 2 + 32 + (k + 1) / 2 + 4 * nseg;
	if (cap < hdr)
		return 0;
	uint8_t *p = dst;
	*p++ = WLZ_ENT_CODED;
	*p++ = (uint8_t)seg_log;
	p = wlz_ent_put_bitmap(p, cnt);
	memset(p, 0, (k + 1) / 2);
	for (unsigned i = 0; i < k; i++)
		p[i / 2] |= (uint8_t)(len[i] << (4 * (i & 1)));
	p += (k + 1) / 2;
	uint8_t *sizes = p;
	p += 4 * nseg;
	const size_t seg = (size_t)1 << seg_log;
	const size_t lw = (seg / WLZ_ENT_LANES + 1) * MB / 32 + 4;  /* words per lane, at most */
	uint32_t *words = malloc(WLZ_ENT_LANES * lw * sizeof(uint32_t));
	if (!words)
		return 0;
	for (size_t g = 0; g < nseg; g++) {
		const uint8_t *s = src + g * seg;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		/* Each lane's bits, then the words in the order the decoder asks. */
		size_t nw[WLZ_ENT_LANES];
		for (unsigned l = 0; l < WLZ_ENT_LANES; l++) {
			uint32_t *w = words + l * lw;
			uint64_t acc = 0;
			unsigned bits = 0;
			size_t q = 0;
			for (size_t j = l; j < m; j += WLZ_ENT_LANES) {
				acc |= (uint64_t)scode[s[j]] << bits;
				bits += slen[s[j]];
				if (bits >= 32) {
					w[q++] = (uint32_t)acc;
					acc >>= 32;
					bits -= 32;
				}
			}
			w[q++] = (uint32_t)acc;  /* the rest, zero-padded */
			nw[l] = q;
		}
		size_t wi[WLZ_ENT_LANES] = {0};
		unsigned cntb[WLZ_ENT_LANES] = {0};
		uint8_t *start = p;
		for (size_t r = 0; 2 * r * WLZ_ENT_LANES < m; r++) {
			for (unsigned l = 0; l < WLZ_ENT_LANES; l++) {
				const size_t j0 = 2 * r * WLZ_ENT_LANES + l, j1 = j0 + WLZ_ENT_LANES;
				if (j0 >= m)
					break;
				if (cntb[l] < 32) {
					if (dst + cap - p < 4) {
						free(words);
						return 0;
					}
					wlz_wr32(p, wi[l] < nw[l] ? words[l * lw + wi[l]] : 0);  /* past the end: zeros */
					wi[l]++;
					p += 4;
					cntb[l] += 32;
				}
				cntb[l] -= slen[s[j0]];
				if (j1 < m)
					cntb[l] -= slen[s[j1]];
			}
		}
		wlz_wr32(sizes + 4 * g, (uint32_t)(p - start));
	}
	free(words);
	return (size_t)(p - dst);
}

wlz_error wlz_huf32_table(const uint8_t *src, size_t csize, uint16_t tab[1 << MB], unsigned *seg_log,
			  size_t *hdr)
{
	if (csize < 2 + 32 || src[0] != WLZ_ENT_CODED || src[1] < 12 || src[1] > 20)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "huf32 stream: bad kind or segment size");
	uint8_t sym[256], len[256];
	uint32_t code[256];
	const unsigned k = wlz_ent_get_bitmap(src + 2, sym);
	if (k < 2 || csize < 34 + (size_t)(k + 1) / 2)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "huf32 stream: bad symbol table");
	uint32_t kraft = 0;
	for (unsigned i = 0; i < k; i++) {
		len[i] = src[34 + i / 2] >> (4 * (i & 1)) & 15;
		if (len[i] == 0 || len[i] > MB)
			return wlz_fail(WLZ_ERR_BAD_STREAM, "huf32 stream: bad code length");
		kraft += 1u << (MB - len[i]);
	}
	if (kraft != 1u << MB || ((k & 1) && src[34 + k / 2] >> 4))
		return wlz_fail(WLZ_ERR_BAD_STREAM, "huf32 stream: the code is not complete");
	canonical(len, k, code);
	for (unsigned i = 0; i < k; i++)
		for (uint32_t v = code[i]; v < (1u << MB); v += 1u << len[i])
			tab[v] = (uint16_t)(sym[i] | len[i] << 8);
	*seg_log = src[1];
	*hdr = 34 + (size_t)(k + 1) / 2;
	return WLZ_OK;
}

#define HUF_REFILL(l)                                                                       \
	do {                                                                                \
		const uint64_t need = cnt[l] < 32;                                          \
		buf[l] |= (uint64_t)(wlz_rd32(p) & (uint32_t)-need) << cnt[l];              \
		cnt[l] += (unsigned)need << 5;                                              \
		p += need << 2;                                                             \
	} while (0)
#define HUF_SYM(l, o)                                                                       \
	do {                                                                                \
		const uint16_t e = tab[buf[l] & ((1u << MB) - 1)];                          \
		(o) = (uint8_t)e;                                                           \
		buf[l] >>= e >> 8;                                                          \
		cnt[l] -= e >> 8;                                                           \
	} while (0)

static int decode_segment(const void *tabv, const uint8_t *seg, size_t sz, uint8_t *out, size_t m)
{
	const uint16_t *tab = tabv;
	if (sz & 3)
		return 0;
	uint64_t buf[WLZ_ENT_LANES] = {0};
	unsigned cnt[WLZ_ENT_LANES] = {0};
	const uint8_t *p = seg, *end = seg + sz;
	const size_t row2 = 2 * WLZ_ENT_LANES;
	size_t j = 0;
	for (; j + row2 <= m && end - p >= 4 * WLZ_ENT_LANES; j += row2) {
		uint8_t *o = out + j;
#pragma GCC unroll 32
		for (unsigned l = 0; l < WLZ_ENT_LANES; l++) {
			HUF_REFILL(l);
			HUF_SYM(l, o[l]);
			HUF_SYM(l, o[l + WLZ_ENT_LANES]);
		}
	}
	for (; j < m; j += row2) {
		for (unsigned l = 0; l < WLZ_ENT_LANES && j + l < m; l++) {
			if (cnt[l] < 32) {
				if (end - p < 4)
					return 0;
				buf[l] |= (uint64_t)wlz_rd32(p) << cnt[l];
				cnt[l] += 32;
				p += 4;
			}
			HUF_SYM(l, out[j + l]);
			if (j + l + WLZ_ENT_LANES < m)
				HUF_SYM(l, out[j + l + WLZ_ENT_LANES]);
		}
	}
	if (p != end)
		return 0;
	for (unsigned l = 0; l < WLZ_ENT_LANES; l++)
		if (buf[l])
			return 0;  /* padding is zero */
	return 1;
}

wlz_error wlz_huf32_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t n)
{
	if (csize == 2 && src[0] == WLZ_ENT_RUN) {
		memset(dst, src[1], n);
		return WLZ_OK;
	}
	uint16_t tab[1 << MB];
	unsigned seg_log;
	size_t at;
	WLZ_TRY(wlz_huf32_table(src, csize, tab, &seg_log, &at));
	return wlz_ent_segments("huf32", decode_segment, tab, src, csize, at, seg_log, dst, n);
}
