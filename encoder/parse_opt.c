/*
 * parse_opt.c - the price-based forward parse of the high levels: every
 * candidate length is offered to a price table, the cheapest path wins; a
 * second pass may price from the first parse's statistics.
 */
#include <math.h>
#include <stdlib.h>
#include "encoder/parse_impl.h"

/* Where statistics passes follow, the first pass prices a match's decode
 * time (MATCH_BASE) lower: the later passes price by the statistics of the
 * pass before alone, and from a parse of fewer literals they come closer to
 * the parse they tend to.  A single pass keeps the whole decode price, and
 * so do blocks of context-priced literals (FASTQ), where more matches lost. */
#ifndef FIRST_PASS_REBATE
#define FIRST_PASS_REBATE (16 * 8)
#endif
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

/* Price-based passes pay a cmd byte's literal run code as the run grows
 * (as zstd prices literal lengths): a path that ends in literals then
 * carries what its run will cost the next match, and paths to a position
 * compare fairly whatever their runs.  run_cost(lrun) is that share.  Not
 * where literals are priced by their context (FASTQ: use_ctx), whose cmd
 * bytes the codec's contexts predict far better than these order-0 prices:
 * there it made archives larger, and the match pays the whole byte. */
static inline uint32_t run_cost(const wlz_parser *ps, uint64_t lrun)
{
	if (lrun < WLZ_LIT_CODE_MAX)
		return ps->runcost[lrun];
	return ps->runcost[WLZ_LIT_CODE_MAX] + 16 * 6 * varint_bytes(lrun - WLZ_LIT_CODE_MAX);
}

/* A match's price on top of the path's: its cmd byte less the run code
 * the path paid, and the run code of no literals that the next token's
 * cmd byte pays at least. */
