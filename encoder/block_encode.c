/*
 * block_encode.c - tokens to streams (cmd, lit, len, off) to coded bytes.
 */
#include <stdlib.h>
#include <zstd.h>
#include "common/ent.h"
#include "common/large.h"
#include "encoder/block_encode.h"

struct wlz_benc {
	uint32_t bsize;
	uint8_t *raw[WLZ_NSTREAMS];
	void *huf_work;         /* the entropy coder's counts, kept between blocks */
	size_t raw_cap[WLZ_NSTREAMS];
	uint8_t *lows;          /* off stream, second part: low bytes of offsets */
	size_t lows_cap;
	uint8_t *out;
	size_t out_cap;
	ZSTD_CCtx *zc;
	uint8_t *zbuf;          /* a zstd attempt, beside the codec-2 one */
	size_t zbuf_cap;
};

wlz_benc *wlz_benc_create(uint32_t block_size)
{
	wlz_benc *be = calloc(1, sizeof(*be));
	if (!be)
		return NULL;
	be->bsize = block_size;
	size_t maxtok = block_size / WLZ_MINMATCH + 1;
	be->raw_cap[WLZ_S_CMD] = maxtok;
	be->raw_cap[WLZ_S_LIT] = block_size;
	be->raw_cap[WLZ_S_LEN] = maxtok * 10;
	be->raw_cap[WLZ_S_OFF] = maxtok * 8;
	int ok = 1;
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		be->raw[s] = malloc(be->raw_cap[s]);
		ok = ok && be->raw[s];
	}
	be->lows_cap = maxtok * 8;
	be->lows = malloc(be->lows_cap);
	be->huf_work = calloc(1, WLZ_HUF_WORK_SIZE);
	ok = ok && be->lows && be->huf_work;
	be->out_cap = (size_t)block_size + 1024;
	be->out = malloc(be->out_cap);
	be->zc = ZSTD_createCCtx();
	if (!ok || !be->out || !be->zc) {
		wlz_benc_free(be);
		return NULL;
	}
	return be;
}

void wlz_benc_release(wlz_benc *be)
{
	if (!be)
		return;
	for (int s = 0; s < WLZ_NSTREAMS; s++)
		wlz_release_pages(be->raw[s], be->raw_cap[s]);
	wlz_release_pages(be->lows, be->lows_cap);
	/* (the Huffman coder's counts are kept zeroed between streams, and
	 * pages given back read as zeros) */
	wlz_release_pages(be->huf_work, WLZ_HUF_WORK_SIZE);
	wlz_release_pages(be->out, be->out_cap);
	wlz_release_pages(be->zbuf, be->zbuf_cap);
}

void wlz_benc_free(wlz_benc *be)
{
	if (!be)
		return;
	for (int s = 0; s < WLZ_NSTREAMS; s++)
		free(be->raw[s]);
	free(be->lows);
	free(be->huf_work);
	free(be->out);
	free(be->zbuf);
	ZSTD_freeCCtx(be->zc);
	free(be);
}

/* zstd frames of stream s into be->zbuf: split > 0 gives [0, split) and
 * [split, n) frames of their own, so that parts with different statistics
 * get their own tables.  Returns the size, 0 on failure. */
