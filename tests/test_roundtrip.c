/*
 * test_roundtrip.c - round trips through the public API over data kinds,
 * sizes around block boundaries, block sizes and levels; checks what
 * wlz_get_info reports, the compress bound, and that decoding with 1, 2, 3
 * and 8 threads gives the same bytes.  Contexts are reused across calls on
 * purpose: state left over from one call must not leak into the next.
 *
 * usage: test_roundtrip [--full]   (--full adds level 19 on larger inputs)
 */
#include "wavelz.h"
#include "testutil.h"  /* after wavelz.h: tu_stream_decode */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static const int dec_threads[] = { 1, 2, 3, 8 };
#define NDEC (sizeof dec_threads / sizeof dec_threads[0])

static wlz_dctx *dctxs[NDEC];
static uint8_t *cbuf, *dbuf;      /* reused: sized for the largest case */
static size_t cbuf_cap, dbuf_cap;
static long roundtrips;

/* SPEC section 4: XXH3-64 of the blocks' XXH3-64s, 8 bytes LE each. */
static uint64_t content_digest(const uint8_t *src, size_t n, unsigned block_log)
{
	size_t bs = (size_t)1 << block_log, nb = (n + bs - 1) / bs;
	uint8_t *sums = malloc(nb * 8 + 1);
	if (!sums)
		return 0;
	for (size_t b = 0; b < nb; b++) {
		size_t len = b + 1 == nb ? n - b * bs : bs;
		uint64_t h = tu_xxh3(src + b * bs, len);
		for (int k = 0; k < 8; k++)
			sums[8 * b + k] = (uint8_t)(h >> (8 * k));
	}
	uint64_t d = tu_xxh3(sums, nb * 8);
	free(sums);
	return d;
}

/* The window an archive of n bytes gets with these options: the option's,
 * or the level's default (128 MiB or more at every level), cut to the
 * input's size rounded up to a power of two, never under a block.  (Only
 * for inputs under 128 MiB.) */
static unsigned expected_window_log(const wlz_options *opt, size_t n)
{
	const unsigned cap = opt->window_log ? opt->window_log : 27;
	unsigned wl = 0;
	while (wl < cap && ((size_t)1 << wl) < n)
		wl++;
	return wl < opt->block_log ? opt->block_log : wl;
}

/* The stream decoder reads the archive from memory in pieces of up to
 * 128 KiB (of varying size). */
static const tu_pieces PIECES = { 128u << 10, 0x9E3779B97F4A7C15ull, 17 };

/* Compresses src with cctx, checks the archive's description, decodes it
 * with every dctx and with the stream decoder, and compares.  Returns the
 * archive size (0 on failure). */