static inline uint32_t stat_match(const wlz_parser *ps, uint32_t lrun, uint64_t len, uint64_t dist, int rep)
{
	const uint32_t c = stat_cost(ps, lrun, len, dist, rep), paid = run_cost(ps, lrun);
	return (c > paid ? c - paid : 0) + ps->runcost[0];
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

/* litctx from counts of each byte under its predecessor's high nibble;
 * contexts seen fewer than 64 times keep the order-0 costs, and all do
 * where, over the whole block (decide), the predecessor predicts little
 * (as in wlz_parse_build_costs: a literal's neighbours in codec 2's
 * stream are other runs' bytes, and on text pricing by the source's made
 * archives larger).  The later passes keep the block's decision: the
 * first parse's literals alone said otherwise on FASTQ, and cost it. */
static void ctx_tables(wlz_parser *ps, const uint32_t (*c)[256], int decide)
{
	uint32_t all[256] = {0}, tot[16] = {0}, n = 0;
	double h0 = 0, h1 = 0;
	for (int h = 0; h < 16; h++)
		for (int b = 0; b < 256; b++)
			tot[h] += c[h][b], all[b] += c[h][b];
	for (int h = 0; h < 16; h++) {
		n += tot[h];
		for (int b = 0; b < 256; b++)
			if (c[h][b])
				h1 += c[h][b] * log2((double)tot[h] / c[h][b]);
	}
	for (int b = 0; b < 256; b++)
		if (all[b])
			h0 += all[b] * log2((double)n / all[b]);
	if (decide)
		ps->use_ctx = h1 < 0.85 * h0;
	for (int h = 0; h < 16; h++) {
		if (!ps->use_ctx || tot[h] < 64)
			memcpy(ps->litctx[h], ps->litcost, sizeof(ps->litcost));
		else
			cost_table(c[h], tot[h], ps->litctx[h]);
	}
}

void wlz_parse_ctx_costs(wlz_parser *ps)
{
	uint32_t c[16][256] = {{0}};
	wlz_ctx_count(ps->src, ps->bstart + (ps->bstart == 0), ps->bend, 1, c);
	ctx_tables(ps, (const uint32_t(*)[256])c, 1);
}

/* Statistics of a first parse, for the second. */
void wlz_parse_gather_stats(wlz_parser *ps, const wlz_token *tok, size_t nt)
{
	uint32_t cmd[256] = {0}, head[256] = {0}, lit[256] = {0}, lc[16][256] = {{0}};
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
		for (uint32_t i = 0; i < t->lit; i++) {
			lit[ps->src[pos + i]]++;
			if (pos + i > 0)
				lc[ps->src[pos + i - 1] >> 4][ps->src[pos + i]]++;
		}
		nlit += t->lit;
		pos += t->lit + t->mlen;
		prev = t->dist;
	}
	for (; pos < ps->bend; pos++, nlit++) {
		lit[ps->src[pos]]++;
		if (pos > 0)
			lc[ps->src[pos - 1] >> 4][ps->src[pos]]++;
	}
	cost_table(cmd, nt ? (uint32_t)nt : 1, ps->cmdcost);
	/* (the cmd bytes' literal run codes alone, for run_cost) */
	uint32_t run[256] = {0};
	for (int c = 0; c < 256; c++)
		run[c >> 5] += cmd[c];
	uint32_t rc[256];
	cost_table(run, nt ? (uint32_t)nt : 1, rc);
	memcpy(ps->runcost, rc, sizeof(ps->runcost));
	cost_table(head, nheads ? nheads : 1, ps->headcost);
	if (nlit > 256) {
		cost_table(lit, nlit, ps->litcost);
		ctx_tables(ps, (const uint32_t(*)[256])lc, 0);
	}
	ps->use_stats = 1;
	ps->pay_runs = !ps->use_ctx;
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
	if (ps->pay_runs) {
		for (; l <= L; l++)
			relax(ps, i, l, dist, base + stat_match(ps, ps->lrun[i], l, dist, rep));
	} else if (ps->use_stats) {
		for (; l <= L; l++)
			relax(ps, i, l, dist, base + stat_cost(ps, ps->lrun[i], l, dist, rep));
	} else {
		const uint32_t rebate = ps->lp.optimal > 1 && !ps->use_ctx ? FIRST_PASS_REBATE : 0;
		for (; l <= L; l++)
			relax(ps, i, l, dist, base + match_cost(l, dist, rep) - rebate);
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

/* Blocks of context-priced literals (FASTQ) walk at most this many links
 * (find_cands). */
#define FASTQ_DEPTH 128

/* The link before chain position x (+1, 0 = none) where its ring entry
 * still is x's. */
static inline uint64_t ring_link(const wlz_parser *ps, uint64_t p, uint64_t x)
{
	return p - x > ps->rmask ? 0 : ps->sring[x & ps->rmask];
}

/* Candidates at p, each longer than the last, into the cache: the near
 * chain, then the far table.  Once a candidate c matches best bytes, only
 * sources that match best + 1 are of use, and each of those has its bytes
 * j..j+slen in the chain of p + j for every j <= best - slen: the walk
 * moves to the chain (and offset j) whose next link reaches furthest back,
 * as LZ4HC's chain swap does, so the depth is spent past the many sources
 * that share a short prefix on text. */
static wlz_error find_cands(wlz_parser *ps, uint64_t p, uint64_t limit, size_t *at)
{
	const uint8_t *src = ps->src;
	const uint64_t slen = ps->lp.short_len;
	uint64_t best = 0;
	/* (FASTQ_DEPTH: their best sources come from the far table, and a
	 * deeper walk through reads of the same prefix costs them time for
	 * little) */
	unsigned depth = ps->use_ctx && ps->lp.short_depth > FASTQ_DEPTH ? FASTQ_DEPTH : ps->lp.short_depth;
	uint64_t c;
	uint64_t cn = chain_first(ps, p), j = 0;  /* cn: on the chain of p + j */
	uint64_t fc[WLZ_FAR_WAYS];
	unsigned nf = 0, k = 0;
	for (;;) {
		if (best >= limit || best >= ps->lp.nice)
			break;
		int near = 0;
		if (cn && depth && cn - 1 >= ps->ws + j) {
			depth--;
			c = cn - 1 - j;
			near = 1;
			uint64_t n = depth ? ring_link(ps, p, cn - 1) : 0;
			cn = n && n < cn ? n : 0;
			/* (the walk is a cache miss a link: fetch the next
			 * candidate's link and bytes while this one is measured) */
			if (cn && cn - 1 >= ps->ws + j) {
				__builtin_prefetch(&ps->sring[(cn - 1) & ps->rmask]);
				__builtin_prefetch(src + cn - 1 - j + best);
			}
		} else {
			cn = 0;
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
			if (near && o == c && cn && L > slen) {
				/* (positions from p on are not in the chain yet) */
				const uint64_t top = L - slen < p - c - 1 ? L - slen : p - c - 1;
				uint64_t far = cn - 1 - j;  /* the next candidate as things are */
				for (uint64_t t = 0; t <= top; t++) {
					const uint64_t n = ring_link(ps, p, c + t);
					if (!n || n - 1 >= c + t || n - 1 < ps->ws + t) {
						cn = 0;  /* no source matches best + 1 bytes */
						break;
					}
					if (n - 1 - t < far) {
						far = n - 1 - t;
						cn = n;
						j = t;
					}
				}
			}
		}
	}
	return WLZ_OK;
}

wlz_error wlz_parse_optimal(wlz_parser *ps, int reuse, size_t *ntok)
{
	const uint8_t *src = ps->src;
	const uint64_t bstart = ps->bstart, blen = ps->bend - bstart;
	const uint64_t m = ps->pend > bstart ? ps->pend - bstart : 0;
	for (uint64_t i = 0; i <= blen; i++)
		ps->price[i] = INF_PRICE;
	ps->price[0] = ps->pay_runs ? ps->runcost[0] : 0;
	ps->orep[0] = 0;
	ps->olen[0] = 0;
	ps->lrun[0] = 0;
	uint64_t skip_to = 0;
	size_t at = 0;
	for (uint64_t i = 0; i < blen; i++) {
		const unsigned h = bstart + i > 0 ? src[bstart + i - 1] >> 4 : 0;
		uint32_t lc = ps->price[i] + ps->litctx[h][src[bstart + i]];
		if (ps->pay_runs)
			lc += run_cost(ps, ps->lrun[i] + 1) - run_cost(ps, ps->lrun[i]);
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
