/*
 * test_api.c - misuse of the public API: NULL arguments, buffers one byte
 * too small, options out of range, error names, freeing NULL, and input
 * that is not a wavelz archive at all.  Then what format version 4 added:
 * the layout (block headers, index and footer agree), members back to back,
 * streaming through callbacks that hand over odd pieces (the bytes of
 * wlz_compress; a writer that says stop; failing readers), and windows
 * (the option, the memory limit of the stream decoder, matches never
 * reaching back further).
 */
#include "testutil.h"
#include "wavelz.h"

#define _POSIX_C_SOURCE 200809L  /* fork, alarm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
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
	} cases[] = { { WLZ_PARALLEL_AUTO, 1 }, { -1, 0 }, { WLZ_PARALLEL_MAX + 1, 0 }, { 1, 1 }, { 16, 1 },
		      { WLZ_PARALLEL_MAX, 1 } };
	wlz_options opt;
	wlz_options_init(&opt);
	TU_CHECK(opt.parallel == WLZ_PARALLEL_AUTO, "default parallel %d", opt.parallel);
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
	static const size_t sizes[] = { 0, 1, 4, 31, 32, 33, 95, 96, 97, 100, 4096, 100000 };
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
		CHECK_NOT_OK(wlz_get_content_size(p, sizes[i], &cs));
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
	/* A version 3 archive (the version field, header checksum fixed) is
	 * refused by its version, not taken for something else. */
	{
		uint8_t *p = tu_xmalloc(asize);
		memcpy(p, arc, asize);
		TU_CHECK(p[4] == WLZ_FORMAT_VERSION && p[5] == 0, "version field %u %u", p[4], p[5]);
		p[4] = 3;
		tu_fix_header(p);
		CHECK_ERR(wlz_get_info(p, asize, &info), WLZ_ERR_BAD_VERSION);
		CHECK_ERR(wlz_get_content_size(p, asize, &cs), WLZ_ERR_BAD_VERSION);
		CHECK_ERR(wlz_decompress(dctx, out, 1 << 20, p, asize, &sz), WLZ_ERR_BAD_VERSION);
		free(p);
	}
	wlz_dctx_free(dctx);
	free(out);
	free(junk);
}

/* Every byte of an archive accounted for: the block headers walked from
 * the front and the index found from the footer name the same blocks, and
 * header + blocks + index + footer is the whole member. */
static void layout(const uint8_t *arc, size_t asize, size_t n, unsigned block_log, const char *what)
{
	size_t nb = tu_block_count(n, block_log), index_at = 0, start = 1;
	tu_block *blk = tu_xmalloc((nb + 1) * sizeof *blk);
	size_t *heads = tu_xmalloc((nb + 1) * sizeof *heads);
	long walked = tu_walk_blocks(arc, asize, 0, blk, nb + 1, &index_at);
	long indexed = tu_index_blocks(arc, asize, &start, heads, nb + 1);
	wlz_info info;

	TU_CHECK(walked == (long)nb && indexed == (long)nb && start == 0,
		 "%s: %zu blocks: %ld walked, %ld in the index, member at %zu", what, nb, walked, indexed, start);
	if (walked == (long)nb && indexed == (long)nb) {
		size_t payloads = 0;
		uint64_t content = 0;
		for (size_t b = 0; b < nb; b++) {
			TU_CHECK(blk[b].head == heads[b], "%s: block %zu at %zu, the index says %zu", what, b,
				 blk[b].head, heads[b]);
			TU_CHECK(blk[b].length == (b + 1 < nb ? (size_t)1 << block_log : n - (b << block_log)),
				 "%s: block %zu of %u bytes", what, b, blk[b].length);
			payloads += blk[b].psize;
			content += blk[b].length;
		}
		TU_CHECK(content == n, "%s: the block headers hold %llu bytes", what, (unsigned long long)content);
		TU_CHECK(index_at == TU_HEADER_SIZE + nb * TU_BHEAD_SIZE + payloads,
			 "%s: index at %zu", what, index_at);
		TU_CHECK(asize == index_at + TU_INDEX_FIXED + TU_INDEX_ENTRY * nb + TU_FOOTER_SIZE,
			 "%s: %zu bytes, expected header + blocks + index + footer = %zu", what, asize,
			 index_at + TU_INDEX_FIXED + TU_INDEX_ENTRY * nb + TU_FOOTER_SIZE);
		TU_CHECK(tu_rd64(arc + index_at + 16 + TU_INDEX_ENTRY * nb) == n,
			 "%s: the index's content size", what);
		TU_CHECK(tu_rd64(arc + 16) == n, "%s: the header's content size %llu", what,
			 (unsigned long long)tu_rd64(arc + 16));
		TU_CHECK(wlz_get_info(arc, asize, &info) == WLZ_OK && info.block_count == nb &&
			 info.archive_size == asize && info.content_size == n,
			 "%s: get_info disagrees with the layout", what);
	}
	free(blk);
	free(heads);
}

/* ----------------------------------------------------------- concatenation */

/* Compresses src[0..n) with the given options into a new buffer. */
static uint8_t *make_archive(const uint8_t *src, size_t n, unsigned block_log, int level, unsigned window_log,
			     size_t *asize)
{
	wlz_options opt;
	wlz_options_init(&opt);
	opt.block_log = block_log;
	opt.level = level;
	opt.window_log = window_log;
	wlz_cctx *c = wlz_cctx_create(&opt);
	size_t cap = wlz_compress_bound(n);
	uint8_t *a = tu_xmalloc(cap);
	wlz_error e = c ? wlz_compress(c, a, cap, src, n, asize) : WLZ_ERR_PARAM;
	TU_CHECK(e == WLZ_OK, "compress %zu bytes (block_log %u level %d window_log %u): %s", n, block_log,
		 level, window_log, wlz_error_name(e));
	wlz_cctx_free(c);
	if (e != WLZ_OK) {
		free(a);
		return NULL;
	}
	return a;
}

