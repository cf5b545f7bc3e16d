/*
 * parse.c - block parsing: the level table, the parser's life cycle, the
 * block's literal costs, and the choice of parse: fast (parse_fast.c,
 * levels 1 to 4), lazy (parse_lazy.c) or price-based (parse_opt.c); far
 * matches come from parse_far.c.
 *
 * All choices go through one cost model in 1/16 bit units: a literal costs
 * what its byte costs in the block's order-0 statistics; a match costs its
 * command byte, a price for its decode time (MATCH_BASE), and the bits its
 * distance takes (a repeat of the previous distance is nearly free).  A
 * match is only taken when it is cheaper than the literals it replaces,
 * which is what keeps far references on DNA, where literals cost ~2 bits,
 * from costing more than they save.
 */
#include <math.h>
#include <stdlib.h>
#include "encoder/parse_impl.h"

/* Level table: low levels fast (hash tables, no chains), middle lazy,
 * high levels price-based.  Levels 1 to 3 look up far anchors sparsely
 * (one in 16 to 64 bytes): the near tables and the entropy coder give most
 * of their ratio, and the far pass costs in proportion to its anchors. */
static const wlz_lparams wlz_levels[WLZ_LEVEL_MAX + 1] = {
	/*     slen sdep  near     llen ldep lazy opt nice skip zl rate wlog fast cheap hufit llog slog */
	[1] = { 8,  1,   1 << 16,  16,  2,  0,  0,  32,  5,  1,  64, 27, 1,  1,    2 },
	[2] = { 5,  1,   1 << 17,  16,  2,  1,  0,  32,  6,  1,  64, 27, 2,  1,    0 },
	[3] = { 5,  2,   1 << 18,  16,  2,  1,  0,  32,  5,  5,  16, 28, 2,  1,    0 },
	[4] = { 6,  2,   1 << 18,  12,  8,  1,  0,  64,  5,  5,  8,  28, 2,  1,    0,    19,  18 },
	[5] = { 5,  16,  1 << 19,  12,  4,  2,  0,  96,  0,  5,  8,  28, 0,  0,    0 },
	[6] = { 5,  24,  1 << 19,  12,  4,  2,  0,  128, 0,  6,  8,  28, 0,  0,    0 },
	[7] = { 5,  32,  1 << 20,  12,  4,  2,  0,  128, 0,  7,  4,  28, 0,  0,    0 },
	[8] = { 5,  48,  1 << 20,  12,  4,  2,  0,  192, 0,  8,  4,  28, 0,  0,    0 },
	[9] = { 5,  64,  1 << 20,  12,  4,  2,  0,  256, 0,  9,  4,  28, 0,  0,    0 },
	[10] = { 5, 16,  1 << 20,  12,  4,  0,  1,  48,  0,  12, 4,  30, 0,  0,    0 },
	[11] = { 5, 20,  1 << 20,  12,  4,  0,  1,  64,  0,  13, 4,  30, 0,  0,    0 },
	[12] = { 5, 24,  1 << 20,  12,  4,  0,  1,  64,  0,  14, 4,  30, 0,  0,    0 },
	[13] = { 5, 32,  1 << 21,  12,  4,  0,  1,  96,  0,  15, 4,  30, 0,  0,    0 },
	[14] = { 5, 40,  1 << 21,  12,  4,  0,  1,  96,  0,  16, 4,  30, 0,  0,    0 },
	[15] = { 5, 48,  1 << 21,  12,  4,  0,  1,  128, 0,  17, 2,  30, 0,  0,    0 },
	[16] = { 5, 64,  1 << 22,  12,  4,  0,  2,  128, 0,  18, 2,  30, 0,  0,    0 },
	[17] = { 5, 80,  1 << 22,  12,  4,  0,  2,  192, 0,  19, 2,  30, 0,  0,    0 },
	[18] = { 5, 96,  1 << 22,  12,  4,  0,  2,  256, 0,  19, 2,  30, 0,  0,    0 },
	[19] = { 5, 256, 1 << 23,  12,  4,  0,  5,  256, 0,  19, 1,  30, 0,  0,    0 },
};

