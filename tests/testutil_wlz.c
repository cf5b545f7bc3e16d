/*
 * testutil_wlz.c - test helpers that call the library (an object of its
 * own: forge_bad links wlz_testutil without libwavelz).
 */
#include "wavelz.h"
#include "testutil.h"

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
