/*
 * decompress.c - the decompression context and whole-archive decode, on one
 * thread or many.
 *
 * With several threads, each takes the next block in order and decodes it
 * straight into the output; references into unfinished blocks wait on the
 * progress marks of sched.h.  Archives whose blocks read the blocks just
 * before them (written without the parallel-decode rules of SPEC section
 * 8) are run in order on one thread instead, the others opening the
 * blocks' streams ahead of it.  Output is the same at every thread count.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "common/large.h"
#include "cpu_decoder/block_decode.h"

struct wlz_dctx {
	int nthreads;
	int nbd;             /* block decoders created so far */
	wlz_bdec **bd;       /* one per thread (two in an ordered run) */
	wlz_progress_fn progress;
	void *progress_opaque;
	uint64_t done, total;  /* progress: bytes before this run; 0 = unknown */
	uint64_t memory_limit;
	int last_order;        /* wlz_dctx_last_order */
	int write_thread;      /* wlz_dctx_set_write_thread */
	wlz_member_fn member_fn;
	void *member_opaque;
};

WLZ_EXPORT wlz_dctx *wlz_dctx_create(int threads)
{
	if (threads < 0)
		return NULL;
	wlz_dctx *dc = calloc(1, sizeof(*dc));
	if (!dc)
		return NULL;
	dc->nthreads = wlz_resolve_threads(threads);
	dc->memory_limit = WLZ_MEMORY_LIMIT_DEFAULT;
	dc->bd = calloc(2 * (size_t)dc->nthreads, sizeof(*dc->bd));
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

int wlz_dctx_last_order(const wlz_dctx *dc)
{
	return dc->last_order;
}

WLZ_EXPORT void wlz_dctx_set_member_fn(wlz_dctx *dc, wlz_member_fn fn, void *opaque)
{
	if (!dc)
		return;
	dc->member_fn = fn;
	dc->member_opaque = opaque;
}

WLZ_EXPORT void wlz_dctx_set_write_thread(wlz_dctx *dc, int on)
{
	if (dc)
		dc->write_thread = on != 0;
}

WLZ_EXPORT void wlz_dctx_set_memory_limit(wlz_dctx *dc, uint64_t bytes)
{
	if (dc)
		dc->memory_limit = bytes ? bytes : WLZ_MEMORY_LIMIT_DEFAULT;
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

/* How a member's runs go on several threads. */
enum { ORDER_UNKNOWN, ORDER_SIDE, ORDER_IN };

/* Workers that open blocks for an ordered run: the runner needs about one
 * to keep up (a block's entropy stage and parse take less time than its
 * copies), and more, each holding two blocks' streams and tokens, only
 * crowd its caches (16 threads ran slower than 4, bench/host/issue13-ordered.md). */
#define WLZ_OPENERS 3

/* A block of a run in order: opened into bd by a worker, then run. */
typedef struct oslot {
	atomic_int ready;
	int parsed;        /* its tokens parsed too (wlz_bdec_parse) */
	atomic_int *busy;  /* bd's owner waits on it before opening into bd again */
	wlz_bdec *bd;
} oslot;

/* A run of consecutive blocks of one member, decoded at once. */
typedef struct job {
	wlz_dctx *dc;
	const uint8_t *arc;           /* payloads: arc + e->data_offset */
	const wlz_block_entry *e;     /* the run's blocks */
	uint64_t first, n;            /* member block numbers [first, first + n) */
	uint8_t *out;                 /* out + p holds member position p */
	unsigned block_log;
	uint64_t start, end;          /* member positions: the run's first byte, after it */
	uint64_t window;
	wlz_sched sc;
	int *order;                   /* the member's: ORDER_UNKNOWN until judged */
	atomic_int mode;              /* this run's, once judged */
	uint64_t probe;               /* the block it is judged by (the caller's thread's), or UINT64_MAX */
	oslot *slot;                  /* the run's blocks, in order */
	char detail[WLZ_DETAIL_MAX];  /* of the first failing worker */
} job;

typedef struct worker {
	job *jb;
	wlz_bdec *bd[2];     /* two in order, so that a worker opens one block while its last is run */
	int id;              /* 0: the caller's thread */
	_Alignas(64) atomic_int busy[2];
} worker;

static wlz_error decode_one(job *jb, wlz_bdec *bd, uint64_t b, wlz_sched *sc)
{
	const wlz_block_entry *e = &jb->e[b - jb->first];
	uint64_t bstart = b << jb->block_log;
	uint64_t bend = bstart + e->length;
	wlz_bdec_set_window(bd, jb->window);
	wlz_error err = wlz_bdec_decode(bd, jb->arc, e, jb->out, bstart, bend, sc);
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
		    atomic_load_explicit(&wlz_sched_mark(sc, f)->prefix, memory_order_acquire) < wlz_sched_blen(sc, f))
			return;
		atomic_compare_exchange_weak_explicit(&sc->frontier, &f, f + 1, memory_order_acq_rel,
						      memory_order_acquire);
	}
}

