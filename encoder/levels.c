/*
 * levels.c - dependency levels and the depth limit.
 *
 * Byte map: map[q] = 0 for a literal byte, k + 1 for a byte written by a
 * level-k match (saturating at 255).  A match's level is the largest map
 * value over the source bytes that lie before its own position (bytes it
 * writes itself, when source and destination overlap, are copied by the
 * same token in order and add no level).
 *
 * The depth limit's rewrite re-points source bytes whose writer's level is
 * too high at that writer's own source.  A run that cannot be re-pointed,
 * or a piece shorter than a match can be, becomes literals.  (It is a
 * safety net: the depth-limited parser rarely leaves it work.)
 */
#include <stdlib.h>
#include "encoder/levels.h"
#include "format/format.h"

typedef struct seg {
	uint64_t pos, src;
	uint32_t len;
	uint8_t map;            /* level + 1 of the match that wrote it */
} seg;

typedef struct piece {
	uint64_t dst, src;      /* src == UINT64_MAX: literals */
	uint64_t len;
	unsigned level;         /* set once the piece is final, 255 = 255 or more */
} piece;

struct wlz_levels {
	uint64_t n;
	unsigned bl;
	int depth;
	uint8_t *map;
	seg **segs;             /* per block: its final matches, by position */
	size_t *nseg;
	uint64_t cur;           /* block being rewritten */
	piece *pc;
	size_t npc, pc_cap;
	size_t merge_from;      /* pieces before this index are final */
	size_t seg_cap;         /* capacity of segs[cur] */
};

wlz_levels *wlz_levels_create(uint64_t n, unsigned block_log, int depth)
{
	wlz_levels *lv = calloc(1, sizeof(*lv));
	if (!lv)
		return NULL;
	uint64_t nb = wlz_block_count_for(n, block_log);
	lv->n = n;
	lv->bl = block_log;
	lv->depth = depth;
	lv->map = calloc(n ? n : 1, 1);
	lv->segs = calloc(nb ? nb : 1, sizeof(seg *));
	lv->nseg = calloc(nb ? nb : 1, sizeof(size_t));
	if (!lv->map || !lv->segs || !lv->nseg) {
		wlz_levels_free(lv);
		return NULL;
	}
	return lv;
}

uint8_t *wlz_levels_map(wlz_levels *lv) { return lv->map; }

void wlz_levels_free(wlz_levels *lv)
{
	if (!lv)
		return;
	uint64_t nb = wlz_block_count_for(lv->n, lv->bl);
	for (uint64_t b = 0; lv->segs && b < nb; b++)
		free(lv->segs[b]);
	free(lv->segs);
	free(lv->nseg);
	free(lv->map);
	free(lv->pc);
	free(lv);
}

