/*
 * fuzz_ent.c - libFuzzer target: stream codec 2 alone (common/ent.c,
 * common/huf_*.c).  The first byte picks the mode:
 *   odd:  the rest is a codec-2 stream to decode to rsize bytes (the next
 *         two bytes, little-endian): an error, or exactly rsize bytes, with
 *         no read or write out of bounds;
 *   even: the rest is content, coded with up to 1 + (byte >> 1) % 16
 *         tables, a second clustering where bit 5 is set, segments of
 *         2^(12 + (byte >> 6)) symbols, and cut into two parts at the next
 *         two bytes (whose value v also sets the clustering's passes,
 *         1 + v % 6), then decoded: it must come back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/ent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	static wlz_huf_tables t;
	const unsigned mode = data[0], arg = data[1] | (unsigned)data[2] << 8;
	const uint8_t *in = data + 3;
	const size_t n = size - 3;
	if (mode & 1) {
		/* The stream in a buffer of exactly its size. */
		uint8_t *s = malloc(n ? n : 1), *out = malloc(arg ? arg : 1);
		if (!s || !out)
			abort();
		memcpy(s, in, n);
		(void)wlz_ent_decode(s, n, out, arg, &t);
		free(s);
		free(out);
		return 0;
	}
	if (n == 0)
		return 0;
	const size_t cap = wlz_ent_bound(n) + wlz_huf_bound(n, WLZ_HUF_SEG_MIN);
	uint8_t *c = malloc(cap), *out = malloc(n);
	if (!c || !out)
		abort();
	const size_t cut = arg % (n + 1);
	const size_t cs = wlz_ent_encode(in, n, &cut, 1, 1 + (mode >> 1) % WLZ_HUF_MAX_TABLES,
					 WLZ_HUF_SEG_MIN + (mode >> 6) % 4, (mode >> 5) & 1 ? 1024 : 0,
					 1 + arg % WLZ_HUF_CLUSTER_ITER, c, cap, NULL);
	if (cs == 0 || wlz_ent_decode(c, cs, out, n, &t) != WLZ_OK || memcmp(out, in, n))
		abort();
	free(c);
	free(out);
	return 0;
}
