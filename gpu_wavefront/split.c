/*
 * split.c - one archive decoded by several GPUs at once
 * (wlz_gpu_decompress_split, include/wavelz_gpu.h).
 *
 * Each member's blocks are cut into groups dealt to the GPUs in turn, so
 * that the GPUs move through the member side by side and a source seldom
 * lies in bytes another GPU has yet to write.  Every GPU decodes its own
 * blocks' streams, tokens and literals and runs the pass over its own
 * tokens (flow.h, wlz_gpu_flow_split), reading the others' bytes over
 * peer access; then it hashes its blocks.  Where the blocks are of one
 * power-of-two size (the encoder's), groups of GROUP_PUB blocks are
 * published whole: a source in another GPU's group waits for that group's
 * flag, and each GPU keeps its tokens in its own memory.  Otherwise
 * groups of GROUP blocks publish each chunk's token states, and the tokens
 * and tables are shared.  The member's output (and tokens, when shared)
 * is one range of addresses whose pages lie on the GPU that writes them
 * (CUDA's virtual memory management, through the driver's entry points:
 * the library links no driver library).  Measured:
 * bench/host/issue16-split.md.
 *
 * The checks are the single-GPU decoder's: headers and index on the host
 * (wlz_member_parse), then on each GPU its blocks' streams, tokens,
 * content checksums and, after them, payload checksums (a damaged payload
 * fails the member before any other verdict; the GPU decoder is safe on
 * any bytes; the host hashes payloads itself only where the plan or
 * memory fails).  Each GPU uploads only its own groups' stored bytes, and
 * sends its groups' content back over its own link, where it can as soon
 * as each group is final (its flag, in its own memory).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/wlz_internal.h"
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/flow.h"
#include "gpu_wavefront/gdctx.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/plan.h"
#include "gpu_wavefront/verify.h"
#include "gpu_wavefront/xxh3.h"
#include "wavelz_gpu.h"

#define GROUP 16                /* blocks a group (bench/host/issue16-split.md) */
#define GROUP_PUB 8             /* blocks a group published whole (the same) */
#define RUNS 32                 /* host threads that plan, at most */
#define RUN_BLOCKS 64           /* blocks a planning thread gets at least (a thread costs its start) */
#define MAXG WLZ_GPU_SPLIT_MAX

/* The driver's virtual memory calls. */
typedef CUresult (*fn_gran)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
typedef CUresult (*fn_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*fn_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult (*fn_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*fn_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*fn_unmap)(CUdeviceptr, size_t);
typedef CUresult (*fn_release)(CUmemGenericAllocationHandle);
typedef CUresult (*fn_free)(CUdeviceptr, size_t);
typedef CUresult (*fn_wait32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

struct vmm {
	fn_gran gran;
	fn_reserve reserve;
	fn_create create;
	fn_map map;
	fn_access access;
	fn_unmap unmap;
	fn_release release;
	fn_free free;
	fn_wait32 wait32; /* (not memory: a stream's wait on a word; NULL where the driver lacks it) */
};

static int vmm_load(struct vmm *v)
{
	static const char *const name[] = {"cuMemGetAllocationGranularity", "cuMemAddressReserve", "cuMemCreate",
					   "cuMemMap", "cuMemSetAccess", "cuMemUnmap", "cuMemRelease",
					   "cuMemAddressFree"};
	void *f[8];
	for (int i = 0; i < 8; i++) {
		enum cudaDriverEntryPointQueryResult q;
		if (cudaGetDriverEntryPointByVersion(name[i], &f[i], 12000, cudaEnableDefault, &q) != cudaSuccess ||
		    q != cudaDriverEntryPointSuccess || !f[i])
			return 0;
	}
	v->gran = (fn_gran)f[0], v->reserve = (fn_reserve)f[1], v->create = (fn_create)f[2];
	v->map = (fn_map)f[3], v->access = (fn_access)f[4], v->unmap = (fn_unmap)f[5];
	v->release = (fn_release)f[6], v->free = (fn_free)f[7];
	void *w = NULL;
	enum cudaDriverEntryPointQueryResult q;
	if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &w, 12000, cudaEnableDefault, &q) != cudaSuccess ||
	    q != cudaDriverEntryPointSuccess)
		w = NULL;
	v->wait32 = (fn_wait32)w;
	return 1;
}

/* One range of addresses readable and writable by the ng GPUs dev[]:
 * segment k from at[k] (at[0] = 0) to the next lies on GPU owner[k], its
 * edges rounded down to the allocation granularity (an allocation a
 * mapping: cuMemMap maps a whole allocation). */
struct spread {
	CUdeviceptr base;
	size_t size, n;
	CUmemGenericAllocationHandle *h;
	size_t *at, *len;
};

static void spread_free(const struct vmm *v, struct spread *m)
{
	for (size_t i = 0; i < m->n; i++) {
		v->unmap(m->base + m->at[i], m->len[i]);
		v->release(m->h[i]);
	}
	free(m->h);
	if (m->base)
		v->free(m->base, m->size);
	free(m->at);
	free(m->len);
	memset(m, 0, sizeof *m);
}