/* Members back to back decode to their contents back to back. */
static void concatenation(uint64_t seed, const uint8_t *src, size_t n, const uint8_t *arc, size_t asize)
{
	const size_t n2 = 200003;
	uint8_t *src2 = tu_xmalloc(n2), *a2, *a0, *cat, *want, *out;
	size_t s2 = 0, s0 = 0, sz;
	wlz_dctx *d1 = wlz_dctx_create(1), *d3 = wlz_dctx_create(3);
	wlz_info info;
	uint64_t cs;

	tu_fill(TU_TEXT, src2, n2, seed + 1);
	a2 = make_archive(src2, n2, 17, 5, 0, &s2);
	a0 = make_archive(src, 0, 16, 3, 0, &s0);  /* an empty member */
	if (!a2 || !a0 || !d1 || !d3) {
		TU_CHECK(0, "concatenation: setup");
		goto done;
	}
	TU_CHECK(s0 == TU_HEADER_SIZE + TU_INDEX_FIXED + TU_FOOTER_SIZE, "the empty archive has %zu bytes", s0);
	layout(a0, s0, 0, 16, "empty input");
	layout(a2, s2, n2, 17, "text 200003, block_log 17");

	/* arc | arc: the same member twice */
	cat = tu_xmalloc(2 * asize + s2 + s0);
	want = tu_xmalloc(2 * n + n2);
	out = tu_xmalloc(2 * n + n2 + 1);
	memcpy(cat, arc, asize);
	memcpy(cat + asize, arc, asize);
	memcpy(want, src, n);
	memcpy(want + n, src, n);
	for (int t = 0; t < 2; t++) {
		wlz_dctx *d = t ? d3 : d1;
		sz = 0;
		memset(out, 0xA5, 2 * n);
		CHECK_ERR(wlz_decompress(d, out, 2 * n, cat, 2 * asize, &sz), WLZ_OK);
		TU_CHECK(sz == 2 * n && memcmp(out, want, 2 * n) == 0,
			 "two copies of one archive: %zu bytes decoded, expected the content twice (%zu)", sz, 2 * n);
		/* Room for one member only is too small. */
		CHECK_ERR(wlz_decompress(d, out, 2 * n - 1, cat, 2 * asize, &sz), WLZ_ERR_DST_TOO_SMALL);
		CHECK_ERR(wlz_decompress(d, out, n, cat, 2 * asize, &sz), WLZ_ERR_DST_TOO_SMALL);
	}
	CHECK_ERR(wlz_get_content_size(cat, 2 * asize, &cs), WLZ_OK);
	TU_CHECK(cs == 2 * n, "content size of two members: %llu, expected %zu", (unsigned long long)cs, 2 * n);
	/* get_info describes the first member and says where the next starts. */
	CHECK_ERR(wlz_get_info(cat, 2 * asize, &info), WLZ_OK);
	TU_CHECK(info.archive_size == asize && info.content_size == n,
		 "get_info of two members: archive_size %llu (member %zu), content_size %llu (%zu)",
		 (unsigned long long)info.archive_size, asize, (unsigned long long)info.content_size, n);
	CHECK_ERR(wlz_get_info(cat + info.archive_size, 2 * asize - (size_t)info.archive_size, &info), WLZ_OK);

	/* arc | empty | a2: different block sizes, levels, an empty member */
	memcpy(cat + asize, a0, s0);
	memcpy(cat + asize + s0, a2, s2);
	memcpy(want + n, src2, n2);
	{
		const size_t total = asize + s0 + s2, content = n + n2;
		for (int t = 0; t < 2; t++) {
			sz = 0;
			CHECK_ERR(wlz_decompress(t ? d3 : d1, out, content + 1, cat, total, &sz), WLZ_OK);
			TU_CHECK(sz == content && memcmp(out, want, content) == 0,
				 "three members (%d thread(s)): %zu bytes decoded of %zu", t ? 3 : 1, sz, content);
		}
		CHECK_ERR(wlz_get_content_size(cat, total, &cs), WLZ_OK);
		TU_CHECK(cs == content, "content size of three members: %llu, expected %zu", (unsigned long long)cs,
			 content);
		/* get_content_size needs every member: a prefix that stops at
		 * a member's end is whole, one that stops anywhere else is not. */
		CHECK_ERR(wlz_get_content_size(cat, asize, &cs), WLZ_OK);
		TU_CHECK(cs == n, "the first member alone: %llu", (unsigned long long)cs);
		CHECK_ERR(wlz_get_content_size(cat, asize + s0, &cs), WLZ_OK);
		TU_CHECK(cs == n, "the first two members: %llu", (unsigned long long)cs);
		static const size_t cut[] = { 1, 4, 31, 32, 100, 1000 };
		for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
			size_t len = total - cut[i];
			uint8_t *p = tu_xmalloc(len);  /* exactly its size (ASan) */
			memcpy(p, cat, len);
			CHECK_NOT_OK(wlz_get_content_size(p, len, &cs));
			sz = 1;
			CHECK_NOT_OK(wlz_decompress(d3, out, content, p, len, &sz));
			TU_CHECK(sz == 0, "a failed decode reports %zu bytes", sz);
			free(p);
		}
		/* The second member cut short right after its header. */
		CHECK_ERR(wlz_get_content_size(cat, asize + WLZ_HEADER_SIZE, &cs), WLZ_ERR_TRUNCATED);
		/* Bytes after the last member that are not a member. */
		{
			static const uint8_t tails[][4] = { { 0, 0, 0, 0 }, { 0x89, 'W', 'L', 'Y' } };
			for (int k = 0; k < 2; k++) {
				for (size_t len = 1; len <= 4; len++) {
					uint8_t *p = tu_xmalloc(total + len);
					memcpy(p, cat, total);
					memcpy(p + total, tails[k], len);
					wlz_error e = wlz_decompress(d1, out, content + 1, p, total + len, &sz);
					TU_CHECK(e != WLZ_OK, "%zu trailing bytes %02x.. decoded to WLZ_OK", len, tails[k][0]);
					e = wlz_get_content_size(p, total + len, &cs);
					TU_CHECK(e != WLZ_OK, "%zu trailing bytes %02x..: get_content_size accepted them",
						 len, tails[k][0]);
					if (k == 0)
						TU_CHECK(e == WLZ_ERR_BAD_MAGIC, "trailing zero bytes: %s",
							 wlz_error_name(e));
					free(p);
				}
			}
		}
		/* A damaged second member fails the whole decode. */
		{
			tu_block b0;
			uint8_t *p = tu_xmalloc(total);
			memcpy(p, cat, total);
			if (tu_walk_blocks(p, total, asize + s0, &b0, 1, NULL) >= 1) {
				p[b0.payload + b0.psize / 2] ^= 0x04;
				CHECK_ERR(wlz_decompress(d3, out, content, p, total, &sz), WLZ_ERR_CHECKSUM);
			} else {
				TU_CHECK(0, "no block in the third member");
			}
			free(p);
		}
	}
	free(cat);
	free(want);
	free(out);
done:
	free(src2);
	free(a2);
	free(a0);
	wlz_dctx_free(d1);
	wlz_dctx_free(d3);
}

/* wlz_error_detail names the failing block and rule, also when a worker
 * thread found it, and a successful call clears it. */
static void error_detail(const uint8_t *arc, size_t asize, size_t n)
{
	uint8_t *bad = tu_xmalloc(asize), *out = tu_xmalloc(n);
	tu_block blk[3];
	size_t heads[3];
	memcpy(bad, arc, asize);
	/* the first payload byte of block 2, found from the front and from
	 * the index at the end */
	long nb = tu_walk_blocks(bad, asize, 0, blk, 3, NULL);
	long ni = tu_index_blocks(bad, asize, NULL, heads, 3);
	TU_CHECK(nb >= 3 && ni == nb && heads[2] == blk[2].head && blk[2].psize > 0,
		 "block 2: %ld blocks walked, %ld indexed", nb, ni);
	if (nb < 3) {
		free(bad);
		free(out);
		return;
	}
	bad[blk[2].payload] ^= 0x40;
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

/* --------------------------------------------------------------- streaming */

/* A reader over a buffer that hands out odd pieces: 1 byte, 7 bytes, or a
 * random size (up to 100 KiB) each call; optionally fails at byte fail_at. */
enum { PIECE_1 = 1, PIECE_7 = 7, PIECE_RANDOM = 0 };
/* The calls of a member function (wlz_dctx_set_member_fn). */
typedef struct member_log {
	unsigned n;
	uint64_t m[8][3];  /* member, archive bytes, content bytes */
} member_log;

static void log_member(void *opaque, unsigned member, uint64_t archive_bytes, uint64_t content_bytes)
{
	member_log *ml = opaque;
	if (ml->n < 8) {
		ml->m[ml->n][0] = member;
		ml->m[ml->n][1] = archive_bytes;
		ml->m[ml->n][2] = content_bytes;
	}
	ml->n++;
}

typedef struct reader {
	const uint8_t *p;
	size_t n, at;
	int piece;
	tu_rng r;
	size_t fail_at;      /* (size_t)-1 = never */
	long calls, zero_cap, after_end;
} reader;

static void reader_init(reader *rd, const uint8_t *p, size_t n, int piece, uint64_t seed)
{
	memset(rd, 0, sizeof *rd);
	rd->p = p;
	rd->n = n;
	rd->piece = piece;
	rd->fail_at = (size_t)-1;
	tu_rng_seed(&rd->r, seed);
}

static size_t piece_read(void *opaque, void *buf, size_t cap)
{
	reader *rd = opaque;
	size_t k;
	rd->calls++;
	if (cap == 0)
		rd->zero_cap++;
	if (rd->at >= rd->fail_at)
		return (size_t)-1;
	if (rd->at == rd->n) {
		rd->after_end++;
		return 0;
	}
	k = rd->piece ? (size_t)rd->piece : 1 + (size_t)tu_rng_below(&rd->r, 100 << 10);
	if (k > cap)
		k = cap;
	if (k > rd->n - rd->at)
		k = rd->n - rd->at;
	if (rd->fail_at != (size_t)-1 && k > rd->fail_at - rd->at)
		k = rd->fail_at - rd->at;
	memcpy(buf, rd->p + rd->at, k);
	rd->at += k;
	return k;
}

/* A writer into a growing buffer that refuses (returns 1) once more than
 * limit bytes would have been written, and counts calls after that. */
typedef struct sink {
	uint8_t *p;
	size_t n, cap, limit;
	long calls, refused, after_refusal;
} sink;

static void sink_init(sink *s, size_t limit)
{
	memset(s, 0, sizeof *s);
	s->limit = limit;
}

static int sink_write(void *opaque, const void *buf, size_t n)
{
	sink *s = opaque;
	s->calls++;
	if (s->refused) {
		s->after_refusal++;
		return 1;
	}
	if (n > s->limit - s->n) {
		s->refused = 1;
		return 1;
	}
	if (s->cap - s->n < n) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap - s->n < n)
			cap *= 2;
		uint8_t *p = realloc(s->p, cap);
		if (!p) {
			fprintf(stderr, "out of memory\n");
			exit(EXIT_FAILURE);
		}
		s->p = p;
		s->cap = cap;
	}
	memcpy(s->p + s->n, buf, n);
	s->n += n;
	return 0;
}

