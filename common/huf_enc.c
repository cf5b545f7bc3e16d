/*
 * huf_enc.c - the Huffman part coder's encoder (layout in huf.h): counts
 * each symbol under the previous one, clusters those 257 contexts (256
 * symbols and a lane's start) into at most 16 tables, and keeps them where
 * they beat one table by more than their header.
 */
#include <stdlib.h>
#include "common/huf.h"
#include "common/huf_len.h"

#define MB WLZ_HUF_MAX_BITS
#define NCTX 257                /* previous symbol 0..255, 256 = a lane's start */
#define START 256

size_t wlz_huf_bound(size_t n, unsigned seg_log)
{
	const size_t nseg = (n + ((size_t)1 << seg_log) - 1) >> seg_log;
	return 2 + 32 + (256 + WLZ_HUF_MAX_TABLES * 256) / 2 + nseg * (4 + WLZ_HUF_LANE_HDR + WLZ_HUF_LANES) +
	       (n * MB + 7) / 8;
}

/* One table: lengths of the symbols 0..255 from counts h (0: no code; a
 * table of one symbol gets length 1 and codes it in no bits).  Returns
 * the bits its symbols take. */
static uint64_t build_table(const uint32_t h[256], uint8_t len[256])
{
	uint32_t c[256];
	uint8_t l[256], s[256];
	unsigned k = 0;
	for (unsigned i = 0; i < 256; i++) {
		len[i] = 0;
		if (h[i])
			c[k] = h[i], s[k++] = (uint8_t)i;
	}
	if (k == 1) {
		len[s[0]] = 1;
		return 0;
	}
	(void)wlz_huf_code_lengths(c, k, l);  /* complete for every count seen; the tests decode */
	uint64_t bits = 0;
	for (unsigned i = 0; i < k; i++)
		len[s[i]] = l[i], bits += (uint64_t)c[i] * l[i];
	return bits;
}

/* log2(x) for x >= 1 to within 0.0011: the exponent, and a cubic on the
 * mantissa (least squares, exact at both ends).  The clustering calls it
 * thousands of times a stream, where libm's log2f stood out in profiles. */
static inline float fast_log2(uint64_t x)
{
	const unsigned e = wlz_highbit64(x);
	const uint64_t m = e > 23 ? x >> (e - 23) : x << (23 - e);
	const float f = (float)(m & 0x7FFFFF) * (1.0f / 8388608.0f);
	return (float)e + f * (1.4208645f + f * (-0.5772507f + f * 0.1563861f));
}

/* Adds (add = 1) or removes (0) context counts cc over the nu symbols
 * used to a group's. */
static void move_counts(uint64_t *h, uint64_t *ht, const uint32_t *cc, const uint8_t *used, unsigned nu,
			uint64_t tot, int add)
{
	for (unsigned j = 0; j < nu; j++)
		h[j] = add ? h[j] + cc[used[j]] : h[j] - cc[used[j]];
	*ht = add ? *ht + tot : *ht - tot;
}

/* Clusters the active contexts into at most T groups (k-means on the cost
 * of coding a context's symbols with a group's distribution); grp[c] is
 * the group of context c, the start's group is 0, groups are dense.
 * Returns the number of groups. */