static int spread_alloc(const struct vmm *v, struct spread *m, size_t size, const size_t *at, const int *owner,
			size_t nseg, const int *dev, int ng)
{
	memset(m, 0, sizeof *m);
	size_t g = 0;
	for (int d = 0; d < ng; d++) {
		CUmemAllocationProp p;
		memset(&p, 0, sizeof p);
		p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		p.location.id = dev[d];
		size_t x;
		if (v->gran(&x, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS)
			return 0;
		g = x > g ? x : g;
	}
	m->size = (size + g - 1) / g * g;
	m->h = calloc(nseg, sizeof *m->h);
	m->at = calloc(nseg, sizeof *m->at);
	m->len = calloc(nseg, sizeof *m->len);
	if (!m->h || !m->at || !m->len || v->reserve(&m->base, m->size, g, 0, 0) != CUDA_SUCCESS) {
		m->base = 0;
		return 0;
	}
	for (size_t k = 0; k < nseg;) {
		/* (neighbours on one GPU, and segments that round to nothing,
		 * join the mapping before them) */
		const size_t k0 = k;
		const size_t a = k == 0 ? 0 : at[k] / g * g < m->size ? at[k] / g * g : m->size;
		size_t e = k + 1;
		while (e < nseg && (owner[e] == owner[k] || at[e] / g * g <= a))
			e++;
		const size_t b = e < nseg && at[e] / g * g < m->size ? at[e] / g * g : m->size;
		k = e;
		if (b <= a)
			continue;
		CUmemAllocationProp p;
		memset(&p, 0, sizeof p);
		p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		p.location.id = dev[owner[k0]];
		CUmemGenericAllocationHandle h;
		if (v->create(&h, b - a, &p, 0) != CUDA_SUCCESS)
			return 0;
		if (v->map(m->base + a, b - a, 0, h, 0) != CUDA_SUCCESS) {
			v->release(h);
			return 0;
		}
		m->h[m->n] = h, m->at[m->n] = a, m->len[m->n++] = b - a;
	}
	CUmemAccessDesc acc[MAXG];
	for (int d = 0; d < ng; d++) {
		acc[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		acc[d].location.id = dev[d];
		acc[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	/* (the whole range at once, else mapping by mapping) */
	if (m->n && v->access(m->base, m->size, acc, (size_t)ng) != CUDA_SUCCESS)
		for (size_t i = 0; i < m->n; i++)
			if (v->access(m->base + m->at[i], m->len[i], acc, (size_t)ng) != CUDA_SUCCESS)
				return 0;
	return 1;
}

/* A member's output kept by the first GPU's context from call to call
 * (wlz_gdctx_cache), where its groups are published whole: their layout
 * (group k of 2^gshift bytes on GPU k % ng) then depends only on the GPUs
 * and gshift, so a mapping as large or larger serves the next member. */
struct out_cache {
	struct vmm v;
	struct spread s;
	int ng, dev[MAXG];
	uint32_t gshift;
};

static void out_cache_free(void *p)
{
	struct out_cache *c = p;
	spread_free(&c->v, &c->s);
	free(c);
}

/* The output of a member of size bytes published in groups of 2^gshift
 * bytes (at, owner: ngroups groups), kept by g's context; NULL where it
 * cannot be had. */
static uint8_t *kept_output(wlz_gdctx *g, const struct vmm *v, const int *dev, int ng, uint32_t gshift, size_t size,
			    const size_t *at, const int *owner, size_t ngroups)
{
	struct out_cache *c = wlz_gdctx_cache(g);
	int same = c && c->ng == ng && c->gshift == gshift && c->s.size >= size;
	for (int d = 0; same && d < ng; d++)
		same = c->dev[d] == dev[d];
	if (same)
		return (uint8_t *)c->s.base;
	wlz_gdctx_set_cache(g, NULL, NULL); /* (the old one freed first) */
	if (!(c = calloc(1, sizeof *c)))
		return NULL;
	c->v = *v, c->ng = ng, c->gshift = gshift;
	for (int d = 0; d < ng; d++)
		c->dev[d] = dev[d];
	if (!spread_alloc(v, &c->s, size, at, owner, ngroups, dev, ng)) {
		out_cache_free(c);
		return NULL;
	}
	wlz_gdctx_set_cache(g, c, out_cache_free);
	return (uint8_t *)c->s.base;
}

/* One GPU's share of a member. */
struct share {
	int dev;
	/* side: the stored bytes up, and step 1's copy of the tables to the
	 * other GPUs; down: the content back as groups are done; aux: the
	 * plan's arrays up */
	cudaStream_t st, side, down, aux;
	cudaEvent_t parsed, prepped;
	cudaEvent_t stored, sent; /* this piece's stored bytes, and its plan's arrays, up */
	/* its streams in runs of blocks, each run's plan made and finished on
	 * a host thread of its own and sent up to its place (base: its first
	 * segment, group and table); plan holds the totals alone */
	wlz_gpu_ent_plan plan, run[RUNS];
	size_t nrun, segbase[RUNS], grpbase[RUNS], tabbase[RUNS];
	wlz_gpu_pblock *blk;
	uint64_t *bix, *boff, *blen, *tok_off;
	size_t nb;
	uint32_t *rfirst, *rtok, *rchunk, nr;
	uint64_t sbytes, nscr, ntok;
	uint32_t max_lit, max_tok;
	/* device */
	uint8_t *d_in, *d_st, *d_codes;
	int *d_err;
	wlz_gpu_seg *d_seg;
	wlz_gpu_group *d_grp;
	uint16_t *d_tab;
	wlz_gpu_pblock *d_blk;
	uint32_t *d_scr, *d_bad, *d_fl, *d_fail, *d_ticket, *d_gidx, *d_state, *d_rstate, *d_own, *d_r;
	uint32_t *d_gflag, *d_gcount;  /* group publication */
	wlz_gpu_token *d_tok;          /* group publication: this GPU's tokens */
	uint64_t *d_boff, *d_blen, *d_hash, *d_hscr, *d_tpos;
	/* payload checksums: its blocks' payloads gathered to aligned places
	 * (from, to, length: nb words each) and hashed */
	uint64_t *parr, pack, *d_parr, *d_phash;
	uint8_t *d_pack;
};

static void share_free(struct share *s)
{
	if (cudaSetDevice(s->dev) == cudaSuccess)
		cudaDeviceSynchronize();
	/* (its device buffers lie in its context's scratch) */
	/* (its streams and events are its context's) */
	for (size_t r = 0; r < s->nrun; r++)
		wlz_gpu_ent_plan_free(&s->run[r]);
	free(s->blk);
	free(s->bix);
	free(s->boff);
	free(s->blen);
	free(s->tok_off);
	free(s->rfirst);
	free(s->rtok);
	free(s->rchunk);
	free(s->parr);
	memset(s, 0, sizeof *s);
}

#define TRY_CU(x, what)                                                                                  \
	do {                                                                                             \
		cudaError_t e_ = (x);                                                                    \
		if (e_ != cudaSuccess) {                                                                 \
			err = wlz_fail(e_ == cudaErrorMemoryAllocation ? WLZ_ERR_NOMEM : WLZ_ERR_GPU, "%s: %s", \
				       what, cudaGetErrorString(e_));                                    \
			goto out;                                                                        \
		}                                                                                        \
	} while (0)

/* A share's device buffers: listed with CARVE, then cut from its
 * context's scratch (wlz_gdctx_scratch), 256-byte aligned. */
struct carve {
	void **p;
	size_t n;
};
#define CARVE(ptr, bytes) (cv[ncv++] = (struct carve){(void **)&(ptr), (size_t)(bytes) + 16})

/* A launch wrapper's failure (nonzero), with or without a CUDA error. */
#define TRY_LAUNCH(x, what)                                                                              \
	do {                                                                                             \
		if (x) {                                                                                 \
			err = wlz_fail(WLZ_ERR_GPU, "%s: %s", what, cudaGetErrorString(cudaGetLastError())); \
			goto out;                                                                        \
		}                                                                                        \
	} while (0)

/* The payload checksums of a member's blocks on the host's threads (where
 * the plan or memory fails, so that a damaged payload is named first),
 * thread k taking every n-th block from block k: the first block whose
 * stored bytes fail theirs (UINT64_MAX: none). */
struct phash {
	const uint8_t *arc;
	const wlz_member *m;
	uint64_t k, n, bad;
};

static void *phash_worker(void *arg)
{
	struct phash *h = arg;
	for (uint64_t b = h->k; b < h->m->nblocks && b < h->bad; b += h->n) {
		const wlz_block_entry *e = &h->m->blocks[b];
		if (wlz_xxh3(h->arc + e->data_offset, (size_t)wlz_payload_size(e)) != e->payload_checksum)
			h->bad = b;
	}
	return NULL;
}

static uint64_t payload_check(const uint8_t *arc, const wlz_member *m)
{
	enum { MOST = 64 };
	struct phash h[MOST];
	pthread_t t[MOST];
	int run[MOST];
	uint64_t n = (uint64_t)wlz_cpu_count();
	n = n > MOST ? MOST : n;
	n = n > m->nblocks ? (m->nblocks ? m->nblocks : 1) : n;
	for (uint64_t k = 0; k < n; k++) {
		h[k] = (struct phash){arc, m, k, n, UINT64_MAX};
		/* (a thread that cannot start: its share here) */
		run[k] = k && pthread_create(&t[k], NULL, phash_worker, &h[k]) == 0;
		if (k && !run[k])
			phash_worker(&h[k]);
	}
	phash_worker(&h[0]);
	uint64_t bad = h[0].bad;
	for (uint64_t k = 1; k < n; k++) {
		if (run[k])
			pthread_join(t[k], NULL);
		bad = h[k].bad < bad ? h[k].bad : bad;
	}
	return bad;
}

static wlz_error payload_fail(uint64_t b)
{
	return wlz_fail(WLZ_ERR_CHECKSUM, "block %llu: payload checksum mismatch", (unsigned long long)b);
}

/* Makes every pass already launched give up (each polls its fail word
 * while it waits), so that an error on one GPU does not leave the others
 * waiting for its states.  (The word is set after the pass's step 1, which
 * clears it: step 1 may still be queued behind earlier pieces.) */
static void stop_passes(struct share *sh, int launched)
{
	for (int d = 0; d < launched; d++) {
		cudaStream_t st;
		if (cudaSetDevice(sh[d].dev) == cudaSuccess &&
		    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess) {
			cudaStreamWaitEvent(st, sh[d].prepped, 0);
			cudaMemsetAsync(sh[d].d_fail, 0xFF, 4, st);
			cudaStreamSynchronize(st);
			cudaStreamDestroy(st);
		}
	}
	cudaGetLastError();
}

/* WLZ_GPU_SPLIT_TRACE set: the host's time in each step of a member,
 * summed over its pieces, on stderr (bench/host/issue16-split.md). */
enum { T_START, T_SENDUP, T_RUNS, T_MEMORY, T_SETUP, T_UPLOAD, T_LAUNCH, T_DECODE, T_DOWNLOAD, T_FREE,
       /* (parts of the steps above) */
       T_FILL, T_BLOCKS, T_THREADS, T_PLACE, T_CARVE, T_PAGEABLE, T_NEXT, T_N };

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void trace(const double *t, uint64_t np)
{
	static const char *const name[T_N] = {"", "first stored bytes queued", "plans", "output memory", "buffers",
					       "waits", "launches", "decode", "download", "free",
					       "plans: pieces", "blocks", "threads", "places", "buffers: scratch",
					       "plan arrays up", "next stored bytes queued"};
	if (!getenv("WLZ_GPU_SPLIT_TRACE"))
		return;
	fprintf(stderr, "wavelz split (%llu pieces):", (unsigned long long)np);
	int parts = 0;
	for (int k = 1; k < T_N; k++)
		if (t[k] > 0)
			fprintf(stderr, "%s%s %.1f ms", k >= T_FILL && !parts++ ? " (" : " ", name[k], 1e3 * t[k]);
	fprintf(stderr, "%s\n", parts ? ")" : "");
}

/* A run of one GPU's blocks [i0, i1) into its own plan, finished: their
 * streams' segments at the places the share's first pass set; the first
 * block whose streams the plan refuses, and which stream, in bad and
 * stream.  Runs go on the host's threads side by side (the headers'
 * tables cost the most). */
struct plan_job {
	struct share *s;
	const wlz_member *m;
	const uint8_t *arc;
	size_t i0, i1;
	wlz_gpu_ent_plan *plan;
	uint64_t bad;
	int stream, nomem;
};

static void *plan_run(void *arg)
{
	struct plan_job *j = arg;
	const struct share *s = j->s;
	for (size_t i = j->i0; i < j->i1; i++) {
		const wlz_block_entry *e = &j->m->blocks[s->bix[i]];
		/* (stored bytes at their offsets in the member: its copy on the GPU) */
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			j->plan->blk = (uint32_t)i;
			if (!wlz_gpu_ent_add(j->plan, j->arc + in, in - j->m->offset, e->csize[k], e->codec[k],
					     e->rsize[k], s->blk[i].s_off[k])) {
				j->nomem = j->plan->nomem;
				j->bad = s->bix[i], j->stream = k;
				return NULL;
			}
			in += e->csize[k];
		}
	}
	if (!wlz_gpu_ent_plan_finish(j->plan))
		j->nomem = 1, j->bad = j->i0 < j->i1 ? s->bix[j->i0] : 0;
	return NULL;
}

/* Every GPU's blocks into its runs' plans: the places in one pass a GPU,
 * then the runs on the host's threads, then each run's place among the
 * share's segments, groups and tables (its indices moved there).  The job
 * with the first refused block in *worst (-1: none); 0 when out of
 * memory. */
static int plan_shares(struct share *sh, int ng, const wlz_member *m, const uint8_t *arc, struct plan_job *job,
		       int *worst, double *tt)
{
	double c = seconds(), c1;
	pthread_t t[RUNS];
	int run[RUNS], nj = 0;
	const int per = (wlz_cpu_count() < RUNS ? wlz_cpu_count() : RUNS) / ng;
	*worst = -1;
	for (int d = 0; d < ng; d++) {
		struct share *s = &sh[d];
		if (!(s->parr = malloc((3 * s->nb + 1) * 8)))
			return 0;
		for (size_t i = 0; i < s->nb; i++) {
			const wlz_block_entry *e = &m->blocks[s->bix[i]];
			s->parr[i] = e->data_offset - m->offset;
			s->parr[s->nb + i] = s->pack;
			s->parr[2 * s->nb + i] = wlz_payload_size(e);
			s->pack += (wlz_payload_size(e) + 15) & ~(uint64_t)15;
			uint64_t tk = s->tok_off[i];
			s->blk[i] = wlz_gpu_pblock_next(e, s->boff[i], 0, (uint64_t)1 << m->h.window_log, &s->sbytes,
							&tk, &s->nscr);
			s->max_tok = s->blk[i].ntok > s->max_tok ? s->blk[i].ntok : s->max_tok;
		}
		s->nrun = per > 1 ? (size_t)per : 1;
		if (s->nrun > s->nb / RUN_BLOCKS)
			s->nrun = s->nb / RUN_BLOCKS > 1 ? s->nb / RUN_BLOCKS : 1;
		for (size_t r = 0; r < s->nrun; r++) {
			struct plan_job *j = &job[nj++];
			memset(j, 0, sizeof *j);
			j->s = s, j->m = m, j->arc = arc;
			j->i0 = s->nb * r / s->nrun, j->i1 = s->nb * (r + 1) / s->nrun;
			j->plan = &s->run[r];
			j->bad = UINT64_MAX;
		}
	}
	c1 = seconds(), tt[T_BLOCKS] += c1 - c, c = c1;
	for (int k = 0; k < nj; k++) {
		/* (a thread that cannot start: its run here) */
		run[k] = k && pthread_create(&t[k], NULL, plan_run, &job[k]) == 0;
		if (k && !run[k])
			plan_run(&job[k]);
	}
	plan_run(&job[0]);
	*worst = -1;
	for (int k = 0; k < nj; k++) {
		if (run[k])
			pthread_join(t[k], NULL);
		if (job[k].bad != UINT64_MAX && (*worst < 0 || job[k].bad < job[*worst].bad))
			*worst = k;
	}
	c1 = seconds(), tt[T_THREADS] += c1 - c, c = c1;
	if (*worst >= 0)
		return !job[*worst].nomem;
	for (int d = 0; d < ng; d++) {
		struct share *s = &sh[d];
		for (size_t r = 0; r < s->nrun; r++) {
			s->segbase[r] = s->plan.nseg, s->grpbase[r] = s->plan.ngrp, s->tabbase[r] = s->plan.ntab;
			wlz_gpu_ent_plan_place(&s->run[r], &s->plan);
		}
	}
	tt[T_PLACE] += seconds() - c;
	return 1;
}

/* Queues the copies of GPU d's groups among k0.. k1 - 1 (k0 a multiple of
 * ng: groups k0 + d, k0 + d + ng, ...) of out into dst on stream st; with
 * wait (the driver's stream wait), each after its flag in gflag is set.
 * Returns 1 where a wait could not be queued (the copies queued before it
 * stay), else 0; *ce the first copy's error. */
static int send_groups(const struct vmm *v, int wait, const uint32_t *gflag, uint8_t *dst, const uint8_t *out,
		       const size_t *at_out, uint64_t k0, uint64_t k1, uint64_t ngroups, uint64_t size, int d, int ng,
		       cudaStream_t st, cudaError_t *ce)
{
	*ce = cudaSuccess;
	for (uint64_t k = k0 + (uint64_t)d; k < k1 && *ce == cudaSuccess; k += (uint64_t)ng) {
		const uint64_t a = at_out[k], z = k + 1 < ngroups ? at_out[k + 1] : size;
		if (wait &&
		    v->wait32((CUstream)st, (CUdeviceptr)(gflag + k), 1, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
			return 1;
		if (z > a)
			*ce = cudaMemcpyAsync(dst + a, out + a, z - a, cudaMemcpyDeviceToHost, st);
	}
	return 0;
}

/* Piece shares sh (ng of them) take the blocks of groups g0..g1 - 1, group
 * k's to GPU k % ng, the tokens numbered from the piece's first (and
 * at_tok, where the piece is the whole member, from 0). */
static int piece_fill(struct share *sh, int ng, const wlz_member *m, uint64_t group, uint64_t g0, uint64_t g1,
		      const size_t *at_out, size_t *at_tok, uint64_t *ntok_out)
{
	const uint64_t nb = m->nblocks, per = (g1 - g0 + (uint64_t)ng - 1) / (uint64_t)ng;
	const uint64_t most = per * group, mostg = per + 1;
	for (int d = 0; d < ng; d++) {
		struct share *s = &sh[d];
		s->blk = calloc(most, sizeof *s->blk);
		s->bix = calloc(most, sizeof *s->bix);
		s->boff = calloc(most, sizeof *s->boff);
		s->blen = calloc(most, sizeof *s->blen);
		s->tok_off = calloc(most, sizeof *s->tok_off);
		s->rfirst = calloc(mostg, 4);
		s->rtok = calloc(mostg + 1, 4);
		s->rchunk = calloc(mostg + 1, 4);
		if (!s->blk || !s->bix || !s->boff || !s->blen || !s->tok_off || !s->rfirst || !s->rtok || !s->rchunk)
			return 0;
	}
	uint64_t ntok = 0, bstart = at_out[g0];
	const uint64_t b1 = g1 * group < nb ? g1 * group : nb;
	for (uint64_t b = g0 * group; b < b1; b++) {
		const uint64_t grp = b / group;
		struct share *s = &sh[grp % (uint64_t)ng];
		const wlz_block_entry *e = &m->blocks[b];
		if (b % group == 0) {
			at_tok[grp] = ntok * sizeof(wlz_gpu_token);
			s->rfirst[s->nr] = (uint32_t)ntok;
			s->rtok[s->nr++] = (uint32_t)s->ntok;
		}
		s->bix[s->nb] = b;
		s->boff[s->nb] = bstart;
		s->blen[s->nb] = e->length;
		s->tok_off[s->nb++] = ntok;
		s->max_lit = e->rsize[WLZ_S_LIT] > s->max_lit ? e->rsize[WLZ_S_LIT] : s->max_lit;
		s->ntok += e->token_count;
		ntok += e->token_count;
		bstart += e->length;
	}
	*ntok_out = ntok;
	return 1;
}

/* Queues GPU d's stored bytes of groups g0..g1 - 1 (its own) up on s->side,
 * each group with the bytes after it that a stream's last refill may read,
 * then records s->stored. */
static cudaError_t send_stored(const struct share *s, const wlz_member *m, const uint8_t *arc, uint64_t group,
			       uint64_t g0, uint64_t g1, int d, int ng)
{
	const uint64_t nb = m->nblocks;
	cudaError_t ce = cudaSuccess;
	for (uint64_t grp = g0 + (uint64_t)d; grp < g1 && ce == cudaSuccess; grp += (uint64_t)ng) {
		const uint64_t b0 = grp * group, b1 = (b0 + group < nb ? b0 + group : nb) - 1;
		/* (from the 64-byte line before: the entropy stage reads whole
		 * aligned words) */
		const uint64_t from = (m->blocks[b0].data_offset - m->offset) & ~(uint64_t)63;
		uint64_t to = m->blocks[b1].data_offset + wlz_payload_size(&m->blocks[b1]) - m->offset + 64;
		to = to < m->size ? to : m->size;
		ce = cudaMemcpyAsync(s->d_in + from, arc + m->offset + from, to - from, cudaMemcpyHostToDevice, s->side);
	}
	return ce == cudaSuccess ? cudaEventRecord(s->stored, s->side) : ce;
}

/* Block b's verdict why (piece_verdicts) as an error, with the single
 * GPU's codes. */
static wlz_error verdict_fail(uint64_t b, const char *why)
{
	const wlz_error e = strstr(why, "checksum")	 ? WLZ_ERR_CHECKSUM
			    : strstr(why, "tokens") ? WLZ_ERR_BAD_TOKEN
						     : WLZ_ERR_BAD_STREAM;
	return wlz_fail(e, "block %llu: %s", (unsigned long long)b, why);
}

/* A piece's verdicts on the host, folded into the member's: the first
 * block whose payload fails its checksum (*pbad), and the first that fails
 * otherwise (*first_bad, *why). */
static cudaError_t piece_verdicts(const struct share *s, const wlz_member *m, uint64_t *pbad, uint64_t *first_bad,
				  const char **why)
{
	uint32_t *bad = malloc((s->nb + 1) * 4), *fl = malloc((s->nb + 1) * 4), fail[WLZ_GPU_FLOW_FAIL];
	uint64_t *hash = malloc((2 * s->nb + 1) * 8);
	int ent_err = 0;
	cudaError_t ce = bad && fl && hash ? cudaSuccess : cudaErrorMemoryAllocation;
	if (ce == cudaSuccess)
		ce = cudaMemcpy(bad, s->d_bad, (s->nb + 1) * 4, cudaMemcpyDeviceToHost);
	if (ce == cudaSuccess)
		ce = cudaMemcpy(fl, s->d_fl, (s->nb + 1) * 4, cudaMemcpyDeviceToHost);
	if (ce == cudaSuccess)
		ce = cudaMemcpy(&ent_err, s->d_err, sizeof ent_err, cudaMemcpyDeviceToHost);
	if (ce == cudaSuccess)
		ce = cudaMemcpy(hash, s->d_hash, s->nb * 8, cudaMemcpyDeviceToHost);
	if (ce == cudaSuccess)
		ce = cudaMemcpy(hash + s->nb, s->d_phash, s->nb * 8, cudaMemcpyDeviceToHost);
	if (ce == cudaSuccess)
		ce = cudaMemcpy(fail, s->d_fail, sizeof fail, cudaMemcpyDeviceToHost);
	for (size_t i = 0; ce == cudaSuccess && i < s->nb; i++) {
		const uint64_t b = s->bix[i];
		const char *w = fl[i] & WLZ_GPU_ENT_BAD		    ? "a stream does not decode"
				: bad[i]			    ? "its tokens break the format"
				: hash[i] != m->blocks[b].checksum ? "content checksum mismatch"
								     : NULL;
		if (w && b < *first_bad)
			*first_bad = b, *why = w;
		if (hash[s->nb + i] != m->blocks[b].payload_checksum && b < *pbad)
			*pbad = b;
	}
	/* (a pass that gave up, or a stream the entropy stage refused, with
	 * no block named: the piece's first block) */
	if (ce == cudaSuccess && (fail[0] || ent_err) && !*why)
		*why = fail[0] ? "the pass gave up" : "a stream does not decode", *first_bad = s->nb ? s->bix[0] : 0;
	free(bad);
	free(fl);
	free(hash);
	return ce;
}

/* Member m of the archive arc decoded on the GPUs into dst (host, room
 * for its content; NULL: checks only). */
static wlz_error member(const struct vmm *v, wlz_gdctx *const *g, const int *dev, int ng, const uint8_t *arc,
			const wlz_member *m, uint8_t *dst)
{
	wlz_error err = WLZ_OK;
	int launched = 0;       /* the current piece's passes launched */
	uint64_t pbad = UINT64_MAX, first_bad = UINT64_MAX, done = 0; /* (done: pieces queued whole) */
	const char *why = NULL;
	double tt[T_N] = {0}, t = seconds(), t1;
	struct spread s_out, s_tok;
	memset(&s_out, 0, sizeof s_out);
	memset(&s_tok, 0, sizeof s_tok);
	const uint32_t gshift = wlz_gpu_split_shift(m, GROUP_PUB);
	const uint64_t group = gshift ? GROUP_PUB : GROUP;
	const uint64_t nb = m->nblocks, size = m->content_size, ngroups = (nb + group - 1) / group;
	size_t *at_out = calloc(ngroups + 1, sizeof *at_out), *at_tok = calloc(ngroups + 1, sizeof *at_tok);
	int *owner = calloc(ngroups + 1, sizeof *owner);
	uint64_t pg[WLZ_GPU_SPLIT_PIECES + 1];
	/* (WLZ_GPU_SPLIT_PIECES: how many, for the tests and bench) */
	const char *pe = getenv("WLZ_GPU_SPLIT_PIECES");
	const uint64_t np = wlz_gpu_split_cut(ngroups, ng, gshift != 0, pe && atoi(pe) > 0 ? (uint64_t)atoi(pe) : 0, pg);
	struct share *sh = calloc(np * (uint64_t)ng, sizeof *sh);
	uint32_t *d_gflag[MAXG] = {NULL}, *d_gidx[MAXG] = {NULL};
	struct {
		uint64_t b;
		int stream, nomem;
	} refused = {UINT64_MAX, 0, 0}; /* (a piece's plan's first refused block) */
	uint8_t *out = NULL;
	wlz_gpu_token *tok = NULL;
	int early = 0, checked = 0; /* (checked: the payloads hashed on the host) */
#define SH(p, d) (&sh[(p) * (uint64_t)ng + (uint64_t)(d)])
	if (!at_out || !at_tok || !owner || !sh) {
		err = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (uint64_t k = 0; k < np * (uint64_t)ng; k++)
		sh[k].dev = dev[k % (uint64_t)ng];
	{
		uint64_t bstart = 0;
		for (uint64_t b = 0; b < nb; b++) {
			if (b % group == 0)
				at_out[b / group] = bstart, owner[b / group] = (int)((b / group) % (uint64_t)ng);
			bstart += m->blocks[b].length;
		}
	}
	/* Each GPU's streams, its stored bytes (slot 0, with its granules and
	 * group flags, which every piece shares), and the first piece's
	 * stored bytes up on its side stream while the host plans. */
	const size_t gran = wlz_gpu_flow_granules(size), in_room = (m->size + 16 + 255) & ~(size_t)255,
		     gidx_room = (gran * 4 + 16 + 255) & ~(size_t)255;
	for (int d = 0; d < ng; d++) {
		void *st4[WLZ_GDCTX_STREAMS], *ev[WLZ_GDCTX_EVENTS];
		TRY_CU(cudaSetDevice(dev[d]), "device");
		TRY_LAUNCH(wlz_gdctx_split_streams(g[d], st4, ev), "streams");
		uint8_t *base = wlz_gdctx_scratch(g[d], 0, in_room + gidx_room + (ngroups + 1) * 4 + 16);
		if (!base) {
			err = wlz_fail(WLZ_ERR_NOMEM, "GPU memory: %llu bytes on GPU %d", (unsigned long long)m->size + 16,
				       dev[d]);
			goto out;
		}
		d_gidx[d] = (uint32_t *)(base + in_room);
		d_gflag[d] = (uint32_t *)(base + in_room + gidx_room);
		for (uint64_t p = 0; p < np; p++) {
			struct share *s = SH(p, d);
			/* (side first in line for the SMs: its copy beside the
			 * literals would otherwise wait for their blocks) */
			s->st = (cudaStream_t)st4[0], s->side = (cudaStream_t)st4[1];
			s->down = (cudaStream_t)st4[2], s->aux = (cudaStream_t)st4[3];
			s->parsed = (cudaEvent_t)ev[0], s->prepped = (cudaEvent_t)ev[1];
			s->stored = (cudaEvent_t)ev[2 + 2 * p], s->sent = (cudaEvent_t)ev[3 + 2 * p];
			s->d_in = base, s->d_gidx = d_gidx[d];
			if (gshift)
				s->d_gflag = d_gflag[d];
		}
		/* (every pass may write these flags: zeroed before any is
		 * launched) */
		if (gshift) {
			TRY_CU(cudaMemsetAsync(d_gflag[d], 0, (ngroups + 1) * 4, SH(0, d)->st), "memset");
			TRY_CU(cudaStreamSynchronize(SH(0, d)->st), "memset");
		}
		TRY_CU(cudaMemsetAsync(base + m->size, 0, 16, SH(0, d)->side), "memset");
		TRY_CU(send_stored(SH(0, d), m, arc, group, pg[0], pg[1], d, ng), "upload");
	}
	t1 = seconds(), tt[T_SENDUP] += t1 - t, t = t1;
	for (uint64_t p = 0; p < np; p++) {
		struct share *ps = SH(p, 0);
		uint64_t ntok = 0;
		/* This piece's blocks to their GPUs, then each GPU's streams into
		 * its plan on the host's threads (plan_shares). */
		if (!piece_fill(ps, ng, m, group, pg[p], pg[p + 1], at_out, at_tok, &ntok)) {
			err = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
			break;
		}
		{
			struct plan_job job[RUNS];
			int worst;
			t1 = seconds(), tt[T_FILL] += t1 - t;
			const int planned = plan_shares(ps, ng, m, arc, job, &worst, tt);
			if (!planned && worst < 0) {
				err = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
				break;
			}
			if (worst >= 0) {
				/* (the pieces queued go on: their verdicts come
				 * first where they name an earlier block) */
				refused.b = job[worst].bad, refused.stream = job[worst].stream;
				refused.nomem = job[worst].nomem;
				break;
			}
		}
		if (ntok >= UINT32_MAX) {
			err = wlz_fail(WLZ_ERR_GPU, "2^32 tokens or more in one piece of a member");
			break;
		}
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			s->rtok[s->nr] = (uint32_t)s->ntok;
			s->rchunk[0] = 0;
			for (uint32_t r = 0; r < s->nr; r++)
				s->rchunk[r + 1] = s->rchunk[r] + (s->rtok[r + 1] - s->rtok[r] + 31) / 32;
		}
		t1 = seconds(), tt[T_RUNS] += t1 - t, t = t1;
		if (p == 0) {
			/* (a member without group publication maps its own
			 * output: a kept one is let go first) */
			if (!gshift)
				wlz_gdctx_set_cache(g[0], NULL, NULL);
			out = gshift ? kept_output(g[0], v, dev, ng, gshift, size + 64, at_out, owner, ngroups) : NULL;
			if ((gshift && !out) ||
			    (!gshift && !spread_alloc(v, &s_out, size + 64, at_out, owner, ngroups, dev, ng)) ||
			    (!gshift && !spread_alloc(v, &s_tok, (ntok + 1) * sizeof(wlz_gpu_token), at_tok, owner,
						      ngroups, dev, ng))) {
				err = wlz_fail(WLZ_ERR_NOMEM, "GPU memory for the member's content and tokens");
				break;
			}
			if (!gshift)
				out = (uint8_t *)s_out.base;
			tok = (wlz_gpu_token *)s_tok.base; /* (shared; NULL: each GPU's own) */
			early = gshift && dst && v->wait32 && wlz_gpu_pinned(dst);
			t1 = seconds(), tt[T_MEMORY] += t1 - t, t = t1;
		}
		/* (the content hashed from the piece's first byte: the hash's
		 * scratch grows with the span) */
		const uint64_t pstart = at_out[pg[p]], span = (pg[p + 1] < ngroups ? at_out[pg[p + 1]] : size) - pstart;
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			const wlz_gpu_ent_plan *pl = &s->plan;
			for (size_t i = 0; i < s->nb; i++)
				s->boff[i] -= pstart;
			TRY_CU(cudaSetDevice(s->dev), "device");
			struct carve cv[32];
			int ncv = 0;
			CARVE(s->d_st, s->sbytes + 48);
			CARVE(s->d_err, 8);
			CARVE(s->d_seg, pl->nseg * sizeof(wlz_gpu_seg));
			CARVE(s->d_grp, pl->ngrp * sizeof(wlz_gpu_group));
			CARVE(s->d_tab, pl->ntab * WLZ_GPU_TAB * 2);
			CARVE(s->d_codes, pl->ntab * 256);
			CARVE(s->d_blk, s->nb * sizeof(wlz_gpu_pblock));
			CARVE(s->d_scr, (s->nscr + 1) * 4);
			CARVE(s->d_bad, (s->nb + 1) * 4);
			CARVE(s->d_fl, (s->nb + 1) * 4);
			CARVE(s->d_fail, WLZ_GPU_FLOW_FAIL * 4);
			CARVE(s->d_ticket, 4);
			CARVE(s->d_state, ntok * 4);
			CARVE(s->d_rstate, ntok * 4);
			CARVE(s->d_own, (ntok / 32 + 1) * 4);
			CARVE(s->d_tpos, ntok * 8);
			if (gshift) {
				CARVE(s->d_tok, (ntok + 1) * sizeof(wlz_gpu_token));
				CARVE(s->d_gcount, ((size_t)s->nr + 1) * 4);
			}
			CARVE(s->d_r, (3 * (size_t)s->nr + 2) * 4);
			CARVE(s->d_boff, s->nb * 8);
			CARVE(s->d_blen, s->nb * 8);
			CARVE(s->d_hash, s->nb * 8);
			CARVE(s->d_hscr, wlz_gpu_xxh3_scratch(span > s->pack ? span : s->pack));
			CARVE(s->d_parr, s->nb * 24);
			CARVE(s->d_phash, s->nb * 8);
			CARVE(s->d_pack, s->pack + 16);
			size_t need = 0;
			for (int i = 0; i < ncv; i++)
				need += (cv[i].n + 255) & ~(size_t)255;
			const double c0 = seconds();
			uint8_t *base = wlz_gdctx_scratch(g[d], 1 + (int)p, need);
			if (!base) {
				err = wlz_fail(WLZ_ERR_NOMEM, "GPU memory: %zu bytes on GPU %d", need, s->dev);
				goto out;
			}
			for (int i = 0; i < ncv; i++) {
				*cv[i].p = base;
				base += (cv[i].n + 255) & ~(size_t)255;
			}
			const double c1 = seconds();
			tt[T_CARVE] += c1 - c0;
			/* The plan's arrays up on aux (pageable memory: a copy may
			 * wait for the stream's work before it), then the next
			 * piece's stored bytes on side. */
			for (size_t r = 0; r < s->nrun; r++) {
				/* (an empty run's arrays may be NULL: nothing sent) */
				const wlz_gpu_ent_plan *q = &s->run[r];
				if (q->nseg)
					TRY_CU(cudaMemcpyAsync(s->d_seg + s->segbase[r], q->seg,
							       q->nseg * sizeof(wlz_gpu_seg), cudaMemcpyHostToDevice,
							       s->aux),
					       "upload");
				if (q->ngrp)
					TRY_CU(cudaMemcpyAsync(s->d_grp + s->grpbase[r], q->grp,
							       q->ngrp * sizeof(wlz_gpu_group), cudaMemcpyHostToDevice,
							       s->aux),
					       "upload");
				if (q->ntab)
					TRY_CU(cudaMemcpyAsync(s->d_codes + s->tabbase[r] * 256, q->codes, q->ntab * 256,
							       cudaMemcpyHostToDevice, s->aux),
					       "upload");
			}
			TRY_CU(cudaMemcpyAsync(s->d_blk, s->blk, s->nb * sizeof(wlz_gpu_pblock), cudaMemcpyHostToDevice,
					       s->aux),
			       "upload");
			TRY_CU(cudaMemcpyAsync(s->d_r, s->rfirst, s->nr * 4, cudaMemcpyHostToDevice, s->aux), "upload");
			TRY_CU(cudaMemcpyAsync(s->d_r + s->nr, s->rtok, (s->nr + 1) * 4, cudaMemcpyHostToDevice, s->aux),
			       "upload");
			TRY_CU(cudaMemcpyAsync(s->d_r + 2 * s->nr + 1, s->rchunk, (s->nr + 1) * 4, cudaMemcpyHostToDevice,
					       s->aux),
			       "upload");
			TRY_CU(cudaMemcpyAsync(s->d_boff, s->boff, s->nb * 8, cudaMemcpyHostToDevice, s->aux), "upload");
			TRY_CU(cudaMemcpyAsync(s->d_blen, s->blen, s->nb * 8, cudaMemcpyHostToDevice, s->aux), "upload");
			TRY_CU(cudaMemcpyAsync(s->d_parr, s->parr, s->nb * 24, cudaMemcpyHostToDevice, s->aux), "upload");
			TRY_CU(cudaEventRecord(s->sent, s->aux), "event");
			const double c2 = seconds();
			tt[T_PAGEABLE] += c2 - c1;
			if (p + 1 < np)
				TRY_CU(send_stored(SH(p + 1, d), m, arc, group, pg[p + 1], pg[p + 2], d, ng), "upload");
			tt[T_NEXT] += seconds() - c2;
			TRY_CU(cudaStreamWaitEvent(s->st, s->stored, 0), "event");
			TRY_CU(cudaStreamWaitEvent(s->st, s->sent, 0), "event");
			TRY_CU(cudaMemsetAsync(s->d_st, 0, s->sbytes + 64, s->st), "memset");
			TRY_CU(cudaMemsetAsync(s->d_err, 0, 8, s->st), "memset");
			TRY_CU(cudaMemsetAsync(s->d_bad, 0, (s->nb + 1) * 4, s->st), "memset");
			TRY_CU(cudaMemsetAsync(s->d_fl, 0, (s->nb + 1) * 4, s->st), "memset");
			TRY_CU(cudaMemsetAsync(s->d_rstate, 0, ntok * 4 + 4, s->st), "memset");
		}
		t1 = seconds(), tt[T_SETUP] += t1 - t, t = t1;
		/* (without group publication, the pass on every GPU writes into
		 * this one's states: all memory set before any launch below) */
		for (int d = 0; !gshift && d < ng; d++) {
			TRY_CU(cudaSetDevice(SH(p, d)->dev), "device");
			TRY_CU(cudaStreamSynchronize(SH(p, d)->st), "upload");
		}
		t1 = seconds(), tt[T_UPLOAD] += t1 - t, t = t1;
		wlz_gpu_flow_split sp[MAXG];
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			wlz_gpu_flow_split *x = &sp[d];
			memset(x, 0, sizeof *x);
			x->tok = gshift ? s->d_tok : tok, x->ntok = ntok;
			x->rfirst = s->d_r, x->rtok = s->d_r + s->nr, x->rchunk = s->d_r + 2 * s->nr + 1, x->nr = s->nr;
			x->count = s->ntok, x->nchunk = s->rchunk[s->nr];
			x->gidx = s->d_gidx, x->state = s->d_state, x->rstate = s->d_rstate;
			x->own = s->d_own, x->tpos = s->d_tpos;
			for (int o = 0; o < ng; o++)
				if (o != d) {
					x->peer_gidx[x->npeers] = SH(p, o)->d_gidx;
					x->peer_tpos[x->npeers] = SH(p, o)->d_tpos;
					x->peer_rstate[x->npeers++] = SH(p, o)->d_rstate;
				}
			x->epoch = 1;
			x->ticket = s->d_ticket;
			if (gshift) {
				x->gflag = s->d_gflag, x->gcount = s->d_gcount;
				/* (t0 0: bytes before the member's first token lie in
				 * group 0, GPU 0's, and are waited on by its flag; own
				 * ones are a tail, final before the pass) */
				x->gshift = gshift, x->gpu = (uint32_t)d, x->ngpus = (uint32_t)ng, x->t0 = 0;
				x->gbase = (uint32_t)pg[p];
				for (int o = 0, k = 0; o < ng; o++)
					if (o != d)
						x->peer_gflag[k++] = d_gflag[o];
			}
		}
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			TRY_CU(cudaSetDevice(s->dev), "device");
			TRY_LAUNCH(wlz_gpu_ent_tables(s->d_codes, s->plan.ntab, s->d_tab, s->st) ||
					   wlz_gpu_ent_launch(&s->plan, s->d_seg, s->d_grp, s->d_tab, s->d_in, s->d_st,
							      s->d_err, s->d_fl, s->st) ||
					   wlz_gpu_parse(s->d_blk, s->nb, s->max_tok, s->d_st, s->d_scr, sp[d].tok,
							 s->d_bad, s->st),
				   "launch");
			TRY_CU(cudaEventRecord(s->parsed, s->st), "event");
		}
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			TRY_CU(cudaSetDevice(s->dev), "device");
			/* (without group publication, step 1 reads the token
			 * after each range: another GPU's) */
			for (int o = 0; o < ng && !gshift; o++)
				if (o != d)
					TRY_CU(cudaStreamWaitEvent(s->st, SH(p, o)->parsed, 0), "event");
			TRY_LAUNCH(wlz_gpu_flow_split_prep(s->d_blk, s->nb, s->max_lit, &sp[d], s->d_st, out, size,
							   s->d_bad, s->d_fail, s->st, gshift ? NULL : s->side),
				   "launch");
			TRY_CU(cudaEventRecord(s->prepped, s->st), "event");
		}
		/* Every GPU's pass is launched before anything else that may
		 * block the host: a pass waits on the others' states or
		 * groups, and a first launch of another module (the
		 * checksums'), or a copy from pageable memory, may wait for the
		 * device's work, so it must not stand between two passes'
		 * launches.  (With group publication the flags were zeroed
		 * before the first piece, and a pass writes nothing else of
		 * another GPU's.) */
		for (launched = 0; launched < ng; launched++) {
			struct share *s = SH(p, launched);
			TRY_CU(cudaSetDevice(s->dev), "device");
			for (int o = 0; o < ng && !gshift; o++)
				if (o != launched)
					TRY_CU(cudaStreamWaitEvent(s->st, SH(p, o)->prepped, 0), "event");
			TRY_LAUNCH(wlz_gpu_flow_split_run(&sp[launched], out, s->d_fail, s->st), "launch");
		}
		/* With group publication each GPU sends its groups back as their
		 * flags are set (its own groups' flags, in its own memory; the
		 * pass's last warp sets them all, so that a pass that gave up
		 * leaves no copy waiting), on its down stream. */
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			TRY_CU(cudaSetDevice(s->dev), "device");
			TRY_LAUNCH(s->nb && wlz_gpu_xxh3(out + pstart, s->d_boff, s->d_blen, s->d_hash, s->nb, s->d_hscr,
							       s->st),
				   "launch");
			/* (the payloads' checksums after the decode, which does
			 * not wait for them: a damaged payload still fails the
			 * member first) */
			TRY_LAUNCH(s->nb && (wlz_gpu_gather(s->d_in, s->d_parr, s->d_parr + s->nb, s->d_parr + 2 * s->nb,
							    s->d_pack, s->nb, s->st) ||
					     wlz_gpu_xxh3(s->d_pack, s->d_parr + s->nb, s->d_parr + 2 * s->nb,
							  s->d_phash, s->nb, s->d_hscr, s->st)),
				   "launch");
			cudaError_t ce = cudaSuccess;
			/* (a wait that cannot be queued: every GPU's content goes
			 * back after the decode, the groups queued already
			 * twice) */
			if (early && send_groups(v, 1, d_gflag[d], dst, out, at_out, pg[p], pg[p + 1], ngroups, size, d,
						 ng, s->down, &ce))
				early = 0;
			TRY_CU(ce, "download");
		}
		launched = 0;
		done = p + 1;
		t1 = seconds(), tt[T_LAUNCH] += t1 - t, t = t1;
	}
	/* Verdicts of the pieces queued: the first block whose payload fails
	 * its checksum, else the first that fails otherwise. */
	for (uint64_t p = 0; p < done; p++)
		for (int d = 0; d < ng; d++) {
			struct share *s = SH(p, d);
			cudaError_t ce = cudaSetDevice(s->dev);
			if (ce == cudaSuccess)
				ce = cudaStreamSynchronize(s->st);
			if (ce == cudaSuccess)
				ce = piece_verdicts(s, m, &pbad, &first_bad, &why);
			if (ce != cudaSuccess && err == WLZ_OK)
				err = wlz_fail(ce == cudaErrorMemoryAllocation ? WLZ_ERR_NOMEM : WLZ_ERR_GPU, "decode: %s",
					       cudaGetErrorString(ce));
		}
	if (err != WLZ_OK)
		goto out;
	if (refused.b != UINT64_MAX) {
		/* (a damaged payload is named first, as it would be had the
		 * checksums come before) */
		const uint64_t b = refused.b;
		const int k = refused.stream;
		checked = 1;
		if ((pbad = payload_check(arc, m)) <= b)
			err = payload_fail(pbad);
		else if (first_bad < b)
			err = verdict_fail(first_bad, why);
		else if (refused.nomem)
			err = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		else if (m->blocks[b].codec[k] == WLZ_CODEC_ZSTD)
			err = wlz_fail(WLZ_ERR_GPU, "block %llu: zstd-coded streams cannot be decoded on a GPU",
				       (unsigned long long)b);
		else
			err = wlz_fail(WLZ_ERR_BAD_STREAM, "block %llu: stream %d: bad codec-2 header",
				       (unsigned long long)b, k);
		goto out;
	}
	if (pbad != UINT64_MAX) {
		err = payload_fail(pbad);
		goto out;
	}
	if (why) {
		err = verdict_fail(first_bad, why);
		goto out;
	}
	t1 = seconds(), tt[T_DECODE] += t1 - t, t = t1;
	/* Each GPU its own groups, over its own link (side by side where dst
	 * is pinned). */
	for (int d = 0; dst && !early && d < ng; d++) {
		cudaError_t ce;
		TRY_CU(cudaSetDevice(dev[d]), "device");
		send_groups(v, 0, NULL, dst, out, at_out, 0, ngroups, ngroups, size, d, ng, SH(0, d)->st, &ce);
		TRY_CU(ce, "download");
	}
	/* (both streams: copies of earlier pieces stay queued on down where
	 * a later wait could not be queued) */
	for (int d = 0; dst && d < ng; d++) {
		TRY_CU(cudaSetDevice(dev[d]), "device");
		TRY_CU(cudaStreamSynchronize(SH(0, d)->down), "download");
		TRY_CU(cudaStreamSynchronize(SH(0, d)->st), "download");
	}
	t1 = seconds(), tt[T_DOWNLOAD] += t1 - t, t = t1;
out:
	if (err != WLZ_OK && launched)
		stop_passes(SH(done, 0), launched);
	for (uint64_t k = 0; sh && k < np * (uint64_t)ng; k++)
		share_free(&sh[k]);
	/* (where memory or the GPU failed, a damaged payload is named
	 * instead, as it would be had the checksums come before anything;
	 * a refused plan has had its check) */
	if ((err == WLZ_ERR_NOMEM || err == WLZ_ERR_GPU) && !checked && (pbad = payload_check(arc, m)) != UINT64_MAX)
		err = payload_fail(pbad);
	spread_free(v, &s_out);
	spread_free(v, &s_tok);
	free(sh);
	free(at_out);
	free(at_tok);
	free(owner);
	if (err == WLZ_OK) {
		tt[T_FREE] += seconds() - t;
		trace(tt, np);
	}
	return err;
#undef SH
}

