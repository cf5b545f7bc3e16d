/*
 * parse.c - block parsing: greedy, lazy and price-based (optimal) parses
 * over the two hash chains of matchfind.h.
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
#include "encoder/parse.h"
#include "format/format.h"

/* Level table: low levels greedy, middle lazy, high levels price-based. */
static const wlz_lparams wlz_levels[WLZ_LEVEL_MAX + 1] = {
	/*     slen sdep  near     llen ldep lazy opt nice skip zl rate wlog */
	[1] = { 5,  1,   1 << 16,  16,  2,  0,  0,  32,  5,  1,  8,  27 },
	[2] = { 5,  2,   1 << 17,  16,  3,  0,  0,  48,  6,  1,  8,  27 },
	[3] = { 5,  8,   1 << 18,  12,  4,  1,  0,  64,  0,  3,  4,  28 },
	[4] = { 5,  8,   1 << 18,  12,  4,  1,  0,  64,  0,  4,  8,  28 },
	[5] = { 5,  16,  1 << 19,  12,  4,  2,  0,  96,  0,  5,  8,  28 },
	[6] = { 5,  24,  1 << 19,  12,  4,  2,  0,  128, 0,  6,  8,  28 },
	[7] = { 4,  32,  1 << 20,  12,  4,  2,  0,  128, 0,  7,  4,  28 },
	[8] = { 4,  48,  1 << 20,  12,  4,  2,  0,  192, 0,  8,  4,  28 },
	[9] = { 4,  64,  1 << 20,  12,  4,  2,  0,  256, 0,  9,  4,  28 },
	[10] = { 4, 16,  1 << 20,  12,  4,  0,  1,  48,  0,  12, 4,  30 },
	[11] = { 4, 20,  1 << 20,  12,  4,  0,  1,  64,  0,  13, 4,  30 },
	[12] = { 4, 24,  1 << 20,  12,  4,  0,  1,  64,  0,  14, 4,  30 },
	[13] = { 4, 32,  1 << 21,  12,  4,  0,  1,  96,  0,  15, 4,  30 },
	[14] = { 4, 40,  1 << 21,  12,  4,  0,  1,  96,  0,  16, 4,  30 },
	[15] = { 4, 48,  1 << 21,  12,  4,  0,  1,  128, 0,  17, 2,  30 },
	[16] = { 4, 64,  1 << 22,  12,  4,  0,  2,  128, 0,  18, 2,  30 },
	[17] = { 4, 80,  1 << 22,  12,  4,  0,  2,  192, 0,  19, 2,  30 },
	[18] = { 4, 96,  1 << 22,  12,  4,  0,  2,  256, 0,  19, 2,  30 },
	[19] = { 4, 128, 1 << 23,  12,  4,  0,  3,  256, 0,  19, 1,  30 },
};

const wlz_lparams *wlz_level_params(int level)
{
	if (level < WLZ_LEVEL_MIN || level > WLZ_LEVEL_MAX)
		return NULL;
	return &wlz_levels[level];
}

/* A match's base price, 1/16 bits: its command byte, the split of a
 * literal run, and its decode time.  Each token costs about ten literals'
 * time to decode, so pricing it above its bits trades a little size for
 * fewer tokens: 15 bits against the 9 its bits alone measured best at
 * level 3 gave 17% fewer tokens and 2 to 12% faster decoding at 1, 2 and
 * 16 threads, at -0.1% to +2.9% in size (FASTQ, text, XML; bench/host).
 * More positions are searched then; may_gain keeps that cheap. */
#ifndef MATCH_BASE
#define MATCH_BASE (16 * 15)
#endif

#define SHORT_HLOG 17
#define INF_PRICE 0x7FFFFFFFu
#ifndef OFF_HEAD_BITS
#define OFF_HEAD_BITS 5
#endif