/* dc->done counts the bytes before the run (of this member too). */
static void progress(job *jb, uint64_t pos)
{
	wlz_dctx *dc = jb->dc;
	if (dc->progress)
		dc->progress(dc->progress_opaque, dc->done + (pos - jb->start), dc->total);
}

/* The first error of a run stops every thread; its detail goes to the
 * caller. */
static void fail_run(job *jb, wlz_error err)
{
	int ok = WLZ_OK;
	if (atomic_compare_exchange_strong(&jb->sc.err, &ok, (int)err))
		memcpy(jb->detail, wlz_error_detail(), sizeof(jb->detail));
}

/* Waits until *flag == want.  Nonzero: the run has failed. */
static int wait_flag(atomic_int *flag, int want, wlz_sched *sc)
{
	for (unsigned spins = 0; atomic_load_explicit(flag, memory_order_acquire) != want; spins++) {
		if (atomic_load_explicit(&sc->err, memory_order_relaxed))
			return 1;
		wlz_backoff(spins);
	}
	return 0;
}

/* The run's mode once judged; 0 if the run has failed first. */
static int wait_mode(job *jb)
{
	for (unsigned spins = 0;; spins++) {
		const int m = atomic_load_explicit(&jb->mode, memory_order_acquire);
		if (m != ORDER_UNKNOWN)
			return m;
		if (atomic_load_explicit(&jb->sc.err, memory_order_relaxed))
			return 0;
		wlz_backoff(spins);
	}
}

/* The next block to open (the probe block is the caller's thread's). */
static uint64_t take(job *jb)
{
	uint64_t b = atomic_fetch_add_explicit(&jb->sc.next, 1, memory_order_relaxed);
	if (b == jb->probe)
		b = atomic_fetch_add_explicit(&jb->sc.next, 1, memory_order_relaxed);
	return b;
}

static wlz_error open_block(job *jb, wlz_bdec *bd, uint64_t b)
{
	wlz_bdec_set_window(bd, jb->window);
	const wlz_error err = wlz_bdec_open(bd, jb->arc, &jb->e[b - jb->first]);
	if (err != WLZ_OK)
		wlz_detail_block(b);
	return err;
}

/* Side by side: runs block b, opened into bd, beside the others. */
static wlz_error run_side(job *jb, wlz_bdec *bd, uint64_t b)
{
	const wlz_block_entry *e = &jb->e[b - jb->first];
	const uint64_t bstart = b << jb->block_log;
	const wlz_error err = wlz_bdec_finish(bd, e, jb->out, bstart, bstart + e->length, &jb->sc);
	if (err != WLZ_OK && err != WLZ_ERR_ABORTED)
		wlz_detail_block(b);
	if (err == WLZ_OK)
		advance(&jb->sc);
	return err;
}

/* In order: gives block b, opened (and parsed) into the worker's bd[k], to
 * the runner. */
static void hand_over(worker *w, unsigned k, uint64_t b, int parsed)
{
	oslot *s = &w->jb->slot[b - w->jb->first];
	atomic_store_explicit(&w->busy[k], 1, memory_order_relaxed);
	s->parsed = parsed;
	s->busy = &w->busy[k];
	s->bd = w->bd[k];
	atomic_store_explicit(&s->ready, 1, memory_order_release);
}

/* A worker opens the next block, then runs it itself (side by side) or
 * hands it over (in order); until the run is judged it waits between the
 * two, having done what both modes do first. */
static void *work(void *arg)
{
	worker *w = arg;
	job *jb = w->jb;
	wlz_sched *sc = &jb->sc;
	for (unsigned k = 0;;) {
		if (atomic_load_explicit(&jb->mode, memory_order_acquire) == ORDER_IN && wait_flag(&w->busy[k], 0, sc))
			break;
		if (atomic_load_explicit(&sc->err, memory_order_relaxed))
			break;
		const uint64_t b = take(jb);
		if (b >= sc->nb)
			break;
		wlz_error err = open_block(jb, w->bd[k], b);
		const int m = err == WLZ_OK ? wait_mode(jb) : 0;
		if (m == ORDER_IN) {
			/* (the parse too, so that the runner only copies) */
			const uint64_t bstart = b << jb->block_log;
			err = wlz_bdec_parse(w->bd[k], &jb->e[b - jb->first], bstart,
					     bstart + jb->e[b - jb->first].length);
			if (err != WLZ_OK) {
				wlz_detail_block(b);
				fail_run(jb, err);
				break;
			}
			hand_over(w, k, b, 1);
			k ^= 1;
			if (w->id > WLZ_OPENERS)
				break;
			continue;
		}
		if (m == ORDER_SIDE)
			err = run_side(jb, w->bd[k], b);
		if (err != WLZ_OK || m == 0) {
			fail_run(jb, err != WLZ_OK ? err : WLZ_ERR_ABORTED);
			break;
		}
		if (w->id == 0 && jb->dc->progress) {
			uint64_t f = atomic_load_explicit(&sc->frontier, memory_order_acquire) << jb->block_log;
			progress(jb, f < jb->end ? f : jb->end);
		}
	}
	return NULL;
}

