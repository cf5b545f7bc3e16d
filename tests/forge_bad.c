/*
 * forge_bad.c - writes the hand-made malformed archives of tests/golden-bad/
 * (format version 5).
 *
 * The archives are built here field by field from the format's rules, not
 * with the library's writer (only XXH3 is shared), so they also check that
 * the rules as written are the ones the decoder applies.  A small good
 * member (two blocks: literals, a match that repeats them, a match that
 * reaches into the previous block exactly one window back) is laid out; each
 * case changes one thing and, unless it is the checksum under test, every
 * checksum after the change is computed again, so that the decoder reaches
 * exactly the rule the case breaks.
 *
 * A case changes the member at up to four stages:
 *   edit  the content: tokens, streams, how they are stored, header fields;
 *   lie   block header fields, after they were filled in from the content
 *         (the index, footer and header's content_size then follow them);
 *   lie2  index, footer and header fields, after they were filled in;
 *   post  the finished bytes (no checksum is fixed after this).
 * A case marked "second" is written as the second member after a good one.
 *
 * usage: forge_bad DIR   writes DIR/NAME.wlz for every case and DIR/EXPECTED,
 *                        one line per case: NAME, a tab, the message that
 *                        `wavelz -t` must print ("OK" for the good ones).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_LOG 16
#define BLOCK0 ((size_t)1 << BLOCK_LOG)
#define BLOCK1 100
#define MAXS 1024       /* room per stream */
#define MAXB 2          /* blocks in a member */
#define MAXA 8192       /* room for a whole file */

#define HEADER_SIZE 32
#define BHEAD_SIZE 80
#define FOOTER_SIZE 24

enum { CMD, LIT, LEN, OFF, NS };

/* How a stream is stored. */
enum {
	ST_RAW,         /* codec 0 */
	ST_FRAME,       /* codec 1: one zstd frame stating its size */
	ST_TWO_FRAMES,  /* codec 1: two such frames, the bytes split after the first */
	ST_SKIPPABLE,   /* codec 1: a skippable frame, then the frame */
	ST_SKIPPABLE_AFTER, /* codec 1: the frame, then a skippable frame */
	ST_NO_SIZE,     /* codec 1: a frame that does not state its size */
	ST_DICT,        /* codec 1: a frame naming a dictionary */
	ST_HUF,         /* codec 2: one huf part, two tables (huf_body) */
	ST_PARTS,       /* codec 2: a raw part of one byte, then a run of the rest */
};

/* Damage the codec-2 writer does on purpose (SPEC.md, section 5.2). */
enum {
	HB_NONE,
	HB_NO_PARTS,    /* a part count of 0 */
	HB_KIND,        /* a part of kind 3 */
	HB_SUM,         /* parts that decode to one byte less than the stream */
	HB_INCOMPLETE,  /* table 0's code is not complete */
	HB_NEXT,        /* a symbol names table 2 of 2 */
	HB_PADDING,     /* a lane's last byte has a 1 past its code bits */
	HB_LANE_SIZE,   /* lane 0 claims more bytes than its segment has */
	HB_ONE_LEN,     /* table 1's only symbol has length 2 */
};

typedef struct tok {
	uint32_t lit, mlen;
	uint64_t dist;
	int rep;
} tok;

typedef struct blk {
	/* the content */
	tok t[40];
	int nt;
	uint8_t lit[MAXS];
	size_t nlit;
	uint8_t s[NS][MAXS];    /* the streams, encoded (encode()) */
	size_t n[NS];
	int store[NS];          /* ST_* */
	int hbad;               /* HB_*: in every codec-2 stream of the block */
	size_t zcut[NS];        /* bytes dropped from the end of the stored stream */
	uint8_t stored[NS][MAXS];
	size_t nstored[NS];
	/* the block header, filled in by layout_blocks() but for length,
	 * max_level, chained, which the content's author states */
	uint8_t tag[4];
	uint32_t length, token_count, chained, reserved;
	unsigned max_level;
	uint8_t codec[NS];
	uint32_t csize[NS], rsize[NS];
	uint64_t checksum;      /* of the decoded bytes */
} blk;

typedef struct arc {
	unsigned version, flags, block_log, level, depth, window_log;
	uint32_t hreserved;
	uint64_t content_size;
	blk b[MAXB];
	int nb;
	/* index and footer, filled in by layout_index() */
	uint8_t itag[4];
	uint32_t ireserved;
	uint64_t icount, ioff[MAXB], isum[MAXB], icontent, idigest;
	uint64_t fioff, fsize;
	uint8_t fmagic[8];
} arc;

static uint8_t g_content[BLOCK0 + BLOCK1];  /* the good member's content */
static uint8_t g_out[2 * BLOCK0];           /* a member's content, as its tokens make it */

/* ------------------------------------------------------------ the writer */

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

/* zstd frames (RFC 8878), written by hand so that the files do not depend
 * on a zstd version.  A frame is the magic, a frame header descriptor, its
 * fields, then blocks: each run of ZRUN or more equal bytes an RLE block
 * (3-byte header and the byte), the bytes between them raw blocks (3-byte
 * header and the bytes), the last block flagged last.  So a frame of n
 * bytes is smaller than n only where the bytes repeat enough (a stream
 * zstd does not make smaller may not be stored as zstd: check_bhead).
 *   sized:  Single_Segment and the content size in 1 byte (< 256) or 2
 *           (256 and more, less 256): descriptor 0x20 or 0x60
 *   dict:   as sized, and a 1-byte Dictionary_ID, 7: descriptor | 0x01
 *   nosize: descriptor 0x00 and a Window_Descriptor of a window of at least
 *           n bytes (and 1 KiB), no content size */
enum { ZF_SIZED, ZF_DICT, ZF_NOSIZE };
#define ZRUN 8

