/*
 * matchfind.c - building the global long-hash chain.
 */
#include <stdlib.h>
#include "encoder/matchfind.h"

static unsigned head_log_for(uint64_t n)
{
	unsigned lg = 16;
	while (lg < 24 && ((uint64_t)1 << lg) < n)
		lg++;
	return lg;
}

uint64_t wlz_lchain_memory(uint64_t n)
{
	return n * sizeof(uint32_t) + ((uint64_t)1 << head_log_for(n)) * sizeof(uint64_t);
}

wlz_error wlz_lchain_build(wlz_lchain *lc, const uint8_t *src, uint64_t n, unsigned len, uint32_t *delta)
{
	lc->src = src;
	lc->n = n;
	lc->len = len;
	lc->delta = delta;
	if (n == 0)
		return WLZ_OK;
	unsigned hlog = head_log_for(n);
	/* Heads hold position + 1 so that zero means empty. */
	uint64_t *head = calloc((size_t)1 << hlog, sizeof(uint64_t));
	if (!head)
		return WLZ_ERR_NOMEM;
	uint64_t last = n >= 16 ? n - 16 : 0;  /* hashing reads 16 bytes */
	const unsigned ahead = 16;
	for (uint64_t p = 0; p < last; p++) {
		if (p + ahead < last)
			__builtin_prefetch(&head[wlz_hash_bytes(src + p + ahead, len, hlog)], 1);
		uint64_t h = wlz_hash_bytes(src + p, len, hlog);
		uint64_t prev = head[h];
		uint64_t d = prev ? p + 1 - prev : 0;
		delta[p] = d > UINT32_MAX ? 0 : (uint32_t)d;
		head[h] = p + 1;
	}
	for (uint64_t p = last; p < n; p++)
		delta[p] = 0;
	free(head);
	return WLZ_OK;
}