static unsigned cluster(const uint32_t (*cnt)[256], const uint64_t *tot, unsigned T, uint8_t *grp, float *dense)
{
	unsigned act[NCTX], na = 0;
	for (unsigned c = 0; c < NCTX; c++)
		if (tot[c])
			act[na++] = c;
	if (na <= T) {
		for (unsigned i = 0; i < na; i++)
			grp[act[i]] = (uint8_t)i;
	} else {
		/* Seeds: the T most frequent contexts. */
		uint8_t seed[NCTX] = {0};
		for (unsigned g = 0; g < T; g++) {
			unsigned best = NCTX;
			for (unsigned i = 0; i < na; i++)
				if (!seed[act[i]] && (best == NCTX || tot[act[i]] > tot[best]))
					best = act[i];
			seed[best] = 1;
			grp[best] = (uint8_t)g;
		}
		for (unsigned i = 0; i < na; i++)
			if (!seed[act[i]])
				grp[act[i]] = 0xFF;
		/* The symbols present, and each context's counts over them in
		 * rows of a multiple of 8 (zero-padded): a context's cost under
		 * a group is then a dense dot product, 8 lanes at a time. */
		uint8_t used[256], any[256] = {0};
		unsigned nu = 0;
		for (unsigned i = 0; i < na; i++)
			for (unsigned x = 0; x < 256; x++)
				any[x] |= cnt[act[i]][x] != 0;
		for (unsigned x = 0; x < 256; x++)
			if (any[x])
				used[nu++] = (uint8_t)x;
		const unsigned nr = (nu + 7) & ~7u;
		for (unsigned i = 0; i < na; i++) {
			float *row = dense + (size_t)i * nr;
			for (unsigned j = 0; j < nu; j++)
				row[j] = (float)cnt[act[i]][used[j]];
			for (unsigned j = nu; j < nr; j++)
				row[j] = 0;
		}
		static const unsigned ITER = 6;
		float cost[WLZ_HUF_MAX_TABLES][256];
		/* Groups whose contexts changed: only their costs change. */
		uint8_t dirty[WLZ_HUF_MAX_TABLES];
		memset(dirty, 1, sizeof(dirty));
		/* Each group's counts, kept up to date as contexts move. */
		uint64_t h[WLZ_HUF_MAX_TABLES][256] = {{0}}, ht[WLZ_HUF_MAX_TABLES] = {0};
		for (unsigned i = 0; i < na; i++) {
			const unsigned c = act[i], g = grp[c];
			if (g == 0xFF)
				continue;
			for (unsigned j = 0; j < nu; j++)
				h[g][j] += cnt[c][used[j]];
			ht[g] += tot[c];
		}
		for (unsigned it = 0; it < ITER; it++) {
			/* (the pass below sees the groups as they stood) */
			uint64_t ht0[WLZ_HUF_MAX_TABLES];
			memcpy(ht0, ht, sizeof(ht0));
			for (unsigned g = 0; g < T; g++) {
				if (!dirty[g])
					continue;
				const float lt = ht[g] ? fast_log2(ht[g]) : 0;
				for (unsigned j = 0; j < nu; j++) {
					const float b = h[g][j] ? lt - fast_log2(h[g][j]) : MB + 1;
					cost[g][j] = b < MB ? b : (h[g][j] ? MB : MB + 1);
				}
				for (unsigned j = nu; j < nr; j++)
					cost[g][j] = 0;
			}
			unsigned moved = 0;
			memset(dirty, 0, sizeof(dirty));
			for (unsigned i = 0; i < na; i++) {
				const unsigned c = act[i];
				const float *row = dense + (size_t)i * nr;
				float best = 0;
				unsigned bg = 0;
				for (unsigned g = 0; g < T; g++) {
					if (!ht0[g])
						continue;
					float acc[8] = {0};
					for (unsigned j = 0; j < nr; j += 8)
						for (unsigned l = 0; l < 8; l++)
							acc[l] += row[j + l] * cost[g][j + l];
					const float x = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
					if (g == 0 || x < best)
						best = x, bg = g;
				}
				if (grp[c] != bg) {
					moved++;
					dirty[bg] = 1;
					if (grp[c] != 0xFF) {
						dirty[grp[c]] = 1;
						move_counts(h[grp[c]], &ht[grp[c]], cnt[c], used, nu, tot[c], 0);
					}
					move_counts(h[bg], &ht[bg], cnt[c], used, nu, tot[c], 1);
				}
				grp[c] = (uint8_t)bg;
			}
			/* Settled: another round would give the same groups. */
			if (!moved)
				break;
		}
	}
	/* Dense numbering, the start's group first. */
	uint8_t ren[WLZ_HUF_MAX_TABLES];
	memset(ren, 0xFF, sizeof(ren));
	unsigned ng = 0;
	if (tot[START])
		ren[grp[START]] = (uint8_t)ng++;
	for (unsigned i = 0; i < na; i++)
		if (ren[grp[act[i]]] == 0xFF)
			ren[grp[act[i]]] = (uint8_t)ng++;
	for (unsigned i = 0; i < na; i++)
		grp[act[i]] = ren[grp[act[i]]];
	return ng;
}

