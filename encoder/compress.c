/*
 * compress.c - the compression context: reads the input through a window
 * buffer of bounded size, parses and codes blocks on worker threads round
 * by round, and writes the archive front to back (SPEC.md, sections 1-3).
 *
 * Memory is set by the window and the level, never by the input's size:
 *  - the input buffer: the window before the next block, plus a segment of
 *    new input (half a window), plus a little lookahead; when it is full,
 *    the window is moved down to its start (block-aligned, so block numbers
 *    keep their differences);
 *  - the level map, one byte per buffered byte (dependency levels);
 *  - the far table (farfind.h), sized by the window;
 *  - per thread, a parser and a block coder.
 *
 * Rounds.  A block's parse needs only the input and the far table (no
 * other block's tokens), so the blocks of a round are parsed and coded at
 * once, one per thread; then each, in order, gets its dependency levels,
 * which do need those of the blocks it reads.  Before the parse, the far
 * table receives the anchors of every block before the gap of the round's
 * last block (anchors are found from the input alone); each block ignores
 * the entries it may not read (its gap and after).  Rounds hold
 * WLZ_ROUND_BLOCKS blocks, a count that does not depend on the threads, so
 * neither do the bytes written.  Under a depth limit the parse reads the
 * level map of its sources, so a round is then gap + 1 blocks, none of
 * which reads another.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/huf.h"
#include "common/large.h"
#include "encoder/block_encode.h"
#include "encoder/levels.h"
#include "format/format.h"

/* Bytes of lookahead kept after the blocks being parsed (hashing reads 16). */
#define LOOKAHEAD 64

/* Blocks per round: enough that 16 threads stay busy through blocks of
 * unequal cost. */
#define WLZ_ROUND_BLOCKS 32

typedef struct worker {
	wlz_parser *ps;
	wlz_benc *be;
	wlz_anchor *anc;        /* anchors being listed */
	size_t anc_cap;
} worker;

/* A block's far-table anchors, kept until the table receives them: in
 * position order for its parse, then (parted) by the thread that enters
 * them, part k of the table's buckets at a[off[k] .. off[k + 1]). */
typedef struct alist {
	wlz_anchor *a;
	size_t n, cap;
	size_t *off;            /* nthreads + 1 entries */
	int parted;
	uint64_t owner;         /* the block listed + 1 (0: none yet) */
} alist;

/* Token room for the k-th block of a round, whichever half it is in: a
 * round's tokens are done with before the next round is parsed. */
typedef struct tokbuf {
	wlz_token *t;
	size_t cap;
} tokbuf;

typedef struct blk {
	uint64_t bstart, bend;  /* buffer positions */
	uint64_t abs_block;     /* block number in the input */
	uint8_t *data;          /* coded payload */
	size_t size, cap;
	wlz_block_entry e;
	tokbuf *tb;             /* its tokens, until its levels are done */
	size_t ntok;
	atomic_int ready;       /* parsed and coded: 1, failed: 2 */
	atomic_int lv;          /* levels: 0 to do, 1 being done, 2 done */
	int got;                /* (streaming) its bytes are read and its anchors listed */
} blk;

struct wlz_cctx {
	wlz_options opt;
	int io_thread;          /* wlz_cctx_set_io_thread */
	int nthreads;
	worker *w;
	int nw;
	const wlz_lparams *w_lp;
	unsigned w_block_log;
};

/* One wlz_compress_stream call. */
typedef struct eng {
	wlz_cctx *cc;
	const wlz_lparams *lp;
	wlz_bparams bp;         /* how streams are coded */
	unsigned bl;
	uint64_t B, W, S;       /* block, window, segment */
	uint64_t gap;           /* blocks a match may not read before its own */
	int diag;               /* the diagonal rule holds (SPEC.md, section 8) */
	uint64_t rblocks;       /* blocks per round */
	uint8_t *src, *map;
	uint64_t cap, fill;     /* buffer capacity, bytes in it */
	uint64_t done;          /* buffer position of the next round */
	int eof;
	uint64_t total;         /* input bytes read */
	uint64_t known;         /* the input's size, UINT64_MAX: unknown */
	uint64_t ahead;         /* read to here while the blocks are parsed (0: no) */
	wlz_error ahead_err;
	/* The next round's anchors are listed in this round's parse phase,
	 * once its input is read: pre_n blocks from buffer position pre_pos.
	 * The reader publishes its progress under rmu (avail, rdone). */
	uint64_t pre_pos, pre_n;
	pthread_mutex_t rmu;
	pthread_cond_t rcv;
	uint64_t avail;         /* bytes read into the buffer so far */
	int rdone;              /* the read ahead has ended */
	/* The first round of an input of known size is parsed as it is read:
	 * its blocks' tasks wait for their bytes (nfirst: the round's listing
	 * tasks, before its blocks', 0 without a far table). */
	int streaming;
	uint64_t nfirst;
	wlz_read_fn rd;
	void *rdo;
	wlz_far far;
	wlz_view view;
	/* Rounds alternate between two halves of blks: a round's blocks are
	 * written out while the next round is parsed. */
	blk *blks, *rb;         /* 2 * rblocks; this round's */
	tokbuf *tbs;            /* rblocks */
	uint64_t nblk;          /* blocks in this round */
	blk *pend;              /* the last round's, to write (NULL: none) */
	uint64_t npend, pend_end;  /* ... how many, and where they end */
	struct outs *out;
	alist *lists;           /* anchors of block b at b % nlists */
	uint64_t nlists;
	uint64_t far_block;     /* blocks before it are in the far table */
	uint64_t far_to;        /* ... and those before this go in next */
	/* thread pool */
	pthread_mutex_t mu;
	pthread_cond_t go, idle;
	unsigned gen;
	int phase;              /* 1 far insert, 2 blocks, 3 anchors, 0 exit */
	int busy;               /* workers still in this phase */
	atomic_uint_fast64_t next;
	uint64_t ntasks;
	atomic_int err;
	char detail[WLZ_DETAIL_MAX];  /* the first error's, said on the caller's thread */
	int nthreads;
} eng;

typedef struct pool_arg {
	eng *en;
	int id;
} pool_arg;

/* Keeps the first error of any thread, with its detail (each thread has
 * its own: run_phase gives it to the caller's), and wakes the tasks that
 * wait on others (first_wait). */
