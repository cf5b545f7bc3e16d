/*
 * decode.c - the GPU decoder (include/wavelz_gpu.h).  A member at a time,
 * all queued on one stream:
 *   1. every block's payload gathered to an aligned place and hashed, the
 *      digests compared with the block headers' (verify.cu, xxh3.cu);
 *   2. every stream's entropy stage (entropy.cu);
 *   3. every block's tokens (parse.cu);
 *   4. literals and matches (flow.cu);
 *   5. every block's content hashed and compared.
 * The host parses the headers and index (wlz_member_parse, which checks
 * them), lays the blocks out, builds the entropy plan, and at the end
 * reads each member's verdict: a few words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "common/wlz_internal.h"
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/flow.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/verify.h"
#include "gpu_wavefront/xxh3.h"
#include "wavelz_gpu.h"

/* Device buffers, kept and grown from call to call. */
enum {
	B_ARC,   /* the archive (16 readable bytes past its end) */
	B_PACK,  /* payloads at aligned places, for hashing */
	B_ST,    /* decoded streams */
	B_SEG, B_GRP, B_TAB,  /* the entropy plan */
	B_BLK,   /* wlz_gpu_pblock per block */
	B_TOK, B_SCR, B_FLOW,
	B_BLOCKS, /* per block: payload from, to, length, digest; content offset, length, digest */
	B_HASH,  /* per block: payload and content digests computed */
	B_HSCR,  /* XXH3 scratch */
	B_OUT,   /* content decoded host to host */
	B_ASIDE, /* a member's content that cannot start where it goes (unaligned) */
	B_STAT,  /* per member: the verdict words, and the parse's block flags */
	NBUF
};

/* A member's verdict words (B_STAT). */
enum { V_ENT, V_FIRST_PAYLOAD, V_FIRST_CONTENT, V_FLOW, V_WORDS = V_FLOW + WLZ_GPU_FLOW_FAIL };

struct dbuf {
	void *p;
	size_t cap;
};

/* A member queued: where its verdict lies (words of B_STAT: V_WORDS,
 * then the parse's nblocks + 1 flags). */
struct queued {
	uint64_t nblocks, stat_off;
};

struct wlz_gdctx {
	int device;
	cudaStream_t own, stream;
	struct dbuf d[NBUF];
	uint8_t *h_arc;          /* d2d: the archive's host copy */
	size_t h_arc_cap;
	uint32_t *h_stat;        /* pinned: B_STAT copied back */
	size_t h_stat_cap;
	struct queued *q;
	size_t nq, q_cap, stat_words;
	wlz_error queue_err;     /* an error found while queueing */
	int pending;             /* work queued whose verdict wlz_gdctx_wait has not taken */
	uint64_t memory_limit;   /* the largest window accepted */
};

static wlz_error cuda_fail(cudaError_t e, const char *what)
{
	return wlz_fail(WLZ_ERR_GPU, "GPU: %s: %s", what, cudaGetErrorString(e));
}

#define CU(call, what)                                                                                                 \
	do {                                                                                                           \
		cudaError_t ce_ = (call);                                                                              \
		if (ce_ != cudaSuccess)                                                                                \
			return cuda_fail(ce_, what);                                                                   \
	} while (0)

/* Buffer k with room for at least size bytes (its contents not kept). */
static wlz_error grow(wlz_gdctx *g, int k, size_t size)
{
	struct dbuf *b = &g->d[k];
	if (size <= b->cap)
		return WLZ_OK;
	size_t cap = size + size / 4 + 256;
	void *p;
	if (b->p) {
		CU(cudaStreamSynchronize(g->stream), "waiting for the stream");
		cudaFree(b->p);
		b->p = NULL;
		b->cap = 0;
	}
	cudaError_t e = cudaMalloc(&p, cap);
	if (e != cudaSuccess) {
		cudaGetLastError();  /* (not sticky: clear it) */
		return wlz_fail(WLZ_ERR_NOMEM, "GPU: out of memory (%zu MiB more wanted); decode on the CPU",
				cap >> 20);
	}
	b->p = p;
	b->cap = cap;
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
	if (cudaStreamCreateWithFlags(&g->own, cudaStreamNonBlocking) != cudaSuccess) {
		free(g);
		return NULL;
	}
	g->stream = g->own;
	return g;
}

