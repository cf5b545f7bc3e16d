/*
 * forge_bad.c - writes the hand-made malformed archives of tests/golden-bad/.
 *
 * The archives are built here from SPEC.md alone, not with the library's
 * writer, so they also check that the spec describes what the decoder does.
 * A small good archive (two blocks: literals, a match that repeats them, a
 * match that reaches into the previous block) is built field by field; each
 * case changes one thing and, unless it is the checksum under test, fixes
 * every checksum after the change, so that the decoder reaches exactly the
 * rule the case breaks.
 *
 * usage: forge_bad DIR   writes DIR/NAME.wlz for every case and DIR/EXPECTED,
 *                        one line per case: NAME, a tab, the message that
 *                        `wavelz -t` must print ("OK" for the good one).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_LOG 16
#define BLOCK0 ((size_t)1 << BLOCK_LOG)
#define BLOCK1 100
#define MAXS 256        /* room per stream */
#define MAXA 4096       /* room for a whole archive */

enum { CMD, LIT, LEN, OFF, NS };

typedef struct tok {
	uint32_t lit, mlen;
	uint64_t dist;
	int rep;
} tok;

typedef struct blk {
	tok t[4];
	int nt;
	uint8_t lit[MAXS];
	size_t nlit;
	/* encoded streams, then the stored form */
	uint8_t s[NS][MAXS];
	size_t n[NS];
	int zstd[NS];           /* store this stream as a zstd frame */
	size_t zcut;            /* drop this many bytes from the end of a zstd frame */
	/* index entry fields; filled by assemble() unless set by a case */
	uint8_t codec[NS];
	uint32_t csize[NS], rsize[NS];
	uint32_t token_count;
	unsigned max_level;
	uint64_t checksum, data_offset;
	int64_t offset_delta;   /* added to the computed data_offset */
	int fixed_sizes;        /* the case set codec/csize/rsize/token_count */
	uint64_t checksum_xor;  /* damage the content checksum (footer fixed) */
	uint32_t chained;       /* the index's chained count */
	uint8_t reserved36;
} blk;

typedef struct arc {
	unsigned version, flags, block_log, level, depth, res11;
	uint64_t content_size, block_count;
	int64_t archive_size_delta;
	blk b[2];
	int nb;
} arc;

static uint8_t g_content[BLOCK0 + BLOCK1];

/* ------------------------------------------------------------ SPEC writer */

static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static size_t varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A zstd frame (RFC 8878) holding n bytes as one raw block, written by hand
 * so that the files do not depend on a zstd version: magic, a descriptor
 * with Single_Segment set and a 1-byte content size, then the block header
 * (last block, type raw, size n). */
static size_t zstd_raw_frame(uint8_t *out, const uint8_t *in, size_t n)
{
	static const uint8_t magic[4] = { 0x28, 0xB5, 0x2F, 0xFD };
	uint32_t bh = 1u | (uint32_t)n << 3;
	memcpy(out, magic, 4);
	out[4] = 0x20;
	out[5] = (uint8_t)n;
	out[6] = (uint8_t)bh;
	out[7] = (uint8_t)(bh >> 8);
	out[8] = (uint8_t)(bh >> 16);
	memcpy(out + 9, in, n);
	return 9 + n;
}

/* Section 6: tokens to the cmd, len and off streams. */
static void encode(blk *b)
{
	uint8_t lows[MAXS];
	size_t nlows = 0;
	b->n[CMD] = b->n[LEN] = b->n[OFF] = 0;
	for (int i = 0; i < b->nt; i++) {
		const tok *t = &b->t[i];
		unsigned lc = t->lit < 7 ? t->lit : 7, m = t->mlen - 3, mc = m < 15 ? m : 15;
		b->s[CMD][b->n[CMD]++] = (uint8_t)(lc << 5 | (unsigned)t->rep << 4 | mc);
		if (lc == 7)
			b->n[LEN] += varint(b->s[LEN] + b->n[LEN], t->lit - 7);
		if (mc == 15)
			b->n[LEN] += varint(b->s[LEN] + b->n[LEN], m - 15);
		if (!t->rep) {
			uint64_t x = t->dist - 1;
			unsigned k = 0;
			while (k < 7 && (x >> 8 * k) >= 32)
				k++;
			b->s[OFF][b->n[OFF]++] = (uint8_t)(k << 5 | x >> 8 * k);
			for (unsigned j = 0; j < k; j++)
				lows[nlows++] = (uint8_t)(x >> 8 * j);
		}
	}
	memcpy(b->s[OFF] + b->n[OFF], lows, nlows);
	b->n[OFF] += nlows;
	memcpy(b->s[LIT], b->lit, b->nlit);
	b->n[LIT] = b->nlit;
}