static void set_err(eng *en, wlz_error err)
{
	int ok = WLZ_OK;
	if (atomic_compare_exchange_strong(&en->err, &ok, (int)err))
		snprintf(en->detail, sizeof(en->detail), "%s", wlz_error_detail());
	pthread_mutex_lock(&en->rmu);
	pthread_cond_broadcast(&en->rcv);
	pthread_mutex_unlock(&en->rmu);
}

/* An input that held other than the size its caller stated. */
static wlz_error size_changed(uint64_t said, uint64_t held)
{
	return wlz_fail(WLZ_ERR_READ, "the input shrank or grew: it was said to hold %llu bytes but held %llu",
			(unsigned long long)said, (unsigned long long)held);
}

/* ---------------------------------------------------------------- levels */

static unsigned ceil_log2(uint64_t v)
{
	return v <= 1 ? 0 : wlz_highbit64(v - 1) + 1;
}

/* The window of an input of known size n (UINT64_MAX: unknown). */
static unsigned window_log_for(const wlz_options *o, const wlz_lparams *lp, uint64_t n)
{
	/* (the level's default: parse.c's table) */
	unsigned wl = o->window_log ? o->window_log : lp->window_log;
	if (n != UINT64_MAX && ceil_log2(n) < wl)
		wl = ceil_log2(n);
	return wl < o->block_log ? o->block_log : wl;
}

/* The gap of SPEC section 8 for an input of nb blocks and a window of wb
 * blocks (UINT64_MAX: unknown, or for a bound).  Inputs of fewer than 16
 * blocks have none (they decode fast anyway; the diagonal rule still
 * holds); above that the gap grows by one a block, so that no size loses
 * many matches at once, but at the price-based levels, whose users ask
 * for size, only by one every 16 blocks.  It takes at most half the
 * window, so that a small window still leaves blocks to read. */
static uint64_t gap_for(const wlz_options *o, uint64_t nb, uint64_t wb)
{
	uint64_t g = (uint64_t)o->parallel - 1;
	if (nb != UINT64_MAX) {
		const uint64_t s = nb < 16 ? 0 : wlz_level_params(o->level)->optimal ? nb / 16 : nb - 16;
		g = s < g ? s : g;
	}
	if (wb != UINT64_MAX && wb / 2 < g)
		g = wb / 2;
	/* Rounds are at least gap + 1 blocks and two lie in the input buffer
	 * beside the window: buffer positions then stay under 2^32, as the
	 * fast finders' table entries hold them, whatever the window. */
	const uint64_t B = (uint64_t)1 << o->block_log;
	const uint64_t room = ((uint64_t)1 << 32) - ((uint64_t)1 << WLZ_WINDOW_LOG_ENC_MAX) - B - LOOKAHEAD - 1;
	const uint64_t fit = room / (2 * B) - 1;
	return g < fit ? g : fit;
}

/* The diagonal rule keeps neighbouring blocks' decoders apart; with
 * --parallel=1 the caller asks for the smallest archive instead.  (Small
 * inputs keep it: without it their blocks decode one after another,
 * bench/host/issue13-speed.md.) */
static int diag_for(const wlz_options *o)
{
	return o->parallel > 1;
}

/* Blocks per round: WLZ_ROUND_BLOCKS, but no more than a quarter of the
 * window (which sets the memory), and never fewer than gap + 1. */
static uint64_t round_blocks(const wlz_options *o, uint64_t gap, uint64_t W)
{
	uint64_t r = W >> o->block_log >> 2;
	if (r > WLZ_ROUND_BLOCKS)
		r = WLZ_ROUND_BLOCKS;
	if (o->depth >= 0 || r < gap + 1)
		r = gap + 1;
	return r;
}

static uint64_t segment_for(uint64_t W, uint64_t B, uint64_t rblocks)
{
	uint64_t round = rblocks * B, s = W / 2;
	if (s < 2 * round)
		s = 2 * round;
	return (s + B - 1) / B * B;
}

/* ---------------------------------------------------------------- context */

WLZ_EXPORT wlz_cctx *wlz_cctx_create(const wlz_options *opt)
{
	wlz_options o;
	wlz_options_init(&o);
	if (opt) {
		if (wlz_options_check(opt) != WLZ_OK)
			return NULL;
		o = *opt;
		o.struct_size = sizeof(o);
	}
	wlz_cctx *cc = calloc(1, sizeof(*cc));
	if (!cc)
		return NULL;
	cc->opt = o;
	cc->nthreads = wlz_resolve_threads(o.threads);
	return cc;
}

WLZ_EXPORT void wlz_cctx_set_io_thread(wlz_cctx *cc, int on)
{
	if (cc)
		cc->io_thread = on != 0;
}

static void free_workers(wlz_cctx *cc)
{
	for (int i = 0; i < cc->nw; i++) {
		wlz_parser_free(cc->w[i].ps);
		wlz_benc_free(cc->w[i].be);
		free(cc->w[i].anc);
	}
	free(cc->w);
	cc->w = NULL;
	cc->nw = 0;
}

WLZ_EXPORT void wlz_cctx_free(wlz_cctx *cc)
{
	if (!cc)
		return;
	free_workers(cc);
	free(cc);
}

WLZ_EXPORT size_t wlz_compress_bound(uint64_t src_size)
{
	/* Worst case: the smallest blocks, each stored no larger than its input. */
	if (src_size > WLZ_CONTENT_MAX)
		return 0;
	uint64_t nb = (src_size + ((uint64_t)1 << WLZ_BLOCK_LOG_MIN) - 1) >> WLZ_BLOCK_LOG_MIN;
	uint64_t b = WLZ_HEADER_SIZE + nb * WLZ_BHEAD_SIZE + wlz_index_size(nb) + WLZ_FOOTER_SIZE + src_size;
	if (b > SIZE_MAX)
		return 0;
	return (size_t)b;
}

