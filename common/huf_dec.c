/*
 * huf_dec.c - the Huffman part coder's decoder (layout in huf.h).
 *
 * Lanes run eight at a time so that eight table-lookup chains overlap;
 * each step reads 64 bits at the lane's bit position, enough for five
 * codes of at most 10 bits, so the loop has no refill branch
 * (huf_lanes_impl.h, built for the baseline and for BMI2).  The fast
 * loop runs only while every read stays inside the body and every lane
 * has a whole step of symbols left; the tail of each lane is decoded one
 * symbol at a time with reads bounded by its own bytes.
 */
#include <string.h>
#include "common/huf.h"

#define MB WLZ_HUF_MAX_BITS
#define MASK (WLZ_HUF_TAB_SIZE - 1)

static wlz_error bad(const char *what)
{
	return wlz_fail(WLZ_ERR_BAD_STREAM, "huf part: %s", what);
}

static unsigned nibble(const uint8_t *p, size_t i)
{
	return p[i / 2] >> (4 * (i & 1)) & 15;
}

/* The tables' nibbles of a body with T tables and k symbols. */
static size_t table_nibbles(unsigned T, unsigned k)
{
	return (T > 1 ? k : 0) + (size_t)T * k;
}

size_t wlz_huf_head_size(const uint8_t src[34], size_t n)
{
	const unsigned seg_log = src[0], T = src[1];
	if (seg_log < WLZ_HUF_SEG_MIN || seg_log > WLZ_HUF_SEG_MAX || T < 1 || T > WLZ_HUF_MAX_TABLES)
		return 0;
	/* (the bitmap's bits counted a word at a time: the baseline has no
	 * popcnt instruction, and __builtin_popcount calls a function) */
	unsigned k = 0;
	for (unsigned i = 0; i < 4; i++) {
		uint64_t x = wlz_rd64(src + 2 + 8 * i);
		x -= x >> 1 & 0x5555555555555555ull;
		x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
		x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
		k += (unsigned)((x * 0x0101010101010101ull) >> 56);
	}
	return 34 + (table_nibbles(T, k) + 1) / 2 + 4 * ((n + ((size_t)1 << seg_log) - 1) >> seg_log);
}

wlz_error wlz_huf_read_codes(const uint8_t *src, size_t csize, wlz_huf_codes *c)
{
	if (csize < 34)
		return bad("header truncated");
	const unsigned seg_log = src[0], T = src[1];
	if (seg_log < WLZ_HUF_SEG_MIN || seg_log > WLZ_HUF_SEG_MAX)
		return bad("bad segment size");
	if (T < 1 || T > WLZ_HUF_MAX_TABLES)
		return bad("bad table count");
	uint8_t *const sym = c->sym;
	unsigned k = 0;
	for (unsigned s = 0; s < 256; s++)
		if (src[2 + s / 8] >> (s & 7) & 1)
			sym[k++] = (uint8_t)s;
	if (k < 2)
		return bad("fewer than two symbols");
	const size_t nib = table_nibbles(T, k), hdr = 34 + (nib + 1) / 2;
	if (csize < hdr)
		return bad("tables truncated");
	const uint8_t *q = src + 34;
	if ((nib & 1) && q[nib / 2] >> 4)
		return bad("tables' padding is not zero");
	uint8_t next[256] = {0}, coded[256] = {0};
	size_t ni = 0;
	if (T > 1)
		for (unsigned i = 0; i < k; i++) {
			next[sym[i]] = (uint8_t)nibble(q, ni++);
			if (next[sym[i]] >= T)
				return bad("a symbol names a missing table");
		}
	memset(c->code, 0, (size_t)T * 256);
	for (unsigned ti = 0; ti < T; ti++) {
		uint8_t *code = c->code + (size_t)ti * 256;
		uint32_t kraft = 0;
		unsigned kt = 0, only = 0;
		for (unsigned i = 0; i < k; i++) {
			const unsigned l = nibble(q, ni++);
			if (l > MB)
				return bad("code length over 10");
			if (l) {
				code[sym[i]] = (uint8_t)(l | next[sym[i]] << 4), kraft += 1u << (MB - l);
				kt++, only = sym[i], coded[sym[i]] = 1;
			}
		}
		if (kt == 0)
			return bad("a table without symbols");
		if (kt == 1 && (code[only] & 15) != 1)
			return bad("a one-symbol table's length is not 1");
		if (kt > 1 && kraft != 1u << MB)
			return bad("a code is not complete");
	}
	for (unsigned i = 0; i < k; i++)
		if (!coded[sym[i]])
			return bad("a symbol without a code");
	c->seg_log = seg_log;
	c->ntables = T;
	c->hdr = hdr;
	c->nsym = k;
	return WLZ_OK;
}

