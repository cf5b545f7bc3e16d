/*
 * block_decode.c - the hot loop: streams to bytes.
 *
 * Copies are 16 bytes wide when the destination has room inside the block;
 * near the block's end they fall back to exact copies, so a block never
 * touches bytes another thread may be writing.
 */
#include <stdlib.h>
#include "cpu_decoder/block_decode.h"
#include "cpu_decoder/streams.h"

struct wlz_bdec {
	wlz_sopen *so;       /* the block's streams, decoded */
	wlz_dtoken *tok;
	size_t tok_cap;
	wlz_xxh3_state *hs;  /* the block's checksum, fed as bytes become final */
	uint64_t window;     /* the archive's: no match reaches back further */
	const uint8_t *hashed;  /* output before this is in hs */
	const uint8_t *st[WLZ_NSTREAMS];  /* the opened block's streams */
	size_t ntok, tail;   /* wlz_bdec_parse's: tokens in tok, literals after them */
};

wlz_bdec *wlz_bdec_create(void)
{
	wlz_bdec *bd = calloc(1, sizeof(*bd));
	if (!bd)
		return NULL;
	bd->so = wlz_sopen_create();
	bd->window = UINT64_MAX;
	bd->hs = wlz_xxh3_create();
	if (!bd->so || !bd->hs) {
		wlz_bdec_free(bd);
		return NULL;
	}
	return bd;
}

void wlz_bdec_set_window(wlz_bdec *bd, uint64_t window)
{
	bd->window = window;
}

void wlz_bdec_free(wlz_bdec *bd)
{
	if (!bd)
		return;
	wlz_sopen_free(bd->so);
	wlz_xxh3_free(bd->hs);
	free(bd->tok);
	free(bd);
}

static inline void copy16(uint8_t *d, const uint8_t *s) { memcpy(d, s, 16); }

/* Reads a varint without branching on its length.  Streams have at least 8
 * readable bytes after their end (WLZ_STREAM_SLACK, or the footer for raw streams), so
 * the 8-byte load is safe; the caller checks the result against the end. */
static inline int get_len(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t w = wlz_rd64(p);
	uint64_t stop = ~w & 0x8080808080808080ull;
	if (WLZ_UNLIKELY(stop == 0))
		return wlz_get_varint(pp, end, v);  /* 9 or 10 bytes: rare */
	unsigned nb = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
	if (WLZ_UNLIKELY(p + nb > end))
		return 0;
	if (WLZ_UNLIKELY(nb > 1 && p[nb - 1] == 0))
		return 0;  /* overlong */
	uint64_t x = w & 0x7F7F7F7F7F7F7F7Full;
	if (nb < 8)
		x &= ((uint64_t)1 << (8 * nb)) - 1;
	/* Squeeze the 7-bit groups together: pairs, quads, then eights. */
	x = (x & 0x007F007F007F007Full) | ((x & 0x7F007F007F007F00ull) >> 1);
	x = (x & 0x00003FFF00003FFFull) | ((x & 0x3FFF00003FFF0000ull) >> 2);
	x = (x & 0x000000000FFFFFFFull) | ((x & 0x0FFFFFFF00000000ull) >> 4);
	*v = x;
	*pp = p + nb;
	return 1;
}

/* Where parsing of a block's streams stands. */
typedef struct cursor {
	const uint8_t *c0, *cp, *cend, *np, *nend, *fp, *lw, *fend;
	uint64_t pos, bend, blen, lit, nlit, dist, window;
} cursor;

