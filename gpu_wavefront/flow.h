/*
 * flow.h - GPU token execution in one persistent pass (SPEC.md section
 * 6.1): every token runs once, waiting only on the chunks of tokens that
 * wrote the bytes it reads.
 */
#ifndef WLZ_GPU_FLOW_H
#define WLZ_GPU_FLOW_H

#include "gpu_wavefront/parse.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of work area wlz_gpu_flow needs for ntok tokens and size bytes. */
size_t wlz_gpu_flow_work(size_t ntok, uint64_t size);

/* Words of wlz_gpu_flow's d_fail. */
#define WLZ_GPU_FLOW_FAIL 8

/* Writes the content of n blocks into d_out (size bytes): every token's
 * literals and match, from wlz_gpu_parse's tokens (ntok of them) and the
 * decoded streams, and the blocks' tails (max_lit: the largest literal
 * stream among them, rsize[1]).  A block with d_bad[b] nonzero (the
 * parse's flags) is not written, and its tokens are made empty first, so
 * that the others decode (their sources checked by the parse: a block
 * reading one that was not written gets wrong bytes, which its checksum
 * then finds).  d_fail[0] becomes nonzero if the pass gave up, a token
 * having waited far too long (a defect: the lowest pending token can
 * always run); d_fail[1..5] then name it (token, first and last token
 * waited on, that one's state, its waits inside its chunk).  Asynchronous
 * on stream; returns nonzero on a CUDA error. */
int wlz_gpu_flow(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_lit, wlz_gpu_token *d_tok, size_t ntok,
		 const uint8_t *d_streams, uint8_t *d_out, uint64_t size, void *d_work, const uint32_t *d_bad,
		 uint32_t *d_fail, void *stream);

#ifdef __cplusplus
}
#endif

#endif