/* In order, the caller's thread runs each block once a worker has opened
 * and parsed it: its sources are then final, and the recent ones, which
 * most matches read, lie in this core's caches. */
static void run_ordered(job *jb)
{
	wlz_sched *sc = &jb->sc;
	for (uint64_t b = jb->first; b < sc->nb; b++) {
		oslot *s = &jb->slot[b - jb->first];
		if (wait_flag(&s->ready, 1, sc))
			return;
		const wlz_block_entry *e = &jb->e[b - jb->first];
		const uint64_t bstart = b << jb->block_log;
		const wlz_error err = s->parsed ? wlz_bdec_run_parsed(s->bd, e, jb->out, bstart, bstart + e->length)
					       : wlz_bdec_finish(s->bd, e, jb->out, bstart, bstart + e->length, NULL);
		atomic_store_explicit(s->busy, 0, memory_order_release);
		if (err != WLZ_OK) {
			wlz_detail_block(b);
			fail_run(jb, err);
			return;
		}
		progress(jb, bstart + e->length < jb->end ? bstart + e->length : jb->end);
	}
}

/* More than one token in this many of a block's first WLZ_PROBE_TOKENS
 * reading behind: the member runs in order. */
#define WLZ_BEHIND_SHARE 32
#define WLZ_PROBE_TOKENS 4096

/* Whether block b (opened into bd) reads the block before it beyond the
 * point that block's own decoder has likely reached (the diagonal bound of
 * SPEC section 8: x + B/16 for a match at offset x), as archives written
 * without the parallel-decode rules do (--parallel=1, the levels that
 * favour size, other writers).  Decoded side by side, such blocks wait on
 * each other and read their sources from other cores' caches, slower than
 * one thread (bench/host/issue13-ordered.md); they run in order instead.
 * The first tokens tell (the bound is tightest at a block's start), and a
 * bad block says no: running it reports the error. */
static int reads_behind(job *jb, wlz_bdec *bd, uint64_t b)
{
	const wlz_block_entry *e = &jb->e[b - jb->first];
	const uint64_t B = (uint64_t)1 << jb->block_log, bstart = b << jb->block_log;
	const wlz_dtoken *t;
	size_t n;
	if (wlz_bdec_first_tokens(bd, e, bstart, bstart + e->length, WLZ_PROBE_TOKENS, &t, &n) != WLZ_OK) {
		wlz_detail_clear();
		return 0;
	}
	uint64_t pos = bstart, behind = 0;
	for (size_t k = 0; k < n; k++) {
		pos += t[k].lit;
		if (t[k].src < bstart && t[k].src >= bstart - B && t[k].src - (bstart - B) > pos - bstart + B / 16)
			behind++;
		pos += t[k].mlen;
	}
	return behind * WLZ_BEHIND_SHARE > n;
}

/* The caller's thread: judges the member by its probe block where it is
 * not judged yet (the workers meanwhile open the first blocks), then
 * runs the blocks in order, or works beside the others. */
static void lead(worker *w0)
{
	job *jb = w0->jb;
	int m = *jb->order;
	if (m == ORDER_UNKNOWN) {
		const uint64_t b = jb->probe;
		wlz_error err = open_block(jb, w0->bd[0], b);
		if (err != WLZ_OK) {
			/* (before any worker may run a block waiting on this one) */
			fail_run(jb, err);
			atomic_store_explicit(&jb->mode, ORDER_SIDE, memory_order_release);
			return;
		}
		m = reads_behind(jb, w0->bd[0], b) ? ORDER_IN : ORDER_SIDE;
		*jb->order = m;
		atomic_store_explicit(&jb->mode, m, memory_order_release);
		if (m == ORDER_IN)
			hand_over(w0, 0, b, 0);
		else if ((err = run_side(jb, w0->bd[0], b)) != WLZ_OK) {
			fail_run(jb, err);
			return;
		}
	}
	if (m == ORDER_IN)
		run_ordered(jb);
	else
		work(w0);
}

