/*
 * format.c - header, block index and ending: writing, reading, validating.
 * Everything here is checked against the archive's real size before any
 * field is trusted, so hostile sizes cannot cause large allocations.
 */
#include <stdlib.h>
#include "format/format.h"

void wlz_header_write(uint8_t out[WLZ_HEADER_SIZE], const wlz_header *h)
{
	memset(out, 0, WLZ_HEADER_SIZE);
	out[0] = WLZ_MAGIC0;
	out[1] = WLZ_MAGIC1;
	out[2] = WLZ_MAGIC2;
	out[3] = WLZ_MAGIC3;
	wlz_wr16(out + 4, (uint16_t)h->version);
	wlz_wr16(out + 6, (uint16_t)h->flags);
	out[8] = (uint8_t)h->block_log;
	out[9] = (uint8_t)h->level;
	out[10] = (uint8_t)h->depth;
	wlz_wr64(out + 16, h->content_size);
	wlz_wr64(out + 24, h->block_count);
	wlz_wr64(out + 32, h->archive_size);
	wlz_wr64(out + 40, wlz_xxh3(out, 40));
}

wlz_error wlz_header_read(const uint8_t *src, size_t src_size, wlz_header *h)
{
	if (!src || !h)
		return WLZ_ERR_PARAM;
	memset(h, 0, sizeof(*h));
	static const uint8_t magic[4] = { WLZ_MAGIC0, WLZ_MAGIC1, WLZ_MAGIC2, WLZ_MAGIC3 };
	size_t n = src_size < 4 ? src_size : 4;
	if (memcmp(src, magic, n) != 0)
		return wlz_fail(WLZ_ERR_BAD_MAGIC, "the first 4 bytes are not 89 57 4C 5A");
	if (src_size < WLZ_HEADER_SIZE)
		return wlz_fail(WLZ_ERR_TRUNCATED, "%zu bytes, shorter than the 48-byte header", src_size);
	h->version = wlz_rd16(src + 4);
	/* The version before the checksum: an older or newer layout may hash
	 * its header differently, and deserves the more useful message. */
	if (h->version != WLZ_FORMAT_VERSION)
		return wlz_fail(WLZ_ERR_BAD_VERSION, "format version %u (this library reads version %d)",
				h->version, WLZ_FORMAT_VERSION);
	if (WLZ_CHECKSUMS && wlz_rd64(src + 40) != wlz_xxh3(src, 40))
		return wlz_fail(WLZ_ERR_BAD_HEADER, "header checksum mismatch");
	h->flags = wlz_rd16(src + 6);
	h->block_log = src[8];
	h->level = src[9];
	h->depth = src[10];
	h->content_size = wlz_rd64(src + 16);
	h->block_count = wlz_rd64(src + 24);
	h->archive_size = wlz_rd64(src + 32);
	if (h->flags != 0)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "unknown header flags 0x%04x", h->flags);
	if (src[11] != 0 || wlz_rd32(src + 12) != 0)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "reserved header bytes 11..15 are not zero");
	if (h->block_log < WLZ_BLOCK_LOG_MIN || h->block_log > WLZ_BLOCK_LOG_MAX)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "block_log %u outside %d..%d", h->block_log,
				WLZ_BLOCK_LOG_MIN, WLZ_BLOCK_LOG_MAX);
	if (h->level < WLZ_LEVEL_MIN || h->level > WLZ_LEVEL_MAX)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "level %u outside %d..%d", h->level, WLZ_LEVEL_MIN,
				WLZ_LEVEL_MAX);
	/* (depth: every byte value is meaningful, 255 = unlimited) */
	/* 2^56 bytes is far beyond any memory; it keeps later arithmetic exact. */
	if (h->content_size > ((uint64_t)1 << 56))
		return wlz_fail(WLZ_ERR_BAD_HEADER, "content_size %llu exceeds 2^56",
				(unsigned long long)h->content_size);
	if (h->block_count != wlz_block_count_for(h->content_size, h->block_log))
		return wlz_fail(WLZ_ERR_BAD_HEADER, "block_count %llu, but content_size %llu needs %llu blocks",
				(unsigned long long)h->block_count, (unsigned long long)h->content_size,
				(unsigned long long)wlz_block_count_for(h->content_size, h->block_log));
	return WLZ_OK;
}