void wlz_gdctx_set_memory_limit(wlz_gdctx *g, uint64_t bytes)
{
	if (g)
		g->memory_limit = bytes ? bytes : WLZ_MEMORY_LIMIT_DEFAULT;
}

void wlz_gdctx_free(wlz_gdctx *g)
{
	if (!g)
		return;
	cudaSetDevice(g->device);
	/* (work still queued on a caller's stream, which may be gone: the
	 * whole device) */
	if (g->pending)
		cudaDeviceSynchronize();
	else
		cudaStreamSynchronize(g->own);
	for (int k = 0; k < NBUF; k++)
		cudaFree(g->d[k].p);
	cudaFreeHost(g->h_stat);
	cudaStreamDestroy(g->own);
	free(g->h_arc);
	free(g->q);
	free(g);
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

wlz_gpu_pblock wlz_gpu_pblock_next(const wlz_block_entry *e, uint64_t bstart, uint64_t *sbytes, uint64_t *ntok,
				   uint64_t *nscr)
{
	wlz_gpu_pblock p;
	memset(&p, 0, sizeof p);
	for (int k = 0; k < WLZ_NSTREAMS; k++) {
		*sbytes = (*sbytes + 15) & ~(uint64_t)15;
		p.s_off[k] = *sbytes;
		p.rsize[k] = e->rsize[k];
		*sbytes += e->rsize[k] + 16;
	}
	p.bstart = bstart;
	p.length = e->length;
	p.ntok = e->token_count;
	p.tok_off = *ntok;
	p.scr_off = *nscr;
	*ntok += e->token_count;
	/* varint starts, 8-byte alignment, then the carries' 8-byte words */
	const uint64_t segs = ((uint64_t)e->token_count + WLZ_GPU_PARSE_TILE - 1) / WLZ_GPU_PARSE_TILE;
	*nscr += e->rsize[WLZ_S_LEN] + 1 + 2 + 2 * (WLZ_GPU_PARSE_BLOCK_WORDS + WLZ_GPU_PARSE_SEG_WORDS * segs);
	return p;
}

/* Per-block arrays of B_BLOCKS, in this order, n each. */
enum { A_PFROM, A_PTO, A_PLEN, A_PWANT, A_COFF, A_CLEN, A_CWANT, NARR };

/* XXH3 of n buffers, 65535 at a time (its limit). */
static int hash_all(const uint8_t *base, const uint64_t *off, const uint64_t *len, uint64_t *hash, uint64_t n,
		    uint64_t *scr, cudaStream_t st)
{
	for (uint64_t at = 0; at < n; at += 65535) {
		const uint64_t k = n - at < 65535 ? n - at : 65535;
		if (wlz_gpu_xxh3(base, off + at, len + at, hash + at, k, scr, st))
			return 1;
	}
	return 0;
}

/* CU inside queue_member: the error, then its cleanup. */
#define QCU(call, what)                                                                                                \
	do {                                                                                                           \
		cudaError_t ce_ = (call);                                                                              \
		if (ce_ != cudaSuccess) {                                                                              \
			err = cuda_fail(ce_, what);                                                                    \
			goto done;                                                                                     \
		}                                                                                                      \
	} while (0)

/* Queues member m of harc (host) decoded from d_arc (its device copy)
 * into out (device memory, size m->content_size). */
static wlz_error queue_member(wlz_gdctx *g, const uint8_t *harc, const wlz_member *m, uint8_t *out)
{
	const uint64_t n = m->nblocks, size = m->content_size;
	cudaStream_t st = g->stream;
	wlz_gpu_pblock *blk = malloc((n ? n : 1) * sizeof *blk);
	uint64_t *arr = malloc((n ? n : 1) * NARR * sizeof *arr);
	wlz_gpu_ent_plan plan;
	memset(&plan, 0, sizeof plan);
	wlz_error err = WLZ_OK;
	if (!blk || !arr) {
		err = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		goto done;
	}
	uint64_t sbytes = 0, ntok = 0, nscr = 0, bstart = 0, pack = 0;
	uint32_t max_lit = 0, max_tok = 0;
	for (uint64_t b = 0; b < n; b++) {
		const wlz_block_entry *e = &m->blocks[b];
		blk[b] = wlz_gpu_pblock_next(e, bstart, &sbytes, &ntok, &nscr);
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			if (e->codec[k] == WLZ_CODEC_ZSTD) {
				err = wlz_fail(WLZ_ERR_GPU, "block %llu: zstd streams cannot be decoded on a GPU",
					       (unsigned long long)b);
				goto done;
			}
			if (!wlz_gpu_ent_add(&plan, harc, in, e->csize[k], e->codec[k], e->rsize[k], blk[b].s_off[k])) {
				/* (as the CPU decoder, a damaged payload is named as
				 * such: it is checked before its streams) */
				if (wlz_xxh3(harc + e->data_offset, wlz_payload_size(e)) != e->payload_checksum)
					err = wlz_fail(WLZ_ERR_CHECKSUM, "block %llu: payload checksum mismatch",
						       (unsigned long long)b);
				else
					err = wlz_fail(WLZ_ERR_BAD_STREAM, "block %llu: stream %d: bad codec-2 header",
						       (unsigned long long)b, k);
				goto done;
			}
			in += e->csize[k];
		}
		max_lit = e->rsize[WLZ_S_LIT] > max_lit ? e->rsize[WLZ_S_LIT] : max_lit;
		max_tok = e->token_count > max_tok ? e->token_count : max_tok;
		arr[A_PFROM * n + b] = e->data_offset;
		arr[A_PTO * n + b] = pack;
		arr[A_PLEN * n + b] = wlz_payload_size(e);
		arr[A_PWANT * n + b] = e->payload_checksum;
		arr[A_COFF * n + b] = bstart;
		arr[A_CLEN * n + b] = e->length;
		arr[A_CWANT * n + b] = e->checksum;
		pack += (wlz_payload_size(e) + 15) & ~(uint64_t)15;
		bstart += e->length;
	}
	if (!wlz_gpu_ent_plan_finish(&plan)) {
		err = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		goto done;
	}
	const size_t scr = wlz_gpu_xxh3_scratch(size > pack ? size : pack);
	if ((err = grow(g, B_PACK, pack + 16)) || (err = grow(g, B_ST, sbytes + 64)) ||
	    (err = grow(g, B_SEG, plan.nseg * sizeof(wlz_gpu_seg) + 1)) ||
	    (err = grow(g, B_GRP, plan.ngrp * sizeof(wlz_gpu_group) + 1)) ||
	    (err = grow(g, B_TAB, plan.ntab * WLZ_GPU_TAB * 2 + 16)) ||
	    (err = grow(g, B_BLK, n * sizeof(wlz_gpu_pblock) + 1)) ||
	    (err = grow(g, B_TOK, (ntok + 1) * sizeof(wlz_gpu_token))) || (err = grow(g, B_SCR, (nscr + 1) * 4)) ||
	    (err = grow(g, B_FLOW, wlz_gpu_flow_work(ntok, size))) || (err = grow(g, B_BLOCKS, n * NARR * 8 + 8)) ||
	    (err = grow(g, B_HASH, 2 * n * 8 + 8)) || (err = grow(g, B_HSCR, scr)))
		goto done;
	/* The verdict words: kept for every member queued, so that the
	 * buffer only grows (and is copied back whole) at the wait. */
	const uint64_t soff = g->stat_words, words = V_WORDS + n + 1;
	if (g->d[B_STAT].cap < (soff + words) * 4) {
		err = wlz_fail(WLZ_ERR_INTERNAL, "GPU: verdict area too small");
		goto done;
	}
	uint32_t *stat = (uint32_t *)g->d[B_STAT].p + soff, *bad = stat + V_WORDS;
	uint8_t *pk = g->d[B_PACK].p, *sb = g->d[B_ST].p;
	uint64_t *a = g->d[B_BLOCKS].p, *hash = g->d[B_HASH].p, *hscr = g->d[B_HSCR].p;
	QCU(cudaMemcpyAsync(g->d[B_SEG].p, plan.seg, plan.nseg * sizeof(wlz_gpu_seg), cudaMemcpyHostToDevice, st),
	   "upload");
	QCU(cudaMemcpyAsync(g->d[B_GRP].p, plan.grp, plan.ngrp * sizeof(wlz_gpu_group), cudaMemcpyHostToDevice, st),
	   "upload");
	QCU(cudaMemcpyAsync(g->d[B_TAB].p, plan.tabs, plan.ntab * WLZ_GPU_TAB * 2, cudaMemcpyHostToDevice, st),
	   "upload");
	QCU(cudaMemcpyAsync(g->d[B_BLK].p, blk, n * sizeof(wlz_gpu_pblock), cudaMemcpyHostToDevice, st), "upload");
	QCU(cudaMemcpyAsync(a, arr, n * NARR * 8, cudaMemcpyHostToDevice, st), "upload");
	QCU(cudaMemsetAsync(stat, 0, words * 4, st), "memset");
	QCU(cudaMemsetAsync(stat + V_FIRST_PAYLOAD, 0xFF, 8, st), "memset");
	QCU(cudaMemsetAsync(sb, 0, 16, st), "memset");  /* (an empty member) */

	/* 1. Payloads. */
	if (wlz_gpu_gather(g->d[B_ARC].p, a + A_PFROM * n, a + A_PTO * n, a + A_PLEN * n, pk, n, st) ||
	    hash_all(pk, a + A_PTO * n, a + A_PLEN * n, hash, n, hscr, st) ||
	    wlz_gpu_compare(hash, a + A_PWANT * n, n, stat + V_FIRST_PAYLOAD, st))
		goto launch;
	/* 2 to 4. */
	if (wlz_gpu_ent_launch(&plan, g->d[B_SEG].p, g->d[B_GRP].p, g->d[B_TAB].p, g->d[B_ARC].p, sb,
			       (int *)(stat + V_ENT), st) ||
	    wlz_gpu_parse(g->d[B_BLK].p, n, max_tok, sb, g->d[B_SCR].p, g->d[B_TOK].p, bad, (uint64_t)1 << m->h.window_log,
			  st) ||
	    wlz_gpu_flow(g->d[B_BLK].p, n, max_lit, g->d[B_TOK].p, ntok, sb, out, size, g->d[B_FLOW].p, bad + n,
			 stat + V_FLOW, st))
		goto launch;
	/* 5. Content. */
	if (hash_all(out, a + A_COFF * n, a + A_CLEN * n, hash + n, n, hscr, st) ||
	    wlz_gpu_compare(hash + n, a + A_CWANT * n, n, stat + V_FIRST_CONTENT, st))
		goto launch;
	g->q[g->nq++] = (struct queued){n, soff};
	g->stat_words += words;
	goto done;
launch:
	err = cuda_fail(cudaGetLastError(), "launch");
done:
	wlz_gpu_ent_plan_free(&plan);
	free(blk);
	free(arr);
	return err;
}