static size_t zstd_stream(wlz_benc *be, int s, size_t n, size_t split, int zlevel)
{
	const size_t need = ZSTD_compressBound(n) + 64;
	if (be->zbuf_cap < need) {
		free(be->zbuf);
		be->zbuf = malloc(need);
		be->zbuf_cap = be->zbuf ? need : 0;
		if (!be->zbuf)
			return 0;
	}
	size_t at = 0;
	const size_t cut[3] = {0, split && split < n ? split : n, n};
	for (int part = 0; part < 2; part++) {
		if (cut[part + 1] == cut[part])
			continue;
		/* Long matches only (7 bytes): our streams hold what LZ left,
		 * where zstd's short matches cost more sequences to decode than
		 * they save (smaller by 0.4 to 3.4% at level 3). */
		ZSTD_CCtx_reset(be->zc, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(be->zc, ZSTD_c_compressionLevel, zlevel);
		ZSTD_CCtx_setParameter(be->zc, ZSTD_c_minMatch, 7);
		const size_t r = ZSTD_compress2(be->zc, be->zbuf + at, be->zbuf_cap - at, be->raw[s] + cut[part],
						cut[part + 1] - cut[part]);
		if (ZSTD_isError(r))
			return 0;
		at += r;
	}
	return at;
}

/* Codes stream s into dst (capacity cap) as the smallest of raw and the
 * codecs the mode allows (SPEC.md, section 5: a coded stream is stored only
 * where smaller than raw).  split > 0 is where an off stream's low bytes
 * start: each part gets its own tables.  Returns 0 when even raw does not
 * fit, (size_t)-1 for an empty stream. */
static size_t code_stream(wlz_benc *be, int s, size_t n, size_t split, const wlz_bparams *bp, unsigned more,
			  uint8_t *dst, size_t cap, wlz_block_entry *e)
{
	e->rsize[s] = (uint32_t)n;
	size_t best = n;
	int codec = WLZ_CODEC_RAW;
	if (n > 32 && bp->streams != WLZ_STREAMS_ZSTD) {
		const size_t c = wlz_ent_encode(be->raw[s], n, &split, split ? 1 : 0, bp->max_tables, bp->seg_log, more,
						bp->huf_iters, dst, cap, be->huf_work);
		if (c && c < best)
			best = c, codec = WLZ_CODEC_HUF;
	}
	if (n > 32 && bp->zlevel > 0 && bp->streams != WLZ_STREAMS_HUF) {
		const size_t z = zstd_stream(be, s, n, split, bp->zlevel);
		if (z && z < best && z <= cap) {
			memcpy(dst, be->zbuf, z);
			best = z, codec = WLZ_CODEC_ZSTD;
		}
	}
	if (codec == WLZ_CODEC_RAW) {
		if (n > cap)
			return 0;
		memcpy(dst, be->raw[s], n);
	}
	e->codec[s] = (uint8_t)codec;
	e->csize[s] = (uint32_t)best;
	return n ? best : (size_t)-1;
}

/* Offset x = dist - 1 is a head byte (low-byte count k, top 5 bits) in
 * the off stream and k low bytes, little-endian, after all the heads: the
 * heads carry what compresses, the low bytes are near random, and keeping
 * them apart lets each get its own table. */
static wlz_error emit(wlz_benc *be, const uint8_t *src, uint64_t bstart, uint64_t bend,
		      const wlz_token *tok, size_t ntok, const wlz_bparams *bp, size_t *total, wlz_block_entry *e)
{
	uint8_t *cmd = be->raw[WLZ_S_CMD], *lit = be->raw[WLZ_S_LIT];
	uint8_t *ln = be->raw[WLZ_S_LEN], *off = be->raw[WLZ_S_OFF], *lw = be->lows;
	uint64_t pos = bstart, prev = 0;
	/* Whether a token has a length varint, a repeat or an offset varies
	 * from token to token (text): the common cases are written without
	 * branches, each byte stored whatever and its stream advanced by 0 or
	 * by its size (the streams have room for a byte or a word past their
	 * ends: wlz_benc_create's sizes). */
	for (size_t k = 0; k < ntok; k++) {
		const wlz_token *t = &tok[k];
		const int rep = t->dist == prev;
		const uint8_t c = wlz_cmd_byte(t->lit, t->mlen, rep);
		*cmd++ = c;
		const uint64_t xl = (uint64_t)t->lit - WLZ_LIT_CODE_MAX;
		const uint64_t xm = (uint64_t)t->mlen - WLZ_MINMATCH - WLZ_MATCH_CODE_MAX;
		const int hl = c >> 5 == WLZ_LIT_CODE_MAX, hm = (c & 15) == WLZ_MATCH_CODE_MAX;
		if ((!hl || xl < 0x80) && (!hm || xm < 0x80)) {
			*ln = (uint8_t)xl;
			ln += hl;
			*ln = (uint8_t)xm;
			ln += hm;
		} else {
			if (hl)
				ln = wlz_put_varint(ln, xl);
			if (hm)
				ln = wlz_put_varint(ln, xm);
		}
		const uint64_t x = t->dist - 1;
		const unsigned nl = wlz_off_lows(x);
		wlz_wr64(lw, x);
		lw += rep ? 0 : nl;
		*off = wlz_off_head(x, nl);
		off += !rep;
		/* Most runs are short: a whole vector, which stays inside the
		 * stream (it holds pos - bstart bytes so far, and pos + 16 <=
		 * bend). */
		if (t->lit <= 16 && pos + 16 <= bend)
			memcpy(lit, src + pos, 16);
		else
			memcpy(lit, src + pos, t->lit);
		lit += t->lit;
		pos += t->lit;
		pos += t->mlen;
		prev = t->dist;
	}
	if (pos > bend)
		return WLZ_ERR_INTERNAL;
	memcpy(lit, src + pos, bend - pos);
	lit += bend - pos;
	size_t nheads = (size_t)(off - be->raw[WLZ_S_OFF]);
	memcpy(off, be->lows, (size_t)(lw - be->lows));
	off += lw - be->lows;

	size_t n[WLZ_NSTREAMS] = {
		(size_t)(cmd - be->raw[WLZ_S_CMD]), (size_t)(lit - be->raw[WLZ_S_LIT]),
		(size_t)(ln - be->raw[WLZ_S_LEN]), (size_t)(off - be->raw[WLZ_S_OFF]),
	};
	/* Codec 2 also tries more tables: literals one
	 * per 2048, and, in a block of few literals (most of it matches, as
	 * XML's), the other streams one per 4096; that made CLDR's archive
	 * 1.3% smaller and left FASTQ's and text's as they were, whose
	 * literal streams already get the most tables (bench/host/
	 * issue14-round3.md). */
	const int few_lits = n[WLZ_S_LIT] < ((size_t)1 << 17);
	size_t at = 0;
	for (int s = 0; s < WLZ_NSTREAMS; s++) {
		const unsigned more = s == WLZ_S_LIT ? 2048 : few_lits ? 4096 : 0;
		size_t z = code_stream(be, s, n[s], s == WLZ_S_OFF ? nheads : 0, bp, more, be->out + at,
				       be->out_cap - at, e);
		if (z == 0)
			return WLZ_ERR_DST_TOO_SMALL;
		if (z != (size_t)-1)
			at += z;
	}
	e->token_count = (uint32_t)ntok;
	*total = at;
	return WLZ_OK;
}

wlz_error wlz_benc_encode(wlz_benc *be, const uint8_t *src, uint64_t bstart, uint64_t bend,
			  const wlz_token *tok, size_t ntok, const wlz_bparams *bp,
			  const uint8_t **out, size_t *out_size, wlz_block_entry *e)
{
	memset(e, 0, sizeof(*e));
	size_t total = 0;
	wlz_error err = emit(be, src, bstart, bend, tok, ntok, bp, &total, e);
	if (err == WLZ_ERR_DST_TOO_SMALL || (err == WLZ_OK && total > bend - bstart)) {
		/* Fall back to literals alone: never larger than the input, and
		 * no later block's levels depend on it being otherwise (levels of
		 * bytes only ever fall when they become literals). */
		memset(e, 0, sizeof(*e));
		err = emit(be, src, bstart, bend, NULL, 0, bp, &total, e);
	}
	if (err != WLZ_OK)
		return err;
	e->checksum = wlz_xxh3(src + bstart, bend - bstart);
	e->payload_checksum = wlz_xxh3(be->out, total);
	*out = be->out;
	*out_size = total;
	return WLZ_OK;
}