static size_t roundtrip(wlz_cctx *cctx, const wlz_options *opt, const uint8_t *src,
			size_t n, const char *what)
{
	size_t bound = wlz_compress_bound(n), csize = 0;
	wlz_error e;
	wlz_info info;

	TU_CHECK(bound > 0 && bound >= n, "%s: bound %zu for n %zu", what, bound, n);
	TU_CHECK(bound <= cbuf_cap, "%s: bound %zu over test buffer %zu", what, bound, cbuf_cap);
	if (bound == 0 || bound > cbuf_cap)
		return 0;
	e = wlz_compress(cctx, cbuf, bound, src, n, &csize);
	TU_CHECK(e == WLZ_OK, "%s: compress: %s", what, wlz_error_name(e));
	if (e != WLZ_OK)
		return 0;
	roundtrips++;
	TU_CHECK(csize <= bound, "%s: archive %zu > bound %zu", what, csize, bound);
	TU_CHECK(csize >= WLZ_HEADER_SIZE, "%s: archive %zu < header", what, csize);

	memset(&info, 0xA5, sizeof info);
	e = wlz_get_info(cbuf, csize, &info);
	const int info_ok = e == WLZ_OK;
	TU_CHECK(e == WLZ_OK, "%s: get_info: %s", what, wlz_error_name(e));
	if (e == WLZ_OK) {
		TU_CHECK(info.content_size == n, "%s: content_size %llu", what,
			 (unsigned long long)info.content_size);
		TU_CHECK(info.archive_size == csize, "%s: archive_size %llu != %zu", what,
			 (unsigned long long)info.archive_size, csize);
		TU_CHECK(info.block_count == tu_block_count(n, opt->block_log),
			 "%s: block_count %llu, expected %zu", what,
			 (unsigned long long)info.block_count, tu_block_count(n, opt->block_log));
		TU_CHECK(info.block_log == opt->block_log, "%s: block_log %u != %u", what,
			 info.block_log, opt->block_log);
		TU_CHECK((int)info.level == opt->level, "%s: level %u != %d", what, info.level,
			 opt->level);
		TU_CHECK(info.depth == opt->depth, "%s: depth %d != %d", what, info.depth,
			 opt->depth);
		TU_CHECK(info.format_version == WLZ_FORMAT_VERSION, "%s: format_version %u", what,
			 info.format_version);
		TU_CHECK(info.content_checksum == content_digest(src, n, opt->block_log),
			 "%s: content_checksum %016llx is not XXH3-64 of the input's block checksums",
			 what, (unsigned long long)info.content_checksum);
		if (opt->depth >= 0)
			TU_CHECK((int)info.max_level <= opt->depth, "%s: max_level %u > depth %d",
				 what, info.max_level, opt->depth);
		TU_CHECK(info.window_log == expected_window_log(opt, n),
			 "%s: window_log %u, expected %u", what, info.window_log, expected_window_log(opt, n));
	}

	/* The content size needs the whole archive (index and footer). */
	uint64_t cs = 0;
	e = wlz_get_content_size(cbuf, csize, &cs);
	TU_CHECK(e == WLZ_OK && cs == n, "%s: get_content_size: %s, %llu", what,
		 wlz_error_name(e), (unsigned long long)cs);
	e = wlz_get_content_size(cbuf, csize - 1, &cs);
	TU_CHECK(e != WLZ_OK, "%s: get_content_size of all but the last byte: %s", what, wlz_error_name(e));

	/* The stream decoder (2 threads), its window exactly the archive's. */
	if (info_ok) {
		tu_cmpwr out = { src, n, 0, 0, 0 };
		uint64_t got = 0;
		int wrong = 0;
		e = tu_stream_decode(dctxs[1], cbuf, csize, PIECES, &out, (uint64_t)1 << info.window_log, &got, &wrong);
		TU_CHECK(e == WLZ_OK && !wrong && got == n && out.at == n && !out.differ,
			 "%s: decompress_stream: %s, %llu bytes%s", what, wlz_error_name(e),
			 (unsigned long long)got, out.differ ? ", bytes differ" : "");
	}

	for (size_t t = 0; t < NDEC; t++) {
		size_t dsize = (size_t)-1;
		/* A different fill each time, so stale bytes cannot pass. */
		memset(dbuf, (int)(0x5A ^ t), n);
		e = wlz_decompress(dctxs[t], dbuf, n, cbuf, csize, &dsize);
		TU_CHECK(e == WLZ_OK, "%s: decompress (%d threads): %s", what, dec_threads[t],
			 wlz_error_name(e));
		if (e != WLZ_OK)
			continue;
		TU_CHECK(dsize == n, "%s: decoded %zu bytes (%d threads)", what, dsize,
			 dec_threads[t]);
		if (n && memcmp(dbuf, src, n) != 0) {
			size_t i = 0;
			while (dbuf[i] == src[i])
				i++;
			TU_CHECK(0, "%s: decoded bytes differ (%d threads), first at %zu", what,
				 dec_threads[t], i);
		}
	}
	return csize;
}

/* Size limits that keep the bad cases out: a broken ratio is a bug too. */
static void check_ratio(int kind, size_t n, size_t csize, const wlz_options *opt, const char *what)
{
	/* Each of the first gap + 1 blocks may only read itself (the gap rule,
	 * SPEC.md section 8, for an input of known size), so each stores the
	 * repeated chunk once. */
	const size_t bs = (size_t)1 << opt->block_log, nb = (n + bs - 1) / bs;
	const size_t gap = tu_gap(opt->parallel, nb, opt->level);
	const size_t firsts = nb < gap + 1 ? nb : gap + 1;
	if (csize == 0 || n < 65536)
		return;
	switch (kind) {
	case TU_ZEROS:
		TU_CHECK(csize < n / 64 + 4096, "%s: zeros -> %zu bytes", what, csize);
		break;
	case TU_REPEATS:
		TU_CHECK(csize < 10240 * firsts + n / 32 + 4096, "%s: repeats -> %zu bytes", what, csize);
		break;
	case TU_TEXT:
		TU_CHECK(csize < n / 2, "%s: text -> %zu bytes", what, csize);
		break;
	case TU_FASTQ:
		TU_CHECK(csize < n / 10 * 6, "%s: fastq -> %zu bytes", what, csize);
		break;
	case TU_SKEWED: /* ~2.4 bits a byte; zstd -1..-3 get 40 to 44% */
		TU_CHECK(csize < n / 2, "%s: skewed -> %zu bytes", what, csize);
		break;
	default:
		break;
	}
}