/* An archive's members, as checked: their content, the verdict words
 * they need, their count. */
struct members {
	uint64_t total, words, nm;
};

/* Every member of harc (size bytes) parsed, its headers and index
 * checked and its window held to the limit. */
static wlz_error check_members(const wlz_gdctx *g, const uint8_t *harc, size_t size, struct members *ms)
{
	*ms = (struct members){0, 0, 0};
	if (!size)
		return wlz_fail(WLZ_ERR_TRUNCATED, "empty input");
	for (uint64_t at = 0; at < size; ms->nm++) {
		wlz_member m;
		WLZ_TRY(wlz_member_parse(harc, size, at, &m));
		const uint64_t window = (uint64_t)1 << m.h.window_log;
		if (window > g->memory_limit) {
			wlz_member_free(&m);
			return wlz_fail(WLZ_ERR_WINDOW, "a window of %llu MiB, over the limit of %llu MiB (--memory=)",
					(unsigned long long)(window >> 20), (unsigned long long)(g->memory_limit >> 20));
		}
		ms->total += m.content_size;
		ms->words += V_WORDS + m.nblocks + 1;
		at += m.size;
		wlz_member_free(&m);
	}
	return WLZ_OK;
}

/* The members of harc (host, size bytes, its device copy in B_ARC; ms
 * from check_members) queued to decode into d_dst (device, dst_cap
 * bytes). */