static size_t zstd_block(uint8_t *out, const uint8_t *in, size_t n, int rle, int last)
{
	uint32_t bh = (uint32_t)last | (uint32_t)rle << 1 | (uint32_t)n << 3;
	out[0] = (uint8_t)bh;
	out[1] = (uint8_t)(bh >> 8);
	out[2] = (uint8_t)(bh >> 16);
	if (rle) {
		out[3] = in[0];
		return 4;
	}
	memcpy(out + 3, in, n);
	return 3 + n;
}

static size_t zstd_frame(uint8_t *out, const uint8_t *in, size_t n, int kind)
{
	static const uint8_t magic[4] = { 0x28, 0xB5, 0x2F, 0xFD };
	size_t k = 4;
	memcpy(out, magic, 4);
	if (kind == ZF_NOSIZE) {
		unsigned e = 0;
		while (((size_t)1 << (10 + e)) < n)
			e++;
		out[k++] = 0x00;
		out[k++] = (uint8_t)(e << 3);
	} else {
		const int two = n >= 256;
		out[k++] = (uint8_t)(0x20 | two << 6 | (kind == ZF_DICT));
		if (kind == ZF_DICT)
			out[k++] = 7;
		if (two) {
			put16(out + k, (unsigned)(n - 256));
			k += 2;
		} else {
			out[k++] = (uint8_t)n;
		}
	}
	size_t i = 0, raw = 0;  /* raw: where the bytes not yet in a block start */
	while (i < n) {
		size_t r = 1;
		while (i + r < n && in[i + r] == in[i])
			r++;
		if (r < ZRUN) {
			i += r;
			continue;
		}
		if (raw < i)
			k += zstd_block(out + k, in + raw, i - raw, 0, 0);
		k += zstd_block(out + k, in + i, r, 1, i + r == n);
		i += r;
		raw = i;
	}
	if (raw < n || n == 0)
		k += zstd_block(out + k, in + raw, n - raw, 0, 1);
	return k;
}

/* A skippable frame (magic 0x184D2A50) of 4 bytes. */
static size_t zstd_skippable(uint8_t *out)
{
	put32(out, 0x184D2A50u);
	put32(out + 4, 4);
	memcpy(out + 8, "wlz!", 4);
	return 12;
}

/* Codec 2, written from SPEC.md section 5.2 alone (not with the library's
 * coder).  A huf part of n <= 4096 symbols, one segment (seg_log 12),
 * two tables: table 0 codes every symbol present, with lengths d-1 and d
 * (a complete code), table 1 only `run`, in no bits; next[run] = 1, every
 * other symbol's next is 0.  So a lane that reaches a run of `run` stays
 * in table 1, and one that starts inside it reads one code of table 0. */
static size_t huf_body(uint8_t *o, const uint8_t *s, size_t n, uint8_t run, int hbad)
{
	uint8_t len[2][256] = {{0}}, next[256] = {0};
	uint32_t code[2][256] = {{0}};
	unsigned k = 0;
	uint8_t sym[256];
	for (unsigned v = 0; v < 256; v++)
		if (memchr(s, (int)v, n))
			sym[k++] = (uint8_t)v;
	/* d: the smallest with 2^d >= k; 2^d - k symbols get d - 1 bits. */
	unsigned d = 1;
	while ((1u << d) < k)
		d++;
	for (unsigned i = 0; i < k; i++)
		len[0][sym[i]] = (uint8_t)(i < (1u << d) - k ? d - 1 : d);
	if (hbad == HB_INCOMPLETE)
		len[0][sym[k - 1]]++;
	len[1][run] = hbad == HB_ONE_LEN ? 2 : 1;
	next[run] = hbad == HB_NEXT ? 2 : 1;
	/* Canonical codes, by (length, symbol), then reversed: the first bit
	 * of a code is the lowest bit read. */
	for (unsigned t = 0; t < 1; t++) {
		uint32_t c = 0;
		unsigned prev = 0;
		for (unsigned l = 1; l <= 11; l++)
			for (unsigned v = 0; v < 256; v++)
				if (len[t][v] == l) {
					c <<= l - prev;
					prev = l;
					uint32_t r = 0;
					for (unsigned b = 0; b < l; b++)
						r |= (c >> b & 1) << (l - 1 - b);
					code[t][v] = r;
					c++;
				}
	}
	uint8_t *p = o;
	*p++ = 12;
	*p++ = 2;
	memset(p, 0, 32);
	for (unsigned i = 0; i < k; i++)
		p[sym[i] >> 3] |= (uint8_t)(1u << (sym[i] & 7));
	p += 32;
	uint8_t nib[3 * 256];
	size_t nn = 0;
	for (unsigned i = 0; i < k; i++)
		nib[nn++] = next[sym[i]];
	for (unsigned t = 0; t < 2; t++)
		for (unsigned i = 0; i < k; i++)
			nib[nn++] = len[t][sym[i]];
	memset(p, 0, (nn + 1) / 2);
	for (size_t i = 0; i < nn; i++)
		p[i / 2] |= (uint8_t)(nib[i] << 4 * (i & 1));
	p += (nn + 1) / 2;
	uint8_t *segsize = p, *seg = p + 4;
	p = seg + 62;
	const size_t q = (n + 31) / 32;
	for (unsigned l = 0; l < 32; l++) {
		const size_t a = l * q < n ? l * q : n, b = a + q < n ? a + q : n;
		uint64_t acc = 0;
		unsigned nb = 0, t = 0;
		uint8_t *start = p;
		for (size_t j = a; j < b; j++) {
			const unsigned bits = t == 1 ? 0 : len[t][s[j]];
			acc |= (uint64_t)code[t][s[j]] << nb;
			nb += bits;
			t = next[s[j]] > 1 ? 1 : next[s[j]];  /* (HB_NEXT names table 2: write on with 1) */
			while (nb >= 8) {
				*p++ = (uint8_t)acc;
				acc >>= 8;
				nb -= 8;
			}
		}
		if (nb) {
			if (hbad == HB_PADDING && l == 0)
				acc |= 1u << nb;
			*p++ = (uint8_t)acc;
		}
		if (l < 31)
			put16(seg + 2 * l, (unsigned)(p - start) + (hbad == HB_LANE_SIZE && l == 0 ? 4000 : 0));
	}
	put32(segsize, (uint32_t)(p - seg));
	return (size_t)(p - o);
}

