/*
 * ent.h - stream codec 2 (SPEC.md, section 5.2): a stream as up to four
 * parts, each stored raw, as one byte repeated, or Huffman-coded (huf.h),
 * so that parts with different statistics (an off stream's heads and low
 * bytes) get their own tables.  Both decoders, CPU and GPU, read it.
 */
#ifndef WLZ_ENT_H
#define WLZ_ENT_H

#include "common/huf.h"

#define WLZ_ENT_MAX_PARTS 4
/* The most bytes of a stream's part table: the count, then each part's
 * kind and up to two varints of at most 10 bytes. */
#define WLZ_ENT_TABLE_MAX (1 + WLZ_ENT_MAX_PARTS * 21)
enum { WLZ_PART_RAW = 0, WLZ_PART_RUN = 1, WLZ_PART_HUF = 2 };

typedef struct wlz_ent_part {
	unsigned kind;
	size_t n;                   /* decoded bytes, at least 1 */
	size_t at, c;               /* stored bytes [at, at + c) of the stream */
} wlz_ent_part;

/* Parses a codec-2 stream of csize bytes decoding to rsize: its parts, in
 * order, their sizes checked against csize and rsize. */
wlz_error wlz_ent_parts(const uint8_t *src, size_t csize, size_t rsize, wlz_ent_part p[WLZ_ENT_MAX_PARTS],
			unsigned *np);

/* Decodes a codec-2 stream to exactly rsize bytes; t is scratch. */
wlz_error wlz_ent_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t rsize, wlz_huf_tables *t);

/* Codes src[0..n) as parts cut at cut[0] < cut[1] < ... (ncut <= 3; empty
 * parts are dropped), each part as the smallest of raw, run and huf (up to
 * max_tables tables, one per WLZ_ENT_SYMS_PER_TABLE symbols, in segments
 * of 2^seg_log symbols; more > 0: also try one per more symbols, keeping
 * the smaller; iters: the clustering's passes, as wlz_huf_encode2's).
 * Returns the size, 0 if it does not fit cap.  work: as wlz_huf_encode's. */
size_t wlz_ent_encode(const uint8_t *src, size_t n, const size_t *cut, unsigned ncut, unsigned max_tables,
		      unsigned seg_log, unsigned more, unsigned iters, uint8_t *dst, size_t cap, void *work);

/* Most bytes wlz_ent_encode can need for n bytes. */
size_t wlz_ent_bound(size_t n);

#endif