static wlz_error decode_threads(job *jb, int nthreads)
{
	wlz_sched *sc = &jb->sc;
	const uint64_t nb = jb->n;
	WLZ_TRY(ensure_bdecs(jb->dc, 2 * nthreads));
	sc->mark = aligned_alloc(64, sizeof(wlz_mark) * (size_t)nb);
	jb->slot = calloc((size_t)nb, sizeof(oslot));
	worker *w = aligned_alloc(64, sizeof(*w) * (size_t)nthreads);
	pthread_t *tid = malloc(sizeof(*tid) * (size_t)nthreads);
	if (!sc->mark || !jb->slot || !w || !tid) {
		free(sc->mark);
		free(jb->slot);
		free(w);
		free(tid);
		return WLZ_ERR_NOMEM;
	}
	for (uint64_t b = 0; b < nb; b++)
		atomic_init(&sc->mark[b].prefix, 0);
	/* (a run of several threads has two blocks or more) */
	jb->probe = *jb->order == ORDER_UNKNOWN ? (jb->first ? jb->first : jb->first + 1) : UINT64_MAX;
	atomic_init(&jb->mode, *jb->order);
	for (int t = 0; t < nthreads; t++) {
		w[t].jb = jb;
		w[t].id = t;
		for (int k = 0; k < 2; k++) {
			w[t].bd[k] = jb->dc->bd[2 * t + k];
			atomic_init(&w[t].busy[k], 0);
		}
	}
	int started = 1;
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, work, &w[started]))
			break;
	if (started < nthreads) {
		/* Stop those already running before reporting. */
		int ok = WLZ_OK;
		atomic_compare_exchange_strong(&sc->err, &ok, (int)WLZ_ERR_THREAD);
	} else {
		lead(&w[0]);
	}
	for (int t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	wlz_error err = (wlz_error)atomic_load(&sc->err);
	if (err == WLZ_ERR_THREAD)
		wlz_fail(err, "pthread_create failed after %d of %d threads", started, nthreads);
	else if (err != WLZ_OK)
		wlz_detail_set(jb->detail);
	free(w);
	free(tid);
	free(sc->mark);
	free(jb->slot);
	return err;
}

/* Decodes the run of jb; every source must lie in the run or be final. */
static wlz_error decode_run(job *jb)
{
	wlz_dctx *dc = jb->dc;
	int nthreads = dc->nthreads;
	if ((uint64_t)nthreads > jb->n)
		nthreads = jb->n ? (int)jb->n : 1;
	WLZ_TRY(ensure_bdecs(dc, nthreads));
	if (nthreads > 1) {
		memset(&jb->sc, 0, sizeof(jb->sc));
		jb->sc.first = jb->first;
		jb->sc.nb = jb->first + jb->n;
		jb->sc.block_log = jb->block_log;
		jb->sc.size = jb->end;
		atomic_init(&jb->sc.next, jb->first);
		atomic_init(&jb->sc.frontier, jb->first);
		atomic_init(&jb->sc.err, WLZ_OK);
		const wlz_error err = decode_threads(jb, nthreads);
		dc->last_order = *jb->order;
		WLZ_TRY(err);
		/* (the reporting thread may have decoded none of the blocks:
		 * the others can take them all first) */
		progress(jb, jb->end);
		return WLZ_OK;
	}
	dc->last_order = 0;
	for (uint64_t b = jb->first; b < jb->first + jb->n; b++) {
		WLZ_TRY(decode_one(jb, dc->bd[0], b, NULL));
		uint64_t end = (b << jb->block_log) + jb->e[b - jb->first].length;
		progress(jb, end);
	}
	return WLZ_OK;
}

/* Sums the content of every member in memory. */
static wlz_error content_of(const uint8_t *src, size_t size, uint64_t *total)
{
	uint64_t at = 0, sum = 0;
	do {
		wlz_member m;
		wlz_error err = wlz_member_parse(src, size, at, &m);
		if (err != WLZ_OK) {
			if (at && err == WLZ_ERR_BAD_MAGIC)
				return wlz_fail(WLZ_ERR_BAD_MAGIC, "%llu bytes after the archive's end that are not "
						"another archive", (unsigned long long)(size - at));
			return err;
		}
		sum += m.content_size;
		at += m.size;
		wlz_member_free(&m);
	} while (at < size);
	*total = sum;
	return WLZ_OK;
}

WLZ_EXPORT wlz_error wlz_get_content_size(const void *src, size_t src_size, uint64_t *content_size)
{
	wlz_detail_clear();
	if (!src || !content_size)
		return WLZ_ERR_PARAM;
	return content_of(src, src_size, content_size);
}