/* A codec-2 stream: part list, then bodies. */
static size_t codec2(uint8_t *o, const uint8_t *s, size_t n, int store, int hbad)
{
	uint8_t body[2 * MAXS];
	size_t at = 0, nb;
	o[at++] = hbad == HB_NO_PARTS ? 0 : store == ST_PARTS ? 2 : 1;
	if (store == ST_PARTS) {
		o[at++] = 0;  /* raw: the first byte */
		at += varint(o + at, 1);
		o[at++] = hbad == HB_KIND ? 3 : 1;  /* run: the rest */
		at += varint(o + at, n - 1 - (hbad == HB_SUM));
		o[at++] = s[0];
		o[at++] = s[1];
		return at;
	}
	nb = huf_body(body, s, n, s[n - 1], hbad);
	o[at++] = 2;
	at += varint(o + at, n - (hbad == HB_SUM));
	at += varint(o + at, nb);
	memcpy(o + at, body, nb);
	return at + nb;
}

/* Tokens to the cmd, len and off streams, literals to lit. */
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

/* Decodes block i's tokens into g_out as the format says, ignoring only the
 * window; 0 if they break a rule (the block then keeps the good content). */
static int simulate(const blk *b, int i)
{
	const uint64_t start = (uint64_t)i * BLOCK0, end = start + b->length;
	uint64_t pos = start, dist = 0;
	size_t lp = 0;
	for (int k = 0; k < b->nt; k++) {
		const tok *t = &b->t[k];
		if (!t->rep)
			dist = t->dist;
		if (dist == 0 || t->mlen < 3 || t->lit > b->nlit - lp || (uint64_t)t->lit + t->mlen > end - pos)
			return 0;
		memcpy(g_out + pos, b->lit + lp, t->lit);
		lp += t->lit;
		pos += t->lit;
		if (dist > pos)
			return 0;
		for (uint32_t j = 0; j < t->mlen; j++, pos++)
			g_out[pos] = g_out[pos - dist];
	}
	if (b->nlit - lp != end - pos)
		return 0;
	memcpy(g_out + pos, b->lit + lp, (size_t)(end - pos));
	return 1;
}

/* The stored streams and every block header field from the content. */
static void layout_blocks(arc *a)
{
	memcpy(g_out, g_content, sizeof(g_content));
	for (int i = 0; i < a->nb; i++) {
		blk *b = &a->b[i];
		if (!simulate(b, i))
			memcpy(g_out + (size_t)i * BLOCK0, g_content + (size_t)i * BLOCK0,
			       i ? sizeof(g_content) - BLOCK0 : BLOCK0);
		b->checksum = tu_xxh3(g_out + (size_t)i * BLOCK0, b->length);
		for (int s = 0; s < NS; s++) {
			uint8_t *o = b->stored[s];
			size_t c = 0, half = b->n[s] / 2;
			switch (b->store[s]) {
			case ST_RAW:
				memcpy(o, b->s[s], b->n[s]);
				c = b->n[s];
				break;
			case ST_FRAME:
				c = zstd_frame(o, b->s[s], b->n[s], ZF_SIZED);
				break;
			case ST_TWO_FRAMES:
				c = zstd_frame(o, b->s[s], half, ZF_SIZED);
				c += zstd_frame(o + c, b->s[s] + half, b->n[s] - half, ZF_SIZED);
				break;
			case ST_SKIPPABLE:
				c = zstd_skippable(o);
				c += zstd_frame(o + c, b->s[s], b->n[s], ZF_SIZED);
				break;
			case ST_SKIPPABLE_AFTER:
				c = zstd_frame(o, b->s[s], b->n[s], ZF_SIZED);
				c += zstd_skippable(o + c);
				break;
			case ST_NO_SIZE:
				c = zstd_frame(o, b->s[s], b->n[s], ZF_NOSIZE);
				break;
			case ST_DICT:
				c = zstd_frame(o, b->s[s], b->n[s], ZF_DICT);
				break;
			case ST_HUF:
			case ST_PARTS:
				c = codec2(o, b->s[s], b->n[s], b->store[s], b->hbad);
				break;
			}
			b->nstored[s] = c - b->zcut[s];
			b->codec[s] = b->store[s] == ST_RAW ? 0 : b->store[s] >= ST_HUF ? 2 : 1;
			b->csize[s] = (uint32_t)b->nstored[s];
			b->rsize[s] = (uint32_t)b->n[s];
		}
		memcpy(b->tag, "wlzB", 4);
		b->token_count = (uint32_t)b->n[CMD];
		b->reserved = 0;
	}
}

/* Index, footer and the header's content_size from the block headers. */
static void layout_index(arc *a)
{
	uint64_t at = HEADER_SIZE, content = 0;
	uint8_t sums[8 * MAXB];
	for (int i = 0; i < a->nb; i++) {
		const blk *b = &a->b[i];
		a->ioff[i] = at;
		a->isum[i] = b->checksum;
		put64(sums + 8 * i, b->checksum);
		at += BHEAD_SIZE;
		for (int s = 0; s < NS; s++)
			at += b->nstored[s];
		content += b->length;
	}
	memcpy(a->itag, "wlzI", 4);
	a->ireserved = 0;
	a->icount = (uint64_t)a->nb;
	a->icontent = content;
	a->idigest = tu_xxh3(sums, 8 * (size_t)a->nb);
	a->content_size = content;
	a->fioff = at;
	a->fsize = at + 40 + 16 * (uint64_t)a->nb + FOOTER_SIZE;
	memcpy(a->fmagic, "wlzEND\r\n", 8);
}

