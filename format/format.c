/*
 * format.c - header, block headers, index and footer: writing, reading,
 * validating.  Every size is checked against the bytes there are before it
 * is trusted, so hostile sizes cannot cause large allocations.
 */
#include <stdlib.h>
#include "format/format.h"

static const char *const sname[WLZ_NSTREAMS] = { "cmd", "lit", "len", "off" };

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
	out[11] = (uint8_t)h->window_log;
	wlz_wr64(out + 16, h->content_size);
	wlz_wr64(out + 24, wlz_xxh3(out, 24));
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
	if (src_size < 6)
		return wlz_fail(WLZ_ERR_TRUNCATED, "%zu bytes, shorter than the %d-byte header", src_size,
				WLZ_HEADER_SIZE);
	h->version = wlz_rd16(src + 4);
	/* The version before the checksum: an older or newer layout may hash
	 * its header differently, and deserves the more useful message. */
	if (h->version != WLZ_FORMAT_VERSION)
		return wlz_fail(WLZ_ERR_BAD_VERSION, "format version %u (this library reads version %d)",
				h->version, WLZ_FORMAT_VERSION);
	if (src_size < WLZ_HEADER_SIZE)
		return wlz_fail(WLZ_ERR_TRUNCATED, "%zu bytes, shorter than the %d-byte header", src_size,
				WLZ_HEADER_SIZE);
	if (WLZ_CHECKSUMS && wlz_rd64(src + 24) != wlz_xxh3(src, 24))
		return wlz_fail(WLZ_ERR_BAD_HEADER, "header checksum mismatch");
	h->flags = wlz_rd16(src + 6);
	h->block_log = src[8];
	h->level = src[9];
	h->depth = src[10];
	h->window_log = src[11];
	h->content_size = wlz_rd64(src + 16);
	if (h->flags != 0)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "unknown header flags 0x%04x", h->flags);
	if (wlz_rd32(src + 12) != 0)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "reserved header bytes 12..15 are not zero");
	if (h->block_log < WLZ_BLOCK_LOG_MIN || h->block_log > WLZ_BLOCK_LOG_MAX)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "block_log %u outside %d..%d", h->block_log,
				WLZ_BLOCK_LOG_MIN, WLZ_BLOCK_LOG_MAX);
	if (h->level < WLZ_LEVEL_MIN || h->level > WLZ_LEVEL_MAX)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "level %u outside %d..%d", h->level, WLZ_LEVEL_MIN,
				WLZ_LEVEL_MAX);
	if (h->window_log < h->block_log || h->window_log > WLZ_WINDOW_LOG_MAX)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "window_log %u outside block_log %u..%d", h->window_log,
				h->block_log, WLZ_WINDOW_LOG_MAX);
	/* (depth: every byte value is meaningful, 255 = unlimited) */
	/* 2^56 bytes is far beyond any memory; it keeps later arithmetic exact. */
	if (h->content_size != WLZ_SIZE_UNKNOWN && h->content_size > WLZ_CONTENT_MAX)
		return wlz_fail(WLZ_ERR_BAD_HEADER, "content_size %llu exceeds 2^56",
				(unsigned long long)h->content_size);
	return WLZ_OK;
}

void wlz_bhead_write(uint8_t out[WLZ_BHEAD_SIZE], const wlz_block_entry *e)
{
	memset(out, 0, WLZ_BHEAD_SIZE);
	wlz_wr32(out + 0, WLZ_BLOCK_TAG);
	wlz_wr32(out + 4, e->length);
	wlz_wr32(out + 8, e->token_count);
	out[12] = (uint8_t)e->max_level;
	out[13] = (uint8_t)e->chained;
	out[14] = (uint8_t)(e->chained >> 8);
	out[15] = (uint8_t)(e->chained >> 16);
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		out[16 + s] = e->codec[s];
		wlz_wr32(out + 20 + 8 * s, e->csize[s]);
		wlz_wr32(out + 24 + 8 * s, e->rsize[s]);
	}
	wlz_wr64(out + 56, e->checksum);
	wlz_wr64(out + 64, e->payload_checksum);
	wlz_wr64(out + 72, wlz_xxh3(out, 72));
}

