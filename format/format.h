/*
 * format.h - the archive layout of SPEC.md (version 4) as C: constants, the
 * parsed header, block headers, index and footer, their serialisation and
 * validation.
 *
 * An archive is one or more members back to back.  A member is
 *   header | block* | index | footer
 * where each block is its own 80-byte header followed by its payload, so a
 * reader can go front to back from a pipe; the index and footer at the end
 * give a seeking reader every block's place at once.
 */
#ifndef WLZ_FORMAT_H
#define WLZ_FORMAT_H

#include "common/wlz_internal.h"
#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
#endif

#define WLZ_MAGIC0 0x89
#define WLZ_MAGIC1 'W'
#define WLZ_MAGIC2 'L'
#define WLZ_MAGIC3 'Z'
#define WLZ_END_MAGIC 0x0A0D444E457A6C77ull  /* "wlzEND\r\n" */
#define WLZ_BLOCK_TAG 0x427A6C77u             /* "wlzB" */
#define WLZ_INDEX_TAG 0x497A6C77u             /* "wlzI" */

#define WLZ_BHEAD_SIZE 80          /* a block's own header */
#define WLZ_INDEX_ENTRY_SIZE 16    /* block offset, content checksum */
#define WLZ_INDEX_FIXED 40         /* index bytes besides its entries */
#define WLZ_FOOTER_SIZE 24
#define WLZ_DEPTH_NONE 0xFF        /* header byte for "unlimited" */
#define WLZ_CHAINED_MAX 0xFFFFFF   /* the chained count saturates (24 bits) */
#define WLZ_SIZE_UNKNOWN UINT64_MAX
#define WLZ_CONTENT_MAX ((uint64_t)1 << 56)

/* The four streams of a block, in payload order. */
enum { WLZ_S_CMD = 0, WLZ_S_LIT, WLZ_S_LEN, WLZ_S_OFF, WLZ_NSTREAMS };

/* Stream codecs. */
enum { WLZ_CODEC_RAW = 0, WLZ_CODEC_ZSTD = 1, WLZ_CODEC_HUF = 2, WLZ_CODEC_COUNT };

/* Token layout: cmd byte = LLL R MMMM. */
#define WLZ_MINMATCH 3
#define WLZ_LIT_CODE_MAX 7          /* 7 = 7 + varint */
#define WLZ_MATCH_CODE_MAX 15       /* 15 = 15 + MINMATCH + varint */

/* The cmd byte of a token (SPEC.md, section 6). */
static inline uint8_t wlz_cmd_byte(uint64_t lit, uint64_t mlen, int rep)
{
	uint64_t m = mlen - WLZ_MINMATCH;
	unsigned lc = lit < WLZ_LIT_CODE_MAX ? (unsigned)lit : WLZ_LIT_CODE_MAX;
	unsigned mc = m < WLZ_MATCH_CODE_MAX ? (unsigned)m : WLZ_MATCH_CODE_MAX;
	return (uint8_t)(lc << 5 | (unsigned)rep << 4 | mc);
}

/* An explicit offset x = dist - 1 is a head byte and k low bytes. */
static inline unsigned wlz_off_lows(uint64_t x)
{
	return x < 32 ? 0 : (wlz_highbit64(x) - 5) / 8 + 1;
}

static inline uint8_t wlz_off_head(uint64_t x, unsigned k)
{
	return (uint8_t)(k << 5 | (x >> (8 * k)));
}

#if defined(__SSE2__) && !defined(__CUDACC__)
/* The largest of the 16 bytes of v. */
static inline unsigned wlz_max_u8x16(__m128i v)
{
	v = _mm_max_epu8(v, _mm_srli_si128(v, 8));
	v = _mm_max_epu8(v, _mm_srli_si128(v, 4));
	v = _mm_max_epu8(v, _mm_srli_si128(v, 2));
	v = _mm_max_epu8(v, _mm_srli_si128(v, 1));
	return (unsigned)_mm_cvtsi128_si32(v) & 0xFF;
}
#endif

/* The dependency rule (SPEC.md, section 6.1), the one place it is written:
 * map[q] is 0 for a literal byte and k + 1 for a byte a level-k match
 * wrote; a match at dst reading mlen bytes from src has the largest map
 * value among its source bytes before dst (it adds nothing by reading its
 * own output).  The bytes it writes then get the result + 1, saturating. */
static inline unsigned wlz_match_level(const uint8_t *map, uint64_t src, uint64_t dst, uint64_t mlen)
{
	const uint64_t end = src + mlen < dst ? src + mlen : dst;
	uint64_t q = src;
#if defined(__SSE2__) && !defined(__CUDACC__)
	/* 8 bytes and more: whole vectors, the last one overlapping the end
	 * (a maximum does not mind bytes seen twice). */
	if (end > q && end - q >= 8) {
		__m128i acc;
		if (end - q < 16) {
			acc = _mm_max_epu8(_mm_loadl_epi64((const __m128i *)(map + q)),
					   _mm_loadl_epi64((const __m128i *)(map + end - 8)));
		} else {
			acc = _mm_loadu_si128((const __m128i *)(map + end - 16));
			for (; q + 16 <= end; q += 16)
				acc = _mm_max_epu8(acc, _mm_loadu_si128((const __m128i *)(map + q)));
		}
		return wlz_max_u8x16(acc);
	}
#endif
	unsigned m = 0;
	for (; q < end; q++)
		m = map[q] > m ? map[q] : m;
	return m;
}

