/*
 * forge_good.c - writes the golden good archives of tests/golden-good/
 * (format version 5) from SPEC.md alone.
 *
 * Everything a member holds is made here: the tokens and the content they
 * decode to, each match's dependency level and the chained count (section
 * 6.1), the cmd, lit, len and off streams (section 6), codec 2's part
 * lists, tables and lanes (section 5.2), block headers, index and footer.
 * Only XXH3 (testutil) and zstd frames (libzstd) come from elsewhere; the
 * library's writer is not used.  So an encoder and a decoder changed
 * together in a way the format does not allow cannot pass unseen: the
 * saved files must still decode to the saved contents.
 *
 * The cases use forms the reference encoder writes rarely or never:
 * every literal and match length code with 1- to 3-byte extensions,
 * offset heads of 0 to 7 low bytes (the longer ones not the shortest
 * encoding, which section 6 allows), overlapping and chained matches,
 * sources exactly one window back, at the member's first byte and across
 * blocks, blocks without tokens or without a literal tail, codec-2 parts
 * of every kind (up to four a stream, up to 16 tables, one-symbol tables,
 * code lengths 1 to 10, several segments, empty lanes), zstd streams in
 * one and two frames, and members of other block sizes, with a depth
 * limit, without a stated size and without blocks, back to back.
 *
 * usage: forge_good DIR   writes DIR/NAME.wlz and DIR/NAME.out (its
 *                         content) for every case, and DIR/EXPECTED: per
 *                         case NAME, content size, XXH3-64 of the content.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAXCONTENT ((size_t)1 << 20)    /* a file's content, all members */
#define MAXFILE ((size_t)2 << 20)
#define MAXTOK 16384                    /* tokens a block */
#define MAXBLK 64                       /* blocks a member */

enum { CMD, LIT, LEN, OFF, NS };
/* How a stream is stored: raw; zstd in one frame; zstd in two (an off
 * stream's heads then its low bytes, any other stream cut in halves);
 * codec 2 with the parts of the store's list. */
enum { S_RAW, S_ZSTD, S_ZSTD2, S_C2 };
enum { P_RAW, P_RUN, P_HUF };
/* A huf part's next tables: the symbol's rank among those present mod T,
 * or table 1 after the part's lowest symbol and table 0 after the rest. */
enum { N_RANK, N_LOWEST };

typedef struct part {
	int kind;
	size_t n;               /* symbols; 0: the rest of the stream */
	unsigned seg_log, T, next;
} part;

typedef struct store {
	int how;
	int np;
	part p[4];
} store;

typedef struct wtok {
	uint32_t lit, mlen;
	uint64_t dist;
	int rep;
	int k;                  /* the head's low bytes; -1: as few as fit */
} wtok;

typedef struct writer {
	uint8_t *file;
	size_t at;
	/* the member */
	size_t mstart;
	unsigned block_log, window_log, depth;
	int stated;
	uint8_t *content, *map;
	uint64_t pos;
	uint64_t nb, boff[MAXBLK], bsum[MAXBLK];
	/* the block */
	uint64_t bstart, prev;
	wtok tok[MAXTOK];
	size_t nt;
	uint8_t lit[(size_t)1 << 17];
	size_t nlit, pend;      /* literals, and those not yet in a token */
	unsigned max_level;
	uint32_t chained;
	/* every member's content, back to back */
	uint8_t *all;
	size_t nall;
} writer;

static const char *g_case = "";