/* The member's bytes; every checksum but the content checksums computed.
 * A block's payload checksum covers the bytes its csize fields claim. */
static size_t serialize(const arc *a, uint8_t *out)
{
	size_t at = HEADER_SIZE, data[MAXB];
	memset(out, 0, MAXA / 2);
	out[0] = 0x89;
	memcpy(out + 1, "WLZ", 3);
	put16(out + 4, a->version);
	put16(out + 6, a->flags);
	out[8] = (uint8_t)a->block_log;
	out[9] = (uint8_t)a->level;
	out[10] = (uint8_t)a->depth;
	out[11] = (uint8_t)a->window_log;
	put32(out + 12, a->hreserved);
	put64(out + 16, a->content_size);
	put64(out + 24, tu_xxh3(out, 24));
	for (int i = 0; i < a->nb; i++) {
		const blk *b = &a->b[i];
		uint8_t *h = out + at;
		memcpy(h, b->tag, 4);
		put32(h + 4, b->length);
		put32(h + 8, b->token_count);
		h[12] = (uint8_t)b->max_level;
		h[13] = (uint8_t)b->chained;
		h[14] = (uint8_t)(b->chained >> 8);
		h[15] = (uint8_t)(b->chained >> 16);
		for (int s = 0; s < NS; s++) {
			h[16 + s] = b->codec[s];
			put32(h + 20 + 8 * s, b->csize[s]);
			put32(h + 24 + 8 * s, b->rsize[s]);
		}
		put32(h + 52, b->reserved);
		put64(h + 56, b->checksum);
		at += BHEAD_SIZE;
		data[i] = at;
		for (int s = 0; s < NS; s++) {
			memcpy(out + at, b->stored[s], b->nstored[s]);
			at += b->nstored[s];
		}
	}
	uint8_t *x = out + at;
	memcpy(x, a->itag, 4);
	put32(x + 4, a->ireserved);
	put64(x + 8, a->icount);
	for (int i = 0; i < a->nb; i++) {
		put64(x + 16 + 16 * i, a->ioff[i]);
		put64(x + 24 + 16 * i, a->isum[i]);
	}
	const size_t ie = 16 + 16 * (size_t)a->nb;
	put64(x + ie, a->icontent);
	put64(x + ie + 8, a->idigest);
	put64(x + ie + 16, tu_xxh3(x, ie + 16));
	at += ie + 24;
	put64(out + at, a->fioff);
	put64(out + at + 8, a->fsize);
	memcpy(out + at + 16, a->fmagic, 8);
	at += FOOTER_SIZE;
	for (int i = 0; i < a->nb; i++) {
		const blk *b = &a->b[i];
		uint8_t *h = out + data[i] - BHEAD_SIZE;
		uint64_t claim = (uint64_t)b->csize[0] + b->csize[1] + b->csize[2] + b->csize[3];
		if (claim > at - data[i])
			claim = at - data[i];  /* past the end: the decoder stops first */
		put64(h + 64, tu_xxh3(out + data[i], (size_t)claim));
		put64(h + 72, tu_xxh3(h, 72));
	}
	return at;
}

/* The good member: block 0 is 16 literals and a match repeating them to
 * the block's end (it reads its own output: level 0); block 1 copies the
 * first 100 bytes of block 0 from exactly 2^16 back, the whole window
 * (level 1, across blocks). */
static void base(arc *a)
{
	static const char seed[] = "ACGTTGCAACGGTTCA";
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < sizeof(g_content); i++)
		g_content[i] = (uint8_t)seed[i % 16];
	a->version = 5;
	a->block_log = BLOCK_LOG;
	a->window_log = BLOCK_LOG;
	a->level = 3;
	a->depth = 255;
	a->nb = 2;
	blk *b = &a->b[0];
	b->t[b->nt++] = (tok){ 16, BLOCK0 - 16, 16, 0 };
	memcpy(b->lit, seed, 16);
	b->nlit = 16;
	b->length = BLOCK0;
	b = &a->b[1];
	b->t[b->nt++] = (tok){ 0, BLOCK1, BLOCK0, 0 };
	b->length = BLOCK1;
	b->max_level = 1;
	encode(&a->b[0]);
	encode(&a->b[1]);
}

/* ------------------------------------------------------------------ cases */

typedef struct bad {
	const char *name;
	const char *expect;
	void (*edit)(arc *a);
	void (*lie)(arc *a);
	void (*lie2)(arc *a);
	size_t (*post)(uint8_t *p, size_t n);
	int second;
} bad;

/* header */
static void e_version1(arc *a) { a->version = 1; }
static void e_version2(arc *a) { a->version = 2; }
static void e_version3(arc *a) { a->version = 3; }
static void e_version4(arc *a) { a->version = 4; }
static void e_version6(arc *a) { a->version = 6; }
static void e_flags(arc *a) { a->flags = 1; }
static void e_hreserved(arc *a) { a->hreserved = 1u << 24; }
static void e_block_log15(arc *a) { a->block_log = 15; }
static void e_block_log27(arc *a) { a->block_log = 27; }
static void e_level0(arc *a) { a->level = 0; }
static void e_level20(arc *a) { a->level = 20; }
static void e_window15(arc *a) { a->window_log = 15; }
static void e_window41(arc *a) { a->window_log = 41; }
static void e_window32(arc *a) { a->window_log = 32; }
static void e_depth0(arc *a) { a->depth = 0; }
static void l2_size_2e63(arc *a) { a->content_size = (uint64_t)1 << 63; }
static void l2_size_plus1(arc *a) { a->content_size += 1; }
static void l2_size_unknown(arc *a) { a->content_size = UINT64_MAX; }
static void e_empty(arc *a) { a->nb = 0; }

/* stored forms.  The good member's streams are too short for zstd to make
 * smaller, so the zstd cases first make streams that repeat:
 *   long_lits  block 0 as a run of n literals (the 16 of the good member,
 *              then n - 16 'N's) and a match repeating them from n back to
 *              the block's end;
 *   b1_repeats block 1 as 20 matches of 5 bytes from 2^16 back, the first
 *              with its offset, 19 repeating it: a cmd stream of 20 bytes,
 *              19 of them equal (its 3-byte off stream stays raw). */
