/*
 * parse.h - turning one block of input into tokens.
 */
#ifndef WLZ_PARSE_H
#define WLZ_PARSE_H

#include "encoder/farfind.h"

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
	unsigned long_len;      /* bytes hashed by the far table */
	unsigned long_depth;    /* far candidates tried (at most WLZ_FAR_WAYS) */
	unsigned lazy;          /* 0 greedy, 1 or 2 positions of lookahead */
	unsigned optimal;       /* 1 = price-based forward parse */
	unsigned nice;          /* stop searching at a match this long */
	unsigned skip;          /* >0: step faster through incompressible runs */
	int zlevel;             /* zstd level of the stream codec */
	unsigned far_rate;      /* far table: about one anchor in this many positions */
	unsigned window_log;    /* default window (no --long) */
	unsigned fast;          /* 0: chain parsers; 1: one hash table (short_len bytes),
				 * 2: and one of 8 bytes (parse_fast.c) */
	unsigned cheap;         /* 1: skip faster through cheap literals (skip_step) */
	unsigned huf_iters;     /* codec 2's clustering passes at most (0: its default) */
	unsigned fast_llog;     /* log2 of the fast parse's 8-byte table entries (0: 17) */
	unsigned fast_slog;     /* log2 of its short table entries, all ways (0: 17, 19 from 8 ways) */
} wlz_lparams;

/* What a parser sees of the input: a buffer whose position p is src[p],
 * positions counted from a multiple of the block size (so block numbers
 * keep their differences), with at least 16 bytes after every block it
 * parses unless the input ends first. */
typedef struct wlz_view {
	const uint8_t *src;
	uint64_t n;             /* bytes in the buffer (the input's end, if reached) */
	uint64_t base;          /* absolute position of src[0] */
	uint64_t window;        /* no match reaches back further */
	const wlz_far *far;     /* read-only while blocks are parsed */
} wlz_view;

const wlz_lparams *wlz_level_params(int level);
/* The parameters for an input of the size the caller states (UINT64_MAX:
 * unknown): the default level searches harder on inputs up to
 * WLZ_SMALL_INPUT, whose time is small whatever the level. */
#define WLZ_SMALL_INPUT ((uint64_t)64 << 20)
const wlz_lparams *wlz_level_params_for(int level, uint64_t size);

typedef struct wlz_parser wlz_parser;

wlz_parser *wlz_parser_create(const wlz_lparams *lp, uint32_t block_size);
void wlz_parser_free(wlz_parser *ps);
/* Gives the parser's big buffers' pages back to the kernel, its work
 * done (a parse reads none of their contents before writing them). */
void wlz_parser_release(wlz_parser *ps);

/* Parses src[bstart..bend) of the input described by v.  Returns the
 * tokens through *tok (owned by the parser, valid until the next call).
 * lazy_only: use the lazy parse even at price-based levels (a second
 * opinion the caller may keep when it codes smaller). */
wlz_error wlz_parse_block(wlz_parser *ps, const wlz_view *v, uint64_t bstart, uint64_t bend,
			  int lazy_only, const wlz_token **tok, size_t *ntok);

/* Parses the piece src[from..to) of the block src[bstart..bend) as the
 * block's parse would, but that no match crosses the piece's ends: a
 * block's pieces parse on several threads at once.  The near tables first
 * get every position of the block before from (and the near window before
 * the block, where the gap allows it), and the far matches are the
 * anchors' in the piece.  Only where the fast parse runs (wlz_parse_can_piece).
 * The tokens' first literal run counts from from; the bytes after the
 * last match to `to` are literals. */
int wlz_parse_can_piece(const wlz_parser *ps);
wlz_error wlz_parse_piece(wlz_parser *ps, const wlz_view *v, uint64_t bstart, uint64_t bend, uint64_t from,
			  uint64_t to, const wlz_token **tok, size_t *ntok);

/* Depth-limited parsing: map is the level map of levels.h, laid out as
 * the view's buffer (final before bstart; the parser writes the block's own
 * entries as it emits tokens), and no match may reach a level above depth.
 * The fast parse at levels 1 to 4, the lazy parse above.  The parser keeps
 * the pointer until the next call. */
void wlz_parser_set_depth(wlz_parser *ps, uint8_t *map, int depth);

/* The block's far-table anchors (wlz_far_anchors over the block), for the
 * next wlz_parse_block; the parser keeps the pointer. */
void wlz_parser_set_anchors(wlz_parser *ps, const wlz_anchor *a, size_t n);

/* Chain flattening: a match that reads bytes another match of its own block
 * wrote must then wait for it.  flat = 1 prices such matches (the lazy
 * parse takes a flat alternative when it costs under 2 bits more; the
 * price-based parse of high levels ignores it); flat = 2 allows none (lazy
 * parse at every level). */
wlz_error wlz_parser_set_flat(wlz_parser *ps, int flat);

/* No match reads the parallel - 1 blocks before its own (1: no such rule),
 * and, with diag, the diagonal rule of SPEC.md section 8 holds beyond. */
void wlz_parser_set_parallel(wlz_parser *ps, int parallel, int diag);

/* fn(arg) is called once the next wlz_parse_block has done with the far
 * table (after its far matches are found up front, where the parse does
 * that): the caller may then change the table while the parse goes on.
 * Parses that read the table throughout never call it.  One call at most:
 * the parser forgets fn after it. */
void wlz_parser_set_far_done(wlz_parser *ps, void (*fn)(void *), void *arg);

#endif
