/*
 * parse_far.c - the far matches of a block, found before its parse.
 */
#include <stdlib.h>
#include "encoder/parse_impl.h"

/* The far table's matches of the block, found anchor by anchor before the
 * parse.  The table is far larger than the caches: looked up in one pass,
 * each bucket fetched well ahead, its misses overlap where a lookup inside
 * the parse would wait for each. */
static inline __attribute__((always_inline)) wlz_error prepass_body(wlz_parser *ps, const unsigned depth)
{
	ps->nfm = 0;
	ps->fk = 0;
	const wlz_far *f = ps->v->far;
	/* (gap_lo 0: no source may lie before the gap, as in the input's
	 * first gap + 1 blocks, whose lookups would all find nothing) */
	if (!f || !ps->lp.long_depth || !ps->nanc || !ps->gap_lo)
		return WLZ_OK;
	if (ps->fm_cap < ps->nanc) {
		struct wlz_fmatch *m = realloc(ps->fm, ps->nanc * sizeof(*m));
		if (!m)
			return WLZ_ERR_NOMEM;
		ps->fm = m;
		ps->fm_cap = ps->nanc;
	}
	const uint8_t *src = ps->src;
	const uint64_t bstart = ps->bstart, pend = ps->pend;
	uint64_t covered = ps->pstart, floor = ps->pstart;
	/* (a piece: its anchors only, the first found by bisection) */
	size_t k0 = 0;
	for (size_t hi = ps->nanc; k0 < hi;) {
		const size_t m = k0 + (hi - k0) / 2;
		if (bstart + ps->anc[m].pos < ps->pstart)
			k0 = m + 1;
		else
			hi = m;
	}
	/* Two stages ahead: the bucket, then the bytes its entries name; the
	 * candidates read for the second stage are kept for their anchor's
	 * turn, in a ring of twice AHEAD (a power of two) so that the slot
	 * filled ahead is never the one in use.  Buckets are fetched further
	 * ahead (BUCKET_AHEAD): where the parse is quick (level 1, FASTQ),
	 * AHEAD anchors take less time than a miss to memory. */
	enum { AHEAD = 8, RING = 2 * AHEAD, BUCKET_AHEAD = 8 * AHEAD };
	uint64_t ring[RING][WLZ_FAR_WAYS];
	unsigned rn[RING];
	for (size_t k = k0; k < k0 + AHEAD && k < ps->nanc; k++)
		rn[k % RING] = far_bucket_cands(ps, k, bstart + ps->anc[k].pos, ring[k % RING], depth);
	for (size_t k = k0; k < ps->nanc; k++) {
		if (k + BUCKET_AHEAD < ps->nanc)
			__builtin_prefetch(wlz_far_bucket(f, ps->anc[k + BUCKET_AHEAD].bucket));
		if (k + AHEAD < ps->nanc) {
			uint64_t *ahead = ring[(k + AHEAD) % RING];
			const unsigned na = far_bucket_cands(ps, k + AHEAD, bstart + ps->anc[k + AHEAD].pos, ahead, depth);
			rn[(k + AHEAD) % RING] = na;
			for (unsigned i = 0; i < na; i++)
				__builtin_prefetch(src + ahead[i]);
		}
		const uint64_t *fc = ring[k % RING];
		const unsigned n = rn[k % RING];
		const uint64_t p = bstart + ps->anc[k].pos;
		if (p >= pend)
			break;
		if (p + f->hash_len <= covered)
			continue;  /* inside the last match: it would find it again */
		cand best = {0, 0, 0};
		for (unsigned i = 0; i < n; i++)
			fast_consider(ps, p, fc[i], ps->bend - p, 0, &best);
		if (best.gain <= 0)
			continue;
		uint64_t s = p, L = best.len;
		const uint64_t d = best.dist;
		while (s > floor && s > d && src[s - 1] == src[s - 1 - d] && diag_cut(ps, s - 1, s - 1 - d, L + 1) == L + 1) {
			s--;
			L++;
		}
		struct wlz_fmatch *m = &ps->fm[ps->nfm++];
		m->start = s;
		m->end = s + L;
		m->dist = d;
		floor = s;  /* starts stay in order */
		covered = m->end > covered ? m->end : covered;
	}
	return WLZ_OK;
}

/* (a bucket searched whole, as levels 4 and up do: no depth count) */
static wlz_error prepass(wlz_parser *ps)
{
	return ps->lp.long_depth >= WLZ_FAR_WAYS ? prepass_body(ps, WLZ_FAR_WAYS)
						 : prepass_body(ps, ps->lp.long_depth);
}

wlz_error wlz_parse_far_prepass(wlz_parser *ps)
{
	const wlz_error err = prepass(ps);
	if (ps->far_done) {
		void (*fn)(void *) = ps->far_done;
		ps->far_done = NULL;
		fn(ps->far_arg);
	}
	return err;
}