static wlz_error cursor_open(cursor *cu, const uint8_t *const st[WLZ_NSTREAMS], const wlz_block_entry *e,
			     uint64_t bstart, uint64_t bend, uint64_t window)
{
	cu->window = window;
	cu->c0 = cu->cp = st[WLZ_S_CMD];
	cu->cend = cu->cp + e->rsize[WLZ_S_CMD];
	cu->np = st[WLZ_S_LEN];
	cu->nend = cu->np + e->rsize[WLZ_S_LEN];
	cu->fp = st[WLZ_S_OFF];
	cu->fend = cu->fp + e->rsize[WLZ_S_OFF];
	cu->pos = bstart;
	cu->bend = bend;
	cu->blen = bend - bstart;
	cu->lit = 0;
	cu->nlit = e->rsize[WLZ_S_LIT];
	cu->dist = 0;
	/* The off stream holds one head per explicit offset, then low bytes. */
	size_t nheads = 0;
	for (const uint8_t *q = cu->cp; q < cu->cend; q++)
		nheads += !(*q & 16);
	if (nheads > e->rsize[WLZ_S_OFF])
		return wlz_fail(WLZ_ERR_BAD_TOKEN, "%zu explicit offsets but an off stream of %u bytes",
				nheads, e->rsize[WLZ_S_OFF]);
	cu->lw = cu->fp + nheads;
	return WLZ_OK;
}

/* Names the token just read (cp is past its cmd byte) and what it broke. */
static __attribute__((cold, noinline)) wlz_error bad_token(const cursor *cu, const uint8_t *cp,
							     const char *what)
{
	return wlz_fail(WLZ_ERR_BAD_TOKEN, "token %zu: %s", (size_t)(cp - cu->c0) - 1, what);
}

/* Pass 1: up to max tokens to (lit, mlen, absolute source), checking every
 * bound, so that pass 2 is copies only.  *n receives the count (0 at the
 * end).  Built twice: tiny = 1 for a block under 128 bytes, where a
 * one-byte extension may exceed the block and the slow way names that. */
static inline __attribute__((always_inline)) wlz_error parse_impl(cursor *cu, wlz_dtoken *t, size_t max, size_t *n,
								  const uint64_t tiny)
{
	const uint8_t *cp = cu->cp, *np = cu->np, *fp = cu->fp, *lw = cu->lw;
	const uint8_t *const cend = cp + (max < (size_t)(cu->cend - cp) ? max : (size_t)(cu->cend - cp));
	const uint8_t *const nend = cu->nend, *const fend = cu->fend;
	const uint64_t blen = cu->blen, bend = cu->bend, nlit = cu->nlit, window = cu->window;
	uint64_t pos = cu->pos, lit = cu->lit, dist = cu->dist;
	wlz_dtoken *const t0 = t;
	while (cp < cend) {
		const unsigned c = *cp++;
		uint64_t L = c >> 5, M = c & 15;
		/* Extensions without a branch on whether there is one (a third of
		 * the matches have one, at random): a one-byte extension is added
		 * times 0 or 1; longer ones, or a len stream at its end, go the
		 * slow way.  np <= nend, and the stream has WLZ_STREAM_SLACK after it. */
		uint64_t lx = L == WLZ_LIT_CODE_MAX, b = *np;
		if (WLZ_UNLIKELY(lx & ((b >> 7) | (np >= nend) | tiny))) {
			uint64_t x;
			if (!get_len(&np, nend, &x) || x > blen)
				return bad_token(cu, cp, "bad literal length (len stream)");
			L += x;
		} else {
			L += b & (0 - lx);
			np += lx;
		}
		uint64_t mx = M == WLZ_MATCH_CODE_MAX;
		b = *np;
		if (WLZ_UNLIKELY(mx & ((b >> 7) | (np >= nend) | tiny))) {
			uint64_t x;
			if (!get_len(&np, nend, &x) || x > blen)
				return bad_token(cu, cp, "bad match length (len stream)");
			M += x;
		} else {
			M += b & (0 - mx);
			np += mx;
		}
		M += WLZ_MINMATCH;
		if (c & 16) {
			if (WLZ_UNLIKELY(dist == 0))
				return bad_token(cu, cp, "repeat offset before any offset in the block");
		} else {
			/* Heads cannot run out: there are exactly nheads of them. */
			const unsigned h = *fp++, k = h >> 5;
			uint64_t low = wlz_rd64(lw) & (((uint64_t)1 << (8 * k)) - 1);
			lw += k;
			if (WLZ_UNLIKELY(lw > fend))
				return bad_token(cu, cp, "off stream ends inside an offset");
			dist = ((uint64_t)(h & 31) << (8 * k) | low) + 1;
		}
		/* Literals and match end inside the block (pos <= bend holds, so
		 * bend - pos cannot wrap); the source lies in output that exists
		 * before this token. */
		lit += L;
		if (WLZ_UNLIKELY(lit > nlit))
			return bad_token(cu, cp, "literal run past the end of the lit stream");
		/* L and M are at most max(blen, 127) + 22: no wrap. */
		if (WLZ_UNLIKELY(L + M > bend - pos))
			return bad_token(cu, cp, L > bend - pos ? "literal run past the end of the block"
								: "match past the end of the block");
		pos += L;
		if (WLZ_UNLIKELY(dist > pos))
			return bad_token(cu, cp, "match source before the start of the output");
		if (WLZ_UNLIKELY(dist > window))
			return bad_token(cu, cp, "match reaches back further than the window");
		t->lit = (uint32_t)L;
		t->mlen = (uint32_t)M;
		t->src = pos - dist;
		t++;
		pos += M;
	}
	cu->cp = cp;
	cu->np = np;
	cu->fp = fp;
	cu->lw = lw;
	cu->pos = pos;
	cu->lit = lit;
	cu->dist = dist;
	*n = (size_t)(t - t0);
	return WLZ_OK;
}

