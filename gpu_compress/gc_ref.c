/*
 * gc_ref.c - the GPU compressor's steps run on the CPU, one unit after
 * another: the bytes the GPU must write, and a way to test its format
 * logic where there is no GPU.  Not fast, and not meant to be.
 */
#include <stdlib.h>
#include <string.h>

#include "common/wlz_internal.h"
#include "gpu_compress/gc_host.h"

typedef struct ref {
	gc_geom g;
	uint16_t *near;
	uint32_t *bdist;
	uint32_t *far, *ntok, *hist;
	gc_tok *tok;
	uint8_t *lev, *map, *raw, *pay;
	gc_cstat *cst;
	gc_blk *blk;
	gc_code *code;
	gc_code_work *work;
} ref;

static void ref_free(ref *r)
{
	free(r->near), free(r->bdist), free(r->far), free(r->ntok), free(r->hist), free(r->tok);
	free(r->lev), free(r->map), free(r->raw), free(r->pay), free(r->cst), free(r->blk), free(r->code), free(r->work);
}

static void ref_near(ref *r, const uint8_t *in)
{
	const gc_geom *g = &r->g;
	const uint32_t S = g->sym, hb = g->near_log;
	uint32_t *tab = malloc(sizeof(uint32_t) << hb);
	uint32_t h[GC_TILE], old[GC_TILE];
	for (uint64_t b = 0; b < g->nblocks; b++)
		for (uint64_t k = 0; k < gc_near_segs(g); k++) {
			const uint64_t bs = b << g->block_log;
			uint64_t ws, ss, se;
			gc_near_seg(g, b, k, &ws, &ss, &se);
			if (ss >= se)
				continue;
			memset(tab, 0, sizeof(uint32_t) << hb);
			for (uint64_t t0 = ws; t0 < se; t0 += (uint64_t)GC_TILE * S) {
				for (unsigned i = 0; i < GC_TILE; i++) {
					const uint64_t p = t0 + (uint64_t)i * S;
					h[i] = UINT32_MAX;
					if (p >= se || p + 4 > g->n)
						continue;
					h[i] = gc_hash_near(in + p, hb);
					const uint32_t v = tab[h[i]];
					if (p >= ss)
						r->near[p] = (uint16_t)(v && p - (bs + v - 1) <= 0xFFFF ? p - (bs + v - 1) : 0);
				}
				/* an entry not yet GC_NEAR_KEEP old (as the lookups saw
				 * it) stays; else the tile's last position of that hash */
				for (unsigned i = 0; i < GC_TILE; i++)
					old[i] = h[i] != UINT32_MAX ? tab[h[i]] : 0;
				for (unsigned i = 0; i < GC_TILE; i++) {
					const uint32_t rel = (uint32_t)(t0 + (uint64_t)i * S - bs) + 1;
					if (h[i] != UINT32_MAX && !(old[i] && rel - old[i] <= GC_NEAR_KEEP) &&
					    tab[h[i]] < rel)
						tab[h[i]] = rel;
				}
			}
		}
	free(tab);
}

static void ref_far(ref *r, const uint8_t *in)
{
	const gc_geom *g = &r->g;
	memset(r->far, 0xFF, sizeof(uint32_t) << (g->far_log + 1));
	for (unsigned t = 0; t < 2; t++)
		for (uint64_t p = 0; p + gc_far_len(t) <= g->n; p += g->sym) {
			const int64_t k = gc_far_key(in + p, g->far_log, t);
			if (k >= 0 && r->far[k] == GC_FAR_EMPTY)
				r->far[k] = (uint32_t)p;
		}
}