static wlz_error queue_all(wlz_gdctx *g, const uint8_t *harc, size_t size, const struct members *ms,
			   uint8_t *d_dst, size_t dst_cap, size_t *dst_size)
{
	const uint64_t total = ms->total, words = ms->words, nm = ms->nm;
	if (total > dst_cap)
		return wlz_fail(WLZ_ERR_DST_TOO_SMALL, "%llu bytes of content, room for %zu", (unsigned long long)total,
				dst_cap);
	if (nm > g->q_cap) {
		struct queued *q = realloc(g->q, nm * sizeof *q);
		if (!q)
			return wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		g->q = q;
		g->q_cap = nm;
	}
	WLZ_TRY(grow(g, B_STAT, words * 4));
	g->nq = 0;
	g->stat_words = 0;
	uint64_t pos = 0;
	for (uint64_t at = 0; at < size;) {
		wlz_member m;
		WLZ_TRY(wlz_member_parse(harc, size, at, &m));
		/* The block hashes read 8-byte words: a member whose content
		 * would start unaligned is decoded aside, then moved. */
		uint8_t *to = d_dst + pos, *aside = NULL;
		wlz_error e = WLZ_OK;
		if ((uintptr_t)to & 7) {
			e = grow(g, B_ASIDE, m.content_size + 16);
			aside = g->d[B_ASIDE].p;
		}
		if (e == WLZ_OK)
			e = queue_member(g, harc, &m, aside ? aside : to);
		if (e == WLZ_OK && aside &&
		    cudaMemcpyAsync(to, aside, m.content_size, cudaMemcpyDeviceToDevice, g->stream) != cudaSuccess)
			e = cuda_fail(cudaGetLastError(), "copy");
		pos += m.content_size;
		at += m.size;
		wlz_member_free(&m);
		WLZ_TRY(e);
	}
	*dst_size = total;
	if (g->stat_words && g->h_stat_cap < g->stat_words) {
		cudaFreeHost(g->h_stat);
		g->h_stat = NULL;
		g->h_stat_cap = 0;
		if (cudaMallocHost((void **)&g->h_stat, g->stat_words * 4) != cudaSuccess)
			return cuda_fail(cudaGetLastError(), "pinned memory");
		g->h_stat_cap = g->stat_words;
	}
	if (g->stat_words)
		CU(cudaMemcpyAsync(g->h_stat, g->d[B_STAT].p, g->stat_words * 4, cudaMemcpyDeviceToHost, g->stream),
		   "verdict");
	return WLZ_OK;
}

