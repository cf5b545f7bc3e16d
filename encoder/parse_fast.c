/*
 * parse_fast.c - the fast parse of the low levels (1 to 4).
 *
 * As zstd's fast and double-fast finders: one or two hash tables holding the
 * last position of each hash (no chains), filled as the parse goes and at
 * the ends of matches, cleared for each block so that they stay in the
 * core's caches.  The far matches of the block (parse_far.c) add the
 * long-distance candidates.  Choices use the same gain model as the lazy
 * parse (parse_impl.h); flattening is not done here (chains only raise
 * dependency levels, which the decoders handle).  Under a depth limit
 * every candidate, near or far, is cut by level and priced by it
 * (depth_cut, level_price), and each token's level is written to the map
 * as it is emitted, as the lazy parse does.
 */
#include <stdlib.h>
#include "encoder/parse_impl.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FAST_LONG_LEN 8
/* Levels 2 to 4's scan fetches the table slots of the position this far
 * ahead: the tables are larger than L1, and each lookup waits on its load
 * (level 1's fetches those of the next position it steps to). */
#define SCAN_AHEAD 4

/* The short table has buckets of short_depth ways (1, 2, 4, 8 or 16: one
 * cache line at most), newest first.  Tables of up to 4 ways stay in L2;
 * deeper buckets (8 ways and more: 512 Ki positions, 2 MiB) cover more of
 * the block, which text needs.  Level 1's one way hashes 8 bytes
 * (FAST1_LEN) into 2^17 entries (512 KiB, in L2 too): against 6 bytes
 * into 2^16, text has fewer hits that then fail their compares (branches
 * the scan mispredicts) and fewer, longer matches, which the later stages
 * pay for by the token; archives are smaller on text and FASTQ alike.
 * 8 bytes into 2^16 entries is faster still on text but larger there.
 * Where literals are cheap (FASTQ) it has 2^16 entries (FAST1_CHEAP_LOG):
 * the gaining matches are long and mostly near (the last records), and
 * the smaller table's misses are fewer. */
#define FAST1_LEN 8
#define FAST1_LOG 17
#define FAST1_CHEAP_LOG 16
static unsigned short_ways_log(const wlz_parser *ps)
{
	const unsigned d = ps->lp.short_depth;
	return d >= 16 ? 4 : d >= 8 ? 3 : d >= 4 ? 2 : d >= 2 ? 1 : 0;
}
static unsigned short_log(const wlz_parser *ps)
{
	const unsigned w = short_ways_log(ps);
	if (ps->lp.fast >= 2 && ps->lp.fast_slog)
		return ps->lp.fast_slog - w;
	return (ps->lp.fast < 2 ? FAST1_LOG : w >= 3 ? 19 : 17) - w;
}
static unsigned long_log(const wlz_parser *ps) { return ps->lp.fast_llog ? ps->lp.fast_llog : 17; }

wlz_error wlz_parse_fast_init(wlz_parser *ps)
{
	if (!ps->lp.fast)
		return WLZ_OK;
	ps->fst = malloc(sizeof(uint32_t) << (short_log(ps) + short_ways_log(ps)));
	if (ps->lp.fast >= 2)
		ps->flt = malloc(sizeof(uint32_t) << long_log(ps));
	return ps->fst && (ps->lp.fast < 2 || ps->flt) ? WLZ_OK : WLZ_ERR_NOMEM;
}

void wlz_parse_fast_release(wlz_parser *ps)
{
	if (!ps->lp.fast)
		return;
	wlz_release_pages(ps->fst, sizeof(uint32_t) << (short_log(ps) + short_ways_log(ps)));
	wlz_release_pages(ps->flt, sizeof(uint32_t) << long_log(ps));
}

/* Table entries are a buffer position + 1 (0: empty): the input buffer
 * is under 4 GiB (compress.c, gap_for). */
typedef struct fstate {
	const uint8_t *src;
	uint32_t *st, *lt;
	unsigned slog, llog, slen, wlog;
	/* the first bytes a gaining candidate has (need_mask), or 4 where
	 * sources before the block may be found: a cut one may go on whole
	 * periods further back (fast_consider) */
	uint64_t mc;
} fstate;

