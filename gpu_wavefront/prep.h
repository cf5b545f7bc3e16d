/*
 * prep.h - the host's share of a piece: its blocks laid out for the
 * parse, the per-block arrays of the checks, and the plan of its streams
 * (entropy_plan.c).  Pieces are prepared ahead by worker threads while the
 * GPU decodes the ones before: on one thread the host's share took longer
 * than the GPU's.
 */
#ifndef WLZ_GPU_PREP_H
#define WLZ_GPU_PREP_H

#include "common/wlz_internal.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/plan.h"

/* Per-block arrays of a prepared piece, in this order, nb each. */
enum { WLZ_A_PFROM, WLZ_A_PTO, WLZ_A_PLEN, WLZ_A_PWANT, WLZ_A_COFF, WLZ_A_CLEN, WLZ_A_CWANT, WLZ_NARR };

typedef struct wlz_gpu_prep {
	wlz_gpu_pblock *blk;   /* bstart and mfirst in the device's layout (not yet less the slab's base) */
	uint64_t *arr;         /* WLZ_NARR arrays */
	uint32_t *hfl;         /* per block: WLZ_GPU_ENT_BAD where the host found a bad stream header */
	size_t cap;            /* blocks blk and arr hold */
	wlz_gpu_ent_plan plan;
	uint64_t ntok;
	wlz_error err;
	char detail[WLZ_DETAIL_MAX];
} wlz_gpu_prep;

/* Prepares piece k of c into p (its arrays reused).  A block whose stream
 * headers are bad is flagged in hfl, not an error: its streams are left
 * undecoded, and its checks fail on the GPU, as others' do. */
void wlz_gpu_prep_build(const wlz_gpu_call *c, uint64_t k, wlz_gpu_prep *p);
void wlz_gpu_prep_free(wlz_gpu_prep *p);

/* Worker threads preparing a call's pieces in order, a few ahead. */
typedef struct wlz_gpu_preparer wlz_gpu_preparer;

/* NULL when memory or threads run out (then prepare on the caller's). */
wlz_gpu_preparer *wlz_gpu_preparer_start(const wlz_gpu_call *c, unsigned threads);
/* Piece k prepared (waits for it); pieces are taken in order. */
wlz_gpu_prep *wlz_gpu_preparer_get(wlz_gpu_preparer *w, uint64_t k);
/* Piece k's preparation no longer needed: its place is free. */
void wlz_gpu_preparer_done(wlz_gpu_preparer *w, uint64_t k);
void wlz_gpu_preparer_stop(wlz_gpu_preparer *w);

#endif