static uint8_t *data_cache[TU_KIND_COUNT];
static size_t data_cache_n;

/* Every size is a prefix of one large buffer per kind, generated once. */
static const uint8_t *data_of(int kind, uint64_t seed)
{
	if (!data_cache[kind]) {
		data_cache[kind] = tu_xmalloc(data_cache_n);
		tu_fill(kind, data_cache[kind], data_cache_n, seed);
	}
	return data_cache[kind];
}

static void matrix(uint64_t seed, int full)
{
	unsigned logs[3] = { 16, 20, 0 };
	size_t nlogs = 2;
	static const int levels[] = { 1, 3, 9, 19 };
	wlz_options def;

	/* The default block size, unless already on the list. */
	wlz_options_init(&def);
	if (def.block_log != 16 && def.block_log != 20)
		logs[nlogs++] = def.block_log;

	for (size_t li = 0; li < nlogs; li++) {
		size_t B = (size_t)1 << logs[li];
		const size_t sizes[] = { 0, 1, B - 1, B, B + 1, B * 5 + B / 2 };
		for (size_t vi = 0; vi < sizeof levels / sizeof levels[0]; vi++) {
			wlz_options opt;
			wlz_cctx *cctx;
			double t0 = tu_now();
			wlz_options_init(&opt);
			opt.level = levels[vi];
			opt.block_log = logs[li];
			cctx = wlz_cctx_create(&opt);
			TU_CHECK(cctx != NULL, "cctx_create(level %d, block_log %u)", opt.level,
				 opt.block_log);
			if (!cctx)
				continue;
			for (int kind = 0; kind < TU_KIND_COUNT; kind++) {
				const uint8_t *src = data_of(kind, seed);
				for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
					size_t n = sizes[si];
					char what[160];
					/* Level 19 costs: small inputs only, unless --full. */
					if (opt.level >= 19 && n > 400000 && !full)
						continue;
					if (opt.level >= 9 && n > 3 * MiB && kind != TU_FASTQ &&
					    kind != TU_TEXT && !full)
						continue;
					snprintf(what, sizeof what, "%s n=%zu block_log=%u level=%d",
						 tu_kind_name(kind), n, opt.block_log, opt.level);
					size_t csize = roundtrip(cctx, &opt, src, n, what);
					check_ratio(kind, n, csize, &opt, what);
				}
			}
			printf("  block_log %u level %2d: %.2f s\n", logs[li], levels[vi],
			       tu_now() - t0);
			fflush(stdout);
			wlz_cctx_free(cctx);
		}
	}
}

/* Same input twice through the same context: identical archives, or state
 * leaks from one call into the next. */
static void determinism(uint64_t seed)
{
	wlz_options opt;
	wlz_cctx *cctx;
	size_t n = 300000, a = 0, b = 0, c = 0;
	const uint8_t *src = data_of(TU_FASTQ, seed);
	const uint8_t *other = data_of(TU_TEXT, seed);
	uint8_t *first = tu_xmalloc(wlz_compress_bound(n));

	wlz_options_init(&opt);
	opt.block_log = 16;
	cctx = wlz_cctx_create(&opt);
	TU_CHECK(cctx != NULL, "cctx_create");
	if (!cctx) {
		free(first);
		return;
	}
	TU_CHECK(wlz_compress(cctx, first, wlz_compress_bound(n), src, n, &a) == WLZ_OK, "first");
	TU_CHECK(wlz_compress(cctx, cbuf, cbuf_cap, other, 2 * n, &c) == WLZ_OK, "between");
	TU_CHECK(wlz_compress(cctx, cbuf, cbuf_cap, src, n, &b) == WLZ_OK, "second");
	TU_CHECK(a == b && memcmp(first, cbuf, a) == 0,
		 "same input, same cctx: archives differ (%zu vs %zu bytes)", a, b);
	/* The archive fits a buffer of exactly its size. */
	TU_CHECK(wlz_compress(cctx, cbuf, a, src, n, &b) == WLZ_OK && b == a,
		 "compress into exactly %zu bytes", a);
	wlz_cctx_free(cctx);
	free(first);
}

