/*
 * parse_lazy.c - the greedy and lazy parse over the near chain and the far
 * table, with every rule (flattening and depth limits included).
 */
#include "encoder/parse_impl.h"


/* Measures the candidate c at p under every rule and keeps it in *best
 * when it gains more; 1 when it reached the nice length. */
static inline int measure(wlz_parser *ps, uint64_t p, uint64_t c, uint64_t limit, cand *best)
{
	if (!ps->map && !may_gain(ps, p, c, best->len, limit))
		return 0;
	uint64_t o = c;
	uint64_t L = diag_match(ps, p, &o, limit);
	unsigned lv = 0;
	if (ps->map)
		L = depth_cut(ps, p, o, L, &lv);
	if (L < WLZ_MINMATCH)
		return 0;
	const int64_t g = flat_gain(ps, p, o, &L, 0, level_price(ps, L, lv));
	if (g <= best->gain)
		return 0;
	best->len = L;
	best->dist = p - o;
	best->gain = g;
	return L >= ps->lp.nice;
}

/* Under a depth limit: the far table's candidates at p (an anchor, or
 * none), each cut by level, into *best. */
static void far_search(wlz_parser *ps, uint64_t p, uint64_t limit, cand *best)
{
	uint64_t fc[WLZ_FAR_WAYS];
	const unsigned nf = far_cands(ps, p, fc);
	for (unsigned k = 0; k < nf && best->len < limit; k++)
		if (measure(ps, p, fc[k], limit, best))
			return;
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
	uint64_t cn = chain_first(ps, p);
	while (cn && depth--) {
		const uint64_t c = cn - 1;
		cn = depth ? chain_next(ps, p, c) : 0;
		if (best.len >= limit)
			break;
		if (measure(ps, p, c, limit, &best))
			return best;
	}
	/* far matches: anywhere in the window */
	if (!ps->map) {
		const struct wlz_fmatch *m[2];
		const unsigned nm = far_matches_at(ps, p, m);
		for (unsigned k = 0; k < nm; k++) {
			uint64_t L = m[k]->end - p;
			const int64_t g = flat_gain(ps, p, p - m[k]->dist, &L, m[k]->dist == rep, 0);
			if (L >= WLZ_MINMATCH && g > best.gain) {
				best.len = L;
				best.dist = m[k]->dist;
				best.gain = g;
			}
		}
		return best;
	}
	far_search(ps, p, limit, &best);
	return best;
}

/* How far after p the next far-table anchor lies, if less than step;
 * else step. */
static inline uint64_t next_anchor(const wlz_parser *ps, uint64_t p, uint64_t step)
{
	const uint64_t rel = p - ps->bstart;
	size_t k = ps->ak;
	while (k < ps->nanc && ps->anc[k].pos <= rel)
		k++;
	return k < ps->nanc && ps->anc[k].pos - rel < step ? ps->anc[k].pos - rel : step;
}

/* A skipping step of a depth-limited parse from p (no match there; levels
 * 1 to 4 with --flatten=full, the only skipping parse here under a depth
 * limit): the far table is still looked up at the anchors it passes,
 * where another copy of the bytes may lie anywhere in the window (a skip
 * that passed them made archives of FASTQ resampled from real reads 8 to
 * 14% larger at depths 2 and 10).  Returns where to go on, and in *c a
 * match found there, if any. */
static uint64_t step_far(wlz_parser *ps, uint64_t p, uint64_t step, cand *c)
{
	const uint64_t end = p + step < ps->pend ? p + step : ps->pend;
	for (uint64_t q = p + next_anchor(ps, p, step); q < end; q += next_anchor(ps, q, end - q)) {
		cand f = {0, 0, 0};
		far_search(ps, q, ps->bend - q, &f);
		if (f.gain > 0) {
			*c = f;
			return q;
		}
	}
	return p + step;
}

size_t wlz_parse_lazy(wlz_parser *ps)
{
	const uint8_t *src = ps->src;
	uint64_t p = ps->bstart, anchor = p, rep = 0;
	size_t nt = 0;
	const int cheap = skip_cheap(ps);
	while (p < ps->pend) {
		cand c = search(ps, p, rep);
		if (c.gain <= 0) {
			uint64_t step = ps->lp.skip ? skip_step(p - anchor, ps->lp.skip, cheap) : 1;
			/* (in a long run of literals the cheap step grows as the
			 * plain one, as every anchor passed is looked up: measured
			 * while this parse served every depth-limited archive of
			 * levels 1 to 4, PacBio's noisy reads at depth 10 ran 22%
			 * faster for +0.3%) */
			if (cheap && ps->map && step < 1 + ((p - anchor) >> ps->lp.skip))
				step = 1 + ((p - anchor) >> ps->lp.skip);
			if (step == 1 || !ps->map) {
				p += step;
				continue;
			}
			p = step_far(ps, p, step, &c);
			if (c.gain <= 0)
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
		/* (the rules first: the level map of a byte the block may not
		 * read may be in another thread's hands) */
		while (p > anchor && p > c.dist && src[p - 1] == src[p - 1 - c.dist] &&
		       diag_cut(ps, p - 1, p - 1 - c.dist, c.len + 1) == c.len + 1 &&
		       (!ps->map || ps->map[p - 1 - c.dist] <= ps->max_map) &&
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
			memset(ps->wmap + (p - ps->bstart), 1, c.len);
			ps->nw++;
		}
		nt++;
		rep = c.dist;
		p += c.len;
		anchor = p;
	}
	return nt;
}