/* Sections 1 to 5: the whole archive, every checksum computed. */
static size_t assemble(arc *a, uint8_t *out)
{
	uint8_t pay[2][NS][MAXS];
	uint64_t at = 48 + 80 * (uint64_t)a->nb + 8;
	uint8_t *idx = out + 48;
	memset(out, 0, MAXA);
	size_t len = (size_t)at;
	for (int i = 0; i < a->nb; i++) {
		blk *b = &a->b[i];
		size_t psize = 0;
		for (int s = 0; s < NS; s++) {
			size_t c = b->n[s];
			if (b->zstd[s]) {
				c = zstd_raw_frame(pay[i][s], b->s[s], b->n[s]) - b->zcut;
			} else {
				memcpy(pay[i][s], b->s[s], b->n[s]);
			}
			if (!b->fixed_sizes) {
				b->codec[s] = (uint8_t)(b->zstd[s] != 0);
				b->csize[s] = (uint32_t)c;
				b->rsize[s] = (uint32_t)b->n[s];
			}
			memcpy(out + len, pay[i][s], c);
			len += c;
			psize += c;
		}
		if (!b->fixed_sizes)
			b->token_count = (uint32_t)b->n[CMD];
		uint8_t *e = idx + 80 * i;
		put64(e, at + (uint64_t)b->offset_delta);
		put64(e + 8, b->checksum ^ b->checksum_xor);
		put64(e + 16, tu_xxh3(out + at, psize));
		put32(e + 24, b->token_count);
		e[28] = (uint8_t)b->max_level;
		e[29] = (uint8_t)b->chained;
		e[30] = (uint8_t)(b->chained >> 8);
		e[31] = (uint8_t)(b->chained >> 16);
		e[36] = b->reserved36;
		for (int s = 0; s < NS; s++) {
			e[32 + s] = b->codec[s];
			put32(e + 40 + 8 * s, b->csize[s]);
			put32(e + 44 + 8 * s, b->rsize[s]);
		}
		at += psize;
	}
	put64(idx + 80 * a->nb, tu_xxh3(idx, 80 * (size_t)a->nb));
	/* footer: XXH3-64 of the block checksums as stored */
	uint8_t sums[16];
	for (int i = 0; i < a->nb; i++)
		memcpy(sums + 8 * i, idx + 80 * i + 8, 8);
	put64(out + len, tu_xxh3(sums, 8 * (size_t)a->nb));
	memcpy(out + len + 8, "wlzEND\r\n", 8);
	len += 16;
	out[0] = 0x89;
	memcpy(out + 1, "WLZ", 3);
	put16(out + 4, a->version);
	put16(out + 6, a->flags);
	out[8] = (uint8_t)a->block_log;
	out[9] = (uint8_t)a->level;
	out[10] = (uint8_t)a->depth;
	out[11] = (uint8_t)a->res11;
	put64(out + 16, a->content_size);
	put64(out + 24, a->block_count);
	put64(out + 32, (uint64_t)((int64_t)len + a->archive_size_delta));
	put64(out + 40, tu_xxh3(out, 40));
	return len;
}

/* The good archive: block 0 is 16 literals and a match repeating them to
 * the block's end (it reads its own output: level 0); block 1 copies the
 * first 100 bytes of block 0 (level 1, across blocks). */
static void base(arc *a)
{
	static const char seed[] = "ACGTTGCAACGGTTCA";
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < sizeof(g_content); i++)
		g_content[i] = (uint8_t)seed[i % 16];
	a->version = 3;
	a->block_log = BLOCK_LOG;
	a->level = 3;
	a->depth = 255;
	a->content_size = sizeof(g_content);
	a->block_count = 2;
	a->nb = 2;
	blk *b = &a->b[0];
	b->t[b->nt++] = (tok){ 16, BLOCK0 - 16, 16, 0 };
	memcpy(b->lit, seed, 16);
	b->nlit = 16;
	b->checksum = tu_xxh3(g_content, BLOCK0);
	b = &a->b[1];
	b->t[b->nt++] = (tok){ 0, BLOCK1, BLOCK0, 0 };
	b->max_level = 1;
	b->checksum = tu_xxh3(g_content + BLOCK0, BLOCK1);
	encode(&a->b[0]);
	encode(&a->b[1]);
}