static wlz_error parse_chunk(cursor *cu, wlz_dtoken *t, size_t max, size_t *n)
{
	return cu->blen < 128 ? parse_impl(cu, t, max, n, 1) : parse_impl(cu, t, max, n, 0);
}

/* After the last chunk: every stream consumed exactly, literals end the
 * block.  Returns the literal tail's length through *tail. */
static wlz_error cursor_close(const cursor *cu, size_t *tail)
{
	if (cu->cp != cu->cend)
		return wlz_fail(WLZ_ERR_INTERNAL, "cmd stream not consumed");
	if (cu->np != cu->nend)
		return wlz_fail(WLZ_ERR_BAD_TOKEN, "%zu unread bytes in the len stream",
				(size_t)(cu->nend - cu->np));
	if (cu->lw != cu->fend)
		return wlz_fail(WLZ_ERR_BAD_TOKEN, "%zu unread bytes in the off stream",
				(size_t)(cu->fend - cu->lw));
	if (cu->nlit - cu->lit != cu->bend - cu->pos)
		return wlz_fail(WLZ_ERR_BAD_TOKEN, "%llu literal bytes left for the %llu bytes after the "
				"last token", (unsigned long long)(cu->nlit - cu->lit),
				(unsigned long long)(cu->bend - cu->pos));
	*tail = (size_t)(cu->bend - cu->pos);
	return WLZ_OK;
}

/* A literal run: one 16-byte copy when it fits, else 32 bytes at a time
 * while the block has room after the run (the stream has
 * WLZ_STREAM_SLACK, and the bytes written past the run are the next
 * token's to overwrite); a call to memcpy only near the block's end. */
static inline void copy_lits(uint8_t **op, const uint8_t **lp, size_t L, const uint8_t *oend)
{
	uint8_t *o = *op;
	const uint8_t *l = *lp;
	if (WLZ_LIKELY(L <= 16 && oend - o >= 16)) {
		copy16(o, l);
	} else if ((size_t)(oend - o) >= L + 32) {
		for (size_t i = 0; i < L; i += 32) {
			copy16(o + i, l + i);
			copy16(o + i + 16, l + i + 16);
		}
	} else {
		memcpy(o, l, L);
	}
	*op = o + L;
	*lp = l + L;
}

/* A match's copy; returns its end.  Wide copies only where they stay
 * inside the block: 32 bytes at once (9 in 10 matches are no longer, so
 * the loop after it is rarely taken), so a copy reads up to WILD bytes
 * past the source's start or 15 past its end, and writes as far past the
 * match's end. */
