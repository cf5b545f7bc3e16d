/*
 * fuzz_decode.c - libFuzzer target: arbitrary bytes as an archive.  The
 * decoder must return an error or the exact content; the output buffer is
 * sized from the header (capped), so a lying header must not make it write
 * past the end.  The first byte picks 1 to 4 decoding threads.
 */
#include <stdint.h>
#include <stdlib.h>
#include "wavelz.h"

#define OUT_CAP ((uint64_t)64 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const int threads = 1 + (data[0] & 3);
	data++;
	size--;
	uint64_t n = 0;
	if (wlz_get_content_size(data, size, &n) != WLZ_OK || n > OUT_CAP)
		n = 1024;  /* still decode: every check must hold without a valid header */
	uint8_t *out = malloc(n ? (size_t)n : 1);
	wlz_dctx *dc = wlz_dctx_create(threads);
	if (out && dc) {
		size_t got = 0;
		wlz_error e = wlz_decompress(dc, out, (size_t)n, data, size, &got);
		if (e == WLZ_OK && got > n)
			abort();
		if (e != WLZ_OK && got != 0)
			abort();
		wlz_info info;
		if (e == WLZ_OK && (wlz_get_info(data, size, &info) != WLZ_OK || info.content_size != got))
			abort();
	}
	wlz_dctx_free(dc);
	free(out);
	return 0;
}
