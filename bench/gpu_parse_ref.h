/*
 * gpu_parse_ref.h - the CPU's tokens of a block, for bench/gpu_parse.cu.
 */
#ifndef WLZ_BENCH_GPU_PARSE_REF_H
#define WLZ_BENCH_GPU_PARSE_REF_H

#include "format/format.h"
#include "gpu_wavefront/parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The block's e->token_count tokens to out; 0 if the CPU refuses it. */
int wlz_bench_ref_tokens(const uint8_t *arc, const wlz_block_entry *e, uint64_t bstart, wlz_gpu_token *out);

#ifdef __cplusplus
}
#endif

#endif
