/*
 * compress.c - the compression context: builds the whole-input match
 * finder, parses and codes blocks on worker threads, assembles the archive.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "encoder/block_encode.h"
#include "encoder/levels.h"
#include "format/format.h"

typedef struct worker {
	wlz_parser *ps;
	wlz_benc *be;
} worker;

typedef struct block_out {
	wlz_token *tok;         /* phase 1 output, rewritten by phase 2 */
	size_t ntok;
	unsigned max_level;     /* the block's highest level, from phase 2 */
	uint8_t *data;          /* phase 3: the coded payload */
	size_t size;
	wlz_block_entry e;
} block_out;

struct wlz_cctx {
	wlz_options opt;
	int nthreads;
	worker *w;
	int nw;
	int w_level;
	unsigned w_block_log;
	uint32_t *lchain;
	size_t lchain_cap;
};

/* State of one wlz_compress call, shared by its workers. */
typedef struct job {
	wlz_cctx *cc;
	const uint8_t *src;
	uint64_t n;
	uint64_t nb;
	wlz_lchain lc;
	block_out *blocks;
	int phase;              /* 1 parse, 3 code (2 runs on the caller alone) */
	atomic_uint_fast64_t next;
	atomic_uint_fast64_t done_bytes;
	atomic_int err;
	int quiet;              /* phase 1 before a depth-limited parse: no progress */
} job;

typedef struct worker_arg {
	job *jb;
	worker *w;
	int report;  /* the calling thread reports progress */
} worker_arg;

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