struct wlz_parser {
	wlz_lparams lp;
	uint32_t bsize;
	uint64_t gap;           /* no sources in the gap blocks before this one */
	uint64_t gap_lo;        /* where the gap before the current block starts */
	/* Near chain, filled as the parse goes (as zstd's): the most recent
	 * position of each hash, and each position's previous one in a ring
	 * of the last rmask + 1 positions, small enough for the core's caches
	 * (a chain over the whole block missed them on every link). */
	uint32_t *shead;        /* (1 << SHORT_HLOG) entries: position + 1, 0 = none */
	uint32_t *sring;        /* rmask + 1 entries: the previous position + 1 */
	uint64_t rmask;
	uint64_t ins;           /* positions before this are in the chain */
	wlz_token *tok;
	size_t tok_cap;
	uint32_t litcost[256];  /* 1/16 bits */
	uint32_t avglit;
	uint8_t need[64];       /* by highbit(dist): a shorter match cannot gain */
	/* price-based parse */
	int use_stats;          /* second pass: prices from the first parse */
	uint32_t cmdcost[256];  /* 1/16 bits per cmd byte */
	uint32_t headcost[256]; /* 1/16 bits per offset head byte */
	uint32_t *lrun;         /* literal run length on the best path to i */
	/* Chain candidates of the first pass, reused by later passes (only
	 * the repeat candidate depends on the path). */
	uint32_t *cstart;       /* candidates of position i: [cstart[i], cstart[i+1]) */
	uint32_t *clen;
	uint64_t *cdist;
	size_t ccap;
	uint32_t *price;
	uint32_t *olen;
	uint64_t *odist;
	uint64_t *orep;
	/* per-call view */
	const uint8_t *src;
	uint64_t n, ws, bstart, bend, pend;
	uint64_t cached_ws, cached_bend;  /* costs already built for this block */
	uint8_t *map;           /* depth-limited parsing: level map, else NULL */
	int flat;               /* price reading bytes a match of this block wrote */
	int64_t flat_pen;       /* that price, 1/16 bits */
	uint64_t *wstart, *wend;/* flat: this block's matches so far, in order */
	size_t nw;
	unsigned max_map;       /* highest map value a source byte may have */
	int64_t lpen;           /* price of one level of a candidate, 1/16 bits */
	const wlz_view *v;
	const wlz_anchor *anc;  /* the block's far-table anchors, by position */
	size_t nanc, ak;        /* ... and the next one a search may be at */
};

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

static inline int64_t level_price(const wlz_parser *ps, uint64_t L, unsigned lv)
{
	return lv && L ? ps->lpen * lv : 0;
}

/* Parallel decoding (SPEC 8): the decoder runs neighbouring blocks at the
 * same time, block b-k about k/16 of a block ahead of block b.  The gap
 * blocks just before p's block are not read at all: their bytes sit in the
 * caches of other cores, which made the reads slow even when no wait was
 * needed.  A source in one of the WLZ_DIAG_BLOCKS blocks before p's block is
 * only used up to the point that block has likely reached: p's own offset
 * plus k/16 of a block.  Bytes beyond it would make the decoder wait. */
#ifndef WLZ_DIAG_SHIFT
#define WLZ_DIAG_SHIFT 4
#endif
#ifndef WLZ_DIAG_BLOCKS
#define WLZ_DIAG_BLOCKS 64
#endif
static inline uint64_t diag_room(const wlz_parser *ps, uint64_t p, uint64_t c)
{
	if (c >= ps->bstart)
		return UINT64_MAX;
	const uint64_t bs = ps->bsize, k = ps->bstart / bs - c / bs;
	if (k <= ps->gap)
		return 0;
	/* Nor may a source run on into the gap (c < gap_lo here). */
	uint64_t room = ps->gap ? ps->gap_lo - c : UINT64_MAX;
	if (k <= WLZ_DIAG_BLOCKS) {
		const uint64_t reach = (p - ps->bstart) + k * (bs >> WLZ_DIAG_SHIFT), coff = c % bs;
		const uint64_t d = reach > coff ? reach - coff : 0;
		room = d < room ? d : room;
	}
	return room;
}

static inline uint64_t diag_cut(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t L)
{
	uint64_t room = diag_room(ps, p, c);
	return L < room ? L : room;
}

/* The match length from c at p, at most limit, cut by diag_cut; bytes past
 * the cut are not compared (on periodic data they run to the block end). */
static inline uint64_t diag_len(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t limit)
{
	uint64_t room = diag_room(ps, p, c);
	return wlz_match_len(ps->src + p, ps->src + c, limit < room ? limit : room);
}

/* A match from *c cut by diag_cut: on periodic data the same bytes lie
 * whole periods further back, maybe in a block the decoder has passed. */