WLZ_EXPORT wlz_error wlz_decompress(wlz_dctx *dc, void *dst, size_t dst_capacity,
				    const void *src, size_t src_size, size_t *dst_size)
{
	wlz_detail_clear();
	if (!dc || !src || !dst_size || (!dst && dst_capacity))
		return WLZ_ERR_PARAM;
	*dst_size = 0;
	uint64_t total = 0;
	/* Every member's headers, index and footer before any output. */
	WLZ_TRY(content_of(src, src_size, &total));
	if (total > dst_capacity)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "content of %llu bytes, room for %zu",
				(unsigned long long)total, dst_capacity);
	dc->done = 0;
	dc->total = total;
	uint64_t at = 0;
	do {
		wlz_member m;
		WLZ_TRY(wlz_member_parse(src, src_size, at, &m));
		job jb;
		int order = 0;
		memset(&jb, 0, sizeof(jb));
		jb.dc = dc;
		jb.order = &order;
		jb.arc = src;
		jb.e = m.blocks;
		jb.first = 0;
		jb.n = m.nblocks;
		jb.out = (uint8_t *)dst + dc->done;
		jb.block_log = m.h.block_log;
		jb.end = m.content_size;
		jb.window = (uint64_t)1 << m.h.window_log;
		wlz_error err = jb.n ? decode_run(&jb) : WLZ_OK;
		dc->done += m.content_size;
		at += m.size;
		wlz_member_free(&m);
		if (err != WLZ_OK)
			return err;
	} while (at < src_size);
	*dst_size = (size_t)total;
	return WLZ_OK;
}

/* ------------------------------------------------------------ streaming */

/* Reads exactly n bytes; *got < n only at the end of input. */
static wlz_error read_full(wlz_read_fn rd, void *rdo, void *buf, size_t n, size_t *got)
{
	size_t have = 0;
	*got = 0;
	while (have < n) {
		size_t k = rd(rdo, (uint8_t *)buf + have, n - have);
		if (k == (size_t)-1)
			return wlz_fail(WLZ_ERR_READ, "reading the archive failed");
		if (k == 0)
			break;
		have += k;
	}
	*got = have;
	return WLZ_OK;
}

static wlz_error read_exact(wlz_read_fn rd, void *rdo, void *buf, size_t n, const char *what)
{
	size_t got;
	WLZ_TRY(read_full(rd, rdo, buf, n, &got));
	if (got < n)
		return wlz_fail(WLZ_ERR_TRUNCATED, "the archive ends inside %s", what);
	return WLZ_OK;
}

/* The window of a streaming decode: cap bytes mapped twice in a row, so
 * that position p of the output lives at both p mod cap and cap + p mod
 * cap, and a run of blocks placed in the second copy sees the window before
 * it in one piece. */
typedef struct ring {
	uint8_t *base;
	uint64_t cap;
	size_t len;
	int linear;   /* one plain allocation (ring_make) */
} ring;

static void ring_free(ring *r)
{
	if (r->base && r->linear)
		wlz_large_free(r->base, r->len);
	else if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
}

/* linear: the content never wraps (its stated size is within the window):
 * then only the second copy is ever written, and a plain allocation in
 * large pages serves (the shared file's pages fault in one by one in each
 * copy). */