/* ------------------------------------------------------------------ cases */

typedef struct bad {
	const char *name;
	const char *expect;
	void (*edit)(arc *a);                         /* before assembly */
	size_t (*post)(uint8_t *p, size_t n);         /* raw bytes after */
} bad;

static void e_none(arc *a) { (void)a; }
static void e_version1(arc *a) { a->version = 1; }
static void e_version2(arc *a) { a->version = 2; }
static void e_version4(arc *a) { a->version = 4; }
static void e_flags(arc *a) { a->flags = 1; }
static void e_reserved(arc *a) { a->res11 = 1; }
static void e_block_log(arc *a) { a->block_log = 27; }
static void e_level(arc *a) { a->level = 0; }
static void e_size_overflow(arc *a) { a->content_size = (uint64_t)1 << 63; }
static void e_count_overflow(arc *a) { a->block_count = UINT64_MAX; }
/* Consistent sizes whose index (2^40 entries) cannot be in the file. */
static void e_index_huge(arc *a) { a->content_size = (uint64_t)1 << 56; a->block_count = (uint64_t)1 << 40; }
static void e_longer(arc *a) { a->archive_size_delta = 1000; }
static void e_overlap(arc *a) { a->b[1].offset_delta = -4; }
static void e_gap(arc *a) { a->b[1].offset_delta = 4; }
static void e_depth(arc *a) { a->depth = 0; }
static void e_index_reserved(arc *a) { a->b[0].reserved36 = 1; }
static void e_chained(arc *a) { a->b[0].chained = 2; }
static void e_content_sum(arc *a) { a->b[1].checksum_xor = 1; }

static void e_codec(arc *a)
{
	a->b[0].zstd[LIT] = 1;
	assemble(a, (uint8_t[MAXA]){ 0 });
	a->b[0].fixed_sizes = 1;
	a->b[0].codec[LIT] = 2;
}

static void e_into_footer(arc *a)
{
	assemble(a, (uint8_t[MAXA]){ 0 });
	a->b[1].fixed_sizes = 1;
	a->b[1].csize[LIT] = a->b[1].rsize[LIT] = 50;  /* no such bytes */
}

static void e_raw_size(arc *a)
{
	assemble(a, (uint8_t[MAXA]){ 0 });
	a->b[0].fixed_sizes = 1;
	a->b[0].csize[LIT] += 1;
	a->b[0].rsize[LIT] -= 1;
}

static void e_token_count(arc *a)
{
	assemble(a, (uint8_t[MAXA]){ 0 });
	a->b[0].fixed_sizes = 1;
	a->b[0].token_count = 2;
}

static void e_too_many_tokens(arc *a)
{
	/* 34 tokens of at least 3 bytes cannot fit in 100: the first, then 33
	 * repeats of length 3 (cmd byte 0x10) */
	blk *b = &a->b[1];
	encode(b);
	memset(b->s[CMD] + 1, 0x10, 33);
	b->n[CMD] = 34;
}

static void e_empty_level(arc *a)
{
	blk *b = &a->b[1];
	b->nt = 0;
	memcpy(b->lit, g_content + BLOCK0, BLOCK1);
	b->nlit = BLOCK1;
	encode(b);
	b->max_level = 1;
}

static void e_zstd_cut(arc *a) { a->b[0].zstd[OFF] = 1; a->b[0].zcut = 2; }

static void e_zstd_size(arc *a)
{
	a->b[0].zstd[LIT] = 1;
	assemble(a, (uint8_t[MAXA]){ 0 });
	a->b[0].fixed_sizes = 1;
	a->b[0].rsize[LIT] = 17;
}

static void e_before_output(arc *a) { a->b[0].t[0].dist = 17; encode(&a->b[0]); }

static void e_repeat_first(arc *a) { a->b[0].t[0].rep = 1; encode(&a->b[0]); }

