/*
 * fuzz_roundtrip.c - libFuzzer target: compress then decode, parameters
 * from the first 4 bytes (level 1..12, block size 64..256 KiB, depth
 * unlimited or 0..6, flattening off/priced/full, 1..3 compression and decoding threads);
 * the rest is the content.  The decoded bytes must equal the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "wavelz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	wlz_options opt;
	wlz_options_init(&opt);
	opt.level = 1 + data[0] % 12;
	opt.block_log = 16 + data[1] % 3;
	static const int pars[4] = { 1, 2, 4, 16 };
	opt.parallel = pars[(data[1] >> 2) & 3];
	opt.depth = data[2] % 8 == 7 ? WLZ_DEPTH_UNLIMITED : data[2] % 8;
	opt.flatten = ((data[2] >> 3) & 3) % 3;  /* off, priced, full */
	opt.threads = 1 + data[3] % 3;
	const int dthreads = 1 + (data[3] >> 2) % 3;
	data += 4;
	size -= 4;
	/* Contexts are kept while the parameters stay the same (creating one
	 * costs far more than a small round trip). */
	static wlz_cctx *cc;
	static wlz_dctx *dc;
	static wlz_options cur;
	static int cur_dthreads;
	if (!cc || memcmp(&cur, &opt, sizeof opt) != 0) {
		wlz_cctx_free(cc);
		cc = wlz_cctx_create(&opt);
		cur = opt;
	}
	if (!dc || cur_dthreads != dthreads) {
		wlz_dctx_free(dc);
		dc = wlz_dctx_create(dthreads);
		cur_dthreads = dthreads;
	}
	size_t cap = wlz_compress_bound(size), csize = 0, got = 0;
	uint8_t *arc = malloc(cap), *out = malloc(size ? size : 1);
	if (!cc || !dc || !arc || !out)
		abort();
	if (wlz_compress(cc, arc, cap, data, size, &csize) != WLZ_OK)
		abort();
	if (wlz_decompress(dc, out, size, arc, csize, &got) != WLZ_OK || got != size ||
	    memcmp(out, data, size) != 0)
		abort();
	free(arc);
	free(out);
	return 0;
}
