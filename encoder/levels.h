/*
 * levels.h - a block's dependency levels (SPEC.md, section 6.1) from its
 * final tokens, on the level map of the encoder's window.
 */
#ifndef WLZ_LEVELS_H
#define WLZ_LEVELS_H

#include "encoder/parse.h"

/* map is laid out as the input buffer and final before bstart; nothing at
 * or after bend is read or written (the next block's map may be another
 * thread's).  Writes the map for src[bstart..bend) and returns the block's
 * highest level (255 = 255 or more); WLZ_ERR_INTERNAL in *err if a token exceeds depth (>= 0).
 * Adds to *chained the tokens that read a match byte of their own block
 * (SPEC.md, section 6.1). */
unsigned wlz_levels_block(uint8_t *map, uint64_t bstart, uint64_t bend, const wlz_token *tok, size_t ntok,
			  int depth, uint32_t *chained, wlz_error *err);

#endif
