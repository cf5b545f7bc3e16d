/*
 * decompress.c - the decompression context and whole-archive decode.
 */
#include <stdlib.h>
#include "cpu_decoder/block_decode.h"

struct wlz_dctx {
	int nthreads;
	wlz_bdec *bd;
	wlz_xxh3_stream *hash;
	wlz_progress_fn progress;
	void *progress_opaque;
};

WLZ_EXPORT wlz_dctx *wlz_dctx_create(int threads)
{
	if (threads < 0)
		return NULL;
	wlz_dctx *dc = calloc(1, sizeof(*dc));
	if (!dc)
		return NULL;
	dc->nthreads = wlz_resolve_threads(threads);
	dc->bd = wlz_bdec_create();
	dc->hash = wlz_xxh3_stream_create();
	if (!dc->bd || !dc->hash) {
		wlz_dctx_free(dc);
		return NULL;
	}
	return dc;
}

WLZ_EXPORT void wlz_dctx_free(wlz_dctx *dc)
{
	if (!dc)
		return;
	wlz_bdec_free(dc->bd);
	wlz_xxh3_stream_free(dc->hash);
	free(dc);
}

WLZ_EXPORT void wlz_dctx_set_progress(wlz_dctx *dc, wlz_progress_fn fn, void *opaque)
{
	if (!dc)
		return;
	dc->progress = fn;
	dc->progress_opaque = opaque;
}

WLZ_EXPORT wlz_error wlz_decompress(wlz_dctx *dc, void *dst, size_t dst_capacity,
				    const void *src, size_t src_size, size_t *dst_size)
{
	if (!dc || !src || !dst_size || (!dst && dst_capacity))
		return WLZ_ERR_PARAM;
	*dst_size = 0;
	const uint8_t *arc = src;
	wlz_header h;
	WLZ_TRY(wlz_archive_validate(arc, src_size, &h));
	if (h.content_size > dst_capacity)
		return WLZ_ERR_DST_TOO_SMALL;
	if (h.content_size && !dst)
		return WLZ_ERR_PARAM;
	uint8_t *out = dst;
	const uint64_t bs = (uint64_t)1 << h.block_log;
	wlz_xxh3_stream_reset(dc->hash);
	for (uint64_t b = 0; b < h.block_count; b++) {
		wlz_block_entry e;
		wlz_entry_read(arc + WLZ_HEADER_SIZE + b * WLZ_INDEX_ENTRY_SIZE, &e);
		uint64_t bstart = b * bs;
		uint64_t bend = b + 1 == h.block_count ? h.content_size : bstart + bs;
		WLZ_TRY(wlz_bdec_decode(dc->bd, arc, &e, out, bstart, bend));
		wlz_xxh3_stream_update(dc->hash, out + bstart, bend - bstart);
		if (dc->progress)
			dc->progress(dc->progress_opaque, bend, h.content_size);
	}
	if (wlz_xxh3_stream_digest(dc->hash) != wlz_rd64(arc + src_size - WLZ_FOOTER_SIZE))
		return WLZ_ERR_CHECKSUM;
	*dst_size = (size_t)h.content_size;
	return WLZ_OK;
}