static wlz_error ensure_workers(wlz_cctx *cc, int nw, const wlz_lparams *lp)
{
	if (cc->nw >= nw && cc->w_lp == lp && cc->w_block_log == cc->opt.block_log)
		return WLZ_OK;
	free_workers(cc);
	cc->w = calloc((size_t)nw, sizeof(worker));
	if (!cc->w)
		return WLZ_ERR_NOMEM;
	cc->nw = nw;
	cc->w_lp = lp;
	cc->w_block_log = cc->opt.block_log;
	uint32_t bs = (uint32_t)1 << cc->opt.block_log;
	for (int i = 0; i < nw; i++) {
		cc->w[i].ps = wlz_parser_create(lp, bs);
		cc->w[i].be = wlz_benc_create(bs);
		if (!cc->w[i].ps || !cc->w[i].be ||
		    wlz_parser_set_flat(cc->w[i].ps, cc->opt.flatten) != WLZ_OK) {
			free_workers(cc);
			return WLZ_ERR_NOMEM;
		}
	}
	return WLZ_OK;
}

WLZ_EXPORT uint64_t wlz_compress_memory(const wlz_options *opt)
{
	wlz_options o;
	wlz_options_init(&o);
	if (opt && wlz_options_check(opt) == WLZ_OK)
		o = *opt;
	const wlz_lparams *lp = wlz_level_params(o.level);
	const uint64_t B = (uint64_t)1 << o.block_log, W = (uint64_t)1 << window_log_for(&o, lp, UINT64_MAX);
	const uint64_t gap = gap_for(&o, UINT64_MAX, UINT64_MAX);
	const uint64_t R = round_blocks(&o, gap, W);
	const uint64_t cap = W + segment_for(W, B, R) + B + LOOKAHEAD;
	const uint64_t far = wlz_far_memory(wlz_far_log_for(W, lp->far_rate));
	/* per thread: near chain, tokens, streams, coded block (parse.c,
	 * block_encode.c), about */
	const uint64_t per = 4 * ((uint64_t)lp->near + B) + 16 * B + (lp->optimal ? 48 * B : 0);
	const uint64_t t = (uint64_t)wlz_resolve_threads(o.threads);
	/* anchors (8 bytes each, about one in far_rate positions) of the
	 * blocks kept */
	const uint64_t anchors = 2 * (R + gap + 1) * B / lp->far_rate * 8 * 2;
	/* two rounds' coded blocks (one is written while the next is
	 * parsed) and one round's tokens (16 bytes each, one per
	 * WLZ_MINMATCH bytes at most) */
	const uint64_t round = R * (2 * B + (B / WLZ_MINMATCH + 1) * sizeof(wlz_token));
	return 2 * cap + far + anchors + t * (per + 8 * B) + round;
}

/* ---------------------------------------------------------------- blocks */

/* Copies a parse's tokens to the block: they must outlive the parser's
 * next block, until the block's levels are done. */
static wlz_error keep_tokens(blk *bk, const wlz_token *tok, size_t ntok)
{
	tokbuf *tb = bk->tb;
	if (tb->cap < ntok) {
		wlz_token *t = realloc(tb->t, ntok * sizeof(*t));
		if (!t)
			return WLZ_ERR_NOMEM;
		tb->t = t;
		tb->cap = ntok;
	}
	if (ntok)
		memcpy(tb->t, tok, ntok * sizeof(*tok));
	bk->ntok = ntok;
	return WLZ_OK;
}

/* Lists the far-table anchors of the block at buffer positions
 * [bstart, bend), of abs_block in the input, with n bytes in the buffer (a
 * task of its own: the table receives them before the blocks of the round
 * that may read them are parsed). */
static wlz_error list_range(eng *en, worker *w, uint64_t abs_block, uint64_t bstart, uint64_t bend, uint64_t n)
{
	alist *al = &en->lists[abs_block % en->nlists];
	al->n = 0;
	al->parted = 0;
	al->owner = abs_block + 1;
	/* Anchors hash 16 bytes: none in the input's last 16. */
	const uint64_t safe = n >= 16 ? n - 16 : 0;
	const uint64_t to = bend < safe ? bend : safe;
	if (to <= bstart)
		return WLZ_OK;
	const uint64_t len = to - bstart;
	if (w->anc_cap < len) {
		wlz_anchor *a = realloc(w->anc, (size_t)len * sizeof(*a));
		if (!a)
			return WLZ_ERR_NOMEM;
		w->anc = a;
		w->anc_cap = len;
	}
	const size_t na = wlz_far_anchors(&en->far, en->src, bstart, to, w->anc);
	if (al->cap < na) {
		wlz_anchor *a = realloc(al->a, na * sizeof(*a));
		if (!a)
			return WLZ_ERR_NOMEM;
		al->a = a;
		al->cap = na;
	}
	if (na)
		memcpy(al->a, w->anc, na * sizeof(*al->a));
	al->n = na;
	return WLZ_OK;
}

static int listed(const eng *en, const blk *bk)
{
	return en->lists[bk->abs_block % en->nlists].owner == bk->abs_block + 1;
}

static wlz_error list_anchors(eng *en, worker *w, const blk *bk)
{
	if (listed(en, bk))
		return WLZ_OK;  /* (in the round before, list_ahead) */
	return list_range(en, w, bk->abs_block, bk->bstart, bk->bend, en->view.n);
}

/* Waits until the read ahead holds [.., bend) and the lookahead after it,
 * or has ended; returns the bytes read then. */
static uint64_t wait_read(eng *en, uint64_t bend)
{
	pthread_mutex_lock(&en->rmu);
	while (!en->rdone && en->avail < bend + LOOKAHEAD)
		pthread_cond_wait(&en->rcv, &en->rmu);
	const uint64_t n = en->avail;
	pthread_mutex_unlock(&en->rmu);
	return n;
}

/* The first round's k-th block, parsed as the input is read: its bytes
 * (all of them: an input that ends sooner than it said is an error), then
 * its anchors. */
static wlz_error first_get(eng *en, worker *w, uint64_t k)
{
	blk *bk = &en->rb[k];
	const uint64_t n = wait_read(en, bk->bend);
	wlz_error err = WLZ_OK;
	if (n < bk->bend + LOOKAHEAD && n < en->known)
		err = en->ahead_err != WLZ_OK ? en->ahead_err : size_changed(en->known, n);
	else if (en->lp->long_depth)
		err = list_range(en, w, bk->abs_block, bk->bstart, bk->bend, en->view.n);
	pthread_mutex_lock(&en->rmu);
	bk->got = err == WLZ_OK ? 1 : -1;
	pthread_cond_broadcast(&en->rcv);
	pthread_mutex_unlock(&en->rmu);
	return err;
}

