/*
 * test_api.c - misuse of the public API: NULL arguments, buffers one byte
 * too small, options out of range, error names, freeing NULL, and input
 * that is not a wavelz archive at all.
 */
#include "testutil.h"
#include "wavelz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define CHECK_ERR(call, want) \
	do { \
		wlz_error e_ = (call); \
		TU_CHECK(e_ == (want), "%s returned %s, expected %s", #call, wlz_error_name(e_), \
			 wlz_error_name(want)); \
	} while (0)

#define CHECK_NOT_OK(call) \
	do { \
		wlz_error e_ = (call); \
		TU_CHECK(e_ != WLZ_OK && e_ < WLZ_ERR_COUNT_, "%s returned %s (%d)", #call, \
			 wlz_error_name(e_), (int)e_); \
	} while (0)

static void error_names(void)
{
	for (int i = 0; i < WLZ_ERR_COUNT_; i++) {
		const char *a = wlz_error_name((wlz_error)i);
		TU_CHECK(a != NULL && a[0] != '\0', "wlz_error_name(%d) is NULL or empty", i);
		if (!a)
			continue;
		for (int j = 0; j < i; j++) {
			const char *b = wlz_error_name((wlz_error)j);
			TU_CHECK(!b || strcmp(a, b) != 0, "codes %d and %d share the name \"%s\"", i, j, a);
		}
	}
	TU_CHECK(wlz_error_name(WLZ_ERR_COUNT_) != NULL, "name of WLZ_ERR_COUNT_");
	TU_CHECK(wlz_error_name((wlz_error)1000) != NULL, "name of 1000");
	TU_CHECK(wlz_error_name((wlz_error)-1) != NULL, "name of -1");
}

static void bad_options(void)
{
	struct {
		const char *what;
		int level, threads, depth;
		unsigned block_log;
		int ok;
	} cases[] = {
		{ "level 0", 0, 0, -1, 20, 0 },
		{ "level 20", 20, 0, -1, 20, 0 },
		{ "level -1", -1, 0, -1, 20, 0 },
		{ "block_log 15", 3, 0, -1, 15, 0 },
		{ "block_log 27", 3, 0, -1, 27, 0 },
		{ "block_log 0", 3, 0, -1, 0, 0 },
		{ "threads -1", 3, -1, -1, 20, 0 },
		{ "depth -2", 3, 0, -2, 20, 0 },
		/* The edges of every range are valid. */
		{ "level 1", 1, 0, -1, 20, 1 },
		{ "level 19", 19, 0, -1, 20, 1 },
		{ "block_log 16", 3, 0, -1, 16, 1 },
		{ "block_log 26", 3, 0, -1, 26, 1 },
		{ "threads 1", 3, 1, -1, 20, 1 },
		{ "threads 64", 3, 64, -1, 20, 1 },
		{ "depth 0", 3, 0, 0, 20, 1 },
		{ "depth 100", 3, 0, 100, 20, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wlz_options opt;
		wlz_cctx *cctx;
		wlz_error e;
		wlz_options_init(&opt);
		opt.level = cases[i].level;
		opt.threads = cases[i].threads;
		opt.depth = cases[i].depth;
		opt.block_log = cases[i].block_log;
		e = wlz_options_check(&opt);
		cctx = wlz_cctx_create(&opt);
		if (cases[i].ok) {
			TU_CHECK(e == WLZ_OK, "%s: options_check %s", cases[i].what, wlz_error_name(e));
			TU_CHECK(cctx != NULL, "%s: cctx_create returned NULL", cases[i].what);
		} else {
			TU_CHECK(e != WLZ_OK, "%s: options_check accepted it", cases[i].what);
			TU_CHECK(e == WLZ_ERR_PARAM, "%s: options_check %s, expected WLZ_ERR_PARAM",
				 cases[i].what, wlz_error_name(e));
			TU_CHECK(cctx == NULL, "%s: cctx_create accepted it", cases[i].what);
		}
		wlz_cctx_free(cctx);
	}
}

static void parallel_option(void)
{
	static const struct {
		int parallel, ok;
	} cases[] = { { 0, 0 }, { -1, 0 }, { WLZ_PARALLEL_MAX + 1, 0 }, { 1, 1 }, { 16, 1 },
		      { WLZ_PARALLEL_MAX, 1 } };
	wlz_options opt;
	wlz_options_init(&opt);
	TU_CHECK(opt.parallel == WLZ_PARALLEL_DEFAULT, "default parallel %d", opt.parallel);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		opt.parallel = cases[i].parallel;
		wlz_error e = wlz_options_check(&opt);
		wlz_cctx *cctx = wlz_cctx_create(&opt);
		TU_CHECK((e == WLZ_OK) == cases[i].ok && (cctx != NULL) == cases[i].ok,
			 "parallel %d: options_check %s, cctx %s", cases[i].parallel, wlz_error_name(e),
			 cctx ? "made" : "refused");
		TU_CHECK(cases[i].ok || e == WLZ_ERR_PARAM, "parallel %d: %s, expected WLZ_ERR_PARAM",
			 cases[i].parallel, wlz_error_name(e));
		wlz_cctx_free(cctx);
	}
}