static const char *piece_name(int piece)
{
	return piece == PIECE_1 ? "1-byte" : piece == PIECE_7 ? "7-byte" : "random";
}

/* Streams arc through wlz_decompress_stream with the given reader pieces;
 * checks the content against want and every callback rule.  Returns the
 * error. */
static wlz_error stream_decode(wlz_dctx *d, const uint8_t *arc, size_t asize, int piece, const uint8_t *want,
			       size_t wn, const char *what)
{
	reader rd;
	sink sk;
	uint64_t cs = 12345;
	reader_init(&rd, arc, asize, piece, wn);
	sink_init(&sk, (size_t)-1);
	wlz_error e = wlz_decompress_stream(d, piece_read, &rd, sink_write, &sk, &cs);
	TU_CHECK(rd.zero_cap == 0, "%s: the reader was asked for 0 bytes %ld times", what, rd.zero_cap);
	TU_CHECK(cs == sk.n, "%s: content_size %llu, but %zu bytes were written", what, (unsigned long long)cs, sk.n);
	/* Only verified blocks are written: on success the content, on an
	 * error a prefix of it. */
	TU_CHECK(sk.n <= wn && (sk.n == 0 || memcmp(sk.p, want, sk.n) == 0),
		 "%s (%s pieces): %zu bytes written are not a prefix of the %zu-byte content", what,
		 piece_name(piece), sk.n, wn);
	if (e == WLZ_OK) {
		TU_CHECK(sk.n == wn, "%s (%s pieces): %zu bytes decoded of %zu", what, piece_name(piece), sk.n, wn);
		TU_CHECK(rd.at == asize, "%s: decode stopped at byte %zu of %zu", what, rd.at, asize);
	}
	free(sk.p);
	return e;
}

/* Compressing src[0..n) through callbacks (size hint: hint): a writer that
 * stops after room bytes gives WLZ_ERR_WRITE and no write after it, a
 * reader that fails half way WLZ_ERR_READ. */
static void stream_failures(wlz_cctx *c, const uint8_t *src, size_t n, uint64_t hint, size_t room, uint64_t seed,
			    const char *what)
{
	reader rd;
	sink sk;
	reader_init(&rd, src, n, PIECE_RANDOM, seed);
	sink_init(&sk, room);
	CHECK_ERR(wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, hint), WLZ_ERR_WRITE);
	TU_CHECK(sk.after_refusal == 0, "%s: compress_stream wrote %ld times after the writer refused", what,
		 sk.after_refusal);
	free(sk.p);
	reader_init(&rd, src, n, PIECE_RANDOM, seed);
	rd.fail_at = n / 2;
	sink_init(&sk, (size_t)-1);
	CHECK_ERR(wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, hint), WLZ_ERR_READ);
	/* (the read may fail on another thread: its detail still reaches the
	 * caller's) */
	TU_CHECK(strstr(wlz_error_detail(), "reading the input failed") != NULL, "%s: a failed read's detail: '%s'",
		 what, wlz_error_detail());
	free(sk.p);
}