static wlz_error ring_make(ring *r, uint64_t cap, int linear)
{
	/* The copies' tail is followed by readable bytes (wide copies). */
	const size_t tail = 1 << 16;
	r->base = NULL;
	r->cap = cap;
	r->len = 2 * (size_t)cap + tail;
	r->linear = linear;
	if (linear) {
		r->base = wlz_large_alloc(r->len);
		return r->base ? WLZ_OK
			       : wlz_fail(WLZ_ERR_NOMEM, "cannot map a window of %llu bytes", (unsigned long long)cap);
	}
	int fd = memfd_create("wavelz-window", MFD_CLOEXEC);
	if (fd < 0)
		return wlz_fail(WLZ_ERR_NOMEM, "memfd_create failed for a window of %llu bytes",
				(unsigned long long)cap);
	uint8_t *p = MAP_FAILED;
	if (ftruncate(fd, (off_t)cap) == 0)
		p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED &&
	    (mmap(p, (size_t)cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	     mmap(p + cap, (size_t)cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)) {
		munmap(p, r->len);
		p = MAP_FAILED;
	}
	close(fd);
	if (p == MAP_FAILED)
		return wlz_fail(WLZ_ERR_NOMEM, "cannot map a window of %llu bytes", (unsigned long long)cap);
	r->base = p;
	return WLZ_OK;
}

/* A streaming decode's writer thread (wlz_dctx_set_write_thread): one
 * run of content at a time, written while the next run is decoded. */
typedef struct awriter {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	wlz_write_fn wr;
	void *wro;
	const uint8_t *p;       /* the run being written, while busy */
	size_t n;
	uint64_t lost;          /* bytes handed over but not written (a write failed) */
	int busy, quit, failed, started;
} awriter;

static void *awriter_main(void *arg)
{
	awriter *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&w->mu);
		const int bad = w->wr(w->wro, w->p, w->n) != 0;
		pthread_mutex_lock(&w->mu);
		if (bad)
			w->lost += w->n;
		w->failed |= bad;
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Waits until the run handed over last is written; nonzero if a write
 * failed. */
static int awriter_wait(awriter *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	const int failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	return failed;
}

/* Hands a run over (the last one written first); nonzero if a write
 * failed. */
static int awriter_put(awriter *w, const uint8_t *p, size_t n)
{
	if (awriter_wait(w))
		return 1;
	pthread_mutex_lock(&w->mu);
	w->p = p;
	w->n = n;
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static int awriter_start(awriter *w, wlz_write_fn wr, void *wro)
{
	memset(w, 0, sizeof(*w));
	w->wr = wr;
	w->wro = wro;
	if (pthread_mutex_init(&w->mu, NULL))
		return 0;
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		return 0;
	}
	if (pthread_create(&w->th, NULL, awriter_main, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		return 0;
	}
	w->started = 1;
	return 1;
}

/* Waits for the last run, then ends the thread; nonzero if a write failed. */
static int awriter_stop(awriter *w)
{
	if (!w->started)
		return 0;
	const int failed = awriter_wait(w);
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	w->started = 0;
	return failed;
}

/* What one member's streaming decode keeps. */
typedef struct sdec {
	wlz_dctx *dc;
	wlz_read_fn rd;
	void *rdo;
	wlz_write_fn wr;
	void *wro;
	wlz_header h;
	uint64_t B, W;
	ring rg;
	uint8_t *pay;                 /* the batch's payloads */
	size_t pay_cap;
	wlz_block_entry *e;           /* the batch's blocks */
	wlz_blocklist bl;             /* every block so far, for the index */
	uint64_t pos;                 /* member bytes read */
	uint64_t msize;               /* the member's size, once its footer is read */
	uint64_t out;                 /* content bytes decoded and written */
	int last_short;               /* a block shorter than B was seen */
	awriter *aw;                  /* the writer thread, or NULL: wr here */
	int order;                    /* job.order */
} sdec;

/* Reads up to max blocks of the member into the batch; *n gets how many,
 * *ended whether the index tag came. */
static wlz_error read_batch(sdec *sd, uint64_t max, uint64_t *n, int *ended)
{
	size_t used = 0;
	*n = 0;
	*ended = 0;
	while (*n < max) {
		uint8_t hd[WLZ_BHEAD_SIZE];
		WLZ_TRY(read_exact(sd->rd, sd->rdo, hd, 4, "a block header"));
		if (wlz_rd32(hd) == WLZ_INDEX_TAG) {
			*ended = 1;
			break;
		}
		if (wlz_rd32(hd) != WLZ_BLOCK_TAG)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "block %llu: no block or index tag at byte %llu",
					(unsigned long long)sd->bl.n, (unsigned long long)sd->pos);
		WLZ_TRY(read_exact(sd->rd, sd->rdo, hd + 4, WLZ_BHEAD_SIZE - 4, "a block header"));
		wlz_block_entry *e = &sd->e[*n];
		wlz_error err = wlz_bhead_read(hd, &sd->h, e);
		if (err == WLZ_OK && sd->last_short)
			err = wlz_fail(WLZ_ERR_BAD_INDEX, "a block of fewer than %llu bytes before the last one",
				       (unsigned long long)sd->B);
		if (err != WLZ_OK) {
			wlz_detail_block(sd->bl.n);
			return err;
		}
		sd->last_short = e->length < sd->B;
		const uint64_t psize = wlz_payload_size(e);
		/* Payloads and the slack raw streams are read with. */
		if (sd->pay_cap < used + psize + 64) {
			size_t cap = (size_t)(used + psize + 64);
			cap += cap / 2;
			uint8_t *p = realloc(sd->pay, cap);
			if (!p)
				return WLZ_ERR_NOMEM;
			sd->pay = p;
			sd->pay_cap = cap;
		}
		WLZ_TRY(read_exact(sd->rd, sd->rdo, sd->pay + used, (size_t)psize, "a block's payload"));
		e->data_offset = used;
		used += psize;
		memset(sd->pay + used, 0, 64);
		WLZ_TRY(wlz_blocklist_add(&sd->bl, sd->pos, e->checksum));
		sd->pos += WLZ_BHEAD_SIZE + psize;
		(*n)++;
	}
	return WLZ_OK;
}

/* The rest of the member after its index tag: index and footer. */
static wlz_error read_end(sdec *sd)
{
	uint8_t fixed[12];
	WLZ_TRY(read_exact(sd->rd, sd->rdo, fixed, sizeof(fixed), "the index"));
	if (wlz_rd64(fixed + 4) != sd->bl.n)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "the index lists %llu blocks, the archive has %llu",
				(unsigned long long)wlz_rd64(fixed + 4), (unsigned long long)sd->bl.n);
	const uint64_t isize = wlz_index_size(sd->bl.n);
	uint8_t *idx = malloc((size_t)isize + WLZ_FOOTER_SIZE);
	if (!idx)
		return WLZ_ERR_NOMEM;
	wlz_wr32(idx, WLZ_INDEX_TAG);
	memcpy(idx + 4, fixed, sizeof(fixed));
	wlz_error err = read_exact(sd->rd, sd->rdo, idx + 16, (size_t)isize - 16 + WLZ_FOOTER_SIZE,
				   "the index or footer");
	if (err == WLZ_OK)
		err = wlz_index_check(idx, isize, sd->bl.n, sd->bl.offs, sd->bl.sums, sd->out);
	uint64_t ioff = 0, msize = 0;
	if (err == WLZ_OK)
		err = wlz_footer_read(idx + isize, &ioff, &msize);
	if (err == WLZ_OK && (ioff != sd->pos || msize != sd->pos + isize + WLZ_FOOTER_SIZE))
		err = wlz_fail(WLZ_ERR_BAD_INDEX, "the footer places the index at %llu in a member of %llu "
			       "bytes; it lies at %llu", (unsigned long long)ioff, (unsigned long long)msize,
			       (unsigned long long)sd->pos);
	if (err == WLZ_OK && sd->h.content_size != WLZ_SIZE_UNKNOWN && sd->h.content_size != sd->out)
		err = wlz_fail(WLZ_ERR_BAD_HEADER, "the header says %llu content bytes, the blocks hold %llu",
			       (unsigned long long)sd->h.content_size, (unsigned long long)sd->out);
	sd->msize = msize;
	free(idx);
	return err;
}