#define WILD 32
static inline uint8_t *copy_match(uint8_t *op, const uint8_t *ms, size_t M, uint8_t *const oend)
{
	uint8_t *const mend = op + M;
	const size_t dist = (size_t)(op - ms);
	if (WLZ_LIKELY(dist >= 16 && oend - mend >= WILD)) {
		copy16(op, ms);
		copy16(op + 16, ms + 16);
		if (WLZ_UNLIKELY(M > WILD)) {
			op += WILD;
			ms += WILD;
			do {
				copy16(op, ms);
				op += 16;
				ms += 16;
			} while (op < mend);
		}
	} else if (oend - mend >= 8) {
		if (dist < 8) {
			/* A short period: lay down its first 8 bytes one at a time,
			 * then copy 8 at a time from a whole number of periods (at
			 * least 8 bytes) back, where the bytes are already right. */
			for (int i = 0; i < 8; i++)
				op[i] = ms[i];
			op += 8;
			ms = op - dist * ((8 + dist - 1) / dist);
		}
		while (op < mend) {
			memcpy(op, ms, 8);
			op += 8;
			ms += 8;
		}
	} else {
		while (op < mend)
			*op++ = *ms++;
	}
	return mend;
}

/* Sources lie anywhere in the output, mostly out of cache: each token
 * prefetches the source of the token PF_DIST ahead (both ends: a source
 * crosses a line about a third of the time), so that the misses of a chunk
 * overlap with the copies instead of stalling the parse.  The token array
 * has PF_DIST readable entries after the chunk (tok_ahead). */
#define PF_DIST 128

/* The first and last lines a copy of the token reads (copy_match). */
static inline void prefetch_src(const uint8_t *out, const wlz_dtoken *t)
{
	__builtin_prefetch(out + t->src);
	__builtin_prefetch(out + t->src + (t->mlen > WILD ? t->mlen : WILD) - 1);
}

/* Where a parallel decode stands in its block. */
typedef struct par {
	wlz_sched *sc;
	uint64_t bstart, fb;     /* fb: bytes below are final (complete blocks) */
	wlz_seen seen;
} par;

/* The token loop, one body built twice (as libdeflate's
 * decompress_template.h is): waits = 0 for a block whose sources are all
 * final, waits = 1 for a block decoded beside others (sched.h), where a
 * match whose source bytes in an earlier block are not final yet waits
 * for them.  Nonzero: another thread failed. */
static inline __attribute__((always_inline)) int exec_impl(const wlz_dtoken *tok, size_t nt, const uint8_t **lpp,
							   uint8_t **opp, uint8_t *out, uint8_t *const oend,
							   par *pa, const int waits)
{
	/* Locals: stores through uint8_t pointers would otherwise make the
	 * compiler reload every field of pa after each copy. */
	uint8_t *op = *opp;
	const uint8_t *lp = *lpp;
	const uint64_t bstart = waits ? pa->bstart : 0, fb = waits ? pa->fb : 0;
	for (size_t k = 0; k < nt; k++) {
		const wlz_dtoken *t = &tok[k];
		const size_t L = t->lit, M = t->mlen;
		prefetch_src(out, t + PF_DIST);
		copy_lits(&op, &lp, L, oend);
		const uint64_t s = t->src, e = s + M;
		/* Fast path: source in this block or in complete blocks. */
		if (!waits || WLZ_LIKELY(s >= bstart || e + WILD <= fb)) {
			op = copy_match(op, out + s, M, oend);
			continue;
		}
		const uint64_t hi = e < bstart ? e : bstart;
		if (hi > fb && wlz_sched_wait(pa->sc, &pa->seen, s, hi))
			return 1;
		const uint64_t pos = (uint64_t)(op - out);
		if (pos - s >= M) {
			/* Exact: wide copies read past the source, maybe into bytes
			 * another thread is still writing. */
			memcpy(op, out + s, M);
			op += M;
		} else {
			for (const uint8_t *ms = out + s, *mend = op + M; op < mend;)
				*op++ = *ms++;
		}
	}
	*opp = op;
	*lpp = lp;
	return 0;
}

/* Feeds the output up to end (final bytes) to the block's checksum. */
static inline void hash_to(wlz_bdec *bd, const uint8_t *end)
{
	if (WLZ_CHECKSUMS && end > bd->hashed) {
		wlz_xxh3_update(bd->hs, bd->hashed, (size_t)(end - bd->hashed));
		bd->hashed = end;
	}
}