const wlz_lparams *wlz_level_params(int level)
{
	if (level < WLZ_LEVEL_MIN || level > WLZ_LEVEL_MAX)
		return NULL;
	return &wlz_levels[level];
}

const wlz_lparams *wlz_level_params_for(int level, uint64_t size)
{
	/* Level 4 is level 3 with deeper far buckets, far anchors twice as
	 * dense and larger near tables: on a small input that costs seconds
	 * at most, and the archive is smaller by some percent
	 * (bench/RESULTS.md).  Its near table hashes 6 bytes: on text, 5-byte
	 * hits mostly failed their compares or gave short matches; and it has
	 * twice the entries in 2 ways rather than 4, fewer compares a lookup
	 * for about the same reach.  The time saved buys the far work, which
	 * gains more. */
	if (level == WLZ_LEVEL_DEFAULT && size <= WLZ_SMALL_INPUT)
		level = 4;
	return wlz_level_params(level);
}


/* Under a depth limit a byte of level k is only a source while k < D, and
 * the levels a parse creates are the sources it has left later on.  So a
 * candidate pays for its level: each level costs about 20/D bits, which
 * measured best at D = 2, 10 and 16 on text and FASTQ (3 to 12% smaller than
 * cutting alone). */
void wlz_parser_set_depth(wlz_parser *ps, uint8_t *map, int depth)
{
	ps->map = depth >= 0 ? map : NULL;
	ps->max_map = depth >= 0 ? (unsigned)depth : 255;
	ps->lpen = depth > 0 ? (depth > 1 ? 320 / depth : 256) : 0;
}


void wlz_parser_set_parallel(wlz_parser *ps, int parallel, int diag)
{
	ps->gap = parallel > 1 ? (uint64_t)parallel - 1 : 0;
	ps->diag = diag ? WLZ_DIAG_BLOCKS : 0;
}

void wlz_parser_set_far_done(wlz_parser *ps, void (*fn)(void *), void *arg)
{
	ps->far_done = fn;
	ps->far_arg = arg;
}

wlz_error wlz_parser_set_flat(wlz_parser *ps, int flat)
{
	ps->flat = 0;
	if (flat && !ps->wmap) {
		ps->wmap = malloc((size_t)ps->bsize + 8);
		if (!ps->wmap)
			return WLZ_ERR_NOMEM;
	}
	ps->flat = flat;
	/* Priced: 2 bits, measured on FASTQ and text slices (SPEC.md,
	 * section 8); full: no chain is worth keeping. */
	ps->flat_pen = flat == 2 ? INT64_MAX / 4 : 32;
	return WLZ_OK;
}

wlz_parser *wlz_parser_create(const wlz_lparams *lp, uint32_t block_size)
{
	wlz_parser *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->lp = *lp;
	ps->bsize = block_size;
	ps->bshift = (unsigned)(block_size ? __builtin_ctz(block_size) : 0);
	if (block_size != (uint32_t)1 << ps->bshift) {
		free(ps);
		return NULL;  /* block sizes are powers of two */
	}
	ps->shead = malloc(sizeof(uint32_t) << SHORT_HLOG);
	uint64_t ring = (uint64_t)1 << 16;
	while (ring < lp->near)
		ring <<= 1;
	ps->rmask = ring - 1;
	ps->sring = malloc(sizeof(uint32_t) * (size_t)ring);
	ps->tok_cap = block_size / WLZ_MINMATCH + 1;
	ps->tok = malloc(sizeof(wlz_token) * ps->tok_cap);
	int ok = ps->shead && ps->sring && ps->tok && wlz_parse_fast_init(ps) == WLZ_OK;
	if (lp->optimal) {
		size_t m = (size_t)block_size + 1;
		ps->price = malloc(sizeof(uint32_t) * m);
		ps->olen = malloc(sizeof(uint32_t) * m);
		ps->odist = malloc(sizeof(uint64_t) * m);
		ps->orep = malloc(sizeof(uint64_t) * m);
		ps->lrun = malloc(sizeof(uint32_t) * m);
		ps->cstart = malloc(sizeof(uint32_t) * (m + 1));
		ok = ok && ps->price && ps->olen && ps->odist && ps->orep && ps->lrun && ps->cstart;
	}
	if (!ok) {
		wlz_parser_free(ps);
		return NULL;
	}
	return ps;
}