static void die(const char *msg)
{
	fprintf(stderr, "forge_good: %s: %s\n", g_case, msg);
	exit(1);
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static size_t varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

/* ------------------------------------------------------------- members */

static void member_begin(writer *w, unsigned block_log, unsigned window_log, unsigned depth, int stated)
{
	w->mstart = w->at;
	w->block_log = block_log;
	w->window_log = window_log;
	w->depth = depth;
	w->stated = stated;
	w->content = w->all + w->nall;
	w->map = calloc(1, MAXCONTENT);
	if (!w->map)
		die("out of memory");
	w->pos = 0;
	w->nb = 0;
	w->at += 32;  /* the header, once the size is known */
}

static void block_begin(writer *w)
{
	if (w->pos & (((uint64_t)1 << w->block_log) - 1))
		die("a block after a short one");
	w->bstart = w->pos;
	w->prev = 0;
	w->nt = w->nlit = w->pend = 0;
	w->max_level = 0;
	w->chained = 0;
}

/* Literal bytes: the next token's run, or the block's tail. */
static void lits(writer *w, const uint8_t *s, size_t n)
{
	if (w->pos + n > MAXCONTENT - w->nall || w->nlit + n > sizeof(w->lit))
		die("case too large");
	memcpy(w->lit + w->nlit, s, n);
	memcpy(w->content + w->pos, s, n);
	memset(w->map + w->pos, 0, n);
	w->nlit += n;
	w->pend += n;
	w->pos += n;
}

/* A match after the pending literals: decoded as section 6 says, one byte
 * at a time, and given its level (section 6.1). */
static void match(writer *w, uint32_t mlen, uint64_t dist, int k)
{
	if (w->nt == MAXTOK || mlen < 3 || dist == 0 || dist > w->pos || dist > (uint64_t)1 << w->window_log) {
		fprintf(stderr, "forge_good: token %zu at %llu: mlen %u dist %llu\n", w->nt,
			(unsigned long long)w->pos, mlen, (unsigned long long)dist);
		die("a case breaks a token rule");
	}
	const uint64_t p = w->pos, src = p - dist;
	if (p + mlen > MAXCONTENT - w->nall)
		die("case too large");
	unsigned lv = 0;
	int chained = 0;
	for (uint64_t q = src; q < src + mlen && q < p; q++) {
		lv = w->map[q] > lv ? w->map[q] : lv;
		chained |= q >= w->bstart && w->map[q] != 0;
	}
	for (uint32_t j = 0; j < mlen; j++) {
		w->content[p + j] = w->content[src + j];
		w->map[p + j] = (uint8_t)(lv + 1 > 255 ? 255 : lv + 1);
	}
	w->pos += mlen;
	w->max_level = lv > w->max_level ? lv : w->max_level;
	w->chained += (uint32_t)chained;
	w->tok[w->nt++] = (wtok){ (uint32_t)w->pend, mlen, dist, dist == w->prev, k };
	w->pend = 0;
	w->prev = dist;
}

/* --------------------------------------------------------------- codec 2 */

/* Code lengths of one table from counts c (k of them non-zero): Huffman's,
 * or, when that is deeper than 10 bits, d - 1 and d bits (complete). */
static void table_lengths(const uint64_t c[256], uint8_t len[256])
{
	uint64_t wt[511];
	int parent[511], alive[511], sym[256];
	unsigned k = 0, nn;
	memset(len, 0, 256);
	for (unsigned s = 0; s < 256; s++)
		if (c[s])
			sym[k] = (int)s, wt[k] = c[s], alive[k] = 1, k++;
	if (k == 1) {
		len[sym[0]] = 1;
		return;
	}
	for (nn = k; nn < 2 * k - 1; nn++) {
		int a = -1, b = -1;
		for (unsigned i = 0; i < nn; i++) {
			if (!alive[i])
				continue;
			if (a < 0 || wt[i] < wt[a])
				b = a, a = (int)i;
			else if (b < 0 || wt[i] < wt[b])
				b = (int)i;
		}
		alive[a] = alive[b] = 0;
		parent[a] = parent[b] = (int)nn;
		wt[nn] = wt[a] + wt[b];
		alive[nn] = 1;
	}
	unsigned deepest = 0;
	for (unsigned i = 0; i < k; i++) {
		unsigned d = 0;
		for (unsigned x = i; x != 2 * k - 2; x = (unsigned)parent[x])
			d++;
		len[sym[i]] = (uint8_t)d;
		deepest = d > deepest ? d : deepest;
	}
	if (deepest <= 10)
		return;
	unsigned d = 1;
	while ((1u << d) < k)
		d++;
	for (unsigned i = 0; i < k; i++)
		len[sym[i]] = (uint8_t)(i < (1u << d) - k ? d - 1 : d);
}

/* Canonical codes by (length, symbol), reversed for a stream read least
 * significant bit first. */
static void canonical(const uint8_t len[256], uint32_t code[256])
{
	uint32_t c = 0;
	unsigned prev = 0;
	int first = 1;
	for (unsigned l = 1; l <= 10; l++)
		for (unsigned s = 0; s < 256; s++) {
			if (len[s] != l)
				continue;
			c = first ? 0 : (c + 1) << (l - prev);
			first = 0;
			prev = l;
			uint32_t r = 0;
			for (unsigned b = 0; b < l; b++)
				r |= (c >> b & 1) << (l - 1 - b);
			code[s] = r;
		}
}

/* A huf body (section 5.2) of s[0..n). */
static size_t huf_body(uint8_t *o, const uint8_t *s, size_t n, const part *pt)
{
	const unsigned T = pt->T;
	uint8_t sym[256], next[256] = {0}, len[16][256];
	uint32_t code[16][256] = {{0}};
	unsigned k = 0;
	for (unsigned v = 0; v < 256; v++)
		if (memchr(s, (int)v, n))
			sym[k++] = (uint8_t)v;
	if (k < 2 || T < 1 || T > 16)
		die("a huf part needs two symbols and 1 to 16 tables");
	for (unsigned i = 0; i < k; i++)
		next[sym[i]] = (uint8_t)(T == 1 ? 0 : pt->next == N_RANK ? i % T : i == 0);
	/* Each table's counts as the lanes will use it. */
	const size_t S = (size_t)1 << pt->seg_log, G = (n + S - 1) / S;
	static uint64_t cnt[16][256];
	memset(cnt, 0, sizeof(cnt));
	for (size_t g = 0; g < G; g++) {
		const size_t m = g + 1 < G ? S : n - g * S, q = (m + 31) / 32;
		for (size_t l = 0; l < 32; l++) {
			unsigned t = 0;
			for (size_t j = l * q; j < (l + 1) * q && j < m; j++) {
				cnt[t][s[g * S + j]]++;
				t = next[s[g * S + j]];
			}
		}
	}
	for (unsigned t = 0; t < T; t++) {
		int any = 0;
		for (unsigned v = 0; v < 256; v++)
			any |= cnt[t][v] != 0;
		if (!any)
			cnt[t][sym[0]] = 1;  /* a table nothing reads: one symbol */
		table_lengths(cnt[t], len[t]);
		canonical(len[t], code[t]);
	}
	uint8_t *p = o;
	*p++ = (uint8_t)pt->seg_log;
	*p++ = (uint8_t)T;
	memset(p, 0, 32);
	for (unsigned i = 0; i < k; i++)
		p[sym[i] >> 3] |= (uint8_t)(1u << (sym[i] & 7));
	p += 32;
	size_t nn = 0;
	uint8_t nib[17 * 256];
	if (T > 1)
		for (unsigned i = 0; i < k; i++)
			nib[nn++] = next[sym[i]];
	for (unsigned t = 0; t < T; t++)
		for (unsigned i = 0; i < k; i++)
			nib[nn++] = len[t][sym[i]];
	memset(p, 0, (nn + 1) / 2);
	for (size_t i = 0; i < nn; i++)
		p[i / 2] |= (uint8_t)(nib[i] << 4 * (i & 1));
	p += (nn + 1) / 2;
	uint8_t *sizes = p;
	p += 4 * G;
	for (size_t g = 0; g < G; g++) {
		const size_t m = g + 1 < G ? S : n - g * S, q = (m + 31) / 32;
		uint8_t *seg = p;
		p += 62;
		for (size_t l = 0; l < 32; l++) {
			uint8_t *lane = p;
			uint64_t acc = 0;
			unsigned nb = 0, t = 0;
			for (size_t j = l * q; j < (l + 1) * q && j < m; j++) {
				const uint8_t v = s[g * S + j];
				unsigned kt = 0;
				for (unsigned x = 0; x < 256; x++)
					kt += len[t][x] != 0;
				if (!len[t][v])
					die("a symbol without a code");
				acc |= (uint64_t)code[t][v] << nb;
				nb += kt == 1 ? 0 : len[t][v];
				for (; nb >= 8; nb -= 8, acc >>= 8)
					*p++ = (uint8_t)acc;
				t = next[v];
			}
			if (nb)
				*p++ = (uint8_t)acc;
			if (l < 31) {
				if (p - lane > 65535)
					die("a lane over 64 KiB");
				put16(seg + 2 * l, (unsigned)(p - lane));
			}
		}
		tu_wr32(sizes + 4 * g, (uint32_t)(p - seg));
	}
	return (size_t)(p - o);
}

/* A codec-2 stream (section 5.2) of s[0..n) with the store's parts. */
static size_t codec2(uint8_t *o, const uint8_t *s, size_t n, const store *st)
{
	static uint8_t body[(size_t)1 << 18];
	size_t h = 0, nb = 0, at = 0;
	o[h++] = (uint8_t)st->np;
	for (int i = 0; i < st->np; i++) {
		const part *pt = &st->p[i];
		const size_t m = pt->n ? pt->n : n - at;
		if (m == 0 || at + m > n || (i + 1 == st->np && at + m != n))
			die("parts do not cover the stream");
		o[h++] = (uint8_t)pt->kind;
		h += varint(o + h, m);
		if (pt->kind == P_RAW) {
			memcpy(body + nb, s + at, m);
			nb += m;
		} else if (pt->kind == P_RUN) {
			for (size_t j = 1; j < m; j++)
				if (s[at + j] != s[at])
					die("a run part of unequal bytes");
			body[nb++] = s[at];
		} else {
			const size_t c = huf_body(body + nb, s + at, m, pt);
			h += varint(o + h, c);
			nb += c;
		}
		at += m;
	}
	memcpy(o + h, body, nb);
	return h + nb;
}

/* ------------------------------------------------------------- streams */

static size_t zstd_frames(uint8_t *o, const uint8_t *s, size_t n, size_t cut)
{
	size_t at = 0;
	const size_t edge[3] = { 0, cut ? cut : n, n };
	for (int i = 0; i < 2; i++) {
		if (edge[i + 1] == edge[i])
			continue;
		const size_t r = ZSTD_compress(o + at, ZSTD_compressBound(n), s + edge[i], edge[i + 1] - edge[i], 19);
		if (ZSTD_isError(r))
			die("zstd failed");
		at += r;
	}
	return at;
}

/* Ends the block: tokens to streams, the streams stored as st says, the
 * block header and payload written. */
static void block_end(writer *w, const store st[NS])
{
	static uint8_t raw[NS][(size_t)1 << 18], lows[(size_t)1 << 17], pay[(size_t)1 << 19];
	size_t n[NS] = { 0 }, nlows = 0, heads = 0;
	for (size_t i = 0; i < w->nt; i++) {
		const wtok *t = &w->tok[i];
		const unsigned lc = t->lit < 7 ? t->lit : 7, m = t->mlen - 3, mc = m < 15 ? m : 15;
		raw[CMD][n[CMD]++] = (uint8_t)(lc << 5 | (unsigned)t->rep << 4 | mc);
		if (lc == 7)
			n[LEN] += varint(raw[LEN] + n[LEN], t->lit - 7);
		if (mc == 15)
			n[LEN] += varint(raw[LEN] + n[LEN], m - 15);
		if (t->rep)
			continue;
		const uint64_t x = t->dist - 1;
		unsigned k = 0;
		while ((x >> 8 * k) >= 32)
			k++;
		if (t->k >= 0) {
			if ((unsigned)t->k < k || t->k > 7)
				die("an offset head of too few low bytes");
			k = (unsigned)t->k;
		}
		raw[OFF][n[OFF]++] = (uint8_t)(k << 5 | x >> 8 * k);
		for (unsigned j = 0; j < k; j++)
			lows[nlows++] = (uint8_t)(x >> 8 * j);
		heads++;
	}
	memcpy(raw[OFF] + n[OFF], lows, nlows);
	n[OFF] += nlows;
	memcpy(raw[LIT], w->lit, w->nlit);
	n[LIT] = w->nlit;

	const uint32_t L = (uint32_t)(w->pos - w->bstart);
	if (L == 0 || L > (uint32_t)1 << w->block_log || w->nb == MAXBLK)
		die("a block of bad length");
	uint8_t *h = w->file + w->at;
	memset(h, 0, 80);
	memcpy(h, "wlzB", 4);
	tu_wr32(h + 4, L);
	tu_wr32(h + 8, (uint32_t)w->nt);
	h[12] = (uint8_t)(w->max_level > 255 ? 255 : w->max_level);
	const uint32_t ch = w->chained < 0xFFFFFF ? w->chained : 0xFFFFFF;
	h[13] = (uint8_t)ch;
	h[14] = (uint8_t)(ch >> 8);
	h[15] = (uint8_t)(ch >> 16);
	if (w->depth != 255 && w->max_level > w->depth)
		die("a block over the depth limit");
	size_t P = 0;
	for (int s = 0; s < NS; s++) {
		int how = n[s] ? st[s].how : S_RAW;
		size_t c;
		if (how == S_RAW) {
			memcpy(pay + P, raw[s], n[s]);
			c = n[s];
		} else if (how == S_C2) {
			c = codec2(pay + P, raw[s], n[s], &st[s]);
		} else {
			c = zstd_frames(pay + P, raw[s], n[s], how == S_ZSTD ? 0 : s == OFF && nlows ? heads : n[s] / 2);
		}
		if (how != S_RAW && c >= n[s]) {
			fprintf(stderr, "forge_good: block %llu stream %d: coded %zu bytes, raw %zu\n",
				(unsigned long long)w->nb, s, c, n[s]);
			die("a coded stream no smaller than raw");
		}
		h[16 + s] = (uint8_t)(how == S_RAW ? 0 : how == S_C2 ? 2 : 1);
		tu_wr32(h + 20 + 8 * s, (uint32_t)c);
		tu_wr32(h + 24 + 8 * s, (uint32_t)n[s]);
		P += c;
	}
	const uint64_t sum = tu_xxh3(w->content + w->bstart, L);
	tu_wr64(h + 56, sum);
	tu_wr64(h + 64, tu_xxh3(pay, P));
	tu_wr64(h + 72, tu_xxh3(h, 72));
	w->boff[w->nb] = w->at - w->mstart;
	w->bsum[w->nb++] = sum;
	memcpy(w->file + w->at + 80, pay, P);
	w->at += 80 + P;
}

static void member_end(writer *w, unsigned level)
{
	uint8_t *hd = w->file + w->mstart;
	memset(hd, 0, 32);
	hd[0] = 0x89;
	memcpy(hd + 1, "WLZ", 3);
	put16(hd + 4, 5);
	hd[8] = (uint8_t)w->block_log;
	hd[9] = (uint8_t)level;
	hd[10] = (uint8_t)w->depth;
	hd[11] = (uint8_t)w->window_log;
	tu_wr64(hd + 16, w->stated ? w->pos : UINT64_MAX);
	tu_wr64(hd + 24, tu_xxh3(hd, 24));
	const uint64_t ioff = w->at - w->mstart;
	uint8_t *x = w->file + w->at, sums[8 * MAXBLK];
	memset(x, 0, 16);
	memcpy(x, "wlzI", 4);
	tu_wr64(x + 8, w->nb);
	for (uint64_t b = 0; b < w->nb; b++) {
		tu_wr64(x + 16 + 16 * b, w->boff[b]);
		tu_wr64(x + 24 + 16 * b, w->bsum[b]);
		tu_wr64(sums + 8 * b, w->bsum[b]);
	}
	const size_t e = 16 + 16 * (size_t)w->nb;
	tu_wr64(x + e, w->pos);
	tu_wr64(x + e + 8, tu_xxh3(sums, 8 * (size_t)w->nb));
	tu_wr64(x + e + 16, tu_xxh3(x, e + 16));
	w->at += e + 24;
	tu_wr64(w->file + w->at, ioff);
	tu_wr64(w->file + w->at + 8, w->at + 24 - w->mstart);
	memcpy(w->file + w->at + 16, "wlzEND\r\n", 8);
	w->at += 24;
	w->nall += w->pos;
	free(w->map);
	w->map = NULL;
}

/* --------------------------------------------------------------- cases */

static const store RAW4[NS] = { { S_RAW, 0, { { 0 } } }, { S_RAW, 0, { { 0 } } }, { S_RAW, 0, { { 0 } } },
				{ S_RAW, 0, { { 0 } } } };

static tu_rng g_rng;
static uint32_t below(uint32_t n) { return (uint32_t)tu_rng_below(&g_rng, n); }

/* n bytes of a skewed alphabet: symbol i of 12 about twice as often as
 * i + 1, so that Huffman codes run from 1 to 10 bits and over. */
static void skewed(uint8_t *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned s = 0;
		while (s < 11 && below(2))
			s++;
		o[i] = (uint8_t)('a' + s);
	}
}