static void streaming(uint64_t seed, const uint8_t *src, size_t n, const uint8_t *arc, size_t asize)
{
	static const int pieces[] = { PIECE_1, PIECE_7, PIECE_RANDOM };
	wlz_options opt;
	wlz_dctx *d1 = wlz_dctx_create(1), *d3 = wlz_dctx_create(3);
	wlz_error e;
	reader rd;
	sink sk;
	uint64_t cs;

	if (!d1 || !d3) {
		TU_CHECK(0, "dctx_create");
		goto out;
	}
	/* NULL arguments */
	{
		wlz_cctx *c = wlz_cctx_create(NULL);
		reader_init(&rd, src, n, PIECE_7, 1);
		sink_init(&sk, (size_t)-1);
		CHECK_ERR(wlz_compress_stream(NULL, piece_read, &rd, sink_write, &sk, n), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_compress_stream(c, NULL, &rd, sink_write, &sk, n), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_compress_stream(c, piece_read, &rd, NULL, &sk, n), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_decompress_stream(NULL, piece_read, &rd, sink_write, &sk, &cs), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_decompress_stream(d1, NULL, &rd, sink_write, &sk, &cs), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_decompress_stream(d1, piece_read, &rd, NULL, &sk, &cs), WLZ_ERR_PARAM);
		TU_CHECK(rd.calls == 0 && sk.calls == 0, "callbacks called by refused calls");
		wlz_cctx_free(c);
	}

	/* Compression through callbacks, the size given: the bytes of
	 * wlz_compress, whatever pieces the input comes in and on any number
	 * of threads. */
	for (int threads = 1; threads <= 3; threads += 2) {
		wlz_options_init(&opt);
		opt.block_log = 16;
		opt.threads = threads;
		wlz_cctx *c = wlz_cctx_create(&opt);
		TU_CHECK(c != NULL, "cctx_create");
		for (size_t i = 0; c && i < sizeof pieces / sizeof pieces[0]; i++) {
			reader_init(&rd, src, n, pieces[i], seed + i);
			sink_init(&sk, (size_t)-1);
			e = wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, n);
			TU_CHECK(e == WLZ_OK && sk.n == asize && memcmp(sk.p, arc, asize) == 0,
				 "compress_stream (%s pieces, %d thread(s)): %s, %zu bytes; wlz_compress wrote %zu "
				 "bytes%s", piece_name(pieces[i]), threads, wlz_error_name(e), sk.n, asize,
				 sk.n == asize ? " that differ" : "");
			TU_CHECK(rd.at == n && rd.zero_cap == 0, "compress_stream read %zu of %zu bytes, %ld calls "
				 "for 0 bytes", rd.at, n, rd.zero_cap);
			free(sk.p);
		}
		/* Without the size: still an archive of this content. */
		if (c) {
			reader_init(&rd, src, n, PIECE_RANDOM, seed);
			sink_init(&sk, (size_t)-1);
			e = wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, UINT64_MAX);
			TU_CHECK(e == WLZ_OK, "compress_stream without a size: %s", wlz_error_name(e));
			if (e == WLZ_OK) {
				CHECK_ERR(wlz_get_content_size(sk.p, sk.n, &cs), WLZ_OK);
				TU_CHECK(cs == n, "content size %llu", (unsigned long long)cs);
				CHECK_ERR(stream_decode(d3, sk.p, sk.n, PIECE_RANDOM, src, n, "no size hint"), WLZ_OK);
			}
			free(sk.p);
			/* The writer says stop, the reader fails. */
			stream_failures(c, src, n, n, 1000, seed, "size given");
			/* A size hint that is wrong: never an archive of other
			 * content (the size is in the header, so an error, or
			 * the right archive). */
			for (int d = -1; d <= 1; d += 2) {
				reader_init(&rd, src, n, PIECE_7, seed);
				sink_init(&sk, (size_t)-1);
				e = wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, (uint64_t)(n + d));
				if (e == WLZ_OK)
					CHECK_ERR(stream_decode(d1, sk.p, sk.n, PIECE_RANDOM, src, n, "size hint off by one"),
						  WLZ_OK);
				free(sk.p);
			}
			/* The context still works. */
			reader_init(&rd, src, n, PIECE_7, seed);
			sink_init(&sk, (size_t)-1);
			e = wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, n);
			TU_CHECK(e == WLZ_OK && sk.n == asize && memcmp(sk.p, arc, asize) == 0,
				 "compress_stream after the failures: %s", wlz_error_name(e));
			free(sk.p);
		}
		wlz_cctx_free(c);
	}

	/* Decompression through callbacks, in odd pieces, 1 and 3 threads,
	 * each with and without a writer thread (the second pass). */
	for (int wt = 0; wt < 2; wt++) {
		wlz_dctx_set_write_thread(d1, wt);
		wlz_dctx_set_write_thread(d3, wt);
		for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
			char what[64];
			snprintf(what, sizeof what, "decompress_stream, %s pieces%s", piece_name(pieces[i]),
				 wt ? ", writer thread" : "");
			CHECK_ERR(stream_decode(d1, arc, asize, pieces[i], src, n, what), WLZ_OK);
			CHECK_ERR(stream_decode(d3, arc, asize, pieces[i], src, n, what), WLZ_OK);
		}
		/* A writer that says stop ends the decode with WLZ_ERR_WRITE and is
		 * not called again; content_size says what it took. */
		{
			static const size_t limits[] = { 0, 1, 65536, 65537, 200000 };
			for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
				for (int t = 0; t < 2; t++) {
					reader_init(&rd, arc, asize, PIECE_RANDOM, seed + i);
					sink_init(&sk, limits[i]);
					cs = 777;
					e = wlz_decompress_stream(t ? d3 : d1, piece_read, &rd, sink_write, &sk, &cs);
					TU_CHECK(e == WLZ_ERR_WRITE, "writer stops after %zu bytes (%d thread(s)): %s", limits[i],
						 t ? 3 : 1, wlz_error_name(e));
					TU_CHECK(sk.refused == 1 && sk.after_refusal == 0,
						 "writer stops after %zu bytes: called %ld more times", limits[i], sk.after_refusal);
					TU_CHECK(cs == sk.n && sk.n <= limits[i] && (sk.n == 0 || memcmp(sk.p, src, sk.n) == 0),
						 "writer stops after %zu bytes%s: content_size %llu, %zu bytes taken", limits[i],
						 wt ? " (writer thread)" : "", (unsigned long long)cs, sk.n);
					free(sk.p);
				}
			}
		}
	}
	wlz_dctx_set_write_thread(d1, 0);
	wlz_dctx_set_write_thread(d3, 0);
	/* Members back to back: the member function hears of each whole one,
	 * in order, with its sizes, and of none that fails. */
	{
		size_t s0 = 0;
		uint8_t *a0 = make_archive(src, 0, 16, 3, 0, &s0);
		uint8_t *cat = tu_xmalloc(2 * asize + s0);
		memcpy(cat, arc, asize);
		memcpy(cat + asize, arc, asize);
		if (a0)
			memcpy(cat + 2 * asize, a0, s0);
		for (int wt = 0; a0 && wt < 2; wt++) {
			member_log ml = { 0, { { 0 } } };
			wlz_dctx_set_write_thread(d3, wt);
			wlz_dctx_set_member_fn(d3, log_member, &ml);
			reader_init(&rd, cat, 2 * asize + s0, PIECE_RANDOM, seed + 7);
			sink_init(&sk, (size_t)-1);
			CHECK_ERR(wlz_decompress_stream(d3, piece_read, &rd, sink_write, &sk, &cs), WLZ_OK);
			TU_CHECK(ml.n == 3 && ml.m[0][0] == 0 && ml.m[1][0] == 1 && ml.m[2][0] == 2,
				 "members: %u calls%s", ml.n, wt ? " (writer thread)" : "");
			TU_CHECK(ml.m[0][1] == asize && ml.m[0][2] == n && ml.m[1][1] == asize && ml.m[1][2] == n &&
				 ml.m[2][1] == s0 && ml.m[2][2] == 0,
				 "members' sizes: %llu/%llu, %llu/%llu, %llu/%llu", (unsigned long long)ml.m[0][1],
				 (unsigned long long)ml.m[0][2], (unsigned long long)ml.m[1][1],
				 (unsigned long long)ml.m[1][2], (unsigned long long)ml.m[2][1],
				 (unsigned long long)ml.m[2][2]);
			free(sk.p);
			/* The second member cut short: only the first is heard of. */
			ml.n = 0;
			reader_init(&rd, cat, 2 * asize - 1, PIECE_RANDOM, seed + 8);
			sink_init(&sk, (size_t)-1);
			CHECK_NOT_OK(wlz_decompress_stream(d3, piece_read, &rd, sink_write, &sk, &cs));
			TU_CHECK(ml.n == 1, "a cut second member: %u member calls", ml.n);
			free(sk.p);
			wlz_dctx_set_member_fn(d3, NULL, NULL);
		}
		wlz_dctx_set_write_thread(d3, 0);
		free(cat);
		free(a0);
	}
	/* A reader that fails: WLZ_ERR_READ, and what was written is right. */
	{
		static const size_t at[] = { 0, 5, 40, 20000 };
		for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
			reader_init(&rd, arc, asize, PIECE_7, seed);
			rd.fail_at = at[i];
			sink_init(&sk, (size_t)-1);
			e = wlz_decompress_stream(d3, piece_read, &rd, sink_write, &sk, &cs);
			TU_CHECK(e == WLZ_ERR_READ, "reader fails at %zu: %s", at[i], wlz_error_name(e));
			TU_CHECK(sk.n == 0 || (sk.n <= n && memcmp(sk.p, src, sk.n) == 0), "reader fails at %zu: "
				 "wrong bytes written", at[i]);
			free(sk.p);
		}
	}
	/* Truncated archives and an empty input are errors; what was written
	 * before is a prefix of the content. */
	{
		const size_t lens[] = { 0, 1, 20, 32, 33, 200, asize / 2, asize - 24, asize - 1 };
		for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
			char what[64];
			snprintf(what, sizeof what, "stream of the first %zu bytes", lens[i]);
			e = stream_decode(d3, arc, lens[i], PIECE_RANDOM, src, n, what);
			TU_CHECK(e != WLZ_OK && e < WLZ_ERR_COUNT_, "%s: %s", what, wlz_error_name(e));
			if (lens[i] >= WLZ_HEADER_SIZE)
				TU_CHECK(e == WLZ_ERR_TRUNCATED, "%s: %s, expected WLZ_ERR_TRUNCATED", what,
					 wlz_error_name(e));
		}
	}
	/* A damaged block: the blocks before it are written, it is not. */
	{
		tu_block blk[4];
		uint8_t *bad = tu_xmalloc(asize);
		memcpy(bad, arc, asize);
		if (tu_walk_blocks(bad, asize, 0, blk, 4, NULL) >= 4) {
			bad[blk[3].payload + blk[3].psize - 1] ^= 0x01;
			for (int t = 0; t < 2; t++) {
				reader_init(&rd, bad, asize, PIECE_RANDOM, seed);
				sink_init(&sk, (size_t)-1);
				e = wlz_decompress_stream(t ? d3 : d1, piece_read, &rd, sink_write, &sk, &cs);
				TU_CHECK(e == WLZ_ERR_CHECKSUM && sk.n <= 3 * 65536 && memcmp(sk.p, src, sk.n) == 0,
					 "damaged block 3 (%d thread(s)): %s, %zu bytes written", t ? 3 : 1,
					 wlz_error_name(e), sk.n);
				free(sk.p);
			}
		} else {
			TU_CHECK(0, "fewer than 4 blocks");
		}
		free(bad);
	}
	/* Members back to back, and bytes after the last that are not one. */
	{
		uint8_t *cat = tu_xmalloc(2 * asize + 1), *want = tu_xmalloc(2 * n);
		memcpy(cat, arc, asize);
		memcpy(cat + asize, arc, asize);
		memcpy(want, src, n);
		memcpy(want + n, src, n);
		CHECK_ERR(stream_decode(d3, cat, 2 * asize, PIECE_RANDOM, want, 2 * n, "two members"), WLZ_OK);
		CHECK_ERR(stream_decode(d1, cat, 2 * asize, PIECE_7, want, 2 * n, "two members"), WLZ_OK);
		cat[asize] = 0;
		CHECK_ERR(stream_decode(d3, cat, asize + 1, PIECE_RANDOM, want, 2 * n, "one trailing zero"),
			  WLZ_ERR_BAD_MAGIC);
		CHECK_NOT_OK(stream_decode(d3, cat, 2 * asize, PIECE_RANDOM, want, 2 * n, "garbage after a member"));
		cat[asize] = arc[0];
		CHECK_NOT_OK(stream_decode(d3, cat, asize + 3, PIECE_1, want, 2 * n, "3 bytes of a second header"));
		free(cat);
		free(want);
	}

	/* An input larger than the compressor's first read, its size not
	 * given: the header leaves the content size open (all bits set), the
	 * index and footer still give it. */
	{
		const size_t big = 6 << 20;
		uint8_t *b = tu_xmalloc(big);
		tu_fill(TU_FASTQ, b, big, seed + 3);
		wlz_options_init(&opt);
		opt.block_log = 16;
		opt.window_log = 16;
		opt.level = 1;
		wlz_cctx *c = wlz_cctx_create(&opt);
		reader_init(&rd, b, big, PIECE_RANDOM, seed);
		sink_init(&sk, (size_t)-1);
		e = c ? wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, UINT64_MAX) : WLZ_ERR_PARAM;
		TU_CHECK(e == WLZ_OK, "6 MiB without a size: %s", wlz_error_name(e));
		if (e == WLZ_OK) {
			uint8_t *out = tu_xmalloc(big);
			size_t got = 0;
			wlz_info info;
			TU_CHECK(sk.n > WLZ_HEADER_SIZE && tu_rd64(sk.p + 16) == UINT64_MAX,
				 "an unknown size in the header: %016llx", (unsigned long long)tu_rd64(sk.p + 16));
			CHECK_ERR(wlz_get_info(sk.p, sk.n, &info), WLZ_OK);
			TU_CHECK(info.content_size == big && info.window_log == 16 && info.block_count == big >> 16,
				 "unknown size: get_info content_size %llu window_log %u", (unsigned long long)info.content_size,
				 info.window_log);
			CHECK_ERR(wlz_get_content_size(sk.p, sk.n, &cs), WLZ_OK);
			TU_CHECK(cs == big, "unknown size: get_content_size %llu", (unsigned long long)cs);
			CHECK_ERR(wlz_decompress(d3, out, big, sk.p, sk.n, &got), WLZ_OK);
			TU_CHECK(got == big && memcmp(out, b, big) == 0, "unknown size: decoded %zu bytes", got);
			CHECK_ERR(stream_decode(d3, sk.p, sk.n, PIECE_RANDOM, b, big, "unknown size"), WLZ_OK);
			/* The stream decoder's window is exactly enough. */
			wlz_dctx_set_memory_limit(d3, 1u << 16);
			CHECK_ERR(stream_decode(d3, sk.p, sk.n, PIECE_RANDOM, b, big, "unknown size, 64 KiB limit"), WLZ_OK);
			wlz_dctx_set_memory_limit(d3, 0);
			free(out);
		}
		/* The same with the I/O on a thread of its own: the same bytes,
		 * and the same errors when the writer or the reader fails. */
		if (e == WLZ_OK) {
			sink s2;
			wlz_cctx_set_io_thread(c, 1);
			reader_init(&rd, b, big, PIECE_RANDOM, seed);
			sink_init(&s2, (size_t)-1);
			wlz_error e2 = wlz_compress_stream(c, piece_read, &rd, sink_write, &s2, UINT64_MAX);
			TU_CHECK(e2 == WLZ_OK && s2.n == sk.n && memcmp(s2.p, sk.p, sk.n) == 0,
				 "I/O thread: %s, %zu bytes (%zu without)", wlz_error_name(e2), s2.n, sk.n);
			free(s2.p);
			stream_failures(c, b, big, UINT64_MAX, 100000, seed, "I/O thread");
			stream_failures(c, b, big, big, 100000, seed, "I/O thread, size known");
			wlz_cctx_set_io_thread(c, 0);
		}
		free(sk.p);
		/* A size hint that is wrong, the input larger than the first
		 * read: the header already went out, so an error (or, if the
		 * encoder found a way, an archive of exactly this content). */
		for (int dlt = -1; c && dlt <= 1; dlt += 2) {
			reader_init(&rd, b, big, PIECE_RANDOM, seed);
			sink_init(&sk, (size_t)-1);
			e = wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, (uint64_t)(big + dlt));
			printf("6 MiB with a size hint of %+d byte: %s\n", dlt, wlz_error_name(e));
			if (e == WLZ_OK)
				CHECK_ERR(stream_decode(d1, sk.p, sk.n, PIECE_RANDOM, b, big, "size hint off by one"), WLZ_OK);
			free(sk.p);
		}
		wlz_cctx_free(c);
		free(b);
	}
	/* The empty input through callbacks: with its size given, the archive
	 * of wlz_compress; without, an archive of no content. */
	{
		wlz_cctx *c = wlz_cctx_create(NULL);
		uint8_t ref[256];
		size_t rsize = 0;
		CHECK_ERR(c ? wlz_compress(c, ref, sizeof ref, src, 0, &rsize) : WLZ_ERR_PARAM, WLZ_OK);
		for (int hint = 0; c && hint < 2; hint++) {
			reader_init(&rd, src, 0, PIECE_1, seed);
			sink_init(&sk, (size_t)-1);
			e = wlz_compress_stream(c, piece_read, &rd, sink_write, &sk, hint ? 0 : UINT64_MAX);
			TU_CHECK(e == WLZ_OK && (!hint || (sk.n == rsize && memcmp(sk.p, ref, rsize) == 0)),
				 "empty input (%s): %s, %zu bytes (wlz_compress: %zu)", hint ? "size 0" : "no size",
				 wlz_error_name(e), sk.n, rsize);
			if (e == WLZ_OK)
				CHECK_ERR(stream_decode(d1, sk.p, sk.n, PIECE_1, src, 0, "empty"), WLZ_OK);
			free(sk.p);
		}
		wlz_cctx_free(c);
	}
