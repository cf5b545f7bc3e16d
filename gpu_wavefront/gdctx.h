/*
 * gdctx.h - what the GPU decoder's other files read of a context
 * (decode.c owns it).
 */
#ifndef WLZ_GPU_GDCTX_H
#define WLZ_GPU_GDCTX_H

#include <stdint.h>
#include "gpu_wavefront/plan.h"
#include "wavelz_gpu.h"

int wlz_gdctx_device(const wlz_gdctx *g);
uint64_t wlz_gdctx_memory_limit(const wlz_gdctx *g);
/* The split's pieces of a member at most. */
#define WLZ_GDCTX_PIECES WLZ_GPU_SPLIT_PIECES
/* Device memory of at least size bytes on g's GPU, kept by g from call to
 * call for the split (split.c), so that a call does not allocate and free
 * its buffers again; its contents are not kept.  Slots 0 to
 * WLZ_GDCTX_PIECES: 0 for the member's stored bytes (which go up before
 * the other buffers' sizes are known), one more for each piece.  NULL: out
 * of memory.  A slot that grows waits for the GPU's work (cudaFree), and
 * the caller's work on a slot must be done before the slot is asked for
 * again. */
uint8_t *wlz_gdctx_scratch(wlz_gdctx *g, int slot, size_t size);
/* Four streams of g's GPU (st[1] at its highest priority) and
 * WLZ_GDCTX_EVENTS events, made on the first call and kept by g, for the
 * split: 0 on success. */
#define WLZ_GDCTX_STREAMS 4
#define WLZ_GDCTX_EVENTS (2 + 2 * WLZ_GDCTX_PIECES)
int wlz_gdctx_split_streams(wlz_gdctx *g, void **st, void **ev);
/* An object the split keeps in g from call to call (NULL: none), freed by
 * its cache_free when replaced or when g is freed. */
void *wlz_gdctx_cache(wlz_gdctx *g);
void wlz_gdctx_set_cache(wlz_gdctx *g, void *cache, void (*cache_free)(void *));

/* Whether p is pinned (or registered) host memory: transfers go straight
 * to it, where a copy to pageable memory waits for its work. */
int wlz_gpu_pinned(const void *p);

#endif