#define LONG_LITS 1000

static void long_lits(arc *a, uint32_t n)
{
	blk *b = &a->b[0];
	b->t[0] = (tok){ n, BLOCK0 - n, n, 0 };
	memset(b->lit + 16, 'N', n - 16);
	b->nlit = n;
	encode(b);
}

static void b1_repeats(arc *a)
{
	blk *b = &a->b[1];
	b->t[0] = (tok){ 0, 5, BLOCK0, 0 };
	for (b->nt = 1; b->nt < 20; b->nt++)
		b->t[b->nt] = (tok){ 0, 5, 0, 1 };
	encode(b);
	b->store[CMD] = ST_FRAME;
}

static void e_zstd_good(arc *a)
{
	long_lits(a, LONG_LITS);
	a->b[0].store[LIT] = ST_TWO_FRAMES;  /* 500 | 500 bytes, as SPEC allows */
	b1_repeats(a);
}
static void zstd_lit(arc *a, int store) { long_lits(a, LONG_LITS); a->b[0].store[LIT] = store; }
/* Codec 2: block 0's literals as a huf part, block 1's cmd stream as a raw
 * part and a run; hb damages both. */
static void huf_streams(arc *a, int hb)
{
	long_lits(a, LONG_LITS);
	a->b[0].store[LIT] = ST_HUF;
	a->b[0].hbad = hb;
	b1_repeats(a);
	a->b[1].store[CMD] = ST_PARTS;
	a->b[1].hbad = hb;
}
static void e_huf_good(arc *a) { huf_streams(a, HB_NONE); }
static void e_huf_no_parts(arc *a) { huf_streams(a, HB_NO_PARTS); }
static void e_huf_kind(arc *a) { huf_streams(a, HB_KIND); }
static void e_huf_sum(arc *a) { huf_streams(a, HB_SUM); }
static void e_huf_incomplete(arc *a) { huf_streams(a, HB_INCOMPLETE); }
static void e_huf_next(arc *a) { huf_streams(a, HB_NEXT); }
static void e_huf_padding(arc *a) { huf_streams(a, HB_PADDING); }
static void e_huf_lane_size(arc *a) { huf_streams(a, HB_LANE_SIZE); }
static void e_huf_one_len(arc *a) { huf_streams(a, HB_ONE_LEN); }
static void e_zstd_lit(arc *a) { zstd_lit(a, ST_FRAME); }
static void e_zstd_cut(arc *a) { zstd_lit(a, ST_FRAME); a->b[0].zcut[LIT] = 2; }
static void e_zstd_skippable(arc *a) { zstd_lit(a, ST_SKIPPABLE); }
static void e_zstd_skippable_after(arc *a) { zstd_lit(a, ST_SKIPPABLE_AFTER); }
static void e_zstd_nosize(arc *a) { zstd_lit(a, ST_NO_SIZE); }
static void e_zstd_dict(arc *a) { zstd_lit(a, ST_DICT); }
/* 16 raw bytes and a run of 13: a frame of 6 + 19 + 4 bytes for 29 */
static void e_zstd_same(arc *a) { long_lits(a, 29); a->b[0].store[LIT] = ST_FRAME; }

/* block header lies (after layout) */
static void l_tag1(arc *a) { memcpy(a->b[1].tag, "wlzX", 4); }
static void l_breserved(arc *a) { a->b[0].reserved = 1; }
static void l_length0(arc *a) { a->b[1].length = 0; }
static void l_length_over(arc *a) { a->b[1].length = BLOCK0 + 1; }
static void l_length_short(arc *a) { a->b[1].length = BLOCK1 - 1; }
static void l_length_long(arc *a) { a->b[1].length = BLOCK1 + 1; }
/* zstd streams, so that the lie itself is the only rule broken (a raw
 * stream's csize must be its rsize, a zstd one's below it) */
static void l_csize_long(arc *a) { a->b[1].csize[CMD] += 4; }
static void l_csize_short(arc *a) { a->b[1].csize[CMD] -= 2; }
static void l_csize_past_end(arc *a) { a->b[0].csize[LIT] = a->b[0].rsize[LIT] - 1; }
static void l_token_count(arc *a) { a->b[0].token_count = 2; }
static void l_chained(arc *a) { a->b[0].chained = 2; }
static void l_lit_over(arc *a) { a->b[1].csize[LIT] = a->b[1].rsize[LIT] = BLOCK1 + 1; }
static void l_len_over(arc *a) { a->b[1].csize[LEN] = a->b[1].rsize[LEN] = 11; }
static void l_off_over(arc *a) { a->b[1].csize[OFF] = a->b[1].rsize[OFF] = 9; }
static void l_codec3(arc *a) { a->b[0].codec[LIT] = 3; }
static void l_raw_size(arc *a) { a->b[0].csize[LIT] += 1; a->b[0].rsize[LIT] -= 1; }
static void l_zstd_empty(arc *a) { a->b[0].codec[LIT] = 1; a->b[0].csize[LIT] = 0; }
static void l_zstd_size(arc *a) { a->b[0].rsize[LIT] += 1; }
static void l_content_sum(arc *a) { a->b[1].checksum ^= 1; }

/* index and footer lies */
static void l2_itag(arc *a) { memcpy(a->itag, "wlzX", 4); }
static void l2_ireserved(arc *a) { a->ireserved = 1; }
static void l2_icount3(arc *a) { a->icount = 3; }
static void l2_icount1(arc *a) { a->icount = 1; }
static void l2_icount_huge(arc *a) { a->icount = (uint64_t)1 << 40; }
static void l2_ioff(arc *a) { a->ioff[1] += 4; }
static void l2_isum(arc *a) { a->isum[0] ^= 1; }
static void l2_icontent(arc *a) { a->icontent += 1; }
static void l2_idigest(arc *a) { a->idigest ^= 1; }
static void l2_fioff(arc *a) { a->fioff += 1; }
static void l2_fsize(arc *a) { a->fsize += 1; }