static void some_lits(writer *w, size_t n)
{
	uint8_t b[4096];
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)('A' + below(26));
	lits(w, b, n);
}

/* Every token form, raw streams: 4 blocks of 2^16, window 2^17. */
static void case_tokens(writer *w)
{
	member_begin(w, 16, 17, 255, 1);
	block_begin(w);
	some_lits(w, 40);
	match(w, 3, 1, -1);                     /* lit code 7 + 33; a run: dist 1 < mlen */
	for (unsigned l = 0; l <= 7; l++) {     /* lit codes 0..7 */
		some_lits(w, l);
		match(w, 3 + l, 1 + below((uint32_t)(w->pos < 200 ? w->pos : 200)), -1);
	}
	for (unsigned m = 3; m <= 18; m++)      /* match codes 0..15 */
		match(w, m, 1 + below((uint32_t)(w->pos < 200 ? w->pos : 200)), -1);
	some_lits(w, 134);                      /* 7 + 127: one extension byte */
	match(w, 145, 13, -1);                  /* 15 + 127 */
	some_lits(w, 135);                      /* 7 + 128: two bytes */
	match(w, 146, 7, -1);                   /* 15 + 128 */
	match(w, 9, 7, -1);                     /* a repeat (same distance, no literals) */
	some_lits(w, 2);
	match(w, 4, 7, -1);                     /* another repeat after literals */
	match(w, 20000, 300, -1);               /* a 3-byte extension; chained onto itself and earlier */
	match(w, 10, w->pos, -1);               /* the member's first byte */
	for (int k = 2; k <= 7; k++) {          /* heads of 2..7 low bytes for short distances */
		some_lits(w, 1);
		match(w, 6, 11 + (uint64_t)k, k);
	}
	match(w, 30, 1000, -1);                 /* 1 low byte */
	match(w, 30, 9000, -1);                 /* 2 low bytes */
	match(w, 40, 20000, 3);                 /* 2 would do: 3 */
	/* a chain: each copy reads the one before (levels 1, 2, 3, ...) */
	for (int i = 0; i < 6; i++)
		match(w, 50, 50, -1);
	some_lits(w, 2000);
	const uint64_t left = ((uint64_t)1 << 16) - w->pos - 100;
	match(w, (uint32_t)left, 4321, -1);
	some_lits(w, 100);                      /* a literal tail */
	block_end(w, RAW4);

	block_begin(w);
	match(w, 30, 10, -1);                   /* no literals first; reads block 0's end and itself */
	some_lits(w, 7);                        /* lit code 7, extension 0 */
	match(w, 18, 60000, -1);                /* match code 15, extension 0; into block 0 */
	match(w, 100, w->pos - ((uint64_t)1 << 16) + 20, -1); /* straddles the block edge */
	for (int i = 0; i < 300; i++) {
		some_lits(w, below(9));
		match(w, 3 + below(40), 1 + below((uint32_t)(w->pos - 1)), -1);
	}
	match(w, (uint32_t)(((uint64_t)2 << 16) - w->pos), 65536, -1);  /* ends the block: no tail */
	block_end(w, RAW4);

	block_begin(w);
	some_lits(w, 5);
	match(w, 1000, (uint64_t)1 << 17, -1);  /* exactly the window back */
	for (int i = 0; i < 100; i++) {
		some_lits(w, below(3));
		match(w, 3 + below(400), 1 + below(1u << 17), -1);
	}
	match(w, (uint32_t)(((uint64_t)3 << 16) - w->pos - 5), 3, -1);
	some_lits(w, 5);
	block_end(w, RAW4);

	block_begin(w);                         /* a short last block without tokens */
	some_lits(w, 3000);
	block_end(w, RAW4);
	member_end(w, 3);
}

