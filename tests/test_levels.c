/*
 * test_levels.c - dependency levels and the depth limit.
 *
 * Every token's level is recomputed from the decoded tokens by
 * wlz_get_stats (decoder side, not the encoder's bookkeeping); the test
 * checks that no level exceeds the depth limit, that no block's recorded
 * max_level understates it, that every block's chained count is exact (and
 * 0 under full flattening), and that every archive decodes bit-exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "wavelz.h"

static void check(int kind, size_t n, int depth, int flatten, int level, uint64_t seed)
{
	uint8_t *src = tu_xmalloc(n);
	tu_fill(kind, src, n, seed);
	wlz_options opt;
	wlz_options_init(&opt);
	opt.level = level;
	opt.depth = depth;
	opt.flatten = flatten;
	opt.block_log = 16;  /* many blocks: levels cross block boundaries */
	opt.parallel = 1;    /* (the default keeps 15 blocks between source and match) */
	opt.threads = 2;
	wlz_cctx *cc = wlz_cctx_create(&opt);
	size_t cap = wlz_compress_bound(n), csize = 0;
	uint8_t *arc = tu_xmalloc(cap), *out = tu_xmalloc(n);
	wlz_error e = wlz_compress(cc, arc, cap, src, n, &csize);
	TU_CHECK(e == WLZ_OK, "compress: %s", wlz_error_name(e));
	/* Every depth decodes the same on any number of threads. */
	static const int threads[] = { 1, 2, 3, 8 };
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		wlz_dctx *dc = wlz_dctx_create(threads[t]);
		size_t dsize = 0;
		memset(out, 0x5A ^ (int)t, n);
		e = wlz_decompress(dc, out, n, arc, csize, &dsize);
		TU_CHECK(e == WLZ_OK && dsize == n && memcmp(out, src, n) == 0,
			 "%s depth %d flatten %d, %d threads: %s", tu_kind_name(kind), depth, flatten,
			 threads[t], wlz_error_name(e));
		wlz_dctx_free(dc);
	}
	wlz_stats st;
	wlz_info info;
	TU_CHECK(wlz_get_stats(arc, csize, &st) == WLZ_OK, "stats");
	TU_CHECK(wlz_get_info(arc, csize, &info) == WLZ_OK, "info");
	if (depth >= 0)
		TU_CHECK((int)st.max_level <= depth, "%s: recomputed level %u > depth %d",
			 tu_kind_name(kind), st.max_level, depth);
	TU_CHECK(st.index_understated == 0, "%s depth %d: %llu blocks understate max_level",
		 tu_kind_name(kind), depth, (unsigned long long)st.index_understated);
	TU_CHECK(info.max_level >= st.max_level, "index max %u < recomputed %u", info.max_level,
		 st.max_level);
	/* Chained matches (reading bytes a match of their own block wrote):
	 * the index's counts are exact, and full flattening leaves none. */
	TU_CHECK(st.chained_misstated == 0, "%s depth %d flatten %d: %llu blocks misstate chained",
		 tu_kind_name(kind), depth, flatten, (unsigned long long)st.chained_misstated);
	if (flatten == 2)
		TU_CHECK(st.chained == 0, "%s depth %d: %llu chained matches under full flattening",
			 tu_kind_name(kind), depth, (unsigned long long)st.chained);
	uint64_t hsum = 0;
	for (int l = 0; l < 256; l++)
		hsum += st.level_hist[l];
	TU_CHECK(hsum == st.tokens && st.tokens == info.token_count, "histogram sums to %llu of %llu",
		 (unsigned long long)hsum, (unsigned long long)st.tokens);
	TU_CHECK(st.literal_bytes + st.match_bytes == n, "byte accounting");
	printf("  %-8s depth %3d flatten %d level %2d: %7zu -> %7zu, max level %3u, mean %.2f, chained %.1f%%\n",
	       tu_kind_name(kind), depth, flatten, level, n, csize, st.max_level, st.mean_level,
	       st.tokens ? 100.0 * (double)st.chained / (double)st.tokens : 0.0);
	wlz_cctx_free(cc);
	free(src);
	free(arc);
	free(out);
}

/* usage: test_levels [bytes]   (default 716813; smaller under sanitizers) */
int main(int argc, char **argv)
{
	uint64_t seed = tu_seed(7);
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : 700 * 1024 + 13;
	static const int depths[] = {-1, 16, 10, 4, 2, 1, 0};
	static const int kinds[] = {TU_TEXT, TU_FASTQ, TU_REPEATS};
	/* (levels 1 to 4 cut by level in their fast parse, the others in the
	 * lazy or price-based one) */
	static const int levels[] = {3, 19, 1, 4, 9};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
			for (int flatten = 0; flatten <= 2; flatten++)
				check(kinds[k], n, depths[d], flatten, levels[(d + k) % 5], seed + k);
	/* The depth limit must also hold for data at the limit of what one
	 * token can reach: a whole repeated block. */
	check(TU_REPEATS, 3 * 65536 + 1, 0, 0, 1, seed);
	return tu_finish("test_levels");
}