/* Waits for first_get of block k (another task's): whether it succeeded.
 * (A failure anywhere ends the wait: block k's task may then never run.) */
static int first_wait(eng *en, uint64_t k)
{
	pthread_mutex_lock(&en->rmu);
	while (!en->rb[k].got && atomic_load(&en->err) == WLZ_OK)
		pthread_cond_wait(&en->rcv, &en->rmu);
	const int got = en->rb[k].got;
	pthread_mutex_unlock(&en->rmu);
	return got == 1;
}

/* Lists the anchors of the next round's j-th block once the read ahead
 * holds it and the lookahead after it, or has ended (the input's end: the
 * block is then cut there, as the round will cut it). */
static wlz_error list_ahead(eng *en, worker *w, uint64_t j)
{
	const uint64_t bstart = en->pre_pos + j * en->B, bend = bstart + en->B;
	const uint64_t n = wait_read(en, bend);
	const int ended = n < bend + LOOKAHEAD;
	if (ended && (!en->eof || en->ahead_err != WLZ_OK))
		return WLZ_OK;  /* (a failed read: the round lists what it has) */
	const uint64_t abs = (en->view.base + bstart) >> en->bl;
	if (bstart >= n) {
		en->lists[abs % en->nlists].owner = 0;
		return WLZ_OK;
	}
	return list_range(en, w, abs, bstart, bend < n ? bend : n, n);
}

/* Once its block is parsed, puts a list in part order, stably (a counting
 * sort through the worker's scratch): each thread of the insert phase then
 * reads only the anchors it enters. */
static wlz_error part_anchors(eng *en, worker *w, const blk *bk)
{
	alist *al = &en->lists[bk->abs_block % en->nlists];
	const unsigned np = (unsigned)en->nthreads;
	al->parted = 1;
	if (np == 1) {
		al->off[0] = 0;  /* (one part: position order is part order) */
		al->off[1] = al->n;
		return WLZ_OK;
	}
	if (w->anc_cap < al->n) {
		wlz_anchor *a = realloc(w->anc, al->n * sizeof(*a));
		if (!a)
			return WLZ_ERR_NOMEM;
		w->anc = a;
		w->anc_cap = al->n;
	}
	memset(al->off, 0, (np + 1) * sizeof(*al->off));
	for (size_t i = 0; i < al->n; i++)
		al->off[wlz_far_part(&en->far, al->a[i].bucket, np) + 1]++;
	for (unsigned k = 0; k < np; k++)
		al->off[k + 1] += al->off[k];
	for (size_t i = 0; i < al->n; i++)
		w->anc[al->off[wlz_far_part(&en->far, al->a[i].bucket, np)]++] = al->a[i];
	/* (each off[k] now holds where part k ends) */
	memmove(al->off + 1, al->off, np * sizeof(*al->off));
	al->off[0] = 0;
	if (al->n)
		memcpy(al->a, w->anc, al->n * sizeof(*al->a));
	return WLZ_OK;
}

/* Parse and code one block on one thread; its tokens stay in bk. */
static wlz_error parse_block(eng *en, worker *w, blk *bk)
{
	const wlz_lparams *lp = en->lp;
	const int depth = en->cc->opt.depth;
	const wlz_token *tok;
	size_t ntok;
	const uint8_t *payload;
	size_t psize;
	wlz_parser_set_parallel(w->ps, (int)en->gap + 1, en->diag);
	if (en->lp->long_depth) {
		const alist *al = &en->lists[bk->abs_block % en->nlists];
		wlz_parser_set_anchors(w->ps, al->a, al->n);
	}
	wlz_parser_set_depth(w->ps, depth >= 0 ? en->map : NULL, depth);
	if (lp->optimal && depth < 0) {
		/* The price model is an estimate: on noisy data (PacBio
		 * qualities) the lazy parse can code smaller; keep the better. */
		size_t best = SIZE_MAX;
		wlz_block_entry e;
		for (int pass = 0; pass < 2; pass++) {
			WLZ_TRY(wlz_parse_block(w->ps, &en->view, bk->bstart, bk->bend, pass, &tok, &ntok));
			WLZ_TRY(wlz_benc_encode(w->be, en->src, bk->bstart, bk->bend, tok, ntok, &en->bp,
						&payload, &psize, &e));
			if (psize < best) {
				best = psize;
				WLZ_TRY(keep_tokens(bk, tok, ntok));
			}
		}
	} else {
		WLZ_TRY(wlz_parse_block(w->ps, &en->view, bk->bstart, bk->bend, 0, &tok, &ntok));
		WLZ_TRY(keep_tokens(bk, tok, ntok));
	}
	WLZ_TRY(wlz_benc_encode(w->be, en->src, bk->bstart, bk->bend, bk->tb->t, bk->ntok, &en->bp, &payload,
				&psize, &bk->e));
	if (bk->cap < psize) {
		uint8_t *d = realloc(bk->data, psize);
		if (!d)
			return WLZ_ERR_NOMEM;
		bk->data = d;
		bk->cap = psize;
	}
	memcpy(bk->data, payload, psize);
	bk->size = psize;
	bk->e.length = (uint32_t)(bk->bend - bk->bstart);
	return WLZ_OK;
}

/* Levels of one block (parsed and coded), from its tokens. */
static wlz_error block_levels(eng *en, blk *bk)
{
	wlz_error err = WLZ_OK;
	if (bk->e.token_count == 0) {
		memset(en->map + bk->bstart, 0, bk->bend - bk->bstart);  /* stored as literals */
		bk->e.max_level = 0;
		bk->e.chained = 0;
	} else {
		uint32_t chained = 0;
		bk->e.max_level = wlz_levels_block(en->map, bk->bstart, bk->bend, bk->tb->t, bk->ntok, en->cc->opt.depth,
						   &chained, &err);
		bk->e.chained = chained > WLZ_CHAINED_MAX ? WLZ_CHAINED_MAX : chained;
	}
	return err;
}

/* Whether block k of the round may get its levels: parsed, and every
 * block of the round it may read (those more than the gap before it: the
 * rest of its sources lie in earlier rounds) has its levels. */