/* One member whose header is in hd. */
static wlz_error stream_member(sdec *sd, const uint8_t hd[WLZ_HEADER_SIZE])
{
	wlz_dctx *dc = sd->dc;
	WLZ_TRY(wlz_header_read(hd, WLZ_HEADER_SIZE, &sd->h));
	sd->B = (uint64_t)1 << sd->h.block_log;
	sd->W = (uint64_t)1 << sd->h.window_log;
	if (sd->W > dc->memory_limit)
		return wlz_fail(WLZ_ERR_WINDOW, "a window of %llu MiB, over the limit of %llu MiB (--memory=)",
				(unsigned long long)(sd->W >> 20), (unsigned long long)(dc->memory_limit >> 20));
	/* Blocks in flight: 4 a thread, within the window's size once it is
	 * large; the first batches are small, so that output starts soon. */
	uint64_t kmax = 4 * (uint64_t)dc->nthreads;
	if (kmax < 2)
		kmax = 2;
	const uint64_t R = kmax * sd->B;
	/* (a stated size within the window never wraps: were it a lie, a
	 * wrapped run reads the untouched first copy, in bounds, and fails
	 * its checksums and the size check at the end) */
	const int linear = sd->h.content_size != WLZ_SIZE_UNKNOWN && sd->h.content_size <= sd->W;
	WLZ_TRY(ring_make(&sd->rg, sd->W + R, linear));
	sd->e = malloc(sizeof(*sd->e) * (size_t)kmax);
	if (!sd->e)
		return WLZ_ERR_NOMEM;
	const uint64_t C = sd->rg.cap;
	/* (with a writer thread, the run before is still being written while
	 * this one is decoded: a run lies in the window's last W + R bytes, so
	 * it is safe from the next while R <= W; else the next waits) */
	const int overlap_ok = R <= sd->W;
	sd->pos = WLZ_HEADER_SIZE;
	uint64_t k = 1;
	for (;;) {
		/* A run may not pass a multiple of C (it must fit the second copy). */
		uint64_t room = (C - sd->out % C) / sd->B;
		/* (no room for a whole block only after a short one, the last:
		 * the index tag comes next, else an error) */
		uint64_t want = room == 0 ? 1 : k < room ? k : room, n;
		int ended;
		WLZ_TRY(read_batch(sd, want, &n, &ended));
		if (n) {
			job jb;
			memset(&jb, 0, sizeof(jb));
			jb.dc = dc;
			jb.order = &sd->order;
			jb.arc = sd->pay;
			jb.e = sd->e;
			jb.first = sd->bl.n - n;
			jb.n = n;
			jb.out = sd->rg.base + C + sd->out % C - sd->out;
			jb.block_log = sd->h.block_log;
			jb.start = jb.end = sd->out;
			for (uint64_t i = 0; i < n; i++)
				jb.end += sd->e[i].length;
			jb.window = sd->W;
			if (sd->aw && !overlap_ok && awriter_wait(sd->aw))
				return wlz_fail(WLZ_ERR_WRITE, "writing the output failed");
			WLZ_TRY(decode_run(&jb));
			if (sd->aw ? awriter_put(sd->aw, jb.out + sd->out, (size_t)(jb.end - sd->out))
				   : sd->wr(sd->wro, jb.out + sd->out, (size_t)(jb.end - sd->out)) != 0)
				return wlz_fail(WLZ_ERR_WRITE, "writing the output failed");
			dc->done += jb.end - sd->out;
			sd->out = jb.end;
			if (sd->out > WLZ_CONTENT_MAX)
				return wlz_fail(WLZ_ERR_BAD_HEADER, "content exceeds 2^56 bytes");
		}
		if (ended)
			break;
		k = 2 * k < kmax ? 2 * k : kmax;
	}
	/* (every run written before the member is judged and its window freed) */
	if (sd->aw && awriter_wait(sd->aw))
		return wlz_fail(WLZ_ERR_WRITE, "writing the output failed");
	return read_end(sd);
}

