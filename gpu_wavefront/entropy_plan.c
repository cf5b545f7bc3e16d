/*
 * entropy_plan.c - host side of the GPU stream decode: stream and part
 * headers to decode tables and a segment list.
 */
#include <stdlib.h>
#include <string.h>
#include "common/ent.h"
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/plan.h"

/* Appends a segment; tables [tab, tab + ntab) (ntab 0: a copy or run). */
static int add_seg(wlz_gpu_ent_plan *p, wlz_gpu_seg s)
{
	if (!wlz_gpu_grow((void **)&p->seg, &p->seg_cap, p->nseg + 1, sizeof(wlz_gpu_seg))) {
		p->nomem = 1;
		return 0;
	}
	p->seg[p->nseg++] = s;
	return 1;
}

/* Copies and runs in pieces, one warp each: a warp copying a whole raw
 * part waits on its loads one after another. */
#define PIECE 4096u

static int add_plain(wlz_gpu_ent_plan *p, uint64_t in_off, uint64_t out_off, size_t n, uint32_t kind,
		     uint32_t byte)
{
	for (size_t at = 0; at < n; at += PIECE) {
		const uint32_t m = (uint32_t)(n - at < PIECE ? n - at : PIECE);
		if (!add_seg(p, (wlz_gpu_seg){kind == WLZ_GPU_COPY ? in_off + at : in_off, out_off + at, byte, m, kind, 0,
					       p->blk}))
			return 0;
	}
	return 1;
}

/* A Huffman part: its csize bytes at src (host), at in_off on the device.
 * Its tables go as their code lengths (a byte a symbol), built on the GPU
 * (wlz_gpu_ent_tables): building them here took longer than the whole
 * decode on the GPU. */
static int add_huf(wlz_gpu_ent_plan *p, const uint8_t *src, uint64_t in_off, size_t csize, size_t n,
		   uint64_t out_off)
{
	static _Thread_local wlz_huf_codes t;
	if (wlz_huf_read_codes(src, csize, &t) != WLZ_OK)
		return 0;
	if (!wlz_gpu_grow((void **)&p->codes, &p->tab_cap, p->ntab + t.ntables, 256)) {
		p->nomem = 1;
		return 0;
	}
	memcpy(p->codes + p->ntab * 256, t.code, (size_t)t.ntables * 256);
	const size_t seg = (size_t)1 << t.seg_log, nseg = (n + seg - 1) >> t.seg_log;
	if ((csize - t.hdr) / 4 < nseg)
		return 0;
	size_t pos = t.hdr + 4 * nseg;
	for (size_t g = 0; g < nseg; g++) {
		const uint32_t sz = wlz_rd32(src + t.hdr + 4 * g);
		if (sz > csize - pos)
			return 0;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		if (!add_seg(p, (wlz_gpu_seg){in_off + pos, out_off + g * seg, sz, (uint32_t)m, (uint32_t)p->ntab,
					       t.ntables, p->blk}))
			return 0;
		pos += sz;
	}
	p->ntab += t.ntables;
	return pos == csize;
}

int wlz_gpu_ent_add(wlz_gpu_ent_plan *p, const uint8_t *in, uint64_t in_off, size_t csize, int codec,
		    size_t rsize, uint64_t out_off)
{
	if (rsize == 0)
		return 1;
	p->out_size = out_off + rsize > p->out_size ? out_off + rsize : p->out_size;
	if (codec == WLZ_CODEC_RAW)
		return add_plain(p, in_off, out_off, rsize, WLZ_GPU_COPY, 0);
	if (codec != WLZ_CODEC_HUF)
		return 0;
	wlz_ent_part pt[WLZ_ENT_MAX_PARTS];
	unsigned np;
	if (wlz_ent_parts(in, csize, rsize, pt, &np) != WLZ_OK)
		return 0;
	for (unsigned i = 0; i < np; i++) {
		const uint64_t at = in_off + pt[i].at;
		int ok;
		if (pt[i].kind == WLZ_PART_RAW)
			ok = add_plain(p, at, out_off, pt[i].n, WLZ_GPU_COPY, 0);
		else if (pt[i].kind == WLZ_PART_RUN)
			ok = add_plain(p, at, out_off, pt[i].n, WLZ_GPU_RUN, in[pt[i].at]);
		else
			ok = add_huf(p, in + pt[i].at, at, pt[i].c, pt[i].n, out_off);
		if (!ok)
			return 0;
		out_off += pt[i].n;
	}
	return 1;
}