/* Codec 2's parts: one block of 2^16 whose lit stream is four parts (huf
 * over three segments with a one-symbol table, a run, raw, a huf part of
 * 20 symbols: 12 empty lanes); cmd one huf part of one table. */
static void case_parts(writer *w)
{
	static uint8_t s[12000];
	member_begin(w, 16, 16, 255, 1);
	block_begin(w);
	skewed(s, 9000);
	memset(s + 9000, 'Z', 600);
	tu_rng_fill(&g_rng, s + 9600, 300);
	skewed(s + 9900, 20);
	/* every 'a' (the part's lowest symbol) followed by 'b': table 1 of the
	 * first part then codes 'b' alone, in no bits */
	for (size_t i = 0; i + 1 < 9000; i++)
		if (s[i] == 'a')
			s[i + 1] = 'b';
	size_t at = 0;
	while (at < 9920) {
		size_t n = below(2) ? 25 : 2 + below(5);
		n = at + n <= 9920 ? n : 9920 - at;
		lits(w, s + at, n);
		at += n;
		if (at < 9920)
			match(w, below(2) ? 100 : 3 + below(12), 1 + below((uint32_t)w->pos), -1);
	}
	match(w, (uint32_t)(((uint64_t)1 << 16) - w->pos), 1000, -1);
	store st[NS] = { { S_C2, 1, { { P_HUF, 0, 12, 1, N_RANK } } },
			 { S_C2, 4, { { P_HUF, 9000, 12, 2, N_LOWEST }, { P_RUN, 600, 0, 0, 0 }, { P_RAW, 300, 0, 0, 0 },
				      { P_HUF, 0, 12, 3, N_RANK } } },
			 { S_RAW, 0, { { 0 } } },
			 { S_RAW, 0, { { 0 } } } };
	block_end(w, st);
	member_end(w, 5);
}

