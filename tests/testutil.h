/*
 * testutil.h - helpers shared by the wavelz test programs: a seeded data
 * generator, checks that count failures instead of aborting (so one run
 * reports every problem), and small I/O helpers.
 */
#ifndef WLZ_TESTUTIL_H
#define WLZ_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define TU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TU_PRINTF(f, a)
#endif

/* splitmix64: tiny, fast, and every seed gives a full-period stream. */
typedef struct tu_rng {
	uint64_t s;
} tu_rng;

void tu_rng_seed(tu_rng *r, uint64_t seed);
uint64_t tu_rng_next(tu_rng *r);
uint64_t tu_rng_below(tu_rng *r, uint64_t n);
void tu_rng_fill(tu_rng *r, uint8_t *buf, size_t n);

enum tu_kind {
	TU_RANDOM,   /* incompressible */
	TU_ZEROS,
	TU_REPEATS,  /* a 10 KiB random chunk repeated */
	TU_TEXT,     /* words from a small dictionary */
	TU_FASTQ,    /* @read headers, ACGT, '+', quality lines */
	TU_SKEWED,   /* bytes from a skewed distribution: entropy coding */
	TU_KIND_COUNT
};

const char *tu_kind_name(int kind);
/* Fills buf[0..n) with data of the given kind; same seed, same bytes. */
void tu_fill(int kind, uint8_t *buf, size_t n, uint64_t seed);

/* The seed: $WLZ_TEST_SEED if set, else dflt.  Printed so that any failure
 * can be replayed. */
uint64_t tu_seed(uint64_t dflt);

extern long tu_failures;
void tu_fail(const char *file, int line, const char *expr, const char *fmt, ...)
	TU_PRINTF(4, 5);
#define TU_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			tu_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/* Prints a summary and returns the process exit status. */
int tu_finish(const char *name);

void *tu_xmalloc(size_t n); /* never NULL; malloc(0) is avoided */
uint64_t tu_xxh3(const void *p, size_t n);
double tu_now(void);        /* seconds, monotonic enough for reports */
size_t tu_block_count(uint64_t n, unsigned block_log);

/* The archive layout of format version 4, read without the library, so
 * tests can find (and damage) a block's bytes.  A member is
 *   header (32) | block* | index | footer (24)
 * where a block is an 80-byte header (tag "wlzB", length at 4, the four
 * streams' stored sizes at 20 + 8 s, its own XXH3 at 72) and its payload;
 * the index is "wlzI", 0, the block count, per block (header offset from
 * the member's start, content checksum), content size, content checksum
 * and its own XXH3 (40 + 16 n bytes); the footer is the index offset, the
 * member size and "wlzEND\r\n".  Archives may hold several members. */
#define TU_HEADER_SIZE 32
#define TU_BHEAD_SIZE 80
#define TU_INDEX_FIXED 40
#define TU_INDEX_ENTRY 16
#define TU_FOOTER_SIZE 24
#define TU_BLOCK_TAG 0x427A6C77u             /* "wlzB" */
#define TU_INDEX_TAG 0x497A6C77u             /* "wlzI" */
#define TU_END_MAGIC 0x0A0D444E457A6C77ull  /* "wlzEND\r\n" */

typedef struct tu_block {
	size_t head;      /* the block header, from the buffer's start */
	size_t payload;   /* its payload */
	size_t psize;     /* payload bytes: the four stored stream sizes */
	uint32_t length;  /* decoded bytes */
} tu_block;

uint32_t tu_rd32(const uint8_t *p);
uint64_t tu_rd64(const uint8_t *p);
void tu_wr32(uint8_t *p, uint32_t v);
void tu_wr64(uint8_t *p, uint64_t v);

/* Walks the block headers of the member at arc[at..size) up to its index
 * tag (no checksum is checked): fills out[0..max) (out may be NULL) and
 * returns the block count, or -1 if the walk leaves the buffer or meets a
 * tag that is neither.  *index_at (may be NULL) gets the index's offset. */
long tu_walk_blocks(const uint8_t *arc, size_t size, size_t at, tu_block *out, size_t max,
		    size_t *index_at);
/* The same member found from its end: the footer at arc[end - 24..end)
 * and the index it names.  Fills heads[0..max) with the block header
 * offsets from the buffer's start, *start (may be NULL) with the member's
 * first byte; returns the block count, or -1 if the footer or index is
 * malformed or out of the buffer. */
long tu_index_blocks(const uint8_t *arc, size_t end, size_t *start, size_t *heads, size_t max);
/* Recomputes the XXH3 that ends a header, a block header, or an index of
 * n blocks, after a test changed a field. */
void tu_fix_header(uint8_t *hdr);
void tu_fix_bhead(uint8_t *bh);
void tu_fix_index(uint8_t *idx, uint64_t n);

#endif /* WLZ_TESTUTIL_H */
