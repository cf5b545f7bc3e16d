/*
 * testutil_wlz.c - test helpers that call the library (an object of its
 * own: forge_bad links wlz_testutil without libwavelz).
 */
#include "wavelz.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

uint8_t *tu_compress(const uint8_t *src, size_t n, unsigned block_log, unsigned window_log, size_t *out)
{
	wlz_options o;
	wlz_options_init(&o);
	o.level = 3;
	o.threads = 2;
	if (block_log)
		o.block_log = block_log;
	o.window_log = window_log;
	wlz_cctx *c = wlz_cctx_create(&o);
	const size_t cap = wlz_compress_bound(n);
	uint8_t *a = tu_xmalloc(cap);
	*out = 0;
	TU_CHECK(c && wlz_compress(c, a, cap, src, n, out) == WLZ_OK, "compress: %s", wlz_error_detail());
	wlz_cctx_free(c);
	return a;
}

uint8_t *tu_read_zst(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *z, *out;
	long zn;
	unsigned long long size;
	size_t got;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (zn = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	z = tu_xmalloc((size_t)zn);
	got = fread(z, 1, (size_t)zn, f);
	fclose(f);
	size = ZSTD_getFrameContentSize(z, got);
	if (got != (size_t)zn || size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
		free(z);
		return NULL;
	}
	out = tu_xmalloc((size_t)size);
	got = ZSTD_decompress(out, (size_t)size, z, (size_t)zn);
	free(z);
	if (ZSTD_isError(got) || got != size) {
		free(out);
		return NULL;
	}
	*n = (size_t)size;
	return out;
}