typedef struct bitw {
	uint8_t *p, *end;
	uint64_t acc;
	unsigned n;
} bitw;

/* Writes out 32 bits once the accumulator holds that many. */
static inline int bitw_spill(bitw *w)
{
	if (w->n >= 32) {
		if (w->end - w->p < 4)
			return 0;
		wlz_wr32(w->p, (uint32_t)w->acc);
		w->p += 4;
		w->acc >>= 32;
		w->n -= 32;
	}
	return 1;
}

static inline int bitw_put(bitw *w, uint32_t code, unsigned len)
{
	w->acc |= (uint64_t)code << w->n;
	w->n += len;
	return bitw_spill(w);
}

static inline int bitw_flush(bitw *w)
{
	for (; w->n > 0; w->n = w->n > 8 ? w->n - 8 : 0) {
		if (w->p == w->end)
			return 0;
		*w->p++ = (uint8_t)w->acc;
		w->acc >>= 8;
	}
	return 1;
}

/* The body of src[0..n) from its counts cnt (tot: each context's total,
 * all: each symbol's). */
static size_t encode_counted(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables,
			     unsigned more_tables, uint8_t *dst,
			     size_t cap, const uint32_t (*cnt)[256], const uint64_t *tot, const uint32_t *all,
			     float *dense)
{
	const size_t seg = (size_t)1 << seg_log, nseg = (n + seg - 1) >> seg_log;
	unsigned k = 0;
	for (unsigned s = 0; s < 256; s++)
		k += all[s] != 0;
	if (k < 2)
		return 0;

	/* One table, and the clustered ones (at most max_tables, then at most
	 * more_tables): keep the smallest. */
	uint8_t len[WLZ_HUF_MAX_TABLES][256], grp[NCTX] = {0};
	uint64_t bits = build_table(all, len[0]);
	unsigned T = 1;
	size_t hdr_nib = k;
	for (unsigned pass = 0; pass < 2; pass++) {
		const unsigned want = pass ? more_tables : max_tables;
		if (want <= 1 || (pass && want <= max_tables))
			continue;
		uint8_t lc[WLZ_HUF_MAX_TABLES][256], gc[NCTX] = {0};
		const unsigned tc = cluster(cnt, tot, want, gc, dense);
		uint64_t bc = 0;
		for (unsigned g = 0; g < tc; g++) {
			uint32_t h[256] = {0};
			for (unsigned c = 0; c < NCTX; c++)
				if (tot[c] && gc[c] == g)
					for (unsigned s = 0; s < 256; s++)
						h[s] += cnt[c][s];
			bc += build_table(h, lc[g]);
		}
		const size_t nib = (size_t)k * (tc + 1);
		if (tc > 1 && bc + 4 * nib < bits + 4 * hdr_nib) {
			T = tc, bits = bc, hdr_nib = nib;
			memcpy(len, lc, sizeof(lc[0]) * tc);
			memcpy(grp, gc, sizeof(gc));
		}
	}
	uint32_t code[WLZ_HUF_MAX_TABLES][256];
	for (unsigned t = 0; t < T; t++)
		wlz_huf_canonical(len[t], code[t]);
	/* Bits of each (table, symbol): a one-symbol table codes it in none. */
	uint8_t cl[WLZ_HUF_MAX_TABLES][256];
	for (unsigned t = 0; t < T; t++) {
		unsigned kt = 0;
		for (unsigned s = 0; s < 256; s++)
			kt += len[t][s] != 0;
		for (unsigned s = 0; s < 256; s++)
			cl[t][s] = kt == 1 ? 0 : len[t][s];
	}
	const size_t hdr = 2 + 32 + (hdr_nib + 1) / 2;
	if (cap < hdr + 4 * nseg)
		return 0;
	uint8_t *p = dst;
	*p++ = (uint8_t)seg_log;
	*p++ = (uint8_t)T;
	memset(p, 0, 32 + (hdr_nib + 1) / 2);
	for (unsigned s = 0; s < 256; s++)
		if (all[s])
			p[s >> 3] |= (uint8_t)(1u << (s & 7));
	p += 32;
	size_t ni = 0;
	if (T > 1)
		for (unsigned s = 0; s < 256; s++)
			if (all[s]) {
				p[ni / 2] |= (uint8_t)(grp[s] << (4 * (ni & 1)));
				ni++;
			}
	for (unsigned t = 0; t < T; t++)
		for (unsigned s = 0; s < 256; s++)
			if (all[s]) {
				p[ni / 2] |= (uint8_t)(len[t][s] << (4 * (ni & 1)));
				ni++;
			}
	p += (hdr_nib + 1) / 2;
	uint8_t *sizes = p;
	p += 4 * nseg;
	const uint8_t *end = dst + cap;
	for (size_t g = 0; g < nseg; g++) {
		const uint8_t *s = src + g * seg;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		uint8_t *start = p;
		if (end - p < WLZ_HUF_LANE_HDR)
			return 0;
		p += WLZ_HUF_LANE_HDR;
		for (unsigned l = 0; l < WLZ_HUF_LANES; l++) {
			size_t a, b;
			wlz_huf_lane(m, l, &a, &b);
			bitw w = {p, (uint8_t *)end, 0, 0};
			unsigned t = 0;
			size_t j = a;
			/* Three codes (at most 30 bits) between flushes: the
			 * accumulator holds under 32 bits after each. */
			for (; j + 3 <= b; j += 3) {
				for (unsigned u = 0; u < 3; u++) {
					w.acc |= (uint64_t)code[t][s[j + u]] << w.n;
					w.n += cl[t][s[j + u]];
					t = grp[s[j + u]];
				}
				if (!bitw_spill(&w))
					return 0;
			}
			for (; j < b; j++) {
				if (!bitw_put(&w, code[t][s[j]], cl[t][s[j]]))
					return 0;
				t = grp[s[j]];
			}
			if (!bitw_flush(&w))
				return 0;
			if (l + 1 < WLZ_HUF_LANES)
				wlz_wr16(start + 2 * l, (uint16_t)(w.p - p));
			p = w.p;
		}
		wlz_wr32(sizes + 4 * g, (uint32_t)(p - start));
	}
	return (size_t)(p - dst);
}