static void e_past_block(arc *a) { a->b[1].t[0].mlen = BLOCK1 + 1; encode(&a->b[1]); }

static void e_lit_past_stream(arc *a) { a->b[0].t[0].lit = 17; a->b[0].t[0].mlen -= 1; encode(&a->b[0]); }

static void e_lit_past_block(arc *a)
{
	blk *b = &a->b[1];
	b->t[0].mlen = 90;
	b->t[b->nt++] = (tok){ 20, 3, BLOCK0, 1 };
	memcpy(b->lit, g_content + BLOCK0, BLOCK1);
	b->nlit = BLOCK1;
	encode(b);
}

static void e_len_unread(arc *a) { encode(&a->b[0]); a->b[0].s[LEN][a->b[0].n[LEN]++] = 0; }
static void e_off_unread(arc *a) { encode(&a->b[0]); a->b[0].s[OFF][a->b[0].n[OFF]++] = 0; }
static void e_off_short(arc *a) { encode(&a->b[0]); a->b[0].n[OFF] = 0; }

static void e_off_inside(arc *a)
{
	/* block 1's head asks for two low bytes; keep one */
	encode(&a->b[1]);
	a->b[1].n[OFF] -= 1;
}

static void e_lit_left(arc *a) { a->b[0].lit[16] = 'A'; a->b[0].nlit = 17; encode(&a->b[0]); }

static void e_varint_overflow(arc *a)
{
	/* block 1's match length as a 10-byte varint beyond 64 bits */
	blk *b = &a->b[1];
	encode(b);
	memset(b->s[LEN], 0xFF, 9);
	b->s[LEN][9] = 0x7F;
	b->n[LEN] = 10;
}

static void e_huge_len(arc *a)
{
	blk *b = &a->b[1];
	encode(b);
	b->n[LEN] = varint(b->s[LEN], (uint64_t)1 << 40);
}

static void e_len_byte_over_block(arc *a)
{
	/* a one-byte extension (127) longer than the 100-byte block */
	blk *b = &a->b[1];
	encode(b);
	b->s[LEN][0] = 0x7F;
}

static size_t p_truncate_half(uint8_t *p, size_t n) { (void)p; return n / 2; }
static size_t p_empty(uint8_t *p, size_t n) { (void)p; (void)n; return 0; }
static size_t p_magic(uint8_t *p, size_t n) { p[0] = 0x88; return n; }
static size_t p_header_sum(uint8_t *p, size_t n) { p[40] ^= 1; return n; }
static size_t p_trailing(uint8_t *p, size_t n) { memcpy(p + n, "xyz", 3); return n + 3; }
static size_t p_index_sum(uint8_t *p, size_t n) { p[48 + 8] ^= 1; return n; }
static size_t p_end_magic(uint8_t *p, size_t n) { p[n - 1] ^= 1; return n; }
static size_t p_footer_sum(uint8_t *p, size_t n) { p[n - 16] ^= 1; return n; }
static size_t p_payload(uint8_t *p, size_t n) { p[48 + 160 + 8] ^= 1; return n; }

