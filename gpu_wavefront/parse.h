/*
 * parse.h - GPU token parsing (SPEC.md section 6): a block's decoded
 * streams to one (lit, mlen, src) per token, as the CPU's wlz_bdec_tokens
 * gives them, by prefix sums over the streams instead of a serial pass.
 */
#ifndef WLZ_GPU_PARSE_H
#define WLZ_GPU_PARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "format/format.h"

/* One block: its decoded streams (cmd, lit, len, off) at s_off[k] of the
 * streams buffer, rsize[k] bytes each (16 readable bytes after each), its
 * content at bstart of the output, tokens to tok_off of the token arrays,
 * scratch (one uint32_t per len byte, plus one) at scr_off.  Its matches
 * read no further back than window bytes, nor before mfirst (its member's
 * first byte in the output, or 0 when that lies before the output's
 * start, as in a decode in pieces: then the window keeps them in it). */
typedef struct wlz_gpu_pblock {
	uint64_t s_off[4];
	uint32_t rsize[4];
	uint64_t bstart, tok_off, scr_off, mfirst, window;
	uint32_t length, ntok;
} wlz_gpu_pblock;

/* A token as the CPU decoder's wlz_dtoken (literals, match length, the
 * match's source in the member), and where it goes: its literals' first
 * byte in the member (pos) and in the streams buffer (lp). */
#ifdef __cplusplus
#define WLZ_GPU_ALIGN16 alignas(16)
#else
#define WLZ_GPU_ALIGN16 _Alignas(16)
#endif
/* (aligned to 16 bytes, so that a whole token moves in two 16-byte loads
 * or stores, not four or five: every token array starts at an allocation
 * of its own) */
typedef struct wlz_gpu_token {
	WLZ_GPU_ALIGN16 uint32_t lit;
	uint32_t mlen;
	uint64_t src, pos, lp;
} wlz_gpu_token;

/* Tokens of a parse segment (a thread block's share of an archive block;
 * 2048 stages a block's tokens in a third of an SM's shared memory, so
 * that three blocks run on each: bench/host/issue15-flow.md). */
#ifndef WLZ_GPU_PARSE_TILE
#define WLZ_GPU_PARSE_TILE 2048
#endif
/* Scratch 8-byte words of the parse's carries: a block's, a segment's. */
#define WLZ_GPU_PARSE_BLOCK_WORDS 3
#define WLZ_GPU_PARSE_SEG_WORDS 9

/* Lays block e (its first byte at bstart of the output; mfirst and window
 * as in wlz_gpu_pblock) out for the parse:
 * its streams at 16-byte aligned places from *sbytes with 16 readable
 * bytes after each, its tokens from *ntok, its scratch (varint starts and
 * segment carries, 4-byte words) from *nscr; all three advanced past it. */
wlz_gpu_pblock wlz_gpu_pblock_next(const wlz_block_entry *e, uint64_t bstart, uint64_t mfirst, uint64_t window,
				   uint64_t *sbytes, uint64_t *ntok,
				   uint64_t *nscr);

/* Parses n blocks (max_tok: the most tokens of any of them; a thread
 * block a segment of WLZ_GPU_PARSE_TILE tokens) on stream; bad[i] is set
 * nonzero where block i breaks a rule of section 6, and then bad[n] (which
 * the caller zeroes) too; a bad block's tokens are then not to be used. */
int wlz_gpu_parse(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_tok, const uint8_t *d_streams,
		  uint32_t *d_scratch, wlz_gpu_token *d_tok, uint32_t *d_bad, void *stream);

#ifdef __cplusplus
}
#endif

#endif