static void null_args(const uint8_t *arc, size_t asize, size_t n)
{
	wlz_cctx *cctx = wlz_cctx_create(NULL);
	wlz_dctx *dctx = wlz_dctx_create(1);
	uint8_t src[100] = { 1, 2, 3 }, dst[4096];
	uint8_t *out = tu_xmalloc(n);
	size_t sz;
	wlz_info info;
	uint64_t cs;

	if (!cctx || !dctx) {
		TU_CHECK(0, "context creation failed");
		return;
	}
	CHECK_ERR(wlz_compress(NULL, dst, sizeof dst, src, sizeof src, &sz), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_compress(cctx, NULL, sizeof dst, src, sizeof src, &sz), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_compress(cctx, dst, sizeof dst, NULL, sizeof src, &sz), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_compress(cctx, dst, sizeof dst, src, sizeof src, NULL), WLZ_ERR_PARAM);

	CHECK_ERR(wlz_decompress(NULL, out, n, arc, asize, &sz), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_decompress(dctx, NULL, n, arc, asize, &sz), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_decompress(dctx, out, n, NULL, asize, &sz), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_decompress(dctx, out, n, arc, asize, NULL), WLZ_ERR_PARAM);

	CHECK_ERR(wlz_get_info(NULL, asize, &info), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_get_info(arc, asize, NULL), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_get_content_size(NULL, asize, &cs), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_get_content_size(arc, asize, NULL), WLZ_ERR_PARAM);
	CHECK_ERR(wlz_options_check(NULL), WLZ_ERR_PARAM);

	/* The contexts still work after refusing all that. */
	sz = 0;
	CHECK_ERR(wlz_decompress(dctx, out, n, arc, asize, &sz), WLZ_OK);
	TU_CHECK(sz == n, "decoded %zu of %zu", sz, n);
	CHECK_ERR(wlz_compress(cctx, dst, sizeof dst, src, sizeof src, &sz), WLZ_OK);

	wlz_cctx_free(cctx);
	wlz_dctx_free(dctx);
	free(out);
}

