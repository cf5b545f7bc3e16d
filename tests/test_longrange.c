/*
 * test_longrange.c - matches that cross blocks and reach back more than
 * 64 MiB (the largest block size, so offsets need more than 26 bits).
 *
 * data = R (2 MiB random) + 66 MiB of other random bytes + R again.  Random
 * bytes do not compress, so the archive can only be about 2 MiB smaller than
 * the input if the second R was coded as references 68 MiB back.
 *
 * The window: the default one (cut to the input) reaches the repeat, one of
 * 64 MiB must not; the stream decoder decodes both within its window.
 *
 * Then the --parallel rule (wlz_options.parallel): with parallel = N and an
 * input of at least 15 + N blocks (16 (N - 1) at levels 10 and up), a
 * block repeated N - 1 blocks later must not be coded as references, one
 * repeated N blocks later must be, and a source allowed at its start may
 * not run on into the gap; with fewer blocks the gap shrinks (tu_gap).
 * The diagonal rule holds at any size unless parallel = 1.
 *
 * usage: test_longrange [level ...]   (default: levels 1 and 3)
 */
#include "wavelz.h"
#include "testutil.h"  /* after wavelz.h: tu_stream_decode */

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

/* The container's bytes for nb blocks: header, an 80-byte header per block,
 * the index (40 bytes and 16 a block) and the footer.  An archive of random
 * blocks without references is the input plus this. */
static size_t overhead(size_t nb)
{
	return WLZ_HEADER_SIZE + nb * (80 + 16) + 40 + 24;
}

/* X (one 64 KiB block of random bytes), k - 1 blocks of other random
 * bytes, X again, then other random blocks up to nb blocks in all (the
 * gap scales with the input: the full gap of parallel - 1 blocks needs at
 * least 15 + parallel blocks, 16 (parallel - 1) at levels 10 and up). */
static size_t gap_case(int level, int par, unsigned k, size_t nb, uint64_t seed)
{
	const size_t bs = (size_t)1 << 16;
	if (nb < k + 1)
		nb = k + 1;
	const size_t n = nb * bs;
	uint8_t *src = tu_xmalloc(n);
	tu_rng rng;
	tu_rng_seed(&rng, seed);
	tu_rng_fill(&rng, src, n);
	memcpy(src + k * bs, src, bs);
	return gap_roundtrip(src, n, level, par, "block repeat");
}

/* nb blocks (at least 18) of 64 KiB random bytes; at the middle of block
 * 17, a copy of 32 KiB starting 100 bytes before the end of block 1: at
 * parallel 16 (with a full gap of 15 blocks) only those 100 bytes may be
 * referenced, the rest lies in block 2, inside the gap (a source may not
 * run on into it). */
