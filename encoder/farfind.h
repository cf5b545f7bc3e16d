/*
 * farfind.h - the sparse long-distance match finder.
 *
 * A table of bounded size remembers positions of the window at every
 * stride-th input position (absolute positions, so the table survives the
 * input buffer sliding), WLZ_FAR_WAYS per bucket, most recent first.  The
 * parser looks up every position: a repeat of at least hash_len + stride - 1
 * bytes has a start that some aligned earlier copy hashes like, wherever it
 * lies in the window.  Dense near matching is the parser's own short chain
 * (parse.h); this finds what lies beyond it, which is what overlapping reads
 * of a FASTQ file need.
 *
 * Positions are kept as their low 32 bits: a candidate is always verified
 * against the bytes, and distances are at most 2^31.
 */
#ifndef WLZ_FARFIND_H
#define WLZ_FARFIND_H

#include "encoder/matchfind.h"

#define WLZ_FAR_WAYS 4

typedef struct wlz_far {
	uint32_t *slot;         /* buckets x WLZ_FAR_WAYS, (position + 1) mod 2^32, 0 = empty */
	unsigned log;           /* log2 of the bucket count */
	unsigned hash_len;      /* bytes hashed, 8..16 */
	unsigned stride;        /* a power of two */
	uint64_t next;          /* absolute position inserted up to */
} wlz_far;

/* Memory for a table covering window bytes (the bucket count is what it
 * depends on: about one entry per stride window bytes). */
unsigned wlz_far_log_for(uint64_t window, unsigned stride);
uint64_t wlz_far_memory(unsigned log);

wlz_error wlz_far_init(wlz_far *f, unsigned log, unsigned hash_len, unsigned stride);
void wlz_far_destroy(wlz_far *f);

/* Inserts the aligned absolute positions [f->next, to) whose bucket belongs
 * to part `part` of `nparts` (disjoint ranges of buckets, so that threads
 * may insert at once and the table does not depend on their number).
 * src + q - base must hold q's hash_len bytes.  The caller sets f->next =
 * to once every part is done. */
void wlz_far_insert(wlz_far *f, const uint8_t *src, uint64_t base, uint64_t to, unsigned part,
		    unsigned nparts);

static inline uint64_t wlz_far_hash(const wlz_far *f, const uint8_t *p)
{
	return wlz_hash_bytes(p, f->hash_len, f->log);
}

static inline const uint32_t *wlz_far_bucket(const wlz_far *f, uint64_t h)
{
	return f->slot + h * WLZ_FAR_WAYS;
}

#endif
