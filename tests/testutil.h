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

#endif /* WLZ_TESTUTIL_H */