/* Rules that need no decoding (SPEC.md, section 3). */
static wlz_error check_bhead(const wlz_block_entry *e, const wlz_header *h)
{
	const uint64_t B = (uint64_t)1 << h->block_log, L = e->length;
	if (L == 0 || L > B)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "block length %llu outside 1..%llu",
				(unsigned long long)L, (unsigned long long)B);
	if (e->rsize[WLZ_S_CMD] != e->token_count)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "cmd stream of %u bytes for %u tokens",
				e->rsize[WLZ_S_CMD], e->token_count);
	if (e->rsize[WLZ_S_LIT] > L)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "%u literal bytes in a block of %llu bytes",
				e->rsize[WLZ_S_LIT], (unsigned long long)L);
	/* Every token writes at least MINMATCH bytes. */
	if ((uint64_t)e->token_count * WLZ_MINMATCH > L)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "%u tokens cannot fit in a block of %llu bytes",
				e->token_count, (unsigned long long)L);
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
	if (h->depth != WLZ_DEPTH_NONE && e->max_level > h->depth)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "max_level %u exceeds the archive's depth limit %u",
				e->max_level, h->depth);
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		if (e->codec[s] >= WLZ_CODEC_COUNT)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "unknown codec %u for the %s stream",
					e->codec[s], sname[s]);
		if (e->codec[s] == WLZ_CODEC_RAW && e->csize[s] != e->rsize[s])
			return wlz_fail(WLZ_ERR_BAD_INDEX, "raw %s stream stored in %u bytes but %u long",
					sname[s], e->csize[s], e->rsize[s]);
		if (e->codec[s] != WLZ_CODEC_RAW && e->csize[s] == 0)
			return wlz_fail(WLZ_ERR_BAD_INDEX, "zstd %s stream of 0 bytes", sname[s]);
		/* zstd only where it is smaller: so a payload is bounded by its
		 * block before a streaming reader allocates room for it. */
		if (e->codec[s] != WLZ_CODEC_RAW && e->csize[s] >= e->rsize[s])
			return wlz_fail(WLZ_ERR_BAD_INDEX, "zstd %s stream stored in %u bytes for %u",
					sname[s], e->csize[s], e->rsize[s]);
	}
	return WLZ_OK;
}

wlz_error wlz_bhead_read(const uint8_t in[WLZ_BHEAD_SIZE], const wlz_header *h, wlz_block_entry *e)
{
	memset(e, 0, sizeof(*e));
	if (wlz_rd32(in) != WLZ_BLOCK_TAG)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "no block tag");
	if (WLZ_CHECKSUMS && wlz_rd64(in + 72) != wlz_xxh3(in, 72))
		return wlz_fail(WLZ_ERR_BAD_INDEX, "block header checksum mismatch");
	if (wlz_rd32(in + 52) != 0)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "reserved block header bytes are not zero");
	e->length = wlz_rd32(in + 4);
	e->token_count = wlz_rd32(in + 8);
	e->max_level = in[12];
	e->chained = in[13] | (uint32_t)in[14] << 8 | (uint32_t)in[15] << 16;
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		e->codec[s] = in[16 + s];
		e->csize[s] = wlz_rd32(in + 20 + 8 * s);
		e->rsize[s] = wlz_rd32(in + 24 + 8 * s);
	}
	e->checksum = wlz_rd64(in + 56);
	e->payload_checksum = wlz_rd64(in + 64);
	return check_bhead(e, h);
}

static uint64_t digest_of(uint64_t n, const uint64_t *checksums)
{
	/* XXH3 of the checksums as 8 little-endian bytes each: on a
	 * little-endian machine, the array itself. */
	return wlz_xxh3(checksums, 8 * n);
}

void wlz_index_write(uint8_t *out, uint64_t n, const uint64_t *offsets, const uint64_t *checksums,
		     uint64_t content_size)
{
	wlz_wr32(out, WLZ_INDEX_TAG);
	wlz_wr32(out + 4, 0);
	wlz_wr64(out + 8, n);
	for (uint64_t b = 0; b < n; b++) {
		wlz_wr64(out + 16 + 16 * b, offsets[b]);
		wlz_wr64(out + 24 + 16 * b, checksums[b]);
	}
	uint8_t *t = out + 16 + 16 * n;
	wlz_wr64(t, content_size);
	wlz_wr64(t + 8, digest_of(n, checksums));
	wlz_wr64(t + 16, wlz_xxh3(out, 32 + 16 * n));
}