size_t wlz_huf_encode(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables, uint8_t *dst,
		      size_t cap, void *work)
{
	return wlz_huf_encode2(src, n, seg_log, max_tables, max_tables, dst, cap, work);
}

size_t wlz_huf_encode2(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables, unsigned more_tables,
		       uint8_t *dst, size_t cap, void *work)
{
	if (n == 0 || seg_log < WLZ_HUF_SEG_MIN || seg_log > WLZ_HUF_SEG_MAX)
		return 0;
	if (max_tables < 1)
		max_tables = 1;
	if (max_tables > WLZ_HUF_MAX_TABLES)
		max_tables = WLZ_HUF_MAX_TABLES;
	uint32_t(*cnt)[256] = work ? work : calloc(1, WLZ_HUF_WORK_SIZE);
	if (!cnt)
		return 0;
	const size_t seg = (size_t)1 << seg_log, nseg = (n + seg - 1) >> seg_log;
	for (size_t g = 0; g < nseg; g++) {
		const uint8_t *s = src + g * seg;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		for (unsigned l = 0; l < WLZ_HUF_LANES; l++) {
			size_t a, b;
			wlz_huf_lane(m, l, &a, &b);
			if (a < b)
				cnt[START][s[a]]++;
			for (size_t j = a + 1; j < b; j++)
				cnt[s[j - 1]][s[j]]++;
		}
	}
	uint64_t tot[NCTX] = {0};
	uint32_t all[256] = {0};
	for (unsigned c = 0; c < NCTX; c++)
		for (unsigned s = 0; s < 256; s++)
			tot[c] += cnt[c][s], all[s] += cnt[c][s];
	if (more_tables > WLZ_HUF_MAX_TABLES)
		more_tables = WLZ_HUF_MAX_TABLES;
	const size_t r = encode_counted(src, n, seg_log, max_tables, more_tables, dst, cap, (const uint32_t(*)[256])cnt, tot, all,
					(float *)(cnt + NCTX));
	/* The scratch goes back zeroed: only the contexts seen have counts. */
	if (work) {
		for (unsigned c = 0; c < NCTX; c++)
			if (tot[c])
				memset(cnt[c], 0, sizeof(cnt[c]));
	} else
		free(cnt);
	return r;
}