WLZ_EXPORT wlz_error wlz_decompress_stream(wlz_dctx *dc, wlz_read_fn rd, void *rdo, wlz_write_fn wr, void *wro,
					   uint64_t *content_size)
{
	wlz_detail_clear();
	if (content_size)
		*content_size = 0;
	if (!dc || !rd || !wr)
		return WLZ_ERR_PARAM;
	dc->done = 0;
	dc->total = 0;
	wlz_error err = WLZ_OK;
	awriter aw;
	memset(&aw, 0, sizeof(aw));
	if (dc->write_thread && !awriter_start(&aw, wr, wro))
		return wlz_fail(WLZ_ERR_THREAD, "cannot start the writer thread");
	for (int members = 0; err == WLZ_OK; members++) {
		uint8_t hd[WLZ_HEADER_SIZE];
		size_t got;
		err = read_full(rd, rdo, hd, sizeof(hd), &got);
		if (err != WLZ_OK)
			break;
		if (got == 0 && members > 0)
			break;  /* the end, after a whole member */
		if (got < sizeof(hd)) {
			err = members && wlz_header_read(hd, got, &(wlz_header){ 0 }) == WLZ_ERR_BAD_MAGIC
				? wlz_fail(WLZ_ERR_BAD_MAGIC, "bytes after the archive's end that are not "
					   "another archive")
				: wlz_header_read(hd, got, &(wlz_header){ 0 });
			if (err == WLZ_OK)
				err = wlz_fail(WLZ_ERR_TRUNCATED, "the archive ends inside its header");
			break;
		}
		if (members > 0 && wlz_header_read(hd, got, &(wlz_header){ 0 }) == WLZ_ERR_BAD_MAGIC) {
			err = wlz_fail(WLZ_ERR_BAD_MAGIC, "bytes after the archive's end that are not another "
				       "archive");
			break;
		}
		sdec sd;
		memset(&sd, 0, sizeof(sd));
		sd.dc = dc;
		sd.rd = rd;
		sd.rdo = rdo;
		sd.wr = wr;
		sd.wro = wro;
		sd.aw = aw.started ? &aw : NULL;
		err = stream_member(&sd, hd);
		/* (a run handed over is written before its window goes) */
		if (sd.aw && awriter_wait(sd.aw) && err == WLZ_OK)
			err = wlz_fail(WLZ_ERR_WRITE, "writing the output failed");
		if (err == WLZ_OK && dc->member_fn)
			dc->member_fn(dc->member_opaque, (unsigned)members, sd.msize, sd.out);
		ring_free(&sd.rg);
		free(sd.pay);
		free(sd.e);
		wlz_blocklist_free(&sd.bl);
	}
	if (awriter_stop(&aw) && err == WLZ_OK)
		err = wlz_fail(WLZ_ERR_WRITE, "writing the output failed");
	/* (a run the writer refused was counted when handed over) */
	dc->done -= aw.lost;
	if (content_size)
		*content_size = dc->done;
	return err;
}
