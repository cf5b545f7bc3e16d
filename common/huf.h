/*
 * huf.h - the Huffman part coder of stream codec 2 (SPEC.md, section 5.2):
 * up to 16 code tables chosen by the previous symbol, 32 lanes per segment,
 * each lane a contiguous run of the segment with its own bit stream.
 *
 * Lanes own contiguous runs (not every 32nd symbol) so that a lane's
 * previous symbol is the stream's previous symbol and can pick the table;
 * each lane's own byte stream lets a CPU run several lanes with 64-bit
 * reads and no per-symbol refill branch, and lets a GPU thread decode its
 * lane without talking to the rest of its warp.
 *
 * Body of a huf part of n symbols:
 *   u8 seg_log (12..20), u8 tables T (1..16)
 *   32-byte bitmap of the k >= 2 symbols present
 *   nibbles, low nibble first: if T > 1, next[k] (the table of the symbol
 *     after each symbol), then len[T][k] (0: no code in that table, 1..10)
 *   u32 size of each segment (ceil(n / 2^seg_log) of them)
 *   segments: u16 sizes of lanes 0..30, then the lanes' bytes
 */
#ifndef WLZ_HUF_H
#define WLZ_HUF_H

#include "common/wlz_internal.h"
#include "common/huf_cluster.h"

#define WLZ_HUF_LANES 32
/* Codes of at most 10 bits: tables of 2^10 entries stay in a CPU's L1 or
 * L2 and leave a GPU room for more blocks per SM; 11 bits made the
 * archives under 0.4% smaller. */
#define WLZ_HUF_MAX_BITS WLZ_HUF_LEN_MAX
#define WLZ_HUF_MAX_TABLES 16
#define WLZ_HUF_SEG_MIN 12
#define WLZ_HUF_SEG_MAX 20
/* The encoder's segment size for large inputs, one less for inputs known
 * to be under 128 MiB (encoder/compress.c; a bench build may set
 * another): the GPU's parallelism against 66 bytes of lane and segment
 * sizes and the lanes' padding per segment (bench/host/issue14-round3.md). */
#ifndef WLZ_HUF_SEG_DEFAULT
#define WLZ_HUF_SEG_DEFAULT 15
#endif
#define WLZ_HUF_LANE_HDR (2 * (WLZ_HUF_LANES - 1))

/* Decode tables: per table 2^10 entries, symbol | length << 8 | (next
 * table << 10) << 16 (length 0: the table's only symbol, coded in no bits).
 * The symbol is the low byte (stored as it is), the length the low 6 bits
 * of entry >> 8 (a shift's count) and the next table the offset of its
 * first entry, so that a code costs a lookup, a store and three
 * operations. */
#define WLZ_HUF_TAB_SIZE (1u << WLZ_HUF_MAX_BITS)
#define WLZ_HUF_ENTRY(sym, len, next) ((uint32_t)(sym) | (uint32_t)(len) << 8 | (uint32_t)(next) << (16 + WLZ_HUF_MAX_BITS))
/* A body's tables as its header gives them: code[ti * 256 + s] is symbol
 * s's code length in table ti (0: none) | the table after it << 4. */
typedef struct wlz_huf_codes {
	unsigned seg_log, ntables;
	size_t hdr;                 /* where the segment list starts */
	unsigned nsym;              /* symbols present, ... */
	uint8_t sym[256];           /* ... in increasing order */
	uint8_t code[WLZ_HUF_MAX_TABLES * 256];
} wlz_huf_codes;

typedef struct wlz_huf_tables {
	unsigned seg_log, ntables;
	size_t hdr;                 /* where the segment list starts */
	uint32_t tab[WLZ_HUF_MAX_TABLES * WLZ_HUF_TAB_SIZE];
	wlz_huf_codes codes;        /* (scratch of wlz_huf_read_tables) */
} wlz_huf_tables;

/* Most bytes a body of n symbols can take (any table choice). */
size_t wlz_huf_bound(size_t n, unsigned seg_log);

