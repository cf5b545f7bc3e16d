/*
 * decompress.c - the decompression context and whole-archive decode, on one
 * thread or many.
 *
 * With several threads, each takes the next block in order and decodes it
 * straight into the output; references into unfinished blocks wait on the
 * progress marks of sched.h.  Output is the same at every thread count.
 */
#include <pthread.h>
#include <stdlib.h>
#include "cpu_decoder/block_decode.h"

struct wlz_dctx {
	int nthreads;
	int nbd;             /* block decoders created so far */
	wlz_bdec **bd;       /* one per thread */
	wlz_progress_fn progress;
	void *progress_opaque;
};

WLZ_EXPORT wlz_dctx *wlz_dctx_create(int threads)
{
	if (threads < 0)
		return NULL;
	wlz_dctx *dc = calloc(1, sizeof(*dc));
	if (!dc)
		return NULL;
	dc->nthreads = wlz_resolve_threads(threads);
	dc->bd = calloc((size_t)dc->nthreads, sizeof(*dc->bd));
	if (!dc->bd) {
		free(dc);
		return NULL;
	}
	return dc;
}

WLZ_EXPORT void wlz_dctx_free(wlz_dctx *dc)
{
	if (!dc)
		return;
	for (int t = 0; t < dc->nbd; t++)
		wlz_bdec_free(dc->bd[t]);
	free(dc->bd);
	free(dc);
}

WLZ_EXPORT void wlz_dctx_set_progress(wlz_dctx *dc, wlz_progress_fn fn, void *opaque)
{
	if (!dc)
		return;
	dc->progress = fn;
	dc->progress_opaque = opaque;
}

static wlz_error ensure_bdecs(wlz_dctx *dc, int n)
{
	while (dc->nbd < n) {
		dc->bd[dc->nbd] = wlz_bdec_create();
		if (!dc->bd[dc->nbd])
			return WLZ_ERR_NOMEM;
		dc->nbd++;
	}
	return WLZ_OK;
}

typedef struct job {
	wlz_dctx *dc;
	const uint8_t *arc;
	uint8_t *out;
	wlz_header h;
	wlz_sched sc;
	char detail[WLZ_DETAIL_MAX];  /* of the first failing worker */
} job;

typedef struct worker {
	job *jb;
	wlz_bdec *bd;
	int report;          /* this one calls the progress callback */
} worker;

static wlz_error decode_one(job *jb, wlz_bdec *bd, uint64_t b, wlz_sched *sc)
{
	wlz_block_entry e;
	wlz_entry_read(jb->arc + WLZ_HEADER_SIZE + b * WLZ_INDEX_ENTRY_SIZE, &e);
	uint64_t bstart = b << jb->h.block_log;
	uint64_t bend = b + 1 == jb->h.block_count ? jb->h.content_size : bstart + ((uint64_t)1 << jb->h.block_log);
	wlz_error err = wlz_bdec_decode(bd, jb->arc, &e, jb->out, bstart, bend, sc);
	if (err != WLZ_OK && err != WLZ_ERR_ABORTED)
		wlz_detail_block(b);
	return err;
}

/* Moves the frontier over every complete block. */
static void advance(wlz_sched *sc)
{
	for (;;) {
		uint64_t f = atomic_load_explicit(&sc->frontier, memory_order_acquire);
		if (f >= sc->nb ||
		    atomic_load_explicit(&sc->mark[f].prefix, memory_order_acquire) < wlz_sched_blen(sc, f))
			return;
		atomic_compare_exchange_weak_explicit(&sc->frontier, &f, f + 1, memory_order_acq_rel,
						      memory_order_acquire);
	}
}

static void *work(void *arg)
{
	worker *w = arg;
	job *jb = w->jb;
	wlz_sched *sc = &jb->sc;
	const wlz_header *h = &jb->h;
	for (;;) {
		if (atomic_load_explicit(&sc->err, memory_order_relaxed))
			break;
		uint64_t b = atomic_fetch_add_explicit(&sc->next, 1, memory_order_relaxed);
		if (b >= sc->nb)
			break;
		wlz_error err = decode_one(jb, w->bd, b, sc);
		if (err != WLZ_OK) {
			/* The first error wins; its detail goes to the caller. */
			int ok = WLZ_OK;
			if (atomic_compare_exchange_strong(&sc->err, &ok, (int)err))
				memcpy(jb->detail, wlz_error_detail(), sizeof(jb->detail));
			break;
		}
		advance(sc);
		if (w->report && jb->dc->progress) {
			uint64_t f = atomic_load_explicit(&sc->frontier, memory_order_acquire) << h->block_log;
			jb->dc->progress(jb->dc->progress_opaque, f < h->content_size ? f : h->content_size,
					 h->content_size);
		}
	}
	return NULL;
}