/* Many short tokens up to end, so that every stream is worth coding.  The
 * same block of 2^17 twice: with codec-2 streams (seg_log 12 and 13, 1 to
 * 16 tables, an off stream in two parts: heads, raw low bytes) and with
 * zstd streams (the off stream's heads and low bytes, the literals'
 * halves, in two frames each). */
static void many_tokens(writer *w, uint64_t end)
{
	uint8_t s[512];   /* (the tail: at most 400 bytes) */
	while (w->pos < end - 400) {
		const size_t n = below(4);
		skewed(s, n);
		lits(w, s, n);
		const uint32_t m = below(8) ? 3 + below(12) : 18 + below(60);
		const uint64_t d = below(4) ? 1 + below(64) : 1 + below((uint32_t)(w->pos < 60000 ? w->pos : 60000));
		match(w, m, d <= w->pos ? d : w->pos, -1);
	}
	const size_t left = (size_t)(end - w->pos);
	skewed(s, left);
	lits(w, s, left);
}

static void case_streams(writer *w, int zstd)
{
	static uint8_t start[512];
	member_begin(w, 17, 17, 255, 1);
	block_begin(w);
	skewed(start, sizeof(start));
	lits(w, start, sizeof(start));
	many_tokens(w, (uint64_t)1 << 17);
	if (zstd) {
		const store st[NS] = { { S_ZSTD, 0, { { 0 } } }, { S_ZSTD2, 0, { { 0 } } }, { S_RAW, 0, { { 0 } } },
				       { S_ZSTD2, 0, { { 0 } } } };
		block_end(w, st);
	} else {
		size_t heads = 0;
		for (size_t i = 0; i < w->nt; i++)
			heads += !w->tok[i].rep;
		const store st[NS] = { { S_C2, 1, { { P_HUF, 0, 12, 16, N_RANK } } },
				       { S_C2, 1, { { P_HUF, 0, 13, 4, N_RANK } } },
				       { S_C2, 1, { { P_HUF, 0, 12, 1, N_RANK } } },
				       { S_C2, 2, { { P_HUF, heads, 12, 2, N_RANK }, { P_RAW, 0, 0, 0, 0 } } } };
		block_end(w, st);
	}
	member_end(w, 9);
}