/* Entry layout (SPEC.md, "Block index"). */
void wlz_entry_write(uint8_t out[WLZ_INDEX_ENTRY_SIZE], const wlz_block_entry *e)
{
	memset(out, 0, WLZ_INDEX_ENTRY_SIZE);
	wlz_wr64(out + 0, e->data_offset);
	wlz_wr64(out + 8, e->checksum);
	wlz_wr64(out + 16, e->payload_checksum);
	wlz_wr32(out + 24, e->token_count);
	out[28] = (uint8_t)e->max_level;
	out[29] = (uint8_t)e->chained;
	out[30] = (uint8_t)(e->chained >> 8);
	out[31] = (uint8_t)(e->chained >> 16);
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		out[32 + s] = e->codec[s];
		wlz_wr32(out + 40 + 8 * s, e->csize[s]);
		wlz_wr32(out + 44 + 8 * s, e->rsize[s]);
	}
}

void wlz_entry_read(const uint8_t in[WLZ_INDEX_ENTRY_SIZE], wlz_block_entry *e)
{
	e->data_offset = wlz_rd64(in + 0);
	e->checksum = wlz_rd64(in + 8);
	e->payload_checksum = wlz_rd64(in + 16);
	e->token_count = wlz_rd32(in + 24);
	e->max_level = in[28];
	e->chained = in[29] | (uint32_t)in[30] << 8 | (uint32_t)in[31] << 16;
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		e->codec[s] = in[32 + s];
		e->csize[s] = wlz_rd32(in + 40 + 8 * s);
		e->rsize[s] = wlz_rd32(in + 44 + 8 * s);
	}
}

static int is_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Per-entry checks that need no decoding. */
static wlz_error check_entry(const uint8_t *raw, const wlz_block_entry *e, uint64_t block_len, unsigned depth)
{
	static const char *const sname[WLZ_NSTREAMS] = { "cmd", "lit", "len", "off" };
	if (!is_zero(raw + 36, 4) || !is_zero(raw + 72, 8))
		return wlz_fail(WLZ_ERR_BAD_INDEX, "reserved index bytes are not zero");
	if (e->rsize[WLZ_S_CMD] != e->token_count)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "cmd stream of %u bytes for %u tokens",
				e->rsize[WLZ_S_CMD], e->token_count);
	if (e->rsize[WLZ_S_LIT] > block_len)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "%u literal bytes in a block of %llu bytes",
				e->rsize[WLZ_S_LIT], (unsigned long long)block_len);
	/* Every token writes at least MINMATCH bytes. */
	if ((uint64_t)e->token_count * WLZ_MINMATCH > block_len)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "%u tokens cannot fit in a block of %llu bytes",
				e->token_count, (unsigned long long)block_len);
	/* Each token has at most two length varints and an 8-byte offset. */
	if (e->rsize[WLZ_S_LEN] > (uint64_t)e->token_count * 10)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "len stream of %u bytes for %u tokens",
				e->rsize[WLZ_S_LEN], e->token_count);
	if (e->rsize[WLZ_S_OFF] > (uint64_t)e->token_count * 8)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "off stream of %u bytes for %u tokens",
				e->rsize[WLZ_S_OFF], e->token_count);
	if (e->chained > e->token_count)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "%u chained tokens of %u", e->chained, e->token_count);
	if (e->token_count == 0 && e->max_level != 0)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "max_level %u in a block without tokens", e->max_level);
	if (depth != WLZ_DEPTH_NONE && e->max_level > depth)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "max_level %u exceeds the archive's depth limit %u",
				e->max_level, depth);
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		if (e->codec[s] >= WLZ_CODEC_COUNT)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "unknown codec %u for the %s stream",
					e->codec[s], sname[s]);
		if (e->codec[s] == WLZ_CODEC_RAW && e->csize[s] != e->rsize[s])
			return wlz_fail(WLZ_ERR_BAD_INDEX, "raw %s stream stored in %u bytes but %u long",
					sname[s], e->csize[s], e->rsize[s]);
		if (e->codec[s] != WLZ_CODEC_RAW && e->csize[s] == 0)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "zstd %s stream of 0 bytes", sname[s]);
	}
	return WLZ_OK;
}

wlz_error wlz_content_digest(const uint8_t *index, uint64_t nb, uint64_t *digest)
{
	uint8_t *sums = malloc(nb ? 8 * nb : 1);
	if (!sums)
		return WLZ_ERR_NOMEM;
	for (uint64_t b = 0; b < nb; b++) {
		wlz_block_entry e;
		wlz_entry_read(index + b * WLZ_INDEX_ENTRY_SIZE, &e);
		wlz_wr64(sums + 8 * b, e.checksum);
	}
	*digest = wlz_xxh3(sums, 8 * nb);
	free(sums);
	return WLZ_OK;
}