/* Peer access from GPU d to GPU o, turned on once a process: asking again
 * is an error the driver records (and compute-sanitizer reports).  (So a
 * caller that resets a device, or turns peer access off, between splits is
 * not supported: include/wavelz_gpu.h.) */
static int peer_on(int d, int o)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static uint64_t on[64];
	if (d < 0 || o < 0 || d >= 64 || o >= 64)
		return 0;
	pthread_mutex_lock(&lock);
	int ok = (int)(on[d] >> o & 1);
	if (!ok && cudaSetDevice(d) == cudaSuccess) {
		const cudaError_t e = cudaDeviceEnablePeerAccess(o, 0);
		ok = e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
		if (e == cudaErrorPeerAccessAlreadyEnabled)
			cudaGetLastError();
		if (ok)
			on[d] |= 1ull << o;
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

/* Whether one GPU would resolve the member's sources before its pass
 * (flow.h): the split's pass does not, and such a member decodes faster
 * on one GPU than split (bench/RESULTS.md, issue 16). */
static int resolves(const wlz_member *m)
{
	unsigned most = 0;
	for (uint64_t b = 0; b < m->nblocks; b++)
		most = m->blocks[b].max_level > most ? m->blocks[b].max_level : most;
	return wlz_gpu_flow_resolve_for(most) != 0;
}

wlz_error wlz_gpu_decompress_split(wlz_gdctx *const *g, int ng, void *dst, size_t dst_cap, const void *src,
				   size_t src_size, size_t *out_size)
{
	wlz_detail_clear();
	if (out_size)
		*out_size = 0;
	if (!g || ng < 1 || ng > MAXG || (!src && src_size))
		return wlz_fail(WLZ_ERR_PARAM, "1 to %d GPU contexts and an archive", MAXG);
	if (ng == 1)
		return wlz_gpu_decompress(g[0], dst, dst_cap, src, src_size, out_size);
	int dev[MAXG];
	for (int d = 0; d < ng; d++) {
		if (!g[d])
			return wlz_fail(WLZ_ERR_PARAM, "GPU context %d is NULL", d);
		dev[d] = wlz_gdctx_device(g[d]);
		for (int o = 0; o < d; o++)
			if (dev[o] == dev[d])
				return wlz_fail(WLZ_ERR_PARAM, "GPU %d given twice", dev[d]);
	}
	for (int d = 0; d < ng; d++)
		for (int o = 0; o < ng; o++) {
			int can = 1;
			if (o != d && (cudaDeviceCanAccessPeer(&can, dev[d], dev[o]) != cudaSuccess || !can))
				return wlz_fail(WLZ_ERR_GPU, "GPU %d cannot reach GPU %d's memory", dev[d], dev[o]);
			if (o != d && !peer_on(dev[d], dev[o]))
				return wlz_fail(WLZ_ERR_GPU, "peer access from GPU %d to %d: %s", dev[d], dev[o],
						cudaGetErrorString(cudaGetLastError()));
		}
	struct vmm v;
	if (!vmm_load(&v))
		return wlz_fail(WLZ_ERR_GPU, "the CUDA driver has no virtual memory management");
	const uint8_t *arc = src;
	const uint64_t limit = wlz_gdctx_memory_limit(g[0]);
	uint64_t at = 0, total = 0;
	if (src_size == 0)
		return wlz_fail(WLZ_ERR_TRUNCATED, "empty input");
	while (at < src_size) {
		wlz_member m;
		WLZ_TRY(wlz_member_parse(arc, src_size, at, &m));
		wlz_error e = WLZ_OK;
		if (((uint64_t)1 << m.h.window_log) > limit)
			e = wlz_fail(WLZ_ERR_WINDOW, "a window of 2^%u bytes is over the memory limit", m.h.window_log);
		else if (dst && m.content_size > dst_cap - total)
			e = wlz_fail(WLZ_ERR_DST_TOO_SMALL, "output buffer too small");
		else if (m.nblocks && resolves(&m)) {
			size_t got = 0;
			/* (a kept output of an earlier split would crowd it) */
			wlz_gdctx_set_cache(g[0], NULL, NULL);
			e = wlz_gpu_decompress(g[0], dst ? (uint8_t *)dst + total : NULL, dst ? dst_cap - total : 0,
					       arc + at, (size_t)m.size, &got);
			if (e == WLZ_OK && got != m.content_size)
				e = wlz_fail(WLZ_ERR_INTERNAL, "a member decoded to %llu bytes, its blocks hold %llu",
					     (unsigned long long)got, (unsigned long long)m.content_size);
		} else if (m.nblocks)
			e = member(&v, g, dev, ng, arc, &m, dst ? (uint8_t *)dst + total : NULL);
		total += m.content_size;
		at += m.size;
		wlz_member_free(&m);
		if (e != WLZ_OK)
			return e;
	}
	if (out_size)
		*out_size = (size_t)total;
	return WLZ_OK;
}
