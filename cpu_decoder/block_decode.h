/*
 * block_decode.h - decoding one block: its streams, then its tokens.
 */
#ifndef WLZ_BLOCK_DECODE_H
#define WLZ_BLOCK_DECODE_H

#include "format/format.h"
#include "cpu_decoder/sched.h"

typedef struct wlz_bdec wlz_bdec;

wlz_bdec *wlz_bdec_create(void);
void wlz_bdec_free(wlz_bdec *bd);
/* The archive's window: tokens reaching back further are an error. */
void wlz_bdec_set_window(wlz_bdec *bd, uint64_t window);

/* Decodes the block described by e (payload at arc + e->data_offset) into
 * out[bstart..bend).  Sources may lie anywhere in out[0..bend).  Without sc
 * they must already hold their final bytes; with sc, the block publishes
 * its progress and waits for sources in unfinished blocks (sched.h); its
 * bytes are published before its checksum is checked, so a caller must stop
 * every thread on an error.  Never writes outside out[bstart..bend).
 * The member must have passed wlz_member_parse, or the payload be followed
 * by at least 32 readable bytes (raw streams are read in place). */
wlz_error wlz_bdec_decode(wlz_bdec *bd, const uint8_t *arc, const wlz_block_entry *e,
			  uint8_t *out, uint64_t bstart, uint64_t bend, wlz_sched *sc);

/* wlz_bdec_decode in two steps, so that one thread may open blocks (the
 * streams' entropy stage, payload checksum included) while another runs
 * them in order: open, then finish on the same bd before its next open. */
wlz_error wlz_bdec_open(wlz_bdec *bd, const uint8_t *arc, const wlz_block_entry *e);
wlz_error wlz_bdec_finish(wlz_bdec *bd, const wlz_block_entry *e, uint8_t *out, uint64_t bstart, uint64_t bend,
			  wlz_sched *sc);

/* wlz_bdec_finish in two steps more, for a thread that runs blocks others
 * opened: parse every token of the opened block (all checked), then run
 * them; sources must be final. */
wlz_error wlz_bdec_parse(wlz_bdec *bd, const wlz_block_entry *e, uint64_t bstart, uint64_t bend);
wlz_error wlz_bdec_run_parsed(wlz_bdec *bd, const wlz_block_entry *e, uint8_t *out, uint64_t bstart, uint64_t bend);

/* The block's tokens without executing them: lit, mlen and absolute source
 * per token, every bound checked; valid until the next call on bd. */
typedef struct wlz_dtoken {
	uint32_t lit;
	uint32_t mlen;
	uint64_t src;
} wlz_dtoken;

wlz_error wlz_bdec_tokens(wlz_bdec *bd, const uint8_t *arc, const wlz_block_entry *e, uint64_t bstart,
			  uint64_t bend, const wlz_dtoken **tok);
/* Up to max of the first tokens (*n of them) of the block wlz_bdec_open
 * opened into bd, which wlz_bdec_finish may still run; the rest of the
 * block is not checked. */
wlz_error wlz_bdec_first_tokens(wlz_bdec *bd, const wlz_block_entry *e, uint64_t bstart, uint64_t bend, size_t max,
				const wlz_dtoken **tok, size_t *n);

#endif