/* Enters v at the front of a short bucket (4 ways: one vector shift). */
static inline __attribute__((always_inline)) void short_put(uint32_t *w, unsigned ways, uint32_t v)
{
#if defined(__SSE2__)
	if (ways == 4) {
		const __m128i x = _mm_slli_si128(_mm_loadu_si128((const __m128i *)w), 4);
		_mm_storeu_si128((__m128i *)w, _mm_or_si128(x, _mm_cvtsi32_si128((int)v)));
		return;
	}
#endif
	for (unsigned i = ways - 1; i > 0; i--)
		w[i] = w[i - 1];
	w[0] = v;
}

static inline __attribute__((always_inline)) void fast_insert(const fstate *f, uint64_t q)
{
	const uint32_t v = (uint32_t)(q + 1);
	short_put(f->st + (wlz_hash_bytes(f->src + q, f->slen, f->slog) << f->wlog), 1u << f->wlog, v);
	if (f->lt)
		f->lt[wlz_hash_bytes(f->src + q, FAST_LONG_LEN, f->llog)] = v;
}

/* Fetches the table slots of position q. */
static inline __attribute__((always_inline)) void fast_fetch(const fstate *f, uint64_t q)
{
	if (f->lt)
		__builtin_prefetch(&f->lt[wlz_hash_bytes(f->src + q, FAST_LONG_LEN, f->llog)]);
	__builtin_prefetch(f->st + (wlz_hash_bytes(f->src + q, f->slen, f->slog) << f->wlog));
}

/* Enters [pre, p) (each position whose hashes read within n). */
static inline __attribute__((always_inline)) void fast_preload(const fstate *f, uint64_t pre, uint64_t p, uint64_t n)
{
	/* (one bound: below p, and q + 16 <= n) */
	const uint64_t lim = n < 16 ? 0 : p < n - 15 ? p : n - 15;
	/* (every position a slot each, mostly misses of L1 and L2: fetched
	 * some positions ahead so that they overlap) */
	enum { AHEAD = 8 };
	uint64_t q = pre;
	for (; q + AHEAD < lim; q++) {
		fast_fetch(f, q + AHEAD);
		fast_insert(f, q);
	}
	for (; q < lim; q++)
		fast_insert(f, q);
}

/* The block's far matches that cover p, kept in *best when they gain more. */
static inline __attribute__((always_inline)) void fast_far(wlz_parser *ps, uint64_t p, uint64_t rep, cand *best)
{
	const struct wlz_fmatch *m[2];
	const unsigned nm = far_matches_at(ps, p, m);
	for (unsigned k = 0; k < nm; k++) {
		uint64_t L = m[k]->end - p;
		unsigned lv = 0;
		if (ps->map)
			L = depth_cut(ps, p, p - m[k]->dist, L, &lv);
		if (L < WLZ_MINMATCH)
			continue;
		const int64_t g = gain_of(ps, p, L, m[k]->dist, m[k]->dist == rep) - level_price(ps, L, lv);
		if (g > best->gain) {
			best->gain = g;
			best->len = L;
			best->dist = m[k]->dist;
		}
	}
}

/* Best candidate at p (entered into the tables): the repeat distance, the
 * long table, the short table, then the far table at anchors. */
static inline __attribute__((always_inline)) cand fast_search(wlz_parser *ps, const fstate *f, uint64_t p, uint64_t rep,
							      const uint64_t nice)
{
	const uint8_t *src = f->src;
	const uint64_t mc = f->mc, limit = ps->bend - p, x8 = wlz_rd64(src + p);
	cand best = {0, 0, 0};
	if (rep && rep <= p && !((wlz_rd64(src + p - rep) ^ x8) & ps->rep_mask))
		fast_consider(ps, p, p - rep, limit, 1, &best);
	const uint32_t v = (uint32_t)(p + 1);
	if (f->lt) {
		uint32_t *e = &f->lt[wlz_hash_bytes(src + p, FAST_LONG_LEN, f->llog)];
		const uint32_t c = *e;
		*e = v;
		if (c && wlz_rd64(src + c - 1) == wlz_rd64(src + p))
			fast_consider(ps, p, c - 1, limit, 0, &best);
	}
	uint32_t *w = f->st + (wlz_hash_bytes(src + p, f->slen, f->slog) << f->wlog);
	const unsigned ways = 1u << f->wlog;
	for (unsigned i = 0; i < ways && w[i] && best.len < nice; i++) {
		const uint64_t c = w[i] - 1;
		if (!((wlz_rd64(src + c) ^ x8) & mc))
			fast_consider(ps, p, c, limit, 0, &best);
	}
	short_put(w, ways, v);
	fast_far(ps, p, rep, &best);
	return best;
}