static size_t gap_cross_case(int level, int par, size_t nb, uint64_t seed)
{
	const size_t bs = (size_t)1 << 16, n = nb * bs;
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
		/* The full gap of 3 blocks: 19 blocks (48 at the price-based
		 * levels).  Random bytes: an
		 * archive of the input's size plus the container's bytes (less
		 * 1 KiB for chance matches) means no references, one a block
		 * smaller (within 1/8 block) means the repeat was used. */
		const size_t nb = lv >= 10 ? 16 * ((size_t)par - 1) : 15 + (size_t)par, n = nb * bs;
		const size_t stored = n + overhead(nb) - 1024, used = n + overhead(nb) - bs + bs / 8;
		TU_CHECK(tu_gap(par, nb, lv) == (size_t)par - 1, "gap %zu", tu_gap(par, nb, lv));
		/* The repeat 3 blocks back: inside the gap, so stored as is. */
		size_t in_gap = gap_case(lv, par, par - 1, nb, seed);
		/* The same without the rule: references (the test can fail). */
		size_t no_rule = gap_case(lv, 1, par - 1, nb, seed);
		/* 4 blocks back: just past the gap. */
		size_t past = gap_case(lv, par, par, nb, seed);
		printf("level %d, parallel %d, %zu blocks: repeat %d blocks back %zu bytes (%zu with parallel 1), "
		       "%d blocks back %zu bytes (input %zu)\n", lv, par, nb, par - 1, in_gap, no_rule, par, past, n);
		TU_CHECK(in_gap >= stored,
			 "level %d: a repeat inside the gap was coded as references (%zu bytes)", lv, in_gap);
		TU_CHECK(no_rule && no_rule < used,
			 "level %d: parallel 1 did not use the repeat (%zu bytes)", lv, no_rule);
		TU_CHECK(past && past < used,
			 "level %d: the repeat past the gap was not used (%zu bytes)", lv, past);
		/* One block fewer: the gap scales down to 2 blocks, and the
		 * repeat 3 blocks back is used. */
		{
			const size_t nb2 = nb - 1, n2 = nb2 * bs;
			size_t scaled = gap_case(lv, par, par - 1, nb2, seed);
			printf("level %d, parallel %d, %zu blocks (gap %zu): repeat %d blocks back %zu bytes\n", lv, par,
			       nb2, tu_gap(par, nb2, lv), par - 1, scaled);
			TU_CHECK(scaled && scaled < n2 + overhead(nb2) - bs + bs / 8,
				 "level %d: %zu blocks have a gap of %zu, but the repeat %d blocks back was not used "
				 "(%zu bytes)", lv, nb2, tu_gap(par, nb2, lv), par - 1, scaled);
			/* and 2 blocks back is still inside it */
			size_t inside = gap_case(lv, par, par - 2, nb2, seed);
			TU_CHECK(inside >= n2 + overhead(nb2) - 1024, "level %d: %zu blocks, a repeat 2 blocks back was coded as references "
				 "(%zu bytes)", lv, nb2, inside);
		}
		/* Small inputs keep their cross-block matches: 8 blocks, gap 0,
		 * a repeat 1 block back is used even at parallel 16. */
		{
			size_t small = gap_case(lv, 16, 1, 8, seed);
			TU_CHECK(small && small < 8 * bs + overhead(8) - bs + bs / 8,
				 "level %d: 8 blocks at parallel 16 (gap 0): the repeat 1 block back was not used "
				 "(%zu bytes)", lv, small);
		}
		/* The diagonal rule (SPEC.md section 8): block 1 starts with a
		 * copy of block 0's second half, bytes block 0's decoder
		 * writes only after block 1's has started; at parallel 16 (gap
		 * 0 here) they are not read, at parallel 1 they are. */
		{
			size_t diag[2];
			for (int i = 0; i < 2; i++) {
				uint8_t *src = tu_xmalloc(8 * bs);
				tu_rng rng;
				tu_rng_seed(&rng, seed + 7);
				tu_rng_fill(&rng, src, 8 * bs);
				memcpy(src + bs, src + bs / 2, bs / 2);
				diag[i] = gap_roundtrip(src, 8 * bs, lv, i ? 1 : 16, "diagonal");
			}
			printf("level %d: half a block copied from late in the block before: %zu bytes at parallel 16, "
			       "%zu at 1\n", lv, diag[0], diag[1]);
			TU_CHECK(diag[0] >= 8 * bs + overhead(8) - 1024,
				 "level %d: a source beyond the diagonal was read at parallel 16 (%zu bytes)", lv, diag[0]);
			TU_CHECK(diag[1] && diag[1] < 8 * bs + overhead(8) - bs / 2 + bs / 8,
				 "level %d: parallel 1 did not read across the diagonal (%zu bytes)", lv, diag[1]);
		}
		/* A source before the gap that runs on into it: 31 blocks (240
		 * at the price-based levels), the full gap of 15 at parallel 16. */
		const size_t cnb = lv >= 10 ? 240 : 31, cn = cnb * bs;
		size_t cross = gap_cross_case(lv, 16, cnb, seed), cross1 = gap_cross_case(lv, 1, cnb, seed);
		printf("level %d: 32 KiB copy running into the gap: %zu bytes at parallel 16, %zu at 1 (input %zu)\n",
		       lv, cross, cross1, cn);
		TU_CHECK(cross >= cn + overhead(cnb) - 1024,
			 "level %d: a source ran on into the gap (%zu bytes, 100 may be referenced)", lv, cross);
		TU_CHECK(cross1 && cross1 < cn + overhead(cnb) - bs / 4,
			 "level %d: parallel 1 did not use the 32 KiB copy (%zu bytes)", lv, cross1);
	}
}

