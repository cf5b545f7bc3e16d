/*
 * gdctx.h - what the GPU decoder's other files read of a context
 * (decode.c owns it).
 */
#ifndef WLZ_GPU_GDCTX_H
#define WLZ_GPU_GDCTX_H

#include <stdint.h>
#include "wavelz_gpu.h"

int wlz_gdctx_device(const wlz_gdctx *g);
uint64_t wlz_gdctx_memory_limit(const wlz_gdctx *g);

#endif