/* Emits the match c found at p (literals since anchor before it), grown
 * backwards into those literals, and enters two of its positions, as
 * zstd's finders do, so that the next repeat of these bytes finds this
 * copy.  Returns where the match ends. */
static inline __attribute__((always_inline)) uint64_t fast_emit(wlz_parser *ps, const fstate *f, uint64_t p,
								  uint64_t anchor, cand c, size_t *nt)
{
	const uint8_t *src = f->src;
	while (p > anchor && p > c.dist && src[p - 1] == src[p - 1 - c.dist] &&
	       (p - 1 - c.dist >= ps->bstart || diag_cut(ps, p - 1, p - 1 - c.dist, c.len + 1) == c.len + 1) &&
	       (!ps->map || ps->map[p - 1 - c.dist] <= ps->max_map)) {
		p--;
		c.len++;
	}
	/* (under a depth limit: the token's level, for the matches after it) */
	if (ps->map)
		memset(ps->map + p, wlz_map_value(wlz_match_level(ps->map, p - c.dist, p, c.len)), c.len);
	wlz_token *t = &ps->tok[(*nt)++];
	t->lit = (uint32_t)(p - anchor);
	t->mlen = (uint32_t)c.len;
	t->dist = c.dist;
	const uint64_t end = p + c.len;
	if (end < ps->pend) {
		fast_insert(f, p + 2);
		fast_insert(f, end - 2);
	}
	return end;
}

/* Whether a and b agree in the bytes of mask (wide) or in their first 4. */
static inline __attribute__((always_inline)) int same_first(const uint8_t *a, const uint8_t *b, uint64_t mask,
							     const int wide)
{
	return wide ? !((wlz_rd64(a) ^ wlz_rd64(b)) & mask) : wlz_rd32(a) == wlz_rd32(b);
}

/* Whether a near candidate c that agrees with p in its first bytes may
 * gain: the byte that only a match long enough to gain at its distance
 * reaches agrees too (need[], as fast_consider asks; sources before the
 * block are measured whatever).  room: the bytes from p to the block's
 * end. */
static inline __attribute__((always_inline)) int near_may_gain(const uint8_t *need, uint64_t bstart,
								const uint8_t *src, uint64_t p, uint64_t c,
								uint64_t room)
{
	if (c < bstart)
		return 1;
	const uint64_t k = need[wlz_highbit64(p - c)];
	return k < room && src[p + k] == src[c + k];
}

/* Level 1's step (skip_step's, but cheap = 2): where literals are cheaper
 * still (every gaining match at least 7 bytes: FASTQ of Illumina and
 * PacBio), it grows from the first literal, with no slow start of 8: the
 * next match after one mostly starts further on, and XML, whose short
 * literal runs the slow start keeps, stays under this need. */
#define CHEAP1_NEED 6
static inline __attribute__((always_inline)) uint64_t skip1_step(uint64_t lits, unsigned skip, int cheap)
{
	if (cheap != 2)
		return skip_step(lits, skip, cheap);
	const uint64_t s = lits >> CHEAP_SKIP;
	return 1 + (s < CHEAP_CAP ? s : CHEAP_CAP);
}

/* What level 1's scan reads: loaded once into its registers. */
typedef struct scan1 {
	const uint8_t *src;
	uint32_t *st;
	uint64_t pend, bend, bstart, far_next;
	uint64_t mc, mr, rk;    /* need_mask (or 4 bytes), rep_mask, need_rep */
	const uint8_t *need;
} scan1;

/* Level 1's inner loop, shaped as zstd's fast finder: from p (entered, c
 * its candidate's entry) it only reads and enters the slot of the next
 * position q, and compares the first bytes at p's candidate and at the
 * repeat distance (4, or up to 8 where every gaining match is that long:
 * wide).  A hit must then match at the byte that only a match long enough
 * to gain at its distance reaches (near_may_gain): on FASTQ most 4-byte
 * hits are shorter.  The positions ahead are known (the step depends on
 * the anchor alone), so each is hashed once, one position before its slot
 * is read, when that slot is fetched; q's candidate's bytes are fetched
 * while p is compared, so that their cache misses overlap.  Returns the
 * first position with a hit, the last before the next far match or pend
 * (*pc: its candidate).  A stop where nothing hit only leaves the position
 * to the caller's full look, which finds nothing there either.  slen,
 * slog, skip and cheap (skip_step) are constants where it is inlined. */