/* Three members back to back: 2^17 blocks under depth 2 (levels 0 to 2,
 * codec 2), an empty member, and one of an unstated size whose match
 * reads its own first byte (positions count from each member's start). */
static void case_members(writer *w)
{
	member_begin(w, 17, 18, 2, 1);
	block_begin(w);
	some_lits(w, 3000);
	match(w, 3000, 3000, -1);               /* level 0 */
	match(w, 6000, 6000, -1);               /* level 1 */
	match(w, 12000, 12000, -1);             /* level 2 */
	static uint8_t s[8192];
	skewed(s, sizeof(s));
	lits(w, s, sizeof(s));
	match(w, (uint32_t)(((uint64_t)1 << 17) - w->pos), 8192, -1);
	const store st[NS] = { { S_RAW, 0, { { 0 } } }, { S_C2, 1, { { P_HUF, 0, 14, 1, N_RANK } } },
			       { S_RAW, 0, { { 0 } } }, { S_RAW, 0, { { 0 } } } };
	block_end(w, st);
	block_begin(w);
	match(w, 70000, ((uint64_t)1 << 17) - 24000, -1);  /* level 1: block 0's literals and last match */
	match(w, 1000, 1000, -1);               /* level 2, chained */
	some_lits(w, 10);
	block_end(w, RAW4);
	member_end(w, 19);

	member_begin(w, 16, 16, 255, 1);        /* no blocks */
	member_end(w, 1);

	member_begin(w, 16, 16, 255, 0);
	block_begin(w);
	some_lits(w, 16);
	match(w, 500, 16, -1);
	match(w, 7, w->pos, -1);                /* this member's first byte */
	some_lits(w, 1);
	block_end(w, RAW4);
	member_end(w, 2);
}