static void small_buffers(const uint8_t *src, size_t n)
{
	wlz_cctx *cctx = wlz_cctx_create(NULL);
	wlz_dctx *dctx = wlz_dctx_create(2);
	size_t cap = wlz_compress_bound(n), csize = 0, sz;
	uint8_t *arc = tu_xmalloc(cap), *small, *out = tu_xmalloc(n);

	if (!cctx || !dctx) {
		TU_CHECK(0, "context creation failed");
		return;
	}
	CHECK_ERR(wlz_compress(cctx, arc, cap, src, n, &csize), WLZ_OK);
	/* Exactly one byte short, in a buffer of that size (for ASan). */
	small = tu_xmalloc(csize - 1);
	CHECK_ERR(wlz_compress(cctx, small, csize - 1, src, n, &sz), WLZ_ERR_DST_TOO_SMALL);
	CHECK_ERR(wlz_compress(cctx, small, WLZ_HEADER_SIZE - 1, src, n, &sz), WLZ_ERR_DST_TOO_SMALL);
	CHECK_ERR(wlz_compress(cctx, small, 0, src, n, &sz), WLZ_ERR_DST_TOO_SMALL);
	free(small);
	/* The empty input still needs a header. */
	{
		uint8_t tiny[WLZ_HEADER_SIZE - 1];
		CHECK_ERR(wlz_compress(cctx, tiny, sizeof tiny, src, 0, &sz), WLZ_ERR_DST_TOO_SMALL);
	}

	CHECK_ERR(wlz_decompress(dctx, out, n - 1, arc, csize, &sz), WLZ_ERR_DST_TOO_SMALL);
	CHECK_ERR(wlz_decompress(dctx, out, 0, arc, csize, &sz), WLZ_ERR_DST_TOO_SMALL);
	/* A larger buffer is fine and the size says how much was written. */
	{
		uint8_t *big = tu_xmalloc(n + 1000);
		sz = 0;
		CHECK_ERR(wlz_decompress(dctx, big, n + 1000, arc, csize, &sz), WLZ_OK);
		TU_CHECK(sz == n && memcmp(big, src, n) == 0, "decode into a larger buffer");
		free(big);
	}

	/* Bounds: the empty input has one; the impossible size has none. */
	TU_CHECK(wlz_compress_bound(0) >= WLZ_HEADER_SIZE, "bound(0) = %zu", wlz_compress_bound(0));
	TU_CHECK(wlz_compress_bound(UINT64_MAX) == 0, "bound(UINT64_MAX) = %zu",
		 wlz_compress_bound(UINT64_MAX));
	TU_CHECK(wlz_compress_bound(n) >= wlz_compress_bound(n / 2), "bound not monotone");

	wlz_cctx_free(cctx);
	wlz_dctx_free(dctx);
	free(arc);
	free(out);
}

static void not_an_archive(uint64_t seed, const uint8_t *arc, size_t asize)
{
	static const size_t sizes[] = { 0, 1, 4, 47, 48, 49, 100, 4096, 100000 };
	wlz_dctx *dctx = wlz_dctx_create(2);
	uint8_t *out = tu_xmalloc(1 << 20), *junk = tu_xmalloc(100000);
	size_t sz;
	wlz_info info;
	uint64_t cs;
	tu_rng r;

	if (!dctx) {
		TU_CHECK(0, "dctx_create");
		return;
	}
	tu_rng_seed(&r, seed);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint8_t *p = tu_xmalloc(sizes[i]);
		tu_rng_fill(&r, p, sizes[i]);
		CHECK_NOT_OK(wlz_decompress(dctx, out, 1 << 20, p, sizes[i], &sz));
		CHECK_NOT_OK(wlz_get_info(p, sizes[i], &info));
		if (sizes[i] >= WLZ_HEADER_SIZE)
			CHECK_ERR(wlz_get_content_size(p, sizes[i], &cs), WLZ_ERR_BAD_MAGIC);
		free(p);
	}

	/* A zstd frame is the likeliest wrong file to be fed in. */
	{
		size_t zcap = ZSTD_compressBound(100000), zn;
		uint8_t *z = tu_xmalloc(zcap);
		tu_fill(TU_TEXT, junk, 100000, seed);
		zn = ZSTD_compress(z, zcap, junk, 100000, 3);
		if (!ZSTD_isError(zn)) {
			uint8_t *exact = tu_xmalloc(zn);
			memcpy(exact, z, zn);
			CHECK_NOT_OK(wlz_decompress(dctx, out, 1 << 20, exact, zn, &sz));
			CHECK_NOT_OK(wlz_get_info(exact, zn, &info));
			CHECK_ERR(wlz_get_content_size(exact, zn, &cs), WLZ_ERR_BAD_MAGIC);
			free(exact);
		}
		free(z);
	}

	/* A good archive with its first byte changed is no longer ours. */
	{
		uint8_t *p = tu_xmalloc(asize);
		memcpy(p, arc, asize);
		p[0] ^= 0x20;
		CHECK_ERR(wlz_get_content_size(p, asize, &cs), WLZ_ERR_BAD_MAGIC);
		CHECK_NOT_OK(wlz_decompress(dctx, out, 1 << 20, p, asize, &sz));
		free(p);
	}
	/* Two archives back to back are not one archive. */
	{
		uint8_t *p = tu_xmalloc(2 * asize);
		memcpy(p, arc, asize);
		memcpy(p + asize, arc, asize);
		CHECK_NOT_OK(wlz_decompress(dctx, out, 1 << 20, p, 2 * asize, &sz));
		free(p);
	}
	wlz_dctx_free(dctx);
	free(out);
	free(junk);
}