/* Up to max of the opened block's first tokens into bd->tok. */
static wlz_error first_tokens(wlz_bdec *bd, const wlz_block_entry *e, uint64_t bstart, uint64_t bend, size_t max,
			      cursor *cu, size_t *n)
{
	if (bd->tok_cap < max) {
		wlz_dtoken *t = realloc(bd->tok, sizeof(*t) * max);
		if (!t)
			return WLZ_ERR_NOMEM;
		bd->tok = t;
		bd->tok_cap = max;
	}
	WLZ_TRY(cursor_open(cu, bd->st, e, bstart, bend, bd->window));
	return parse_chunk(cu, bd->tok, max, n);
}

wlz_error wlz_bdec_first_tokens(wlz_bdec *bd, const wlz_block_entry *e, uint64_t bstart, uint64_t bend, size_t max,
				const wlz_dtoken **tok, size_t *n)
{
	cursor cu;
	WLZ_TRY(first_tokens(bd, e, bstart, bend, max < e->token_count ? max : e->token_count, &cu, n));
	*tok = bd->tok;
	return WLZ_OK;
}

wlz_error wlz_bdec_tokens(wlz_bdec *bd, const uint8_t *arc, const wlz_block_entry *e, uint64_t bstart,
			  uint64_t bend, const wlz_dtoken **tok)
{
	WLZ_TRY(wlz_bdec_open(bd, arc, e));
	cursor cu;
	size_t n, tail;
	WLZ_TRY(first_tokens(bd, e, bstart, bend, e->token_count, &cu, &n));
	WLZ_TRY(cursor_close(&cu, &tail));
	*tok = bd->tok;
	return WLZ_OK;
}

/* Tokens are parsed and copied a chunk at a time, so the chunk stays in L1;
 * the next chunk is parsed before this one is copied, so prefetches run
 * ahead across the boundary. */
#define CHUNK 512

typedef struct chunks {
	wlz_dtoken a[CHUNK + PF_DIST], b[CHUNK + PF_DIST];
	wlz_dtoken *cur, *nxt;
	size_t nc, nn;
} chunks;

/* Puts the next chunk's first PF_DIST tokens (zeros past the end: a source
 * of 0 and length 0 is a harmless prefetch) after the current one. */
static void tok_ahead(chunks *ch)
{
	size_t k = ch->nn < PF_DIST ? ch->nn : PF_DIST;
	memcpy(ch->cur + ch->nc, ch->nxt, k * sizeof(wlz_dtoken));
	memset(ch->cur + ch->nc + k, 0, (PF_DIST - k) * sizeof(wlz_dtoken));
}

static wlz_error chunks_first(chunks *ch, cursor *cu, const uint8_t *out)
{
	ch->cur = ch->a;
	ch->nxt = ch->b;
	WLZ_TRY(parse_chunk(cu, ch->cur, CHUNK, &ch->nc));
	for (size_t k = 0; k < ch->nc && k < PF_DIST; k++)
		prefetch_src(out, &ch->cur[k]);
	return WLZ_OK;
}

/* Parses the chunk after the current one. */
static wlz_error chunks_next(chunks *ch, cursor *cu)
{
	WLZ_TRY(parse_chunk(cu, ch->nxt, CHUNK, &ch->nn));
	tok_ahead(ch);
	return WLZ_OK;
}

static void chunks_swap(chunks *ch)
{
	wlz_dtoken *t = ch->cur;
	ch->cur = ch->nxt;
	ch->nxt = t;
	ch->nc = ch->nn;
}

/* A block's tokens, parsed and executed a chunk at a time; with waits,
 * beside other blocks (sched.h), its progress published per chunk. */