/* Streams arc through a decoder whose memory limit is `limit`. */
static wlz_error stream_check(const uint8_t *arc, size_t csize, const uint8_t *src, size_t n, int threads,
			      uint64_t limit, size_t *at)
{
	wlz_dctx *dc = wlz_dctx_create(threads);
	static const tu_pieces mib_pieces = { MiB, 0, 0 };  /* the archive in 1 MiB pieces */
	tu_cmpwr out = { src, n, 0, 0, 0 };
	uint64_t got = 0;
	if (!dc)
		return WLZ_ERR_NOMEM;
	wlz_error e = tu_stream_decode(dc, arc, csize, mib_pieces, &out, limit, &got, NULL);
	wlz_dctx_free(dc);
	if (e == WLZ_OK && (out.differ || got != n || out.at != n))
		e = WLZ_ERR_INTERNAL;
	*at = out.at;
	return e;
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
			/* The default window, cut to the input: 2^27 >= 70 MiB. */
			TU_CHECK(info.window_log == 27, "info: window_log %u, expected 27", info.window_log);
		}

		/* The stream decoder keeps a window of 2^27 bytes and finds the
		 * repeat 68 MiB back in it; a limit under the window refuses. */
		if (li == 0 && e == WLZ_OK) {
			size_t at = 0;
			t0 = tu_now();
			e = stream_check(arc, csize, src, n, 2, (uint64_t)1 << info.window_log, &at);
			TU_CHECK(e == WLZ_OK, "level %d: decompress_stream: %s, %zu bytes right", opt.level,
				 wlz_error_name(e), at);
			printf("level %d: stream-decoded in %.2f s (2 threads)\n", opt.level, tu_now() - t0);
			e = stream_check(arc, csize, src, n, 2, ((uint64_t)1 << info.window_log) - 1, &at);
			TU_CHECK(e == WLZ_ERR_WINDOW && at == 0, "level %d: memory limit under the window: %s", opt.level,
				 wlz_error_name(e));
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

		/* A window of 64 MiB: the repeat 68 MiB back is out of reach,
		 * so the archive is no smaller than the input; the stream
		 * decoder's window (64 MiB and the blocks in flight) wraps. */
		if (li == 0) {
			opt.window_log = 26;
			cctx = wlz_cctx_create(&opt);
			e = cctx ? wlz_compress(cctx, arc, cap, src, n, &csize) : WLZ_ERR_PARAM;
			wlz_cctx_free(cctx);
			TU_CHECK(e == WLZ_OK, "level %d, window 2^26: compress: %s", opt.level, wlz_error_name(e));
			if (e == WLZ_OK) {
				size_t at = 0;
				printf("level %d, window 2^26: %zu -> %zu bytes\n", opt.level, n, csize);
				TU_CHECK(csize >= n, "level %d, window 2^26: %zu bytes, a match reached back 68 MiB",
					 opt.level, csize);
				TU_CHECK(wlz_get_info(arc, csize, &info) == WLZ_OK && info.window_log == 26,
					 "window 2^26: get_info window_log %u", info.window_log);
				e = wlz_decompress(dctx, dst, n, arc, csize, &dsize);
				TU_CHECK(e == WLZ_OK && dsize == n && memcmp(dst, src, n) == 0,
					 "level %d, window 2^26: decompress: %s", opt.level, wlz_error_name(e));
				e = stream_check(arc, csize, src, n, 1, (uint64_t)1 << 26, &at);
				TU_CHECK(e == WLZ_OK, "level %d, window 2^26: decompress_stream: %s, %zu bytes right",
					 opt.level, wlz_error_name(e), at);
			}
		}
	}
	wlz_dctx_free(dctx);
	gap_rule(levels, nlevels, seed);
	free(arc);
	free(src);
	free(dst);
	return tu_finish("test_longrange");
}