/* wlz_error_detail names the failing block and rule, also when a worker
 * thread found it, and a successful call clears it. */
static void error_detail(const uint8_t *arc, size_t asize, size_t n)
{
	uint8_t *bad = tu_xmalloc(asize), *out = tu_xmalloc(n);
	memcpy(bad, arc, asize);
	/* the first payload byte of block 2 (index entry 2, data_offset) */
	uint64_t at = 0;
	memcpy(&at, bad + 48 + 80 * 2, 8);
	TU_CHECK(at < asize, "block 2 offset %llu", (unsigned long long)at);
	if (at < asize)
		bad[at] ^= 0x40;
	for (int threads = 1; threads <= 4; threads += 3) {
		wlz_dctx *d = wlz_dctx_create(threads);
		size_t got = 0;
		TU_CHECK(d != NULL, "dctx_create");
		if (!d)
			break;
		wlz_error e = wlz_decompress(d, out, n, arc, asize, &got);
		TU_CHECK(e == WLZ_OK && wlz_error_detail()[0] == 0, "T=%d: good archive: %s, detail '%s'",
			 threads, wlz_error_name(e), wlz_error_detail());
		e = wlz_decompress(d, out, n, bad, asize, &got);
		const char *want = "block 2: payload checksum mismatch";
		TU_CHECK(e == WLZ_ERR_CHECKSUM && strncmp(wlz_error_detail(), want, strlen(want)) == 0,
			 "T=%d: damaged block 2: %s, detail '%s'", threads, wlz_error_name(e),
			 wlz_error_detail());
		wlz_info info;
		e = wlz_get_info(arc, asize, &info);
		TU_CHECK(e == WLZ_OK && wlz_error_detail()[0] == 0, "detail not cleared: '%s'",
			 wlz_error_detail());
		wlz_dctx_free(d);
	}
	free(bad);
	free(out);
}

int main(void)
{
	uint64_t seed = tu_seed(777);
	size_t n = 300000, asize = 0;
	uint8_t *src = tu_xmalloc(n), *arc = tu_xmalloc(wlz_compress_bound(n) + 1);
	wlz_cctx *cctx;
	wlz_options opt;

	/* Freeing NULL is a no-op. */
	wlz_cctx_free(NULL);
	wlz_dctx_free(NULL);

	error_names();
	bad_options();
	parallel_option();

	tu_fill(TU_FASTQ, src, n, seed);
	wlz_options_init(&opt);
	opt.block_log = 16;
	cctx = wlz_cctx_create(&opt);
	TU_CHECK(cctx != NULL, "cctx_create");
	if (cctx && wlz_compress(cctx, arc, wlz_compress_bound(n), src, n, &asize) == WLZ_OK) {
		null_args(arc, asize, n);
		small_buffers(src, n);
		not_an_archive(seed, arc, asize);
		error_detail(arc, asize, n);
	} else {
		TU_CHECK(0, "cannot make the test archive");
	}
	wlz_cctx_free(cctx);
	{
		wlz_dctx *d0 = wlz_dctx_create(0);
		TU_CHECK(d0 != NULL, "wlz_dctx_create(0) (every core)");
		wlz_dctx_free(d0);
	}
	free(src);
	free(arc);
	return tu_finish("test_api");
}
