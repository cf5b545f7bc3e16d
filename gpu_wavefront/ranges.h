/*
 * ranges.h - headers.c's rounds of copies on a GPU: many short ranges of
 * device memory packed by one kernel, taken down in one transfer and
 * spread over their host images.
 */
#ifndef WLZ_GPU_RANGES_H
#define WLZ_GPU_RANGES_H

#include "gpu_wavefront/headers.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wlz_gpu_ranges wlz_gpu_ranges;

wlz_gpu_ranges *wlz_gpu_ranges_create(void);
void wlz_gpu_ranges_free(wlz_gpu_ranges *g);

/* The stream (of the current device) the copies run on. */
void wlz_gpu_ranges_stream(wlz_gpu_ranges *g, void *stream);

/* A wlz_gpu_copy_fn: opaque is a wlz_gpu_ranges.  Returns when the n
 * ranges are in their images; nonzero when the GPU or memory failed. */
int wlz_gpu_ranges_copy(void *opaque, const wlz_gpu_hrange *r, size_t n);

#ifdef __cplusplus
}
#endif

#endif
