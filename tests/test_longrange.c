/*
 * test_longrange.c - matches that cross blocks and reach back more than
 * 64 MiB (the largest block size, so offsets need more than 26 bits).
 *
 * data = R (2 MiB random) + 66 MiB of other random bytes + R again.  Random
 * bytes do not compress, so the archive can only be about 2 MiB smaller than
 * the input if the second R was coded as references 68 MiB back.
 *
 * Then the --parallel rule (wlz_options.parallel): with parallel = N, a
 * block repeated N - 1 blocks later must not be coded as references, one
 * repeated N blocks later must be, and a source allowed at its start may
 * not run on into the gap.
 *
 * usage: test_longrange [level ...]   (default: levels 1 and 3)
 */
#include "testutil.h"
#include "wavelz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

/* src[0..n) at 64 KiB blocks with parallel = par: compressed, decoded and
 * compared.  Returns the archive size (0 on failure); frees src. */
static size_t gap_roundtrip(uint8_t *src, size_t n, int level, int par, const char *what)
{
	uint8_t *dst = tu_xmalloc(n), *arc = tu_xmalloc(wlz_compress_bound(n));
	size_t csize = 0, dsize = 0;
	wlz_options opt;
	wlz_options_init(&opt);
	opt.level = level;
	opt.block_log = 16;
	opt.parallel = par;
	opt.threads = 2;
	wlz_cctx *cc = wlz_cctx_create(&opt);
	wlz_dctx *dc = wlz_dctx_create(2);
	wlz_error e = cc && dc ? wlz_compress(cc, arc, wlz_compress_bound(n), src, n, &csize) : WLZ_ERR_NOMEM;
	TU_CHECK(e == WLZ_OK, "%s, level %d parallel %d: compress: %s", what, level, par, wlz_error_name(e));
	if (e == WLZ_OK) {
		e = wlz_decompress(dc, dst, n, arc, csize, &dsize);
		TU_CHECK(e == WLZ_OK && dsize == n && !memcmp(dst, src, n), "%s, level %d parallel %d: round trip: %s",
			 what, level, par, wlz_error_name(e));
	}
	wlz_cctx_free(cc);
	wlz_dctx_free(dc);
	free(src);
	free(dst);
	free(arc);
	return e == WLZ_OK ? csize : 0;
}

/* X (one 64 KiB block of random bytes), k - 1 blocks of other random
 * bytes, X again. */
static size_t gap_case(int level, int par, unsigned k, uint64_t seed)
{
	const size_t bs = (size_t)1 << 16, n = (k + 1) * bs;
	uint8_t *src = tu_xmalloc(n);
	tu_rng rng;
	tu_rng_seed(&rng, seed);
	tu_rng_fill(&rng, src, k * bs);
	memcpy(src + k * bs, src, bs);
	return gap_roundtrip(src, n, level, par, "block repeat");
}

/* 18 blocks of 64 KiB random bytes; at the middle of block 17, a copy of
 * 32 KiB starting 100 bytes before the end of block 1: at parallel 16 only
 * those 100 bytes may be referenced, the rest lies in block 2, inside the
 * gap (a source may not run on into it). */
static size_t gap_cross_case(int level, int par, uint64_t seed)
{
	const size_t bs = (size_t)1 << 16, n = 18 * bs;
	uint8_t *src = tu_xmalloc(n);
	tu_rng rng;
	tu_rng_seed(&rng, seed);
	tu_rng_fill(&rng, src, n);
	memcpy(src + 17 * bs + bs / 2, src + 2 * bs - 100, bs / 2);
	return gap_roundtrip(src, n, level, par, "copy into the gap");
}

static void gap_rule(const int *levels, int nlevels, uint64_t seed)
{
	const size_t bs = (size_t)1 << 16;
	for (int li = 0; li < nlevels; li++) {
		const int lv = levels[li], par = 4;
		/* The repeat 3 blocks back: inside the gap, so stored as is. */
		size_t in_gap = gap_case(lv, par, par - 1, seed);
		/* The same without the rule: references (the test can fail). */
		size_t no_rule = gap_case(lv, 1, par - 1, seed);
		/* 4 blocks back: just past the gap. */
		size_t past = gap_case(lv, par, par, seed);
		printf("level %d, parallel %d: repeat %d blocks back %zu bytes (%zu with parallel 1), "
		       "%d blocks back %zu bytes\n", lv, par, par - 1, in_gap, no_rule, par, past);
		TU_CHECK(in_gap >= (size_t)par * bs,
			 "level %d: a repeat inside the gap was coded as references (%zu bytes)", lv, in_gap);
		TU_CHECK(no_rule && no_rule < (size_t)(par - 1) * bs + bs / 8,
			 "level %d: parallel 1 did not use the repeat (%zu bytes)", lv, no_rule);
		TU_CHECK(past && past < (size_t)par * bs + bs / 8,
			 "level %d: the repeat past the gap was not used (%zu bytes)", lv, past);
		/* A source before the gap that runs on into it. */
		size_t cross = gap_cross_case(lv, 16, seed), cross1 = gap_cross_case(lv, 1, seed);
		printf("level %d: 32 KiB copy running into the gap: %zu bytes at parallel 16, %zu at 1\n", lv,
		       cross, cross1);
		TU_CHECK(cross >= 18 * bs - 1024,
			 "level %d: a source ran on into the gap (%zu bytes, 100 may be referenced)", lv, cross);
		TU_CHECK(cross1 && cross1 < 18 * bs - bs / 4,
			 "level %d: parallel 1 did not use the 32 KiB copy (%zu bytes)", lv, cross1);
	}
}

