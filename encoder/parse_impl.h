/*
 * parse_impl.h - what the parsers share: the parser state, the reference
 * rules of the reference encoder (gap, diagonal, flattening, depth) and the
 * cost model, in 1/16 bit units.
 */
#ifndef WLZ_PARSE_IMPL_H
#define WLZ_PARSE_IMPL_H

#include "common/large.h"
#include "encoder/parse.h"
#include "format/format.h"

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
	uint64_t diag;          /* blocks back the diagonal rule covers (0: off) */
	void (*far_done)(void *);  /* wlz_parser_set_far_done */
	void *far_arg;
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
	/* The same after a byte of high nibble h: codec 2 picks its literal
	 * tables by the previous byte, so the price-based parse prices by it
	 * too (order 0 overprices FASTQ literals and takes matches that cost
	 * more than the literals they replace). */
	uint32_t litctx[16][256];
	int use_ctx;            /* litctx by context (else all order 0) */
	uint32_t avglit;
	uint8_t need[64];       /* by highbit(dist): a shorter match cannot gain */
	uint64_t need_rep;      /* the same for a repeat of the last distance */
	/* The first bytes of a word (little-endian) that every gaining match,
	 * and every gaining repeat, has: need[0] + 1 and need_rep + 1 bytes,
	 * at least the 4 the fast finders compare, at most 8. */
	uint64_t need_mask, rep_mask;
	/* price-based parse */
	int use_stats;          /* second pass: prices from the first parse */
	uint32_t cmdcost[256];  /* 1/16 bits per cmd byte */
	uint32_t headcost[256]; /* 1/16 bits per offset head byte */
	uint32_t runcost[WLZ_LIT_CODE_MAX + 1];  /* 1/16 bits per literal run code of a cmd byte */
	int pay_runs;           /* price passes pay run codes per literal (run_cost) */
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
	uint64_t pstart;        /* where the parse starts: bstart, or a piece's start (bend then its end) */
	uint64_t cached_ws, cached_bend;  /* costs already built for this block */
	uint8_t *map;           /* depth-limited parsing: level map, else NULL */
	int flat;               /* price reading bytes a match of this block wrote */
	int64_t flat_pen;       /* that price, 1/16 bits */
	uint8_t *wmap;          /* flat: 1 for the block's bytes a match wrote so far */
	size_t nw;              /* ... and how many matches did */
	unsigned max_map;       /* highest map value a source byte may have */
	int64_t lpen;           /* price of one level of a candidate, 1/16 bits */
	const wlz_view *v;
	unsigned bshift;        /* log2 of bsize */
	/* fast parse: hash tables (parse_fast.c) */
	uint32_t *fst, *flt;
	struct wlz_fmatch *fm;  /* the far matches of the block, by start */
	size_t nfm, fm_cap;
	size_t fk;              /* the first one not yet passed */
	const wlz_anchor *anc;  /* the block's far-table anchors, by position */
	size_t nanc, ak;        /* ... and the next one a search may be at */
};