wlz_error wlz_archive_validate(const uint8_t *src, size_t src_size, wlz_header *h)
{
	WLZ_TRY(wlz_header_read(src, src_size, h));
	if (h->archive_size > src_size)
		return wlz_fail(WLZ_ERR_TRUNCATED, "%zu bytes, but the header says %llu", src_size,
				(unsigned long long)h->archive_size);
	if (h->archive_size < src_size)  /* trailing bytes: not ours to ignore */
		return wlz_fail(WLZ_ERR_BAD_HEADER, "%llu bytes after the archive's end",
				(unsigned long long)(src_size - h->archive_size));
	/* The index must fit before anything is read from it. */
	uint64_t nb = h->block_count;
	if (nb > (src_size - WLZ_HEADER_SIZE) / WLZ_INDEX_ENTRY_SIZE ||
	    wlz_payload_offset(nb) + WLZ_FOOTER_SIZE > src_size)
		return wlz_fail(WLZ_ERR_TRUNCATED, "an index of %llu blocks cannot fit in %zu bytes",
				(unsigned long long)nb, src_size);
	uint64_t pay = wlz_payload_offset(nb);
	const uint8_t *idx = src + WLZ_HEADER_SIZE;
	if (WLZ_CHECKSUMS && wlz_rd64(idx + nb * WLZ_INDEX_ENTRY_SIZE) != wlz_xxh3(idx, nb * WLZ_INDEX_ENTRY_SIZE))
		return wlz_fail(WLZ_ERR_BAD_INDEX, "index checksum mismatch");
	if (wlz_rd64(src + src_size - 8) != WLZ_END_MAGIC)
		return wlz_fail(WLZ_ERR_TRUNCATED, "no end magic in the last 8 bytes");

	/* Blocks are contiguous, in order, and end exactly at the footer. */
	uint64_t at = pay;
	uint64_t end = src_size - WLZ_FOOTER_SIZE;
	for (uint64_t b = 0; b < nb; b++) {
		wlz_block_entry e;
		const uint8_t *raw = idx + b * WLZ_INDEX_ENTRY_SIZE;
		wlz_entry_read(raw, &e);
		uint64_t blen = (uint64_t)1 << h->block_log;
		if (b == nb - 1)
			blen = h->content_size - (b << h->block_log);
		wlz_error err = check_entry(raw, &e, blen, h->depth);
		if (err != WLZ_OK) {
			wlz_detail_block(b);
			return err;
		}
		if (e.data_offset != at)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "block %llu: payload at %llu %s the previous one, "
					"which ends at %llu", (unsigned long long)b,
					(unsigned long long)e.data_offset,
					e.data_offset < at ? "overlaps" : "leaves a gap after",
					(unsigned long long)at);
		for (int s = 0; s < WLZ_NSTREAMS; s++)
			at += e.csize[s];
		if (at > end)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "block %llu: payload runs %llu bytes into the footer",
					(unsigned long long)b, (unsigned long long)(at - end));
	}
	if (at != end)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "%llu bytes between the last payload and the footer",
				(unsigned long long)(end - at));
	uint64_t digest;
	WLZ_TRY(wlz_content_digest(idx, nb, &digest));
	if (WLZ_CHECKSUMS && digest != wlz_rd64(src + end))
		return wlz_fail(WLZ_ERR_CHECKSUM, "footer content checksum does not match the block checksums");
	return WLZ_OK;
}

WLZ_EXPORT wlz_error wlz_get_content_size(const void *src, size_t src_size, uint64_t *content_size)
{
	wlz_header h;
	wlz_detail_clear();
	if (!content_size)
		return WLZ_ERR_PARAM;
	WLZ_TRY(wlz_header_read(src, src_size, &h));
	*content_size = h.content_size;
	return WLZ_OK;
}

WLZ_EXPORT wlz_error wlz_get_info(const void *src, size_t src_size, wlz_info *info)
{
	wlz_header h;
	wlz_detail_clear();
	if (!src || !info)
		return WLZ_ERR_PARAM;
	const uint8_t *p = src;
	WLZ_TRY(wlz_archive_validate(p, src_size, &h));
	memset(info, 0, sizeof(*info));
	info->format_version = h.version;
	info->level = h.level;
	info->depth = h.depth == WLZ_DEPTH_NONE ? WLZ_DEPTH_UNLIMITED : (int)h.depth;
	info->block_log = h.block_log;
	info->content_size = h.content_size;
	info->archive_size = h.archive_size;
	info->block_count = h.block_count;
	info->content_checksum = wlz_rd64(p + src_size - WLZ_FOOTER_SIZE);
	for (uint64_t b = 0; b < h.block_count; b++) {
		wlz_block_entry e;
		wlz_entry_read(p + WLZ_HEADER_SIZE + b * WLZ_INDEX_ENTRY_SIZE, &e);
		info->token_count += e.token_count;
		if (e.max_level > info->max_level)
			info->max_level = e.max_level;
	}
	return WLZ_OK;
}
