/*
 * levels.h - dependency levels and the depth limit (chain flattening is the
 * parser's: parse.h).
 *
 * Runs once per block, in block order, after the block is parsed: a
 * token's level depends on the levels of the bytes it reads, which earlier
 * blocks wrote.  The pass is linear in the block's bytes.
 */
#ifndef WLZ_LEVELS_H
#define WLZ_LEVELS_H

#include "encoder/parse.h"

typedef struct wlz_levels wlz_levels;

/* depth < 0: unlimited.  n: input size; block_log as in the archive. */
wlz_levels *wlz_levels_create(uint64_t n, unsigned block_log, int depth);
void wlz_levels_free(wlz_levels *lv);

/* The level map (one byte per input byte), for a depth-limited parser. */
uint8_t *wlz_levels_map(wlz_levels *lv);

/* Rewrites block b's tokens (depth limit) into *out and *nout
 * (malloc'ed, owned by the caller), and gives the block's highest level
 * in *max_level (255 = 255 or more). */
wlz_error wlz_levels_block(wlz_levels *lv, const uint8_t *src, uint64_t b, const wlz_token *tok, size_t ntok,
			   wlz_token **out, size_t *nout, unsigned *max_level);

#endif