static inline __attribute__((always_inline)) int64_t level_price(const wlz_parser *ps, uint64_t L, unsigned lv)
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
	const uint64_t bs = ps->bsize, k = (ps->bstart >> ps->bshift) - (c >> ps->bshift);
	if (k <= ps->gap)
		return 0;
	/* Nor may a source run on into the gap (c < gap_lo here). */
	uint64_t room = ps->gap ? ps->gap_lo - c : UINT64_MAX;
	if (k <= ps->diag) {
		const uint64_t reach = (p - ps->bstart) + k * (bs >> WLZ_DIAG_SHIFT), coff = c & (bs - 1);
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

/* What diag_match_n compares at each period while its best is best: the
 * word at *at from p, masked by *m. */
static inline uint64_t period_word(const uint8_t *p, uint64_t best, uint64_t *at, uint64_t *m)
{
	*at = best >= 7 ? best - 7 : 0;
	*m = best >= 7 ? UINT64_MAX : ((uint64_t)1 << (8 * best + 8)) - 1;
	return wlz_rd64(p + *at) & *m;
}

/* A match from *c cut by diag_cut: on periodic data the same bytes lie
 * whole periods further back, maybe in a block the decoder has passed. */
static inline uint64_t diag_match_n(const wlz_parser *ps, uint64_t p, uint64_t *c, uint64_t limit, int tries)
{
	uint64_t room = diag_room(ps, p, *c);
	if (room >= limit)
		return wlz_match_len(ps->src + p, ps->src + *c, limit);
	uint64_t best = wlz_match_len(ps->src + p, ps->src + *c, room);
	if (best < room)
		return best;  /* ended before the cut */
	const uint64_t d = p - *c, floor = (uint64_t)ps->bsize * (WLZ_DIAG_BLOCKS + 1);
	if (tries <= 0)
		return best;
	/* (o may step back while o >= lo: a period back stays at or after 0,
	 * within floor of the block and within the window; and while fewer
	 * than tries periods are taken: one bound for both) */
	uint64_t lo = d;
	if (ps->bstart > floor && ps->bstart - floor > lo)
		lo = ps->bstart - floor;
	if (p > ps->v->window && p - ps->v->window + d > lo)
		lo = p - ps->v->window + d;
	const uint64_t span = (uint64_t)(tries - 1) * d;
	if (*c >= span && *c - span > lo)
		lo = *c - span;
	/* No longer match at o unless its bytes up to best agree: the word
	 * that ends at best (the first bytes, masked, while best < 7) is
	 * compared first, before the cut's arithmetic.  (positions searched
	 * are 16 bytes before the input's end: words may be read there) */
	const uint8_t *const src = ps->src;
	if (p + 8 > ps->n)
		return best;
	uint64_t at, m, w = period_word(src + p, best, &at, &m);
	for (uint64_t o = *c; o >= lo;) {
		o -= d;
		if ((wlz_rd64(src + o + at) ^ w) & m)
			continue;
		room = diag_room(ps, p, o);
		uint64_t lim = limit < room ? limit : room;
		if (lim <= best)
			continue;
		uint64_t L = wlz_match_len(src + p, src + o, lim);
		if (L > best) {
			best = L;
			*c = o;
			if (L < lim || lim == limit)
				break;  /* not cut: as long as it gets */
			w = period_word(src + p, best, &at, &m);
		}
	}
	return best;
}

static inline uint64_t diag_match(const wlz_parser *ps, uint64_t p, uint64_t *c, uint64_t limit)
{
	return diag_match_n(ps, p, c, limit, 16);
}

/* Flat parsing: how much of a match of length L from c to p reads no byte
 * that a match of this block wrote (its own output, past p, is fine). */
static inline uint64_t flat_cut(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t L)
{
	if (!ps->flat || ps->nw == 0)
		return L;
	const uint64_t lo = c > ps->bstart ? c : ps->bstart, hi = c + L < p ? c + L : p;
	if (lo >= hi)
		return L;
	/* A word at a time: sources are mostly a few words long. */
	const uint8_t *w = ps->wmap - ps->bstart;
	uint64_t q = lo;
	for (; q + 8 <= hi; q += 8) {
		const uint64_t x = wlz_rd64(w + q);
		if (x)
			return q + ((unsigned)__builtin_ctzll(x) >> 3) - c;
	}
	for (; q < hi; q++)
		if (w[q])
			return q - c;
	return L;
}

/* Depth-limited parsing: how much of a match of length L from c to p may be
 * used without reading a byte of too high a level; *lvl gets the level of
 * what may be used. */
static inline uint64_t depth_cut(const wlz_parser *ps, uint64_t p, uint64_t c, uint64_t L, unsigned *lvl)
{
	uint64_t end = p - c < L ? p - c : L;  /* its own output adds no level */
	unsigned m = 0;
	uint64_t i = 0;
#if defined(__SSE2__) && !defined(__CUDACC__)
	/* 16 bytes at a time while none is over max_map (long sources) */
	const __m128i lim = _mm_set1_epi8((char)ps->max_map);
	__m128i acc = _mm_setzero_si128();
	for (; i + 16 <= end; i += 16) {
		const __m128i v = _mm_loadu_si128((const __m128i *)(ps->map + c + i));
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, lim), lim)) != 0xFFFF)
			break;
		acc = _mm_max_epu8(acc, v);
	}
	if (i)  /* (most sources are shorter: no reduction for them) */
		m = wlz_max_u8x16(acc);
