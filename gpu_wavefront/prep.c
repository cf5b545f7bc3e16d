/*
 * prep.c - the host's share of a piece, prepared ahead (prep.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/format.h"
#include "gpu_wavefront/prep.h"

/* (the error's detail kept: it is this thread's) */
static void failed(wlz_gpu_prep *p, wlz_error e)
{
	p->err = e;
	snprintf(p->detail, sizeof p->detail, "%s", wlz_error_detail());
}

/* Blocks [i0, i1) of piece k: their streams added to plan; a block with
 * a bad stream header flagged in p->hfl. */
struct streams_job {
	const wlz_gpu_call *c;
	const wlz_gpu_prep *p;
	uint64_t k, i0, i1;
	wlz_gpu_ent_plan plan;
	int nomem;             /* memory ran out (not a bad header) */
};

static void *add_streams(void *arg)
{
	struct streams_job *j = arg;
	const wlz_gpu_call *c = j->c;
	const wlz_gpu_piece *pc = &c->pc[j->k];
	const uint64_t n = pc->nb;
	for (uint64_t i = j->i0; i < j->i1; i++) {
		const wlz_gpu_cblock *cb = &c->blk[pc->f0 + i];
		const wlz_gpu_cmember *cm = &c->mem[cb->m];
		const wlz_block_entry *e = &cm->m.blocks[cb->b];
		const uint64_t from = j->p->arr[WLZ_A_PFROM * n + i];
		uint64_t in = 0;
		j->plan.blk = (uint32_t)i;
		j->p->hfl[i] = 0;
		/* (a bad part may leave segments behind: the block's all go) */
		const size_t nseg = j->plan.nseg, ntab = j->plan.ntab, out_size = j->plan.out_size;
		for (int s = 0; s < WLZ_NSTREAMS; s++) {
			const uint8_t *h = cm->harc + e->data_offset + in;
			if (!wlz_gpu_ent_add(&j->plan, h, from + in, e->csize[s], e->codec[s], e->rsize[s],
					     j->p->blk[i].s_off[s])) {
				/* (its payload's checksum, checked on the GPU, names
				 * a damaged payload first, as the CPU decoder does) */
				if (j->plan.nomem) {
					j->nomem = 1;
					return NULL;
				}
				j->p->hfl[i] = WLZ_GPU_ENT_BAD;
				j->plan.nseg = nseg, j->plan.ntab = ntab, j->plan.out_size = out_size;
				break;
			}
			in += e->csize[s];
		}
	}
	return NULL;
}

/* Threads reading a piece's stream headers, and the fewest blocks each. */
#ifndef STREAM_THREADS
#define STREAM_THREADS 4
#endif
#define STREAM_MIN_BLOCKS 8