static wlz_error ref_member(const wlz_gpu_copts *o, uint8_t *dst, size_t cap, const uint8_t *in, uint64_t n,
			    size_t *out)
{
	ref r;
	memset(&r, 0, sizeof(r));
	wlz_error e = wlz_gc_geom(&r.g, n, o);
	if (e)
		return e;
	const gc_geom *g = &r.g;
	const uint64_t nb = g->nblocks, nc = g->nchunks;
	r.near = calloc(n + 1, sizeof(uint16_t));
	r.bdist = calloc(n + 1, sizeof(uint32_t));
	r.far = malloc(sizeof(uint32_t) << (g->far_log + 1));
	r.ntok = calloc(nc + 1, sizeof(uint32_t));
	r.tok = malloc((nc * g->cap + 1) * sizeof(gc_tok));
	r.lev = malloc(nc * g->cap + 1);
	r.map = malloc(n + 1);
	r.cst = calloc(nc + 1, sizeof(gc_cstat));
	r.blk = calloc(nb + 1, sizeof(gc_blk));
	r.raw = malloc(nb * g->raw_stride + 1);
	r.hist = malloc(WLZ_HUF_NCTX * 256 * sizeof(uint32_t));
	r.work = malloc(sizeof(gc_code_work));
	r.code = malloc(GC_PARTS * sizeof(gc_code));
	r.pay = malloc(wlz_gc_member_bound((uint64_t)1 << g->block_log, g->block_log));
	uint64_t *boff = malloc((nb + 1) * sizeof(uint64_t)), *bhash = malloc((nb + 1) * sizeof(uint64_t));
	uint32_t *segsz = malloc((g->segmax + 1) * sizeof(uint32_t));
	if (!r.near || !r.bdist || !r.far || !r.ntok || !r.tok || !r.lev || !r.map || !r.cst || !r.blk || !r.raw || !r.hist ||
	    !r.code || !r.work || !r.pay || !boff || !bhash || !segsz) {
		e = wlz_fail(WLZ_ERR_NOMEM, "GPU compression reference: out of memory");
		goto done;
	}
	ref_near(&r, in);
	ref_far(&r, in);
	for (uint64_t p = 0; p < n; p += g->sym)
		gc_find_pos(g, in, r.far, p, &r.near[p], &r.bdist[p]);
	for (uint64_t c = 0; c < nc; c++)
		r.ntok[c] = gc_parse_chunk(g, in, r.near, r.bdist, c, r.tok);
	for (uint64_t c = 0; c < nc; c++)
		gc_level_init(g, r.tok, r.ntok, r.lev, r.map, c);
	for (uint64_t c = 0; c < nc; c++)
		gc_level_chunk(g, r.tok, r.ntok, r.lev, r.map, c);
	for (uint64_t c = 0; c < nc; c++)
		gc_chunk_stat(g, r.tok, r.ntok, r.lev, r.map, c, &r.cst[c]);
	for (uint64_t b = 0; b < nb; b++)
		gc_block_scan(g, r.cst, b, &r.blk[b]);
	for (uint64_t c = 0; c < nc; c++)
		gc_chunk_write(g, in, r.tok, r.ntok, r.lev, r.cst, c, r.raw, 1);

	uint8_t mh[32];
	wlz_gc_member_head(g, mh);
	uint64_t at = 32;
	if (cap < at) {
		e = wlz_fail(WLZ_ERR_DST_TOO_SMALL, "GPU compression: destination too small");
		goto done;
	}
	memcpy(dst, mh, 32);
	for (uint64_t b = 0; b < nb; b++) {
		gc_blk *blk = &r.blk[b];
		const uint8_t *raw = r.raw + b * g->raw_stride;
		gc_block_parts(g, blk);
		for (unsigned i = 0; i < GC_PARTS; i++) {
			gc_part *pt = &blk->part[i];
			memset(r.hist, 0, WLZ_HUF_NCTX * 256 * sizeof(uint32_t));
			for (uint32_t j = 0; j < pt->n; j++)
				r.hist[gc_context(raw + pt->src, pt->n, j) * 256 + raw[pt->src + j]]++;
			gc_part_code((const uint32_t(*)[256])r.hist, pt, i == 1, &r.code[i], r.work);
			if (pt->kind != GC_HUF)
				continue;
			const uint32_t G = (pt->n + (1u << GC_SEG_LOG) - 1) >> GC_SEG_LOG;
			uint32_t c = gc_huf_prelude(pt->k, r.code[i].T, G);
			for (uint32_t s = 0; s < G; s++) {
				c += 2 * (GC_LANES - 1);
				for (unsigned l = 0; l < GC_LANES; l++)
					c += gc_lane_bytes(raw + pt->src, pt->n, &r.code[i], s, l);
			}
			pt->c = c;
		}
		gc_block_layout(blk);
		uint8_t *pay = r.pay;
		for (unsigned s = 0; s < 4; s++)
			gc_stream_head_write(blk, s, pay);
		for (unsigned i = 0; i < GC_PARTS; i++) {
			const gc_part *pt = &blk->part[i];
			uint8_t *d = pay + pt->dst;
			if (pt->kind == GC_EMPTY)
				continue;
			if (blk->codec[pt->stream] == 0 || pt->kind == GC_RAW) {
				memcpy(d, raw + pt->src, pt->n);
			} else if (pt->kind == GC_RUN) {
				*d = raw[pt->src];
			} else {
				const uint32_t G = (pt->n + (1u << GC_SEG_LOG) - 1) >> GC_SEG_LOG;
				uint32_t lane[GC_LANES];
				uint8_t *q = d + gc_huf_prelude(pt->k, r.code[i].T, G);
				for (uint32_t sg = 0; sg < G; sg++) {
					uint32_t tot = 2 * (GC_LANES - 1);
					for (unsigned l = 0; l < GC_LANES; l++)
						lane[l] = gc_lane_bytes(raw + pt->src, pt->n, &r.code[i], sg, l), tot += lane[l];
					segsz[sg] = tot;
					for (unsigned l = 0; l + 1 < GC_LANES; l++)
						wlz_wr16(q + 2 * l, (uint16_t)lane[l]);
					uint8_t *w = q + 2 * (GC_LANES - 1);
					for (unsigned l = 0; l < GC_LANES; l++) {
						gc_lane_write(raw + pt->src, pt->n, &r.code[i], sg, l, w);
						w += lane[l];
					}
					q += tot;
				}
				gc_huf_prelude_write(d, &r.code[i], segsz, G);
			}
		}
		blk->content_hash = wlz_xxh3(in + (b << g->block_log), blk->L);
		blk->payload_hash = wlz_xxh3(pay, blk->P);
		uint8_t h[80];
		gc_block_header(blk, h);
		wlz_wr64(h + 72, wlz_xxh3(h, 72));
		if (cap - at < 80 + (uint64_t)blk->P) {
			e = wlz_fail(WLZ_ERR_DST_TOO_SMALL, "GPU compression: destination too small");
			goto done;
		}
		boff[b] = at;
		bhash[b] = blk->content_hash;
		memcpy(dst + at, h, 80);
		memcpy(dst + at + 80, pay, blk->P);
		at += 80 + blk->P;
	}
	if (cap - at < wlz_gc_tail_size(nb)) {
		e = wlz_fail(WLZ_ERR_DST_TOO_SMALL, "GPU compression: destination too small");
		goto done;
	}
	e = wlz_gc_member_tail(g, at, boff, bhash, dst + at);
	at += wlz_gc_tail_size(nb);
	*out = at;
done:
	free(boff), free(bhash), free(segsz);
	ref_free(&r);
	return e;
}

wlz_error wlz_gc_ref_compress(const wlz_gpu_copts *o, void *dst, size_t dst_cap, const void *src, size_t src_size,
			      size_t *dst_size)
{
	if (!o || !dst || !dst_size || (!src && src_size))
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: NULL argument");
	const uint8_t *in = src;
	uint8_t *out = dst;
	size_t at = 0;
	uint64_t left = src_size;
	do {
		const uint64_t m = left < WLZ_GC_PIECE ? left : WLZ_GC_PIECE;
		size_t w = 0;
		const wlz_error e = ref_member(o, out + at, dst_cap - at, in, m, &w);
		if (e)
			return e;
		at += w, in += m, left -= m;
	} while (left);
	*dst_size = at;
	return WLZ_OK;
}