static int levels_ready(eng *en, uint64_t k)
{
	if (!atomic_load(&en->rb[k].ready))
		return 0;
	for (uint64_t i = 0; i + en->gap < k; i++)
		if (atomic_load(&en->rb[i].lv) != 2)
			return 0;
	return 1;
}

/* Gives levels to every block that may have them, until none is left.
 * With a gap of at least the round's blocks less one, no block of a round
 * reads another and all get their levels at once, each on the thread that
 * parsed it; with less, a block waits for those it reads.  A thread that
 * finishes a block, or a block's levels, looks again: one of two threads
 * that finish at once sees the other's work (sequentially consistent
 * loads and stores), so no block is left without levels. */
static void run_levels(eng *en)
{
	for (int again = 1; again;) {
		again = 0;
		for (uint64_t k = 0; k < en->nblk; k++) {
			blk *bk = &en->rb[k];
			int todo = 0;
			if (atomic_load(&bk->lv) != 0 || !levels_ready(en, k) ||
			    !atomic_compare_exchange_strong(&bk->lv, &todo, 1))
				continue;
			wlz_error err = atomic_load(&bk->ready) == 1 && atomic_load(&en->err) == WLZ_OK
					? block_levels(en, bk) : WLZ_OK;
			if (err != WLZ_OK)
				set_err(en, err);
			atomic_store(&bk->lv, 2);
			again = 1;
		}
	}
}

/* Parse and code a block, then give levels to whatever blocks are ready
 * (levels read those of the blocks before). */
static wlz_error do_block(eng *en, worker *w, uint64_t k)
{
	blk *bk = &en->rb[k];
	wlz_error err = parse_block(en, w, bk);
	if (err == WLZ_OK && en->lp->long_depth)
		err = part_anchors(en, w, bk);
	atomic_store(&bk->ready, err == WLZ_OK ? 1 : 2);
	run_levels(en);
	return err;
}

/* ---------------------------------------------------------------- pool */

static void run_tasks(eng *en, int id)
{
	worker *w = &en->cc->w[id];
	for (;;) {
		uint64_t k = atomic_fetch_add(&en->next, 1);
		if (k >= en->ntasks || atomic_load(&en->err) != WLZ_OK)
			break;
		wlz_error err = WLZ_OK;
		if (en->phase == 1) {
			const unsigned part = (unsigned)k, parts = (unsigned)en->ntasks;
			for (uint64_t b = en->far_block; b < en->far_to; b++) {
				const alist *al = &en->lists[b % en->nlists];
				/* (a block of this round, not yet parsed, still has
				 * its list in position order) */
				if (al->parted)
					wlz_far_insert(&en->far, al->a + al->off[part], al->off[part + 1] - al->off[part],
						       b << en->bl, part, parts);
				else
					wlz_far_insert(&en->far, al->a, al->n, b << en->bl, part, parts);
			}
		} else if (en->phase == 3)
			err = list_anchors(en, w, &en->rb[k]);
		else if (k < en->nfirst)
			err = first_get(en, w, k);
		else if (k < en->nfirst + en->nblk) {
			k -= en->nfirst;
			if (en->streaming && !en->nfirst)
				err = first_get(en, w, k);
			else if (en->streaming && !first_wait(en, k))
				continue;  /* (a task failed and said why) */
			if (err == WLZ_OK)
				err = do_block(en, w, k);
		} else
			err = list_ahead(en, w, k - en->nfirst - en->nblk);
		if (err != WLZ_OK)
			set_err(en, err);
	}
}

static void *pool_main(void *arg)
{
	pool_arg *pa = arg;
	eng *en = pa->en;
	unsigned seen = 0;
	pthread_mutex_lock(&en->mu);
	for (;;) {
		while (en->gen == seen)
			pthread_cond_wait(&en->go, &en->mu);
		seen = en->gen;
		if (en->phase == 0)
			break;
		pthread_mutex_unlock(&en->mu);
		run_tasks(en, pa->id);
		pthread_mutex_lock(&en->mu);
		if (--en->busy == 0)
			pthread_cond_signal(&en->idle);
	}
	pthread_mutex_unlock(&en->mu);
	return NULL;
}

static wlz_error fill_to(eng *en, uint64_t want);
static wlz_error write_blocks(eng *en);
static void report(eng *en);

/* The I/O beside a round's parse: the last round's blocks written, the
 * next round's input read.  The workers read below view.n only, and the
 * read writes above it. */
static void run_io(eng *en)
{
	if (en->pend) {
		const wlz_error err = write_blocks(en);
		if (err != WLZ_OK)
			set_err(en, err);
	}
	if (en->ahead) {
		en->ahead_err = fill_to(en, en->ahead);
		if (en->ahead_err != WLZ_OK)
			set_err(en, en->ahead_err);
	}
	pthread_mutex_lock(&en->rmu);
	en->rdone = 1;
	pthread_cond_broadcast(&en->rcv);
	pthread_mutex_unlock(&en->rmu);
}

static void *io_main(void *arg)
{
	run_io(arg);
	return NULL;
}

/* Runs ntasks tasks of a phase on every thread, the caller's included. */
static wlz_error run_phase(eng *en, int phase, uint64_t ntasks)
{
	/* A round's I/O runs on a thread of its own from the start of the
	 * parse where the caller asked for it (wlz_cctx_set_io_thread): done
	 * by this thread, it waits for its last block, and the round for it.
	 * Else this thread does it once no block is left to take (done first,
	 * it made this thread's block start late, and it often ended the
	 * round last). */
	const int io = phase == 2 && (en->pend || en->ahead), wrote = phase == 2 && en->pend;
	pthread_t iot;
	if (phase == 2) {
		pthread_mutex_lock(&en->rmu);
		en->avail = en->fill;
		en->rdone = !en->ahead;  /* (nothing more to read) */
		pthread_mutex_unlock(&en->rmu);
	}
	const int own = io && en->cc->io_thread && pthread_create(&iot, NULL, io_main, en) == 0;
	/* (the next round's anchors wait for a read that only a thread of
	 * its own does while the tasks run; a streamed round's blocks wait
	 * for it too: without that thread, it is done first) */
	int later = io;
	if (io && !own && en->streaming) {
		run_io(en);
		later = 0;
	} else if (phase == 2 && (!own || !en->ahead))
		ntasks = en->nfirst + en->nblk;
	pthread_mutex_lock(&en->mu);
	en->phase = phase;
	en->ntasks = ntasks;
	atomic_store(&en->next, 0);
	en->busy = en->nthreads - 1;
	en->gen++;
	pthread_cond_broadcast(&en->go);
	pthread_mutex_unlock(&en->mu);
	run_tasks(en, 0);
	if (own)
		pthread_join(iot, NULL);
	else if (later)
		run_io(en);
	/* (progress from this thread; none after a failed write) */
	if (wrote && !en->pend)
		report(en);
	pthread_mutex_lock(&en->mu);
	while (en->busy > 0)
		pthread_cond_wait(&en->idle, &en->mu);
	pthread_mutex_unlock(&en->mu);
	const wlz_error err = (wlz_error)atomic_load(&en->err);
	if (err != WLZ_OK && en->detail[0])
		wlz_detail_set(en->detail);
	return err;
}