int main(int argc, char **argv)
{
	const size_t r_size = 2 * MiB, mid = 66 * MiB;
	const size_t n = r_size + mid + r_size;
	const size_t unique = r_size + mid;
	/* Without the long references the archive is >= n; with them it is
	 * unique bytes plus container overhead, far below this limit. */
	const size_t limit = n - (size_t)(1.9 * (double)MiB);
	uint64_t seed = tu_seed(6464);
	int levels[8] = { 1, 3 };
	int nlevels = 2;
	tu_rng rng;
	uint8_t *src = tu_xmalloc(n), *dst = tu_xmalloc(n);
	size_t cap = wlz_compress_bound(n);
	uint8_t *arc;
	wlz_dctx *dctx = wlz_dctx_create(2);

	if (argc > 1) {
		nlevels = 0;
		for (int i = 1; i < argc && nlevels < 8; i++)
			levels[nlevels++] = atoi(argv[i]);
	}
	TU_CHECK(cap >= n, "bound %zu for %zu bytes", cap, n);
	if (cap < n)
		return tu_finish("test_longrange");
	arc = tu_xmalloc(cap);
	TU_CHECK(dctx != NULL, "dctx_create");
	if (!dctx)
		return tu_finish("test_longrange");

	tu_rng_seed(&rng, seed);
	tu_rng_fill(&rng, src, unique);
	memcpy(src + unique, src, r_size);

	for (int li = 0; li < nlevels; li++) {
		wlz_options opt;
		wlz_cctx *cctx;
		wlz_info info;
		size_t csize = 0, dsize = 0;
		wlz_error e;
		double t0 = tu_now(), t1;

		wlz_options_init(&opt);
		opt.level = levels[li];
		opt.threads = 2; /* CI has two cores */
		opt.block_log = 20;
		cctx = wlz_cctx_create(&opt);
		TU_CHECK(cctx != NULL, "cctx_create(level %d)", opt.level);
		if (!cctx)
			continue;
		e = wlz_compress(cctx, arc, cap, src, n, &csize);
		t1 = tu_now();
		wlz_cctx_free(cctx);
		TU_CHECK(e == WLZ_OK, "level %d: compress: %s", opt.level, wlz_error_name(e));
		if (e != WLZ_OK)
			continue;
		printf("level %d: %zu -> %zu bytes (limit %zu) in %.2f s\n", opt.level, n, csize,
		       limit, t1 - t0);
		TU_CHECK(csize < limit,
			 "level %d: archive %zu bytes, must be < %zu: the repeat 68 MiB back was "
			 "not coded as references", opt.level, csize, limit);

		e = wlz_get_info(arc, csize, &info);
		TU_CHECK(e == WLZ_OK, "get_info: %s", wlz_error_name(e));
		if (e == WLZ_OK) {
			TU_CHECK(info.content_size == n && info.block_count == n / MiB,
				 "info: content_size %llu block_count %llu",
				 (unsigned long long)info.content_size,
				 (unsigned long long)info.block_count);
		}

		/* Blocks 68 MiB apart land on different workers: try a few. */
		for (int ti = 0; ti < 3; ti++) {
			static const int threads[3] = { 1, 2, 8 };
			wlz_dctx *dc = threads[ti] == 2 ? dctx : wlz_dctx_create(threads[ti]);
			TU_CHECK(dc != NULL, "dctx_create(%d)", threads[ti]);
			if (!dc)
				continue;
			memset(dst, 0xCC + ti, n);
			t0 = tu_now();
			e = wlz_decompress(dc, dst, n, arc, csize, &dsize);
			t1 = tu_now();
			if (dc != dctx)
				wlz_dctx_free(dc);
			TU_CHECK(e == WLZ_OK, "level %d, %d threads: decompress: %s", opt.level,
				 threads[ti], wlz_error_name(e));
			if (e != WLZ_OK)
				continue;
			TU_CHECK(dsize == n, "decoded %zu bytes", dsize);
			if (memcmp(dst, src, n) != 0) {
				size_t i = 0;
				while (dst[i] == src[i])
					i++;
				TU_CHECK(0, "level %d, %d threads: decoded bytes differ, first at %zu",
					 opt.level, threads[ti], i);
			}
			printf("level %d: decoded in %.2f s (%d threads)\n", opt.level, t1 - t0,
			       threads[ti]);
		}
	}
	wlz_dctx_free(dctx);
	gap_rule(levels, nlevels, seed);
	free(arc);
	free(src);
	free(dst);
	return tu_finish("test_longrange");
}
