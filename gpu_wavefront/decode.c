/*
 * decode.c - the GPU decoder (include/wavelz_gpu.h).  The host checks the
 * headers and index and cuts the blocks into pieces (plan.c).  A piece,
 * queued on one stream:
 *   1. every block's payload gathered to an aligned place and hashed, the
 *      digests compared with the block headers' (verify.cu, xxh3.cu);
 *   2. every stream's entropy stage (entropy.cu);
 *   3. every block's tokens (parse.cu);
 *   4. literals and matches (flow.cu);
 *   5. every block's content hashed and compared.
 * Pieces run in order on one output, so a piece reads the pieces before it
 * as final.  Stored bytes go up on a stream of their own into two slots
 * (piece k into slot k % 2), content comes down on a third, so both
 * overlap the decoding.  Where the content does not fit in GPU memory,
 * the output is a slab that keeps the window before the piece: when a
 * piece would run past its end, the window is moved to its front.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "common/gpu_stream.h"
#include "common/wlz_internal.h"
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/flow.h"
#include "gpu_wavefront/headers.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/plan.h"
#include "gpu_wavefront/prep.h"
#include "gpu_wavefront/ranges.h"
#include "gpu_wavefront/verify.h"
#include "gpu_wavefront/xxh3.h"
#include "gpu_wavefront/gdctx.h"
#include "wavelz_gpu.h"

/* Device buffers, kept and grown from call to call. */
enum {
	B_ARC0, B_ARC1, /* the two slots of stored bytes */
	B_PACK,  /* payloads at aligned places, for hashing */
	B_ST,    /* decoded streams */
	B_PLAN,  /* a piece's plan (struct plan_at), uploaded in one copy */
	B_TAB,   /* the entropy stage's tables, built from the plan's codes */
	B_TOK, B_SCR, B_FLOW,
	B_OPS,   /* tokens cut into pieces (where a piece resolves its sources) */
	B_HASH,  /* per block: payload and content digests computed */
	B_HSCR,  /* XXH3 scratch */
	B_OUT,   /* the content, where it is not the caller's buffer */
	B_STAT,  /* the verdict words of every piece */
	NBUF
};

/* Pinned host buffers: stored bytes staged up, content staged down. */
enum { H_IN0, H_IN1, H_OUT0, H_OUT1, H_STAT, H_PLAN0, H_PLAN1, NHOST };

/* A piece's verdict words (WLZ_GPU_VERDICT_HEAD), then the parse's flags
 * (nb + 1), then each block's flags of the other checks (nb). */
enum { V_ENT, V_FIRST_PAYLOAD, V_FIRST_CONTENT, V_FLOW };
enum { F_PAYLOAD = 1, F_STREAMS = WLZ_GPU_ENT_BAD, F_CONTENT = 8 };

struct dbuf {
	void *p;
	size_t cap;
};

/* Where a call's content goes. */
enum sink_kind {
	TO_DEVICE,  /* the caller's device buffer */
	TO_PINNED,  /* the caller's pinned host buffer, straight */
	TO_STAGED,  /* through pinned staging: to a host buffer or a write function */
	TO_NOTHING  /* checked only */
};

struct wlz_gdctx {
	int device;
	cudaStream_t own, stream, up, down;
	cudaEvent_t ev_up[2], ev_dec[2], ev_down[2], ev_plan[2];
	cudaEvent_t ev_t0, ev_t1;  /* (timed) the call's first and last work on the decoding stream */
	cudaEvent_t ev_legacy;     /* the legacy default stream's work before a call on the own stream */
	struct dbuf d[NBUF], h[NHOST];
	wlz_gpu_call call;
	wlz_error queue_err;     /* an error found while queueing */
	int pending;             /* work queued whose verdict wlz_gdctx_wait has not taken */
	uint64_t memory_limit;   /* the largest window accepted */
	uint64_t gpu_memory;     /* the most device memory a call takes (0: what is free) */
	uint64_t piece;          /* content bytes a piece (0: chosen) */
	/* the call's output: content byte x of the device's layout at
	 * out + x - sbase, for x in [sbase, sbase + slab) */
	uint8_t *out;
	uint64_t sbase, slab;
	uint64_t moves;          /* the window moved, this call */
	void *retired[32];       /* (RETIRED) */
	int nretired;
	double t_plan, t_queue;  /* host seconds this call: checking, queueing */
	uint64_t whole;          /* device archives copied whole to the host, this call */
	double t_finish;         /* host seconds after a batch's last piece was queued */
	double t_wait;           /* of those, waiting for pieces prepared and plans uploaded */
	int timed;               /* ev_t0 and ev_t1 were recorded by this call */
	wlz_gpu_prep prep;       /* a piece prepared on the caller's thread */
	wlz_gpu_headers *hdr;    /* device archives' structure fetched for the host (NULL: not yet), */
	wlz_gpu_ranges *rng;     /* by these copies, */
	uint8_t *img;            /* into host images of the archives, back to back */
	size_t img_cap;
	uint8_t *scratch[WLZ_GDCTX_PIECES + 1]; /* the split's device memory (wlz_gdctx_scratch) */
	size_t scratch_cap[WLZ_GDCTX_PIECES + 1];
	cudaStream_t sp_st[WLZ_GDCTX_STREAMS]; /* the split's streams and events (wlz_gdctx_split_streams) */
	cudaEvent_t sp_ev[WLZ_GDCTX_EVENTS];
	void *cache;             /* the split's (wlz_gdctx_cache) */
	void (*cache_free)(void *);
};

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static wlz_error cuda_fail(cudaError_t e, const char *what)
{
	cudaGetLastError(); /* (clear it where it is not sticky) */
	return wlz_fail(WLZ_ERR_GPU, "GPU: %s: %s", what, cudaGetErrorString(e));
}

#define CU(call, what)                                                                                                 \
	do {                                                                                                           \
		cudaError_t ce_ = (call);                                                                              \
		if (ce_ != cudaSuccess)                                                                                \
			return cuda_fail(ce_, what);                                                                   \
	} while (0)

/* Waits for every stream of the context (the caller's included). */
static void drain(wlz_gdctx *g)
{
	cudaStreamSynchronize(g->up);
	cudaStreamSynchronize(g->stream);
	cudaStreamSynchronize(g->down);
}

/* Threads preparing pieces ahead. */
#define PREP_THREADS 4

/* Buffers replaced while work may still read them: freed once the
 * streams are drained (cudaFree would wait for the whole device). */
#define RETIRED 32

static void free_retired(wlz_gdctx *g)
{
	for (int i = 0; i < g->nretired; i++)
		cudaFree(g->retired[i]);
	g->nretired = 0;
}

/* Device buffer k with room for at least size bytes (its contents not
 * kept; the old one retired). */
static wlz_error grow(wlz_gdctx *g, int k, size_t size)
{
	struct dbuf *b = &g->d[k];
	if (size <= b->cap)
		return WLZ_OK;
	size_t cap = size + size / 4 + 256;
	void *p;
	if (b->p) {
		if (g->nretired == RETIRED) {
			drain(g);
			free_retired(g);
		}
		g->retired[g->nretired++] = b->p;
		b->p = NULL;
		b->cap = 0;
	}
	cudaError_t e = cudaMalloc(&p, cap);
	if (e != cudaSuccess) {
		/* (the room to grow is not in fit()'s sums: without it, what
		 * fit() counted may still be had) */
		cudaGetLastError();
		cap = size;
		e = cudaMalloc(&p, cap);
	}
	if (e != cudaSuccess) {
		cudaGetLastError();
		return wlz_fail(WLZ_ERR_NOMEM, "GPU: out of memory (%zu MiB more wanted); decode on the CPU",
				cap >> 20);
	}
	b->p = p;
	b->cap = cap;
	return WLZ_OK;
}

/* Host images of device archives with room for size bytes (pageable:
 * only their headers are written there, or a damaged archive whole, and
 * pinning room for whole archives costs more than those copies save). */
