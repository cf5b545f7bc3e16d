/*
 * block_encode.h - writing one block's tokens as its five coded streams.
 */
#ifndef WLZ_BLOCK_ENCODE_H
#define WLZ_BLOCK_ENCODE_H

#include "encoder/parse.h"
#include "format/format.h"

typedef struct wlz_benc wlz_benc;

/* How a block's streams are coded. */
typedef struct wlz_bparams {
	int streams;            /* WLZ_STREAMS_*: the codecs allowed */
	int zlevel;             /* zstd level, where zstd is allowed */
	unsigned max_tables;    /* codec 2's tables per part (1..16) */
	unsigned seg_log;       /* codec 2's segments: 2^seg_log symbols */
	unsigned huf_iters;     /* codec 2's clustering: k-means passes at most */
} wlz_bparams;

wlz_benc *wlz_benc_create(uint32_t block_size);
void wlz_benc_free(wlz_benc *be);
/* Gives the coder's scratch buffers' pages back to the kernel, its work
 * done (no coding reads them before writing them). */
void wlz_benc_release(wlz_benc *be);

/* Codes src[bstart..bend) from its tokens.  On success *out points to the
 * payload (owned by be, valid until the next call) and e describes it,
 * data_offset left for the caller.  A block whose streams would outgrow its
 * raw bytes is stored as literals alone.  The caller fills in the levels
 * (max_level, chained), which depend on other blocks (levels.h). */
wlz_error wlz_benc_encode(wlz_benc *be, const uint8_t *src, uint64_t bstart, uint64_t bend,
			  const wlz_token *tok, size_t ntok, const wlz_bparams *bp,
			  const uint8_t **out, size_t *out_size, wlz_block_entry *e);

#endif
