/*
 * exec.h - GPU token execution by dependency level (SPEC.md section 6.1):
 * literals first, then waves of matches, each wave the matches whose
 * source bytes are all final.
 */
#ifndef WLZ_GPU_EXEC_H
#define WLZ_GPU_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "gpu_wavefront/parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes a member's content into d_out (size bytes) from its parsed
 * tokens (ntok of them, wlz_gpu_parse's) and decoded streams: n blocks
 * as given to the parse.  d_map: one byte per content byte (its level +
 * 1, 0 for a literal); d_work: wlz_gpu_exec_work(ntok) bytes.  Runs
 * waves until every match is copied, at most max_waves: a CUDA graph
 * of 8 waves replayed, the host reading the counts after each replay;
 * *waves receives how many waves copied something.  Synchronous on
 * stream.  Returns 0 on success, 1 on
 * a CUDA error, 2 when a wave copies nothing while matches remain or
 * max_waves is reached (a bad archive). */
size_t wlz_gpu_exec_work(size_t ntok);
int wlz_gpu_exec(const wlz_gpu_pblock *d_blk, size_t n, const wlz_gpu_token *d_tok, size_t ntok,
		 const uint8_t *d_streams, uint8_t *d_out, uint64_t size, uint8_t *d_map, uint32_t *d_work,
		 unsigned max_waves, unsigned *waves, void *stream);

/* Writes every block's tail literals (those after its last token) into
 * d_out; asynchronous on stream.  Returns nonzero on a CUDA error. */
int wlz_gpu_tails(const wlz_gpu_pblock *d_blk, size_t n, const wlz_gpu_token *d_tok, const uint8_t *d_streams,
		  uint8_t *d_out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
