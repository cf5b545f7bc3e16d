/*
 * farfind.h - the sparse long-distance match finder.
 *
 * Anchors are the positions whose hashed bytes select them (about one in
 * `rate`, by content, as zstd's long-distance matcher picks its own, with
 * a rolling "gear" hash, h = 2h + g(byte) in 16 bits): a
 * repeat of hash_len bytes or more has anchors at the same places in both
 * copies, so looking up only the anchors of the block being parsed finds
 * copies anywhere in the window, for a table and a number of lookups that
 * are a fraction of a dense finder's.  Dense near matching is the parser's
 * own short chain (parse.h); this finds what lies beyond it, which is what
 * overlapping reads of a FASTQ file need.
 *
 * The table keeps WLZ_FAR_WAYS anchors per bucket, most recent first, as
 * their absolute positions' low 32 bits (a candidate is always verified
 * against the bytes, and windows are at most 2^31).  Each block's anchors
 * are listed when the block is parsed (wlz_far_anchors), so the table is
 * filled from the lists later, when the block is old enough to be read,
 * without hashing the input again.
 */
#ifndef WLZ_FARFIND_H
#define WLZ_FARFIND_H

#include "encoder/matchfind.h"

#define WLZ_FAR_WAYS 8

/* The bucket count is at most 2^WLZ_FAR_LOG_MAX (2^30 ways). */
#define WLZ_FAR_LOG_MAX 27

/* An entry: (position + 1) mod 2^pos_bits, and above it tag_bits of the
 * anchor's hash that its bucket index does not hold, so that a lookup
 * skips most entries of other contents without reading their bytes, a
 * cache miss each.  0 = empty. */
typedef struct wlz_far {
	uint32_t *slot;         /* buckets x WLZ_FAR_WAYS entries */
	unsigned log;           /* log2 of the bucket count */
	unsigned pos_bits, tag_bits;  /* pos_bits: one more than the window's log2 */
	uint32_t pos_mask;
	unsigned hash_len;      /* bytes hashed, 8..16 */
	uint16_t amask;         /* an anchor's rolling hash has these bits clear */
	/* g(b) = nib[0][b & 15] ^ nib[1][b >> 4], a byte's value in the
	 * rolling hash: two 16-entry tables, so that SIMD code looks bytes up
	 * with byte shuffles (wlz_far_anchors); gear[] holds the 256 values. */
	uint16_t nib[2][16];
	uint16_t gear[256];
} wlz_far;

/* An anchor: its buffer position, and its bucket (low WLZ_FAR_LOG_MAX
 * bits) with its tag above. */
typedef struct wlz_anchor {
	uint32_t pos;           /* from the block's start */
	uint32_t bucket;
} wlz_anchor;

static inline uint32_t wlz_anchor_index(uint32_t bucket)
{
	return bucket & (((uint32_t)1 << WLZ_FAR_LOG_MAX) - 1);
}

/* The tag bits an entry of this anchor's content carries. */
static inline uint32_t wlz_anchor_tag(const wlz_far *f, uint32_t bucket)
{
	return f->tag_bits ? (bucket >> WLZ_FAR_LOG_MAX) << f->pos_bits : 0;
}

/* Whether entry e has the tag an anchor's entries carry (wlz_anchor_tag). */
static inline int wlz_far_same_tag(const wlz_far *f, uint32_t e, uint32_t tag)
{
	return (e & ~f->pos_mask) == tag;
}

/* The distance back from absolute position ap + 1 to entry e. */
static inline uint64_t wlz_far_dist(const wlz_far *f, uint64_t ap1, uint32_t e)
{
	return (ap1 - e) & f->pos_mask;
}

/* The bucket count for a window (about one way per anchor of the window),
 * and the table's memory. */
unsigned wlz_far_log_for(uint64_t window, unsigned rate);
uint64_t wlz_far_memory(unsigned log);

/* window: the largest distance a source may have (a power of two).  The
 * table comes zeroed, but the caller is to fault in every part of it
 * (wlz_far_zero) before its first insert or lookup: its pages are faulted
 * in by the threads that zero them, at once, and writable (a page first
 * read would map the shared zero page, whose replacement at the first
 * write interrupts every core running a thread of ours to flush its
 * TLB). */
wlz_error wlz_far_init(wlz_far *f, unsigned log, unsigned hash_len, unsigned rate, uint64_t window);
/* Faults in part `part` of nparts about equal parts of a table not yet
 * used, zeroed (by the kernel where it can, or written). */
void wlz_far_zero(wlz_far *f, unsigned part, unsigned nparts);
void wlz_far_destroy(wlz_far *f);

/* Hash of the bytes at an anchor p: its bucket in the high bits. */
static inline uint64_t wlz_far_hash64(const wlz_far *f, const uint8_t *p)
{
	const uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
	uint64_t a = wlz_rd64(p), b = wlz_rd64(p + f->hash_len - 8);
	uint64_t h = ((a * k1) ^ (b * k2) ^ ((a * k1) >> 29)) * k2;
	return h ^ (h >> 31);
}

/* An anchor's bucket field from its hash: the index from the top bits, the
 * tag from the bits below them. */
static inline uint32_t wlz_far_bucket_of(const wlz_far *f, uint64_t h)
{
	const uint32_t b = (uint32_t)(h >> (64 - f->log));
	const uint32_t t = (uint32_t)(h >> (64 - f->log - f->tag_bits)) & (((uint32_t)1 << f->tag_bits) - 1);
	return b | t << WLZ_FAR_LOG_MAX;
}

static inline const uint32_t *wlz_far_bucket(const wlz_far *f, uint32_t bucket)
{
	return f->slot + (size_t)wlz_anchor_index(bucket) * WLZ_FAR_WAYS;
}

/* Lists the anchors of src[from, to) into out (room for to - from), in
 * order; returns how many.  Bytes up to to + hash_len must be readable. */
size_t wlz_far_anchors(const wlz_far *f, const uint8_t *src, uint64_t from, uint64_t to, wlz_anchor *out);
/* The same with the portable code (simd = 0) or the SIMD code where the
 * CPU has it (1): both list the same anchors (tests compare them). */
size_t wlz_far_anchors_with(const wlz_far *f, const uint8_t *src, uint64_t from, uint64_t to, wlz_anchor *out,
			    int simd);

/* Which of nparts disjoint ranges of buckets an anchor's bucket lies in. */
static inline unsigned wlz_far_part(const wlz_far *f, uint32_t bucket, unsigned nparts)
{
	return (unsigned)(((uint64_t)wlz_anchor_index(bucket) * nparts) >> f->log);
}

/* Enters n anchors of a block (block_abs: the block's absolute position),
 * in order: a[0 .. n), or a[idx[0]], ..., a[idx[n - 1]] where idx is set
 * (the anchors of one part, wlz_far_part: threads may insert disjoint
 * parts at once, and the table does not depend on their number). */
void wlz_far_insert(wlz_far *f, const wlz_anchor *a, const uint32_t *idx, size_t n, uint64_t block_abs);

#endif
