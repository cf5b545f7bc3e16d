/*
 * parse.h - turning one block of input into tokens.
 */
#ifndef WLZ_PARSE_H
#define WLZ_PARSE_H

#include "encoder/matchfind.h"

/* One token: lit literal bytes, then a match of mlen bytes copied from
 * dist bytes back (mlen == 0 only for the block's literal tail, which is
 * not stored as a token). */
typedef struct wlz_token {
	uint32_t lit;
	uint32_t mlen;
	uint64_t dist;
} wlz_token;

typedef struct wlz_lparams {
	unsigned short_len;     /* bytes hashed by the per-block chain */
	unsigned short_depth;   /* candidates tried on it */
	uint32_t near;          /* bytes before the block it covers */
	unsigned long_len;      /* bytes hashed by the global chain */
	unsigned long_depth;
	unsigned lazy;          /* 0 greedy, 1 or 2 positions of lookahead */
	unsigned optimal;       /* 1 = price-based forward parse */
	unsigned nice;          /* stop searching at a match this long */
	unsigned skip;          /* >0: step faster through incompressible runs */
	int zlevel;             /* zstd level of the stream codec */
} wlz_lparams;

const wlz_lparams *wlz_level_params(int level);

typedef struct wlz_parser wlz_parser;

wlz_parser *wlz_parser_create(const wlz_lparams *lp, uint32_t block_size);
void wlz_parser_free(wlz_parser *ps);

/* Parses src[bstart..bend) of the whole input described by lc.  Returns the
 * tokens through *tok (owned by the parser, valid until the next call).
 * lazy_only: use the lazy parse even at price-based levels (a second
 * opinion the caller may keep when it codes smaller). */
wlz_error wlz_parse_block(wlz_parser *ps, const wlz_lchain *lc, uint64_t bstart, uint64_t bend,
			  int lazy_only, const wlz_token **tok, size_t *ntok);

/* Depth-limited parsing: map is the level map of levels.h (final before
 * bstart; the parser writes the block's own entries as it emits tokens) and
 * no match may reach a level above depth.  Lazy parse only; blocks must be
 * parsed in order.  n: the input size (sizes the tables of shallow positions).
 * pop (may be NULL): per input byte, how many later matches of an unlimited
 * parse read it (saturating at 255); levels cost more where bytes are read
 * often.  The parser keeps pointers to map and pop until the next call. */
wlz_error wlz_parser_set_depth(wlz_parser *ps, uint8_t *map, int depth, uint64_t n, const uint8_t *pop);

/* Chain flattening: a match that reads bytes another match of its own block
 * wrote must then wait for it.  flat = 1 prices such matches (the lazy
 * parse takes a flat alternative when it costs under 2 bits more; the
 * price-based parse of high levels ignores it); flat = 2 allows none (lazy
 * parse at every level). */
wlz_error wlz_parser_set_flat(wlz_parser *ps, int flat);

/* No match reads the parallel - 1 blocks before its own (1: no such rule;
 * the diagonal rule of SPEC.md section 8 still holds beyond). */
void wlz_parser_set_parallel(wlz_parser *ps, int parallel);

#endif