/* ---------------------------------------------------------------- input */

/* Reads until the buffer holds `want` bytes or the input ends, in pieces
 * whose arrival it publishes (list_ahead waits on them). */
#define READ_PIECE ((uint64_t)4 << 20)
static wlz_error fill_to(eng *en, uint64_t want)
{
	if (want > en->cap)
		want = en->cap;
	while (!en->eof && en->fill < want) {
		const uint64_t ask = want - en->fill < READ_PIECE ? want - en->fill : READ_PIECE;
		size_t got = en->rd(en->rdo, en->src + en->fill, (size_t)ask);
		if (got == (size_t)-1)
			return wlz_fail(WLZ_ERR_READ, "reading the input failed");
		if (got == 0)
			en->eof = 1;
		en->fill += got;
		en->total += got;
		if (en->total > WLZ_CONTENT_MAX)
			return WLZ_ERR_SRC_TOO_LARGE;
		pthread_mutex_lock(&en->rmu);
		en->avail = en->fill;
		pthread_cond_broadcast(&en->rcv);
		pthread_mutex_unlock(&en->rmu);
	}
	return WLZ_OK;
}

/* Keeps the window before the next round and moves it to the buffer's
 * start. */
static void slide(eng *en)
{
	if (en->done <= en->W)
		return;
	const uint64_t shift = (en->done - en->W) / en->B * en->B;
	memmove(en->src, en->src + shift, en->fill - shift);
	memmove(en->map, en->map + shift, en->done - shift);
	en->fill -= shift;
	en->done -= shift;
	en->view.base += shift;
}

/* ---------------------------------------------------------------- output */

typedef struct outs {
	wlz_write_fn wr;
	void *wro;
	uint64_t pos;           /* bytes written */
	wlz_blocklist bl;       /* for the index */
} outs;

static wlz_error put(outs *o, const void *p, size_t n)
{
	if (n && o->wr(o->wro, p, n) != 0)
		return wlz_fail(WLZ_ERR_WRITE, "writing the archive failed");
	o->pos += n;
	return WLZ_OK;
}

static wlz_error put_block(outs *o, const blk *bk)
{
	WLZ_TRY(wlz_blocklist_add(&o->bl, o->pos, bk->e.checksum));
	uint8_t hd[WLZ_BHEAD_SIZE];
	wlz_bhead_write(hd, &bk->e);
	WLZ_TRY(put(o, hd, sizeof(hd)));
	return put(o, bk->data, bk->size);
}

/* Writes the last round's blocks, in order. */
static wlz_error write_blocks(eng *en)
{
	for (uint64_t k = 0; k < en->npend; k++)
		WLZ_TRY(put_block(en->out, &en->pend[k]));
	en->pend = NULL;
	return WLZ_OK;
}

/* Tells the caller how far the written blocks reach. */
static void report(eng *en)
{
	const wlz_options *opt = &en->cc->opt;
	if (opt->progress)
		opt->progress(opt->progress_opaque, en->pend_end, en->known == UINT64_MAX ? 0 : en->known);
}

/* Writes the last round's blocks and tells the caller. */
static wlz_error write_pending(eng *en)
{
	WLZ_TRY(write_blocks(en));
	report(en);
	return WLZ_OK;
}

static wlz_error put_end(outs *o, uint64_t content)
{
	const uint64_t isize = wlz_index_size(o->bl.n), ioff = o->pos;
	uint8_t *idx = malloc((size_t)isize + WLZ_FOOTER_SIZE);
	if (!idx)
		return WLZ_ERR_NOMEM;
	wlz_index_write(idx, o->bl.n, o->bl.offs, o->bl.sums, content);
	wlz_footer_write(idx + isize, ioff, ioff + isize + WLZ_FOOTER_SIZE);
	wlz_error err = put(o, idx, (size_t)isize + WLZ_FOOTER_SIZE);
	free(idx);
	return err;
}

/* ---------------------------------------------------------------- driver */

