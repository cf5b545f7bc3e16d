/*
 * farfind.c - the sparse long-distance table: sizing, anchors, insertion.
 */
#include <stdlib.h>
#include "encoder/farfind.h"

unsigned wlz_far_log_for(uint64_t window, unsigned rate)
{
	uint64_t want = window / rate;
	unsigned lg = 10;
	/* (at most 2^30 ways: 4 GiB) */
	while (((uint64_t)WLZ_FAR_WAYS << (lg + 1)) <= ((uint64_t)1 << 30) && ((uint64_t)WLZ_FAR_WAYS << lg) < want)
		lg++;
	return lg;
}

uint64_t wlz_far_memory(unsigned log)
{
	return ((uint64_t)WLZ_FAR_WAYS << log) * sizeof(uint32_t);
}

wlz_error wlz_far_init(wlz_far *f, unsigned log, unsigned hash_len, unsigned rate)
{
	memset(f, 0, sizeof(*f));
	f->slot = calloc((size_t)WLZ_FAR_WAYS << log, sizeof(uint32_t));
	if (!f->slot)
		return WLZ_ERR_NOMEM;
	f->log = log;
	f->hash_len = hash_len;
	f->amask = rate - 1;
	return WLZ_OK;
}

void wlz_far_destroy(wlz_far *f)
{
	free(f->slot);
	f->slot = NULL;
}

size_t wlz_far_anchors(const wlz_far *f, const uint8_t *src, uint64_t from, uint64_t to, wlz_anchor *out)
{
	size_t n = 0;
	for (uint64_t p = from; p < to; p++) {
		uint64_t h = wlz_far_hash64(f, src + p);
		if (h & f->amask)
			continue;
		out[n].pos = (uint32_t)(p - from);
		out[n].bucket = wlz_far_bucket_of(f, h);
		n++;
	}
	return n;
}

void wlz_far_insert(wlz_far *f, const wlz_anchor *a, size_t n, uint64_t block_abs, unsigned part,
		    unsigned nparts)
{
	const uint64_t lo = ((uint64_t)part << f->log) / nparts, hi = ((uint64_t)(part + 1) << f->log) / nparts;
	for (size_t i = 0; i < n; i++) {
		/* The table is far larger than the caches: fetch ahead. */
		if (i + 16 < n && a[i + 16].bucket >= lo && a[i + 16].bucket < hi)
			__builtin_prefetch(f->slot + (size_t)a[i + 16].bucket * WLZ_FAR_WAYS, 1);
		if (a[i].bucket < lo || a[i].bucket >= hi)
			continue;
		uint32_t *w = f->slot + (size_t)a[i].bucket * WLZ_FAR_WAYS;
		for (int k = WLZ_FAR_WAYS - 1; k > 0; k--)
			w[k] = w[k - 1];
		w[0] = (uint32_t)(block_abs + a[i].pos + 1);
	}
}