void wlz_parser_free(wlz_parser *ps)
{
	if (!ps)
		return;
	free(ps->shead);
	free(ps->sring);
	free(ps->wmap);
	free(ps->tok);
	free(ps->price);
	free(ps->olen);
	free(ps->odist);
	free(ps->orep);
	free(ps->lrun);
	free(ps->cstart);
	free(ps->clen);
	free(ps->cdist);
	free(ps->fst);
	free(ps->flt);
	free(ps->fm);
	free(ps);
}

void wlz_parser_release(wlz_parser *ps)
{
	if (!ps)
		return;
	const size_t m = (size_t)ps->bsize + 1;
	wlz_release_pages(ps->shead, sizeof(uint32_t) << SHORT_HLOG);
	wlz_release_pages(ps->sring, sizeof(uint32_t) * ((size_t)ps->rmask + 1));
	wlz_release_pages(ps->tok, sizeof(wlz_token) * ps->tok_cap);
	/* (buffers the level does not use are NULL: nothing to give back) */
	wlz_release_pages(ps->price, sizeof(uint32_t) * m);
	wlz_release_pages(ps->olen, sizeof(uint32_t) * m);
	wlz_release_pages(ps->odist, sizeof(uint64_t) * m);
	wlz_release_pages(ps->orep, sizeof(uint64_t) * m);
	wlz_release_pages(ps->lrun, sizeof(uint32_t) * m);
	wlz_release_pages(ps->cstart, sizeof(uint32_t) * (m + 1));
	wlz_release_pages(ps->fm, sizeof(*ps->fm) * ps->fm_cap);
	wlz_release_pages(ps->wmap, (size_t)ps->bsize + 8);
	wlz_parse_fast_release(ps);
}

/* A mask of the first n bytes of a little-endian word, 4 <= n <= 8. */
static uint64_t byte_mask(uint64_t n)
{
	n = n < 4 ? 4 : n;
	return n >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * n)) - 1;
}