/* wlz_cctx_create(NULL) means defaults, and the archive says so. */
static void defaults(uint64_t seed)
{
	wlz_cctx *cctx = wlz_cctx_create(NULL);
	wlz_options opt;
	size_t n = 3 * MiB + 12345;

	wlz_options_init(&opt);
	TU_CHECK(opt.struct_size == sizeof opt, "struct_size %zu", opt.struct_size);
	TU_CHECK(opt.level == WLZ_LEVEL_DEFAULT, "default level %d", opt.level);
	TU_CHECK(opt.block_log == WLZ_BLOCK_LOG_DEFAULT, "default block_log %u", opt.block_log);
	TU_CHECK(opt.depth == WLZ_DEPTH_UNLIMITED, "default depth %d", opt.depth);
	TU_CHECK(wlz_options_check(&opt) == WLZ_OK, "defaults must pass the check");
	TU_CHECK(cctx != NULL, "cctx_create(NULL)");
	/* The defaults must keep cross-block matches on a file of a few
	 * blocks (the gap rule relaxes for small inputs), and those must
	 * round-trip with every decoder thread count. */
	static const int kinds[] = { TU_TEXT, TU_FASTQ };
	for (size_t k = 0; cctx && k < sizeof kinds / sizeof kinds[0]; k++) {
		char what[96];
		snprintf(what, sizeof what, "defaults via cctx_create(NULL), %s", tu_kind_name(kinds[k]));
		const size_t cs = roundtrip(cctx, &opt, data_of(kinds[k], seed), n, what);
		wlz_stats st;
		TU_CHECK(cs && wlz_get_stats(cbuf, cs, &st) == WLZ_OK && st.cross_block > 0,
			 "%s: no match reads an earlier block", what);
	}
	wlz_cctx_free(cctx);
}

/* Depth limits, flattening off, the largest block size, encoder threads. */
static void options(uint64_t seed)
{
	static const int depths[] = { 0, 1, 2, 5 };
	const int kinds[] = { TU_REPEATS, TU_TEXT, TU_FASTQ };
	for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++) {
		for (int flatten = 0; flatten <= 1; flatten++) {
			wlz_options opt;
			wlz_cctx *cctx;
			wlz_options_init(&opt);
			opt.block_log = 16;
			opt.depth = depths[di];
			opt.flatten = flatten;
			cctx = wlz_cctx_create(&opt);
			TU_CHECK(cctx != NULL, "cctx_create(depth %d, flatten %d)", opt.depth, flatten);
			if (!cctx)
				continue;
			for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
				char what[128];
				snprintf(what, sizeof what, "%s depth=%d flatten=%d",
					 tu_kind_name(kinds[k]), opt.depth, flatten);
				roundtrip(cctx, &opt, data_of(kinds[k], seed), 700000, what);
			}
			wlz_cctx_free(cctx);
		}
	}
	/* Unlimited depth without flattening. */
	{
		wlz_options opt;
		wlz_cctx *cctx;
		wlz_options_init(&opt);
		opt.flatten = 0;
		cctx = wlz_cctx_create(&opt);
		TU_CHECK(cctx != NULL, "cctx_create(flatten 0)");
		if (cctx)
			roundtrip(cctx, &opt, data_of(TU_REPEATS, seed), 2 * MiB + 7, "repeats flatten=0");
		wlz_cctx_free(cctx);
	}
	/* One 64 MiB block: everything fits in block 0. */
	{
		wlz_options opt;
		wlz_cctx *cctx;
		wlz_options_init(&opt);
		opt.block_log = WLZ_BLOCK_LOG_MAX;
		cctx = wlz_cctx_create(&opt);
		TU_CHECK(cctx != NULL, "cctx_create(block_log max)");
		if (cctx)
			roundtrip(cctx, &opt, data_of(TU_FASTQ, seed), 2 * MiB + 3, "fastq block_log=26");
		wlz_cctx_free(cctx);
	}
	/* Encoder thread counts must not change what decodes. */
	for (int threads = 1; threads <= 3; threads++) {
		wlz_options opt;
		wlz_cctx *cctx;
		char what[64];
		wlz_options_init(&opt);
		opt.block_log = 17;
		opt.threads = threads;
		cctx = wlz_cctx_create(&opt);
		TU_CHECK(cctx != NULL, "cctx_create(threads %d)", threads);
		snprintf(what, sizeof what, "fastq encoder threads=%d", threads);
		if (cctx)
			roundtrip(cctx, &opt, data_of(TU_FASTQ, seed), 1500000, what);
		wlz_cctx_free(cctx);
	}
}