out:
	wlz_dctx_free(d1);
	wlz_dctx_free(d3);
}

/* The stream decoder keeps the window and the blocks in flight in a ring of
 * W + 4 T B bytes.  A content whose short last block ends less than a
 * block before the ring's end, in a batch that took exactly the blocks
 * left (so the index tag is still unread), must still end: 750000 bytes in
 * 64 KiB blocks, window 2^18, 2 threads (batches of 1, 2, 4, then 5 blocks
 * up to the ring's end at 786432).  Run in a child with a time limit, so
 * that a decoder that never returns fails this check instead of hanging
 * the test. */
static void stream_ring_edge(uint64_t seed)
{
	const size_t n = 750000;
	uint8_t *src = tu_xmalloc(n);
	size_t asize = 0;
	tu_fill(TU_FASTQ, src, n, seed + 11);
	uint8_t *arc = make_archive(src, n, 16, 3, 18, &asize);
	if (!arc) {
		free(src);
		return;
	}
	for (int threads = 1; threads <= 8; threads++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			const long before = tu_failures;
			alarm(20);
			wlz_dctx *d = wlz_dctx_create(threads);
			wlz_error e = d ? stream_decode(d, arc, asize, PIECE_RANDOM, src, n, "ring edge") : WLZ_ERR_NOMEM;
			wlz_dctx_free(d);
			_exit(e == WLZ_OK && tu_failures == before ? 0 : 1);
		}
		int status = 0;
		TU_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
		TU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "750000 bytes, 64 KiB blocks, window 2^18, %d decoder thread(s): decompress_stream %s", threads,
			 WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "did not return within 20 s (a loop)"
			 : WIFSIGNALED(status) ? "crashed" : "failed");
	}
	free(arc);
	free(src);
}