void wlz_parse_build_costs(wlz_parser *ps)
{
	/* Four tables, summed after: runs of one byte value (FASTQ is full of
	 * them) would otherwise wait on the same counter. */
	uint32_t c4[4][256] = {{0}}, cnt[256];
	const uint8_t *s = ps->src + ps->bstart;
	const uint64_t bytes = ps->bend - ps->bstart;
	/* The fast parse prices by the mean alone: there, every 4th group of
	 * 4 bytes estimates it (a large block's statistics barely move), and
	 * every 16th at level 1 (fast = 1), which its estimate of the context
	 * entropy below samples as sparsely: instructions -3.9% on 20 MB of
	 * Illumina, -1.6% on 8 MB of gcide; archives -0.04% to -0.19% on
	 * Illumina, +0.035% on CLDR. */
	const unsigned fstep = ps->lp.fast == 1 ? 64 : 16;
	const uint64_t stride = ps->lp.fast && bytes > 65536 ? fstep : 4;
	uint64_t len = 0, i = 0;
	for (; i + 4 <= bytes; i += stride, len += 4) {
		c4[0][s[i]]++;
		c4[1][s[i + 1]]++;
		c4[2][s[i + 2]]++;
		c4[3][s[i + 3]]++;
	}
	for (i = bytes & ~(uint64_t)3; stride == 4 && i < bytes; i++, len++)
		c4[0][s[i]]++;
	for (int b = 0; b < 256; b++)
		cnt[b] = c4[0][b] + c4[1][b] + c4[2][b] + c4[3][b];
	double total = 0;
	for (int b = 0; b < 256; b++) {
		double bits = cnt[b] ? log2((double)len / cnt[b]) : log2((double)len + 1) + 2;
		if (bits < 0.5)
			bits = 0.5;  /* the entropy stage cannot do much better */
		ps->litcost[b] = (uint32_t)(bits * 16 + 0.5);
		total += (double)cnt[b] * bits;
	}
	double avg = len ? total / (double)len : 8;
	/* Codec 2 picks a literal's table by the byte before it (SPEC.md,
	 * section 5.2): a literal costs about the block's entropy given the
	 * previous byte's high nibble, below order 0 on FASTQ qualities.
	 * Pricing matches against order 0 takes matches that cost more than
	 * the literals they replace. */
	if (len > 4096) {
		/* (every 4th byte, every 16th at the fast levels, 64th at level
		 * 1: an estimate) */
		uint32_t c[16][256] = {{0}};
		const uint64_t m = wlz_ctx_count(ps->src, ps->bstart + 1, ps->bend, ps->lp.fast ? fstep : 4, c);
		double h = 0;
		for (int x = 0; x < 16; x++) {
			uint64_t t = 0;
			for (int b = 0; b < 256; b++)
				t += c[x][b];
			for (int b = 0; b < 256; b++)
				if (c[x][b])
					h += (double)c[x][b] * log2((double)t / c[x][b]);
		}
		const double ha = h / (double)m;
		/* Only where the previous byte predicts much (FASTQ qualities:
		 * 17 to 28% below order 0): text's literals are short runs whose
		 * stream neighbours are not their source neighbours (gcide: 11%
		 * below, and pricing by it made archives 1.3% larger). */
		if (ha < 0.85 * avg)
			avg = ha;
	}
	ps->avglit = (uint32_t)(avg * 16 + 0.5);
	if (ps->avglit < 8)
		ps->avglit = 8;
	/* A match of length L at distance d gains at most L * avglit - its
	 * cost at d, and the cheapest d of a power-of-two range is its
	 * lowest, so below need[h] + 1 bytes no d in [2^h, 2^(h+1)) gains:
	 * the chains test byte need[h] first (may_gain). */
	for (unsigned h = 0; h < 64; h++) {
		uint32_t k = match_cost(WLZ_MINMATCH, (uint64_t)1 << h, 0) / ps->avglit;
		ps->need[h] = (uint8_t)(k < 255 ? k : 255);
	}
	ps->need_rep = match_cost(WLZ_MINMATCH, 1, 1) / ps->avglit;
	ps->need_mask = byte_mask(ps->need[0] + 1u);
	ps->rep_mask = byte_mask(ps->need_rep + 1);
}


void wlz_parser_set_anchors(wlz_parser *ps, const wlz_anchor *a, size_t n)
{
	ps->anc = a;
	ps->nanc = n;
}

/* The view of a block's parse: ends, gap, near window, the last position
 * searched; nothing of another block's parse kept. */
static void set_block(wlz_parser *ps, const wlz_view *v, uint64_t bstart, uint64_t bend)
{
	ps->src = v->src;
	ps->n = v->n;
	ps->v = v;
	ps->bstart = ps->pstart = bstart;
	ps->gap_lo = bstart > ps->gap * ps->bsize ? bstart - ps->gap * ps->bsize : 0;
	ps->bend = bend;
	/* Near candidates stay inside the window from every position of the
	 * block. */
	const uint64_t near = ps->lp.near < v->window - ps->bsize ? ps->lp.near : v->window - ps->bsize;
	ps->ws = bstart > near ? bstart - near : 0;
	/* Hashing reads 16 bytes ahead; the last 16 bytes are never searched. */
	uint64_t safe = v->n >= 16 ? v->n - 16 : 0;
	ps->pend = bend < safe ? bend : safe;
	if (ps->pend < bstart)
		ps->pend = bstart;
	ps->nw = 0;
	ps->ak = 0;
	ps->nfm = 0;  /* (no far matches of another block) */
	ps->fk = 0;
}

