/*
 * entropy.h - GPU decode of the interleaved stream coders (common/rans32.h,
 * common/huf32.h): every segment of every stream of an archive in one
 * launch, one warp per segment, its 32 lanes the coder's 32 lanes.
 *
 * The host parses the stream headers into decode tables and a segment list
 * (wlz_gpu_ent_plan); the kernels read only device memory.
 */
#ifndef WLZ_GPU_ENTROPY_H
#define WLZ_GPU_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { WLZ_GPU_RANS = 0, WLZ_GPU_HUF = 1 };

/* One segment: coded bytes at in_off (in_size of them), m symbols to
 * out_off, decoded with table tab; run segments (tab = ~0u) are m copies
 * of the byte in_size. */
typedef struct wlz_gpu_seg {
	uint64_t in_off, out_off;
	uint32_t in_size, m, tab, pad;
} wlz_gpu_seg;

typedef struct wlz_gpu_ent_plan {
	int coder;
	wlz_gpu_seg *seg;       /* host */
	size_t nseg;
	void *tabs;             /* host: ntab tables of 4096 u32 (rans) or 2048 u16 (huf) */
	size_t ntab;
	size_t out_size;
	size_t seg_cap, tab_cap;    /* allocated entries (zero the plan before the first add) */
} wlz_gpu_ent_plan;

/* Adds a coded stream (its bytes at in_off of the coded buffer, n symbols
 * to out_off) to the plan; returns 0 on a bad stream. */
int wlz_gpu_ent_add(wlz_gpu_ent_plan *p, const uint8_t *coded, uint64_t in_off, size_t csize, size_t n,
		    uint64_t out_off);
void wlz_gpu_ent_plan_free(wlz_gpu_ent_plan *p);

/* Launches the decode of every segment on stream (a cudaStream_t);
 * d_seg, d_tabs, d_in, d_out: device copies of the plan's arrays, the
 * coded bytes and the output; d_err (one int, zeroed by the caller) counts
 * segments that break a rule. */
int wlz_gpu_ent_launch(int coder, const wlz_gpu_seg *d_seg, size_t nseg, const void *d_tabs,
		       const uint8_t *d_in, uint8_t *d_out, int *d_err, void *stream);

#ifdef __cplusplus
}
#endif

#endif