static inline uint64_t diag_match(const wlz_parser *ps, uint64_t p, uint64_t *c, uint64_t limit)
{
	uint64_t room = diag_room(ps, p, *c);
	if (room >= limit)
		return wlz_match_len(ps->src + p, ps->src + *c, limit);
	uint64_t best = wlz_match_len(ps->src + p, ps->src + *c, room);
	if (best < room)
		return best;  /* ended before the cut */
	const uint64_t d = p - *c, floor = (uint64_t)ps->bsize * (WLZ_DIAG_BLOCKS + 1);
	uint64_t o = *c;
	for (int j = 0; j < 16 && o >= d && o + floor >= ps->bstart && p - (o - d) <= ps->v->window; j++) {
		o -= d;
		room = diag_room(ps, p, o);
		uint64_t lim = limit < room ? limit : room;
		if (lim <= best)
			continue;
		uint64_t L = wlz_match_len(ps->src + p, ps->src + o, lim);
		if (L > best) {
			best = L;
			*c = o;
			if (L < lim || lim == limit)
				break;  /* not cut: as long as it gets */
		}
	}
	return best;
}

/* Flat parsing: how much of a match of length L from c to p reads no byte
 * that a match of this block wrote (its own output, past p, is fine). */
static inline uint64_t flat_cut(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t L)
{
	if (!ps->flat || ps->nw == 0)
		return L;
	const uint64_t lo = c > ps->bstart ? c : ps->bstart, hi = c + L < p ? c + L : p;
	if (lo >= hi || hi <= ps->wstart[0])
		return L;
	const uint64_t f = wlz_first_covered(ps->wstart, ps->wend, ps->nw, lo, hi);
	return f < hi ? f - c : L;
}

/* Depth-limited parsing: how much of a match of length L from c to p may be
 * used without reading a byte of too high a level; *lvl gets the level of
 * what may be used. */
static inline uint64_t depth_cut(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t L, unsigned *lvl)
{
	uint64_t end = p - c < L ? p - c : L;  /* its own output adds no level */
	unsigned m = 0;
	for (uint64_t i = 0; i < end; i++) {
		if (ps->map[c + i] > ps->max_map) {
			*lvl = m;
			return i;
		}
		if (ps->map[c + i] > m)
			m = ps->map[c + i];
	}
	*lvl = m;
	return L;
}

void wlz_parser_set_parallel(wlz_parser *ps, int parallel)
{
	ps->gap = parallel > 1 ? (uint64_t)parallel - 1 : 0;
}