static inline __attribute__((always_inline)) uint64_t scan1_run(const scan1 *sc, uint64_t p, uint64_t anchor,
								 uint64_t rep, uint32_t *pc, const unsigned slen,
								 const unsigned slog, const unsigned skip, const int cheap,
								 const int wide)
{
	const uint8_t *const src = sc->src;
	uint32_t *const st = sc->st;
	const uint64_t pend = sc->pend, lim = pend < sc->far_next ? pend : sc->far_next;
	const uint64_t mc = sc->mc, mr = sc->mr;
	uint32_t c = *pc;
	uint64_t q = p + skip1_step(p - anchor, skip, cheap);
	if (p >= lim || q >= pend)
		return p;
	uint64_t hq = wlz_hash_bytes(src + q, slen, slog);
	for (;;) {
		/* (the position after q; q again past pend, to read in bounds) */
		const uint64_t r = q + skip1_step(q - anchor, skip, cheap), rs = r < pend ? r : q;
		const uint64_t hr = wlz_hash_bytes(src + rs, slen, slog);
		__builtin_prefetch(st + hr);
		uint32_t *const eq = st + hq;
		const uint32_t cq = *eq;
		/* (cq = 0 is empty: a fetch never faults) */
		__builtin_prefetch(src + cq - 1);
		if (c && same_first(src + p, src + c - 1, mc, wide) &&
		    near_may_gain(sc->need, sc->bstart, src, p, (uint64_t)c - 1, sc->bend - p))
			break;
		/* (a repeat distance was a match's at an earlier position: it
		 * is under p) */
		if (rep && same_first(src + p, src + p - rep, mr, wide) && sc->rk < sc->bend - p &&
		    src[p + sc->rk] == src[p - rep + sc->rk])
			break;
		/* (q is entered only now: were p's match to end before q, the
		 * positions between would find a source ahead of them) */
		*eq = (uint32_t)(q + 1);
		p = q;
		c = cq;
		if (r >= lim)
			break;
		q = r;
		hq = hr;
	}
	*pc = c;
	return p;
}

/* Level 1: one way, greedy.  scan1_run finds the positions worth a look;
 * their hits are measured and priced here. */
static inline __attribute__((always_inline)) size_t fast1_body(wlz_parser *ps, const fstate *f0, uint64_t p,
								const unsigned slen, const unsigned slog,
								const unsigned skip, const int cheap, const int wide)
{
	/* (the table's shape as constants: fast_emit's entries inline) */
	fstate f1 = *f0;
	f1.slen = slen, f1.slog = slog, f1.wlog = 0, f1.lt = NULL;
	const fstate *const f = &f1;
	const uint8_t *const src = f->src;
	const uint64_t pend = ps->pend;
	uint32_t *const st = f->st;
	/* (far matches are few: where the next one starts is kept in the
	 * scan's state, out of the parser's memory, which the table stores
	 * alias) */
	scan1 sc = {src, st, pend, ps->bend, ps->bstart, ps->nfm ? ps->fm[0].start : UINT64_MAX,
		    f->mc, ps->rep_mask, ps->need_rep, ps->need};
	uint64_t anchor = p, rep = 0;
	size_t nt = 0;
	uint32_t *e = st + wlz_hash_bytes(src + p, slen, slog);
	uint32_t c = *e;
	*e = (uint32_t)(p + 1);
	while (p < pend) {
		p = scan1_run(&sc, p, anchor, rep, &c, slen, slog, skip, cheap, wide);
		const uint64_t limit = ps->bend - p;
		cand best = {0, 0, 0};
		if (rep && rep <= p && wlz_rd32(src + p) == wlz_rd32(src + p - rep))
			fast_consider(ps, p, p - rep, limit, 1, &best);
		if (c && wlz_rd32(src + c - 1) == wlz_rd32(src + p))
			fast_consider(ps, p, c - 1, limit, 0, &best);
		if (p >= sc.far_next) {
			fast_far(ps, p, rep, &best);
			sc.far_next = ps->fk < ps->nfm ? ps->fm[ps->fk].start : UINT64_MAX;
		}
		if (best.gain <= 0) {
			const uint64_t q = p + skip1_step(p - anchor, skip, cheap);
			if (q >= pend)
				break;
			e = st + wlz_hash_bytes(src + q, slen, slog);
			c = *e;
			*e = (uint32_t)(q + 1);
			p = q;
			continue;
		}
		rep = best.dist;
		p = anchor = fast_emit(ps, f, p, anchor, best, &nt);
		if (p < pend) {
			e = st + wlz_hash_bytes(src + p, slen, slog);
			c = *e;
			*e = (uint32_t)(p + 1);
		}
	}
	return nt;
}