/* ---------------------------------------------------------- compress edges */

/* Compresses src in a child with a time limit (a scheduler that waits
 * forever fails the check instead of hanging the test); the archive's
 * XXH3 comes back through *sum, and it must decode to src. */
static int compress_child(const uint8_t *src, size_t n, const wlz_options *opt, const char *what, uint64_t *sum)
{
	int fd[2];
	if (pipe(fd) != 0)
		return 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		alarm(60);
		size_t cap = wlz_compress_bound(n), asize = 0, got = 0;
		uint8_t *a = tu_xmalloc(cap), *back = tu_xmalloc(n + 1);
		wlz_cctx *c = wlz_cctx_create(opt);
		int ok = c && wlz_compress(c, a, cap, src, n, &asize) == WLZ_OK;
		wlz_dctx *d = wlz_dctx_create(2);
		ok = ok && d && wlz_decompress(d, back, n + 1, a, asize, &got) == WLZ_OK && got == n &&
		     memcmp(back, src, n) == 0;
		uint64_t h = ok ? tu_xxh3(a, asize) : 0;
		ok = ok && write(fd[1], &h, sizeof(h)) == (ssize_t)sizeof(h);
		_exit(ok ? 0 : 1);
	}
	close(fd[1]);
	int status = 0;
	const int waited = pid > 0 && waitpid(pid, &status, 0) == pid;
	const int got = waited && read(fd[0], sum, sizeof(*sum)) == (ssize_t)sizeof(*sum);
	close(fd[0]);
	TU_CHECK(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0 && got, "%s: %s", what,
		 WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "compress did not return within 60 s"
		 : WIFSIGNALED(status) ? "crashed" : "failed or did not round-trip");
	return waited && WIFEXITED(status) && WEXITSTATUS(status) == 0 && got;
}

/* Edges of compression on threads, the first two found by reviews:
 *  - an input whose end falls in the last 64 bytes of the input buffer
 *    (49 blocks of 64 KiB and 64 bytes with a 1 MiB window: after its
 *    slides, the last round ends at the buffer's end), whose last blocks
 *    waited for lookahead bytes that no read would bring;
 *  - --flatten=full at a price-based level, where both of a block's
 *    passes look up the far table: the next round's inserts must wait for
 *    the second.
 *  - blocks parsed in pieces (small inputs' rounds at levels 2 to 4).
 * The archive must not depend on the thread count. */
/* src compressed on 1, 2 and 4 threads: the same archive each time. */
static void same_on_threads(const uint8_t *src, size_t n, int level, int flatten, unsigned block_log,
			    unsigned window_log, const char *what)
{
	static const int threads[] = { 1, 2, 4 };
	uint64_t first = 0;
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		wlz_options opt;
		wlz_options_init(&opt);
		opt.level = level;
		opt.block_log = block_log;
		opt.window_log = window_log;
		opt.flatten = flatten;
		opt.threads = threads[t];
		char w[128];
		snprintf(w, sizeof w, "%s, %zu bytes, %d thread(s)", what, n, threads[t]);
		uint64_t h = 0;
		if (compress_child(src, n, &opt, w, &h) && t == 0)
			first = h;
		else
			TU_CHECK(h == first, "%s: another archive than on one thread", w);
	}
}

static void compress_edges(uint64_t seed)
{
	static const size_t sizes[] = { 49 * 65536 + 64, 49 * 65536 + 63, 49 * 65536 + 65 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint8_t *src = tu_xmalloc(sizes[i]);
		tu_fill(TU_FASTQ, src, sizes[i], seed + 21 + i);
		same_on_threads(src, sizes[i], 1, 1, 16, 20, "level 1, 64 KiB blocks, 1 MiB window");
		free(src);
	}
	const size_t n = 2 << 20;
	uint8_t *src = tu_xmalloc(n);
	tu_fill(TU_FASTQ, src, n, seed + 31);
	same_on_threads(src, n, 10, 2, 16, 0, "level 10, --flatten=full, 64 KiB blocks");
	free(src);
	/* Rounds of fewer than 16 blocks (a small input's) parse each 1 MiB
	 * block in pieces on several threads: text (near matches across the
	 * pieces' ends) and FASTQ, a short last block parsed whole. */
	const size_t m = (5 << 20) + 70001;
	src = tu_xmalloc(m);
	tu_fill(TU_TEXT, src, m, seed + 41);
	same_on_threads(src, m, 2, 1, 20, 0, "level 2, text in pieces");
	same_on_threads(src, m, 4, 1, 20, 0, "level 4, text in pieces");
	tu_fill(TU_FASTQ, src, m, seed + 43);
	same_on_threads(src, m, 3, 0, 20, 0, "level 3, FASTQ in pieces");
	free(src);
}

/* ------------------------------------------------------------------ pread */

/* A positional reader over p[0..held) that gives each call a random
 * share of what it asks (at least one byte), fails at offsets from
 * fail_at on, and counts its calls.  Threads call it at once. */
typedef struct preader {
	const uint8_t *p;
	size_t held, fail_at;
	uint64_t seed;
	long calls;          /* (atomic) */
} preader;

static size_t piece_pread(void *opaque, void *buf, size_t cap, uint64_t off)
{
	preader *r = opaque;
	__atomic_fetch_add(&r->calls, 1, __ATOMIC_RELAXED);
	if (off >= r->fail_at)
		return (size_t)-1;
	if (off >= r->held)
		return 0;
	/* (a share that depends on the offset alone: no shared state) */
	uint64_t h = (off + r->seed) * 0x9E3779B97F4A7C15ull;
	size_t k = 1 + (size_t)((h >> 33) % (cap < (300 << 10) ? cap : (300 << 10)));
	if (k > r->held - off)
		k = r->held - (size_t)off;
	if (k > r->fail_at - off)
		k = r->fail_at - (size_t)off;
	memcpy(buf, r->p + off, k);
	return k;
}

/* wlz_compress_pread writes wlz_compress_stream's bytes on any number of
 * threads, across slides of a small window; an input that fails, shrinks
 * or grows is an error with its own detail. */