void wlz_footer_write(uint8_t out[WLZ_FOOTER_SIZE], uint64_t index_offset, uint64_t member_size)
{
	wlz_wr64(out, index_offset);
	wlz_wr64(out + 8, member_size);
	wlz_wr64(out + 16, WLZ_END_MAGIC);
}

wlz_error wlz_footer_read(const uint8_t in[WLZ_FOOTER_SIZE], uint64_t *index_offset, uint64_t *member_size)
{
	if (wlz_rd64(in + 16) != WLZ_END_MAGIC)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "no end magic where the footer should be");
	*index_offset = wlz_rd64(in);
	*member_size = wlz_rd64(in + 8);
	return WLZ_OK;
}

wlz_error wlz_index_check(const uint8_t *idx, uint64_t size, uint64_t n, const uint64_t *offsets,
			  const uint64_t *checksums, uint64_t content_size)
{
	if (size < WLZ_INDEX_FIXED || wlz_rd32(idx) != WLZ_INDEX_TAG)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "no index tag after the last block");
	if (wlz_index_blocks(idx) != n || size != wlz_index_size(n))
		return wlz_fail(WLZ_ERR_BAD_INDEX, "the index lists %llu blocks, the archive has %llu",
				(unsigned long long)wlz_index_blocks(idx), (unsigned long long)n);
	if (WLZ_CHECKSUMS && wlz_rd64(idx + 32 + 16 * n) != wlz_xxh3(idx, 32 + 16 * n))
		return wlz_fail(WLZ_ERR_BAD_INDEX, "index checksum mismatch");
	if (wlz_rd32(idx + 4) != 0)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "reserved index bytes are not zero");
	for (uint64_t b = 0; b < n; b++) {
		if (wlz_index_offset(idx, b) != offsets[b])
			return wlz_fail(WLZ_ERR_BAD_INDEX, "index entry %llu: block at %llu, but it lies at %llu",
					(unsigned long long)b, (unsigned long long)wlz_index_offset(idx, b),
					(unsigned long long)offsets[b]);
		if (wlz_rd64(idx + 24 + 16 * b) != checksums[b])
			return wlz_fail(WLZ_ERR_BAD_INDEX, "index entry %llu: content checksum differs from "
					"the block header's", (unsigned long long)b);
	}
	if (wlz_rd64(idx + 16 + 16 * n) != content_size)
		return wlz_fail(WLZ_ERR_BAD_INDEX, "the index says %llu content bytes, the blocks hold %llu",
				(unsigned long long)wlz_rd64(idx + 16 + 16 * n),
				(unsigned long long)content_size);
	if (WLZ_CHECKSUMS && wlz_rd64(idx + 24 + 16 * n) != digest_of(n, checksums))
		return wlz_fail(WLZ_ERR_CHECKSUM, "content checksum does not match the block checksums");
	return WLZ_OK;
}

wlz_error wlz_blocklist_add(wlz_blocklist *l, uint64_t offset, uint64_t checksum)
{
	if (l->n == l->cap) {
		uint64_t cap = l->cap ? 2 * l->cap : 256;
		uint64_t *a = realloc(l->offs, cap * sizeof(*a));
		if (a)
			l->offs = a;
		uint64_t *b = realloc(l->sums, cap * sizeof(*b));
		if (b)
			l->sums = b;
		if (!a || !b)
			return WLZ_ERR_NOMEM;
		l->cap = cap;
	}
	l->offs[l->n] = offset;
	l->sums[l->n] = checksum;
	l->n++;
	return WLZ_OK;
}

void wlz_blocklist_free(wlz_blocklist *l)
{
	free(l->offs);
	free(l->sums);
	memset(l, 0, sizeof(*l));
}

void wlz_member_free(wlz_member *m)
{
	if (m) {
		free(m->blocks);
		m->blocks = NULL;
	}
}

