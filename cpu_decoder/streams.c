/*
 * streams.c - a block's payload to its four decoded streams: the payload
 * checksum, then each stream by its codec (raw in place where it can be,
 * zstd frames checked by SPEC.md's rules, codec 2), each followed by
 * WLZ_STREAM_SLACK readable bytes for the token loop's wide reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>
#include "common/ent.h"
#include "cpu_decoder/streams.h"

#define SLACK WLZ_STREAM_SLACK

struct wlz_sopen {
	ZSTD_DCtx *zd;
	wlz_huf_tables *ht;     /* codec 2's decode tables */
	uint8_t *buf[WLZ_NSTREAMS];
	size_t cap[WLZ_NSTREAMS];
};

wlz_sopen *wlz_sopen_create(void)
{
	wlz_sopen *so = calloc(1, sizeof(*so));
	if (!so)
		return NULL;
	so->zd = ZSTD_createDCtx();
	so->ht = malloc(sizeof(*so->ht));
	if (!so->zd || !so->ht) {
		wlz_sopen_free(so);
		return NULL;
	}
	return so;
}

void wlz_sopen_free(wlz_sopen *so)
{
	if (!so)
		return;
	for (int s = 0; s < WLZ_NSTREAMS; s++)
		free(so->buf[s]);
	ZSTD_freeDCtx(so->zd);
	free(so->ht);
	free(so);
}

static const char *const stream_name[WLZ_NSTREAMS] = { "cmd", "lit", "len", "off" };

/* Whole zstd frames, each stating its content size (which add up to rs),
 * none skippable or with a dictionary (SPEC.md, section 5). */
static wlz_error check_frames(int s, const uint8_t *in, size_t n, size_t rs)
{
	uint64_t sum = 0;
	while (n) {
		size_t f = ZSTD_findFrameCompressedSize(in, n);
		if (n >= 4 && (wlz_rd32(in) & 0xFFFFFFF0u) == 0x184D2A50u)
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: a skippable zstd frame", stream_name[s]);
		/* (libzstd also knows the magic of its pre-1.0 formats) */
		if (n < 4 || wlz_rd32(in) != 0xFD2FB528u)
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: no zstd frame magic", stream_name[s]);
		if (ZSTD_isError(f))
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: zstd: %s", stream_name[s], ZSTD_getErrorName(f));
		unsigned long long c = ZSTD_getFrameContentSize(in, f);
		if (c == ZSTD_CONTENTSIZE_UNKNOWN || c == ZSTD_CONTENTSIZE_ERROR || ZSTD_getDictID_fromFrame(in, f))
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: a zstd frame without its size, or with a "
					"dictionary", stream_name[s]);
		sum += c;
		in += f;
		n -= f;
	}
	if (sum != rs)
		return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream's frames hold %llu bytes, not %zu", stream_name[s],
				(unsigned long long)sum, rs);
	return WLZ_OK;
}

/* Makes stream s of the block readable at *out, with SLACK bytes after it. */
static wlz_error open_stream(wlz_sopen *so, int s, const uint8_t *in, const wlz_block_entry *e,
			     const uint8_t **out)
{
	size_t rs = e->rsize[s];
	if (e->codec[s] == WLZ_CODEC_RAW) {
		/* At least 32 readable bytes follow the last stream (the next
		 * block header or the index, or a streaming reader's slack). */
		if (rs >= SLACK) {
			*out = in;
			return WLZ_OK;
		}
	}
	if (so->cap[s] < rs + SLACK) {
		size_t cap = rs + SLACK + (rs >> 3);
		uint8_t *p = realloc(so->buf[s], cap);
		if (!p)
			return WLZ_ERR_NOMEM;
		so->buf[s] = p;
		so->cap[s] = cap;
	}
	if (e->codec[s] == WLZ_CODEC_RAW) {
		memcpy(so->buf[s], in, rs);
	} else if (e->codec[s] == WLZ_CODEC_HUF) {
		const wlz_error err = wlz_ent_decode(in, e->csize[s], so->buf[s], rs, so->ht);
		if (err != WLZ_OK) {
			char why[200];
			snprintf(why, sizeof(why), "%s", wlz_error_detail());
			return wlz_fail(err, "%s stream: %s", stream_name[s], why);
		}
	} else {
		WLZ_TRY(check_frames(s, in, e->csize[s], rs));
		size_t got = ZSTD_decompressDCtx(so->zd, so->buf[s], rs, in, e->csize[s]);
		if (ZSTD_isError(got))
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream: zstd: %s", stream_name[s],
					ZSTD_getErrorName(got));
		if (got != rs)
			return wlz_fail(WLZ_ERR_BAD_STREAM, "%s stream decodes to %zu bytes, not %zu",
					stream_name[s], got, rs);
	}
	memset(so->buf[s] + rs, 0, SLACK);
	*out = so->buf[s];
	return WLZ_OK;
}

wlz_error wlz_sopen_block(wlz_sopen *so, const uint8_t *arc, const wlz_block_entry *e,
			   const uint8_t *st[WLZ_NSTREAMS])
{
	const uint8_t *in = arc + e->data_offset;
	uint64_t psize = 0;
	for (int s = 0; s < WLZ_NSTREAMS; s++)
		psize += e->csize[s];
	/* Stored bytes first: a flip that the entropy stage would not notice
	 * (padding, unused table bits) is still an error. */
	if (WLZ_CHECKSUMS && wlz_xxh3(in, psize) != e->payload_checksum)
		return wlz_fail(WLZ_ERR_CHECKSUM, "payload checksum mismatch (stored bytes damaged)");
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		WLZ_TRY(open_stream(so, s, in, e, &st[s]));
		in += e->csize[s];
	}
	return WLZ_OK;
}
