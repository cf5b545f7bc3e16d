/*
 * entropy_plan.c - host side of the GPU stream decode: stream headers to
 * decode tables and segment lists (the layouts are in common/rans32.h and
 * common/huf32.h).
 */
#include <stdlib.h>
#include "common/huf32.h"
#include "common/rans32.h"
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

int wlz_gpu_ent_add(wlz_gpu_ent_plan *p, const uint8_t *coded, uint64_t in_off, size_t csize, size_t n,
		    uint64_t out_off)
{
	const uint8_t *src = coded + in_off;
	if (n == 0)
		return 1;
	if (csize == 2 && src[0] == WLZ_ENT_RUN) {
		if (!grow((void **)&p->seg, &p->seg_cap, p->nseg + 1, sizeof(wlz_gpu_seg)))
			return 0;
		p->seg[p->nseg++] = (wlz_gpu_seg){in_off, out_off, src[1], (uint32_t)n, ~0u, 0};
		return 1;
	}
	const size_t tsz = p->coder == WLZ_GPU_RANS ? 4096 * 4 : 2048 * 2;
	if (!grow(&p->tabs, &p->tab_cap, p->ntab + 1, tsz))
		return 0;
	unsigned seg_log;
	size_t at;
	wlz_error e = p->coder == WLZ_GPU_RANS
			      ? wlz_rans32_table(src, csize, (uint32_t *)p->tabs + 4096 * p->ntab, &seg_log, &at)
			      : wlz_huf32_table(src, csize, (uint16_t *)p->tabs + 2048 * p->ntab, &seg_log, &at);
	if (e != WLZ_OK)
		return 0;
	const size_t nseg = wlz_ent_nseg(n, seg_log), seg = (size_t)1 << seg_log;
	if ((csize - at) / 4 < nseg || !grow((void **)&p->seg, &p->seg_cap, p->nseg + nseg, sizeof(wlz_gpu_seg)))
		return 0;
	size_t pos = at + 4 * nseg;
	for (size_t g = 0; g < nseg; g++) {
		const uint32_t sz = wlz_rd32(src + at + 4 * g);
		if (sz > csize - pos)
			return 0;
		const size_t m = g + 1 < nseg ? seg : n - g * seg;
		p->seg[p->nseg++] = (wlz_gpu_seg){in_off + pos, out_off + g * seg, sz, (uint32_t)m,
						  (uint32_t)p->ntab, 0};
		pos += sz;
	}
	p->ntab++;
	p->out_size = out_off + n > p->out_size ? out_off + n : p->out_size;
	return pos == csize;
}

void wlz_gpu_ent_plan_free(wlz_gpu_ent_plan *p)
{
	free(p->seg);
	free(p->tabs);
	p->seg = NULL;
	p->tabs = NULL;
	p->seg_cap = p->tab_cap = 0;
}