static wlz_error compress_rounds(eng *en, outs *o, uint64_t size_hint)
{
	wlz_cctx *cc = en->cc;
	const wlz_options *opt = &cc->opt;
	/* The first fill decides the header: an input that ends in it has a
	 * known size, whatever the caller said. */
	en->bl = opt->block_log;
	en->B = (uint64_t)1 << opt->block_log;
	uint64_t W0 = (uint64_t)1 << window_log_for(opt, en->lp, size_hint);
	/* (rounds only shrink once the size is known) */
	uint64_t cap0 = W0 + segment_for(W0, en->B, round_blocks(opt, gap_for(opt, UINT64_MAX, UINT64_MAX), W0)) + en->B + LOOKAHEAD;
	if (size_hint < cap0 - LOOKAHEAD - 1)
		cap0 = size_hint + LOOKAHEAD + 1;  /* room to see the end */
	en->src = wlz_large_alloc((size_t)cap0);
	if (!en->src)
		return WLZ_ERR_NOMEM;
	en->cap = cap0;
	/* A size the caller knows needs only the first round read before
	 * the rounds (or none of it: below); the rest is read while rounds
	 * are parsed. */
	const uint64_t first = size_hint == UINT64_MAX ? cap0
			       : round_blocks(opt, gap_for(opt, UINT64_MAX, UINT64_MAX), W0) * en->B + LOOKAHEAD;
	if (size_hint == UINT64_MAX)
		WLZ_TRY(fill_to(en, first));
	uint64_t known = en->eof ? en->total : size_hint;
	en->known = known;
	en->out = o;
	if (known != UINT64_MAX && known > WLZ_CONTENT_MAX)
		return WLZ_ERR_SRC_TOO_LARGE;
	const uint64_t nb = known == UINT64_MAX ? UINT64_MAX : (known + en->B - 1) >> opt->block_log;
	const unsigned wl = window_log_for(opt, en->lp, known);
	en->W = (uint64_t)1 << wl;
	en->gap = gap_for(opt, nb, en->W >> opt->block_log);
	en->diag = diag_for(opt);
	en->rblocks = round_blocks(opt, en->gap, en->W);
	en->S = segment_for(en->W, en->B, en->rblocks);
	const uint64_t round = en->rblocks * en->B;
	/* The first round is parsed as it is read where its size is known, a
	 * thread of its own reads, and its blocks read no far table (none of
	 * them reads a block before the round). */
	en->streaming = size_hint != UINT64_MAX && known > 0 && cc->io_thread && en->rblocks <= en->gap + 1;
	if (size_hint != UINT64_MAX && !en->streaming) {
		WLZ_TRY(fill_to(en, first));
		if (en->eof && en->total != known)
			return size_changed(known, en->total);
	}
	en->map = wlz_large_alloc((size_t)en->cap);
	en->blks = calloc(2 * (size_t)en->rblocks, sizeof(blk));
	en->tbs = calloc((size_t)en->rblocks, sizeof(tokbuf));
	/* lists live from their listing until the table has them: at most a
	 * round and a gap */
	en->nlists = 2 * (en->rblocks + en->gap + 1);
	en->lists = calloc((size_t)en->nlists, sizeof(alist));
	if (!en->map || !en->blks || !en->tbs || !en->lists)
		return WLZ_ERR_NOMEM;
	for (uint64_t k = 0; k < en->nlists; k++)
		if (!(en->lists[k].off = calloc((size_t)en->nthreads + 1, sizeof(size_t))))
			return WLZ_ERR_NOMEM;
	/* (a known input smaller than the window needs a table of its size) */
	const uint64_t span = known < en->W ? known : en->W;
	WLZ_TRY(wlz_far_init(&en->far, wlz_far_log_for(span, en->lp->far_rate), en->lp->long_len,
			     en->lp->far_rate, en->W));
	en->view = (wlz_view){ en->src, 0, 0, en->W, &en->far };

	wlz_header h = {
		.version = WLZ_FORMAT_VERSION,
		.block_log = opt->block_log,
		.level = (unsigned)opt->level,
		.depth = opt->depth < 0 ? WLZ_DEPTH_NONE : (unsigned)opt->depth,
		.window_log = wl,
		.content_size = known == UINT64_MAX ? WLZ_SIZE_UNKNOWN : known,
	};
	uint8_t hd[WLZ_HEADER_SIZE];
	wlz_header_write(hd, &h);
	WLZ_TRY(put(o, hd, sizeof(hd)));

	for (uint64_t r = 0;; r++) {
		en->rb = en->blks + (r & 1) * en->rblocks;
		const int stream = r == 0 && en->streaming;
		if (en->fill < en->done + round + LOOKAHEAD && !en->eof && !stream) {
			if (en->cap - en->done < round + LOOKAHEAD)
				slide(en);
			WLZ_TRY(fill_to(en, en->done + round + LOOKAHEAD));
		}
		/* (streaming, the round's bytes are those the size promises) */
		const uint64_t have = stream ? known : en->fill;
		if (en->done >= have)
			break;
		const uint64_t rend = en->done + round < have ? en->done + round : have;
		en->view.n = stream ? (rend + LOOKAHEAD < have ? rend + LOOKAHEAD : have) : en->fill;
		/* A depth-limited parse reads the map of its own block's literals
		 * before their levels are set; otherwise every block's levels
		 * write its whole map before a later block reads it. */
		if (opt->depth >= 0)
			memset(en->map + en->done, 0, rend - en->done);
		en->nblk = 0;
		for (uint64_t p = en->done; p < rend; p += en->B) {
			blk *bk = &en->rb[en->nblk];
			bk->tb = &en->tbs[en->nblk++];
			bk->bstart = p;
			bk->bend = p + en->B < rend ? p + en->B : rend;
			bk->abs_block = (en->view.base + p) >> en->bl;
			bk->got = 0;
		}
		en->nfirst = stream && en->lp->long_depth ? en->nblk : 0;
		if (en->lp->long_depth && !stream) {
			/* Anchors of the whole round first: listed inside each
			 * block's task they evicted its parse's tables from the
			 * core's caches, one thread measured slower. */
			int all = 1;
			for (uint64_t k = 0; k < en->nblk; k++)
				all &= listed(en, &en->rb[k]);
			if (!all)
				WLZ_TRY(run_phase(en, 3, en->nblk));
			/* Far table: every block before the gap of the round's
			 * last block.  The round's earlier blocks skip what
			 * they may not read; those entries push older ones
			 * out of full buckets, which eight ways keep rare. */
			const uint64_t last = ((en->view.base + en->done) >> en->bl) + en->nblk - 1;
			const uint64_t to = last > en->gap ? last - en->gap : 0;
			if (to > en->far_block) {
				en->far_to = to;
				WLZ_TRY(run_phase(en, 1, (uint64_t)en->nthreads));
				en->far_block = to;
			}
		}
		for (uint64_t k = 0; k < en->nblk; k++) {
			atomic_store(&en->rb[k].ready, 0);
			atomic_store(&en->rb[k].lv, 0);
		}
		/* (up to the buffer's end: a slide before the next round keeps
		 * whatever was read) */
		const uint64_t next = rend + round + LOOKAHEAD;
		en->ahead = en->eof ? 0 : next < en->cap ? next : en->cap;
		/* The next round's blocks whose input and lookahead the read
		 * ahead brings (past the buffer's end they wait for a slide):
		 * listed by threads that have no block left to parse. */
		en->pre_pos = rend;
		en->pre_n = 0;
		if (en->lp->long_depth && en->ahead)
			while (en->pre_n < en->rblocks && rend + (en->pre_n + 1) * en->B + LOOKAHEAD <= en->ahead)
				en->pre_n++;
		WLZ_TRY(run_phase(en, 2, en->nfirst + en->nblk + en->pre_n));
		en->ahead = 0;
		en->streaming = 0;
		en->nfirst = 0;
		WLZ_TRY(en->ahead_err);
		for (uint64_t k = 0; k < en->nblk; k++)
			if (atomic_load(&en->rb[k].lv) != 2)
				return WLZ_ERR_INTERNAL;  /* (every block gets its levels in the phase) */
		if (en->pend)
			return WLZ_ERR_INTERNAL;  /* (written in the phase) */
		en->pend = en->rb;
		en->npend = en->nblk;
		en->pend_end = en->view.base + rend;
		en->done = rend;
	}
	if (en->pend)
		WLZ_TRY(write_pending(en));
	if (known != UINT64_MAX && en->total != known)
		return size_changed(known, en->total);
	return put_end(o, en->total);
}