static void compress_at_offsets(uint64_t seed)
{
	const size_t n = (5 << 20) + 12345;
	uint8_t *src = tu_xmalloc(n);
	tu_fill(TU_TEXT, src, n / 2, seed + 51);
	tu_fill(TU_FASTQ, src + n / 2, n - n / 2, seed + 52);
	wlz_dctx *d = wlz_dctx_create(2);
	for (int k = 0; k < 4; k++) {
		static const int threads[] = { 1, 2, 3, 8 };
		wlz_options opt;
		wlz_options_init(&opt);
		opt.block_log = 16;
		opt.window_log = k & 1 ? 20 : 0;
		opt.level = k < 2 ? 3 : 1;
		opt.threads = threads[k];
		wlz_cctx *c = wlz_cctx_create(&opt);
		TU_CHECK(c != NULL, "cctx_create");
		if (!c)
			continue;
		reader rd;
		sink a, b;
		reader_init(&rd, src, n, PIECE_RANDOM, seed + (uint64_t)k);
		sink_init(&a, (size_t)-1);
		wlz_error e = wlz_compress_stream(c, piece_read, &rd, sink_write, &a, n);
		TU_CHECK(e == WLZ_OK, "compress_stream: %s", wlz_error_name(e));
		preader pr = { src, n, (size_t)-1, seed + (uint64_t)k, 0 };
		sink_init(&b, (size_t)-1);
		e = wlz_compress_pread(c, piece_pread, &pr, n, sink_write, &b);
		TU_CHECK(e == WLZ_OK && a.n == b.n && memcmp(a.p, b.p, a.n) == 0,
			 "compress_pread, %d thread(s), window_log %u: %s, %zu bytes against compress_stream's %zu%s",
			 threads[k], opt.window_log, wlz_error_name(e), b.n, a.n, a.n == b.n ? " that differ" : "");
		if (e == WLZ_OK && d)
			CHECK_ERR(stream_decode(d, b.p, b.n, PIECE_RANDOM, src, n, "compress_pread's archive"), WLZ_OK);
		free(a.p);
		free(b.p);
		/* A read that fails half way; an input that holds less than
		 * said (it shrank); one that holds more (it grew); the read
		 * past the end, which finds that, failing. */
		static const char *const detail[] = { "reading the input failed", "shrank or grew", "shrank or grew",
						      "reading the input failed" };
		for (int j = 0; j < 4; j++) {
			preader q = { src, n, (size_t)-1, seed + 7, 0 };
			uint64_t said = n;
			if (j == 0)
				q.fail_at = n / 2 + 1;
			else if (j == 1)
				q.held = n - 70000;
			else if (j == 2)
				said = n - 1;
			else
				q.fail_at = n;
			sink_init(&b, (size_t)-1);
			CHECK_ERR(wlz_compress_pread(c, piece_pread, &q, said, sink_write, &b), WLZ_ERR_READ);
			TU_CHECK(strstr(wlz_error_detail(), detail[j]) != NULL,
				 "compress_pread, bad input %d, %d thread(s): detail '%s'", j, threads[k],
				 wlz_error_detail());
			free(b.p);
		}
		/* Refused arguments call nothing. */
		preader z = { src, n, (size_t)-1, seed, 0 };
		sink_init(&b, (size_t)-1);
		CHECK_ERR(wlz_compress_pread(c, piece_pread, &z, UINT64_MAX, sink_write, &b), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_compress_pread(c, NULL, &z, n, sink_write, &b), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_compress_pread(c, piece_pread, &z, n, NULL, &b), WLZ_ERR_PARAM);
		CHECK_ERR(wlz_compress_pread(NULL, piece_pread, &z, n, sink_write, &b), WLZ_ERR_PARAM);
		TU_CHECK(z.calls == 0 && b.calls == 0, "refused compress_pread calls called back");
		/* An empty input. */
		z.held = 0;
		e = wlz_compress_pread(c, piece_pread, &z, 0, sink_write, &b);
		TU_CHECK(e == WLZ_OK, "compress_pread of nothing: %s", wlz_error_name(e));
		if (e == WLZ_OK && d)
			CHECK_ERR(stream_decode(d, b.p, b.n, PIECE_RANDOM, src, 0, "an empty input at offsets"), WLZ_OK);
		free(b.p);
		wlz_cctx_free(c);
	}
	wlz_dctx_free(d);
	free(src);
}

/* ------------------------------------------------------------------ window */

