/*
 * entropy.h - GPU decode of stream codec 2 (common/ent.h, common/huf.h):
 * every segment of every stream of an archive in one launch, one warp per
 * segment, thread l decoding the segment's lane l.
 *
 * The host parses the stream and part headers into decode tables and a
 * segment list (wlz_gpu_ent_plan); the kernel reads only device memory.
 */
#ifndef WLZ_GPU_ENTROPY_H
#define WLZ_GPU_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WLZ_GPU_TAB 1024u          /* entries per table (u16 each): 2^WLZ_HUF_MAX_BITS */
#define WLZ_GPU_COPY 0xFFFFFFFFu   /* seg.tab of a raw part: m bytes copied */
#define WLZ_GPU_RUN 0xFFFFFFFEu    /* seg.tab of a run: m copies of byte in_size */

/* One segment: its bytes at in_off (lane sizes, then lanes; in_size of
 * them), m symbols to out_off, decoded with tables [tab, tab + ntab)
 * (ntab 0: a copy or a run, by tab). */
typedef struct wlz_gpu_seg {
	uint64_t in_off, out_off;
	uint32_t in_size, m, tab, ntab;
	uint32_t blk;               /* the block it belongs to (for its flag) */
} wlz_gpu_seg;

/* A thread block of WLZ_GPU_GROUP warps, one segment each: segments
 * [seg, seg + nseg).  ntab > 0: they share tables [tab, tab + ntab),
 * loaded once into the block's shared memory.  ntab == 0: a packed block,
 * each warp with its own segment's tables (at most WLZ_GPU_OWN of them),
 * a copy or a run, so that the many short parts fill whole blocks. */
#define WLZ_GPU_GROUP 8
#define WLZ_GPU_OWN 2
typedef struct wlz_gpu_group {
	uint32_t seg, nseg, tab, ntab;
} wlz_gpu_group;

typedef struct wlz_gpu_ent_plan {
	wlz_gpu_seg *seg;           /* host */
	size_t nseg;
	wlz_gpu_group *grp;         /* host */
	size_t ngrp, grp_cap;
	unsigned max_tab;           /* most tables of a shared group */
	uint8_t *codes;             /* host: ntab tables as wlz_huf_codes gives
				     * them, 256 bytes each */
	size_t ntab;
	size_t out_size;
	uint32_t blk;               /* set before each add: the block of its stream */
	int nomem;                  /* an add failed for want of memory, not for its bytes */
	size_t seg_cap, tab_cap;    /* allocated entries (zero the plan before the first add) */
} wlz_gpu_ent_plan;

/* Adds a stored stream (codec raw or 2; its csize bytes at in on the host
 * and at in_off of the device's stored bytes, rsize decoded bytes to
 * out_off) to the plan; returns 0 on a bad or unsupported stream (zstd),
 * or when memory runs out (then nomem is set). */
int wlz_gpu_ent_add(wlz_gpu_ent_plan *p, const uint8_t *in, uint64_t in_off, size_t csize, int codec,
		    size_t rsize, uint64_t out_off);
/* Frees the plan's arrays and empties it. */
void wlz_gpu_ent_plan_free(wlz_gpu_ent_plan *p);

/* Appends q's streams (a plan of the streams after p's, not finished) to
 * p; returns 0 when memory runs out. */
int wlz_gpu_ent_plan_append(wlz_gpu_ent_plan *p, const wlz_gpu_ent_plan *q);

/* Forms the thread blocks (wlz_gpu_group); call after the last add.
 * Returns 0 when memory runs out. */
int wlz_gpu_ent_plan_finish(wlz_gpu_ent_plan *p);

/* Places finished plan q after the segments, groups and tables that total
 * counts (total holds counts only: its arrays stay NULL): q's table and
 * segment indices move up by total's counts, which grow by q's (and
 * max_tab), so that q's arrays, sent to the device after those before
 * them, form one plan with them without a copy on the host. */
void wlz_gpu_ent_plan_place(wlz_gpu_ent_plan *q, wlz_gpu_ent_plan *total);

/* Builds ntab decode tables (WLZ_GPU_TAB entries each, len | next << 4 |
 * sym << 8) at d_tabs from their codes at d_codes (the plan's codes, 256
 * bytes a table, checked by the host), on stream. */
int wlz_gpu_ent_tables(const uint8_t *d_codes, size_t ntab, uint16_t *d_tabs, void *stream);

/* Launches the decode of every segment on stream (a cudaStream_t), one
 * launch; d_seg, d_grp, d_tabs, d_in, d_out: device copies of the plan's arrays, the
 * stored bytes (16 readable bytes past the last: lanes are read 16 bytes
 * at a time) and the output; d_err (one
 * int, zeroed by the caller) counts segments that break a rule, and
 * d_flags (NULL: none) gets WLZ_GPU_ENT_BAD set for their blocks. */
#define WLZ_GPU_ENT_BAD 2u
int wlz_gpu_ent_launch(const wlz_gpu_ent_plan *p, const wlz_gpu_seg *d_seg, const wlz_gpu_group *d_grp,
		       const uint16_t *d_tabs, const uint8_t *d_in, uint8_t *d_out, int *d_err, uint32_t *d_flags,
		       void *stream);

#ifdef __cplusplus
}
#endif

#endif