/* content */
static void e_short_first(arc *a)
{
	/* block 0 is whole and right at 2^16 - 1 bytes, but not the last */
	a->b[0].t[0].mlen -= 1;
	a->b[0].length -= 1;
	encode(&a->b[0]);
}

static void e_too_many_tokens(arc *a)
{
	/* 34 tokens of at least 3 bytes cannot fit in 100: the first, then 33
	 * repeats of length 3 (cmd byte 0x10) */
	blk *b = &a->b[1];
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

static void e_len_unread(arc *a) { a->b[0].s[LEN][a->b[0].n[LEN]++] = 0; }
static void e_off_unread(arc *a) { a->b[0].s[OFF][a->b[0].n[OFF]++] = 0; }
static void e_off_short(arc *a) { a->b[0].n[OFF] = 0; }
static void e_off_inside(arc *a) { a->b[1].n[OFF] -= 1; /* the head asks for two low bytes */ }
static void e_lit_left(arc *a) { a->b[0].lit[16] = 'A'; a->b[0].nlit = 17; encode(&a->b[0]); }

static void e_varint_overflow(arc *a)
{
	/* block 1's match length as a 10-byte varint beyond 64 bits */
	blk *b = &a->b[1];
	memset(b->s[LEN], 0xFF, 9);
	b->s[LEN][9] = 0x7F;
	b->n[LEN] = 10;
}

static void e_huge_len(arc *a) { a->b[1].n[LEN] = varint(a->b[1].s[LEN], (uint64_t)1 << 40); }
/* a one-byte extension (127) longer than the 100-byte block */
static void e_len_byte_over_block(arc *a) { a->b[1].s[LEN][0] = 0x7F; }

static void e_overlong(arc *a)
{
	/* block 0's match extension (3 bytes) with a fourth, zero group */
	blk *b = &a->b[0];
	b->s[LEN][3] |= 0x80;
	b->s[LEN][4] = 0;
	b->n[LEN] = 5;
}

static void e_overlong_lit(arc *a)
{
	/* block 0's literal extension (9, one byte) with a second, zero group */
	blk *b = &a->b[0];
	memmove(b->s[LEN] + 2, b->s[LEN] + 1, b->n[LEN] - 1);
	b->s[LEN][0] |= 0x80;
	b->s[LEN][1] = 0;
	b->n[LEN] += 1;
}

static void e_overlong10(arc *a)
{
	/* block 1's match extension (82, one byte) as 10 bytes */
	blk *b = &a->b[1];
	b->s[LEN][0] |= 0x80;
	memset(b->s[LEN] + 1, 0x80, 8);
	b->s[LEN][9] = 0;
	b->n[LEN] = 10;
}

static void e_window_far(arc *a)
{
	/* block 1: one literal, then a copy of the member's first 99 bytes from
	 * 2^16 + 1 back, one byte more than the window */
	blk *b = &a->b[1];
	b->t[0] = (tok){ 1, BLOCK1 - 1, BLOCK0 + 1, 0 };
	b->lit[0] = g_content[BLOCK0];
	b->nlit = 1;
	encode(b);
}

/* bytes */
static size_t p_empty(uint8_t *p, size_t n) { (void)p; (void)n; return 0; }
static size_t p_cut20(uint8_t *p, size_t n) { (void)p; (void)n; return 20; }
static size_t p_cut_header(uint8_t *p, size_t n) { (void)p; (void)n; return HEADER_SIZE; }
/* the good member: block 0's header at 32, payload at 112 (22 bytes),
 * block 1's header at 134, payload at 214 (5 bytes), index at 219 (72
 * bytes), footer at 291; 315 bytes */
static size_t p_cut_bhead(uint8_t *p, size_t n) { (void)p; (void)n; return 134 + 40; }
static size_t p_cut_payload(uint8_t *p, size_t n) { (void)p; (void)n; return 112 + 10; }
static size_t p_cut_index(uint8_t *p, size_t n) { (void)p; return n - FOOTER_SIZE - 30; }
static size_t p_cut_footer(uint8_t *p, size_t n) { (void)p; return n - 10; }
static size_t p_magic(uint8_t *p, size_t n) { p[0] = 0x88; return n; }
static size_t p_header_sum(uint8_t *p, size_t n) { p[24] ^= 1; return n; }
static size_t p_bhead_sum(uint8_t *p, size_t n) { p[HEADER_SIZE + 8] ^= 1; return n; }
static size_t p_payload(uint8_t *p, size_t n) { p[112 + 8] ^= 1; return n; }
static size_t p_index_sum(uint8_t *p, size_t n) { p[n - FOOTER_SIZE - 1] ^= 1; return n; }
static size_t p_end_magic(uint8_t *p, size_t n) { p[n - 1] ^= 1; return n; }
static size_t p_trailing(uint8_t *p, size_t n) { memcpy(p + n, "xyz", 3); return n + 3; }

static size_t p_trailing100(uint8_t *p, size_t n)
{
	for (int i = 0; i < 100; i++)
		p[n + i] = (uint8_t)"garbage "[i % 8];
	return n + 100;
}

static const bad cases[] = {
	/* good ones */
	{ "good", "OK", .second = 0 },
	{ "good-concat", "OK", .second = 1 },
	{ "good-unknown-size", "OK", .lie2 = l2_size_unknown },
	{ "good-empty", "OK", .edit = e_empty },
	{ "good-zstd", "OK", .edit = e_zstd_good },
	{ "good-huf", "OK", .edit = e_huf_good },
	/* codec 2 (block 1's cmd stream breaks the part rules first where
	 * both streams are damaged: blocks are checked in order, streams
	 * within) */
	{ "huf-no-parts", "block 0: lit stream: codec 2 stream: bad part count", .edit = e_huf_no_parts },
	{ "huf-part-kind", "block 1: cmd stream: codec 2 stream: bad part kind", .edit = e_huf_kind },
	{ "huf-part-sizes", "block 0: lit stream: codec 2 stream: parts do not fill the stream exactly",
	  .edit = e_huf_sum },
	{ "huf-incomplete", "block 0: lit stream: huf part: a code is not complete", .edit = e_huf_incomplete },
	{ "huf-next-table", "block 0: lit stream: huf part: a symbol names a missing table", .edit = e_huf_next },
	{ "huf-padding", "block 0: lit stream: huf part: segment 0 does not decode", .edit = e_huf_padding },
	{ "huf-lane-size", "block 0: lit stream: huf part: segment 0 does not decode", .edit = e_huf_lane_size },
	{ "huf-one-symbol", "block 0: lit stream: huf part: a one-symbol table's length is not 1",
	  .edit = e_huf_one_len },
	/* the header */
	{ "empty-file", "0 bytes, shorter than the 32-byte header", .post = p_empty },
	{ "truncated-header", "20 bytes, shorter than the 32-byte header", .post = p_cut20 },
	{ "bad-magic", "the first 4 bytes are not 89 57 4C 5A", .post = p_magic },
	{ "version-1", "format version 1 (this library reads version 5)", .edit = e_version1 },
	{ "version-2", "format version 2 (this library reads version 5)", .edit = e_version2 },
	{ "version-3", "format version 3 (this library reads version 5)", .edit = e_version3 },
	{ "version-4", "format version 4 (this library reads version 5)", .edit = e_version4 },
	{ "version-6", "format version 6 (this library reads version 5)", .edit = e_version6 },
	{ "header-checksum", "header checksum mismatch", .post = p_header_sum },
	{ "header-flags", "unknown header flags 0x0001", .edit = e_flags },
	{ "header-reserved", "reserved header bytes 12..15 are not zero", .edit = e_hreserved },
	{ "block-log-15", "block_log 15 outside 16..26", .edit = e_block_log15 },
	{ "block-log-27", "block_log 27 outside 16..26", .edit = e_block_log27 },
	{ "level-0", "level 0 outside 1..19", .edit = e_level0 },
	{ "level-20", "level 20 outside 1..19", .edit = e_level20 },
	{ "window-log-15", "window_log 15 outside block_log 16..40", .edit = e_window15 },
	{ "window-log-41", "window_log 41 outside block_log 16..40", .edit = e_window41 },
	{ "window-over-memory", "a window of 4096 MiB, over the limit of 2048 MiB", .edit = e_window32 },
	{ "content-size-2e63", "content_size 9223372036854775808 exceeds 2^56", .lie2 = l2_size_2e63 },
	{ "header-content-size", "the header says 65637 content bytes, the blocks hold 65636",
	  .lie2 = l2_size_plus1 },
	/* block headers */
	{ "block-tag", "block 1: no block or index tag at byte 134", .lie = l_tag1 },
	{ "block-header-checksum", "block 0: block header checksum mismatch", .post = p_bhead_sum },
	{ "block-header-reserved", "block 0: reserved block header bytes are not zero", .lie = l_breserved },
	{ "block-length-0", "block 1: block length 0 outside 1..65536", .lie = l_length0 },
	{ "block-length-65537", "block 1: block length 65537 outside 1..65536", .lie = l_length_over },
	{ "block-length-short", "block 1: token 0: match past the end of the block", .lie = l_length_short },
	{ "block-length-long", "block 1: 0 literal bytes left for the 1 bytes after the last token",
	  .lie = l_length_long },
	{ "short-block-first", "before the last one", .edit = e_short_first },
	{ "csize-long", "block 2: no block or index tag at byte 235", .edit = b1_repeats, .lie = l_csize_long },
	{ "csize-short", "block 2: no block or index tag at byte 229", .edit = b1_repeats, .lie = l_csize_short },
	{ "csize-past-end", "the archive ends inside a block's payload", .edit = e_zstd_lit,
	  .lie = l_csize_past_end },
	{ "token-count", "block 0: cmd stream of 1 bytes for 2 tokens", .lie = l_token_count },
	{ "chained-over-count", "block 0: 2 chained tokens of 1", .lie = l_chained },
	{ "too-many-tokens", "block 1: 34 tokens cannot fit in a block of 100 bytes", .edit = e_too_many_tokens },
	{ "literals-over-block", "block 1: 101 literal bytes in a block of 100 bytes", .lie = l_lit_over },
	{ "len-stream-over-tokens", "block 1: len stream of 11 bytes for 1 tokens", .lie = l_len_over },
	{ "off-stream-over-tokens", "block 1: off stream of 9 bytes for 1 tokens", .lie = l_off_over },
	{ "level-over-depth", "block 1: max_level 1 exceeds the archive's depth limit 0", .edit = e_depth0 },
	{ "level-without-tokens", "block 1: max_level 1 in a block without tokens", .edit = e_empty_level },
	{ "unknown-codec", "block 0: unknown codec 3 for the lit stream", .edit = e_zstd_lit, .lie = l_codec3 },
	{ "raw-size", "block 0: raw lit stream stored in 17 bytes but 15 long", .lie = l_raw_size },
	{ "zstd-empty", "block 0: zstd lit stream of 0 bytes", .lie = l_zstd_empty },
	{ "zstd-not-smaller", "block 0: zstd lit stream stored in 29 bytes for 29", .edit = e_zstd_same },
	/* the index */
	{ "index-tag", "block 2: no block or index tag at byte 219", .lie2 = l2_itag },
	{ "index-checksum", "index checksum mismatch", .post = p_index_sum },
	{ "index-reserved", "reserved index bytes are not zero", .lie2 = l2_ireserved },
	{ "index-count-1", "the index lists 1 blocks, the archive has 2", .lie2 = l2_icount1 },
	{ "index-count-3", "the index lists 3 blocks, the archive has 2", .lie2 = l2_icount3 },
	{ "index-count-2e40", "the index lists 1099511627776 blocks, the archive has 2", .lie2 = l2_icount_huge },
	{ "index-offset", "index entry 1: block at 138, but it lies at 134", .lie2 = l2_ioff },
	{ "index-entry-checksum", "index entry 0: content checksum differs from the block header's",
	  .lie2 = l2_isum },
	{ "index-content-size", "the index says 65637 content bytes, the blocks hold 65636", .lie2 = l2_icontent },
	{ "index-digest", "content checksum does not match the block checksums", .lie2 = l2_idigest },
	/* the footer */
	{ "footer-index-offset", "the footer places the index at 220 in a member of 315 bytes; it lies at 219",
	  .lie2 = l2_fioff },
	{ "footer-member-size", "the footer places the index at 219 in a member of 316 bytes; it lies at 219",
	  .lie2 = l2_fsize },
	{ "end-magic", "no end magic where the footer should be", .post = p_end_magic },
	/* cut short, or more after it */
	{ "truncated-after-header", "the archive ends inside a block header", .post = p_cut_header },
	{ "truncated-block-header", "the archive ends inside a block header", .post = p_cut_bhead },
	{ "truncated-payload", "the archive ends inside a block's payload", .post = p_cut_payload },
	{ "truncated-index", "the archive ends inside the index or footer", .post = p_cut_index },
	{ "truncated-footer", "the archive ends inside the index or footer", .post = p_cut_footer },
	{ "trailing-bytes", "bytes after the archive's end that are not another archive", .post = p_trailing },
	{ "trailing-garbage", "bytes after the archive's end that are not another archive",
	  .post = p_trailing100 },
	/* payloads and streams */
	{ "payload-checksum", "block 0: payload checksum mismatch", .post = p_payload },
	{ "zstd-truncated", "block 0: lit stream: zstd:", .edit = e_zstd_cut },
	{ "zstd-size", "block 0: lit stream's frames hold 1000 bytes, not 1001", .edit = e_zstd_lit, .lie = l_zstd_size },
	{ "zstd-skippable", "block 0: lit stream: a skippable zstd frame", .edit = e_zstd_skippable },
	{ "zstd-skippable-after", "block 0: lit stream: a skippable zstd frame", .edit = e_zstd_skippable_after },
	{ "zstd-no-size", "block 0: lit stream: a zstd frame without its size, or with a dictionary",
	  .edit = e_zstd_nosize },
	{ "zstd-dictionary", "block 0: lit stream: a zstd frame without its size, or with a dictionary",
	  .edit = e_zstd_dict },
	/* tokens */
	{ "source-before-output", "block 0: token 0: match source before the start of the output",
	  .edit = e_before_output },
	{ "repeat-without-offset", "block 0: token 0: repeat offset before any offset in the block",
	  .edit = e_repeat_first },
	{ "window-too-far", "block 1: token 0: match reaches back further than the window", .edit = e_window_far },
	{ "match-past-block", "block 1: token 0: match past the end of the block", .edit = e_past_block },
	{ "literals-past-stream", "block 0: token 0: literal run past the end of the lit stream",
	  .edit = e_lit_past_stream },
	{ "literals-past-block", "block 1: token 1: literal run past the end of the block", .edit = e_lit_past_block },
	{ "len-unread", "block 0: 1 unread bytes in the len stream", .edit = e_len_unread },
	{ "off-unread", "block 0: 1 unread bytes in the off stream", .edit = e_off_unread },
	{ "off-missing", "block 0: 1 explicit offsets but an off stream of 0 bytes", .edit = e_off_short },
	{ "off-inside", "block 1: token 0: off stream ends inside an offset", .edit = e_off_inside },
	{ "literals-left", "block 0: 1 literal bytes left for the 0 bytes after the last token", .edit = e_lit_left },
	{ "varint-overlong-literal", "block 0: token 0: bad literal length (len stream)",
	  .edit = e_overlong_lit },
	{ "varint-overflow", "block 1: token 0: bad match length (len stream)", .edit = e_varint_overflow },
	{ "varint-overlong", "block 0: token 0: bad match length (len stream)", .edit = e_overlong },
	{ "varint-overlong-10", "block 1: token 0: bad match length (len stream)", .edit = e_overlong10 },
	{ "length-2e40", "block 1: token 0: bad match length (len stream)", .edit = e_huge_len },
	{ "length-byte-over-block", "block 1: token 0: bad match length (len stream)", .edit = e_len_byte_over_block },
	{ "content-checksum", "block 1: content checksum mismatch (decoded bytes differ)", .lie = l_content_sum },
	/* a damaged second member after a good one */
	{ "second-header-checksum", "header checksum mismatch", .post = p_header_sum, .second = 1 },
	{ "second-payload-checksum", "block 0: payload checksum mismatch", .post = p_payload, .second = 1 },
	{ "second-window-too-far", "block 1: token 0: match reaches back further than the window",
	  .edit = e_window_far, .second = 1 },
	{ "second-source-before-output", "block 0: token 0: match source before the start of the output",
	  .edit = e_before_output, .second = 1 },
	{ "second-truncated-index", "the archive ends inside the index or footer", .post = p_cut_index,
	  .second = 1 },
};

/* One member, as the case says, at out; returns its size. */
static size_t member(const bad *c, uint8_t *out)
{
	arc a;
	base(&a);
	if (c->edit)
		c->edit(&a);
	layout_blocks(&a);
	if (c->lie)
		c->lie(&a);
	layout_index(&a);
	if (c->lie2)
		c->lie2(&a);
	size_t n = serialize(&a, out);
	return c->post ? c->post(out, n) : n;
}

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
		static const bad good = { .name = "good", .expect = "OK" };
		size_t n = 0;
		if (cases[i].second)
			n = member(&good, buf);
		n += member(&cases[i], buf + n);
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