/* Index of the first match of q's block that ends after q. */
static size_t first_ending_after(const wlz_levels *lv, uint64_t q)
{
	const seg *s = lv->segs[q >> lv->bl];
	size_t lo = 0, hi = lv->nseg[q >> lv->bl];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s[mid].pos + s[mid].len <= q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The match that wrote byte q, or NULL for a literal byte. */
static const seg *writer(const wlz_levels *lv, uint64_t q)
{
	uint64_t b = q >> lv->bl;
	size_t i = first_ending_after(lv, q);
	if (i < lv->nseg[b] && lv->segs[b][i].pos <= q)
		return &lv->segs[b][i];
	return NULL;
}

/* Start of the next match-written byte at or after q in q's block (or the
 * block's end), for skipping literal gaps. */
static uint64_t next_written(const wlz_levels *lv, uint64_t q)
{
	uint64_t b = q >> lv->bl;
	size_t i = first_ending_after(lv, q);
	if (i < lv->nseg[b])
		return lv->segs[b][i].pos > q ? lv->segs[b][i].pos : q;
	uint64_t end = (b + 1) << lv->bl;
	return end < lv->n ? end : lv->n;
}

static int add_piece(wlz_levels *lv, uint64_t dst, uint64_t src, uint64_t len)
{
	if (len == 0)
		return 1;
	if (lv->npc > lv->merge_from) {
		piece *p = &lv->pc[lv->npc - 1];
		int lit = src == UINT64_MAX, plit = p->src == UINT64_MAX;
		if (p->dst + p->len == dst && lit == plit && (lit || p->src + p->len == src)) {
			p->len += len;
			return 1;
		}
	}
	if (lv->npc == lv->pc_cap) {
		size_t cap = lv->pc_cap ? lv->pc_cap * 2 : 64;
		piece *q = realloc(lv->pc, cap * sizeof(*q));
		if (!q)
			return 0;
		lv->pc = q;
		lv->pc_cap = cap;
	}
	lv->pc[lv->npc++] = (piece){dst, src, len, 0};
	return 1;
}

/* Splits the copy of src[0..len) to dst into pieces whose sources are all
 * acceptable, following writers back to their sources. */
static int resolve(wlz_levels *lv, uint64_t dst, uint64_t src, uint64_t len, unsigned limit, int hops)
{
	uint64_t q = src, end = src + len;
	while (q < end) {
		uint64_t at = dst + (q - src);
		if (q >= dst) {
			/* The token's own output: copied in order, always fine. */
			if (!add_piece(lv, at, q, end - q))
				return 0;
			break;
		}
		const seg *u = writer(lv, q);
		if (!u) {
			uint64_t stop = next_written(lv, q);
			if (stop > end)
				stop = end;
			if (stop > dst)
				stop = dst;
			if (stop <= q)
				stop = q + 1;
			if (!add_piece(lv, at, q, stop - q))
				return 0;
			q = stop;
			continue;
		}
		uint64_t stop = u->pos + u->len;
		if (stop > end)
			stop = end;
		if (stop > dst)
			stop = dst;
		if (u->map <= limit) {
			if (!add_piece(lv, at, q, stop - q))
				return 0;
		} else if (u->src + u->len <= u->pos && hops < 64) {
			/* u copied these bytes from its own source: read there. */
			if (!resolve(lv, at, u->src + (q - u->pos), stop - q, limit, hops + 1))
				return 0;
		} else if (!add_piece(lv, at, UINT64_MAX, stop - q)) {
			return 0;  /* u overlaps itself: periodic bytes, keep them literal */
		}
		q = stop;
	}
	return 1;
}

static unsigned level_of(const wlz_levels *lv, uint64_t dst, uint64_t src, uint64_t len)
{
	uint64_t end = src + len < dst ? src + len : dst;
	unsigned m = 0;
	for (uint64_t q = src; q < end; q++)
		if (lv->map[q] > m)
			m = lv->map[q];
	return m;  /* map values are level + 1, so the max is this token's level */
}

/* Short match pieces become literals. */
static void drop_short(wlz_levels *lv, size_t from)
{
	for (size_t k = from; k < lv->npc; k++)
		if (lv->pc[k].src != UINT64_MAX && lv->pc[k].len < WLZ_MINMATCH)
			lv->pc[k].src = UINT64_MAX;
}

wlz_error wlz_levels_block(wlz_levels *lv, const uint8_t *src, uint64_t b, const wlz_token *tok, size_t ntok,
			   wlz_token **out, size_t *nout, unsigned *max_level)
{
	(void)src;
	lv->cur = b;
	uint64_t pos = b << lv->bl;
	free(lv->segs[b]);
	lv->segs[b] = NULL;
	lv->nseg[b] = 0;
	lv->seg_cap = 0;
	unsigned limit = lv->depth < 0 ? 255 : (unsigned)lv->depth;
	/* Pieces of all tokens, in output order. */
	lv->npc = 0;
	lv->merge_from = 0;
	for (size_t k = 0; k < ntok; k++) {
		const wlz_token *t = &tok[k];
		if (!add_piece(lv, pos, UINT64_MAX, t->lit))
			return WLZ_ERR_NOMEM;
		pos += t->lit;
		uint64_t s = pos - t->dist;
		size_t first = lv->npc;
		lv->merge_from = first;
		if (!add_piece(lv, pos, s, t->mlen))
			return WLZ_ERR_NOMEM;
		/* Depth limit: re-resolve pieces that read too deep. */
		if (lv->depth >= 0) {
			size_t end = lv->npc;
			for (size_t i = first; i < end; i++) {
				piece p = lv->pc[i];
				if (p.src == UINT64_MAX || level_of(lv, p.dst, p.src, p.len) <= limit)
					continue;
				lv->pc[i].src = UINT64_MAX;  /* placeholder, replaced below */
				size_t at = lv->npc;
				lv->merge_from = at;
				if (!resolve(lv, p.dst, p.src, p.len, limit, 0))
					return WLZ_ERR_NOMEM;
				drop_short(lv, at);
				/* Move the new pieces into place: shift the tail. */
				size_t nnew = lv->npc - at;
				piece *tmp = malloc(nnew * sizeof(piece));
				if (!tmp)
					return WLZ_ERR_NOMEM;
				memcpy(tmp, lv->pc + at, nnew * sizeof(piece));
				lv->npc = at;
				size_t tail = end - i - 1;
				if (lv->npc + nnew > lv->pc_cap) {
					size_t cap = (lv->npc + nnew) * 2;
					piece *q = realloc(lv->pc, cap * sizeof(piece));
					if (!q) {
						free(tmp);
						return WLZ_ERR_NOMEM;
					}
					lv->pc = q;
					lv->pc_cap = cap;
				}
				memmove(lv->pc + i + nnew, lv->pc + i + 1, (tail + (lv->npc - end)) * sizeof(piece));
				memcpy(lv->pc + i, tmp, nnew * sizeof(piece));
				free(tmp);
				lv->npc += nnew - 1;
				end += nnew - 1;
				i += nnew - 1;
			}
		}
		/* Levels are set piece by piece: later pieces may read earlier ones. */
		for (size_t i = first; i < lv->npc; i++) {
			piece *p = &lv->pc[i];
			if (p->src == UINT64_MAX)
				continue;
			unsigned m = level_of(lv, p->dst, p->src, p->len) + 1;
			if (lv->depth >= 0 && m - 1 > limit) {
				/* It reads an earlier piece of its own split token, which
				 * resolve could not see: rare, keep the bytes literal. */
				p->src = UINT64_MAX;
				continue;
			}
			p->level = m - 1 > 255 ? 255 : m - 1;
			if (m > 255)
				m = 255;
			memset(lv->map + p->dst, (int)m, p->len);
			/* Visible at once: later matches of this block may read it. */
			if (lv->nseg[b] == lv->seg_cap) {
				size_t cap = lv->seg_cap ? lv->seg_cap * 2 : 256;
				seg *q = realloc(lv->segs[b], cap * sizeof(seg));
				if (!q)
					return WLZ_ERR_NOMEM;
				lv->segs[b] = q;
				lv->seg_cap = cap;
			}
			lv->segs[b][lv->nseg[b]++] = (seg){p->dst, p->src, (uint32_t)p->len, (uint8_t)m};
		}
		lv->merge_from = lv->npc;
		pos += t->mlen;
	}
	/* Turn pieces back into tokens: literal pieces join the next match. */
	size_t cap = lv->npc + 1;
	wlz_token *o = malloc(cap * sizeof(*o));
	if (!o)
		return WLZ_ERR_NOMEM;
	size_t no = 0;
	uint64_t lits = 0;
	unsigned maxl = 0;
	for (size_t i = 0; i < lv->npc; i++) {
		piece *p = &lv->pc[i];
		if (p->src == UINT64_MAX) {
			memset(lv->map + p->dst, 0, p->len);
			lits += p->len;
			continue;
		}
		o[no] = (wlz_token){(uint32_t)lits, (uint32_t)p->len, p->dst - p->src};
		if (p->level > maxl)
			maxl = p->level;
		no++;
		lits = 0;
	}
	*out = o;
	*nout = no;
	*max_level = maxl;
	return WLZ_OK;
}