WLZ_EXPORT wlz_error wlz_compress_stream(wlz_cctx *cc, wlz_read_fn rd, void *rdo, wlz_write_fn wr, void *wro,
					 uint64_t size_hint)
{
	wlz_detail_clear();
	if (!cc || !rd || !wr)
		return WLZ_ERR_PARAM;
	eng *en = calloc(1, sizeof(*en));
	if (!en)
		return WLZ_ERR_NOMEM;
	en->cc = cc;
	en->lp = wlz_level_params_for(cc->opt.level, size_hint);
	/* Codec 2's segments: 2^14 symbols for inputs known to be under 128
	 * MiB, so that a GPU's entropy stage has a warp for each of its lanes'
	 * runs at once; 2^15 above (half the segments' sizes and padding:
	 * bench/host/issue14-round3.md). */
	const unsigned seg = size_hint < ((uint64_t)128 << 20) ? WLZ_HUF_SEG_DEFAULT - 1 : WLZ_HUF_SEG_DEFAULT;
	en->bp = (wlz_bparams){cc->opt.streams, en->lp->zlevel, WLZ_HUF_MAX_TABLES, seg,
			       en->lp->huf_iters ? en->lp->huf_iters : WLZ_HUF_CLUSTER_ITER};
	en->rd = rd;
	en->rdo = rdo;
	en->nthreads = cc->nthreads;
	atomic_init(&en->err, WLZ_OK);
	atomic_init(&en->next, 0);
	outs o = { wr, wro, 0, { 0 } };
	wlz_error err = ensure_workers(cc, en->nthreads, en->lp);
	pthread_t *tid = NULL;
	pool_arg *args = NULL;
	int started = 1;
	if (err == WLZ_OK) {
		pthread_mutex_init(&en->mu, NULL);
		pthread_cond_init(&en->go, NULL);
		pthread_cond_init(&en->idle, NULL);
		pthread_mutex_init(&en->rmu, NULL);
		pthread_cond_init(&en->rcv, NULL);
		tid = calloc((size_t)en->nthreads, sizeof(*tid));
		args = calloc((size_t)en->nthreads, sizeof(*args));
		if (!tid || !args)
			err = WLZ_ERR_NOMEM;
		for (; err == WLZ_OK && started < en->nthreads; started++) {
			args[started] = (pool_arg){ en, started };
			if (pthread_create(&tid[started], NULL, pool_main, &args[started]) != 0) {
				err = WLZ_ERR_THREAD;
				break;
			}
		}
		en->nthreads = started;
		if (err == WLZ_OK)
			err = compress_rounds(en, &o, size_hint);
		pthread_mutex_lock(&en->mu);
		en->phase = 0;
		en->gen++;
		pthread_cond_broadcast(&en->go);
		pthread_mutex_unlock(&en->mu);
		for (int t = 1; t < started; t++)
			pthread_join(tid[t], NULL);
		pthread_mutex_destroy(&en->mu);
		pthread_cond_destroy(&en->go);
		pthread_cond_destroy(&en->idle);
		pthread_mutex_destroy(&en->rmu);
		pthread_cond_destroy(&en->rcv);
	}
	for (uint64_t k = 0; en->blks && k < 2 * en->rblocks; k++)
		free(en->blks[k].data);
	free(en->blks);
	for (uint64_t k = 0; en->tbs && k < en->rblocks; k++)
		free(en->tbs[k].t);
	free(en->tbs);
	for (uint64_t k = 0; en->lists && k < en->nlists; k++) {
		free(en->lists[k].a);
		free(en->lists[k].off);
	}
	free(en->lists);
	wlz_large_free(en->src, (size_t)en->cap);
	wlz_large_free(en->map, (size_t)en->cap);
	wlz_far_destroy(&en->far);
	wlz_blocklist_free(&o.bl);
	free(tid);
	free(args);
	free(en);
	return err;
}

/* ---------------------------------------------------------------- buffers */

typedef struct membuf {
	const uint8_t *src;
	size_t n, at;
	uint8_t *dst;
	size_t cap, len;
} membuf;

static size_t mem_read(void *opaque, void *buf, size_t cap)
{
	membuf *m = opaque;
	size_t k = m->n - m->at < cap ? m->n - m->at : cap;
	memcpy(buf, m->src + m->at, k);
	m->at += k;
	return k;
}

static int mem_write(void *opaque, const void *buf, size_t n)
{
	membuf *m = opaque;
	if (m->cap - m->len < n)
		return 1;
	memcpy(m->dst + m->len, buf, n);
	m->len += n;
	return 0;
}

WLZ_EXPORT wlz_error wlz_compress(wlz_cctx *cc, void *dst, size_t dst_capacity,
				  const void *src, size_t src_size, size_t *dst_size)
{
	wlz_detail_clear();
	if (!cc || !dst || !dst_size || (!src && src_size))
		return WLZ_ERR_PARAM;
	*dst_size = 0;
	if ((uint64_t)src_size > WLZ_CONTENT_MAX)
		return WLZ_ERR_SRC_TOO_LARGE;
	membuf m = { src, src_size, 0, dst, dst_capacity, 0 };
	wlz_error err = wlz_compress_stream(cc, mem_read, &m, mem_write, &m, src_size);
	if (err == WLZ_ERR_WRITE)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "the archive does not fit in %zu bytes", dst_capacity);
	if (err == WLZ_OK)
		*dst_size = m.len;
	return err;
}