/* Uploads src (host or device) with 16 readable bytes after it. */
static wlz_error upload(wlz_gdctx *g, const void *src, size_t size, enum cudaMemcpyKind kind)
{
	WLZ_TRY(grow(g, B_ARC, size + 16));
	CU(cudaMemsetAsync((uint8_t *)g->d[B_ARC].p + size, 0, 16, g->stream), "memset");
	CU(cudaMemcpyAsync(g->d[B_ARC].p, src, size, kind, g->stream), "upload");
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
	g->stream = stream ? (cudaStream_t)stream : g->own;
	g->nq = 0;
	g->queue_err = WLZ_OK;
	return WLZ_OK;
}

/* The end of queueing: on an error, what was queued is waited for (the
 * caller may free its buffers on an error) and the error kept for
 * wlz_gdctx_wait; else the verdict is pending. */
static wlz_error end_queue(wlz_gdctx *g, wlz_error e)
{
	if (e != WLZ_OK) {
		cudaStreamSynchronize(g->stream);
		g->stream = g->own;
	}
	g->queue_err = e;
	g->pending = e == WLZ_OK;
	return e;
}

wlz_error wlz_gpu_decompress_h2d(wlz_gdctx *g, void *d_dst, size_t dst_cap, const void *src, size_t src_size,
				 size_t *dst_size, void *stream)
{
	WLZ_TRY(begin(g, stream));
	if ((!src && src_size) || !dst_size)
		return end_queue(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"));
	struct members ms;
	wlz_error e = check_members(g, src, src_size, &ms);
	if (e == WLZ_OK)
		e = upload(g, src, src_size, cudaMemcpyHostToDevice);
	if (e == WLZ_OK)
		e = queue_all(g, src, src_size, &ms, d_dst, dst_cap, dst_size);
	return end_queue(g, e);
}

wlz_error wlz_gpu_decompress_d2d(wlz_gdctx *g, void *d_dst, size_t dst_cap, const void *d_src, size_t src_size,
				 size_t *dst_size, void *stream)
{
	WLZ_TRY(begin(g, stream));
	if ((!d_src && src_size) || !dst_size)
		return end_queue(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"));
	/* The headers are read on the host: a copy of the archive there. */
	if (src_size > g->h_arc_cap) {
		free(g->h_arc);
		g->h_arc_cap = 0;
		if (!(g->h_arc = malloc(src_size)))
			return end_queue(g, wlz_fail(WLZ_ERR_NOMEM, "out of memory"));
		g->h_arc_cap = src_size;
	}
	wlz_error e = upload(g, d_src, src_size, cudaMemcpyDeviceToDevice);
	cudaError_t ce;
	if (e == WLZ_OK &&
	    ((ce = cudaMemcpyAsync(g->h_arc, d_src, src_size, cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess ||
	     (ce = cudaStreamSynchronize(g->stream)) != cudaSuccess))
		e = cuda_fail(ce, "copy to the host");
	struct members ms;
	if (e == WLZ_OK)
		e = check_members(g, g->h_arc, src_size, &ms);
	if (e == WLZ_OK)
		e = queue_all(g, g->h_arc, src_size, &ms, d_dst, dst_cap, dst_size);
	return end_queue(g, e);
}

wlz_error wlz_gdctx_wait(wlz_gdctx *g)
{
	if (!g)
		return wlz_fail(WLZ_ERR_PARAM, "no GPU context");
	CU(cudaSetDevice(g->device), "device");
	cudaError_t ce = cudaStreamSynchronize(g->stream);
	g->pending = 0;
	g->stream = g->own;
	if (ce != cudaSuccess)
		return cuda_fail(ce, "decoding");
	if (g->queue_err != WLZ_OK)
		return g->queue_err;
	/* The first failure, member by member, in the order the CPU decoder
	 * checks: payload, streams, tokens, execution, content. */
	for (size_t i = 0; i < g->nq; i++) {
		const struct queued *q = &g->q[i];
		const uint32_t *v = g->h_stat + q->stat_off;
		const char *in = g->nq > 1 ? "member " : "";
		char mem[32] = "";
		if (g->nq > 1)
			snprintf(mem, sizeof mem, "%zu: ", i);
		if (v[V_FIRST_PAYLOAD] != UINT32_MAX)
			return wlz_fail(WLZ_ERR_CHECKSUM, "%s%sblock %u: payload checksum mismatch", in, mem,
					v[V_FIRST_PAYLOAD]);
		if (v[V_ENT])
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s%s%u stream segments fail to decode", in, mem, v[V_ENT]);
		const uint32_t *bad = v + V_WORDS;
		if (bad[q->nblocks]) {
			for (uint64_t b = 0; b < q->nblocks; b++)
				if (bad[b])
					return wlz_fail(WLZ_ERR_BAD_TOKEN, "%s%sblock %llu: a token breaks a rule", in, mem,
							(unsigned long long)b);
			return wlz_fail(WLZ_ERR_BAD_TOKEN, "%s%sa token breaks a rule", in, mem);
		}
		if (v[V_FLOW])
			return wlz_fail(WLZ_ERR_INTERNAL, "%s%sGPU execution stalled at token %u", in, mem, v[V_FLOW + 1]);
		if (v[V_FIRST_CONTENT] != UINT32_MAX)
			return wlz_fail(WLZ_ERR_CHECKSUM, "%s%sblock %u: content checksum mismatch", in, mem,
					v[V_FIRST_CONTENT]);
	}
	return WLZ_OK;
}

wlz_error wlz_gpu_decompress(wlz_gdctx *g, void *dst, size_t dst_cap, const void *src, size_t src_size,
			     size_t *dst_size)
{
	WLZ_TRY(begin(g, NULL));
	if ((!src && src_size) || !dst_size)
		return end_queue(g, wlz_fail(WLZ_ERR_PARAM, "NULL buffer"));
	/* The content in device memory first: its size, from the headers
	 * (checked before anything is allocated). */
	struct members ms;
	wlz_error e = check_members(g, src, src_size, &ms);
	if (e == WLZ_OK && dst && ms.total > dst_cap)
		e = wlz_fail(WLZ_ERR_DST_TOO_SMALL, "%llu bytes of content, room for %zu", (unsigned long long)ms.total,
			     dst_cap);
	if (e == WLZ_OK)
		e = grow(g, B_OUT, ms.total + 16);
	size_t got = 0;
	if (e == WLZ_OK)
		e = upload(g, src, src_size, cudaMemcpyHostToDevice);
	if (e == WLZ_OK)
		e = queue_all(g, src, src_size, &ms, g->d[B_OUT].p, ms.total, &got);
	WLZ_TRY(end_queue(g, e));
	WLZ_TRY(wlz_gdctx_wait(g));
	if (dst) {
		CU(cudaMemcpyAsync(dst, g->d[B_OUT].p, got, cudaMemcpyDeviceToHost, g->stream), "download");
		CU(cudaStreamSynchronize(g->stream), "download");
	}
	*dst_size = got;
	return WLZ_OK;
}