/* (functions of their own, so that the compiler does not merge the
 * bodies into one with variable arguments) */
static __attribute__((noinline)) size_t parse_fast1_wide(wlz_parser *ps, const fstate *f, uint64_t p)
{
	return fast1_body(ps, f, p, FAST1_LEN, FAST1_LOG, 5, 0, 1);
}

static __attribute__((noinline)) size_t parse_fast1_narrow(wlz_parser *ps, const fstate *f, uint64_t p)
{
	return fast1_body(ps, f, p, FAST1_LEN, FAST1_LOG, 5, 0, 0);
}

static __attribute__((noinline)) size_t parse_fast1_cheap_wide(wlz_parser *ps, const fstate *f, uint64_t p)
{
	return fast1_body(ps, f, p, FAST1_LEN, FAST1_CHEAP_LOG, 5, 1, 1);
}

static __attribute__((noinline)) size_t parse_fast1_cheap_narrow(wlz_parser *ps, const fstate *f, uint64_t p)
{
	return fast1_body(ps, f, p, FAST1_LEN, FAST1_CHEAP_LOG, 5, 1, 0);
}

static __attribute__((noinline)) size_t parse_fast1_cheaper_wide(wlz_parser *ps, const fstate *f, uint64_t p)
{
	return fast1_body(ps, f, p, FAST1_LEN, FAST1_CHEAP_LOG, 5, 2, 1);
}

static __attribute__((noinline)) size_t parse_fast1_cheaper_narrow(wlz_parser *ps, const fstate *f, uint64_t p)
{
	return fast1_body(ps, f, p, FAST1_LEN, FAST1_CHEAP_LOG, 5, 2, 0);
}

static size_t parse_fast1(wlz_parser *ps, const fstate *f, uint64_t p)
{
	/* Wide compares pay where a gaining match is longer than 4 bytes
	 * (FASTQ: cheap literals); text mostly compares 4.  (a shift of 63
	 * keeps the step at 1 when skipping is off) */
	const int wide = f->mc != 0xFFFFFFFFu;
	const unsigned skip = ps->lp.skip ? ps->lp.skip : 63;
	const int cheap = skip_cheap(ps) ? 1 + (ps->need[0] >= CHEAP1_NEED) : 0;
	if (f->slen == FAST1_LEN && f->slog == (cheap ? FAST1_CHEAP_LOG : FAST1_LOG) && skip == 5) {
		if (cheap == 2)
			return wide ? parse_fast1_cheaper_wide(ps, f, p) : parse_fast1_cheaper_narrow(ps, f, p);
		if (cheap)
			return wide ? parse_fast1_cheap_wide(ps, f, p) : parse_fast1_cheap_narrow(ps, f, p);
		return wide ? parse_fast1_wide(ps, f, p) : parse_fast1_narrow(ps, f, p);
	}
	return fast1_body(ps, f, p, f->slen, f->slog, skip, cheap, 1);
}

/* Levels 2 to 4's scan: steps over the positions where fast_search would
 * measure nothing (no candidate passes its first compares and need[]),
 * entering them into the tables as it would, in a loop that does only
 * that, stepping as skip_step (cheap constant where inlined).  Returns the first position that has something to measure (not
 * entered), where a far match may start, or pend. */