wlz_error wlz_parser_set_flat(wlz_parser *ps, int flat)
{
	ps->flat = 0;
	if (flat && !ps->wstart) {
		/* Every match is at least WLZ_MINMATCH bytes long. */
		size_t cap = ps->bsize / WLZ_MINMATCH + 1;
		ps->wstart = malloc(sizeof(uint64_t) * cap);
		ps->wend = malloc(sizeof(uint64_t) * cap);
		if (!ps->wstart || !ps->wend)
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
	ps->shead = malloc(sizeof(uint32_t) << SHORT_HLOG);
	uint64_t ring = (uint64_t)1 << 16;
	while (ring < lp->near)
		ring <<= 1;
	ps->rmask = ring - 1;
	ps->sring = malloc(sizeof(uint32_t) * (size_t)ring);
	ps->tok_cap = block_size / WLZ_MINMATCH + 1;
	ps->tok = malloc(sizeof(wlz_token) * ps->tok_cap);
	int ok = ps->shead && ps->sring && ps->tok;
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
	free(ps->wstart);
	free(ps->wend);
	free(ps->tok);
	free(ps->price);
	free(ps->olen);
	free(ps->odist);
	free(ps->orep);
	free(ps->lrun);
	free(ps->cstart);
	free(ps->clen);
	free(ps->cdist);
	free(ps);
}

static inline uint32_t match_cost(uint64_t len, uint64_t dist, int rep);

static void build_costs(wlz_parser *ps)
{
	uint32_t cnt[256] = {0};
	const uint8_t *s = ps->src + ps->bstart;
	uint64_t len = ps->bend - ps->bstart;
	for (uint64_t i = 0; i < len; i++)
		cnt[s[i]]++;
	double total = 0;
	for (int b = 0; b < 256; b++) {
		double bits = cnt[b] ? log2((double)len / cnt[b]) : log2((double)len + 1) + 2;
		if (bits < 0.5)
			bits = 0.5;  /* the entropy stage cannot do much better */
		ps->litcost[b] = (uint32_t)(bits * 16 + 0.5);
		total += (double)cnt[b] * bits;
	}
	double avg = len ? total / (double)len : 8;
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
}

static void chain_reset(wlz_parser *ps)
{
	memset(ps->shead, 0, sizeof(uint32_t) << SHORT_HLOG);
	ps->ins = ps->ws;
}

/* Enters positions [ins, p) into the near chain.  pend may sit past n - 16
 * (a block shorter than 16 bytes at the end); hashing reads 8 bytes. */
static inline void chain_to(wlz_parser *ps, uint64_t p)
{
	const unsigned slen = ps->lp.short_len;
	uint64_t q = ps->ins;
	const uint64_t end = p + 16 <= ps->n ? p : (ps->n >= 16 ? ps->n - 16 : 0);
	for (; q < end; q++) {
		uint64_t h = wlz_hash_bytes(ps->src + q, slen, SHORT_HLOG);
		ps->sring[q & ps->rmask] = ps->shead[h];
		ps->shead[h] = (uint32_t)(q + 1);
	}
	if (q > ps->ins)
		ps->ins = q;
}

/* The first near candidate at p (p entered up to it), 0 = none; and the
 * one after c, while its ring entry is still c's. */
static inline uint64_t chain_first(wlz_parser *ps, uint64_t p)
{
	chain_to(ps, p);
	if (p + 16 > ps->n)
		return 0;
	uint32_t c = ps->shead[wlz_hash_bytes(ps->src + p, ps->lp.short_len, SHORT_HLOG)];
	return c && c - 1 >= ps->ws ? c : 0;
}

static inline uint64_t chain_next(const wlz_parser *ps, uint64_t p, uint64_t c)
{
	if (p - c > ps->rmask)
		return 0;  /* c's ring entry has been reused */
	uint32_t n = ps->sring[c & ps->rmask];
	return n && n - 1 >= ps->ws && n - 1 < c ? n : 0;
}

/* Cost in 1/16 bits of coding a match, beyond its literals' absence. */
static inline uint32_t match_cost(uint64_t len, uint64_t dist, int rep)
{
	uint32_t c = MATCH_BASE;
	if (rep) {
		c += 16;
	} else {
		/* Stored: k raw low bytes and a head byte (about 5 bits coded).
		 * The mean of that and a smooth log2 cost measured best. */
		unsigned k = wlz_off_lows(dist - 1);
		c += 8 * (8 * k + OFF_HEAD_BITS) + 8 * (wlz_highbit64(dist) + 3);
	}
	if (len >= WLZ_MATCH_CODE_MAX + WLZ_MINMATCH)
		c += 16 * 8 * (1 + (len - WLZ_MATCH_CODE_MAX - WLZ_MINMATCH >= 128));
	return c;
}

static inline unsigned varint_bytes(uint64_t v) { return wlz_highbit64(v) / 7 + 1; }

/* Second-pass price of a match: the cmd byte it would emit after a literal
 * run of lrun bytes, length extensions, and its offset's head and low bytes,
 * all priced from the first parse's statistics. */
static inline uint32_t stat_cost(const wlz_parser *ps, uint32_t lrun, uint64_t len, uint64_t dist, int rep)
{
	const uint8_t cmd = wlz_cmd_byte(lrun, len, rep);
	uint32_t c = ps->cmdcost[cmd];
	if (cmd >> 5 == WLZ_LIT_CODE_MAX)
		c += 16 * 6 * varint_bytes(lrun - WLZ_LIT_CODE_MAX);
	if ((cmd & 15) == WLZ_MATCH_CODE_MAX)
		c += 16 * 6 * varint_bytes(len - WLZ_MINMATCH - WLZ_MATCH_CODE_MAX);
	if (!rep) {
		uint64_t x = dist - 1;
		unsigned k = wlz_off_lows(x);
		c += ps->headcost[wlz_off_head(x, k)] + 16 * 8 * k;
	}
	return c;
}

static void cost_table(const uint32_t cnt[256], uint32_t total, uint32_t out[256])
{
	for (int b = 0; b < 256; b++) {
		/* Unseen symbols get a little more than the rarest seen. */
		double p = cnt[b] ? (double)cnt[b] / total : 0.5 / (total + 1);
		double bits = -log2(p);
		out[b] = (uint32_t)((bits < 0.25 ? 0.25 : bits) * 16 + 0.5);
	}
}

/* Statistics of a first parse, for the second. */
static void gather_stats(wlz_parser *ps, const wlz_token *tok, size_t nt)
{
	uint32_t cmd[256] = {0}, head[256] = {0}, lit[256] = {0};
	uint32_t nheads = 0, nlit = 0;
	uint64_t prev = 0, pos = ps->bstart;
	for (size_t k = 0; k < nt; k++) {
		const wlz_token *t = &tok[k];
		int rep = t->dist == prev;
		cmd[wlz_cmd_byte(t->lit, t->mlen, rep)]++;
		if (!rep) {
			uint64_t x = t->dist - 1;
			head[wlz_off_head(x, wlz_off_lows(x))]++;
			nheads++;
		}
		for (uint32_t i = 0; i < t->lit; i++)
			lit[ps->src[pos + i]]++;
		nlit += t->lit;
		pos += t->lit + t->mlen;
		prev = t->dist;
	}
	for (; pos < ps->bend; pos++, nlit++)
		lit[ps->src[pos]]++;
	cost_table(cmd, nt ? (uint32_t)nt : 1, ps->cmdcost);
	cost_table(head, nheads ? nheads : 1, ps->headcost);
	if (nlit > 256)
		cost_table(lit, nlit, ps->litcost);
	ps->use_stats = 1;
}

typedef struct cand {
	uint64_t len, dist;
	int64_t gain;
} cand;

/* What a match saves over coding its bytes as literals.  The block's mean
 * literal cost measured better than per-byte costs here (FASTQ, text). */
static inline int64_t gain_of(const wlz_parser *ps, uint64_t p, uint64_t len, uint64_t dist, int rep)
{
	(void)p;
	return (int64_t)len * ps->avglit - (int64_t)match_cost(len, dist, rep);
}

/* Chain flattening, priced: a candidate that reads bytes a match of this
 * block wrote pays flat_pen; the part before those bytes, if a match, is
 * the alternative.  Returns the better gain and its length in *L. */
static inline int64_t flat_gain(const wlz_parser *ps, uint64_t p, uint64_t o, uint64_t *L, int rep, int64_t lvpen)
{
	int64_t g = gain_of(ps, p, *L, p - o, rep) - lvpen;
	if (!ps->flat)
		return g;
	uint64_t lf = flat_cut(ps, p, o, *L);
	if (lf == *L)
		return g;
	g -= ps->flat_pen;
	if (lf >= WLZ_MINMATCH) {
		int64_t gf = gain_of(ps, p, lf, p - o, rep) - lvpen;
		if (gf >= g) {
			*L = lf;
			return gf;
		}
	}
	return g;
}

/* Whether the candidate at c is worth measuring: longer than the best so
 * far (blen bytes), and long enough to gain at all at its distance class
 * (byte need[h] matches).  A source the diagonal rule cuts before that
 * byte may move further back and grow (diag_match): it is measured. */
static inline int may_gain(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t blen, uint64_t limit)
{
	const uint8_t *src = ps->src;
	if (src[c + blen] != src[p + blen])
		return 0;
	const uint64_t k = ps->need[wlz_highbit64(p - c)];
	if (k <= blen)
		return 1;
	if (k >= limit)
		return 0;  /* no match from c reaches past limit */
	if (c < ps->bstart && k >= diag_room(ps, p, c))
		return 1;
	return src[c + k] == src[p + k];
}

/* The far table's candidates at p (buffer positions, before the block and
 * outside the gap, within the window), most recent first: only at anchors
 * (farfind.h).  Searches come in position order, so the anchors are met
 * with a cursor. */
static inline unsigned far_cands(wlz_parser *ps, uint64_t p, uint64_t out[WLZ_FAR_WAYS])
{
	const wlz_far *f = ps->v->far;
	if (!f || !ps->lp.long_depth)
		return 0;
	const uint64_t rel = p - ps->bstart;
	size_t k = ps->ak;
	while (k < ps->nanc && ps->anc[k].pos < rel)
		k++;
	ps->ak = k;
	if (k == ps->nanc || ps->anc[k].pos != rel)
		return 0;
	/* The table is far larger than the caches: fetch a later anchor's
	 * bucket while this one is measured. */
	if (k + 4 < ps->nanc)
		__builtin_prefetch(wlz_far_bucket(f, ps->anc[k + 4].bucket));
	const uint32_t *w = wlz_far_bucket(f, ps->anc[k].bucket);
	const uint64_t ap = ps->v->base + p;
	unsigned n = 0;
	for (unsigned i = 0; i < WLZ_FAR_WAYS && n < ps->lp.long_depth; i++) {
		if (!w[i])
			break;
		const uint64_t d = (uint32_t)(ap + 1 - w[i]);
		if (d == 0 || d > ps->v->window || d > p)
			continue;
		const uint64_t c = p - d;
		if (c >= ps->bstart || c >= ps->gap_lo)
			continue;  /* (found by the near chain, or not allowed) */
		out[n++] = c;
	}
	return n;
}

void wlz_parser_set_anchors(wlz_parser *ps, const wlz_anchor *a, size_t n)
{
	ps->anc = a;
	ps->nanc = n;
}

/* Best candidate at p by gain; gain <= 0 means "emit a literal". */
static cand search(wlz_parser *ps, uint64_t p, uint64_t rep)
{
	const uint64_t limit = ps->bend - p;
	cand best = {0, 0, 0};
	if (rep && rep <= p) {
		uint64_t L = diag_len(ps, p, p - rep, limit);
		unsigned lv = 0;
		if (ps->map)
			L = depth_cut(ps, p, p - rep, L, &lv);
		int64_t g = L >= WLZ_MINMATCH ? flat_gain(ps, p, p - rep, &L, 1, level_price(ps, L, lv)) : 0;
		if (g > 0) {  /* (full flattening may price it out) */
			best.gain = g;
			best.len = L;
			best.dist = rep;
			if (L >= ps->lp.nice)
				return best;
		}
	}
	/* short chain: near candidates */
	unsigned depth = ps->lp.short_depth;
	uint64_t c;
	uint64_t cn = chain_first(ps, p);
	while (cn && depth--) {
		c = cn - 1;
		cn = depth ? chain_next(ps, p, c) : 0;
		if (best.len >= limit)
			break;
		if (!ps->map && !may_gain(ps, p, c, best.len, limit))
			continue;
		uint64_t o = c;
		uint64_t L = diag_match(ps, p, &o, limit);
		unsigned lv = 0;
		if (ps->map)
			L = depth_cut(ps, p, o, L, &lv);
		if (L < WLZ_MINMATCH)
			continue;
		int64_t g = flat_gain(ps, p, o, &L, 0, level_price(ps, L, lv));
		if (g > best.gain) {
			best.len = L;
			best.dist = p - o;
			best.gain = g;
			if (L >= ps->lp.nice)
				return best;
		}
	}
	/* far table: anywhere in the window */
	uint64_t fc[WLZ_FAR_WAYS];
	const unsigned nf = far_cands(ps, p, fc);
	for (unsigned k = 0; k < nf && best.len < limit; k++) {
		c = fc[k];
		if (!ps->map && !may_gain(ps, p, c, best.len, limit))
			continue;
		uint64_t o = c;
		uint64_t L = diag_match(ps, p, &o, limit);
		unsigned lv = 0;
		if (ps->map)
			L = depth_cut(ps, p, o, L, &lv);
		int64_t g = flat_gain(ps, p, o, &L, 0, level_price(ps, L, lv));
		if (L >= WLZ_MINMATCH && g > best.gain) {
			best.len = L;
			best.dist = p - o;
			best.gain = g;
			if (L >= ps->lp.nice)
				return best;
		}
	}
	return best;
}

static size_t parse_lazy(wlz_parser *ps)
{
	const uint8_t *src = ps->src;
	uint64_t p = ps->bstart, anchor = p, rep = 0;
	size_t nt = 0;
	while (p < ps->pend) {
		cand c = search(ps, p, rep);
		if (c.gain <= 0) {
			p += ps->lp.skip ? 1 + ((p - anchor) >> ps->lp.skip) : 1;
			continue;
		}
		for (unsigned k = 0; k < ps->lp.lazy && p + 1 < ps->pend && c.len < ps->lp.nice; k++) {
			cand c2 = search(ps, p + 1, rep);
			if (c2.gain <= c.gain + 16)
				break;
			c = c2;
			p++;
		}
		/* Grow the match backwards into the pending literals. */
		while (p > anchor && p > c.dist && src[p - 1] == src[p - 1 - c.dist] &&
		       (!ps->map || ps->map[p - 1 - c.dist] <= ps->max_map) &&
		       diag_cut(ps, p - 1, p - 1 - c.dist, c.len + 1) == c.len + 1 &&
		       flat_cut(ps, p - 1, p - 1 - c.dist, c.len + 1) == c.len + 1) {
			p--;
			c.len++;
		}
		if (ps->map) {
			/* This token's level, recorded for the matches after it. */
			memset(ps->map + p, wlz_map_value(wlz_match_level(ps->map, p - c.dist, p, c.len)), c.len);
		}
		ps->tok[nt].lit = (uint32_t)(p - anchor);
		ps->tok[nt].mlen = (uint32_t)c.len;
		ps->tok[nt].dist = c.dist;
		if (ps->flat) {
			ps->wstart[ps->nw] = p;
			ps->wend[ps->nw++] = p + c.len;
		}
		nt++;
		rep = c.dist;
		p += c.len;
		anchor = p;
	}
	return nt;
}

static inline void relax(wlz_parser *ps, uint64_t i, uint64_t l, uint64_t dist, uint32_t cost)
{
	if (cost < ps->price[i + l]) {
		ps->price[i + l] = cost;
		ps->olen[i + l] = (uint32_t)l;
		ps->odist[i + l] = dist;
		ps->orep[i + l] = dist;
		ps->lrun[i + l] = 0;
	}
}

/* Offers lengths (*done, L] of a candidate to the price table. */
static inline void offer(wlz_parser *ps, uint64_t i, uint64_t L, uint64_t dist, int rep, uint64_t *done)
{
	uint32_t base = ps->price[i];
	uint64_t l = *done + 1 > WLZ_MINMATCH ? *done + 1 : WLZ_MINMATCH;
	if (ps->use_stats) {
		for (; l <= L; l++)
			relax(ps, i, l, dist, base + stat_cost(ps, ps->lrun[i], l, dist, rep));
	} else {
		for (; l <= L; l++)
			relax(ps, i, l, dist, base + match_cost(l, dist, rep));
	}
	if (L > *done)
		*done = L;
}

static int push_cand(wlz_parser *ps, size_t at, uint64_t L, uint64_t dist)
{
	if (at >= ps->ccap) {
		size_t cap = ps->ccap ? ps->ccap * 2 : (size_t)ps->bsize;
		uint32_t *l = realloc(ps->clen, sizeof(uint32_t) * cap);
		if (l)
			ps->clen = l;
		uint64_t *d = realloc(ps->cdist, sizeof(uint64_t) * cap);
		if (d)
			ps->cdist = d;
		if (!l || !d)
			return 0;
		ps->ccap = cap;
	}
	ps->clen[at] = (uint32_t)L;
	ps->cdist[at] = dist;
	return 1;
}

/* Candidates at p, each longer than the last, into the cache: the near
 * chain, then the far table. */
static wlz_error find_cands(wlz_parser *ps, uint64_t p, uint64_t limit, size_t *at)
{
	const uint8_t *src = ps->src;
	uint64_t best = 0;
	unsigned depth = ps->lp.short_depth;
	uint64_t c;
	uint64_t cn = chain_first(ps, p);
	uint64_t fc[WLZ_FAR_WAYS];
	unsigned nf = 0, k = 0;
	for (;;) {
		if (best >= limit || best >= ps->lp.nice)
			break;
		if (cn && depth) {
			depth--;
			c = cn - 1;
			cn = depth ? chain_next(ps, p, c) : 0;
		} else {
			if (k == 0)
				nf = far_cands(ps, p, fc);
			if (k >= nf)
				break;
			c = fc[k++];
		}
		if (src[c + best] != src[p + best])
			continue;
		uint64_t o = c;
		uint64_t L = diag_match(ps, p, &o, limit);
		if (L > best && L >= WLZ_MINMATCH) {
			if (!push_cand(ps, (*at)++, L, p - o))
				return WLZ_ERR_NOMEM;
			best = L;
		}
	}
	return WLZ_OK;
}

static wlz_error parse_optimal(wlz_parser *ps, int reuse, size_t *ntok)
{
	const uint8_t *src = ps->src;
	const uint64_t bstart = ps->bstart, blen = ps->bend - bstart;
	const uint64_t m = ps->pend > bstart ? ps->pend - bstart : 0;
	for (uint64_t i = 0; i <= blen; i++)
		ps->price[i] = INF_PRICE;
	ps->price[0] = 0;
	ps->orep[0] = 0;
	ps->olen[0] = 0;
	ps->lrun[0] = 0;
	uint64_t skip_to = 0;
	size_t at = 0;
	for (uint64_t i = 0; i < blen; i++) {
		uint32_t lc = ps->price[i] + ps->litcost[src[bstart + i]];
		if (lc < ps->price[i + 1]) {
			ps->price[i + 1] = lc;
			ps->olen[i + 1] = 0;
			ps->orep[i + 1] = ps->orep[i];
			ps->lrun[i + 1] = ps->lrun[i] + 1;
		}
		if (!reuse)
			ps->cstart[i] = (uint32_t)at;
		if (i >= m || i < skip_to)
			continue;
		const uint64_t p = bstart + i, limit = blen - i;
		uint64_t done = 0, rep = ps->orep[i];
		if (rep && rep <= p) {
			uint64_t L = diag_len(ps, p, p - rep, limit);
			if (L >= WLZ_MINMATCH)
				offer(ps, i, L, rep, 1, &done);
		}
		if (!reuse)
			WLZ_TRY(find_cands(ps, p, limit, &at));
		size_t end = reuse ? ps->cstart[i + 1] : at;
		for (size_t k = ps->cstart[i]; k < end; k++)
			if (ps->clen[k] > done)
				offer(ps, i, ps->clen[k], ps->cdist[k], 0, &done);
		if (done >= ps->lp.nice)
			skip_to = i + done;
	}
	if (!reuse)
		for (uint64_t i = blen < m ? blen : m; i <= m; i++)
			ps->cstart[i] = (uint32_t)at;
	/* Walk the cheapest path back, then emit it forwards. */
	size_t nm = 0;
	uint64_t i = blen;
	while (i > 0) {
		uint32_t l = ps->olen[i];
		if (l == 0) {
			i--;
			continue;
		}
		ps->tok[nm].mlen = l;
		ps->tok[nm].dist = ps->odist[i];
		ps->tok[nm].lit = (uint32_t)(i - l);  /* start, fixed below */
		nm++;
		i -= l;
	}
	for (size_t a = 0, b = nm ? nm - 1 : 0; a < b; a++, b--) {
		wlz_token t = ps->tok[a];
		ps->tok[a] = ps->tok[b];
		ps->tok[b] = t;
	}
	uint64_t pos = 0;
	for (size_t k = 0; k < nm; k++) {
		uint64_t start = ps->tok[k].lit;
		ps->tok[k].lit = (uint32_t)(start - pos);
		pos = start + ps->tok[k].mlen;
	}
	*ntok = nm;
	return WLZ_OK;
}

wlz_error wlz_parse_block(wlz_parser *ps, const wlz_view *v, uint64_t bstart, uint64_t bend,
			  int lazy_only, const wlz_token **tok, size_t *ntok)
{
	if (bend - bstart > ps->bsize || v->window < ps->bsize)
		return WLZ_ERR_INTERNAL;
	ps->src = v->src;
	ps->n = v->n;
	ps->v = v;
	ps->bstart = bstart;
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
	if (!lazy_only || !ps->lp.optimal || ps->ws != ps->cached_ws || bend != ps->cached_bend) {
		build_costs(ps);
		ps->cached_ws = ps->ws;
		ps->cached_bend = bend;
	}
	chain_reset(ps);
	ps->nw = 0;
	ps->ak = 0;
	if (ps->lp.optimal && !lazy_only && !ps->map && ps->flat < 2) {
		ps->use_stats = 0;
		WLZ_TRY(parse_optimal(ps, 0, ntok));
		if (ps->lp.optimal > 1) {
			for (unsigned pass = 1; pass < ps->lp.optimal; pass++) {
				gather_stats(ps, ps->tok, *ntok);
				WLZ_TRY(parse_optimal(ps, 1, ntok));
			}
			build_costs(ps);  /* the lazy second opinion uses the first-pass model */
		}
	} else if (ps->lp.optimal && !ps->map && ps->flat < 2) {
		/* The second opinion is greedy and skips through noise, as level 1
		 * does: on noisy data fewer matches code smaller. */
		wlz_lparams keep = ps->lp;
		ps->lp.lazy = 0;
		ps->lp.skip = wlz_levels[1].skip;
		*ntok = parse_lazy(ps);
		ps->lp = keep;
	} else {
		*ntok = parse_lazy(ps);
	}
	*tok = ps->tok;
	return WLZ_OK;
}
