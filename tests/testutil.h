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
/* src[0..n) as an archive, level 3 on 2 threads, blocks of 2^block_log
 * and a window of 2^window_log (0: the defaults); a failure is counted.
 * Never NULL; free() it.  (testutil_wlz.c: programs using it link
 * libwavelz.) */
uint8_t *tu_compress(const uint8_t *src, size_t n, unsigned block_log, unsigned window_log, size_t *out);
uint64_t tu_xxh3(const void *p, size_t n);
/* The content of a one-frame .zst file (NULL if unreadable); free() it. */
uint8_t *tu_read_zst(const char *path, size_t *n);
double tu_now(void);        /* seconds, monotonic enough for reports */
size_t tu_block_count(uint64_t n, unsigned block_log);
/* The gap of the --parallel rule (SPEC.md section 8) for an input of nb
 * blocks whose size is known, in a window of at least 2 (parallel - 1)
 * blocks: none under 16 blocks, then one more a block up to parallel - 1
 * (at the price-based levels, 10 and up, one more every 16 blocks). */
size_t tu_gap(int parallel, size_t nb, int level);

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

/* Stream callbacks over memory, for wlz_compress_stream and
 * wlz_decompress_stream.  tu_pieces says how a reader cuts its buffer:
 * with mul != 0, pieces of 1 + ((at * mul) >> shift) % max bytes (odd
 * sizes that vary with the position at); with mul == 0, of max bytes each;
 * never over the callback's cap or what is left. */
typedef struct tu_pieces {
	size_t max;
	uint64_t mul;
	unsigned shift;
} tu_pieces;

/* tu_mem_read: a wlz_read_fn that hands out p[at..n) in pieces. */
typedef struct tu_memrd {
	const uint8_t *p;
	size_t n, at;
	tu_pieces pc;
} tu_memrd;
size_t tu_mem_read(void *opaque, void *buf, size_t cap);

/* tu_cmp_write: a wlz_write_fn that compares what it gets with
 * want[at..n) as it comes, advancing at while the bytes match; on a
 * mismatch or bytes past n it sets differ, and stops the stream (returns
 * nonzero) unless keep_going, so that a decoder that goes on writing is
 * caught too. */
typedef struct tu_cmpwr {
	const uint8_t *want;
	size_t n, at;
	int differ;
	int keep_going;
} tu_cmpwr;
int tu_cmp_write(void *opaque, const void *buf, size_t n);

/* tu_stream_decode(dc, arc, asize, pc, out, limit, got, wrong): streams
 * arc[0..asize), read in pieces pc, through dc with its memory limit set
 * to limit (0: the default; put back to 0 after), the output checked by
 * tu_cmp_write against out.  Returns the error; *got (may be NULL) gets
 * the content size the decoder reported, *wrong (may be NULL) whether the
 * output was wrong: a byte differed, the size reported is not the bytes
 * written, or WLZ_OK with the content incomplete.  Needs the library, so
 * it is here only when wavelz.h was included first (forge_bad links this
 * file without the library). */
#ifdef WAVELZ_H
static inline wlz_error tu_stream_decode(wlz_dctx *dc, const uint8_t *arc, size_t asize, tu_pieces pc,
					 tu_cmpwr *out, uint64_t limit, uint64_t *got, int *wrong)
{
	tu_memrd in = { arc, asize, 0, pc };
	uint64_t n = 0;
	wlz_dctx_set_memory_limit(dc, limit);
	wlz_error e = wlz_decompress_stream(dc, tu_mem_read, &in, tu_cmp_write, out, &n);
	wlz_dctx_set_memory_limit(dc, 0);
	if (got)
		*got = n;
	if (wrong)
		*wrong = out->differ || n != out->at || (e == WLZ_OK && out->at != out->n);
	return e;
}
#endif

#endif /* WLZ_TESTUTIL_H */