static inline __attribute__((always_inline)) uint64_t scann_run(const wlz_parser *ps, const fstate *f, uint64_t p,
								 uint64_t anchor, uint64_t rep, const unsigned skip,
								 const int cheap)
{
	const uint8_t *const src = f->src;
	const uint64_t pend = ps->pend, mc = f->mc, mr = ps->rep_mask, rk = ps->need_rep;
	const uint64_t far_next = ps->fk < ps->nfm ? ps->fm[ps->fk].start : UINT64_MAX;
	const uint64_t end = pend < far_next ? pend : far_next;
	const unsigned ways = 1u << f->wlog;
	for (; p < end; p += skip_step(p - anchor, skip, cheap)) {
		const uint64_t x8 = wlz_rd64(src + p), room = ps->bend - p;
		if (p + SCAN_AHEAD + 8 < pend) {
			if (f->lt)
				__builtin_prefetch(&f->lt[wlz_hash_bytes(src + p + SCAN_AHEAD, FAST_LONG_LEN, f->llog)]);
			__builtin_prefetch(f->st + (wlz_hash_bytes(src + p + SCAN_AHEAD, f->slen, f->slog) << f->wlog));
		}
		if (rep && rep <= p && !((wlz_rd64(src + p - rep) ^ x8) & mr) && rk < room &&
		    src[p + rk] == src[p - rep + rk])
			break;
		uint32_t *const e = f->lt ? &f->lt[wlz_hash_bytes(src + p, FAST_LONG_LEN, f->llog)] : NULL;
		if (e && *e && wlz_rd64(src + *e - 1) == x8 &&
		    near_may_gain(ps->need, ps->bstart, src, p, *e - 1, room))
			break;
		uint32_t *const w = f->st + (wlz_hash_bytes(src + p, f->slen, f->slog) << f->wlog);
		unsigned i = 0;
		for (; i < ways && w[i]; i++) {
			const uint64_t c = w[i] - 1;
			if (!((wlz_rd64(src + c) ^ x8) & mc) && near_may_gain(ps->need, ps->bstart, src, p, c, room))
				break;
		}
		if (i < ways && w[i])
			break;
		/* (entered only now: a stop leaves the tables to fast_search) */
		const uint32_t v = (uint32_t)(p + 1);
		if (e)
			*e = v;
		short_put(w, ways, v);
	}
	return p;
}

/* Fetches the slots of the position e where a match chosen now would
 * end, and of the one after (the next scan starts there, its lazy step
 * looks at both): the match's measuring and emitting overlap their
 * misses. */
static inline __attribute__((always_inline)) void fast_fetch_at(const fstate *f, uint64_t e, uint64_t pend)
{
	if (e + 1 >= pend)
		return;
	fast_fetch(f, e);
	fast_fetch(f, e + 1);
}

/* Then, the slots fetched, the bytes of the candidates they name at e. */
static inline __attribute__((always_inline)) void fast_fetch_cands(const fstate *f, uint64_t e, uint64_t pend)
{
	if (e >= pend)
		return;
	const uint8_t *const src = f->src;
	/* (0 is empty: src - 1 is fetched, which never faults) */
	if (f->lt)
		__builtin_prefetch(src + f->lt[wlz_hash_bytes(src + e, FAST_LONG_LEN, f->llog)] - 1);
	const uint32_t *w = f->st + (wlz_hash_bytes(src + e, f->slen, f->slog) << f->wlog);
	for (unsigned i = 0; i < (1u << f->wlog); i++)
		__builtin_prefetch(src + w[i] - 1);
}

/* Levels 2 to 4: one or two tables of several ways, lazy steps.  The
 * tables' shape is made constant where this is inlined (a local copy of
 * the state with constant fields), which unrolls the ways' loops. */
static inline __attribute__((always_inline)) size_t fastn_body(wlz_parser *ps, const fstate *f0, uint64_t p,
								uint64_t pre, const unsigned slen,
								const unsigned slog, const unsigned wlog,
								const unsigned llog, const int has_lt,
								const unsigned kskip, const unsigned klazy,
								const unsigned knice)
{
	fstate f = *f0;
	f.slen = slen, f.slog = slog, f.wlog = wlog, f.llog = llog;
	/* (the long table known present: its tests drop out) */
	if (has_lt && !f.lt)
		__builtin_unreachable();
	/* (the positions before p, entered here where the tables' shape is
	 * constant: a piece enters most of its block again) */
	fast_preload(&f, pre, p, ps->n);
	/* (kskip not 0: the row's skip, lazy and nice as constants; a shift
	 * of 63 keeps the step at 1 when skipping is off) */
	const uint64_t pend = ps->pend, nice = kskip ? knice : ps->lp.nice;
	const unsigned skip = kskip ? kskip : ps->lp.skip ? ps->lp.skip : 63;
	const unsigned lazy = kskip ? klazy : ps->lp.lazy;
	const int cheap = skip_cheap(ps);
	uint64_t anchor = p, rep = 0;
	size_t nt = 0;
	while (p < pend) {
		p = cheap ? scann_run(ps, &f, p, anchor, rep, skip, 1) : scann_run(ps, &f, p, anchor, rep, skip, 0);
		if (p >= pend)
			break;
		cand c = fast_search(ps, &f, p, rep, nice);
		if (c.gain <= 0) {
			p += skip_step(p - anchor, skip, cheap);
			continue;
		}
		fast_fetch_at(&f, p + c.len, pend);
		for (unsigned k = 0; k < lazy && p + 1 < pend && c.len < nice; k++) {
			cand c2 = fast_search(ps, &f, p + 1, rep, nice);
			if (c2.gain <= c.gain + 16)
				break;
			c = c2;
			p++;
			fast_fetch_at(&f, p + c.len, pend);
		}
		rep = c.dist;
		fast_fetch_cands(&f, p + c.len, pend);
		p = anchor = fast_emit(ps, &f, p, anchor, c, &nt);
	}
	return nt;
}

