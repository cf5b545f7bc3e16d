/*
 * test_tiny.c - tiny inputs (0 to 1024 bytes) round-trip at every level,
 * at the smallest, default and largest block sizes, and at unlimited and
 * several depth limits, decoded on 1 and 3 threads.
 */
#include "testutil.h"
#include "wavelz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	static const size_t sizes[] = { 0,   1,   2,   3,   4,   5,   7,   8,   9,    15,   16,
					17,  31,  32,  33,  63,  64,  65,  100, 127,  128,  129,
					255, 256, 257, 511, 512, 513, 1000, 1023, 1024 };
	static const unsigned logs[] = { 16, 20, 26 };
	static const int depths[] = { WLZ_DEPTH_UNLIMITED, 0, 1, 2, 10 };
	static const int kinds[] = { TU_TEXT, TU_FASTQ, TU_RANDOM, TU_ZEROS, TU_REPEATS };
	const size_t ns = sizeof sizes / sizeof sizes[0];
	uint64_t seed = tu_seed(1024);
	uint8_t src[1024], out[1024], arc[4096];
	wlz_dctx *d1 = wlz_dctx_create(1), *d3 = wlz_dctx_create(3);
	long trips = 0;
	TU_CHECK(d1 && d3, "dctx_create");
	for (int level = 1; level <= 19; level++)
		for (size_t l = 0; l < sizeof logs / sizeof logs[0]; l++)
			for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
				wlz_options opt;
				wlz_options_init(&opt);
				opt.level = level;
				opt.block_log = logs[l];
				opt.depth = depths[d];
				opt.threads = 1;
				wlz_cctx *cc = wlz_cctx_create(&opt);
				TU_CHECK(cc != NULL, "cctx_create level %d", level);
				for (size_t i = 0; cc && i < ns; i++) {
					const size_t n = sizes[i];
					const int kind = kinds[(i + (size_t)level) % 5];
					tu_fill(kind, src, n, seed + i);
					size_t csize = 0, got = 0;
					TU_CHECK(wlz_compress_bound(n) <= sizeof arc, "bound %zu", wlz_compress_bound(n));
					wlz_error e = wlz_compress(cc, arc, sizeof arc, src, n, &csize);
					TU_CHECK(e == WLZ_OK, "compress n=%zu level %d log %u depth %d: %s", n, level,
						 logs[l], depths[d], wlz_error_name(e));
					for (int t = 0; e == WLZ_OK && t < 2; t++) {
						memset(out, 0xA5, sizeof out);
						wlz_error e2 = wlz_decompress(t ? d3 : d1, out, n, arc, csize, &got);
						TU_CHECK(e2 == WLZ_OK && got == n && memcmp(out, src, n) == 0,
							 "%s n=%zu level %d log %u depth %d, %d thread(s): %s",
							 tu_kind_name(kind), n, level, logs[l], depths[d], t ? 3 : 1,
							 wlz_error_name(e2));
						trips++;
					}
				}
				wlz_cctx_free(cc);
			}
	wlz_dctx_free(d1);
	wlz_dctx_free(d3);
	printf("%ld round trips of 0..1024 bytes\n", trips);
	return tu_finish("test_tiny");
}
