/*
 * consumer.c - compresses and decompresses a buffer through wavelz's public
 * API only, as an installed-library user would.  Exit status 0 when the
 * round trip gives back the input, 1 otherwise.
 */
#include <wavelz.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, wlz_error e)
{
	fprintf(stderr, "consumer: %s: %s (%s)\n", what, wlz_error_name(e),
		wlz_error_detail());
	return 1;
}

int main(void)
{
	/* Text with repeats, over three 64 KiB blocks. */
	const size_t n = (size_t)160 << 10;
	unsigned char *src = malloc(n), *arc, *out;
	uint32_t x = 12345;
	size_t i, cap, csize = 0, got = 0;
	wlz_options opt;
	wlz_cctx *cc;
	wlz_dctx *dc;
	wlz_error e;

	if (!src)
		return 1;
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		src[i] = (i % 1000 < 600) ? (unsigned char)("ACGT"[(x >> 16) & 3])
					  : (unsigned char)('a' + i % 26);
	}

	wlz_options_init(&opt);
	opt.level = 3;
	opt.threads = 2;
	opt.block_log = 16;
	cc = wlz_cctx_create(&opt);
	if (!cc)
		return fail("wlz_cctx_create", wlz_options_check(&opt));
	cap = wlz_compress_bound(n);
	arc = malloc(cap);
	out = malloc(n);
	if (!cap || !arc || !out)
		return 1;
	e = wlz_compress(cc, arc, cap, src, n, &csize);
	if (e != WLZ_OK)
		return fail("wlz_compress", e);
	if (csize == 0 || csize >= n) {
		fprintf(stderr, "consumer: %zu bytes compressed to %zu\n", n, csize);
		return 1;
	}

	dc = wlz_dctx_create(2);
	if (!dc)
		return 1;
	e = wlz_decompress(dc, out, n, arc, csize, &got);
	if (e != WLZ_OK)
		return fail("wlz_decompress", e);
	if (got != n || memcmp(out, src, n) != 0) {
		fprintf(stderr, "consumer: round trip mismatch (%zu of %zu bytes)\n",
			got, n);
		return 1;
	}

	wlz_cctx_free(cc);
	wlz_dctx_free(dc);
	free(src);
	free(arc);
	free(out);
	printf("consumer: %zu -> %zu -> %zu bytes, identical\n", n, csize, got);
	return 0;
}