wlz_error wlz_member_parse(const uint8_t *src, size_t size, uint64_t at, wlz_member *m)
{
	memset(m, 0, sizeof(*m));
	m->offset = at;
	const uint8_t *p = src + at;
	const uint64_t avail = size - at;
	WLZ_TRY(wlz_header_read(p, (size_t)avail, &m->h));
	const uint64_t B = (uint64_t)1 << m->h.block_log;
	/* Walk the block headers; each is at least WLZ_BHEAD_SIZE bytes, which
	 * bounds the count before anything is allocated. */
	uint64_t cap = 0, n = 0, pos = WLZ_HEADER_SIZE, content = 0;
	wlz_blocklist bl = { 0 };
	wlz_error err = WLZ_OK;
	for (;;) {
		if (avail - pos < 4) {
			err = wlz_fail(WLZ_ERR_TRUNCATED, "the archive ends after %llu blocks, before its index",
				       (unsigned long long)n);
			break;
		}
		if (wlz_rd32(p + pos) != WLZ_BLOCK_TAG)
			break;
		if (avail - pos < WLZ_BHEAD_SIZE) {
			err = wlz_fail(WLZ_ERR_TRUNCATED, "block %llu: header cut short", (unsigned long long)n);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			wlz_block_entry *nb = realloc(m->blocks, cap * sizeof(*nb));
			if (!nb) {
				err = WLZ_ERR_NOMEM;
				break;
			}
			m->blocks = nb;
		}
		wlz_block_entry *e = &m->blocks[n];
		err = wlz_bhead_read(p + pos, &m->h, e);
		if (err == WLZ_OK && n > 0 && m->blocks[n - 1].length != B)
			err = wlz_fail(WLZ_ERR_BAD_INDEX, "a block of %u bytes before the last one",
				       m->blocks[n - 1].length);
		if (err != WLZ_OK) {
			wlz_detail_block(n);
			break;
		}
		const uint64_t psize = wlz_payload_size(e);
		if (psize > avail - pos - WLZ_BHEAD_SIZE) {
			err = wlz_fail(WLZ_ERR_TRUNCATED, "block %llu: payload of %llu bytes cut short",
				       (unsigned long long)n, (unsigned long long)psize);
			break;
		}
		e->data_offset = at + pos + WLZ_BHEAD_SIZE;
		err = wlz_blocklist_add(&bl, pos, e->checksum);
		if (err != WLZ_OK)
			break;
		content += e->length;
		pos += WLZ_BHEAD_SIZE + psize;
		n++;
	}
	if (err == WLZ_OK) {
		/* Index, then footer.  The index must fit before its entries are read. */
		const uint64_t isize = wlz_index_size(n);
		if (avail - pos < isize + WLZ_FOOTER_SIZE) {
			err = wlz_fail(WLZ_ERR_TRUNCATED, "the archive ends inside its index or footer");
		} else {
			err = wlz_index_check(p + pos, isize, n, bl.offs, bl.sums, content);
			uint64_t ioff = 0, msize = 0;
			if (err == WLZ_OK)
				err = wlz_footer_read(p + pos + isize, &ioff, &msize);
			if (err == WLZ_OK && (ioff != pos || msize != pos + isize + WLZ_FOOTER_SIZE))
				err = wlz_fail(WLZ_ERR_BAD_INDEX, "the footer places the index at %llu in a member "
					       "of %llu bytes; it lies at %llu in %llu", (unsigned long long)ioff,
					       (unsigned long long)msize, (unsigned long long)pos,
					       (unsigned long long)(pos + isize + WLZ_FOOTER_SIZE));
			if (err == WLZ_OK && m->h.content_size != WLZ_SIZE_UNKNOWN && m->h.content_size != content)
				err = wlz_fail(WLZ_ERR_BAD_HEADER, "the header says %llu content bytes, the blocks "
					       "hold %llu", (unsigned long long)m->h.content_size,
					       (unsigned long long)content);
			if (err == WLZ_OK && content > WLZ_CONTENT_MAX)
				err = wlz_fail(WLZ_ERR_BAD_HEADER, "content exceeds 2^56 bytes");
			if (err == WLZ_OK) {
				m->digest = wlz_rd64(p + pos + isize - 16);
				m->size = pos + isize + WLZ_FOOTER_SIZE;
			}
		}
	}
	wlz_blocklist_free(&bl);
	if (err != WLZ_OK) {
		wlz_member_free(m);
		return err;
	}
	m->nblocks = n;
	m->content_size = content;
	return WLZ_OK;
}
