/*
 * gc_host.h - the GPU compressor's host side, shared by the CUDA
 * orchestration and the CPU reference: geometry from the options, and the
 * member's header, index and footer (SPEC.md sections 2 and 4).
 */
#ifndef WLZ_GC_HOST_H
#define WLZ_GC_HOST_H

#include "include/wavelz.h"
#include "include/wavelz_gpu.h"
#include "gpu_compress/gc_core.h"

/* Largest member the compressor writes: its window (2 GiB, the decoders'
 * default memory limit) and 32-bit positions in the far table. */
#define WLZ_GC_PIECE ((uint64_t)1 << 31)

/* Geometry of a member of n bytes (n <= WLZ_GC_PIECE). */
wlz_error wlz_gc_geom(gc_geom *g, uint64_t n, const wlz_gpu_copts *o);
unsigned wlz_gc_window_log(const gc_geom *g);

/* The 32-byte member header. */
void wlz_gc_member_head(const gc_geom *g, uint8_t h[32]);

/* Index and footer bytes of a member of nblocks blocks. */
static inline uint64_t wlz_gc_tail_size(uint64_t nblocks) { return 40 + 16 * nblocks + 24; }

/* Writes the index and footer to dst: blocks at blk_off[] (from the
 * member's start) with content checksums hash[], the index at index_off. */
wlz_error wlz_gc_member_tail(const gc_geom *g, uint64_t index_off, const uint64_t *blk_off, const uint64_t *hash,
			     uint8_t *dst);

/* The CPU reference: the same steps one after another, the same bytes as
 * the GPU; for tests.  Inputs over WLZ_GC_PIECE become several members. */
wlz_error wlz_gc_ref_compress(const wlz_gpu_copts *o, void *dst, size_t dst_cap, const void *src, size_t src_size,
			      size_t *dst_size);

/* Bound of one member's bytes for n bytes of input (as
 * wlz_gpu_compress_bound for a single piece). */
uint64_t wlz_gc_member_bound(uint64_t n, unsigned block_log);

#endif
