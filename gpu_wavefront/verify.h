/*
 * verify.h - the GPU decoder's helpers for its checks (SPEC.md section 7).
 */
#ifndef WLZ_GPU_VERIFY_H
#define WLZ_GPU_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies n ranges: d_len[b] bytes from d_src + d_from[b] to d_dst +
 * d_to[b] (d_to[b] 16-byte aligned, room for the length rounded up to 4;
 * d_src readable 8 bytes past every range).  On stream; nonzero on a CUDA
 * error. */
int wlz_gpu_gather(const uint8_t *d_src, const uint64_t *d_from, const uint64_t *d_to, const uint64_t *d_len,
		   uint8_t *d_dst, size_t n, void *stream);

/* *d_first becomes the lowest i < n (below 2^32) with d_got[i] !=
 * d_want[i], where that is lower than it was (the caller sets it to
 * UINT32_MAX first), and bit is set in d_flags[i] of every such i.  On
 * stream; nonzero on a CUDA error. */
int wlz_gpu_compare(const uint64_t *d_got, const uint64_t *d_want, size_t n, uint32_t *d_first, uint32_t *d_flags,
		    uint32_t bit, void *stream);

#ifdef __cplusplus
}
#endif

#endif