int wlz_parse_can_piece(const wlz_parser *ps)
{
	return ps->lp.fast && ps->flat < 2 && !ps->map;
}

wlz_error wlz_parse_piece(wlz_parser *ps, const wlz_view *v, uint64_t bstart, uint64_t bend, uint64_t from,
			  uint64_t to, const wlz_token **tok, size_t *ntok)
{
	if (bend - bstart > ps->bsize || v->window < ps->bsize || !wlz_parse_can_piece(ps) || from < bstart ||
	    to < from || to > bend)
		return WLZ_ERR_INTERNAL;
	set_block(ps, v, bstart, bend);
	/* (the block's literal prices, as its whole parse has them) */
	wlz_parse_build_costs(ps);
	ps->cached_ws = ps->ws;
	ps->cached_bend = bend;
	ps->pstart = from;
	ps->bend = to;
	if (ps->pend > to)
		ps->pend = to;
	if (ps->pend < from)
		ps->pend = from;
	*tok = ps->tok;
	return wlz_parse_fast(ps, ntok);
}

wlz_error wlz_parse_block(wlz_parser *ps, const wlz_view *v, uint64_t bstart, uint64_t bend,
			  int lazy_only, const wlz_token **tok, size_t *ntok)
{
	if (bend - bstart > ps->bsize || v->window < ps->bsize)
		return WLZ_ERR_INTERNAL;
	set_block(ps, v, bstart, bend);
	if (!lazy_only || !ps->lp.optimal || ps->ws != ps->cached_ws || bend != ps->cached_bend) {
		wlz_parse_build_costs(ps);
		ps->cached_ws = ps->ws;
		ps->cached_bend = bend;
	}
	if (ps->lp.fast && ps->flat < 2) {
		*tok = ps->tok;
		return wlz_parse_fast(ps, ntok);  /* (it does not flatten: no wmap) */
	}
	if (ps->flat)
		memset(ps->wmap, 0, bend - bstart);
	chain_start(ps);
	if (ps->lp.optimal && !lazy_only && !ps->map && ps->flat < 2) {
		ps->use_stats = 0;
		ps->pay_runs = 0;
		wlz_parse_ctx_costs(ps);
		WLZ_TRY(wlz_parse_optimal(ps, 0, ntok));
		if (ps->lp.optimal > 1) {
			for (unsigned pass = 1; pass < ps->lp.optimal; pass++) {
				wlz_parse_gather_stats(ps, ps->tok, *ntok);
				WLZ_TRY(wlz_parse_optimal(ps, 1, ntok));
			}
			wlz_parse_build_costs(ps);  /* the lazy second opinion uses the first-pass model */
		}
	} else if (ps->lp.optimal && !ps->map && ps->flat < 2) {
		/* The second opinion is greedy and skips through noise, as level 1
		 * does: on noisy data fewer matches code smaller. */
		wlz_lparams keep = ps->lp;
		ps->lp.lazy = 0;
		ps->lp.skip = wlz_levels[1].skip;
		ps->lp.cheap = wlz_levels[1].cheap;
		/* (at most 128 links: it wins on noisy data, where deeper
		 * chains find little) */
		if (ps->lp.short_depth > 128)
			ps->lp.short_depth = 128;
		WLZ_TRY(wlz_parse_far_prepass(ps));
		*ntok = wlz_parse_lazy(ps);
		ps->lp = keep;
	} else {
		if (!ps->map)
			WLZ_TRY(wlz_parse_far_prepass(ps));
		*ntok = wlz_parse_lazy(ps);
	}
	*tok = ps->tok;
	return WLZ_OK;
}
