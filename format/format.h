/*
 * format.h - the archive layout of SPEC.md as C: constants, the parsed
 * header and block index, and their serialisation and validation.
 */
#ifndef WLZ_FORMAT_H
#define WLZ_FORMAT_H

#include "common/wlz_internal.h"

#define WLZ_MAGIC0 0x89
#define WLZ_MAGIC1 'W'
#define WLZ_MAGIC2 'L'
#define WLZ_MAGIC3 'Z'
#define WLZ_END_MAGIC 0x0A0D444E457A6C77ull  /* "wlzEND\r\n" */

#define WLZ_INDEX_ENTRY_SIZE 80
#define WLZ_INDEX_HASH_SIZE 8
#define WLZ_FOOTER_SIZE 16
#define WLZ_DEPTH_NONE 0xFF        /* header byte for "unlimited" */
#define WLZ_CHAINED_MAX 0xFFFFFF   /* the index's chained count saturates (24 bits) */

/* The four streams of a block, in payload order. */
enum { WLZ_S_CMD = 0, WLZ_S_LIT, WLZ_S_LEN, WLZ_S_OFF, WLZ_NSTREAMS };

/* Stream codecs. */
enum { WLZ_CODEC_RAW = 0, WLZ_CODEC_ZSTD = 1, WLZ_CODEC_COUNT };

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

typedef struct wlz_header {
	unsigned version;
	unsigned flags;
	unsigned block_log;
	unsigned level;
	unsigned depth;             /* WLZ_DEPTH_NONE = unlimited */
	uint64_t content_size;
	uint64_t block_count;
	uint64_t archive_size;
} wlz_header;

typedef struct wlz_block_entry {
	uint64_t data_offset;       /* from the archive's first byte */
	uint64_t checksum;          /* XXH3-64 of the decoded block */
	uint64_t payload_checksum;  /* XXH3-64 of the block's stored bytes */
	uint32_t token_count;
	uint32_t max_level;
	uint32_t chained;           /* tokens reading bytes a match of this block wrote */
	uint32_t csize[WLZ_NSTREAMS];
	uint32_t rsize[WLZ_NSTREAMS];
	uint8_t codec[WLZ_NSTREAMS];
} wlz_block_entry;

static inline uint64_t wlz_index_offset(void) { return WLZ_HEADER_SIZE; }
static inline uint64_t wlz_payload_offset(uint64_t nblocks)
{
	return WLZ_HEADER_SIZE + nblocks * WLZ_INDEX_ENTRY_SIZE + WLZ_INDEX_HASH_SIZE;
}
static inline uint64_t wlz_block_count_for(uint64_t content_size, unsigned block_log)
{
	return (content_size + ((uint64_t)1 << block_log) - 1) >> block_log;
}

void wlz_header_write(uint8_t out[WLZ_HEADER_SIZE], const wlz_header *h);
wlz_error wlz_header_read(const uint8_t *src, size_t src_size, wlz_header *h);

void wlz_entry_write(uint8_t out[WLZ_INDEX_ENTRY_SIZE], const wlz_block_entry *e);
void wlz_entry_read(const uint8_t in[WLZ_INDEX_ENTRY_SIZE], wlz_block_entry *e);

/* The footer's content checksum: XXH3-64 of the blocks' content checksums,
 * 8 bytes little-endian each, in block order (so that no decoder needs a
 * serial pass over the whole output to check it). */
wlz_error wlz_content_digest(const uint8_t *index, uint64_t nb, uint64_t *digest);

/* Checks everything outside the block payloads: header, index (hash, sizes,
 * contiguity), ending.  On success the entries can be read without further
 * bounds checks of their offsets. */
wlz_error wlz_archive_validate(const uint8_t *src, size_t src_size, wlz_header *h);

#endif