void wlz_gpu_prep_build(const wlz_gpu_call *c, uint64_t k, wlz_gpu_prep *p)
{
	const wlz_gpu_piece *pc = &c->pc[k];
	const uint64_t n = pc->nb;
	p->err = WLZ_OK;
	p->detail[0] = 0;
	wlz_gpu_ent_plan_free(&p->plan);
	if (n > p->cap) {
		free(p->blk);
		free(p->arr);
		free(p->hfl);
		p->blk = malloc(n * sizeof *p->blk);
		p->arr = malloc(n * WLZ_NARR * sizeof *p->arr);
		p->hfl = malloc(n * sizeof *p->hfl);
		p->cap = p->blk && p->arr && p->hfl ? n : 0;
		if (!p->cap) {
			failed(p, wlz_fail(WLZ_ERR_NOMEM, "out of memory"));
			return;
		}
	}
	/* 1. The layout, block by block (sums: cheap). */
	uint64_t sbytes = 0, ntok = 0, nscr = 0, pack = 0, *arr = p->arr;
	for (uint64_t i = 0; i < n; i++) {
		const wlz_gpu_cblock *cb = &c->blk[pc->f0 + i];
		const wlz_gpu_cmember *cm = &c->mem[cb->m];
		const wlz_block_entry *e = &cm->m.blocks[cb->b];
		const uint64_t at = cm->dpos + (cb->b << cm->m.h.block_log);
		const wlz_gpu_run *r = &c->run[cb->run];
		p->blk[i] = wlz_gpu_pblock_next(e, at, cm->dpos, (uint64_t)1 << cm->m.h.window_log, &sbytes, &ntok,
						&nscr);
		arr[WLZ_A_PFROM * n + i] = r->slot + (e->data_offset - r->a0);
		arr[WLZ_A_PTO * n + i] = pack;
		arr[WLZ_A_PLEN * n + i] = wlz_payload_size(e);
		arr[WLZ_A_PWANT * n + i] = e->payload_checksum;
		arr[WLZ_A_COFF * n + i] = at - pc->d0;
		arr[WLZ_A_CLEN * n + i] = e->length;
		arr[WLZ_A_CWANT * n + i] = e->checksum;
		pack += (wlz_payload_size(e) + 15) & ~(uint64_t)15;
	}
	p->ntok = ntok;
	/* 2. The streams' headers: most of the work, in parts on threads. */
	struct streams_job job[STREAM_THREADS];
	pthread_t th[STREAM_THREADS];
	unsigned nj = (unsigned)((n + STREAM_MIN_BLOCKS - 1) / STREAM_MIN_BLOCKS);
	nj = nj < 1 ? 1 : nj > STREAM_THREADS ? STREAM_THREADS : nj;
	unsigned started = 0;
	for (unsigned j = 0; j < nj; j++) {
		memset(&job[j], 0, sizeof job[j]);
		job[j].c = c, job[j].p = p, job[j].k = k;
		job[j].i0 = n * j / nj, job[j].i1 = n * (j + 1) / nj;
	}
	for (unsigned j = 1; j < nj; j++, started++)
		if (pthread_create(&th[j], NULL, add_streams, &job[j]))
			break;
	add_streams(&job[0]);
	for (unsigned j = 1; j <= started; j++)
		pthread_join(th[j], NULL);
	for (unsigned j = started + 1; j < nj; j++)
		add_streams(&job[j]); /* (no thread could be had) */
	/* 3. Joined in order. */
	for (unsigned j = 0; j < nj; j++) {
		if (job[j].nomem && p->err == WLZ_OK)
			failed(p, wlz_fail(WLZ_ERR_NOMEM, "out of memory"));
		if (j == 0)
			p->plan = job[0].plan;
		else if (!wlz_gpu_ent_plan_append(&p->plan, &job[j].plan) && p->err == WLZ_OK)
			failed(p, wlz_fail(WLZ_ERR_NOMEM, "out of memory"));
		if (j)
			wlz_gpu_ent_plan_free(&job[j].plan);
	}
	if (p->err == WLZ_OK && !wlz_gpu_ent_plan_finish(&p->plan))
		failed(p, wlz_fail(WLZ_ERR_NOMEM, "out of memory"));
}

void wlz_gpu_prep_free(wlz_gpu_prep *p)
{
	wlz_gpu_ent_plan_free(&p->plan);
	free(p->blk);
	free(p->arr);
	free(p->hfl);
	memset(p, 0, sizeof *p);
}

#define MAX_THREADS 8
#define AHEAD 2 /* slots a thread */

struct wlz_gpu_preparer {
	const wlz_gpu_call *c;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th[MAX_THREADS];
	unsigned nth;
	uint64_t next;  /* the next piece to take */
	uint64_t done;  /* pieces whose slots are free again */
	int stop;
	unsigned nslot;
	wlz_gpu_prep slot[MAX_THREADS * AHEAD];
	uint64_t ready[MAX_THREADS * AHEAD]; /* the piece prepared in it, plus one */
};

static void *worker(void *arg)
{
	wlz_gpu_preparer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && w->next < w->c->np && w->next >= w->done + w->nslot)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop || w->next >= w->c->np)
			break;
		const uint64_t k = w->next++;
		wlz_gpu_prep *p = &w->slot[k % w->nslot];
		pthread_mutex_unlock(&w->mu);
		wlz_gpu_prep_build(w->c, k, p);
		pthread_mutex_lock(&w->mu);
		w->ready[k % w->nslot] = k + 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

wlz_gpu_preparer *wlz_gpu_preparer_start(const wlz_gpu_call *c, unsigned threads)
{
	wlz_gpu_preparer *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
	w->c = c;
	w->nslot = threads * AHEAD;
	if (pthread_mutex_init(&w->mu, NULL)) {
		free(w);
		return NULL;
	}
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	for (w->nth = 0; w->nth < threads; w->nth++)
		if (pthread_create(&w->th[w->nth], NULL, worker, w))
			break;
	if (!w->nth) {
		wlz_gpu_preparer_stop(w);
		return NULL;
	}
	return w;
}

wlz_gpu_prep *wlz_gpu_preparer_get(wlz_gpu_preparer *w, uint64_t k)
{
	pthread_mutex_lock(&w->mu);
	while (w->ready[k % w->nslot] != k + 1)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return &w->slot[k % w->nslot];
}

void wlz_gpu_preparer_done(wlz_gpu_preparer *w, uint64_t k)
{
	pthread_mutex_lock(&w->mu);
	w->ready[k % w->nslot] = 0;
	w->done = k + 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void wlz_gpu_preparer_stop(wlz_gpu_preparer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (unsigned i = 0; i < w->nth; i++)
		pthread_join(w->th[i], NULL);
	for (unsigned i = 0; i < w->nslot; i++)
		wlz_gpu_prep_free(&w->slot[i]);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
