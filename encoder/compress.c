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
 * once on the worker threads; each then gets its dependency levels once
 * those of the blocks it may read are done.  Before a round's parse, the
 * far table receives the anchors of every block before the gap of the
 * round's last block (anchors are found from the input alone); each block
 * ignores the entries it may not read (its gap and after).  Rounds hold
 * WLZ_ROUND_BLOCKS blocks, a count that does not depend on the threads, so
 * neither do the bytes written.  Under a depth limit the parse reads the
 * level map of its sources, so a round is then gap + 1 blocks, none of
 * which reads another.
 *
 * A round of fewer than WLZ_PIECE_TARGET blocks (a small input's or
 * window's, or an input's last) cuts each block's fast parse into pieces,
 * parsed on several threads and joined by the last one before the block
 * is coded.
 *
 * Two rounds are in flight at once: the next round's table inserts start
 * as soon as every block of this round has found its far matches (which
 * its parse does first), and its blocks start on the threads this round's
 * last blocks leave idle.  Each block sees the table as it would with no
 * overlap, so the archive does not depend on timing.  The caller's thread
 * reads the input, arms rounds and writes finished ones in order; only a
 * move of the window to the buffer's start (slide) waits for every block.
 * An input read at offsets (wlz_compress_pread) is read by the workers
 * too, a piece each, before any other task: the first round's blocks
 * then start together, where one reader would give them their bytes one
 * after another.
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
 * position order for its parse (a), and, with several threads, their
 * indices in part order for the threads that enter them (p: part k of the
 * table's buckets at p[off[k] .. off[k + 1]]), both written when the list
 * is made.  A
 * list may be entered before its block is parsed or while it is: both
 * only read it.  (Parted later, after the parse, each thread that
 * entered a list not yet parted read all of it: 8 times the anchors at
 * 16 threads, bench/host/issue13-r14.md.) */
typedef struct alist {
	wlz_anchor *a;
	uint32_t *p;            /* (in a's room, after cap anchors) */
	size_t n, cap;
	int own;                /* a was malloc'd, not taken from the slab */
	size_t *off;            /* nthreads + 1 entries */
} alist;

/* Token room for a block, from a pool: a block's tokens are done with once
 * its levels are, and the buffer goes back (the last one back is the next
 * taken, warm and already large). */
typedef struct tokbuf {
	wlz_token *t;
	size_t cap;
} tokbuf;

/* A round of fewer blocks than WLZ_PIECE_TARGET cuts each block's parse
 * into up to WLZ_PIECES_MAX pieces (the fast parse with its 8-byte table,
 * levels 2 to 4; not under a depth limit nor --flatten=full), parsed on
 * several threads at once: otherwise the round leaves threads idle for a
 * block's whole parse.
 * Such rounds are a small input's (a quarter of its window), a window of
 * under 64 blocks' (--window, --parallel), and an input's last
 * (bench/host/issue13-r15.md).  Each piece after the first enters the
 * block's bytes before it into its tables again: at level 1, whose parse
 * is little more than those entries, that costs more on one thread than
 * the second thread gains.  The counts do not depend on the threads, so
 * neither do the bytes written. */
#define WLZ_PIECE_TARGET 16
#define WLZ_PIECES_MAX 2
#define WLZ_PIECE_MIN ((uint64_t)64 << 10)

/* A piece's tokens, until its block's last piece joins them. */
typedef struct piece {
	wlz_token *t;
	size_t n, cap;
	uint64_t from, to;      /* its bytes */
} piece;

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
	int far_done;           /* (its parse no longer reads the far table) */
	int listed;             /* (its list task is done) */
	struct rnd *rd;         /* its round */
	unsigned npc;           /* pieces its parse is cut into (1: one task) */
	piece *pc;              /* WLZ_PIECES_MAX of them */
	atomic_uint pc_left;    /* pieces not yet parsed */
	atomic_uint pc_far;     /* pieces not yet done with the far table */
	atomic_int pc_err;      /* a piece's failure */
} blk;

/* A round in flight.  Its tasks (claim gives their order): list the
 * anchors of each block; enter blocks [far_from, far_to) into the far
 * table, in parts, once the round before has done with the table; parse
 * and code each block.  Counters under eng.mu. */
typedef struct rnd {
	int live;               /* armed, not yet written */
	blk *rb;                /* its slot's blocks */
	uint64_t nblk;
	uint64_t rend;          /* buffer position of its end */
	uint64_t abs0;          /* block number of rb[0] */
	wlz_view view;
	uint64_t far_from, far_to;
	uint64_t lists_taken;
	uint64_t nlow, lists_low;  /* its blocks the inserts enter (below far_to), listed */
	unsigned parts, parts_taken, parts_done;
	uint64_t blks_taken;
	unsigned pc_taken;      /* pieces of block blks_taken taken */
	uint64_t far_used;      /* blocks done with the far table */
	uint64_t complete;      /* blocks with their levels */
} rnd;

struct wlz_cctx {
	wlz_options opt;
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
	uint64_t B, W;          /* block, window */
	uint64_t gap;           /* blocks a match may not read before its own */
	int diag;               /* the diagonal rule holds (SPEC.md, section 8) */
	uint64_t rblocks;       /* blocks per round */
	uint8_t *src, *map;
	uint64_t cap, fill;     /* buffer capacity, bytes in it */
	uint64_t done;          /* buffer position of the next round to arm */
	int eof;
	uint64_t total;         /* input bytes read */
	uint64_t known;         /* the input's size, UINT64_MAX: unknown */
	wlz_read_fn rd;
	void *rdo;
	wlz_far far;
	wlz_view view;          /* base and window of the rounds to come */
	/* The reader publishes its progress under rmu: tasks whose bytes are
	 * still to come wait on rcv. */
	pthread_mutex_t rmu;
	pthread_cond_t rcv;
	uint64_t avail;         /* bytes read into the buffer so far */
	int rdone;              /* the input has ended, or its read failed */
	/* An input read at offsets (wlz_compress_pread): fill is how far
	 * reads are posted, in pieces of READ_PIECE bytes (buffer positions
	 * aligned to it, but at the buffer's or the input's end and just
	 * after a slide); the workers and the caller's thread read them in
	 * any order, and avail moves over those done (rq_done, a flag a
	 * piece, under rmu). */
	wlz_pread_fn prd;
	void *prdo;
	uint64_t rq_next;       /* the next piece to read (under mu) */
	uint64_t rq_busy;       /* pieces being read (under mu) */
	uint64_t rq_lim;        /* the buffer's or the input's end, whichever is first (under mu and rmu) */
	uint8_t *rq_done;
	/* Rounds alternate between two slots of blks. */
	rnd rounds[2];
	blk *blks;              /* 2 * rblocks */
	tokbuf *tbs;            /* 2 * rblocks */
	piece *pcs;             /* 2 * rblocks * WLZ_PIECES_MAX */
	tokbuf **tfree;         /* the pool: tbs not in use, under mu */
	uint64_t ntfree;
	uint64_t narmed, nwritten;  /* rounds armed, and written */
	atomic_uint_fast64_t lvp;   /* every block before this has its levels */
	struct outs *out;
	alist *lists;           /* anchors of block b at b % nlists */
	uint64_t nlists;
	/* Room for the lists of an input of nlists blocks at most, taken in
	 * turn: in 2 MiB pages, where a list of its own would fault in a
	 * page at a time.  (Lists of a longer input, whose slots list again,
	 * have their own: room outgrown in a slab would be lost.) */
	uint8_t *slab;
	uint64_t slab_cap;
	atomic_uint_fast64_t slab_used;
	uint64_t far_block;     /* blocks before it go in the table before the next round */
	/* The far table is zeroed by the workers, zparts tasks, the first
	 * they take (no block reads it, nor is anything inserted, before);
	 * with one worker, by the caller's thread when it has nothing else,
	 * and by the worker only once no other task is left. */
	unsigned zparts, ztaken, zdone;
	uint64_t pf_map, pf_slab;  /* bytes the caller's thread faulted in (one worker) */
	/* A slide's moves, in waves of chunks the workers copy (under mu):
	 * in a wave no chunk's bytes are another's source. */
	uint64_t mv_shift;
	uint64_t mv_next, mv_hi;  /* this wave's chunks left: offsets [mv_next, mv_hi) */
	uint64_t mv_busy;         /* chunks being copied */
	/* workers */
	pthread_mutex_t mu;
	pthread_cond_t work;    /* a task may have become possible */
	pthread_cond_t coord;   /* a round may be complete, or a failure */
	int quit;
	atomic_int err;
	char detail[WLZ_DETAIL_MAX];  /* the first error's, said on the caller's thread */
	int nthreads;
} eng;