/* One table's lookup entries: canonical codes (as wlz_huf_canonical gives
 * them) over the present symbols only, each code's entry repeated for
 * every value of the bits after it.  A table is built for every few
 * thousand symbols decoded, so it is built by doubling (as zlib's inflate
 * replicates its entries): once the first 2^l entries hold every code of
 * at most l bits, two copies of them hold those for l + 1 bits but for
 * the codes of exactly l + 1 bits, one entry each.  Wide copies and one
 * store a code, where writing each code's entries apart took a store an
 * entry. */
static void build_table(const wlz_huf_codes *c, const uint8_t *code, uint32_t *tab)
{
	unsigned nl[MB + 1] = {0};
	for (unsigned i = 0; i < c->nsym; i++)
		nl[code[c->sym[i]] & 15]++;
	if (c->nsym - nl[0] == 1) {
		/* (one symbol: no bits read) */
		unsigned only = 0;
		for (unsigned i = 0; i < c->nsym; i++)
			if (code[c->sym[i]] & 15)
				only = c->sym[i];
		for (unsigned v = 0; v < WLZ_HUF_TAB_SIZE; v++)
			tab[v] = WLZ_HUF_ENTRY(only, 0, code[only] >> 4);
		return;
	}
	/* The symbols by length, each length's in increasing order. */
	uint8_t bylen[256];
	unsigned at[MB + 2];
	at[1] = 0;
	for (unsigned b = 1; b <= MB; b++)
		at[b + 1] = at[b] + nl[b];
	for (unsigned i = 0; i < c->nsym; i++) {
		const unsigned l = code[c->sym[i]] & 15;
		if (l)
			bylen[at[l]++] = c->sym[i];
	}
	/* (at[l] is now where length l's symbols end) */
	tab[0] = 0;
	uint32_t first = 0;       /* the first code of length l */
	for (unsigned l = 1, k = 0; l <= MB; l++) {
		memcpy(tab + (1u << (l - 1)), tab, sizeof(*tab) << (l - 1));
		for (uint32_t v = first; k < at[l]; k++, v++) {
			const unsigned s = bylen[k];
			tab[wlz_huf_rev_bits(v, l)] = WLZ_HUF_ENTRY(s, l, code[s] >> 4);
		}
		first = (first + nl[l]) << 1;
	}
}

wlz_error wlz_huf_read_tables(const uint8_t *src, size_t csize, wlz_huf_tables *t)
{
	/* (the codes kept beside the tables: one scratch, no stack) */
	wlz_huf_codes *c = &t->codes;
	WLZ_TRY(wlz_huf_read_codes(src, csize, c));
	for (unsigned ti = 0; ti < c->ntables; ti++)
		build_table(c, c->code + (size_t)ti * 256, t->tab + (size_t)ti * WLZ_HUF_TAB_SIZE);
	t->seg_log = c->seg_log;
	t->ntables = c->ntables;
	t->hdr = c->hdr;
	return WLZ_OK;
}

#include "common/huf_lanes.h"