static void window(uint64_t seed, const uint8_t *src, size_t n)
{
	wlz_options opt;
	wlz_dctx *d = wlz_dctx_create(2);
	size_t asize = 0, got = 0;
	uint8_t *arc, *out = tu_xmalloc(n);
	wlz_info info;
	reader rd;
	sink sk;
	wlz_error e;

	/* The option's range: 0 (the default) or block_log .. 31. */
	{
		static const struct {
			unsigned block_log, window_log;
			int ok;
		} cases[] = { { 16, 0, 1 }, { 16, 15, 0 }, { 16, 16, 1 }, { 20, 19, 0 }, { 20, 20, 1 },
			      { 16, 31, 1 }, { 16, 32, 0 }, { 26, 26, 1 }, { 16, 40, 0 } };
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			wlz_options_init(&opt);
			opt.block_log = cases[i].block_log;
			opt.window_log = cases[i].window_log;
			e = wlz_options_check(&opt);
			wlz_cctx *c = wlz_cctx_create(&opt);
			TU_CHECK((e == WLZ_OK) == cases[i].ok && (c != NULL) == cases[i].ok &&
				 (cases[i].ok || e == WLZ_ERR_PARAM),
				 "block_log %u window_log %u: options_check %s, cctx %s", cases[i].block_log,
				 cases[i].window_log, wlz_error_name(e), c ? "made" : "refused");
			wlz_cctx_free(c);
		}
		wlz_options_init(&opt);
		TU_CHECK(opt.window_log == 0, "default window_log %u", opt.window_log);
	}
	/* Compression memory: set by the window, not by any input. */
	{
		wlz_options a, b;
		wlz_options_init(&a);
		wlz_options_init(&b);
		a.window_log = 20;
		b.window_log = 26;
		uint64_t ma = wlz_compress_memory(&a), mb = wlz_compress_memory(&b), m0 = wlz_compress_memory(NULL);
		TU_CHECK(ma > ((uint64_t)1 << 20) && mb > ma + ((uint64_t)1 << 26) - ((uint64_t)1 << 20) && m0 > 0,
			 "compress_memory: window 2^20 %llu, 2^26 %llu, defaults %llu", (unsigned long long)ma,
			 (unsigned long long)mb, (unsigned long long)m0);
	}

	if (!d) {
		TU_CHECK(0, "dctx_create");
		free(out);
		return;
	}
	/* The smallest window: one block. */
	arc = make_archive(src, n, 16, 3, 16, &asize);
	if (arc) {
		CHECK_ERR(wlz_get_info(arc, asize, &info), WLZ_OK);
		TU_CHECK(info.window_log == 16, "window_log %u, asked for 16", info.window_log);
		TU_CHECK(tu_rd32(arc + 8) >> 24 == 16, "header byte 11 (window_log) is %u", arc[11]);
		CHECK_ERR(wlz_decompress(d, out, n, arc, asize, &got), WLZ_OK);
		TU_CHECK(got == n && memcmp(out, src, n) == 0, "window 2^16: decoded %zu bytes", got);
		CHECK_ERR(stream_decode(d, arc, asize, PIECE_RANDOM, src, n, "window 2^16"), WLZ_OK);
		/* A memory limit below the window: refused before anything is
		 * written; at the window: decoded. */
		static const uint64_t below[] = { 65535, 4096, 1 };
		for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
			wlz_dctx_set_memory_limit(d, below[i]);
			reader_init(&rd, arc, asize, PIECE_7, seed);
			sink_init(&sk, (size_t)-1);
			uint64_t cs = 1;
			e = wlz_decompress_stream(d, piece_read, &rd, sink_write, &sk, &cs);
			TU_CHECK(e == WLZ_ERR_WINDOW && sk.calls == 0 && cs == 0,
				 "memory limit %llu, window 65536: %s, %ld writes", (unsigned long long)below[i],
				 wlz_error_name(e), sk.calls);
			free(sk.p);
			/* The in-memory decoder needs no window of its own. */
			CHECK_ERR(wlz_decompress(d, out, n, arc, asize, &got), WLZ_OK);
		}
		wlz_dctx_set_memory_limit(d, 65536);
		CHECK_ERR(stream_decode(d, arc, asize, PIECE_RANDOM, src, n, "memory limit = window"), WLZ_OK);
		wlz_dctx_set_memory_limit(d, 0);  /* back to the default */
		CHECK_ERR(stream_decode(d, arc, asize, PIECE_RANDOM, src, n, "default memory limit"), WLZ_OK);
		free(arc);
	}
	/* Matches reach back at most the window: X, 64 KiB of other random
	 * bytes, X again.  The second X is 2^17 bytes after the first. */
	{
		const size_t bs = 1 << 16, m = 3 * bs;
		uint8_t *x = tu_xmalloc(m);
		tu_rng r;
		tu_rng_seed(&r, seed + 9);
		tu_rng_fill(&r, x, 2 * bs);
		memcpy(x + 2 * bs, x, bs);
		size_t s16 = 0, s18 = 0, s0 = 0;
		uint8_t *a16 = make_archive(x, m, 16, 3, 16, &s16);
		uint8_t *a18 = make_archive(x, m, 16, 3, 18, &s18);
		uint8_t *a0 = make_archive(x, m, 16, 3, 0, &s0);
		TU_CHECK(!a16 || s16 >= m, "window 2^16: %zu bytes for %zu, the repeat 2^17 back was used", s16, m);
		TU_CHECK(!a18 || s18 < 2 * bs + bs / 8, "window 2^18: %zu bytes, the repeat was not used", s18);
		TU_CHECK(!a0 || s0 < 2 * bs + bs / 8, "default window: %zu bytes, the repeat was not used", s0);
		if (a0) {
			CHECK_ERR(wlz_get_info(a0, s0, &info), WLZ_OK);
			TU_CHECK(info.window_log == 18, "default window for %zu bytes: 2^%u, expected 2^18", m,
				 info.window_log);
		}
		uint8_t *o = tu_xmalloc(m);
		const uint8_t *as[3] = { a16, a18, a0 };
		const size_t ss[3] = { s16, s18, s0 };
		for (int k = 0; k < 3; k++) {
			if (!as[k])
				continue;
			CHECK_ERR(wlz_decompress(d, o, m, as[k], ss[k], &got), WLZ_OK);
			TU_CHECK(got == m && memcmp(o, x, m) == 0, "X Y X, archive %d: decoded bytes differ", k);
		}
		/* The window is the archive's: the same archive claiming a
		 * window of 2^16 has a match reaching back further. */
		if (a18) {
			a18[11] = 16;
			tu_fix_header(a18);
			e = wlz_decompress(d, o, m, a18, s18, &got);
			TU_CHECK(e == WLZ_ERR_BAD_TOKEN, "a match beyond a claimed window 2^16: %s", wlz_error_name(e));
			reader_init(&rd, a18, s18, PIECE_RANDOM, seed);
			sink_init(&sk, (size_t)-1);
			e = wlz_decompress_stream(d, piece_read, &rd, sink_write, &sk, NULL);
			TU_CHECK(e == WLZ_ERR_BAD_TOKEN && sk.n <= 2 * bs && memcmp(sk.p, x, sk.n) == 0,
				 "stream, a match beyond a claimed window 2^16: %s, %zu bytes written", wlz_error_name(e),
				 sk.n);
			free(sk.p);
		}
		free(o);
		free(a16);
		free(a18);
		free(a0);
		free(x);
	}
	/* The stream decoder's window wraps many times: 8 MiB in a window of
	 * 1 MiB, with references across blocks all along. */
	{
		const size_t big = 8 << 20;
		uint8_t *b = tu_xmalloc(big);
		size_t bsz = 0;
		tu_fill(TU_FASTQ, b, big, seed + 5);
		uint8_t *ab = make_archive(b, big, 16, 1, 20, &bsz);
		if (ab) {
			wlz_stats *st = tu_xmalloc(sizeof *st);
			CHECK_ERR(wlz_get_stats(ab, bsz, st), WLZ_OK);
			TU_CHECK(st->cross_block > 1000, "8 MiB of FASTQ, window 2^20: %llu matches cross blocks",
				 (unsigned long long)st->cross_block);
			free(st);
			CHECK_ERR(wlz_get_info(ab, bsz, &info), WLZ_OK);
			TU_CHECK(info.window_log == 20, "window_log %u, asked for 20", info.window_log);
			for (int threads = 1; threads <= 4; threads *= 4) {
				wlz_dctx *dt = wlz_dctx_create(threads);
				if (!dt) {
					TU_CHECK(0, "dctx_create");
					continue;
				}
				wlz_dctx_set_memory_limit(dt, (uint64_t)1 << 20);
				CHECK_ERR(stream_decode(dt, ab, bsz, PIECE_RANDOM, b, big, "8 MiB, window 2^20"), WLZ_OK);
				wlz_dctx_set_memory_limit(dt, ((uint64_t)1 << 20) - 1);
				CHECK_ERR(stream_decode(dt, ab, bsz, PIECE_RANDOM, b, big, "8 MiB, limit under 2^20"),
					  WLZ_ERR_WINDOW);
				wlz_dctx_free(dt);
			}
			free(ab);
		}
		free(b);
	}
	wlz_dctx_free(d);
	free(out);
}

/* Progress while streaming: positions never go back, never pass the
 * content, and end at it, over two members and on 1 and 3 threads (a run
 * of blocks once reported the member's bytes before it twice). */
struct prog {
	uint64_t last, total, calls;
	int bad;
};

static void on_prog(void *opaque, uint64_t done, uint64_t total)
{
	struct prog *p = opaque;
	if (done < p->last || (total && done > total) || (p->calls && total != p->total))
		p->bad = 1;
	p->last = done;
	p->total = total;
	p->calls++;
}

static void stream_progress(const uint8_t *src, size_t n, const uint8_t *arc, size_t asize)
{
	uint8_t *two = tu_xmalloc(2 * asize), *want = tu_xmalloc(2 * n);
	memcpy(two, arc, asize);
	memcpy(two + asize, arc, asize);
	memcpy(want, src, n);
	memcpy(want + n, src, n);
	for (int t = 1; t <= 3; t += 2) {
		wlz_dctx *d = wlz_dctx_create(t);
		struct prog pg = { 0, 0, 0, 0 };
		if (!d) {
			TU_CHECK(0, "dctx_create");
			break;
		}
		wlz_dctx_set_progress(d, on_prog, &pg);
		const wlz_error e = stream_decode(d, two, 2 * asize, PIECE_RANDOM, want, 2 * n, "progress");
		TU_CHECK(e == WLZ_OK, "stream with progress: %s", wlz_error_name(e));
		TU_CHECK(pg.calls > 0 && !pg.bad && pg.last == 2 * n,
			 "stream progress on %d threads: %llu calls, bad %d, last %llu of %zu", t,
			 (unsigned long long)pg.calls, pg.bad, (unsigned long long)pg.last, 2 * n);
		wlz_dctx_free(d);
	}
	free(two);
	free(want);
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
		layout(arc, asize, n, 16, "fastq 300000, block_log 16");
		concatenation(seed, src, n, arc, asize);
		error_detail(arc, asize, n);
		streaming(seed, src, n, arc, asize);
		stream_progress(src, n, arc, asize);
		stream_ring_edge(seed);
		compress_edges(seed);
		compress_at_offsets(seed);
		window(seed, src, n);
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
