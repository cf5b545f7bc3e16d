/*
 * farfind.c - the sparse long-distance table: sizing and insertion.
 */
#include <stdlib.h>
#include "encoder/farfind.h"

unsigned wlz_far_log_for(uint64_t window, unsigned stride)
{
	uint64_t want = window / stride;
	unsigned lg = 10;
	while (lg < 26 && ((uint64_t)WLZ_FAR_WAYS << lg) < want)
		lg++;
	return lg;
}

uint64_t wlz_far_memory(unsigned log)
{
	return ((uint64_t)WLZ_FAR_WAYS << log) * sizeof(uint32_t);
}

wlz_error wlz_far_init(wlz_far *f, unsigned log, unsigned hash_len, unsigned stride)
{
	memset(f, 0, sizeof(*f));
	f->slot = calloc((size_t)WLZ_FAR_WAYS << log, sizeof(uint32_t));
	if (!f->slot)
		return WLZ_ERR_NOMEM;
	f->log = log;
	f->hash_len = hash_len;
	f->stride = stride;
	return WLZ_OK;
}

void wlz_far_destroy(wlz_far *f)
{
	free(f->slot);
	f->slot = NULL;
}

void wlz_far_insert(wlz_far *f, const uint8_t *src, uint64_t base, uint64_t to, unsigned part,
		    unsigned nparts)
{
	const uint64_t step = f->stride;
	uint64_t q = (f->next + step - 1) & ~(step - 1);
	const uint64_t lo = ((uint64_t)part << f->log) / nparts, hi = ((uint64_t)(part + 1) << f->log) / nparts;
	for (; q < to; q += step) {
		uint64_t h = wlz_far_hash(f, src + (q - base));
		if (h < lo || h >= hi)
			continue;
		uint32_t *w = f->slot + h * WLZ_FAR_WAYS;
		for (int k = WLZ_FAR_WAYS - 1; k > 0; k--)
			w[k] = w[k - 1];
		w[0] = (uint32_t)(q + 1);
	}
}