static inline __attribute__((always_inline)) wlz_error decode_chunks(wlz_bdec *bd, cursor *cu,
								     const uint8_t **lpp, uint8_t **opp,
								     uint8_t *out, uint64_t bstart,
								     uint64_t bend, wlz_sched *sc,
								     const int waits)
{
	const uint64_t b = waits ? bstart >> sc->block_log : 0;
	par pa = { sc, bstart, waits ? wlz_sched_final(sc, bstart) : 0, { { 0 }, { 0 } } };
	if (waits)
		wlz_seen_init(&pa.seen);
	chunks ch;
	WLZ_TRY(chunks_first(&ch, cu, out));
	for (; ch.nc; chunks_swap(&ch)) {
		WLZ_TRY(chunks_next(&ch, cu));
		if (exec_impl(ch.cur, ch.nc, lpp, opp, out, out + bend, &pa, waits))
			return WLZ_ERR_ABORTED;
		if (waits) {
			const uint64_t done = (uint64_t)(*opp - out) - bstart;
			atomic_store_explicit(&wlz_sched_mark(sc, b)->prefix, done, memory_order_release);
			pa.fb = wlz_sched_final(sc, bstart);
		}
		hash_to(bd, *opp);  /* (after publishing: waiters go on) */
	}
	size_t tail;
	WLZ_TRY(cursor_close(cu, &tail));
	memcpy(*opp, *lpp, tail);
	if (waits)
		atomic_store_explicit(&wlz_sched_mark(sc, b)->prefix, bend - bstart, memory_order_release);
	return WLZ_OK;
}

wlz_error wlz_bdec_open(wlz_bdec *bd, const uint8_t *arc, const wlz_block_entry *e)
{
	return wlz_sopen_block(bd->so, arc, e, bd->st);
}

wlz_error wlz_bdec_finish(wlz_bdec *bd, const wlz_block_entry *e, uint8_t *out, uint64_t bstart, uint64_t bend,
			  wlz_sched *sc)
{
	cursor cu;
	WLZ_TRY(cursor_open(&cu, bd->st, e, bstart, bend, bd->window));
	const uint8_t *lp = bd->st[WLZ_S_LIT];
	uint8_t *op = out + bstart;
	wlz_xxh3_reset(bd->hs);
	bd->hashed = op;
	if (sc)
		WLZ_TRY(decode_chunks(bd, &cu, &lp, &op, out, bstart, bend, sc, 1));
	else
		WLZ_TRY(decode_chunks(bd, &cu, &lp, &op, out, bstart, bend, NULL, 0));
	hash_to(bd, out + bend);
	if (WLZ_CHECKSUMS && wlz_xxh3_digest(bd->hs) != e->checksum)
		return wlz_fail(WLZ_ERR_CHECKSUM, "content checksum mismatch (decoded bytes differ)");
	return WLZ_OK;
}

wlz_error wlz_bdec_decode(wlz_bdec *bd, const uint8_t *arc, const wlz_block_entry *e,
			  uint8_t *out, uint64_t bstart, uint64_t bend, wlz_sched *sc)
{
	WLZ_TRY(wlz_bdec_open(bd, arc, e));
	return wlz_bdec_finish(bd, e, out, bstart, bend, sc);
}

wlz_error wlz_bdec_parse(wlz_bdec *bd, const wlz_block_entry *e, uint64_t bstart, uint64_t bend)
{
	cursor cu;
	/* (PF_DIST zeroed entries after the tokens: prefetched, not run) */
	WLZ_TRY(first_tokens(bd, e, bstart, bend, (size_t)e->token_count + PF_DIST, &cu, &bd->ntok));
	WLZ_TRY(cursor_close(&cu, &bd->tail));
	memset(bd->tok + bd->ntok, 0, PF_DIST * sizeof(wlz_dtoken));
	return WLZ_OK;
}

wlz_error wlz_bdec_run_parsed(wlz_bdec *bd, const wlz_block_entry *e, uint8_t *out, uint64_t bstart, uint64_t bend)
{
	const uint8_t *lp = bd->st[WLZ_S_LIT];
	uint8_t *op = out + bstart;
	wlz_xxh3_reset(bd->hs);
	bd->hashed = op;
	for (size_t k = 0; k < bd->ntok; k += CHUNK) {
		if (exec_impl(bd->tok + k, bd->ntok - k < CHUNK ? bd->ntok - k : CHUNK, &lp, &op, out, out + bend,
			      NULL, 0))
			return WLZ_ERR_ABORTED;
		hash_to(bd, op);
	}
	memcpy(op, lp, bd->tail);
	hash_to(bd, out + bend);
	if (WLZ_CHECKSUMS && wlz_xxh3_digest(bd->hs) != e->checksum)
		return wlz_fail(WLZ_ERR_CHECKSUM, "content checksum mismatch (decoded bytes differ)");
	return WLZ_OK;
}