typedef struct pool_arg {
	eng *en;
	int id;
} pool_arg;

/* Keeps the first error of any thread, with its detail (each thread has
 * its own: the caller's thread says it), and wakes every thread that
 * waits: on a task, on the input, on a round. */
static void set_err(eng *en, wlz_error err)
{
	int ok = WLZ_OK;
	if (atomic_compare_exchange_strong(&en->err, &ok, (int)err))
		snprintf(en->detail, sizeof(en->detail), "%s", wlz_error_detail());
	pthread_mutex_lock(&en->rmu);
	pthread_cond_broadcast(&en->rcv);
	pthread_mutex_unlock(&en->rmu);
	pthread_mutex_lock(&en->mu);
	pthread_cond_broadcast(&en->work);
	pthread_cond_broadcast(&en->coord);
	pthread_mutex_unlock(&en->mu);
}

/* An input that held other than the size its caller stated. */
static wlz_error size_changed(uint64_t said, uint64_t held)
{
	if (held > said)  /* (what was read by then: more may follow) */
		return wlz_fail(WLZ_ERR_READ, "the input shrank or grew: it was said to hold %llu bytes but held more",
				(unsigned long long)said);
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

/* --parallel, the level's where not given (WLZ_PARALLEL_AUTO): the levels
 * that ask for size drop the rules (bench/host/issue13-level19.md). */
int wlz_parallel_of(const wlz_options *o)
{
	if (o->parallel != WLZ_PARALLEL_AUTO)
		return o->parallel;
	return o->level >= WLZ_LEVEL_SIZE_FIRST ? 1 : WLZ_PARALLEL_DEFAULT;
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
	uint64_t g = (uint64_t)wlz_parallel_of(o) - 1;
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
	return wlz_parallel_of(o) > 1;
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
	/* (kept for compatibility: reads and writes are always on the
	 * caller's thread, beside the workers) */
	(void)cc;
	(void)on;
}

/* A worker's parser, block coder and anchors give their pages back. */
static void *release_worker(void *arg)
{
	worker *w = arg;
	wlz_parser_release(w->ps);
	wlz_benc_release(w->be);
	wlz_release_pages(w->anc, w->anc_cap * sizeof(*w->anc));
	return NULL;
}

/* The workers' pages go back on a thread each (madvise's zapping runs
 * side by side, where free and munmap, holding the address space's lock
 * for writing, take their turns), then the buffers are freed with
 * nothing left to zap. */
static void free_workers(wlz_cctx *cc)
{
	pthread_t *th = cc->nw > 1 ? malloc((size_t)cc->nw * sizeof(*th)) : NULL;
	int nt = 0;
	for (int i = 1; i < cc->nw; i++)
		if (th && pthread_create(&th[nt], NULL, release_worker, &cc->w[i]) == 0)
			nt++;
		else
			release_worker(&cc->w[i]);
	if (cc->nw)
		release_worker(&cc->w[0]);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	free(th);
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
	 * blocks kept, and a thread's scratch; on several threads their
	 * indices in part order too (4 bytes each) */
	const uint64_t anchors = 2 * (R + gap + 1) * B / lp->far_rate * (8 + (t > 1 ? 4 : 0)) * 2;
	/* two rounds' coded blocks, and their tokens (16 bytes each, one per
	 * WLZ_MINMATCH bytes at most): the next round is parsed while this
	 * one ends.  (Tokens are held from a block's parse to its levels:
	 * one thread, which parses blocks in order, holds one round's at
	 * most.) */
	const uint64_t tokens = R * (B / WLZ_MINMATCH + 1) * sizeof(wlz_token);
	const uint64_t round = 2 * R * B + (t > 1 ? 2 : 1) * tokens;
	/* blocks parsed in pieces: each piece's tokens too, kept by its slot
	 * (pieces_for) */
	const uint64_t pieces = lp->fast >= 2 && o.depth < 0 && o.flatten < 2 && R < WLZ_PIECE_TARGET
					? 2 * R * (B / WLZ_MINMATCH + WLZ_PIECES_MAX) * sizeof(wlz_token) : 0;
	return 2 * cap + far + anchors + t * (per + 8 * B) + round + pieces;
}

/* ---------------------------------------------------------------- blocks */

/* Copies a parse's tokens to the block: they must outlive the parser's
 * next block, until the block's levels are done. */
static wlz_error keep_tokens(blk *bk, const wlz_token *tok, size_t ntok)
{
	tokbuf *tb = bk->tb;
	if (!wlz_grow((void **)&tb->t, &tb->cap, ntok, sizeof(*tb->t)))
		return WLZ_ERR_NOMEM;
	if (ntok)
		memcpy(tb->t, tok, ntok * sizeof(*tok));
	bk->ntok = ntok;
	return WLZ_OK;
}

/* A list's bytes an anchor: the anchor, and on several threads its index
 * in part order (part_anchors). */
static size_t list_entry_bytes(const eng *en)
{
	return sizeof(wlz_anchor) + (en->nthreads > 1 ? sizeof(uint32_t) : 0);
}

/* Room in the list for na anchors, and on several threads their indices
 * (a list's old anchors are not kept). */
static wlz_error list_room(eng *en, alist *al, size_t na)
{
	if (na <= al->cap)
		return WLZ_OK;
	const size_t each = list_entry_bytes(en);
	/* (whole cache lines: lists filled at once by two threads share
	 * none) */
	const uint64_t bytes = ((uint64_t)na * each + 63) & ~(uint64_t)63;
	void *q = NULL;
	if (en->slab && !al->own && bytes <= en->slab_cap) {
		const uint64_t at = atomic_fetch_add(&en->slab_used, bytes);
		if (at <= en->slab_cap - bytes)
			q = en->slab + at;
	}
	if (!q) {
		/* (grown in place where it can be: its pages stay in) */
		if (bytes > SIZE_MAX || !(q = realloc(al->own ? al->a : NULL, (size_t)bytes)))
			return WLZ_ERR_NOMEM;
		al->own = 1;
	}
	al->a = q;
	al->p = (uint32_t *)(al->a + na);
	al->cap = na;
	return WLZ_OK;
}

/* The list's na anchors a in part order, as indices (a stable counting
 * sort), so that each thread that enters a part reads only its anchors. */
static wlz_error part_anchors(eng *en, alist *al, const wlz_anchor *a, size_t na)
{
	const unsigned np = (unsigned)en->nthreads;
	if (np == 1 || !en->lp->long_depth)
		return WLZ_OK;  /* (one part: position order is part order) */
	size_t *off = al->off;
	for (size_t i = 0; i < na; i++)
		off[wlz_far_part(&en->far, a[i].bucket, np) + 1]++;
	for (unsigned k = 0; k < np; k++)
		off[k + 1] += off[k];
	for (size_t i = 0; i < na; i++)
		al->p[off[wlz_far_part(&en->far, a[i].bucket, np)]++] = (uint32_t)i;
	/* (each off[k] now holds where part k ends) */
	memmove(off + 1, off, np * sizeof(*off));
	off[0] = 0;
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
	memset(al->off, 0, ((size_t)en->nthreads + 1) * sizeof(*al->off));
	/* Anchors hash 16 bytes: none in the input's last 16. */
	const uint64_t safe = n >= 16 ? n - 16 : 0;
	const uint64_t to = bend < safe ? bend : safe;
	if (to <= bstart)
		return WLZ_OK;
	const uint64_t len = to - bstart;
	if (!wlz_grow((void **)&w->anc, &w->anc_cap, (size_t)len, sizeof(*w->anc)))
		return WLZ_ERR_NOMEM;
	const size_t na = wlz_far_anchors(&en->far, en->src, bstart, to, w->anc);
	WLZ_TRY(list_room(en, al, na));
	if (na)
		memcpy(al->a, w->anc, na * sizeof(*al->a));
	al->n = na;
	return part_anchors(en, al, w->anc, na);
}

/* Waits until the buffer holds `need` bytes or the input has ended;
 * returns the bytes read then (a failure anywhere ends the wait too). */
static uint64_t wait_read(eng *en, uint64_t need)
{
	pthread_mutex_lock(&en->rmu);
	while (!en->rdone && en->avail < need && atomic_load(&en->err) == WLZ_OK)
		pthread_cond_wait(&en->rcv, &en->rmu);
	const uint64_t n = en->avail;
	pthread_mutex_unlock(&en->rmu);
	return n;
}

/* Waits for a block's bytes and the lookahead after them, up to the
 * round's view.n (the input's end where it is known and in the buffer:
 * no more is read once the buffer is full); a known input that ends
 * sooner is an error. */
static wlz_error block_bytes(eng *en, const blk *bk)
{
	const uint64_t need = bk->bend + LOOKAHEAD < bk->rd->view.n ? bk->bend + LOOKAHEAD : bk->rd->view.n;
	const uint64_t n = wait_read(en, need);
	if (atomic_load(&en->err) != WLZ_OK)
		return (wlz_error)atomic_load(&en->err);
	if (n < need)
		return size_changed(en->known, en->view.base + n);
	return WLZ_OK;
}

/* A list task: the block's anchors, once its bytes are read. */
static wlz_error list_task(eng *en, worker *w, const blk *bk)
{
	WLZ_TRY(block_bytes(en, bk));
	return list_range(en, w, bk->abs_block, bk->bstart, bk->bend, bk->rd->view.n);
}

/* A block is done with the far table: the next round's inserts may start
 * once every block of its round is done.
 * Once per block: on its own thread, from its parse
 * (wlz_parser_set_far_done) or after it; for a block in pieces, on the
 * thread of the last piece done with the table. */
static void far_release(eng *en, blk *bk)
{
	if (bk->far_done)
		return;
	bk->far_done = 1;
	pthread_mutex_lock(&en->mu);
	if (++bk->rd->far_used == bk->rd->nblk)
		pthread_cond_broadcast(&en->work);
	pthread_mutex_unlock(&en->mu);
}

typedef struct far_arg {
	eng *en;
	blk *bk;
} far_arg;

static void far_done_cb(void *p)
{
	far_arg *fa = p;
	far_release(fa->en, fa->bk);
}

/* The parser set for a block of this round: gap and diagonal rule, the
 * block's anchors, the level map under a depth limit. */
static void parser_for(eng *en, worker *w, const blk *bk)
{
	const int depth = en->cc->opt.depth;
	wlz_parser_set_parallel(w->ps, (int)en->gap + 1, en->diag);
	if (en->lp->long_depth) {
		const alist *al = &en->lists[bk->abs_block % en->nlists];
		wlz_parser_set_anchors(w->ps, al->a, al->n);
	}
	wlz_parser_set_depth(w->ps, depth >= 0 ? en->map : NULL, depth);
}

/* Codes the block's tokens (bk->tb) into its payload. */
static wlz_error code_block(eng *en, worker *w, blk *bk)
{
	const uint8_t *payload;
	size_t psize;
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

/* Parse and code one block on one thread; its tokens stay in bk. */
static wlz_error parse_block(eng *en, worker *w, blk *bk)
{
	const wlz_lparams *lp = en->lp;
	const int depth = en->cc->opt.depth;
	const wlz_view *v = &bk->rd->view;
	const wlz_token *tok;
	size_t ntok;
	const uint8_t *payload;
	size_t psize;
	far_arg fa = { en, bk };
	parser_for(en, w, bk);
	wlz_parser_set_far_done(w->ps, far_done_cb, &fa);
	wlz_error err = WLZ_OK;
	if (lp->optimal && depth < 0) {
		/* The price model is an estimate: on noisy data (PacBio
		 * qualities) the lazy parse can code smaller; keep the better. */
		size_t best = SIZE_MAX;
		wlz_block_entry e;
		for (int pass = 0; pass < 2 && err == WLZ_OK; pass++) {
			/* (the last pass is the last to read the table: both
			 * find their far matches up front under --flatten=full) */
			wlz_parser_set_far_done(w->ps, pass == 1 ? far_done_cb : NULL, &fa);
			err = wlz_parse_block(w->ps, v, bk->bstart, bk->bend, pass, &tok, &ntok);
			if (err == WLZ_OK)
				err = wlz_benc_encode(w->be, en->src, bk->bstart, bk->bend, tok, ntok, &en->bp, &payload,
						      &psize, &e);
			if (err == WLZ_OK && psize < best) {
				best = psize;
				err = keep_tokens(bk, tok, ntok);
			}
		}
	} else {
		err = wlz_parse_block(w->ps, v, bk->bstart, bk->bend, 0, &tok, &ntok);
		if (err == WLZ_OK)
			err = keep_tokens(bk, tok, ntok);
	}
	/* (parses that read the table throughout are done with it now) */
	wlz_parser_set_far_done(w->ps, NULL, NULL);
	far_release(en, bk);
	WLZ_TRY(err);
	return code_block(en, w, bk);
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

/* The block of number a if its round is in flight (NULL: not). */
static blk *block_at(eng *en, uint64_t a)
{
	rnd *R = &en->rounds[(a / en->rblocks) & 1];
	if (!R->live || a < R->abs0 || a - R->abs0 >= R->nblk)
		return NULL;
	return &R->rb[a - R->abs0];
}

/* Moves lvp past every block that has its levels (under mu). */
static void advance_lvp(eng *en)
{
	for (;;) {
		const uint64_t a = atomic_load(&en->lvp);
		const blk *bk = block_at(en, a);
		if (!bk || atomic_load(&bk->lv) != 2)
			return;
		atomic_store(&en->lvp, a + 1);
	}
}

/* Whether a block may get its levels: parsed, and every block it may read
 * (those more than the gap before it) has its levels. */
static int levels_ready(eng *en, const blk *bk)
{
	return atomic_load(&bk->ready) && bk->abs_block <= atomic_load(&en->lvp) + en->gap;
}

/* Gives levels to every block of the rounds in flight that may have them,
 * until none is left.  With a gap of at least the round's blocks less
 * one, no block of a round reads another and all get their levels at
 * once, each on the thread that parsed it; with less, a block waits for
 * those it reads, which the thread that finishes them gives it. */
static void run_levels(eng *en)
{
	for (int again = 1; again;) {
		again = 0;
		/* (the rounds in flight as they are now: a slot is armed
		 * again only once all its blocks have levels) */
		blk *rbs[2];
		uint64_t nb[2];
		pthread_mutex_lock(&en->mu);
		const uint64_t first = en->nwritten, n = en->narmed - first;
		for (uint64_t i = 0; i < n; i++) {
			rbs[i] = en->rounds[(first + i) & 1].rb;
			nb[i] = en->rounds[(first + i) & 1].nblk;
		}
		pthread_mutex_unlock(&en->mu);
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t k = 0; k < nb[i]; k++) {
				blk *bk = &rbs[i][k];
				int todo = 0;
				if (atomic_load(&bk->lv) != 0 || !levels_ready(en, bk) ||
				    !atomic_compare_exchange_strong(&bk->lv, &todo, 1))
					continue;
				wlz_error err = atomic_load(&bk->ready) == 1 && atomic_load(&en->err) == WLZ_OK
						? block_levels(en, bk) : WLZ_OK;
				if (err != WLZ_OK)
					set_err(en, err);
				pthread_mutex_lock(&en->mu);
				atomic_store(&bk->lv, 2);
				if (bk->tb)
					en->tfree[en->ntfree++] = bk->tb;
				bk->tb = NULL;
				bk->rd->complete++;
				advance_lvp(en);
				pthread_mutex_unlock(&en->mu);
				again = 1;
			}
	}
}

/* A token buffer from the pool, for a block about to be coded. */
static tokbuf *take_tokbuf(eng *en)
{
	pthread_mutex_lock(&en->mu);
	/* (never empty: the blocks of the two rounds in flight hold one
	 * each at most) */
	tokbuf *tb = en->ntfree ? en->tfree[--en->ntfree] : NULL;
	pthread_mutex_unlock(&en->mu);
	return tb;
}

/* Parse and code a block, then give levels to whatever blocks are ready
 * (levels read those of the blocks before). */
static wlz_error block_task(eng *en, worker *w, blk *bk)
{
	wlz_error err = block_bytes(en, bk);
	bk->tb = take_tokbuf(en);
	if (!bk->tb && err == WLZ_OK)
		err = WLZ_ERR_INTERNAL;
	if (err == WLZ_OK)
		err = parse_block(en, w, bk);
	else
		far_release(en, bk);
	atomic_store(&bk->ready, err == WLZ_OK ? 1 : 2);
	run_levels(en);
	return err;
}

/* A piece's share of its block's use of the far table: the last piece
 * done with it releases the block's. */
typedef struct piece_arg {
	eng *en;
	blk *bk;
	int done;
} piece_arg;

static void piece_far_done(void *p)
{
	piece_arg *pa = p;
	pa->done = 1;
	if (atomic_fetch_sub(&pa->bk->pc_far, 1) == 1)
		far_release(pa->en, pa->bk);
}

/* Where piece j of npc starts in a block of len bytes.  A piece after
 * the first enters the block's bytes before it into its tables, at a
 * good part of what parsing them costs: of two pieces the first is the
 * longer, so that both take about as long (bench/host/issue13-r24.md). */
#define WLZ_PIECE_FIRST_16THS 9
static uint64_t piece_cut(uint64_t len, unsigned j, unsigned npc)
{
	if (npc == 2 && j == 1)
		return len * WLZ_PIECE_FIRST_16THS / 16;
	return len * j / npc;
}

/* Piece j of the block parsed; its tokens kept in the piece. */
static wlz_error parse_piece(eng *en, worker *w, blk *bk, unsigned j, piece_arg *pa)
{
	piece *pc = &bk->pc[j];
	const uint64_t len = bk->bend - bk->bstart;
	pc->from = bk->bstart + piece_cut(len, j, bk->npc);
	pc->to = bk->bstart + piece_cut(len, j + 1, bk->npc);
	pc->n = 0;
	parser_for(en, w, bk);
	if (!wlz_parse_can_piece(w->ps))
		return WLZ_ERR_INTERNAL;
	wlz_parser_set_far_done(w->ps, piece_far_done, pa);
	const wlz_token *tok;
	size_t ntok;
	wlz_error err = wlz_parse_piece(w->ps, &bk->rd->view, bk->bstart, bk->bend, pc->from, pc->to, &tok, &ntok);
	wlz_parser_set_far_done(w->ps, NULL, NULL);
	if (err == WLZ_OK && !wlz_grow((void **)&pc->t, &pc->cap, ntok, sizeof(*pc->t)))
		err = WLZ_ERR_NOMEM;
	if (err == WLZ_OK && ntok) {
		memcpy(pc->t, tok, ntok * sizeof(*tok));
		pc->n = ntok;
	}
	return err;
}

/* The block's tokens from its pieces': a piece's literals after its last
 * match open the next piece's first run (or the block's tail). */
static wlz_error join_pieces(blk *bk)
{
	size_t n = 0;
	for (unsigned j = 0; j < bk->npc; j++)
		n += bk->pc[j].n;
	tokbuf *tb = bk->tb;
	if (!wlz_grow((void **)&tb->t, &tb->cap, n, sizeof(*tb->t)))
		return WLZ_ERR_NOMEM;
	uint64_t carry = 0;
	size_t at = 0;
	for (unsigned j = 0; j < bk->npc; j++) {
		const piece *pc = &bk->pc[j];
		if (!pc->n) {
			carry += pc->to - pc->from;
			continue;
		}
		uint64_t used = 0;
		for (size_t i = 0; i < pc->n; i++)
			used += (uint64_t)pc->t[i].lit + pc->t[i].mlen;
		if (used > pc->to - pc->from)
			return WLZ_ERR_INTERNAL;
		memcpy(tb->t + at, pc->t, pc->n * sizeof(*pc->t));
		tb->t[at].lit += (uint32_t)carry;
		at += pc->n;
		carry = pc->to - pc->from - used;
	}
	bk->ntok = n;
	return WLZ_OK;
}

/* Piece j of a block cut into pieces; the last piece parsed joins them,
 * codes the block and gives levels, as block_task does. */
static wlz_error piece_task(eng *en, worker *w, blk *bk, unsigned j)
{
	piece_arg pa = { en, bk, 0 };
	wlz_error err = block_bytes(en, bk);
	if (err == WLZ_OK)
		err = parse_piece(en, w, bk, j, &pa);
	if (!pa.done)
		piece_far_done(&pa);
	if (err != WLZ_OK)
		atomic_store(&bk->pc_err, (int)err);
	/* (acq_rel: the last one sees every piece's tokens) */
	if (atomic_fetch_sub_explicit(&bk->pc_left, 1, memory_order_acq_rel) != 1)
		return err;
	wlz_error berr = (wlz_error)atomic_load(&bk->pc_err);
	bk->tb = take_tokbuf(en);
	if (berr == WLZ_OK && !bk->tb)
		berr = WLZ_ERR_INTERNAL;
	if (berr == WLZ_OK)
		berr = join_pieces(bk);
	if (berr == WLZ_OK)
		berr = code_block(en, w, bk);
	atomic_store(&bk->ready, berr == WLZ_OK ? 1 : 2);
	run_levels(en);
	return err != WLZ_OK ? err : berr;
}

/* ---------------------------------------------------------------- workers */

enum { T_NONE, T_LIST, T_PART, T_BLOCK, T_ZERO, T_PIECE, T_READ };

static int move_one(eng *en);

/* The next task that may run now (under mu): oldest round first, and in
 * a round a block before a list (a block waits only for its own list, so
 * one thread parses the input as it arrives), then the table's parts. */
static int claim_zero(eng *en, rnd **pr, uint64_t *pk)
{
	if (en->ztaken == en->zparts)
		return T_NONE;
	*pr = NULL;
	*pk = en->ztaken++;
	return T_ZERO;
}

static int claim_read(eng *en, uint64_t *pk);

static int claim(eng *en, rnd **pr, uint64_t *pk)
{
	/* (one worker: only the caller's thread reads, beside it, so the
	 * worker never waits for a read it holds) */
	if (en->nthreads > 1 && claim_read(en, pk) == T_READ) {
		*pr = NULL;
		return T_READ;
	}
	if (en->nthreads > 1 && claim_zero(en, pr, pk) == T_ZERO)
		return T_ZERO;
	const int zeroed = en->zdone == en->zparts;
	for (uint64_t q = en->nwritten; q < en->narmed; q++) {
		rnd *R = &en->rounds[q & 1];
		*pr = R;
		/* (a block's parse reads its own list, and the table once
		 * the round's inserts are done, unless its gap reaches the
		 * input's start; the next round's inserts wait for every
		 * block's lookups.  Under a depth limit the parse also reads
		 * its sources' levels.) */
		if (R->blks_taken < R->nblk && R->rb[R->blks_taken].listed &&
		    ((R->parts_done == R->parts && zeroed) || R->abs0 + R->blks_taken <= en->gap) &&
		    (en->cc->opt.depth < 0 || R->abs0 + R->blks_taken <= atomic_load(&en->lvp) + en->gap)) {
			const blk *bk = &R->rb[R->blks_taken];
			if (bk->npc <= 1) {
				*pk = R->blks_taken++;
				return T_BLOCK;
			}
			/* (a piece: block * WLZ_PIECES_MAX + piece) */
			*pk = R->blks_taken * WLZ_PIECES_MAX + R->pc_taken;
			if (++R->pc_taken == bk->npc) {
				R->pc_taken = 0;
				R->blks_taken++;
			}
			return T_PIECE;
		}
		if (R->lists_taken < R->nblk) {
			*pk = R->lists_taken++;
			return T_LIST;
		}
		/* The table changes only once the anchors it receives are
		 * listed and the round before has done with it. */
		const rnd *P = q > en->nwritten ? &en->rounds[(q - 1) & 1] : NULL;
		if (R->parts_taken < R->parts && R->lists_low == R->nlow && (!P || P->far_used == P->nblk) && zeroed) {
			*pk = R->parts_taken++;
			return T_PART;
		}
	}
	return claim_zero(en, pr, pk);
}

static wlz_error read_at(eng *en, uint64_t k);

static wlz_error run_task(eng *en, worker *w, int t, rnd *R, uint64_t k)
{
	if (t == T_READ)
		return read_at(en, k);
	if (t == T_ZERO) {
		wlz_far_zero(&en->far, (unsigned)k, en->zparts);
		return WLZ_OK;
	}
	if (t == T_LIST)
		return list_task(en, w, &R->rb[k]);
	if (t == T_BLOCK)
		return block_task(en, w, &R->rb[k]);
	if (t == T_PIECE)
		return piece_task(en, w, &R->rb[k / WLZ_PIECES_MAX], (unsigned)(k % WLZ_PIECES_MAX));
	const unsigned part = (unsigned)k;
	for (uint64_t b = R->far_from; b < R->far_to; b++) {
		const alist *al = &en->lists[b % en->nlists];
		/* (one part: the list in position order) */
		if (R->parts == 1)
			wlz_far_insert(&en->far, al->a, NULL, al->n, b << en->bl);
		else if (al->off[part + 1] > al->off[part])
			wlz_far_insert(&en->far, al->a, al->p + al->off[part], al->off[part + 1] - al->off[part],
				       b << en->bl);
	}
	return WLZ_OK;
}

/* The job done (quit), a worker gives back the pages of its share of
 * the job's buffers, which the caller's thread frees next, all workers at
 * once: freed by one thread after the join, the pages were a good part of
 * a short job's time (bench/host/issue13-r25.md).  Only after a job that
 * ended well, every task done: after a failure another worker may still
 * be in its task.  (The workers' own parsers and coders stay for the
 * context's next job: wlz_cctx_free gives theirs back.) */
static void release_pages(eng *en, int id)
{
	if (atomic_load(&en->err) != WLZ_OK)
		return;
	const uint64_t n = (uint64_t)en->nthreads;
	/* (a job that failed early may have none of these) */
	for (uint64_t k = (uint64_t)id; en->tbs && en->blks && k < 2 * en->rblocks; k += n) {
		wlz_release_pages(en->tbs[k].t, en->tbs[k].cap * sizeof(wlz_token));
		wlz_release_pages(en->blks[k].data, en->blks[k].cap);
	}
	for (uint64_t k = (uint64_t)id; en->pcs && k < 2 * en->rblocks * WLZ_PIECES_MAX; k += n)
		wlz_release_pages(en->pcs[k].t, en->pcs[k].cap * sizeof(wlz_token));
	const struct {
		void *p;
		uint64_t size;
	} buf[4] = {
		{en->src, en->cap},
		{en->map, en->cap},
		{en->slab, en->slab_cap},
		{en->far.slot, en->far.slot ? wlz_far_memory(en->far.log) : 0},
	};
	for (int b = 0; b < 4; b++) {
		if (!buf[b].p || !buf[b].size)
			continue;
		/* (shares of whole 2 MiB pages where the buffer is in them) */
		const uint64_t share = (buf[b].size / n + ((uint64_t)2 << 20) - 1) & ~(((uint64_t)2 << 20) - 1);
		const uint64_t from = share * (uint64_t)id;
		if (from < buf[b].size)
			wlz_release_pages((uint8_t *)buf[b].p + from,
					  (size_t)(share < buf[b].size - from ? share : buf[b].size - from));
	}
}

static void *worker_main(void *arg)
{
	pool_arg *pa = arg;
	eng *en = pa->en;
	worker *w = &en->cc->w[pa->id];
	pthread_mutex_lock(&en->mu);
	while (!en->quit) {
		if (move_one(en))
			continue;
		rnd *R = NULL;
		uint64_t k = 0;
		const int t = atomic_load(&en->err) == WLZ_OK ? claim(en, &R, &k) : T_NONE;
		if (t == T_NONE) {
			pthread_cond_wait(&en->work, &en->mu);
			continue;
		}
		pthread_mutex_unlock(&en->mu);
		const wlz_error err = run_task(en, w, t, R, k);
		if (err != WLZ_OK)
			set_err(en, err);
		pthread_mutex_lock(&en->mu);
		if (t == T_READ) {
			/* (a read makes no other task claimable: only a slide
			 * waiting for it, or the end, wants to know) */
			en->rq_busy--;
			pthread_cond_signal(&en->coord);
			continue;
		}
		if (t == T_ZERO) {
			en->zdone++;
		} else if (t == T_LIST) {
			R->rb[k].listed = 1;
			R->lists_low += R->rb[k].abs_block < R->far_to;
		}
		else if (t == T_PART)
			R->parts_done++;
		/* (a list or part done lets later tasks go; a block done may
		 * end its round, or give levels that depth-limited blocks
		 * wait on) */
		pthread_cond_broadcast(&en->work);
		if (t == T_BLOCK || t == T_PIECE)
			pthread_cond_signal(&en->coord);
	}
	pthread_mutex_unlock(&en->mu);
	release_pages(en, pa->id);
	return NULL;
}

/* ---------------------------------------------------------------- input */

/* Reads one piece of at most READ_PIECE bytes towards `want` (the buffer's
 * end at most), and publishes its arrival (tasks wait on it). */
#define READ_PIECE ((uint64_t)1 << 20)
static wlz_error read_piece(eng *en, uint64_t want)
{
	if (want > en->cap)
		want = en->cap;
	if (en->eof || en->fill >= want)
		return WLZ_OK;
	const uint64_t ask = want - en->fill < READ_PIECE ? want - en->fill : READ_PIECE;
	size_t got = en->rd(en->rdo, en->src + en->fill, (size_t)ask);
	wlz_error err = WLZ_OK;
	if (got == (size_t)-1) {
		got = 0;
		err = wlz_fail(WLZ_ERR_READ, "reading the input failed");
	} else if (got == 0) {
		en->eof = 1;
	}
	en->fill += got;
	en->total += got;
	if (err == WLZ_OK && en->total > WLZ_CONTENT_MAX)
		err = WLZ_ERR_SRC_TOO_LARGE;
	/* (a failure is kept before the tasks waiting on these bytes are
	 * woken: else one would say the input shrank) */
	if (err != WLZ_OK)
		set_err(en, err);
	pthread_mutex_lock(&en->rmu);
	en->avail = en->fill;
	en->rdone = en->eof || err != WLZ_OK;
	pthread_cond_broadcast(&en->rcv);
	pthread_mutex_unlock(&en->rmu);
	return err;
}

static wlz_error fill_to(eng *en, uint64_t want)
{
	while (!en->eof && en->fill < want && en->fill < en->cap)
		WLZ_TRY(read_piece(en, want));
	return WLZ_OK;
}

/* Reads at offsets.  A piece to read (under mu), if one is posted: *pk =
 * its buffer position, and its length above bit RQ_POS_BITS. */
#define RQ_POS_BITS 42
static int claim_read(eng *en, uint64_t *pk)
{
	if (!en->prd || en->rq_next >= en->fill)
		return T_NONE;
	const uint64_t a = en->rq_next, edge = (a / READ_PIECE + 1) * READ_PIECE;
	const uint64_t b = en->fill < edge ? en->fill : edge;
	en->rq_next = b;
	en->rq_busy++;
	*pk = a | (b - a) << RQ_POS_BITS;
	return T_READ;
}

/* Reads the piece claim_read gave, and moves avail over the pieces done. */
static wlz_error read_at(eng *en, uint64_t k)
{
	const uint64_t a = k & (((uint64_t)1 << RQ_POS_BITS) - 1), n = k >> RQ_POS_BITS;
	/* (no slide while a read is out: base stands) */
	const uint64_t off = en->view.base + a;
	uint64_t got = 0;
	wlz_error err = WLZ_OK;
	while (got < n && err == WLZ_OK) {
		const size_t r = en->prd(en->prdo, en->src + a + got, (size_t)(n - got), off + got);
		if (r == (size_t)-1)
			err = wlz_fail(WLZ_ERR_READ, "reading the input failed");
		else if (r == 0)
			err = wlz_fail(WLZ_ERR_READ, "the input shrank or grew: it was said to hold %llu bytes but "
				       "ended at or before byte %llu", (unsigned long long)en->known,
				       (unsigned long long)(off + got));
		else
			got += r;
	}
	/* (a failure is kept before the tasks waiting on these bytes are
	 * woken, as read_piece does) */
	if (err != WLZ_OK)
		set_err(en, err);
	pthread_mutex_lock(&en->rmu);
	/* (a failed piece is never done: rdone wakes its waiters) */
	en->rq_done[a / READ_PIECE] = err == WLZ_OK;
	while (en->avail < en->rq_lim && en->rq_done[en->avail / READ_PIECE]) {
		const uint64_t edge = (en->avail / READ_PIECE + 1) * READ_PIECE;
		en->avail = edge < en->rq_lim ? edge : en->rq_lim;
	}
	en->total = en->view.base + en->avail;
	en->rdone |= err != WLZ_OK || en->total == en->known;
	pthread_cond_broadcast(&en->rcv);
	pthread_mutex_unlock(&en->rmu);
	return err;
}

/* Reads one posted piece on the caller's thread (under mu, which it lets
 * go while it reads); whether there was one. */
static int read_one(eng *en)
{
	uint64_t k;
	if (claim_read(en, &k) != T_READ)
		return 0;
	pthread_mutex_unlock(&en->mu);
	read_at(en, k);
	pthread_mutex_lock(&en->mu);
	en->rq_busy--;
	return 1;
}

/* Posts the reads up to want, rounded up to a whole piece (under mu);
 * whether there were any. */
static int post_reads(eng *en, uint64_t want)
{
	uint64_t to = (want + READ_PIECE - 1) / READ_PIECE * READ_PIECE;
	if (to > en->rq_lim)
		to = en->rq_lim;
	if (to <= en->fill)
		return 0;
	en->fill = to;
	pthread_cond_broadcast(&en->work);
	return 1;
}

/* Copies the input and map bytes at offsets [o, o + n) of a slide down by
 * mv_shift (the map only below done: the bytes after have no levels). */
#define MOVE_CHUNK ((uint64_t)4 << 20)
static void move_chunk(eng *en, uint64_t o, uint64_t n)
{
	const uint64_t shift = en->mv_shift;
	memcpy(en->src + o, en->src + shift + o, (size_t)n);
	const uint64_t mlen = en->done - shift;
	if (o < mlen)
		memcpy(en->map + o, en->map + shift + o, (size_t)(o + n < mlen ? n : mlen - o));
}

/* Copies the next chunk of the wave, if one is left (called under mu,
 * which it lets go while it copies); whether it did. */
static int move_one(eng *en)
{
	if (en->mv_next >= en->mv_hi)
		return 0;
	const uint64_t o = en->mv_next, n = en->mv_hi - o < MOVE_CHUNK ? en->mv_hi - o : MOVE_CHUNK;
	en->mv_next += n;
	en->mv_busy++;
	pthread_mutex_unlock(&en->mu);
	move_chunk(en, o, n);
	pthread_mutex_lock(&en->mu);
	if (--en->mv_busy == 0)
		pthread_cond_signal(&en->coord);
	return 1;
}

/* Keeps the window before the next round and moves it to the buffer's
 * start (no round in flight; under mu).  The workers, idle then, copy it
 * with this thread, in waves of `shift` bytes: a wave's destination ends
 * where its source starts, so its chunks may be copied in any order, and
 * the next wave's destination is this one's source. */
static void slide(eng *en)
{
	if (en->done <= en->W)
		return;
	/* (the bytes of every read posted move too: those reads end first) */
	while (en->prd && (en->rq_next < en->fill || en->rq_busy) && atomic_load(&en->err) == WLZ_OK)
		if (!read_one(en))
			pthread_cond_wait(&en->coord, &en->mu);
	if (atomic_load(&en->err) != WLZ_OK)
		return;
	const uint64_t shift = (en->done - en->W) / en->B * en->B;
	const uint64_t len = en->fill - shift;
	en->mv_shift = shift;
	for (uint64_t lo = 0; lo < len; lo += shift) {
		en->mv_next = lo;
		en->mv_hi = lo + shift < len ? lo + shift : len;
		pthread_cond_broadcast(&en->work);
		for (;;) {
			if (move_one(en))
				continue;
			if (!en->mv_busy)
				break;
			pthread_cond_wait(&en->coord, &en->mu);
		}
	}
	en->mv_hi = en->mv_next = 0;
	en->fill -= shift;
	en->done -= shift;
	en->view.base += shift;
	pthread_mutex_lock(&en->rmu);
	en->avail = en->fill;
	if (en->prd) {
		memset(en->rq_done, 0, (size_t)(en->cap / READ_PIECE + 1));
		en->rq_next = en->fill;
		en->rq_lim = en->known - en->view.base < en->cap ? en->known - en->view.base : en->cap;
	}
	pthread_mutex_unlock(&en->rmu);
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

/* Writes a finished round's blocks, in order, and tells the caller how
 * far the written blocks reach. */
static wlz_error write_round(eng *en, const rnd *R)
{
	for (uint64_t k = 0; k < R->nblk; k++)
		WLZ_TRY(put_block(en->out, &R->rb[k]));
	const wlz_options *opt = &en->cc->opt;
	if (opt->progress)
		opt->progress(opt->progress_opaque, R->view.base + R->rend, en->known == UINT64_MAX ? 0 : en->known);
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

/* Where the input ends in buffer positions, if that is known yet
 * (UINT64_MAX: not). */
static uint64_t input_end(const eng *en)
{
	if (en->eof)
		return en->fill;
	if (en->known != UINT64_MAX)
		return en->known - en->view.base;
	return UINT64_MAX;
}

/* Pieces for a block of len bytes in a round of nblk blocks: enough that
 * the round has about WLZ_PIECE_TARGET tasks, none under WLZ_PIECE_MIN
 * bytes; 1 where the parse cannot be cut (price-based and lazy parses,
 * depth limits, --flatten=full) or is not worth cutting (level 1). */
static unsigned pieces_for(const eng *en, uint64_t nblk, uint64_t len)
{
	if (en->lp->fast < 2 || en->cc->opt.depth >= 0 || en->cc->opt.flatten >= 2 || nblk >= WLZ_PIECE_TARGET)
		return 1;
	uint64_t k = (WLZ_PIECE_TARGET + nblk - 1) / nblk;
	if (k > WLZ_PIECES_MAX)
		k = WLZ_PIECES_MAX;
	if (k > len / WLZ_PIECE_MIN)
		k = len / WLZ_PIECE_MIN;
	return k > 1 ? (unsigned)k : 1;
}

/* Arms the next round if it can be (under mu): a slot is free, its bytes
 * fit the buffer without a slide (or nothing is in flight, so the slide
 * may be done), and where it ends is known.  Returns whether it did; *end
 * is set once every byte of the input is in a round. */
static int arm_next(eng *en, int *end)
{
	const uint64_t round = en->rblocks * en->B;
	if (en->narmed - en->nwritten >= 2)
		return 0;
	uint64_t iend = input_end(en);
	if (en->done >= iend) {
		*end = 1;
		return 0;
	}
	if (en->cap - en->done < round + LOOKAHEAD && (iend == UINT64_MAX || iend > en->cap)) {
		if (en->narmed != en->nwritten)
			return 0;  /* (the slide waits for the rounds in flight) */
		slide(en);
		if (atomic_load(&en->err) != WLZ_OK)
			return 0;  /* (a read the slide waited for failed) */
		iend = input_end(en);
	}
	/* An input of unknown size: the round's bytes are read first, to
	 * see whether it ends inside them. */
	if (iend == UINT64_MAX && en->fill < en->done + round + LOOKAHEAD)
		return 0;
	const uint64_t rend = en->done + round < iend ? en->done + round : iend;
	rnd *R = &en->rounds[en->narmed & 1];
	blk *rb = R->rb;
	memset(R, 0, sizeof(*R));
	R->rb = rb;
	R->live = 1;
	R->rend = rend;
	R->view = en->view;
	/* (the input's end where it is in the buffer, else the buffer's) */
	R->view.n = iend <= en->cap ? iend : en->cap;
	R->abs0 = (en->view.base + en->done) >> en->bl;
	for (uint64_t p = en->done; p < rend; p += en->B) {
		blk *bk = &rb[R->nblk];
		bk->tb = NULL;
		R->nblk++;
		bk->bstart = p;
		bk->bend = p + en->B < rend ? p + en->B : rend;
		bk->abs_block = (en->view.base + p) >> en->bl;
		bk->far_done = 0;
		bk->listed = !en->lp->long_depth;
		bk->rd = R;
		atomic_store(&bk->ready, 0);
		atomic_store(&bk->lv, 0);
	}
	for (uint64_t k = 0; k < R->nblk; k++) {
		blk *bk = &rb[k];
		bk->npc = pieces_for(en, R->nblk, bk->bend - bk->bstart);
		bk->pc = en->pcs + (size_t)(bk - en->blks) * WLZ_PIECES_MAX;
		atomic_store(&bk->pc_left, bk->npc);
		atomic_store(&bk->pc_far, bk->npc);
		atomic_store(&bk->pc_err, WLZ_OK);
	}
	if (!en->lp->long_depth)
		R->lists_taken = R->nblk;
	/* Far table: every block before the gap of the round's last block.
	 * The round's earlier blocks skip what they may not read; those
	 * entries push older ones out of full buckets, which eight ways keep
	 * rare. */
	const uint64_t last = R->abs0 + R->nblk - 1, to = last > en->gap ? last - en->gap : 0;
	R->far_from = en->far_block;
	R->far_to = to > en->far_block ? to : en->far_block;
	R->parts = en->lp->long_depth && R->far_to > R->far_from ? (unsigned)en->nthreads : 0;
	R->nlow = R->far_to > R->abs0 ? (R->far_to - R->abs0 < R->nblk ? R->far_to - R->abs0 : R->nblk) : 0;
	if (!en->lp->long_depth)
		R->lists_low = R->nlow;
	en->far_block = R->far_to;
	/* A depth-limited parse reads the map of its own block's literals
	 * before their levels are set; otherwise every block's levels write
	 * its whole map before a later block reads it. */
	if (en->cc->opt.depth >= 0)
		memset(en->map + en->done, 0, rend - en->done);
	en->done = rend;
	en->narmed++;
	pthread_cond_broadcast(&en->work);
	return 1;
}

/* With one worker, the caller's thread, idle, faults in a piece of the
 * level map (as far as the input is read: fill, its bytes in the buffer,
 * for the buffer may be far larger than a small input) or of the slab's
 * expected half ahead of the worker, which then writes them without a
 * fault; returns 0 once none is left for now. */
#define PREFAULT_PIECE ((uint64_t)8 << 20)
static int prefault_left(const eng *en, uint64_t fill)
{
	return en->pf_map < fill || en->pf_slab < en->slab_cap / 2;
}

static int prefault_one(eng *en, uint64_t fill)
{
	uint8_t *p;
	uint64_t n;
	if (en->pf_map < fill) {
		p = en->map + en->pf_map;
		n = fill - en->pf_map < PREFAULT_PIECE ? fill - en->pf_map : PREFAULT_PIECE;
		en->pf_map += n;
	} else if (en->pf_slab < en->slab_cap / 2) {
		p = en->slab + en->pf_slab;
		n = en->slab_cap / 2 - en->pf_slab < PREFAULT_PIECE ? en->slab_cap / 2 - en->pf_slab : PREFAULT_PIECE;
		en->pf_slab += n;
	} else {
		return 0;
	}
	wlz_large_prefault(p, (size_t)n);
	return 1;
}

/* The caller's thread: reads the input, arms rounds and writes the
 * finished ones, until every byte is written or a task fails. */
static wlz_error coordinate(eng *en)
{
	const uint64_t round = en->rblocks * en->B;
	int end = 0;
	pthread_mutex_lock(&en->mu);
	for (;;) {
		if (atomic_load(&en->err) != WLZ_OK)
			break;
		rnd *R = &en->rounds[en->nwritten & 1];
		if (en->nwritten < en->narmed && R->complete == R->nblk) {
			pthread_mutex_unlock(&en->mu);
			for (uint64_t k = 0; k < R->nblk; k++)
				if (atomic_load(&R->rb[k].ready) != 1)
					set_err(en, WLZ_ERR_INTERNAL);  /* (a failed block said why first) */
			wlz_error err = atomic_load(&en->err) == WLZ_OK ? write_round(en, R) : WLZ_OK;
			pthread_mutex_lock(&en->mu);
			if (err != WLZ_OK) {
				pthread_mutex_unlock(&en->mu);
				set_err(en, err);
				pthread_mutex_lock(&en->mu);
				break;
			}
			R->live = 0;
			en->nwritten++;
			continue;
		}
		if (arm_next(en, &end))
			continue;
		if (atomic_load(&en->err) != WLZ_OK)
			break;
		/* Read on: the rounds in flight and the one after them (at
		 * offsets: posted for the workers, and read here too while
		 * this thread has nothing else to do). */
		const uint64_t want = en->done + round + LOOKAHEAD;
		if (en->prd) {
			if (post_reads(en, want) || read_one(en))
				continue;
		} else if (!en->eof && en->fill < want && en->fill < en->cap) {
			pthread_mutex_unlock(&en->mu);
			const wlz_error err = read_piece(en, want);
			if (err != WLZ_OK)
				set_err(en, err);
			pthread_mutex_lock(&en->mu);
			continue;
		}
		if (end && en->nwritten == en->narmed && (en->eof || en->known != UINT64_MAX))
			break;
		rnd *zr;
		uint64_t zk;
		if (en->nthreads == 1 && claim_zero(en, &zr, &zk) == T_ZERO) {
			pthread_mutex_unlock(&en->mu);
			wlz_far_zero(&en->far, (unsigned)zk, en->zparts);
			pthread_mutex_lock(&en->mu);
			en->zdone++;
			pthread_cond_broadcast(&en->work);
			continue;
		}
		/* (the wait below only after a look under mu: a round done
		 * while mu was let go would signal no one) */
		if (en->nthreads == 1 && prefault_left(en, en->fill)) {
			const uint64_t fill = en->fill;
			pthread_mutex_unlock(&en->mu);
			prefault_one(en, fill);
			pthread_mutex_lock(&en->mu);
			continue;
		}
		pthread_cond_wait(&en->coord, &en->mu);
	}
	pthread_mutex_unlock(&en->mu);
	return (wlz_error)atomic_load(&en->err);
}

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
	if (en->prd) {
		/* (guards: wlz_compress_pread refuses an unknown size, and
		 * windows stop short of 2^RQ_POS_BITS) */
		if (size_hint == UINT64_MAX || cap0 >= (uint64_t)1 << RQ_POS_BITS)
			return WLZ_ERR_INTERNAL;
		en->rq_done = calloc((size_t)(cap0 / READ_PIECE + 1), 1);
		if (!en->rq_done)
			return WLZ_ERR_NOMEM;
		pthread_mutex_lock(&en->rmu);
		en->rq_lim = size_hint < cap0 ? size_hint : cap0;
		/* (an empty input: nothing to read) */
		en->rdone = size_hint == 0;
		pthread_mutex_unlock(&en->rmu);
	}
	/* A size the caller knows needs nothing read first: each block's
	 * task waits for its bytes. */
	if (size_hint == UINT64_MAX)
		WLZ_TRY(fill_to(en, cap0));
	const uint64_t known = en->eof ? en->total : size_hint;
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
	en->map = wlz_large_alloc((size_t)en->cap);
	en->blks = calloc(2 * (size_t)en->rblocks, sizeof(blk));
	en->tbs = calloc(2 * (size_t)en->rblocks, sizeof(tokbuf));
	en->pcs = calloc(2 * (size_t)en->rblocks * WLZ_PIECES_MAX, sizeof(piece));
	en->tfree = calloc(2 * (size_t)en->rblocks, sizeof(tokbuf *));
	/* lists live from their listing until the table has them: at most
	 * two rounds and a gap */
	en->nlists = 2 * (en->rblocks + en->gap + 1);
	en->lists = calloc((size_t)en->nlists, sizeof(alist));
	if (!en->map || !en->blks || !en->tbs || !en->pcs || !en->tfree || !en->lists)
		return WLZ_ERR_NOMEM;
	for (uint64_t k = 0; k < 2 * en->rblocks; k++)
		en->tfree[en->ntfree++] = &en->tbs[2 * en->rblocks - 1 - k];
	for (uint64_t k = 0; k < en->nlists; k++)
		if (!(en->lists[k].off = calloc((size_t)en->nthreads + 1, sizeof(size_t))))
			return WLZ_ERR_NOMEM;
	if (en->lp->long_depth && nb <= en->nlists) {
		/* The slab: twice the anchors expected in the input (a list
		 * that finds it spent mallocs its own), not in nb whole blocks:
		 * a small input in large blocks would map far more. */
		en->slab_cap = (known / en->lp->far_rate + nb) * list_entry_bytes(en) * 2;
		en->slab = en->slab_cap <= SIZE_MAX ? wlz_large_alloc((size_t)en->slab_cap) : NULL;
		if (!en->slab)
			en->slab_cap = 0;
	}
	for (int i = 0; i < 2; i++) {
		en->rounds[i].rb = en->blks + i * en->rblocks;
	}
	/* (a known input smaller than the window needs a table of its size) */
	const uint64_t span = known < en->W ? known : en->W;
	WLZ_TRY(wlz_far_init(&en->far, wlz_far_log_for(span, en->lp->far_rate), en->lp->long_len,
			     en->lp->far_rate, en->W));
	en->view = (wlz_view){ en->src, 0, 0, en->W, &en->far };
	/* (the workers zero it while the first round's bytes are read) */
	pthread_mutex_lock(&en->mu);
	en->zparts = en->nthreads > 1 ? (unsigned)en->nthreads : 8;
	pthread_cond_broadcast(&en->work);
	pthread_mutex_unlock(&en->mu);

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
	WLZ_TRY(coordinate(en));
	if (known != UINT64_MAX) {
		/* (every byte said was read: one more read must find the end) */
		if (!en->eof && en->total == known) {
			uint8_t extra;
			const size_t got = en->prd ? en->prd(en->prdo, &extra, 1, known) : en->rd(en->rdo, &extra, 1);
			if (got == (size_t)-1)
				return wlz_fail(WLZ_ERR_READ, "reading the input failed");
			if (got == 0)
				en->eof = 1;
			en->total += got;
		}
		if (en->total != known)
			return size_changed(known, en->total);
	}
	return put_end(o, en->total);
}

/* The input from rd in order, or from prd at offsets (its size known). */
static wlz_error compress_any(wlz_cctx *cc, wlz_read_fn rd, void *rdo, wlz_pread_fn prd, void *prdo, wlz_write_fn wr,
			      void *wro, uint64_t size_hint)
{
	eng *en = calloc(1, sizeof(*en));
	if (!en)
		return WLZ_ERR_NOMEM;
	en->cc = cc;
	en->lp = wlz_level_params_for(cc->opt.level, size_hint);
	/* Codec 2's segments: 2^14 symbols for inputs known to be under 128
	 * MiB, so that a GPU's entropy stage has a warp for each of its lanes'
	 * runs at once; 2^15 above (half the segments' sizes and padding:
	 * bench/host/issue14-round3.md); 2^16 at the levels that ask for
	 * size (fewer segments' lane sizes and padding). */
	const unsigned seg = cc->opt.level >= WLZ_LEVEL_SIZE_FIRST ? WLZ_HUF_SEG_DEFAULT + 1
			     : size_hint < ((uint64_t)128 << 20) ? WLZ_HUF_SEG_DEFAULT - 1 : WLZ_HUF_SEG_DEFAULT;
	en->bp = (wlz_bparams){cc->opt.streams, en->lp->zlevel, WLZ_HUF_MAX_TABLES, seg,
			       en->lp->huf_iters ? en->lp->huf_iters : WLZ_HUF_CLUSTER_ITER};
	en->rd = rd;
	en->rdo = rdo;
	en->prd = prd;
	en->prdo = prdo;
	en->nthreads = cc->nthreads;
	atomic_init(&en->err, WLZ_OK);
	atomic_init(&en->lvp, 0);
	atomic_init(&en->slab_used, 0);
	outs o = { wr, wro, 0, { 0 } };
	wlz_error err = ensure_workers(cc, en->nthreads, en->lp);
	pthread_t *tid = NULL;
	pool_arg *args = NULL;
	int started = 0;
	if (err == WLZ_OK) {
		pthread_mutex_init(&en->mu, NULL);
		pthread_cond_init(&en->work, NULL);
		pthread_cond_init(&en->coord, NULL);
		pthread_mutex_init(&en->rmu, NULL);
		pthread_cond_init(&en->rcv, NULL);
		tid = calloc((size_t)en->nthreads, sizeof(*tid));
		args = calloc((size_t)en->nthreads, sizeof(*args));
		if (!tid || !args)
			err = WLZ_ERR_NOMEM;
		for (; err == WLZ_OK && started < en->nthreads; started++) {
			args[started] = (pool_arg){ en, started };
			if (pthread_create(&tid[started], NULL, worker_main, &args[started]) != 0)
				break;
		}
		if (err == WLZ_OK && started == 0)
			err = WLZ_ERR_THREAD;
		/* (fewer threads than asked still run every task: parts are
		 * counted from nthreads, but any worker takes any part) */
		if (err == WLZ_OK)
			err = compress_rounds(en, &o, size_hint);
		if (err != WLZ_OK)
			set_err(en, err);
		pthread_mutex_lock(&en->mu);
		en->quit = 1;
		pthread_cond_broadcast(&en->work);
		pthread_mutex_unlock(&en->mu);
		for (int t = 0; t < started; t++)
			pthread_join(tid[t], NULL);
		err = err != WLZ_OK ? err : (wlz_error)atomic_load(&en->err);
		if (err != WLZ_OK && en->detail[0])
			wlz_detail_set(en->detail);
		pthread_mutex_destroy(&en->mu);
		pthread_cond_destroy(&en->work);
		pthread_cond_destroy(&en->coord);
		pthread_mutex_destroy(&en->rmu);
		pthread_cond_destroy(&en->rcv);
	}
	for (uint64_t k = 0; en->blks && k < 2 * en->rblocks; k++)
		free(en->blks[k].data);
	free(en->blks);
	for (uint64_t k = 0; en->tbs && k < 2 * en->rblocks; k++)
		free(en->tbs[k].t);
	free(en->tbs);
	for (uint64_t k = 0; en->pcs && k < 2 * en->rblocks * WLZ_PIECES_MAX; k++)
		free(en->pcs[k].t);
	free(en->pcs);
	free(en->tfree);
	for (uint64_t k = 0; en->lists && k < en->nlists; k++) {
		if (en->lists[k].own)
			free(en->lists[k].a);
		free(en->lists[k].off);
	}
	free(en->lists);
	wlz_large_free(en->src, (size_t)en->cap);
	wlz_large_free(en->map, (size_t)en->cap);
	wlz_large_free(en->slab, (size_t)en->slab_cap);
	free(en->rq_done);
	wlz_far_destroy(&en->far);
	wlz_blocklist_free(&o.bl);
	free(tid);
	free(args);
	free(en);
	return err;
}

WLZ_EXPORT wlz_error wlz_compress_stream(wlz_cctx *cc, wlz_read_fn rd, void *rdo, wlz_write_fn wr, void *wro,
					 uint64_t size_hint)
{
	wlz_detail_clear();
	if (!cc || !rd || !wr)
		return WLZ_ERR_PARAM;
	return compress_any(cc, rd, rdo, NULL, NULL, wr, wro, size_hint);
}

WLZ_EXPORT wlz_error wlz_compress_pread(wlz_cctx *cc, wlz_pread_fn rd, void *rdo, uint64_t size, wlz_write_fn wr,
					void *wro)
{
	wlz_detail_clear();
	if (!cc || !rd || !wr || size == UINT64_MAX)
		return WLZ_ERR_PARAM;
	return compress_any(cc, NULL, NULL, rd, rdo, wr, wro, size);
}

/* ---------------------------------------------------------------- buffers */

typedef struct membuf {
	const uint8_t *src;
	size_t n;
	uint8_t *dst;
	size_t cap, len;
} membuf;

static size_t mem_pread(void *opaque, void *buf, size_t cap, uint64_t off)
{
	const membuf *m = opaque;
	if (off >= m->n)
		return 0;
	const size_t k = m->n - off < cap ? m->n - (size_t)off : cap;
	memcpy(buf, m->src + off, k);
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
	membuf m = { src, src_size, dst, dst_capacity, 0 };
	/* (at offsets: the workers copy the input, a piece each) */
	wlz_error err = wlz_compress_pread(cc, mem_pread, &m, src_size, mem_write, &m);
	if (err == WLZ_ERR_WRITE)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "the archive does not fit in %zu bytes", dst_capacity);
	if (err == WLZ_OK)
		*dst_size = m.len;
	return err;
}