static const bad cases[] = {
	{ "good", "OK", e_none, NULL },
	{ "empty-file", "shorter than the 48-byte header", e_none, p_empty },
	{ "bad-magic", "the first 4 bytes are not 89 57 4C 5A", e_none, p_magic },
	{ "version-1", "format version 1 (this library reads version 3)", e_version1, NULL },
	{ "version-2", "format version 2 (this library reads version 3)", e_version2, NULL },
	{ "version-4", "format version 4 (this library reads version 3)", e_version4, NULL },
	{ "header-checksum", "header checksum mismatch", e_none, p_header_sum },
	{ "header-flags", "unknown header flags 0x0001", e_flags, NULL },
	{ "header-reserved", "reserved header bytes 11..15 are not zero", e_reserved, NULL },
	{ "block-log-27", "block_log 27 outside 16..26", e_block_log, NULL },
	{ "level-0", "level 0 outside 1..19", e_level, NULL },
	{ "content-size-2e63", "content_size 9223372036854775808 exceeds 2^56", e_size_overflow, NULL },
	{ "block-count-overflow", "block_count 18446744073709551615, but content_size 65636 needs 2 blocks",
	  e_count_overflow, NULL },
	{ "index-2e40-blocks", "an index of 1099511627776 blocks cannot fit in", e_index_huge, NULL },
	{ "archive-size-larger", "but the header says", e_longer, NULL },
	{ "truncated-half", "but the header says", e_none, p_truncate_half },
	{ "trailing-bytes", "3 bytes after the archive's end", e_none, p_trailing },
	{ "index-checksum", "index checksum mismatch", e_none, p_index_sum },
	{ "end-magic", "no end magic in the last 8 bytes", e_none, p_end_magic },
	{ "index-overlap", "overlaps the previous one", e_overlap, NULL },
	{ "index-gap", "leaves a gap after the previous one", e_gap, NULL },
	{ "payload-into-footer", "block 1: payload runs 50 bytes into the footer", e_into_footer, NULL },
	{ "index-reserved", "block 0: reserved index bytes are not zero", e_index_reserved, NULL },
	{ "level-over-depth", "block 1: max_level 1 exceeds the archive's depth limit 0", e_depth, NULL },
	{ "level-without-tokens", "block 1: max_level 1 in a block without tokens", e_empty_level, NULL },
	{ "token-count", "block 0: cmd stream of 1 bytes for 2 tokens", e_token_count, NULL },
	{ "chained-over-count", "block 0: 2 chained tokens of 1", e_chained, NULL },
	{ "too-many-tokens", "block 1: 34 tokens cannot fit in a block of 100 bytes", e_too_many_tokens, NULL },
	{ "unknown-codec", "block 0: unknown codec 2 for the lit stream", e_codec, NULL },
	{ "raw-size", "block 0: raw lit stream stored in 17 bytes but 15 long", e_raw_size, NULL },
	{ "payload-checksum", "block 0: payload checksum mismatch", e_none, p_payload },
	{ "zstd-truncated", "block 0: off stream: zstd:", e_zstd_cut, NULL },
	{ "zstd-size", "block 0: lit stream decodes to 16 bytes, not 17", e_zstd_size, NULL },
	{ "source-before-output", "block 0: token 0: match source before the start of the output",
	  e_before_output, NULL },
	{ "repeat-without-offset", "block 0: token 0: repeat offset before any offset in the block",
	  e_repeat_first, NULL },
	{ "match-past-block", "block 1: token 0: match past the end of the block", e_past_block, NULL },
	{ "literals-past-stream", "block 0: token 0: literal run past the end of the lit stream",
	  e_lit_past_stream, NULL },
	{ "literals-past-block", "block 1: token 1: literal run past the end of the block",
	  e_lit_past_block, NULL },
	{ "len-unread", "block 0: 1 unread bytes in the len stream", e_len_unread, NULL },
	{ "off-unread", "block 0: 1 unread bytes in the off stream", e_off_unread, NULL },
	{ "off-missing", "block 0: 1 explicit offsets but an off stream of 0 bytes", e_off_short, NULL },
	{ "off-inside", "block 1: token 0: off stream ends inside an offset", e_off_inside, NULL },
	{ "literals-left", "block 0: 1 literal bytes left for the 0 bytes after the last token",
	  e_lit_left, NULL },
	{ "varint-overflow", "block 1: token 0: bad match length (len stream)", e_varint_overflow, NULL },
	{ "length-2e40", "block 1: token 0: bad match length (len stream)", e_huge_len, NULL },
	{ "length-byte-over-block", "block 1: token 0: bad match length (len stream)", e_len_byte_over_block, NULL },
	{ "content-checksum", "block 1: content checksum mismatch (decoded bytes differ)", e_content_sum, NULL },
	{ "footer-checksum", "footer content checksum does not match the block checksums", e_none,
	  p_footer_sum },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: forge_bad DIR\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/EXPECTED", argv[1]);
	FILE *list = fopen(path, "w");
	if (!list) {
		perror(path);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static uint8_t buf[MAXA];
		arc a;
		base(&a);
		cases[i].edit(&a);
		size_t n = assemble(&a, buf);
		if (cases[i].post)
			n = cases[i].post(buf, n);
		snprintf(path, sizeof(path), "%s/%s.wlz", argv[1], cases[i].name);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
			perror(path);
			return 1;
		}
		fprintf(list, "%s\t%s\n", cases[i].name, cases[i].expect);
	}
	return fclose(list) == 0 ? 0 : 1;
}