/* Codes src[0..n) (n >= 1, at least two distinct symbols) as a body with
 * at most max_tables tables; returns its size, 0 if it does not fit cap
 * or memory ran out.  work: WLZ_HUF_WORK_SIZE bytes of the caller's
 * scratch, zeroed before the first call (its counts are left zeroed by
 * each: only the rows a stream used are cleared), or NULL to allocate it. */
#define WLZ_HUF_WORK_SIZE ((size_t)257 * 256 * sizeof(uint32_t) + sizeof(wlz_huf_cluster_work))
size_t wlz_huf_encode(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables, uint8_t *dst,
		      size_t cap, void *work);
/* The same, trying up to more_tables tables too (two clusterings of the
 * same counts, of iters k-means passes at most: wlz_huf_cluster_iter), and
 * keeping whichever codes smaller. */
size_t wlz_huf_encode2(const uint8_t *src, size_t n, unsigned seg_log, unsigned max_tables, unsigned more_tables,
		       unsigned iters, uint8_t *dst, size_t cap, void *work);

/* Parses a body's header and checks every rule of its tables (complete
 * codes, lengths, next tables) without building them. */
wlz_error wlz_huf_read_codes(const uint8_t *src, size_t csize, wlz_huf_codes *c);

/* The bytes of a body of n symbols before its first segment (header,
 * tables, segment sizes), from its first 34 bytes; 0 where those break
 * the rules that size depends on. */
size_t wlz_huf_head_size(const uint8_t src[34], size_t n);

/* Parses a body's header and builds its decode tables. */
wlz_error wlz_huf_read_tables(const uint8_t *src, size_t csize, wlz_huf_tables *t);

/* Decodes a body to exactly n symbols; an error unless every size, table
 * and lane is as SPEC.md says (padding bits zero, lanes used exactly).
 * t is the caller's scratch (68 KiB: kept off the stack). */
wlz_error wlz_huf_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t n, wlz_huf_tables *t);

/* The symbols of lane l of a segment of m symbols: [*from, *to). */
static inline void wlz_huf_lane(size_t m, unsigned l, size_t *from, size_t *to)
{
	const size_t q = (m + WLZ_HUF_LANES - 1) / WLZ_HUF_LANES;
	const size_t a = q * l, b = a + q;
	*from = a < m ? a : m;
	*to = b < m ? b : m;
}

/* The low l bits of v, reversed (l <= 16), through a table of bytes with
 * their bits reversed. */
#define WLZ_HUF_REV2(n) n, n + 128, n + 64, n + 192
#define WLZ_HUF_REV4(n) WLZ_HUF_REV2(n), WLZ_HUF_REV2(n + 32), WLZ_HUF_REV2(n + 16), WLZ_HUF_REV2(n + 48)
#define WLZ_HUF_REV6(n) WLZ_HUF_REV4(n), WLZ_HUF_REV4(n + 8), WLZ_HUF_REV4(n + 4), WLZ_HUF_REV4(n + 12)
static inline uint32_t wlz_huf_rev_bits(uint32_t v, unsigned l)
{
	static const uint8_t rev8[256] = {WLZ_HUF_REV6(0), WLZ_HUF_REV6(2), WLZ_HUF_REV6(1), WLZ_HUF_REV6(3)};
	return ((uint32_t)rev8[v & 255] << 8 | rev8[v >> 8 & 255]) >> (16 - l);
}

/* Canonical codes of one table from its lengths (0: no code), bit-reversed
 * for an LSB-first stream: shorter codes first, then symbol order. */
static inline void wlz_huf_canonical(const uint8_t len[256], uint32_t code[256])
{
	unsigned nl[WLZ_HUF_MAX_BITS + 1] = {0};
	uint32_t next[WLZ_HUF_MAX_BITS + 2];
	for (unsigned s = 0; s < 256; s++)
		nl[len[s]]++;
	next[1] = 0;
	for (unsigned b = 1; b <= WLZ_HUF_MAX_BITS; b++)
		next[b + 1] = (next[b] + nl[b]) << 1;
	for (unsigned s = 0; s < 256; s++)
		code[s] = len[s] ? wlz_huf_rev_bits(next[len[s]]++, len[s]) : 0;
}

#endif