/* The same for a match at dst in the block starting at bstart, and in
 * *chained whether it reads a byte that a match of its own block wrote
 * (section 6.1's chained count): its sources before the block, then those
 * in it. */
static inline unsigned wlz_token_level(const uint8_t *map, uint64_t bstart, uint64_t src, uint64_t dst,
				       uint64_t mlen, int *chained)
{
	const uint64_t mid = src < bstart ? bstart : src;
	const unsigned before = src < bstart ? wlz_match_level(map, src, dst, mid - src < mlen ? mid - src : mlen) : 0;
	const unsigned own = mid < src + mlen ? wlz_match_level(map, mid, dst, src + mlen - mid) : 0;
	*chained = own != 0;
	return own > before ? own : before;
}

static inline uint8_t wlz_map_value(unsigned level)
{
	return (uint8_t)(level + 1 > 255 ? 255 : level + 1);
}

typedef struct wlz_header {
	unsigned version;
	unsigned flags;
	unsigned block_log;
	unsigned level;
	unsigned depth;             /* WLZ_DEPTH_NONE = unlimited */
	unsigned window_log;        /* no match reaches back more than 2^window_log */
	uint64_t content_size;      /* WLZ_SIZE_UNKNOWN when not stated */
} wlz_header;

/* A block's header as parsed (and, for a block in memory, where it lies). */
typedef struct wlz_block_entry {
	uint64_t data_offset;       /* where the payload starts, in the caller's buffer */
	uint64_t checksum;          /* XXH3-64 of the decoded block */
	uint64_t payload_checksum;  /* XXH3-64 of the block's stored bytes */
	uint32_t length;            /* decoded bytes, 1..B */
	uint32_t token_count;
	uint32_t max_level;
	uint32_t chained;           /* tokens reading bytes a match of this block wrote */
	uint32_t csize[WLZ_NSTREAMS];
	uint32_t rsize[WLZ_NSTREAMS];
	uint8_t codec[WLZ_NSTREAMS];
} wlz_block_entry;

static inline uint64_t wlz_payload_size(const wlz_block_entry *e)
{
	return (uint64_t)e->csize[0] + e->csize[1] + e->csize[2] + e->csize[3];
}

static inline uint64_t wlz_index_size(uint64_t nblocks)
{
	return WLZ_INDEX_FIXED + nblocks * WLZ_INDEX_ENTRY_SIZE;
}

/* An index's fields (SPEC.md): its block count, and block b's offset in
 * its member. */
static inline uint64_t wlz_index_blocks(const uint8_t *idx)
{
	return wlz_rd64(idx + 8);
}

static inline uint64_t wlz_index_offset(const uint8_t *idx, uint64_t b)
{
	return wlz_rd64(idx + 16 + WLZ_INDEX_ENTRY_SIZE * b);
}

void wlz_header_write(uint8_t out[WLZ_HEADER_SIZE], const wlz_header *h);
wlz_error wlz_header_read(const uint8_t *src, size_t src_size, wlz_header *h);

/* Block headers: e->data_offset is not stored.  wlz_bhead_read checks the
 * header's own checksum and every rule that needs no decoding; block_size
 * is the archive's B. */
void wlz_bhead_write(uint8_t out[WLZ_BHEAD_SIZE], const wlz_block_entry *e);
wlz_error wlz_bhead_read(const uint8_t in[WLZ_BHEAD_SIZE], const wlz_header *h, wlz_block_entry *e);

/* What the index lists, gathered as blocks are written or read: each
 * block's header offset (from the member's first byte) and content
 * checksum. */
typedef struct wlz_blocklist {
	uint64_t *offs, *sums;
	uint64_t n, cap;
} wlz_blocklist;

wlz_error wlz_blocklist_add(wlz_blocklist *l, uint64_t offset, uint64_t checksum);
void wlz_blocklist_free(wlz_blocklist *l);

/* The index after n blocks whose header offsets (from the member's first
 * byte) and content checksums are given; out holds wlz_index_size(n). */
void wlz_index_write(uint8_t *out, uint64_t n, const uint64_t *offsets, const uint64_t *checksums,
		     uint64_t content_size);
void wlz_footer_write(uint8_t out[WLZ_FOOTER_SIZE], uint64_t index_offset, uint64_t member_size);

/* Checks an index (bytes [0, size)) against the blocks a reader saw: n
 * blocks at offsets[] with checksums[] and content_size bytes in all. */
wlz_error wlz_index_check(const uint8_t *idx, uint64_t size, uint64_t n, const uint64_t *offsets,
			  const uint64_t *checksums, uint64_t content_size);
/* Reads a footer: where the index starts and the member's size. */
wlz_error wlz_footer_read(const uint8_t in[WLZ_FOOTER_SIZE], uint64_t *index_offset, uint64_t *member_size);

/* One member of an archive in memory, fully validated (every block header,
 * the index, the footer, the content checksum over the block checksums):
 * its blocks in order, data_offset counted from src. */
typedef struct wlz_member {
	wlz_header h;
	uint64_t offset;            /* of its first byte in the buffer */
	uint64_t size;              /* bytes, footer included */
	uint64_t content_size;
	uint64_t nblocks;
	wlz_block_entry *blocks;    /* malloc'ed; wlz_member_free */
	uint64_t digest;            /* the footer's content checksum */
} wlz_member;

/* Parses the member at src[at..size); on success m->blocks is owned by the
 * caller.  A hostile block count cannot make it allocate more than the
 * buffer's size allows. */
wlz_error wlz_member_parse(const uint8_t *src, size_t size, uint64_t at, wlz_member *m);
void wlz_member_free(wlz_member *m);

#endif