/* Level 4's row whole: its step, lazy step and nice length constant too
 * (a function of its own, as the level 1 bodies). */
static __attribute__((noinline)) size_t parse_fast4(wlz_parser *ps, const fstate *f, uint64_t p, uint64_t pre)
{
	return fastn_body(ps, f, p, pre, 6, 17, 1, 19, 1, 5, 1, 64);
}

wlz_error wlz_parse_fast(wlz_parser *ps, size_t *ntok)
{
	WLZ_TRY(wlz_parse_far_prepass(ps));
	fstate f = {ps->src, ps->fst, ps->lp.fast >= 2 ? ps->flt : NULL, short_log(ps), long_log(ps),
		    ps->lp.short_len, short_ways_log(ps), 0};
	const uint64_t bstart = ps->bstart, pend = ps->pend, p = ps->pstart;
	if (ps->n >= UINT32_MAX)
		return WLZ_ERR_INTERNAL;  /* (a buffer position would not fit an entry) */
	/* Without a gap the bytes just before the block are near sources too. */
	const uint64_t pre = ps->gap ? bstart : ps->ws;
	f.mc = pre < bstart ? 0xFFFFFFFFu : ps->need_mask;
	/* (level 1 where literals are cheap: the smaller table) */
	if (ps->lp.fast == 1 && f.wlog == 0 && !ps->lp.lazy && f.slog == FAST1_LOG && skip_cheap(ps))
		f.slog = FAST1_CHEAP_LOG;
	memset(f.st, 0, sizeof(uint32_t) << (f.slog + f.wlog));
	if (f.lt)
		memset(f.lt, 0, sizeof(uint32_t) << f.llog);
	if (p >= pend) {
		*ntok = 0;
		return WLZ_OK;
	}
	/* (a piece after the block's first: the block's bytes before it
	 * too, every position, which the block's parse would hold there, as
	 * far back as that parse reaches; levels 2 to 4 enter them in
	 * fastn_body, where the tables' shape is constant) */
	if (ps->lp.fast == 1 && f.wlog == 0 && !ps->lp.lazy) {
		fast_preload(&f, pre, p, ps->n);
		*ntok = parse_fast1(ps, &f, p);
		return WLZ_OK;
	}
	/* the shapes of levels 2, 3 and 4 */
	if (f.lt && f.slen == 5 && f.slog == 17 && f.wlog == 0 && f.llog == 17)
		*ntok = fastn_body(ps, &f, p, pre, 5, 17, 0, 17, 1, 0, 0, 0);
	else if (f.lt && f.slen == 5 && f.slog == 16 && f.wlog == 1 && f.llog == 17)
		*ntok = fastn_body(ps, &f, p, pre, 5, 16, 1, 17, 1, 0, 0, 0);
	else if (f.lt && f.slen == 6 && f.slog == 17 && f.wlog == 1 && f.llog == 19)
		*ntok = ps->lp.skip == 5 && ps->lp.lazy == 1 && ps->lp.nice == 64
			    ? parse_fast4(ps, &f, p, pre)
			    : fastn_body(ps, &f, p, pre, 6, 17, 1, 19, 1, 0, 0, 0);
	else
		*ntok = fastn_body(ps, &f, p, pre, f.slen, f.slog, f.wlog, f.llog, 0, 0, 0, 0);
	return WLZ_OK;
}