static wlz_error decode_parallel(job *jb, int nthreads)
{
	wlz_sched *sc = &jb->sc;
	/* Pending bits for 4 blocks a thread (a block's slot is reused once the
	 * block is complete; with more slots than blocks in flight, a thread
	 * hardly ever waits for one). */
	sc->slots = 4 * (uint64_t)nthreads < sc->nb ? 4 * (uint64_t)nthreads : sc->nb;
	sc->words = ((((uint64_t)1 << sc->block_log) >> WLZ_GRAIN_LOG) + 63) / 64;
	sc->mark = aligned_alloc(64, sizeof(wlz_mark) * (size_t)sc->nb);
	sc->bits = calloc((size_t)(sc->slots * sc->words), sizeof(*sc->bits));
	if (!sc->mark || !sc->bits) {
		free(sc->mark);
		free(sc->bits);
		return WLZ_ERR_NOMEM;
	}
	for (uint64_t b = 0; b < sc->nb; b++) {
		atomic_init(&sc->mark[b].prefix, 0);
		atomic_init(&sc->mark[b].p1, 0);
	}
	worker *w = malloc(sizeof(*w) * (size_t)nthreads);
	pthread_t *tid = malloc(sizeof(*tid) * (size_t)nthreads);
	if (!w || !tid) {
		free(w);
		free(tid);
		free(sc->mark);
		free(sc->bits);
		return WLZ_ERR_NOMEM;
	}
	int started = 1;
	for (int t = 0; t < nthreads; t++)
		w[t] = (worker){ jb, jb->dc->bd[t], t == 0 };
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, work, &w[started]))
			break;
	wlz_error err = WLZ_OK;
	if (started < nthreads) {
		/* Stop those already running before reporting. */
		int ok = WLZ_OK;
		atomic_compare_exchange_strong(&sc->err, &ok, (int)WLZ_ERR_THREAD);
	} else {
		work(&w[0]);
	}
	for (int t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	err = (wlz_error)atomic_load(&sc->err);
	if (err == WLZ_ERR_THREAD)
		wlz_fail(err, "pthread_create failed after %d of %d threads", started, nthreads);
	else if (err != WLZ_OK)
		wlz_detail_set(jb->detail);
	free(w);
	free(tid);
	free(sc->mark);
	free(sc->bits);
	return err;
}

WLZ_EXPORT wlz_error wlz_decompress(wlz_dctx *dc, void *dst, size_t dst_capacity,
				    const void *src, size_t src_size, size_t *dst_size)
{
	wlz_detail_clear();
	if (!dc || !src || !dst_size || (!dst && dst_capacity))
		return WLZ_ERR_PARAM;
	*dst_size = 0;
	job jb;
	memset(&jb, 0, sizeof(jb));
	jb.dc = dc;
	jb.arc = src;
	/* Header, index, footer and the content checksum over the index. */
	WLZ_TRY(wlz_archive_validate(jb.arc, src_size, &jb.h));
	if (jb.h.content_size > dst_capacity)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "content of %llu bytes, room for %zu",
				(unsigned long long)jb.h.content_size, dst_capacity);
	if (jb.h.content_size && !dst)
		return WLZ_ERR_PARAM;
	jb.out = dst;
	const uint64_t nb = jb.h.block_count;
	int nthreads = dc->nthreads;
	if ((uint64_t)nthreads > nb)
		nthreads = nb ? (int)nb : 1;
	WLZ_TRY(ensure_bdecs(dc, nthreads));
	if (nthreads > 1) {
		jb.sc.nb = nb;
		jb.sc.block_log = jb.h.block_log;
		jb.sc.size = jb.h.content_size;
		/* Bench knob: WAVELZ_SCHED=defer measures the other design. */
		const char *sched = getenv("WAVELZ_SCHED");
		jb.sc.defer = sched && !strcmp(sched, "defer");
		atomic_init(&jb.sc.next, 0);
		atomic_init(&jb.sc.frontier, 0);
		atomic_init(&jb.sc.err, WLZ_OK);
		WLZ_TRY(decode_parallel(&jb, nthreads));
	} else {
		for (uint64_t b = 0; b < nb; b++) {
			WLZ_TRY(decode_one(&jb, dc->bd[0], b, NULL));
			if (dc->progress) {
				uint64_t end = (b + 1) << jb.h.block_log;
				dc->progress(dc->progress_opaque, end < jb.h.content_size ? end : jb.h.content_size,
					     jb.h.content_size);
			}
		}
	}
	*dst_size = (size_t)jb.h.content_size;
	return WLZ_OK;
}
