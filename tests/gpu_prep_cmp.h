/*
 * gpu_prep_cmp.h - whether two preparations of a piece (the GPU decoder's
 * host side, gpu_wavefront/prep.h) are the same, for the tests that
 * prepare one piece two ways.
 */
#ifndef WLZ_TEST_GPU_PREP_CMP_H
#define WLZ_TEST_GPU_PREP_CMP_H

#include <string.h>
#include "gpu_wavefront/prep.h"

/* memcmp's verdict, where an empty array may be NULL (which memcmp may
 * not be given) */
static inline int same_bytes(const void *a, const void *b, size_t n)
{
	return !n || !memcmp(a, b, n);
}

static inline int same_prep(const wlz_gpu_prep *a, const wlz_gpu_prep *b, uint64_t nb)
{
	if (a->err != b->err || a->ntok != b->ntok || a->plan.nseg != b->plan.nseg || a->plan.ntab != b->plan.ntab ||
	    a->plan.ngrp != b->plan.ngrp)
		return 0;
	for (size_t k = 0; k < a->plan.nseg; k++) {
		const wlz_gpu_seg *x = &a->plan.seg[k], *y = &b->plan.seg[k];
		if (x->in_off != y->in_off || x->out_off != y->out_off || x->in_size != y->in_size || x->m != y->m ||
		    x->tab != y->tab || x->ntab != y->ntab || x->blk != y->blk)
			return 0;
	}
	return same_bytes(a->plan.codes, b->plan.codes, a->plan.ntab * 256) &&
	       same_bytes(a->plan.grp, b->plan.grp, a->plan.ngrp * sizeof(wlz_gpu_group)) &&
	       same_bytes(a->blk, b->blk, nb * sizeof(wlz_gpu_pblock)) && same_bytes(a->arr, b->arr, nb * WLZ_NARR * 8) &&
	       same_bytes(a->hfl, b->hfl, nb * 4);
}

#endif