static void free_workers(wlz_cctx *cc)
{
	for (int i = 0; i < cc->nw; i++) {
		wlz_parser_free(cc->w[i].ps);
		wlz_benc_free(cc->w[i].be);
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
	free(cc->lchain);
	free(cc);
}

WLZ_EXPORT size_t wlz_compress_bound(uint64_t src_size)
{
	/* Worst case: the smallest blocks, each stored no larger than its input. */
	if (src_size > ((uint64_t)1 << 56))
		return 0;
	uint64_t nb = wlz_block_count_for(src_size, WLZ_BLOCK_LOG_MIN);
	uint64_t b = wlz_payload_offset(nb) + WLZ_FOOTER_SIZE + src_size;
	if (b > SIZE_MAX)
		return 0;
	return (size_t)b;
}

static wlz_error ensure_workers(wlz_cctx *cc, int nw)
{
	if (cc->nw >= nw && cc->w_level == cc->opt.level && cc->w_block_log == cc->opt.block_log)
		return WLZ_OK;
	free_workers(cc);
	cc->w = calloc((size_t)nw, sizeof(worker));
	if (!cc->w)
		return WLZ_ERR_NOMEM;
	cc->nw = nw;
	cc->w_level = cc->opt.level;
	cc->w_block_log = cc->opt.block_log;
	const wlz_lparams *lp = wlz_level_params(cc->opt.level);
	uint32_t bs = (uint32_t)1 << cc->opt.block_log;
	for (int i = 0; i < nw; i++) {
		cc->w[i].ps = wlz_parser_create(lp, bs);
		cc->w[i].be = wlz_benc_create(bs);
		if (!cc->w[i].ps || !cc->w[i].be ||
		    wlz_parser_set_flat(cc->w[i].ps, cc->opt.flatten) != WLZ_OK) {
			free_workers(cc);
			return WLZ_ERR_NOMEM;
		}
		wlz_parser_set_parallel(cc->w[i].ps, cc->opt.parallel);
	}
	return WLZ_OK;
}

static int keep_tokens(block_out *bo, const wlz_token *tok, size_t ntok)
{
	wlz_token *t = malloc((ntok ? ntok : 1) * sizeof(*t));
	if (!t)
		return 0;
	memcpy(t, tok, ntok * sizeof(*t));
	free(bo->tok);
	bo->tok = t;
	bo->ntok = ntok;
	return 1;
}

/* Phase 1: parse one block.  With two_parses the lazy parse is tried as
 * well and the one that codes smaller kept: the price model is an
 * estimate, and on noisy data (PacBio qualities) it can lose. */
static wlz_error parse_block(worker *w, const wlz_lchain *lc, const uint8_t *src, uint64_t bstart,
			     uint64_t bend, int zlevel, int two_parses, block_out *bo)
{
	size_t best = SIZE_MAX;
	for (int pass = 0; pass < 1 + two_parses; pass++) {
		const wlz_token *tok;
		size_t ntok, psize;
		const uint8_t *payload;
		wlz_block_entry e;
		WLZ_TRY(wlz_parse_block(w->ps, lc, bstart, bend, pass, &tok, &ntok));
		if (two_parses) {
			/* Levels are not known yet, nor needed to compare sizes. */
			WLZ_TRY(wlz_benc_encode(w->be, src, bstart, bend, tok, ntok, 0, zlevel, &payload,
						&psize, &e));
			if (psize >= best)
				continue;
			best = psize;
		}
		if (!keep_tokens(bo, tok, ntok))
			return WLZ_ERR_NOMEM;
	}
	return WLZ_OK;
}

/* Phase 3: code one block's final tokens. */
static wlz_error code_block(worker *w, const uint8_t *src, uint64_t bstart, uint64_t bend, int zlevel,
			    block_out *bo)
{
	const uint8_t *payload;
	size_t psize;
	WLZ_TRY(wlz_benc_encode(w->be, src, bstart, bend, bo->tok, bo->ntok, bo->max_level, zlevel, &payload,
				&psize, &bo->e));
	bo->data = malloc(psize ? psize : 1);
	if (!bo->data)
		return WLZ_ERR_NOMEM;
	memcpy(bo->data, payload, psize);
	bo->size = psize;
	return WLZ_OK;
}

static void *work(void *arg)
{
	worker_arg *wa = arg;
	job *jb = wa->jb;
	const unsigned bl = jb->cc->opt.block_log;
	const wlz_lparams *lp = wlz_level_params(jb->cc->opt.level);
	for (;;) {
		if (atomic_load(&jb->err) != WLZ_OK)
			break;
		uint64_t b = atomic_fetch_add(&jb->next, 1);
		if (b >= jb->nb)
			break;
		uint64_t bstart = b << bl;
		uint64_t bend = bstart + ((uint64_t)1 << bl);
		if (bend > jb->n)
			bend = jb->n;
		block_out *bo = &jb->blocks[b];
		wlz_error err = jb->phase == 1
			? parse_block(wa->w, &jb->lc, jb->src, bstart, bend, lp->zlevel, lp->optimal != 0, bo)
			: code_block(wa->w, jb->src, bstart, bend, lp->zlevel, bo);
		if (err != WLZ_OK) {
			int ok = WLZ_OK;
			atomic_compare_exchange_strong(&jb->err, &ok, (int)err);
			break;
		}
		/* Parsing is most of the work; coding the rest. */
		uint64_t len = bend - bstart;
		uint64_t add = jb->phase == 1 ? len - len / 8 : len / 8;
		uint64_t done = atomic_fetch_add(&jb->done_bytes, add) + add;
		if (wa->report && !jb->quiet && jb->cc->opt.progress)
			jb->cc->opt.progress(jb->cc->opt.progress_opaque, done, jb->n);
	}
	return NULL;
}

/* How many later matches of phase 1's (unlimited) parse read each byte,
 * saturating at 255: where the depth-limited parse should keep levels low. */
static uint8_t *count_reads(const job *jb)
{
	uint8_t *pop = calloc(jb->n ? jb->n : 1, 1);
	if (!pop)
		return NULL;
	const unsigned bl = jb->cc->opt.block_log;
	for (uint64_t b = 0; b < jb->nb; b++) {
		uint64_t pos = b << bl;
		for (size_t k = 0; k < jb->blocks[b].ntok; k++) {
			const wlz_token *t = &jb->blocks[b].tok[k];
			pos += t->lit;
			uint64_t s = pos - t->dist, end = s + t->mlen < pos ? s + t->mlen : pos;
			for (uint64_t q = s; q < end; q++)
				pop[q] += pop[q] < 255;
			pos += t->mlen;
		}
	}
	return pop;
}

/* Phase 2, on the calling thread: levels and the depth limit, which
 * need every earlier block's final tokens.  With a depth limit, parsing
 * joins this phase (serial, in block order): the parser must see the final
 * levels of everything before the block to pick shallow sources. */
static wlz_error level_blocks(job *jb, int parse)
{
	wlz_cctx *cc = jb->cc;
	wlz_levels *lv = wlz_levels_create(jb->n, cc->opt.block_log, cc->opt.depth);
	uint8_t *pop = parse ? count_reads(jb) : NULL;
	if (!lv || (parse && !pop)) {
		wlz_levels_free(lv);
		free(pop);
		return WLZ_ERR_NOMEM;
	}
	wlz_error err = WLZ_OK;
	const wlz_lparams *lp = wlz_level_params(cc->opt.level);
	if (parse)
		err = wlz_parser_set_depth(cc->w[0].ps, wlz_levels_map(lv), cc->opt.depth, jb->n, pop);
	for (uint64_t b = 0; b < jb->nb && err == WLZ_OK; b++) {
		block_out *bo = &jb->blocks[b];
		if (parse) {
			uint64_t bstart = b << cc->opt.block_log;
			uint64_t bend = bstart + ((uint64_t)1 << cc->opt.block_log);
			if (bend > jb->n)
				bend = jb->n;
			err = parse_block(&cc->w[0], &jb->lc, jb->src, bstart, bend, lp->zlevel, 0, bo);
			if (err != WLZ_OK)
				break;
			if (cc->opt.progress)
				cc->opt.progress(cc->opt.progress_opaque, bend - (bend - bstart) / 8, jb->n);
		}
		wlz_token *t;
		size_t nt;
		unsigned maxl;
		err = wlz_levels_block(lv, jb->src, b, bo->tok, bo->ntok, &t, &nt, &maxl);
		if (err == WLZ_OK) {
			free(bo->tok);
			bo->tok = t;
			bo->ntok = nt;
			bo->max_level = maxl;
		}
	}
	wlz_parser_set_depth(cc->w[0].ps, NULL, -1, 0, NULL);
	wlz_levels_free(lv);
	free(pop);
	return err;
}

static wlz_error run_workers(job *jb, int nthreads)
{
	wlz_cctx *cc = jb->cc;
	worker_arg *args = calloc((size_t)nthreads, sizeof(worker_arg));
	pthread_t *th = calloc((size_t)nthreads, sizeof(pthread_t));
	if (!args || !th) {
		free(args);
		free(th);
		return WLZ_ERR_NOMEM;
	}
	int started = 0;
	wlz_error err = WLZ_OK;
	for (int i = 1; i < nthreads; i++) {
		args[i] = (worker_arg){jb, &cc->w[i], 0};
		if (pthread_create(&th[i], NULL, work, &args[i]) != 0) {
			err = WLZ_ERR_THREAD;
			break;
		}
		started = i;
	}
	if (err == WLZ_OK) {
		args[0] = (worker_arg){jb, &cc->w[0], 1};
		work(&args[0]);
	} else {
		atomic_store(&jb->err, (int)err);
	}
	for (int i = 1; i <= started; i++)
		pthread_join(th[i], NULL);
	free(args);
	free(th);
	return (wlz_error)atomic_load(&jb->err);
}

WLZ_EXPORT wlz_error wlz_compress(wlz_cctx *cc, void *dst, size_t dst_capacity,
				  const void *src, size_t src_size, size_t *dst_size)
{
	wlz_detail_clear();
	if (!cc || !dst || !dst_size || (!src && src_size))
		return WLZ_ERR_PARAM;
	*dst_size = 0;
	if ((uint64_t)src_size > ((uint64_t)1 << 56))
		return WLZ_ERR_SRC_TOO_LARGE;
	const unsigned bl = cc->opt.block_log;
	const uint64_t n = src_size;
	const uint64_t nb = wlz_block_count_for(n, bl);
	const uint64_t pay = wlz_payload_offset(nb);
	if (dst_capacity < pay + WLZ_FOOTER_SIZE)
		return WLZ_ERR_DST_TOO_SMALL;

	int nthreads = cc->nthreads;
	if ((uint64_t)nthreads > nb)
		nthreads = nb ? (int)nb : 1;
	WLZ_TRY(ensure_workers(cc, nthreads));

	job jb;
	memset(&jb, 0, sizeof(jb));
	jb.cc = cc;
	jb.src = src;
	jb.n = n;
	jb.nb = nb;
	atomic_init(&jb.next, 0);
	atomic_init(&jb.done_bytes, 0);
	atomic_init(&jb.err, WLZ_OK);
	if (n > cc->lchain_cap) {
		free(cc->lchain);
		cc->lchain_cap = 0;
		cc->lchain = malloc(sizeof(uint32_t) * (size_t)n);
		if (!cc->lchain)
			return WLZ_ERR_NOMEM;
		cc->lchain_cap = n;
	}
	const wlz_lparams *lp = wlz_level_params(cc->opt.level);
	WLZ_TRY(wlz_lchain_build(&jb.lc, src, n, lp->long_len, cc->lchain));
	jb.blocks = calloc(nb ? nb : 1, sizeof(block_out));
	if (!jb.blocks)
		return WLZ_ERR_NOMEM;

	wlz_error err = WLZ_OK;
	if (nb) {
		const int serial = cc->opt.depth >= 0;
		/* Phase 1 runs under a depth limit too: its unlimited parse
		 * tells the serial depth-limited one which bytes later matches
		 * want to read (count_reads). */
		jb.phase = 1;
		jb.quiet = serial;
		err = run_workers(&jb, nthreads);
		jb.quiet = 0;
		if (err == WLZ_OK)
			err = level_blocks(&jb, serial);
		if (serial)
			atomic_store(&jb.done_bytes, jb.n - jb.n / 8);
		if (err == WLZ_OK) {
			jb.phase = 3;
			atomic_store(&jb.next, 0);
			err = run_workers(&jb, nthreads);
		}
	}
	uint8_t *out = dst;
	uint64_t at = pay;
	if (err == WLZ_OK) {
		for (uint64_t b = 0; b < nb; b++) {
			block_out *bo = &jb.blocks[b];
			if (at + bo->size + WLZ_FOOTER_SIZE > dst_capacity) {
				err = WLZ_ERR_DST_TOO_SMALL;
				break;
			}
			bo->e.data_offset = at;
			wlz_entry_write(out + WLZ_HEADER_SIZE + b * WLZ_INDEX_ENTRY_SIZE, &bo->e);
			memcpy(out + at, bo->data, bo->size);
			at += bo->size;
		}
	}
	for (uint64_t b = 0; b < nb; b++) {
		free(jb.blocks[b].data);
		free(jb.blocks[b].tok);
	}
	free(jb.blocks);
	if (err != WLZ_OK)
		return err;

	const uint8_t *idx = out + WLZ_HEADER_SIZE;
	wlz_wr64(out + WLZ_HEADER_SIZE + nb * WLZ_INDEX_ENTRY_SIZE, wlz_xxh3(idx, nb * WLZ_INDEX_ENTRY_SIZE));
	uint64_t digest;
	WLZ_TRY(wlz_content_digest(idx, nb, &digest));
	wlz_wr64(out + at, digest);
	wlz_wr64(out + at + 8, WLZ_END_MAGIC);
	at += WLZ_FOOTER_SIZE;
	wlz_header h = {
		.version = WLZ_FORMAT_VERSION,
		.flags = 0,
		.block_log = bl,
		.level = (unsigned)cc->opt.level,
		.depth = cc->opt.depth < 0 ? WLZ_DEPTH_NONE : (unsigned)cc->opt.depth,
		.content_size = n,
		.block_count = nb,
		.archive_size = at,
	};
	wlz_header_write(out, &h);
	*dst_size = (size_t)at;
	return WLZ_OK;
}
