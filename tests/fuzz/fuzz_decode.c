/*
 * fuzz_decode.c - libFuzzer target: arbitrary bytes as an archive (one or
 * more members).  The decoder must return an error or the exact content;
 * the output buffer is sized from wlz_get_content_size (capped), so a lying
 * archive must not make it write past the end.  The stream decoder gets the
 * same bytes (read in pieces whose sizes come from the input) and must
 * agree: it succeeds exactly when the in-memory decoder does (or refuses a
 * window over its memory limit), with the same content, and writes nothing
 * but a prefix of that content.  The first byte picks 1 to 4 decoding
 * threads and the stream reader's piece size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "wavelz.h"

#define OUT_CAP ((uint64_t)64 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
	const uint8_t *p;
	size_t n, at, piece;
} rd;

static size_t rd_read(void *opaque, void *buf, size_t cap)
{
	rd *r = opaque;
	size_t k = r->n - r->at;
	if (k > cap)
		k = cap;
	if (k > r->piece)
		k = r->piece;
	memcpy(buf, r->p + r->at, k);
	r->at += k;
	return k;
}

typedef struct wr {
	const uint8_t *want;  /* the in-memory result, or NULL */
	size_t want_n, n;
	int differ;
} wr;

static int wr_write(void *opaque, const void *buf, size_t n)
{
	wr *w = opaque;
	if (n > OUT_CAP - w->n)
		return 1;  /* stop: WLZ_ERR_WRITE */
	if (w->want && (n > w->want_n - w->n || memcmp(buf, w->want + w->n, n) != 0))
		w->differ = 1;
	w->n += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const int threads = 1 + (data[0] & 3);
	static const size_t pieces[4] = { 1, 7, 4096, (size_t)1 << 20 };
	const size_t piece = pieces[(data[0] >> 2) & 3];
	data++;
	size--;
	uint64_t n = 0;
	const int sized = wlz_get_content_size(data, size, &n) == WLZ_OK && n <= OUT_CAP;
	if (!sized)
		n = 1024;  /* still decode: every check must hold without a valid archive */
	uint8_t *out = malloc(n ? (size_t)n : 1);
	wlz_dctx *dc = wlz_dctx_create(threads);
	if (out && dc) {
		size_t got = 0;
		wlz_error e = wlz_decompress(dc, out, (size_t)n, data, size, &got);
		if (e == WLZ_OK && got > n)
			abort();
		if (e != WLZ_OK && got != 0)
			abort();
		/* Decoding succeeds only where the content size is known. */
		if (e == WLZ_OK && (!sized || got != n))
			abort();
		wlz_info info;
		if (e == WLZ_OK && size && (wlz_get_info(data, size, &info) != WLZ_OK || info.content_size > got ||
					    info.archive_size > size))
			abort();

		/* The stream decoder, its window limited to the output cap. */
		rd r = { data, size, 0, piece };
		wr w = { e == WLZ_OK ? out : NULL, got, 0, 0 };
		uint64_t streamed = 0;
		wlz_dctx_set_memory_limit(dc, OUT_CAP);
		wlz_error se = wlz_decompress_stream(dc, rd_read, &r, wr_write, &w, &streamed);
		if (se < WLZ_OK || se >= WLZ_ERR_COUNT_ || streamed != w.n || w.differ)
			abort();
		if (se == WLZ_OK && (e != WLZ_OK || w.n != got || r.at != size))
			abort();
		if (e == WLZ_OK && se != WLZ_OK && se != WLZ_ERR_WINDOW && se != WLZ_ERR_NOMEM)
			abort();
	}
	wlz_dctx_free(dc);
	free(out);
	return 0;
}