static int add_grp(wlz_gpu_ent_plan *p, wlz_gpu_group g)
{
	if (!wlz_gpu_grow((void **)&p->grp, &p->grp_cap, p->ngrp + 1, sizeof(wlz_gpu_group)))
		return 0;
	p->grp[p->ngrp++] = g;
	return 1;
}

/* Segments of many tables in shared groups of consecutive segments of one
 * part; the rest packed eight to a block in their order.  The segment list
 * is reordered so that each block's segments are contiguous. */
int wlz_gpu_ent_plan_append(wlz_gpu_ent_plan *p, const wlz_gpu_ent_plan *q)
{
	if (!wlz_gpu_grow((void **)&p->seg, &p->seg_cap, p->nseg + q->nseg, sizeof(wlz_gpu_seg)) ||
	    !wlz_gpu_grow((void **)&p->codes, &p->tab_cap, p->ntab + q->ntab, 256))
		return 0;
	for (size_t i = 0; i < q->nseg; i++) {
		wlz_gpu_seg g = q->seg[i];
		if (g.ntab)
			g.tab += (uint32_t)p->ntab;
		p->seg[p->nseg++] = g;
	}
	if (q->ntab)
		memcpy(p->codes + p->ntab * 256, q->codes, q->ntab * 256);
	p->ntab += q->ntab;
	p->out_size = q->out_size > p->out_size ? q->out_size : p->out_size;
	return 1;
}

int wlz_gpu_ent_plan_finish(wlz_gpu_ent_plan *p)
{
	wlz_gpu_seg *s = malloc((p->nseg ? p->nseg : 1) * sizeof(*s));
	if (!s)
		return 0;
	size_t k = 0;
	p->ngrp = 0;
	p->max_tab = 0;
	for (size_t i = 0; i < p->nseg; i++) {
		const wlz_gpu_seg *g = &p->seg[i];
		if (g->ntab <= WLZ_GPU_OWN)
			continue;
		wlz_gpu_group *last = p->ngrp ? &p->grp[p->ngrp - 1] : NULL;
		if (last && last->tab == g->tab && last->nseg < WLZ_GPU_GROUP) {
			last->nseg++;
		} else if (!add_grp(p, (wlz_gpu_group){(uint32_t)k, 1, g->tab, g->ntab})) {
			free(s);
			return 0;
		}
		p->max_tab = g->ntab > p->max_tab ? g->ntab : p->max_tab;
		s[k++] = *g;
	}
	for (size_t i = 0; i < p->nseg; i++) {
		const wlz_gpu_seg *g = &p->seg[i];
		if (g->ntab > WLZ_GPU_OWN)
			continue;
		wlz_gpu_group *last = p->ngrp ? &p->grp[p->ngrp - 1] : NULL;
		if (last && last->ntab == 0 && last->nseg < WLZ_GPU_GROUP) {
			last->nseg++;
		} else if (!add_grp(p, (wlz_gpu_group){(uint32_t)k, 1, 0, 0})) {
			free(s);
			return 0;
		}
		s[k++] = *g;
	}
	free(p->seg);
	p->seg = s;
	p->seg_cap = p->nseg ? p->nseg : 1;
	return 1;
}

void wlz_gpu_ent_plan_place(wlz_gpu_ent_plan *q, wlz_gpu_ent_plan *total)
{
	for (size_t i = 0; i < q->nseg; i++)
		if (q->seg[i].ntab)
			q->seg[i].tab += (uint32_t)total->ntab;
	for (size_t i = 0; i < q->ngrp; i++) {
		q->grp[i].seg += (uint32_t)total->nseg;
		if (q->grp[i].ntab)
			q->grp[i].tab += (uint32_t)total->ntab;
	}
	total->nseg += q->nseg, total->ngrp += q->ngrp, total->ntab += q->ntab;
	total->max_tab = q->max_tab > total->max_tab ? q->max_tab : total->max_tab;
	total->out_size = q->out_size > total->out_size ? q->out_size : total->out_size;
}

void wlz_gpu_ent_plan_free(wlz_gpu_ent_plan *p)
{
	free(p->seg);
	free(p->codes);
	free(p->grp);
	memset(p, 0, sizeof *p); /* (empty, ready for the next adds) */
}