#endif
	for (; i < end; i++) {
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

/* The chain for a new block: the near window's positions entered, but
 * for the gap blocks just before the block, which hold no source (SPEC 8)
 * and whose links the search would only walk past. */
static inline void chain_start(wlz_parser *ps)
{
	memset(ps->shead, 0, sizeof(uint32_t) << SHORT_HLOG);
	ps->ins = ps->ws;
	if (ps->gap && ps->gap_lo < ps->bstart && ps->ws < ps->bstart) {
		if (ps->gap_lo > ps->ws)
			chain_to(ps, ps->gap_lo);
		ps->ins = ps->bstart;
	}
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

/* The step of a parse that skips (lp.skip), after lits literals: one more
 * every 2^skip of them.  At levels 1 to 4 (lp.cheap), where literals are
 * cheap (every gaining match is at least 6 bytes long: FASTQ, whose
 * quality lines are long runs of them), it steps one byte for the first 8,
 * then one more every 4, at most 9 bytes: the slow start keeps the short
 * literal runs between matches (XML) from being jumped over, and the cap
 * keeps it from jumping into the next record's matches.  Elsewhere no
 * cap: incompressible bytes are passed over at a growing pace.  Figures:
 * bench/host/issue13-l1-speed.md and issue13-enc-speed2.md. */
#define CHEAP_NEED 5            /* need[0] at least: gaining matches of 6 bytes and more */
#define CHEAP_DELAY 8
#define CHEAP_SKIP 2
#define CHEAP_CAP 8
static inline __attribute__((always_inline)) uint64_t skip_step(uint64_t lits, unsigned skip, int cheap)
{
	if (!cheap)
		return 1 + (lits >> skip);
	const uint64_t s = lits > CHEAP_DELAY ? (lits - CHEAP_DELAY) >> CHEAP_SKIP : 0;
	return 1 + (s < CHEAP_CAP ? s : CHEAP_CAP);
}

/* Whether the block's skipping parse steps as skip_step's cheap one. */
static inline int skip_cheap(const wlz_parser *ps)
{
	return ps->lp.cheap && ps->lp.skip && ps->need[0] >= CHEAP_NEED;
}

typedef struct cand {
	uint64_t len, dist;
	int64_t gain;
} cand;

/* What a match saves over coding its bytes as literals.  The block's mean
 * literal cost measured better than per-byte costs here (FASTQ, text). */
static inline __attribute__((always_inline)) int64_t gain_of(const wlz_parser *ps, uint64_t p, uint64_t len, uint64_t dist, int rep)
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

/* The candidates of anchor k (at p), most recent first: entries that name
 * a source the block may read (before the block and its gap, within the
 * window; the near finder has the block's own) with the anchor's tag.
 * depth: ps->lp.long_depth (a constant where it is inlined: at
 * WLZ_FAR_WAYS or more it limits nothing). */
static inline __attribute__((always_inline)) unsigned far_bucket_cands(const wlz_parser *ps, size_t k, uint64_t p,
									uint64_t out[WLZ_FAR_WAYS], const unsigned depth)
{
	const wlz_far *f = ps->v->far;
	const uint32_t *w = wlz_far_bucket(f, ps->anc[k].bucket);
	const uint32_t tag = wlz_anchor_tag(f, ps->anc[k].bucket);
	/* (as one compare: distances in [dmin, dmax]) */
	const uint64_t ap1 = ps->v->base + p + 1, dmin = p - ps->gap_lo + 1;
	const uint64_t dmax = ps->v->window < p ? ps->v->window : p;
	if (dmin > dmax)
		return 0;
	const uint64_t span = dmax - dmin;
	unsigned n = 0;
	/* An entry of another tag counts as tried, as when its bytes were
	 * read to find that out: the tag saves the read, not the depth. */
	for (unsigned i = 0, m = 0; i < WLZ_FAR_WAYS; i++) {
		if (depth < WLZ_FAR_WAYS && m >= depth)
			break;
		const uint32_t e = w[i];
		if (!e)
			break;
		const uint64_t d = wlz_far_dist(f, ap1, e);
		if (d - dmin > span)
			continue;
		m++;
		if (wlz_far_same_tag(f, e, tag))
			out[n++] = p - d;
	}
	return n;
}

/* The far table's candidates at p (buffer positions), most recent first:
 * only at anchors (farfind.h).  Searches come in position order, so the
 * anchors are met with a cursor. */
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
	return far_bucket_cands(ps, k, p, out, ps->lp.long_depth);
}

/* A far match found at an anchor, grown both ways: [start, end) copies the
 * bytes dist back. */
struct wlz_fmatch {
	uint64_t start, end, dist;
};

/* Measures the candidate c at p and keeps it in *best when it gains more.
 * Sources before the block obey the diagonal rule (diag_match); those in
 * the block need no rule. */
static inline __attribute__((always_inline)) void fast_consider(const wlz_parser *ps, uint64_t p, uint64_t c,
								 uint64_t limit, int rep, cand *best)
{
	const uint8_t *src = ps->src;
	if (best->len >= limit || src[c + best->len] != src[p + best->len])
		return;
	/* Nor when the byte that only a gaining match reaches differs (need[];
	 * a repeat's cost is fixed).  Sources before the block may move back
	 * by periods (diag_match_n): those are measured whatever. */
	if (rep || c >= ps->bstart) {
		const uint64_t k = rep ? ps->need_rep : ps->need[wlz_highbit64(p - c)];
		if (k >= limit || src[c + k] != src[p + k])
			return;
	}
	/* A cut source is looked for whole periods further back, as
	 * diag_match does, but only a little for far sources: each period
	 * costs them a cache miss. */
	uint64_t o = c;
	uint64_t L = c >= ps->bstart ? wlz_match_len(src + p, src + c, limit)
		     : rep ? diag_len(ps, p, c, limit)
		     : diag_match_n(ps, p, &o, limit, p - c <= 2 * (uint64_t)ps->bsize ? 16 : 1);
	/* (under a depth limit: cut at bytes of too high a level, priced by
	 * the level it takes) */
	unsigned lv = 0;
	if (ps->map)
		L = depth_cut(ps, p, o, L, &lv);
	if (L < WLZ_MINMATCH)
		return;
	const int64_t g = gain_of(ps, p, L, p - o, rep) - level_price(ps, L, lv);
	if (g > best->gain) {
		best->gain = g;
		best->len = L;
		best->dist = p - o;
	}
}

/* The far matches that cover p (nested ones aside, at most two), into m;
 * positions are asked in increasing order. */
static inline unsigned far_matches_at(wlz_parser *ps, uint64_t p, const struct wlz_fmatch *m[2])
{
	size_t k = ps->fk;
	/* (by start: none that begins later covers p either) */
	if (k == ps->nfm || ps->fm[k].start > p)
		return 0;
	while (k < ps->nfm && ps->fm[k].end <= p)
		k++;
	ps->fk = k;
	unsigned n = 0;
	for (; k < ps->nfm && k < ps->fk + 2 && ps->fm[k].start <= p; k++)
		if (ps->fm[k].end > p)
			m[n++] = &ps->fm[k];
	return n;
}

/* Finds the block's far matches (parse_far.c) for far_matches_at. */
wlz_error wlz_parse_far_prepass(wlz_parser *ps);
void wlz_parse_build_costs(wlz_parser *ps);
size_t wlz_parse_lazy(wlz_parser *ps);
wlz_error wlz_parse_optimal(wlz_parser *ps, int reuse, size_t *ntok);
void wlz_parse_gather_stats(wlz_parser *ps, const wlz_token *tok, size_t nt);
/* litctx from the block's bytes (parse_opt.c). */
void wlz_parse_ctx_costs(wlz_parser *ps);

/* Counts src[j] under the high nibble of src[j - 1] for j = from, from +
 * step, ... below to (from >= 1); returns how many were counted.  Both
 * literal price models use it: the gain model's average (parse.c) and the
 * price-based parse's tables (parse_opt.c). */
static inline uint64_t wlz_ctx_count(const uint8_t *src, uint64_t from, uint64_t to, unsigned step,
				     uint32_t c[16][256])
{
	uint64_t m = 0;
	for (uint64_t j = from; j < to; j += step, m++)
		c[src[j - 1] >> 4][src[j]]++;
	return m;
}
wlz_error wlz_parse_fast_init(wlz_parser *ps);
void wlz_parse_fast_release(wlz_parser *ps);
wlz_error wlz_parse_fast(wlz_parser *ps, size_t *ntok);

#endif