static wlz_error grow_image(wlz_gdctx *g, size_t size)
{
	if (size <= g->img_cap)
		return WLZ_OK;
	free(g->img);
	g->img = malloc(size);
	g->img_cap = g->img ? size : 0;
	return g->img ? WLZ_OK : wlz_fail(WLZ_ERR_NOMEM, "out of memory");
}

/* Pinned host buffer k with room for size bytes. */
static wlz_error grow_host(wlz_gdctx *g, int k, size_t size)
{
	struct dbuf *b = &g->h[k];
	if (size <= b->cap)
		return WLZ_OK;
	drain(g);
	cudaFreeHost(b->p);
	b->p = NULL;
	b->cap = 0;
	if (cudaMallocHost(&b->p, size) != cudaSuccess) {
		b->p = NULL;
		return cuda_fail(cudaGetLastError(), "pinned memory");
	}
	b->cap = size;
	return WLZ_OK;
}

int wlz_gpu_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

wlz_gdctx *wlz_gdctx_create(int device)
{
	if (device < 0 || device >= wlz_gpu_count() || cudaSetDevice(device) != cudaSuccess)
		return NULL;
	wlz_gdctx *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->device = device;
	g->memory_limit = WLZ_MEMORY_LIMIT_DEFAULT;
	int ok = cudaStreamCreateWithFlags(&g->own, cudaStreamNonBlocking) == cudaSuccess;
	ok &= cudaStreamCreateWithFlags(&g->up, cudaStreamNonBlocking) == cudaSuccess;
	ok &= cudaStreamCreateWithFlags(&g->down, cudaStreamNonBlocking) == cudaSuccess;
	for (int i = 0; i < 2; i++) {
		ok &= cudaEventCreateWithFlags(&g->ev_up[i], cudaEventDisableTiming) == cudaSuccess;
		ok &= cudaEventCreateWithFlags(&g->ev_dec[i], cudaEventDisableTiming) == cudaSuccess;
		ok &= cudaEventCreateWithFlags(&g->ev_down[i], cudaEventDisableTiming) == cudaSuccess;
		ok &= cudaEventCreateWithFlags(&g->ev_plan[i], cudaEventDisableTiming) == cudaSuccess;
	}
	ok &= cudaEventCreate(&g->ev_t0) == cudaSuccess && cudaEventCreate(&g->ev_t1) == cudaSuccess;
	ok &= cudaEventCreateWithFlags(&g->ev_legacy, cudaEventDisableTiming) == cudaSuccess;
	g->stream = g->own;
	if (!ok) {
		wlz_gdctx_free(g);
		return NULL;
	}
	return g;
}

void wlz_gdctx_set_memory_limit(wlz_gdctx *g, uint64_t bytes)
{
	if (g)
		g->memory_limit = bytes ? bytes : WLZ_MEMORY_LIMIT_DEFAULT;
}

void wlz_gdctx_set_gpu_memory(wlz_gdctx *g, uint64_t bytes)
{
	if (g)
		g->gpu_memory = bytes;
}

void wlz_gdctx_set_piece_size(wlz_gdctx *g, uint64_t bytes)
{
	if (g)
		g->piece = bytes;
}

static void split_streams_free(wlz_gdctx *g)
{
	for (int k = 0; k < WLZ_GDCTX_STREAMS; k++) {
		if (g->sp_st[k])
			cudaStreamDestroy(g->sp_st[k]);
		g->sp_st[k] = NULL;
	}
	for (int k = 0; k < WLZ_GDCTX_EVENTS; k++) {
		if (g->sp_ev[k])
			cudaEventDestroy(g->sp_ev[k]);
		g->sp_ev[k] = NULL;
	}
}

uint8_t *wlz_gdctx_scratch(wlz_gdctx *g, int slot, size_t size)
{
	if (slot < 0 || slot > WLZ_GDCTX_PIECES)
		return NULL;
	if (g->scratch_cap[slot] < size) {
		cudaSetDevice(g->device);
		cudaFree(g->scratch[slot]);
		g->scratch[slot] = NULL;
		g->scratch_cap[slot] = 0;
		if (cudaMalloc((void **)&g->scratch[slot], size) != cudaSuccess) {
			cudaGetLastError();
			g->scratch[slot] = NULL;
			return NULL;
		}
		g->scratch_cap[slot] = size;
	}
	return g->scratch[slot];
}

int wlz_gdctx_split_streams(wlz_gdctx *g, void **st, void **ev)
{
	if (!g->sp_st[0]) {
		int lo, hi, ok; /* (least and greatest priority: hi is the lower number) */
		cudaSetDevice(g->device);
		ok = cudaDeviceGetStreamPriorityRange(&lo, &hi) == cudaSuccess;
		for (int k = 0; ok && k < WLZ_GDCTX_STREAMS; k++)
			ok = cudaStreamCreateWithPriority(&g->sp_st[k], cudaStreamNonBlocking, k == 1 ? hi : lo) ==
			     cudaSuccess;
		for (int k = 0; ok && k < WLZ_GDCTX_EVENTS; k++)
			ok = cudaEventCreateWithFlags(&g->sp_ev[k], cudaEventDisableTiming) == cudaSuccess;
		if (!ok) {
			split_streams_free(g);
			return 1;
		}
	}
	for (int k = 0; k < WLZ_GDCTX_STREAMS; k++)
		st[k] = g->sp_st[k];
	for (int k = 0; k < WLZ_GDCTX_EVENTS; k++)
		ev[k] = g->sp_ev[k];
	return 0;
}

void *wlz_gdctx_cache(wlz_gdctx *g)
{
	return g->cache;
}

void wlz_gdctx_set_cache(wlz_gdctx *g, void *cache, void (*cache_free)(void *))
{
	if (g->cache && g->cache != cache)
		g->cache_free(g->cache);
	g->cache = cache;
	g->cache_free = cache_free;
}

void wlz_gdctx_free(wlz_gdctx *g)
{
	if (!g)
		return;
	cudaSetDevice(g->device);
	/* (work still queued on a caller's stream, which may be gone: the
	 * whole device) */
	cudaStream_t ss[3] = {g->own, g->up, g->down};
	if (g->pending)
		cudaDeviceSynchronize();
	for (int i = 0; i < 3 && !g->pending; i++)
		if (ss[i])
			cudaStreamSynchronize(ss[i]);
	for (int k = 0; k < NBUF; k++)
		cudaFree(g->d[k].p);
	for (int k = 0; k <= WLZ_GDCTX_PIECES; k++)
		cudaFree(g->scratch[k]);
	split_streams_free(g);
	if (g->cache)
		g->cache_free(g->cache);
	free_retired(g);
	for (int k = 0; k < NHOST; k++)
		cudaFreeHost(g->h[k].p);
	for (int i = 0; i < 2; i++) {
		if (g->ev_up[i])
			cudaEventDestroy(g->ev_up[i]);
		if (g->ev_dec[i])
			cudaEventDestroy(g->ev_dec[i]);
		if (g->ev_down[i])
			cudaEventDestroy(g->ev_down[i]);
		if (g->ev_plan[i])
			cudaEventDestroy(g->ev_plan[i]);
	}
	for (int i = 0; i < 3; i++)
		if (ss[i])
			cudaStreamDestroy(ss[i]);
	if (g->ev_t0)
		cudaEventDestroy(g->ev_t0);
	if (g->ev_t1)
		cudaEventDestroy(g->ev_t1);
	if (g->ev_legacy)
		cudaEventDestroy(g->ev_legacy);
	wlz_gpu_call_free(&g->call);
	wlz_gpu_prep_free(&g->prep);
	wlz_gpu_headers_free(g->hdr);
	wlz_gpu_ranges_free(g->rng);
	free(g->img);
	free(g);
}

int wlz_gdctx_device(const wlz_gdctx *g)
{
	return g->device;
}

uint64_t wlz_gdctx_memory_limit(const wlz_gdctx *g)
{
	return g->memory_limit;
}

