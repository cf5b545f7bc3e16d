/*
 * xxh3.h - XXH3-64 (seed 0, the default secret) of many buffers in device
 * memory at once: the GPU side of SPEC.md section 7's block checksums.
 */
#ifndef WLZ_GPU_XXH3_H
#define WLZ_GPU_XXH3_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device scratch bytes wlz_gpu_xxh3 needs for buffers ending at most span
 * bytes past d_base (64 bytes a KiB). */
size_t wlz_gpu_xxh3_scratch(uint64_t span);

/* Hashes n buffers of d_base: buffer i is d_len[i] bytes
 * at d_off[i] (8-byte aligned), its digest to d_hash[i]; all in device
 * memory, with d_scratch of wlz_gpu_xxh3_scratch() bytes.  Launched on
 * stream (a cudaStream_t); returns 0 on success. */
int wlz_gpu_xxh3(const uint8_t *d_base, const uint64_t *d_off, const uint64_t *d_len, uint64_t *d_hash, size_t n,
		 uint64_t *d_scratch, void *stream);

#ifdef __cplusplus
}
#endif

#endif