#define HUF_RUN_GROUP run_group_generic
#define HUF_LINKAGE static
#include "common/huf_lanes_impl.h"
#undef HUF_RUN_GROUP

typedef void (*run_group_fn)(const uint32_t *tab, wlz_huf_lstate *L, const uint8_t *base, const uint8_t *lim,
			     unsigned ntables);

/* The lane loop built for this CPU (BMI2's shifts by a register take one
 * micro-op, the baseline's three). */
static run_group_fn pick_run_group(void)
{
#ifdef WLZ_HAVE_BMI2
	if (__builtin_cpu_supports("bmi2"))
		return wlz_huf_run_group_bmi2;
#endif
	return run_group_generic;
}

/* The rest of a lane, reading only its own bytes (zeros past them). */
static int finish_lane(const uint32_t *tab, wlz_huf_lstate *L)
{
	const uint64_t nbits = 8 * (uint64_t)L->size;
	for (; L->o < L->end;) {
		const size_t b = (size_t)(L->pos >> 3);
		uint32_t w = 0;
		for (unsigned i = 0; i < 3 && b + i < L->size; i++)
			w |= (uint32_t)L->p[b + i] << 8 * i;
		const uint32_t e = tab[L->t + ((w >> (L->pos & 7)) & MASK)];
		*L->o++ = (uint8_t)e;
		L->pos += e >> 8 & 15;
		L->t = e >> 16;
		if (L->pos > nbits)
			return 0;
	}
	/* Used exactly: no whole byte left over, padding bits zero. */
	if (L->pos > nbits || (L->pos + 7) / 8 != L->size)
		return 0;
	return !(L->pos & 7) || !(L->p[L->size - 1] >> (L->pos & 7));
}

static int decode_segment(run_group_fn run_group, const uint32_t *tab, unsigned ntables, const uint8_t *seg, size_t sz,
			  const uint8_t *lim, uint8_t *out, size_t m)
{
	if (sz < WLZ_HUF_LANE_HDR)
		return 0;
	wlz_huf_lstate L[WLZ_HUF_LANES];
	size_t at = WLZ_HUF_LANE_HDR;
	for (unsigned l = 0; l < WLZ_HUF_LANES; l++) {
		size_t a, b;
		wlz_huf_lane(m, l, &a, &b);
		const size_t ls = l + 1 < WLZ_HUF_LANES ? wlz_rd16(seg + 2 * l) : sz - at;
		if (ls > sz - at)
			return 0;
		L[l] = (wlz_huf_lstate){seg + at, ls, 0, 0, out + a, out + b};
		at += ls;
	}
	for (unsigned g = 0; g < WLZ_HUF_LANES; g += WLZ_HUF_GROUP)
		run_group(tab, L + g, seg, lim, ntables);
	for (unsigned l = 0; l < WLZ_HUF_LANES; l++)
		if (!finish_lane(tab, &L[l]))
			return 0;
	return 1;
}

wlz_error wlz_huf_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t n, wlz_huf_tables *t)
{
	WLZ_TRY(wlz_huf_read_tables(src, csize, t));
	const size_t seg = (size_t)1 << t->seg_log, nseg = (n + seg - 1) >> t->seg_log;
	size_t at = t->hdr;
	if (n == 0 || (csize - at) / 4 < nseg)
		return bad("segment list truncated");
	const uint8_t *sizes = src + at;
	const run_group_fn run_group = pick_run_group();
	at += 4 * nseg;
	for (size_t g = 0; g < nseg; g++) {
		const size_t sz = wlz_rd32(sizes + 4 * g), m = g + 1 < nseg ? seg : n - g * seg;
		if (sz > csize - at || !decode_segment(run_group, t->tab, t->ntables, src + at, sz, src + csize, dst + g * seg, m))
			return wlz_fail(WLZ_ERR_BAD_STREAM, "huf part: segment %zu does not decode", g);
		at += sz;
	}
	if (at != csize)
		return bad("bytes after the last segment");
	return WLZ_OK;
}
