/*
 * entropy_plan.c - host side of the GPU stream decode: stream and part
 * headers to decode tables and a segment list.
 */
#include <stdlib.h>
#include "common/ent.h"
#include "format/format.h"
#include "gpu_wavefront/entropy.h"

static int grow(void **p, size_t *cap, size_t need, size_t unit)
{
	if (need <= *cap)
		return 1;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * unit);
	if (!q)
		return 0;
	*p = q;
	*cap = c;
	return 1;
}

/* Appends a segment; tables [tab, tab + ntab) (ntab 0: a copy or run). */
static int add_seg(wlz_gpu_ent_plan *p, wlz_gpu_seg s, unsigned ntab)
{
	if (!grow((void **)&p->seg, &p->seg_cap, p->nseg + 1, sizeof(wlz_gpu_seg)))
		return 0;
	wlz_gpu_group *g = p->ngrp ? &p->grp[p->ngrp - 1] : NULL;
	if (g && g->ntab == ntab && (ntab == 0 || g->tab == s.tab) && g->nseg < WLZ_GPU_GROUP) {
		g->nseg++;
	} else {
		if (!grow((void **)&p->grp, &p->grp_cap, p->ngrp + 1, sizeof(wlz_gpu_group)))
			return 0;
		p->grp[p->ngrp++] = (wlz_gpu_group){(uint32_t)p->nseg, 1, ntab ? s.tab : 0, ntab};
		p->max_tab = ntab > p->max_tab ? ntab : p->max_tab;
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
		if (!add_seg(p, (wlz_gpu_seg){kind == WLZ_GPU_COPY ? in_off + at : in_off, out_off + at, byte, m, kind, 0},
			     0))
			return 0;
	}
	return 1;
}

static int add_huf(wlz_gpu_ent_plan *p, const uint8_t *base, uint64_t in_off, size_t csize, size_t n,
		   uint64_t out_off)
{
	static _Thread_local wlz_huf_tables t;
	if (wlz_huf_read_tables(base + in_off, csize, &t) != WLZ_OK)
		return 0;
	if (!grow((void **)&p->tabs, &p->tab_cap, p->ntab + t.ntables, WLZ_GPU_TAB * sizeof(uint16_t)))
		return 0;
	memcpy(p->tabs + p->ntab * WLZ_GPU_TAB, t.tab, t.ntables * WLZ_GPU_TAB * sizeof(uint16_t));
	const size_t seg = (size_t)1 << t.seg_log, nseg = (n + seg - 1) >> t.seg_log;
	const uint8_t *src = base + in_off;
	if ((csize - t.hdr) / 4 < nseg)
		return 0;
	size_t pos = t.hdr + 4 * nseg;
	for (size_t g = 0; g < nseg; g++) {
		const uint32_t sz = wlz_rd32(src + t.hdr + 4 * g);
		if (sz > csize - pos)
			return 0;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		if (!add_seg(p, (wlz_gpu_seg){in_off + pos, out_off + g * seg, sz, (uint32_t)m, (uint32_t)p->ntab, 0},
			     t.ntables))
			return 0;
		pos += sz;
	}
	p->ntab += t.ntables;
	return pos == csize;
}

int wlz_gpu_ent_add(wlz_gpu_ent_plan *p, const uint8_t *base, uint64_t in_off, size_t csize, int codec,
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
	if (wlz_ent_parts(base + in_off, csize, rsize, pt, &np) != WLZ_OK)
		return 0;
	for (unsigned i = 0; i < np; i++) {
		const uint64_t at = in_off + pt[i].at;
		int ok;
		if (pt[i].kind == WLZ_PART_RAW)
			ok = add_plain(p, at, out_off, pt[i].n, WLZ_GPU_COPY, 0);
		else if (pt[i].kind == WLZ_PART_RUN)
			ok = add_plain(p, at, out_off, pt[i].n, WLZ_GPU_RUN, base[at]);
		else
			ok = add_huf(p, base, at, pt[i].c, pt[i].n, out_off);
		if (!ok)
			return 0;
		out_off += pt[i].n;
	}
	return 1;
}

int wlz_gpu_ent_plan_finish(wlz_gpu_ent_plan *p)
{
	wlz_gpu_group *g = malloc((p->ngrp ? p->ngrp : 1) * sizeof(*g));
	if (!g)
		return 0;
	size_t k = 0;
	p->max_tab = 0;
	for (int big = 0; big < 2; big++) {
		if (big)
			p->nsmall = k;
		for (size_t i = 0; i < p->ngrp; i++)
			if ((p->grp[i].ntab > WLZ_GPU_SMALL) == big) {
				g[k++] = p->grp[i];
				p->max_tab = p->grp[i].ntab > p->max_tab ? p->grp[i].ntab : p->max_tab;
			}
	}
	free(p->grp);
	p->grp = g;
	p->grp_cap = p->ngrp ? p->ngrp : 1;
	return 1;
}

void wlz_gpu_ent_plan_free(wlz_gpu_ent_plan *p)
{
	free(p->seg);
	free(p->tabs);
	free(p->grp);
	p->seg = NULL;
	p->tabs = NULL;
	p->grp = NULL;
	p->seg_cap = p->tab_cap = p->grp_cap = 0;
}
