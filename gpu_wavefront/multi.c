/*
 * multi.c - a batch spread over several GPUs (include/wavelz_gpu.h): each
 * GPU's share decoded as one batch, on a host thread of its own.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/wlz_internal.h"
#include "wavelz_gpu.h"

struct share {
	wlz_gdctx *g;
	wlz_gpu_item *items;   /* copies of the caller's items */
	size_t *map;           /* their indices in the caller's array */
	size_t n;
	unsigned flags;
	wlz_gpu_item_write_fn wr;
	void *opaque;
};

static int share_write(void *opaque, size_t item, const void *buf, size_t n)
{
	const struct share *s = opaque;
	return s->wr(s->opaque, s->map[item], buf, n);
}

/* An item's place in the split: its stored size, then its index. */
struct by_size {
	size_t size, i;
};

static int by_size_desc(const void *a, const void *b)
{
	const struct by_size *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;  /* (ties in order: the split does not depend on qsort) */
}

static void *share_run(void *arg)
{
	struct share *s = arg;
	wlz_gpu_decompress_batch(s->g, s->items, s->n, s->flags, s->wr ? share_write : NULL, s);
	return NULL;
}

wlz_error wlz_gpu_decompress_batch_multi(wlz_gdctx *const *g, int ng, wlz_gpu_item *items, size_t n, unsigned flags,
					 wlz_gpu_item_write_fn wr, void *opaque)
{
	wlz_detail_clear();
	/* (every item not decoded until it is judged, whatever fails) */
	for (size_t i = 0; items && i < n; i++) {
		items[i].err = WLZ_ERR_GPU;
		items[i].content_size = 0;
		snprintf(items[i].detail, sizeof items[i].detail, "not decoded");
	}
	if (ng < 1 || !g || (!items && n))
		return wlz_fail(WLZ_ERR_PARAM, "no GPU contexts or no items");
	for (int i = 0; i < ng; i++) {
		if (!g[i])
			return wlz_fail(WLZ_ERR_PARAM, "GPU context %d is NULL", i);
		for (int k = 0; k < i; k++)
			if (g[k] == g[i])
				return wlz_fail(WLZ_ERR_PARAM, "GPU context %d given twice", i);
	}
	for (size_t i = 0; i < n; i++)
		if (items[i].gpu >= ng)
			return wlz_fail(WLZ_ERR_PARAM, "item %zu: GPU %d of %d", i, items[i].gpu, ng);
	struct share *sh = calloc((size_t)ng, sizeof *sh);
	pthread_t *th = calloc((size_t)ng, sizeof *th);
	struct by_size *order = malloc((n ? n : 1) * sizeof *order);
	uint64_t *load = calloc((size_t)ng, sizeof *load);
	int *gpu = malloc((n ? n : 1) * sizeof *gpu);
	wlz_error e = WLZ_OK;
	if (!sh || !th || !order || !load || !gpu) {
		e = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* Items given a GPU keep it; the others go, largest first, to the
	 * GPU with the fewest stored bytes so far. */
	for (size_t i = 0; i < n; i++) {
		order[i] = (struct by_size){items[i].src_size, i};
		gpu[i] = items[i].gpu;
		if (gpu[i] >= 0)
			load[gpu[i]] += items[i].src_size;
	}
	qsort(order, n, sizeof *order, by_size_desc);
	for (size_t i = 0; i < n; i++) {
		const size_t k = order[i].i;
		if (gpu[k] >= 0)
			continue;
		int best = 0;
		for (int d = 1; d < ng; d++)
			best = load[d] < load[best] ? d : best;
		gpu[k] = best;
		load[best] += items[k].src_size;
	}
	for (int d = 0; d < ng; d++) {
		sh[d] = (struct share){g[d], NULL, NULL, 0, flags, wr, opaque};
		size_t cnt = 0;
		for (size_t i = 0; i < n; i++)
			cnt += gpu[i] == d;
		sh[d].items = malloc((cnt ? cnt : 1) * sizeof *sh[d].items);
		sh[d].map = malloc((cnt ? cnt : 1) * sizeof *sh[d].map);
		if (!sh[d].items || !sh[d].map) {
			e = wlz_fail(WLZ_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (gpu[i] == d) {
				sh[d].map[sh[d].n] = i;
				sh[d].items[sh[d].n++] = items[i];
			}
	}
	int started = 0;
	for (; started < ng; started++)
		if (pthread_create(&th[started], NULL, share_run, &sh[started]))
			break;
	for (int d = started; d < ng; d++)
		share_run(&sh[d]);
	for (int d = 0; d < started; d++)
		pthread_join(th[d], NULL);
	for (int d = 0; d < ng; d++)
		for (size_t j = 0; j < sh[d].n; j++) {
			wlz_gpu_item *it = &items[sh[d].map[j]];
			it->content_size = sh[d].items[j].content_size;
			it->err = sh[d].items[j].err;
			memcpy(it->detail, sh[d].items[j].detail, sizeof it->detail);
			it->gpu = d;
		}
	for (size_t i = 0; i < n && e == WLZ_OK; i++)
		if (items[i].err != WLZ_OK)
			e = wlz_fail(items[i].err, "archive %zu: %s", i, items[i].detail);
out:
	for (int d = 0; sh && d < ng; d++) {
		free(sh[d].items);
		free(sh[d].map);
	}
	free(sh);
	free(th);
	free(order);
	free(load);
	free(gpu);
	return e;
}
