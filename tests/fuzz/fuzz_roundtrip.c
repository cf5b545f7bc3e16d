/*
 * fuzz_roundtrip.c - libFuzzer target: compress then decode, parameters
 * from the first 4 bytes (level 1..12, block size 64..256 KiB, parallel 1,
 * 2, 4 or 16, depth unlimited or 0..6, flattening off/priced/full, window
 * the default or block_log + 0..2, the stream encoder or wlz_compress,
 * 1..3 compression and decoding threads); the rest is the content.  The
 * decoded bytes must equal the input, by wlz_decompress and by
 * wlz_decompress_stream (its memory limit exactly the window); the stream
 * encoder, reading pieces of 1 to 4096 bytes, must write the bytes of
 * wlz_compress.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "wavelz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
	const uint8_t *p;
	size_t n, at;
	unsigned piece;
} rd;

static size_t rd_read(void *opaque, void *buf, size_t cap)
{
	rd *r = opaque;
	size_t k = r->n - r->at;
	r->piece = r->piece * 1103515245u + 12345u;
	if (k > 1 + (r->piece >> 20))
		k = 1 + (r->piece >> 20);
	if (k > cap)
		k = cap;
	memcpy(buf, r->p + r->at, k);
	r->at += k;
	return k;
}

typedef struct wr {
	const uint8_t *want;
	size_t n, at;
	int differ;
} wr;

static int wr_cmp(void *opaque, const void *buf, size_t n)
{
	wr *w = opaque;
	if (n > w->n - w->at || memcmp(buf, w->want + w->at, n) != 0)
		w->differ = 1;
	else
		w->at += n;
	return w->differ;
}

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
	const int stream = (data[2] >> 5) & 1;
	const unsigned wsel = (data[2] >> 6) & 3;
	opt.window_log = wsel ? opt.block_log + wsel - 1 : 0;
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
	/* The window: the option's (or the level's default), cut to the
	 * input's size rounded up to a power of two, never under a block. */
	wlz_info info;
	if (wlz_get_info(arc, csize, &info) != WLZ_OK || info.content_size != size || info.archive_size != csize)
		abort();
	const unsigned wl = info.window_log;
	if (wl < opt.block_log || wl > (opt.window_log ? opt.window_log : 31) ||
	    (wl != opt.block_log && wl != opt.window_log && ((uint64_t)1 << (wl - 1)) >= size))
		abort();
	if (stream) {
		/* the same archive through the stream encoder */
		rd r = { data, size, 0, (unsigned)size };
		wr w = { arc, csize, 0, 0 };
		if (wlz_compress_stream(cc, rd_read, &r, wr_cmp, &w, size) != WLZ_OK || w.differ || w.at != csize)
			abort();
	}
	{
		/* and back through the stream decoder, within the window */
		rd r = { arc, csize, 0, (unsigned)csize };
		wr w = { data, size, 0, 0 };
		uint64_t n = 0;
		wlz_dctx_set_memory_limit(dc, (uint64_t)1 << info.window_log);
		wlz_error e = wlz_decompress_stream(dc, rd_read, &r, wr_cmp, &w, &n);
		wlz_dctx_set_memory_limit(dc, 0);
		if (e != WLZ_OK || w.differ || w.at != size || n != size)
			abort();
	}
	free(arc);
	free(out);
	return 0;
}