/* Progress callbacks: from the caller, done <= total, never going back. */
struct progress {
	long calls;
	uint64_t last_done, total;
	int bad;
};

static void on_progress(void *opaque, uint64_t done, uint64_t total)
{
	struct progress *p = opaque;
	if (done > total || done < p->last_done || (p->calls && total != p->total))
		p->bad = 1;
	p->calls++;
	p->last_done = done;
	p->total = total;
}

static void progress(uint64_t seed)
{
	struct progress cp = { 0, 0, 0, 0 }, dp = { 0, 0, 0, 0 };
	wlz_options opt;
	wlz_cctx *cctx;
	size_t n = 4 * MiB, csize = 0, dsize = 0;
	const uint8_t *src = data_of(TU_FASTQ, seed);

	wlz_options_init(&opt);
	opt.progress = on_progress;
	opt.progress_opaque = &cp;
	cctx = wlz_cctx_create(&opt);
	TU_CHECK(cctx != NULL, "cctx_create(progress)");
	if (!cctx)
		return;
	TU_CHECK(wlz_compress(cctx, cbuf, cbuf_cap, src, n, &csize) == WLZ_OK, "compress");
	TU_CHECK(cp.calls > 0 && !cp.bad, "compress progress: %ld calls, bad %d", cp.calls, cp.bad);
	wlz_cctx_free(cctx);

	wlz_dctx_set_progress(dctxs[1], on_progress, &dp);
	TU_CHECK(wlz_decompress(dctxs[1], dbuf, n, cbuf, csize, &dsize) == WLZ_OK && dsize == n,
		 "decompress");
	TU_CHECK(dp.calls > 0 && !dp.bad, "decompress progress: %ld calls, bad %d", dp.calls,
		 dp.bad);
	wlz_dctx_set_progress(dctxs[1], NULL, NULL);
	TU_CHECK(memcmp(dbuf, src, n) == 0, "progress round trip differs");
}

int main(int argc, char **argv)
{
	int full = argc > 1 && strcmp(argv[1], "--full") == 0;
	uint64_t seed = tu_seed(20261121);
	double t0 = tu_now();

	data_cache_n = 6 * MiB; /* 5.5 blocks of 1 MiB is the largest case */
	cbuf_cap = wlz_compress_bound(data_cache_n);
	if (cbuf_cap == 0)
		cbuf_cap = 2 * data_cache_n;
	cbuf = tu_xmalloc(cbuf_cap);
	dbuf_cap = data_cache_n;
	dbuf = tu_xmalloc(dbuf_cap);
	for (size_t t = 0; t < NDEC; t++) {
		dctxs[t] = wlz_dctx_create(dec_threads[t]);
		if (!dctxs[t]) {
			fprintf(stderr, "wlz_dctx_create(%d) failed\n", dec_threads[t]);
			return EXIT_FAILURE;
		}
	}

	printf("matrix%s\n", full ? " (full)" : "");
	matrix(seed, full);
	printf("determinism\n");
	determinism(seed);
	printf("defaults\n");
	defaults(seed);
	printf("options\n");
	options(seed);
	printf("progress\n");
	progress(seed);
	printf("%ld round trips in %.1f s\n", roundtrips, tu_now() - t0);

	for (size_t t = 0; t < NDEC; t++)
		wlz_dctx_free(dctxs[t]);
	for (int k = 0; k < TU_KIND_COUNT; k++)
		free(data_cache[k]);
	free(cbuf);
	free(dbuf);
	return tu_finish("test_roundtrip");
}