typedef struct gcase {
	const char *name;
	void (*make)(writer *w);
} gcase;

static void case_codec2(writer *w) { case_streams(w, 0); }
static void case_zstd(writer *w) { case_streams(w, 1); }

static const gcase cases[] = {
	{ "tokens", case_tokens },
	{ "parts", case_parts },
	{ "codec2", case_codec2 },
	{ "zstd", case_zstd },
	{ "members", case_members },
};

static void write_file(const char *dir, const char *name, const char *ext, const uint8_t *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		die("cannot write a file");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: forge_good DIR\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/EXPECTED", argv[1]);
	FILE *ex = fopen(path, "w");
	if (!ex)
		die("cannot write EXPECTED");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static writer w;
		w.file = calloc(1, MAXFILE);
		w.all = calloc(1, MAXCONTENT);
		if (!w.file || !w.all)
			die("out of memory");
		w.at = w.nall = 0;
		tu_rng_seed(&g_rng, 0x5EED0000u + i);
		g_case = cases[i].name;
		cases[i].make(&w);
		write_file(argv[1], cases[i].name, "wlz", w.file, w.at);
		write_file(argv[1], cases[i].name, "out", w.all, w.nall);
		fprintf(ex, "%s\t%zu\t%016llx\n", cases[i].name, w.nall, (unsigned long long)tu_xxh3(w.all, w.nall));
		free(w.file);
		free(w.all);
	}
	return fclose(ex) == 0 ? 0 : 1;
}