uint64_t wlz_gdctx_memory(wlz_gdctx *g)
{
	size_t free_b = 0, total_b = 0;
	if (!g || cudaSetDevice(g->device) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return total_b;
}

void wlz_gdctx_stats(const wlz_gdctx *g, wlz_gpu_stats *s)
{
	memset(s, 0, sizeof *s);
	if (!g)
		return;
	s->pieces = g->call.np;
	s->resident = g->slab;
	s->moves = g->moves;
	s->host_check_s = g->t_plan;
	s->host_queue_s = g->t_queue;
	s->host_wait_s = g->t_wait;
	s->host_copies = g->whole;
	s->host_finish_s = g->t_finish;
	float ms = 0;
	if (g->timed && cudaEventElapsedTime(&ms, g->ev_t0, g->ev_t1) == cudaSuccess)
		s->gpu_s = ms * 1e-3;
	cudaGetLastError();
	for (int k = 0; k < NBUF; k++)
		s->gpu_bytes += g->d[k].cap;
}

void *wlz_gpu_host_alloc(size_t size)
{
	void *p = NULL;
	if (cudaMallocHost(&p, size ? size : 1) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	return p;
}

void wlz_gpu_host_free(void *p)
{
	if (p)
		cudaFreeHost(p);
}

int wlz_gpu_pinned(const void *p)
{
	struct cudaPointerAttributes a;
	if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return a.type == cudaMemoryTypeHost;
}

/* Per-block arrays of B_BLOCKS (prep.h). */
enum { A_PFROM = WLZ_A_PFROM, A_PTO = WLZ_A_PTO, A_PLEN = WLZ_A_PLEN, A_PWANT = WLZ_A_PWANT, A_COFF = WLZ_A_COFF,
       A_CLEN = WLZ_A_CLEN, A_CWANT = WLZ_A_CWANT, NARR = WLZ_NARR };

/* CU inside queue_piece: the error, then its cleanup. */
#define QCU(call, what)                                                                                                \
	do {                                                                                                           \
		cudaError_t ce_ = (call);                                                                              \
		if (ce_ != cudaSuccess) {                                                                              \
			err = cuda_fail(ce_, what);                                                                    \
			goto done;                                                                                     \
		}                                                                                                      \
	} while (0)

/* Where the arrays of a piece's plan lie in B_PLAN (256-byte aligned). */
struct plan_at {
	size_t seg, grp, codes, blk, arr, hfl, size;
};

static struct plan_at plan_layout(const wlz_gpu_ent_plan *plan, uint64_t n)
{
	struct plan_at a;
	size_t at = 0;
#define PLACE(f, bytes) (a.f = at, at = (at + (bytes) + 255) & ~(size_t)255)
	PLACE(seg, plan->nseg * sizeof(wlz_gpu_seg));
	PLACE(grp, plan->ngrp * sizeof(wlz_gpu_group));
	PLACE(codes, plan->ntab * 256 + 16);
	PLACE(blk, n * sizeof(wlz_gpu_pblock));
	PLACE(arr, n * NARR * 8);
	PLACE(hfl, n * 4);
#undef PLACE
	a.size = at;
	return a;
}

/* Queues piece p on g->stream, prepared in pr (its positions made the
 * slab's here: they depend on the moves before it): its stored bytes in
 * arc (its runs at their slot offsets), its content to the call's output. */
static wlz_error queue_piece(wlz_gdctx *g, uint64_t k, wlz_gpu_prep *pr, const uint8_t *arc)
{
	const wlz_gpu_piece *p = &g->call.pc[k];
	const uint64_t n = p->nb, ntok = pr->ntok;
	const wlz_gpu_ent_plan plan = pr->plan;
	wlz_gpu_pblock *blk = pr->blk;
	cudaStream_t st = g->stream;
	wlz_error err = WLZ_OK;
	if (pr->err != WLZ_OK)
		return wlz_fail(pr->err, "%s", pr->detail);
	for (uint64_t i = 0; i < n; i++) {
		blk[i].bstart -= g->sbase;
		blk[i].mfirst = blk[i].mfirst > g->sbase ? blk[i].mfirst - g->sbase : 0;
	}
	/* The plan in pinned memory (a pageable copy waits for the stream,
	 * and the host's work for the next piece with it), one copy up. */
	const struct plan_at at = plan_layout(&plan, n);
	const int par = (int)(k & 1);
	/* (its last upload, piece k - 2's, done before it is filled) */
	if (k >= 2) {
		const double t0 = seconds();
		QCU(cudaEventSynchronize(g->ev_plan[par]), "plan");
		g->t_wait += seconds() - t0;
	}
	if ((err = grow(g, B_PLAN, at.size)) || (err = grow(g, B_TAB, plan.ntab * WLZ_GPU_TAB * 2 + 16)) ||
	    (err = grow_host(g, H_PLAN0 + par, at.size)))
		goto done;
	uint8_t *hp = g->h[H_PLAN0 + par].p, *dp = g->d[B_PLAN].p;
	memcpy(hp + at.seg, plan.seg, plan.nseg * sizeof(wlz_gpu_seg));
	memcpy(hp + at.grp, plan.grp, plan.ngrp * sizeof(wlz_gpu_group));
	memcpy(hp + at.codes, plan.codes, plan.ntab * 256);
	memcpy(hp + at.blk, blk, n * sizeof(wlz_gpu_pblock));
	uint64_t window = UINT64_MAX; /* (the least of the blocks': resolved sources stay within it) */
	for (size_t i = 0; i < n; i++)
		window = blk[i].window < window ? blk[i].window : window;
	memcpy(hp + at.arr, pr->arr, n * NARR * 8);
	memcpy(hp + at.hfl, pr->hfl, n * 4);
	QCU(cudaMemcpyAsync(dp, hp, at.size, cudaMemcpyHostToDevice, st), "upload");
	QCU(cudaEventRecord(g->ev_plan[par], st), "event");
	const wlz_gpu_seg *d_seg = (const wlz_gpu_seg *)(dp + at.seg);
	const wlz_gpu_group *d_grp = (const wlz_gpu_group *)(dp + at.grp);
	const uint8_t *d_codes = dp + at.codes;
	const wlz_gpu_pblock *d_blk = (const wlz_gpu_pblock *)(dp + at.blk);
	uint32_t *stat = (uint32_t *)g->d[B_STAT].p + p->stat, *bad = stat + WLZ_GPU_VERDICT_HEAD, *fl = bad + n + 1;
	uint8_t *pk = g->d[B_PACK].p, *sb = g->d[B_ST].p, *out = g->out + (p->d0 - g->sbase);
	uint64_t *a = (uint64_t *)(dp + at.arr), *hash = g->d[B_HASH].p, *hscr = g->d[B_HSCR].p;
	QCU(cudaMemsetAsync(stat, 0, (WLZ_GPU_VERDICT_HEAD + 2 * n + 1) * 4, st), "memset");
	QCU(cudaMemsetAsync(stat + V_FIRST_PAYLOAD, 0xFF, 8, st), "memset");
	/* (the host's flags: blocks whose stream headers are bad) */
	QCU(cudaMemcpyAsync(fl, dp + at.hfl, n * 4, cudaMemcpyDeviceToDevice, st), "copy");
	QCU(cudaMemsetAsync(sb, 0, 16, st), "memset"); /* (no streams at all) */

	/* 1. Payloads. */
	if (wlz_gpu_gather(arc, a + A_PFROM * n, a + A_PTO * n, a + A_PLEN * n, pk, n, st) ||
	    wlz_gpu_xxh3(pk, a + A_PTO * n, a + A_PLEN * n, hash, n, hscr, st) ||
	    wlz_gpu_compare(hash, a + A_PWANT * n, n, stat + V_FIRST_PAYLOAD, fl, F_PAYLOAD, st))
		goto launch;
	/* 2 to 4. */
	if (wlz_gpu_ent_tables(d_codes, plan.ntab, g->d[B_TAB].p, st) ||
	    wlz_gpu_ent_launch(&plan, d_seg, d_grp, g->d[B_TAB].p, arc, sb, (int *)(stat + V_ENT), fl,
			       st) ||
	    wlz_gpu_parse(d_blk, n, p->max_tok, sb, g->d[B_SCR].p, g->d[B_TOK].p, bad, st) ||
	    wlz_gpu_flow(d_blk, n, p->max_lit, g->d[B_TOK].p, ntok, sb, g->out, p->d1 - g->sbase,
			 g->d[B_FLOW].p, bad, stat + V_FLOW, wlz_gpu_flow_resolve_for(p->max_level), window,
			 wlz_gpu_flow_cut_for(p->max_level, p->d1 - p->d0, ntok) ? g->d[B_OPS].p : NULL, st))
		goto launch;
	/* 5. Content (offsets from the piece's first byte: aligned). */
	if (wlz_gpu_xxh3(out, a + A_COFF * n, a + A_CLEN * n, hash + n, n, hscr, st) ||
	    wlz_gpu_compare(hash + n, a + A_CWANT * n, n, stat + V_FIRST_CONTENT, fl, F_CONTENT, st))
		goto launch;
	goto done;
launch:
	err = cuda_fail(cudaGetLastError(), "launch");
done:
	return err;
}

/* Block i of piece p (its verdict words at v, on the host): the first
 * failure, in the order the CPU decoder checks: payload, streams,
 * tokens, content. */
static wlz_error block_verdict(const wlz_gpu_call *c, const wlz_gpu_piece *p, const uint32_t *v, uint64_t i)
{
	const uint32_t bad = v[WLZ_GPU_VERDICT_HEAD + i], fl = v[WLZ_GPU_VERDICT_HEAD + p->nb + 1 + i];
	if (!bad && !fl)
		return WLZ_OK;
	char name[96];
	wlz_gpu_call_name(c, p->f0 + i, name, sizeof name);
	if (fl & F_PAYLOAD)
		return wlz_fail(WLZ_ERR_CHECKSUM, "%s: payload checksum mismatch", name);
	if (fl & F_STREAMS)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "%s: a stream fails to decode", name);
	if (bad)
		return wlz_fail(WLZ_ERR_BAD_TOKEN, "%s: a token breaks a rule", name);
	return wlz_fail(WLZ_ERR_CHECKSUM, "%s: content checksum mismatch", name);
}

/* Piece p's verdict: its first failing block's, or a stalled pass (a
 * defect). */
static wlz_error verdict(const wlz_gpu_call *c, const wlz_gpu_piece *p, const uint32_t *v)
{
	if (v[V_FLOW])
		return wlz_fail(WLZ_ERR_INTERNAL, "GPU execution stalled at token (or piece of one) %u", v[V_FLOW + 1]);
	int any = v[V_FIRST_PAYLOAD] != UINT32_MAX || v[V_ENT] || v[WLZ_GPU_VERDICT_HEAD + p->nb] ||
		  v[V_FIRST_CONTENT] != UINT32_MAX;
	for (uint64_t i = 0; i < p->nb && !any; i++)
		any = v[WLZ_GPU_VERDICT_HEAD + p->nb + 1 + i] != 0; /* (the host's flags) */
	if (!any)
		return WLZ_OK;
	for (uint64_t i = 0; i < p->nb; i++)
		WLZ_TRY(block_verdict(c, p, v, i));
	return wlz_fail(WLZ_ERR_INTERNAL, "GPU: a check failed, no block named");
}

/* Whether any of the call's pieces cuts tokens. */
static int cuts(const wlz_gpu_call *c)
{
	for (size_t i = 0; i < c->np; i++)
		if (wlz_gpu_flow_cut_for(c->pc[i].max_level, c->pc[i].d1 - c->pc[i].d0, c->pc[i].ntok))
			return 1;
	return 0;
}

/* Device bytes of a call cut into pieces, with out bytes of output of our
 * own. */
static uint64_t need(const wlz_gpu_call *c, uint64_t out, int two_slots)
{
	const uint64_t span = out ? out : c->dtotal;
	const uint64_t hs = c->max_content > c->max_pack ? c->max_content : c->max_pack;
	const uint64_t ops = cuts(c) ? 2 * c->max_ntok : 0;
	uint64_t n = (two_slots ? 2 : 1) * c->max_arc + c->max_pack + c->max_sbytes + c->max_nb * 160 +
		     (c->max_ntok + 1) * sizeof(wlz_gpu_token) + (c->max_nscr + 1) * 4 +
		     wlz_gpu_flow_work(ops ? ops : c->max_ntok, span) + (ops + 1) * sizeof(wlz_gpu_token) +
		     wlz_gpu_xxh3_scratch(hs) + c->words * 4 + out;
	/* (the entropy plan, about a table a stream) */
	return n + n / 16;
}

/* Cuts the call into pieces and picks its output (g->out, sbase, slab)
 * within the GPU memory it may take.  dst: the caller's device buffer
 * (TO_DEVICE), used as the output where the layouts agree.  two_slots:
 * stored bytes go up while the piece before decodes. */
static wlz_error fit(wlz_gdctx *g, enum sink_kind kind, uint8_t *dst, int two_slots)
{
	wlz_gpu_call *c = &g->call;
	uint64_t avail = g->gpu_memory;
	if (!avail) {
		size_t fr = 0, tot = 0;
		CU(cudaMemGetInfo(&fr, &tot), "memory");
		/* (room for the runtime and the kernels' own) */
		avail = fr > ((uint64_t)256 << 20) ? fr - ((uint64_t)256 << 20) : 0;
		for (int k = 0; k < NBUF; k++)
			avail += g->d[k].cap;
	}
	/* Where content comes down, pieces of a quarter of it (32 to 256
	 * MiB), so that the transfers overlap the decoding; else one piece:
	 * each piece costs the GPU a pass's tail and its launches, more than
	 * an upload's overlap saves (bench/RESULTS.md). */
	uint64_t piece = g->piece;
	if (!piece && (kind == TO_PINNED || kind == TO_STAGED)) {
		piece = c->total / 4;
		piece = piece < ((uint64_t)32 << 20) ? (uint64_t)32 << 20 : piece;
		piece = piece > ((uint64_t)256 << 20) ? (uint64_t)256 << 20 : piece;
	}
	/* (capped, so that a piece's plan stays tens of MB; from device
	 * memory, the first ones small, so that the GPU does not wait for
	 * the host to prepare a large one) */
	const uint64_t first = !piece && kind == TO_DEVICE ? (uint64_t)256 << 20 : 0;
	if (!piece)
		piece = (uint64_t)4 << 30;
	const int direct = kind == TO_DEVICE && dst && c->same && !((uintptr_t)dst & 7);
	g->sbase = 0;
	for (;;) {
		WLZ_TRY(wlz_gpu_call_cut_ramp(c, first, piece));
		const uint64_t whole = direct ? 0 : c->dtotal + 16;
		if (need(c, whole, two_slots) <= avail) {
			if (direct) {
				g->out = dst;
			} else {
				WLZ_TRY(grow(g, B_OUT, whole));
				g->out = g->d[B_OUT].p;
			}
			g->slab = c->dtotal;
			return WLZ_OK;
		}
		/* The window before each piece, twice (its move never
		 * overlaps itself), and the piece. */
		const uint64_t slab = 2 * (c->wmax + 16) + c->max_content + 64;
		if (kind != TO_DEVICE && slab < c->dtotal && need(c, slab, two_slots) <= avail) {
			WLZ_TRY(grow(g, B_OUT, slab));
			g->out = g->d[B_OUT].p;
			g->slab = slab;
			return WLZ_OK;
		}
		if (c->max_nb <= 1)
			return wlz_fail(WLZ_ERR_NOMEM,
					"GPU: %llu MiB of GPU memory would be needed, %llu MiB can be had; decode on the CPU",
					(unsigned long long)(need(c, slab < c->dtotal ? slab : c->dtotal, two_slots) >> 20),
					(unsigned long long)(avail >> 20));
		piece = piece > c->total ? c->total / 2 : piece / 2;
	}
}

/* An item's ibase when nothing goes to a host buffer of its. */
#define NO_HOST UINT64_MAX

/* How a call moves its bytes. */
struct xfer {
	enum sink_kind kind;
	enum cudaMemcpyKind in_kind;  /* stored bytes: from host or device */
	int staged_in;                /* host stored bytes through H_IN */
	uint8_t *dst;                 /* the caller's buffer (host or device) */
	wlz_write_fn wr;              /* TO_STAGED: else memcpy to dst */
	void *wr_opaque;
	wlz_gpu_item *items;          /* a batch: verdicts and writes per archive */
	wlz_gpu_item_write_fn iwr;
	int stop;                     /* a batch stops at its first bad archive */
	const uint64_t *ibase;        /* a batch to items' h_dst: each item's first byte in the
				       * call's host layout */
};

/* Every buffer of the call's pieces. */
static wlz_error buffers(wlz_gdctx *g, int two_slots)
{
	const wlz_gpu_call *c = &g->call;
	const uint64_t hs = c->max_content > c->max_pack ? c->max_content : c->max_pack;
	WLZ_TRY(grow(g, B_ARC0, c->max_arc));
	if (two_slots)
		WLZ_TRY(grow(g, B_ARC1, c->max_arc));
	WLZ_TRY(grow(g, B_PACK, c->max_pack + 16));
	WLZ_TRY(grow(g, B_ST, c->max_sbytes + 64));
	WLZ_TRY(grow(g, B_TOK, (c->max_ntok + 1) * sizeof(wlz_gpu_token)));
	WLZ_TRY(grow(g, B_SCR, (c->max_nscr + 1) * 4));
	const int cut = cuts(c);
	WLZ_TRY(grow(g, B_FLOW, wlz_gpu_flow_work(cut ? 2 * c->max_ntok : c->max_ntok, g->slab)));
	if (cut)
		WLZ_TRY(grow(g, B_OPS, (2 * c->max_ntok + 1) * sizeof(wlz_gpu_token)));
	WLZ_TRY(grow(g, B_HASH, 2 * c->max_nb * 8 + 8));
	WLZ_TRY(grow(g, B_HSCR, wlz_gpu_xxh3_scratch(hs)));
	WLZ_TRY(grow(g, B_STAT, c->words * 4 + 4));
	WLZ_TRY(grow_host(g, H_STAT, c->words * 4 + 4));
	/* (a piece's plan is mostly its tables' codes: room for 64 tables a
	 * block, so that these rarely grow, which waits for the device) */
	const size_t plan = c->max_nb * (64 * 256 + sizeof(wlz_gpu_pblock) + NARR * 8 + 64 * sizeof(wlz_gpu_seg)) +
			    ((size_t)1 << 20);
	WLZ_TRY(grow_host(g, H_PLAN0, plan));
	WLZ_TRY(grow_host(g, H_PLAN1, plan));
	WLZ_TRY(grow(g, B_PLAN, plan));
	return WLZ_OK;
}

/* The call cut into pieces within its memory (fit), and every buffer it
 * needs, the pinned staging of x included.  two_slots: stored bytes go up
 * while the piece before decodes. */
static wlz_error setup(wlz_gdctx *g, const struct xfer *x, uint8_t *dst, int two_slots)
{
	const wlz_gpu_call *c = &g->call;
	WLZ_TRY(fit(g, x->kind, dst, two_slots));
	WLZ_TRY(buffers(g, two_slots));
	if (x->staged_in) {
		WLZ_TRY(grow_host(g, H_IN0, c->max_arc));
		WLZ_TRY(grow_host(g, H_IN1, c->max_arc));
	}
	if (x->kind == TO_STAGED) {
		WLZ_TRY(grow_host(g, H_OUT0, c->max_content + 16));
		WLZ_TRY(grow_host(g, H_OUT1, c->max_content + 16));
	}
	return WLZ_OK;
}


/* Piece k's stored bytes into its slot, on x's streams. */
static wlz_error upload(wlz_gdctx *g, uint64_t k, const struct xfer *x, uint8_t **arc)
{
	const wlz_gpu_piece *p = &g->call.pc[k];
	const int s = k & 1;
	if (x->in_kind == cudaMemcpyDeviceToDevice) {
		/* (on the decoding stream, one slot: in order, nothing to
		 * overlap) */
		uint8_t *slot = *arc = g->d[B_ARC0].p;
		for (uint64_t i = 0; i < p->nr; i++) {
			const wlz_gpu_run *r = &g->call.run[p->r0 + i];
			CU(cudaMemcpyAsync(slot + r->slot, r->dsrc + r->a0, r->a1 - r->a0, cudaMemcpyDeviceToDevice,
					   g->stream),
			   "copy");
		}
		CU(cudaMemsetAsync(slot + p->arc - 16, 0, 16, g->stream), "memset");
		return WLZ_OK;
	}
	uint8_t *slot = *arc = g->d[B_ARC0 + s].p, *hin = g->h[H_IN0 + s].p;
	if (x->staged_in) {
		/* (the slot's last upload, piece k - 2's, is done before it
		 * is filled again) */
		if (k >= 2)
			CU(cudaEventSynchronize(g->ev_up[s]), "upload");
		for (uint64_t i = 0; i < p->nr; i++) {
			const wlz_gpu_run *r = &g->call.run[p->r0 + i];
			memcpy(hin + r->slot, r->harc + r->a0, r->a1 - r->a0);
		}
	}
	/* (the slot is read by piece k - 2's decode until it ends) */
	if (k >= 2)
		CU(cudaStreamWaitEvent(g->up, g->ev_dec[s], 0), "wait");
	for (uint64_t i = 0; i < p->nr; i++) {
		const wlz_gpu_run *r = &g->call.run[p->r0 + i];
		const uint8_t *from = x->staged_in ? hin + r->slot : r->harc + r->a0;
		CU(cudaMemcpyAsync(slot + r->slot, from, r->a1 - r->a0, cudaMemcpyHostToDevice, g->up), "upload");
	}
	CU(cudaMemsetAsync(slot + p->arc - 16, 0, 16, g->up), "memset");
	CU(cudaEventRecord(g->ev_up[s], g->up), "event");
	CU(cudaStreamWaitEvent(g->stream, g->ev_up[s], 0), "wait");
	return WLZ_OK;
}

/* Piece k's content (and verdict words) down, on g->down. */
static wlz_error download(wlz_gdctx *g, uint64_t k, const struct xfer *x)
{
	const wlz_gpu_call *c = &g->call;
	const wlz_gpu_piece *p = &c->pc[k];
	const int s = k & 1;
	CU(cudaStreamWaitEvent(g->down, g->ev_dec[s], 0), "wait");
	if (x->kind == TO_PINNED || x->kind == TO_STAGED) {
		uint8_t *to = x->kind == TO_PINNED ? x->dst : (uint8_t *)g->h[H_OUT0 + s].p - p->h0;
		/* member by member: the layouts differ by gaps between them */
		for (uint64_t f = p->f0; f < p->f0 + p->nb;) {
			const wlz_gpu_cmember *cm = &c->mem[c->blk[f].m];
			const uint64_t B = (uint64_t)1 << cm->m.h.block_log, b = c->blk[f].b;
			uint64_t len = 0;
			for (; f < p->f0 + p->nb && &c->mem[c->blk[f].m] == cm; f++)
				len += cm->m.blocks[c->blk[f].b].length;
			uint8_t *at = to + cm->hpos + b * B;
			if (x->ibase) {
				/* (a batch: the member's archive's own buffer) */
				if (x->ibase[cm->archive] == NO_HOST)
					continue;
				at = (uint8_t *)x->items[cm->archive].h_dst + (cm->hpos - x->ibase[cm->archive]) + b * B;
			}
			CU(cudaMemcpyAsync(at, g->out + (cm->dpos + b * B - g->sbase), len, cudaMemcpyDeviceToHost,
					   g->down),
			   "download");
		}
	}
	CU(cudaMemcpyAsync((uint32_t *)g->h[H_STAT].p + p->stat, (uint32_t *)g->d[B_STAT].p + p->stat,
			   (WLZ_GPU_VERDICT_HEAD + 2 * p->nb + 1) * 4, cudaMemcpyDeviceToHost, g->down),
	   "verdict");
	CU(cudaEventRecord(g->ev_down[s], g->down), "event");
	return WLZ_OK;
}

/* Piece k of a batch, its verdict words on the host: each archive in it
 * judged by its blocks (one that failed before keeps its first error),
 * and the bytes of those that held handed to x->iwr (where write). */
static wlz_error batch_piece(wlz_gdctx *g, uint64_t k, const struct xfer *x, int write)
{
	const wlz_gpu_call *c = &g->call;
	const wlz_gpu_piece *p = &c->pc[k];
	const uint32_t *v = (const uint32_t *)g->h[H_STAT].p + p->stat;
	const uint8_t *slot = g->h[H_OUT0 + (k & 1)].p;
	wlz_error first = WLZ_OK;
	for (uint64_t i = 0; i < p->nb;) {
		const wlz_gpu_cmember *cm = &c->mem[c->blk[p->f0 + i].m];
		const uint32_t id = cm->archive;
		wlz_gpu_item *it = &x->items[id];
		const uint64_t h0 = cm->hpos + (c->blk[p->f0 + i].b << cm->m.h.block_log);
		uint64_t h1 = h0;
		for (; i < p->nb && c->mem[c->blk[p->f0 + i].m].archive == id; i++) {
			const wlz_gpu_cblock *cb = &c->blk[p->f0 + i];
			const wlz_gpu_cmember *bm = &c->mem[cb->m];
			h1 = bm->hpos + (cb->b << bm->m.h.block_log) + bm->m.blocks[cb->b].length;
			if (it->err != WLZ_OK)
				continue;
			it->err = v[V_FLOW] ? wlz_fail(WLZ_ERR_INTERNAL, "GPU execution stalled at token (or piece of one) %u", v[V_FLOW + 1])
					    : block_verdict(c, p, v, i);
			if (it->err != WLZ_OK) {
				snprintf(it->detail, sizeof it->detail, "%s", wlz_error_detail());
				first = first != WLZ_OK ? first : it->err;
			}
		}
		if (write && it->err == WLZ_OK && x->iwr && h1 > h0 &&
		    x->iwr(x->wr_opaque, id, slot + (h0 - p->h0), h1 - h0)) {
			it->err = wlz_fail(WLZ_ERR_WRITE, "the write function stopped this archive");
			snprintf(it->detail, sizeof it->detail, "%s", wlz_error_detail());
			first = first != WLZ_OK ? first : it->err;
		}
	}
	return x->stop ? first : WLZ_OK;
}

/* Piece k done: its verdict taken and its content handed on. */
static wlz_error finish(wlz_gdctx *g, uint64_t k, const struct xfer *x)
{
	const wlz_gpu_piece *p = &g->call.pc[k];
	CU(cudaEventSynchronize(g->ev_down[k & 1]), "decoding");
	if (x->items)
		return batch_piece(g, k, x, 1);
	WLZ_TRY(verdict(&g->call, p, (const uint32_t *)g->h[H_STAT].p + p->stat));
	if (x->kind == TO_STAGED) {
		const uint8_t *from = g->h[H_OUT0 + (k & 1)].p;
		if (x->wr) {
			if (p->h1 > p->h0 && x->wr(x->wr_opaque, from, p->h1 - p->h0))
				return wlz_fail(WLZ_ERR_WRITE, "the write function stopped the decode");
		} else {
			memcpy(x->dst + p->h0, from, p->h1 - p->h0);
		}
	}
	return WLZ_OK;
}

/* Where piece k starts past the slab, the window before it moved to the
 * slab's front (after every download of what it overwrites). */
static wlz_error slide(wlz_gdctx *g, uint64_t k, int downloads)
{
	const wlz_gpu_piece *p = &g->call.pc[k];
	if (p->d1 - g->sbase <= g->slab)
		return WLZ_OK;
	const uint64_t w = g->call.wmax, nb = p->d0 > g->sbase + w + 16 ? (p->d0 - w) & ~(uint64_t)15 : g->sbase;
	if (nb <= g->sbase)
		return wlz_fail(WLZ_ERR_INTERNAL, "GPU: the output slab is too small");
	if (downloads && k >= 1)
		CU(cudaStreamWaitEvent(g->stream, g->ev_down[(k - 1) & 1], 0), "wait");
	CU(cudaMemcpyAsync(g->out, g->out + (nb - g->sbase), p->d0 - nb, cudaMemcpyDeviceToDevice, g->stream), "move");
	g->sbase = nb;
	g->moves++;
	return WLZ_OK;
}

/* Every piece of the call, in order.  TO_DEVICE: queued, the verdict
 * left to wlz_gdctx_wait; else each piece's verdict is taken (and its
 * content handed on) while the next decodes. */
static wlz_error run(wlz_gdctx *g, const struct xfer *x)
{
	wlz_gpu_call *c = &g->call;
	const int host = x->kind != TO_DEVICE;
	wlz_error e = WLZ_OK;
	/* (pieces after the first prepared by threads, ahead) */
	wlz_gpu_preparer *w = c->np > 1 ? wlz_gpu_preparer_start(c, c->np < PREP_THREADS ? (unsigned)c->np : PREP_THREADS)
					 : NULL;
	for (uint64_t k = 0; k < c->np && e == WLZ_OK; k++) {
		uint8_t *arc;
		const int s = k & 1;
		e = upload(g, k, x, &arc);
		if (e == WLZ_OK && g->slab < c->dtotal)
			e = slide(g, k, x->kind == TO_PINNED || x->kind == TO_STAGED);
		const double t0 = seconds();
		wlz_gpu_prep *pr = &g->prep;
		if (w)
			pr = wlz_gpu_preparer_get(w, k);
		else
			wlz_gpu_prep_build(c, k, pr);
		g->t_wait += w ? seconds() - t0 : 0;
		if (e == WLZ_OK && k == 0 && cudaEventRecord(g->ev_t0, g->stream) != cudaSuccess)
			e = cuda_fail(cudaGetLastError(), "event");
		if (e == WLZ_OK)
			e = queue_piece(g, k, pr, arc);
		if (w)
			wlz_gpu_preparer_done(w, k);
		g->t_queue += seconds() - t0;
		if (e == WLZ_OK && k + 1 == c->np) {
			if (cudaEventRecord(g->ev_t1, g->stream) != cudaSuccess)
				e = cuda_fail(cudaGetLastError(), "event");
			g->timed = e == WLZ_OK;
		}
		if (e == WLZ_OK && cudaEventRecord(g->ev_dec[s], g->stream) != cudaSuccess)
			e = cuda_fail(cudaGetLastError(), "event");
		if (e == WLZ_OK && host)
			e = download(g, k, x);
		if (e == WLZ_OK && host && k >= 1)
			e = finish(g, k - 1, x);
	}
	wlz_gpu_preparer_stop(w);
	if (e == WLZ_OK && host && c->np)
		e = finish(g, c->np - 1, x);
	if (e != WLZ_OK || host)
		return e;
	/* TO_DEVICE: members moved to the caller's layout, where it is not
	 * the output; the verdict words copied back with the rest */
	if (g->out != x->dst && x->dst)
		for (size_t i = 0; i < c->nm; i++)
			CU(cudaMemcpyAsync(x->dst + c->mem[i].hpos, g->out + c->mem[i].dpos, c->mem[i].m.content_size,
					   cudaMemcpyDeviceToDevice, g->stream),
			   "copy");
	if (c->words)
		CU(cudaMemcpyAsync(g->h[H_STAT].p, g->d[B_STAT].p, c->words * 4, cudaMemcpyDeviceToHost, g->stream),
		   "verdict");
	return WLZ_OK;
}

static wlz_error begin(wlz_gdctx *g, void *stream)
{
	if (!g)
		return wlz_fail(WLZ_ERR_PARAM, "no GPU context");
	wlz_detail_clear();
	if (g->pending)
		return wlz_fail(WLZ_ERR_PARAM, "the previous call's verdict was not taken (wlz_gdctx_wait)");
	CU(cudaSetDevice(g->device), "device");
	CU(wlz_gpu_pick_stream(stream, g->own, g->ev_legacy, &g->stream), "stream");
	g->queue_err = WLZ_OK;
	g->moves = 0;
	g->whole = 0;
	g->t_plan = g->t_queue = g->t_wait = g->t_finish = 0;
	g->timed = 0;
	wlz_gpu_call_clear(&g->call);
	return WLZ_OK;
}

/* The end of a call: on an error, what was queued is waited for (the
 * caller may free its buffers on an error) and the error kept for
 * wlz_gdctx_wait; else, if async, the verdict is pending. */
static wlz_error end_call(wlz_gdctx *g, wlz_error e, int async)
{
	if (e != WLZ_OK || !async) {
		drain(g);
		free_retired(g);
		g->stream = g->own;
	}
	g->queue_err = e;
	g->pending = async && e == WLZ_OK;
	return e;
}

/* The structure of the n device archives a fetched into their host
 * images (headers.h); lay[i] is archive i's members where it held
 * together, else empty (copied whole when added). */
static void fetch_headers(wlz_gdctx *g, wlz_gpu_harc *a, size_t n, wlz_gpu_layout *lay)
{
	for (size_t i = 0; i < n; i++)
		lay[i] = (wlz_gpu_layout){NULL, 0};
	if ((!g->hdr && !(g->hdr = wlz_gpu_headers_create())) || (!g->rng && !(g->rng = wlz_gpu_ranges_create())))
		return;
	wlz_gpu_ranges_stream(g->rng, g->stream);
	if (wlz_gpu_headers_fetch(g->hdr, a, n, wlz_gpu_ranges_copy, g->rng)) {
		cudaGetLastError();
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (a[i].ok)
			lay[i] = wlz_gpu_headers_layout(g->hdr, i);
}

/* Adds the archive at d_src (device, size bytes) to the call, numbered
 * id, read on the host from its image h: the fetched structure where it
 * holds (lay), or else the whole archive copied there first. */
static wlz_error add_device(wlz_gdctx *g, uint8_t *h, const uint8_t *d_src, size_t size, uint32_t id,
			    const wlz_gpu_layout *lay)
{
	if (lay->nm && wlz_gpu_call_add_checked(&g->call, h, d_src, size, g->memory_limit, id, lay) == WLZ_OK)
		return WLZ_OK;
	g->whole++;
	cudaError_t ce;
	if (size && ((ce = cudaMemcpyAsync(h, d_src, size, cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess ||
		     (ce = cudaStreamSynchronize(g->stream)) != cudaSuccess))
		return cuda_fail(ce, "copy to the host");
	return wlz_gpu_call_add(&g->call, h, d_src, size, g->memory_limit, id);
}

/* The members of harc (host, size bytes) decoded into dst (device),
 * their stored bytes from d_src (device: harc its image, lay its fetched
 * structure) or else from harc. */
static wlz_error to_device(wlz_gdctx *g, uint8_t *d_dst, size_t dst_cap, uint8_t *harc, const uint8_t *d_src,
			   size_t size, size_t *dst_size, const wlz_gpu_layout *lay)
{
	const double t0 = seconds();
	if (d_src)
		WLZ_TRY(add_device(g, harc, d_src, size, 0, lay));
	else
		WLZ_TRY(wlz_gpu_call_add(&g->call, harc, NULL, size, g->memory_limit, 0));
	g->t_plan = seconds() - t0;
	if (g->call.total > dst_cap)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "%llu bytes of content, room for %zu",
				(unsigned long long)g->call.total, dst_cap);
	struct xfer x = {TO_DEVICE, d_src ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, 0, d_dst, NULL, NULL,
			 NULL, NULL, 0, NULL};
	const int two = !d_src;
	x.staged_in = two && !wlz_gpu_pinned(harc);
	WLZ_TRY(setup(g, &x, d_dst, two));
	WLZ_TRY(run(g, &x));
	*dst_size = g->call.total;
	return WLZ_OK;
}

wlz_error wlz_gpu_decompress_h2d(wlz_gdctx *g, void *d_dst, size_t dst_cap, const void *src, size_t src_size,
				 size_t *dst_size, void *stream)
{
	WLZ_TRY(begin(g, stream));
	if ((!src && src_size) || !dst_size)
		return end_call(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"), 1);
	return end_call(g, to_device(g, d_dst, dst_cap, (uint8_t *)src, NULL, src_size, dst_size, NULL), 1);
}

wlz_error wlz_gpu_decompress_d2d(wlz_gdctx *g, void *d_dst, size_t dst_cap, const void *d_src, size_t src_size,
				 size_t *dst_size, void *stream)
{
	WLZ_TRY(begin(g, stream));
	if ((!d_src && src_size) || !dst_size)
		return end_call(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"), 1);
	/* The headers are read on the host, from an image of the archive
	 * there that holds only them (or all of it, where its structure
	 * does not hold together). */
	wlz_error e = grow_image(g, src_size + 1);
	if (e != WLZ_OK)
		return end_call(g, e, 1);
	uint8_t *h = g->img;
	wlz_gpu_harc ha = {d_src, src_size, h, 0};
	wlz_gpu_layout lay;
	fetch_headers(g, &ha, 1, &lay);
	return end_call(g, to_device(g, d_dst, dst_cap, h, d_src, src_size, dst_size, &lay), 1);
}

wlz_error wlz_gdctx_wait(wlz_gdctx *g)
{
	if (!g)
		return wlz_fail(WLZ_ERR_PARAM, "no GPU context");
	CU(cudaSetDevice(g->device), "device");
	cudaError_t ce = cudaStreamSynchronize(g->stream);
	cudaStreamSynchronize(g->up);
	free_retired(g);
	g->pending = 0;
	g->stream = g->own;
	if (ce != cudaSuccess)
		return cuda_fail(ce, "decoding");
	if (g->queue_err != WLZ_OK)
		return g->queue_err;
	for (size_t k = 0; k < g->call.np; k++) {
		const wlz_gpu_piece *p = &g->call.pc[k];
		WLZ_TRY(verdict(&g->call, p, (const uint32_t *)g->h[H_STAT].p + p->stat));
	}
	return WLZ_OK;
}

/* Host to host: the content to dst (pinned: straight; other memory:
 * staged), through wr, or nowhere. */
static wlz_error to_host(wlz_gdctx *g, uint8_t *dst, size_t dst_cap, wlz_write_fn wr, void *opaque, const void *src,
			 size_t src_size, uint64_t *dst_size)
{
	const double t0 = seconds();
	WLZ_TRY(wlz_gpu_call_add(&g->call, src, NULL, src_size, g->memory_limit, 0));
	g->t_plan = seconds() - t0;
	wlz_gpu_call *c = &g->call;
	if (dst && c->total > dst_cap)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "%llu bytes of content, room for %zu", (unsigned long long)c->total,
				dst_cap);
	struct xfer x = {TO_NOTHING, cudaMemcpyHostToDevice, !wlz_gpu_pinned(src), dst, wr, opaque, NULL, NULL, 0,
			 NULL};
	if (wr || (dst && !wlz_gpu_pinned(dst)))
		x.kind = TO_STAGED;
	else if (dst)
		x.kind = TO_PINNED;
	WLZ_TRY(setup(g, &x, NULL, 1));
	WLZ_TRY(run(g, &x));
	*dst_size = c->total;
	return WLZ_OK;
}

wlz_error wlz_gpu_decompress(wlz_gdctx *g, void *dst, size_t dst_cap, const void *src, size_t src_size,
			     size_t *dst_size)
{
	WLZ_TRY(begin(g, NULL));
	if ((!src && src_size) || !dst_size)
		return end_call(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"), 0);
	uint64_t got = 0;
	wlz_error e = to_host(g, dst, dst_cap, NULL, NULL, src, src_size, &got);
	*dst_size = (size_t)got;
	return end_call(g, e, 0);
}

wlz_error wlz_gpu_decompress_stream(wlz_gdctx *g, const void *src, size_t src_size, wlz_write_fn wr, void *opaque,
				    uint64_t *content_size)
{
	WLZ_TRY(begin(g, NULL));
	if ((!src && src_size) || !wr)
		return end_call(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"), 0);
	uint64_t got = 0;
	wlz_error e = to_host(g, NULL, 0, wr, opaque, src, src_size, &got);
	if (content_size)
		*content_size = e == WLZ_OK ? got : 0;
	return end_call(g, e, 0);
}

wlz_error wlz_gpu_decompress_batch(wlz_gdctx *g, wlz_gpu_item *items, size_t n, unsigned flags,
				   wlz_gpu_item_write_fn wr, void *opaque)
{
	/* (every item not decoded until it is judged) */
	for (size_t i = 0; items && i < n; i++) {
		items[i].err = WLZ_ERR_GPU;
		items[i].content_size = 0;
		snprintf(items[i].detail, sizeof items[i].detail, "not decoded");
	}
	WLZ_TRY(begin(g, NULL));
	if ((!items && n) || n > UINT32_MAX)
		return end_call(g, wlz_fail(WLZ_ERR_PARAM, "NULL items"), 0);
	const int dev = (flags & WLZ_GPU_SRC_DEVICE) != 0;
	g->call.quiet_archives = 1;
	struct xfer x = {TO_NOTHING, dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, 0, NULL, NULL, opaque,
			 items, wr, (flags & WLZ_GPU_STOP_ON_ERROR) != 0, NULL};
	uint64_t *ibase = NULL;
	wlz_error e = WLZ_OK;
	const double t0 = seconds();
	/* Archives in device memory: their host images, back to back, with
	 * their structure fetched (add_device). */
	uint8_t *h = NULL;
	wlz_gpu_harc *ha = NULL;
	wlz_gpu_layout *lay = NULL;
	if (dev) {
		uint64_t all = 0;
		for (size_t i = 0; i < n; i++)
			all += items[i].src_size;
		e = grow_image(g, all + 1);
		h = g->img;
		ha = malloc((n ? n : 1) * sizeof *ha);
		lay = malloc((n ? n : 1) * sizeof *lay);
		if (e == WLZ_OK && (!ha || !lay))
			e = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		for (size_t i = 0, at = 0; i < n && e == WLZ_OK; at += items[i].src_size, i++)
			ha[i] = (wlz_gpu_harc){items[i].src, items[i].src ? items[i].src_size : 0, h + at, 0};
		if (e == WLZ_OK)
			fetch_headers(g, ha, n, lay);
	}
	int any_dst = 0, any_hdst = 0, all_pinned = 1;
	for (size_t i = 0; i < n; i++)
		any_dst |= items[i].d_dst != NULL, any_hdst |= items[i].h_dst != NULL;
	if (e == WLZ_OK && any_dst && any_hdst)
		e = wlz_fail(WLZ_ERR_PARAM, "a batch's content goes to device or to host buffers, not both");
	for (size_t i = 0, at = 0; i < n && e == WLZ_OK; at += items[i].src_size, i++) {
		wlz_gpu_item *it = &items[i];
		const uint64_t before = g->call.total;
		it->detail[0] = 0;
		it->err = it->src || !it->src_size ? WLZ_OK : wlz_fail(WLZ_ERR_PARAM, "NULL source");
		if (it->err == WLZ_OK)
			it->err = dev ? add_device(g, h + at, it->src, it->src_size, (uint32_t)i, &lay[i])
				      : wlz_gpu_call_add(&g->call, it->src, NULL, it->src_size, g->memory_limit,
							 (uint32_t)i);
		it->content_size = it->err == WLZ_OK ? g->call.total - before : 0;
		if (it->err == WLZ_OK && (it->d_dst || it->h_dst) && it->content_size > it->dst_cap)
			it->err = wlz_fail(WLZ_ERR_DST_TOO_SMALL, "%llu bytes of content, room for %zu",
					   (unsigned long long)it->content_size, it->dst_cap);
		if (it->err != WLZ_OK) {
			snprintf(it->detail, sizeof it->detail, "%s", wlz_error_detail());
			if (x.stop)
				e = it->err;
		}
		all_pinned &= dev || wlz_gpu_pinned(it->src);
	}
	free(ha);
	free(lay);
	g->t_plan = seconds() - t0;
	if (wr)
		x.kind = TO_STAGED;
	else if (any_dst)
		x.kind = TO_DEVICE;
	else if (any_hdst)
		x.kind = TO_PINNED;
	x.staged_in = !dev && !all_pinned;
	wlz_gpu_call *c = &g->call;
	if (e == WLZ_OK && x.kind == TO_PINNED) {
		/* (a member's place: from its archive's first member's) */
		ibase = calloc(n ? n : 1, sizeof *ibase);
		if (!ibase)
			e = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		/* (an item without a buffer, or refused at planning, its
		 * content too large for its buffer among others, gets nothing) */
		for (size_t i = 0; e == WLZ_OK && i < c->nm; i++) {
			const wlz_gpu_item *it = &items[c->mem[i].archive];
			if (i == 0 || c->mem[i - 1].archive != c->mem[i].archive)
				ibase[c->mem[i].archive] = it->h_dst && it->err == WLZ_OK ? c->mem[i].hpos : NO_HOST;
		}
		x.ibase = ibase;
	}
	if (e == WLZ_OK)
		e = setup(g, &x, NULL, !dev);
	if (e == WLZ_OK)
		e = run(g, &x);
	const double t1 = seconds();
	if (e == WLZ_OK && x.kind == TO_DEVICE) {
		/* every verdict, then the good archives' content to their places */
		if (cudaStreamSynchronize(g->stream) != cudaSuccess)
			e = cuda_fail(cudaGetLastError(), "decoding");
		for (uint64_t k = 0; k < c->np && e == WLZ_OK; k++)
			e = batch_piece(g, k, &x, 0);
		/* (a member's place: from its archive's first member's) */
		uint64_t base = 0;
		for (size_t i = 0; i < c->nm && e == WLZ_OK; i++) {
			const wlz_gpu_cmember *cm = &c->mem[i];
			const wlz_gpu_item *it = &items[cm->archive];
			if (i == 0 || c->mem[i - 1].archive != cm->archive)
				base = cm->hpos;
			if (it->err == WLZ_OK && it->d_dst && cm->m.content_size &&
			    cudaMemcpyAsync((uint8_t *)it->d_dst + (cm->hpos - base), g->out + (cm->dpos - g->sbase),
					    cm->m.content_size, cudaMemcpyDeviceToDevice, g->stream) != cudaSuccess)
				e = cuda_fail(cudaGetLastError(), "copy");
		}
	}
	free(ibase);
	e = end_call(g, e, 0);
	g->t_finish = seconds() - t1;
	/* (an error of the whole job, or a stop: no item left to pass) */
	if (e != WLZ_OK) {
		char why[WLZ_DETAIL_MAX];
		snprintf(why, sizeof why, "%s", wlz_error_detail());
		for (size_t i = 0; i < n; i++)
			if (items[i].err == WLZ_OK) {
				items[i].err = e;
				snprintf(items[i].detail, sizeof items[i].detail, "not decoded: %.160s", why);
			}
		wlz_fail(e, "%s", why);
	}
	for (size_t i = 0; i < n && e == WLZ_OK; i++)
		if (items[i].err != WLZ_OK) {
			wlz_fail(items[i].err, "archive %zu: %s", i, items[i].detail);
			return items[i].err;
		}
	return e;
}
