/*
 * huf_enc.c - the Huffman part coder's encoder (layout in huf.h): counts
 * each symbol under the previous one, clusters those 257 contexts (256
 * symbols and a lane's start) into at most 16 tables, and keeps them where
 * they beat one table by more than their header.
 */
#include <stdlib.h>
#include "common/huf.h"
#include "common/huf_cluster.h"

#define MB WLZ_HUF_MAX_BITS
#define NCTX WLZ_HUF_NCTX
#define START WLZ_HUF_START

size_t wlz_huf_bound(size_t n, unsigned seg_log)
{
	const size_t nseg = (n + ((size_t)1 << seg_log) - 1) >> seg_log;
	return 2 + 32 + (256 + WLZ_HUF_MAX_TABLES * 256) / 2 + nseg * (4 + WLZ_HUF_LANE_HDR + WLZ_HUF_LANES) +
	       (n * MB + 7) / 8;
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

/* A symbol's code and its length in one table (two halves, each read by
 * a load of its own: no shifts or masks between). */
typedef struct hcode {
	uint16_t code, len;
} hcode;

/* Codes a segment s[0..m) as its lane sizes and 32 lanes at p (end: the
 * room's end); returns where it ends, NULL if it does not fit.  pk[t][x]:
 * symbol x's code in table t; nx[x]: the table of the symbol after x. */
static inline __attribute__((always_inline)) uint8_t *code_segment(const uint8_t *s, size_t m, uint8_t *p,
								  const uint8_t *end, const hcode (*pk)[256],
								  const hcode *const *nx)
{
	uint8_t *start = p;
	if (end - p < WLZ_HUF_LANE_HDR)
		return NULL;
	p += WLZ_HUF_LANE_HDR;
	for (unsigned l = 0; l < WLZ_HUF_LANES; l++) {
		size_t a, b;
		wlz_huf_lane(m, l, &a, &b);
		/* Five codes (at most 50 bits) between flushes of whole bytes,
		 * which leave under 8 bits: the same bytes as 32-bit spills
		 * give, while 8 bytes of room are left; then code by code. */
		const hcode *tp = pk[0];
		uint64_t acc = 0;
		unsigned nb = 0;
		uint8_t *q = p;
		size_t j = a;
		for (; j + 5 <= b && end - q >= 8; j += 5) {
			for (unsigned u = 0; u < 5; u++) {
				const unsigned x = s[j + u];
				acc |= (uint64_t)tp[x].code << nb;
				nb += tp[x].len;
				tp = nx[x];
			}
			wlz_wr64(q, acc);
			q += nb >> 3;
			acc >>= nb & ~7u;
			nb &= 7;
		}
		bitw w = {q, (uint8_t *)end, acc, nb};
		for (; j < b; j++) {
			if (!bitw_put(&w, tp[s[j]].code, tp[s[j]].len))
				return NULL;
			tp = nx[s[j]];
		}
		if (!bitw_flush(&w))
			return NULL;
		if (l + 1 < WLZ_HUF_LANES)
			wlz_wr16(start + 2 * l, (uint16_t)(w.p - p));
		p = w.p;
	}
	return p;
}

typedef uint8_t *(*code_fn)(const uint8_t *s, size_t m, uint8_t *p, const uint8_t *end, const hcode (*pk)[256],
			    const hcode *const *nx);

static uint8_t *code_generic(const uint8_t *s, size_t m, uint8_t *p, const uint8_t *end, const hcode (*pk)[256],
			     const hcode *const *nx)
{
	return code_segment(s, m, p, end, pk, nx);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with BMI2, whose shifts by a register take one instruction
 * (the baseline's take a move to cl as well) and free a register. */
__attribute__((target("bmi2"))) static uint8_t *code_bmi2(const uint8_t *s, size_t m, uint8_t *p, const uint8_t *end,
							   const hcode (*pk)[256], const hcode *const *nx)
{
	return code_segment(s, m, p, end, pk, nx);
}
#endif

static code_fn pick_code(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("bmi2"))
		return code_bmi2;
#endif
	return code_generic;
}

typedef unsigned (*cluster_fn)(const uint32_t (*cnt)[256], const uint64_t *tot, const uint32_t *all, unsigned T,
			       unsigned iters, uint8_t *grp, wlz_huf_cluster_work *w);

static unsigned cluster_generic(const uint32_t (*cnt)[256], const uint64_t *tot, const uint32_t *all, unsigned T,
				unsigned iters, uint8_t *grp, wlz_huf_cluster_work *w)
{
	return wlz_huf_cluster_all(cnt, tot, all, T, iters, grp, w);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with AVX2: its dot products run 8 lanes a vector, in the order
 * the portable code adds them (no FMA: the groups come out the same). */
__attribute__((target("avx2"), flatten)) static unsigned cluster_avx2(const uint32_t (*cnt)[256], const uint64_t *tot,
								      const uint32_t *all, unsigned T, unsigned iters,
								      uint8_t *grp, wlz_huf_cluster_work *w)
{
	return wlz_huf_cluster_all(cnt, tot, all, T, iters, grp, w);
}
#endif

static cluster_fn pick_cluster(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2"))
		return cluster_avx2;
#endif
	return cluster_generic;
}

/* The body of src[0..n) from its counts cnt (tot: each context's total,
 * all: each symbol's). */
static size_t encode_counted(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables,
			     unsigned more_tables, unsigned iters, uint8_t *dst,
			     size_t cap, const uint32_t (*cnt)[256], const uint64_t *tot, const uint32_t *all,
			     wlz_huf_cluster_work *cw)
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
	uint64_t bits = wlz_huf_build_table(all, len[0]);
	unsigned T = 1;
	size_t hdr_nib = k;
	for (unsigned pass = 0; pass < 2; pass++) {
		const unsigned want = pass ? more_tables : max_tables;
		if (want <= 1 || (pass && want <= max_tables))
			continue;
		uint8_t lc[WLZ_HUF_MAX_TABLES][256], gc[NCTX] = {0};
		const unsigned tc = pick_cluster()(cnt, tot, all, want, iters, gc, cw);
		uint64_t bc = 0;
		for (unsigned g = 0; g < tc; g++) {
			uint32_t h[256] = {0};
			for (unsigned c = 0; c < NCTX; c++)
				if (tot[c] && gc[c] == g)
					for (unsigned s = 0; s < 256; s++)
						h[s] += cnt[c][s];
			bc += wlz_huf_build_table(h, lc[g]);
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
	/* Each (table, symbol)'s code and length, and for each symbol the
	 * table of the symbol after it. */
	hcode pk[WLZ_HUF_MAX_TABLES][256];
	const hcode *nx[256];
	for (unsigned t = 0; t < T; t++)
		for (unsigned x = 0; x < 256; x++)
			pk[t][x] = (hcode){(uint16_t)code[t][x], cl[t][x]};
	for (unsigned x = 0; x < 256; x++)
		nx[x] = pk[grp[x]];
	const uint8_t *end = dst + cap;
	const code_fn run = pick_code();
	for (size_t g = 0; g < nseg; g++) {
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		uint8_t *start = p;
		if (!(p = run(src + g * seg, m, p, end, (const hcode(*)[256])pk, nx)))
			return 0;
		wlz_wr32(sizes + 4 * g, (uint32_t)(p - start));
	}
	return (size_t)(p - dst);
}

size_t wlz_huf_encode(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables, uint8_t *dst,
		      size_t cap, void *work)
{
	return wlz_huf_encode2(src, n, seg_log, max_tables, max_tables, WLZ_HUF_CLUSTER_ITER, dst, cap, work);
}

size_t wlz_huf_encode2(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables, unsigned more_tables,
		       unsigned iters, uint8_t *dst, size_t cap, void *work)
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
			if (a >= b)
				continue;
			cnt[START][s[a]]++;
			/* A pair's count sits at its two bytes read big-endian:
			 * one 16-bit load a symbol. */
			uint32_t *const pair = cnt[0];
			size_t j = a + 1;
			for (; j + 4 <= b; j += 4) {
				pair[__builtin_bswap16(wlz_rd16(s + j - 1))]++;
				pair[__builtin_bswap16(wlz_rd16(s + j))]++;
				pair[__builtin_bswap16(wlz_rd16(s + j + 1))]++;
				pair[__builtin_bswap16(wlz_rd16(s + j + 2))]++;
			}
			for (; j < b; j++)
				cnt[s[j - 1]][s[j]]++;
		}
	}
	/* Each context's total, and each symbol's over the contexts seen (a
	 * row's total fits 32 bits: n does). */
	uint64_t tot[NCTX];
	uint32_t all[256] = {0};
	for (unsigned c = 0; c < NCTX; c++) {
		uint32_t t = 0;
		for (unsigned x = 0; x < 256; x++)
			t += cnt[c][x];
		tot[c] = t;
		if (t)
			for (unsigned x = 0; x < 256; x++)
				all[x] += cnt[c][x];
	}
	if (more_tables > WLZ_HUF_MAX_TABLES)
		more_tables = WLZ_HUF_MAX_TABLES;
	const size_t r = encode_counted(src, n, seg_log, max_tables, more_tables, iters, dst, cap, (const uint32_t(*)[256])cnt, tot, all,
					(wlz_huf_cluster_work *)(cnt + NCTX));
	/* The scratch goes back zeroed: only the contexts seen have counts. */
	if (work) {
		for (unsigned c = 0; c < NCTX; c++)
			if (tot[c])
				memset(cnt[c], 0, sizeof(cnt[c]));
	} else
		free(cnt);
	return r;
}
