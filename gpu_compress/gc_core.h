/*
 * gc_core.h - the GPU compressor's per-unit steps, shared by its CUDA
 * kernels (gc_kernels.cu) and its CPU reference (gc_ref.c).
 *
 * Every step works on one unit (a chunk, a block, a part, a segment) and
 * reads only what earlier steps left, so the kernels and the reference
 * produce the same bytes: a GPU archive can be checked byte for byte
 * against the reference, and the reference is tested (decoded by the CPU
 * decoder) on machines without a GPU.
 *
 * Pipeline, for an input of n bytes cut into blocks of B and parse chunks
 * of CH bytes (SPEC.md for every field written):
 *   near    per 256 KiB segment of a block, its table first filled from
 *           the 128 KiB before it, tiles of GC_TILE positions: each
 *           position's entry for its 4-byte hash, as the tiles before its
 *           own left it (distance, 16 bits); an entry is replaced only once it is
 *           GC_NEAR_KEEP bytes old, so that matches read a few anchors, not
 *           each the one before (chains of matches stay short)
 *   far     two tables of 2^far_log positions, keyed by a hash of GC_FK
 *           and of GC_FK_LONG bytes, holding each key's earliest position;
 *           only anchors (positions whose hash has two chosen bits clear,
 *           a quarter of them) are entered and looked up, so that both
 *           copies of a repeat use the same positions
 *   find    per position, the best of the run, near and far candidates
 *   parse   per chunk, greedy over those and the repeat offset; a match
 *           never crosses its chunk's end
 *   levels  dependency levels (SPEC.md 6.1) of every token in position
 *           order (on the GPU, chunks at once, each token waiting for its
 *           sources); a match whose level would pass the depth limit
 *           becomes literals
 *   streams per chunk counts, per block a scan, per chunk the bytes of
 *           cmd, lit, len and off (heads, then low bytes)
 *   codec 2 per part (cmd, lit, len, off heads, off low bytes) up to
 *           GC_TMAX tables chosen by the previous symbol, segments of
 *           2^14 symbols in 32 lanes
 */
#ifndef WLZ_GC_CORE_H
#define WLZ_GC_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/huf_cluster.h"

#ifdef __CUDACC__
#define GC_HD __host__ __device__ __forceinline__
#else
#define GC_HD static inline
#endif

#define GC_TILE 256          /* near finder: positions looked up before inserted */
#define GC_NEAR_KEEP 60000u  /* near finder: an entry stays until this old (short chains) */
#define GC_NEAR_SEG_LOG 18   /* near finder: a table a 256 KiB segment of a block, */
#define GC_NEAR_WARM 131072u /* filled first from the block's bytes this far before it */
#define GC_FK 12             /* far finder: bytes hashed (short keys) */
#define GC_FK_LONG 16        /* far finder: bytes hashed (long keys) */
#define GC_FAR_EMPTY 0xFFFFFFFFu
#define GC_FIND_MAX 64       /* finder: longest match measured; the parse goes on */
#define GC_LAZY_MARGIN 4     /* parse: score a match one symbol on must beat by */
#define GC_MAXBITS WLZ_HUF_LEN_MAX
#define GC_SEG_LOG 14        /* codec 2: symbols a segment */
#define GC_LANES 32
#define GC_PARTS 5           /* cmd, lit, len, off heads, off low bytes */
#define GC_DROPPED 0xFE      /* level of a match made literals */
#define GC_UNRESOLVED 0xFF
#define GC_MAX_DEPTH 200

/* Part kinds (SPEC.md 5.2) and what a part is when it is not stored. */
enum { GC_RAW = 0, GC_RUN = 1, GC_HUF = 2, GC_EMPTY = 3 };

typedef struct gc_geom {
	uint64_t n;          /* input bytes */
	uint64_t nblocks, nchunks;
	uint32_t block_log, chunk_log, cap;  /* cap: token slots a chunk */
	uint32_t near_log, far_log;
	uint32_t sym;        /* symbol size S: 1, 2 or 4 */
	uint32_t depth;      /* 0..GC_MAX_DEPTH */
	uint64_t window;     /* W */
	uint64_t raw_stride; /* raw stream bytes a block */
	uint32_t segmax;     /* segments a part at most */
} gc_geom;

/* A token: dist, then literal count (low 16 bits) and match length. */
typedef struct gc_tok {
	uint32_t dist;
	uint32_t lm;
} gc_tok;

/* Per chunk, after levels: what the block scan needs. */
typedef struct gc_cstat {
	uint32_t nk;         /* tokens kept */
	uint32_t lead;       /* bytes before the first kept token */
	uint32_t tail;       /* bytes after the last kept token (all if none) */
	uint32_t f_mlen, f_dist, last_dist;
	uint32_t lit;        /* literal bytes */
	uint32_t lenb, heads, lows;  /* len bytes, heads, low bytes: all but the first kept token's */
	uint32_t chained, maxlev;
	/* set by the block scan: */
	uint32_t carry_in, prev_in;
	uint32_t o_cmd, o_lit, o_len, o_head, o_low;
} gc_cstat;

typedef struct gc_part {
	uint32_t n;          /* symbols */
	uint32_t src;        /* offset in the block's raw streams */
	uint32_t c;          /* huf: body bytes */
	uint32_t dst;        /* body's offset in the payload */
	uint16_t k;          /* symbols present */
	uint8_t kind, stream;
} gc_part;

typedef struct gc_blk {
	uint32_t L, T, maxlev, chained;
	uint32_t H, lows, lenb, lit;
	uint32_t rsize[4], csize[4];
	uint8_t codec[4];
	uint32_t P;          /* payload bytes */
	gc_part part[GC_PARTS];
	uint64_t stage;      /* payload's offset in the (8-aligned) staging area */
	uint64_t final;      /* block header's offset in the member */
	uint64_t content_hash, payload_hash;
} gc_blk;

/* A part's code: up to GC_TMAX tables, the table after each symbol,
 * stored lengths (1 for a one-symbol table), bits written (0 there) and
 * bit-reversed codes. */
#define GC_TMAX 16
typedef struct gc_code {
	uint8_t T;
	uint8_t next[256];
	uint8_t len[GC_TMAX][256];
	uint8_t bits[GC_TMAX][256];
	uint16_t code[GC_TMAX][256];
} gc_code;

/* gc_part_code's scratch, in memory rather than on a GPU thread's stack. */
typedef struct gc_code_work {
	wlz_huf_cluster_work cw;
	uint64_t tot[WLZ_HUF_NCTX];
	uint8_t lc[GC_TMAX][256];
} gc_code_work;

/* Offsets of the raw streams in a block's raw area. */
GC_HD uint64_t gc_raw_cmd(const gc_geom *g) { (void)g; return 0; }
GC_HD uint64_t gc_raw_lit(const gc_geom *g) { return ((((uint64_t)1 << g->block_log) / 3 + 8) + 7) & ~(uint64_t)7; }
GC_HD uint64_t gc_raw_len(const gc_geom *g) { return gc_raw_lit(g) + ((uint64_t)1 << g->block_log); }
GC_HD uint64_t gc_raw_head(const gc_geom *g) { return gc_raw_len(g) + ((uint64_t)1 << g->block_log) / 8 + 64; }
GC_HD uint64_t gc_raw_low(const gc_geom *g) { return gc_raw_head(g) + ((uint64_t)1 << g->block_log) / 3 + 8; }
GC_HD uint64_t gc_raw_end(const gc_geom *g) { return gc_raw_low(g) + ((uint64_t)1 << g->block_log) / 2 + 64; }

/* Where chunk c and block b end in the input. */
GC_HD uint64_t gc_chunk_end(const gc_geom *g, uint64_t c)
{
	const uint64_t e = (c + 1) << g->chunk_log;
	return e < g->n ? e : g->n;
}

GC_HD uint64_t gc_block_end(const gc_geom *g, uint64_t b)
{
	const uint64_t e = (b + 1) << g->block_log;
	return e < g->n ? e : g->n;
}

/* Near segments a block: each one's table is filled from the
 * GC_NEAR_WARM bytes before it (those of its block), then looked up and
 * filled through it, so that segments run at once; a position can still
 * reach every near distance (at most 0xFFFF) of its block, though the
 * table a segment starts with (GC_NEAR_KEEP decides which entries stay)
 * is not the one a walk of the whole block would have had. */
GC_HD uint64_t gc_near_segs(const gc_geom *g)
{
	return g->block_log > GC_NEAR_SEG_LOG ? (uint64_t)1 << (g->block_log - GC_NEAR_SEG_LOG) : 1;
}

/* Segment k of block b: where its warm-up starts (*w), it starts (*s)
 * and it ends (*e); *s >= *e when it holds no byte. */
GC_HD void gc_near_seg(const gc_geom *g, uint64_t b, uint64_t k, uint64_t *w, uint64_t *s, uint64_t *e)
{
	const uint64_t bs = b << g->block_log, be = gc_block_end(g, b);
	const unsigned sl = g->block_log > GC_NEAR_SEG_LOG ? GC_NEAR_SEG_LOG : g->block_log;
	*s = bs + (k << sl);
	*e = *s + ((uint64_t)1 << sl) < be ? *s + ((uint64_t)1 << sl) : be;
	*w = *s - bs > GC_NEAR_WARM ? *s - GC_NEAR_WARM : bs;
}

/* Stream s (cmd, lit, len, off) holds parts [gc_first_part(s),
 * gc_first_part(s + 1)): the off stream its heads and low bytes. */
GC_HD unsigned gc_first_part(unsigned s) { return s < 4 ? s : GC_PARTS; }

/* ------------------------------------------------------------ bytes */

GC_HD uint32_t gc_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

GC_HD uint32_t gc_hash_near(const uint8_t *p, unsigned bits) { return (gc_rd32(p) * 2654435761u) >> (32 - bits); }

/* gc_far_key from the 16 bytes at p as four little-endian words (k_far
 * reads them as aligned words). */
GC_HD int64_t gc_far_key_w(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, unsigned bits, unsigned t)
{
	uint64_t x = ((uint64_t)x0 | (uint64_t)x1 << 32) * 0x9E3779B97F4A7C15ull;
	if (t)
		x += ((uint64_t)x2 | (uint64_t)x3 << 32) * 0xC2B2AE3D27D4EB4Full;
	else
		x += (uint64_t)x2;
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 32;
	if (x & 3)
		return -1;
	return (int64_t)(x >> (64 - bits)) + ((int64_t)t << bits);
}

/* Far table t's bucket for position p, or -1 when p is not its anchor:
 * table 0 keys GC_FK bytes (text repeats short phrases), table 1 (the
 * second half of the table) GC_FK_LONG (FASTQ reads overlap over long
 * runs, where a longer key finds the right earlier read). */
GC_HD int64_t gc_far_key(const uint8_t *p, unsigned bits, unsigned t)
{
	return gc_far_key_w(gc_rd32(p), gc_rd32(p + 4), gc_rd32(p + 8), t ? gc_rd32(p + 12) : 0, bits, t);
}

/* Bytes far table t's key reads. */
GC_HD unsigned gc_far_len(unsigned t) { return t ? GC_FK_LONG : GC_FK; }

GC_HD unsigned gc_varint_len(uint64_t v)
{
	unsigned b = 1;
	while (v >= 0x80)
		v >>= 7, b++;
	return b;
}

GC_HD uint8_t *gc_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Low bytes an explicit offset dist (at least 1) needs after its head
 * (SPEC.md 6): 5 bits in the head, then 8 a byte.  Compares, not a loop:
 * the finder and the parse ask it at every candidate. */
GC_HD unsigned gc_off_low(uint32_t dist)
{
	const uint32_t x = dist - 1;
	return (unsigned)(x >= (1u << 5)) + (x >= (1u << 13)) + (x >= (1u << 21)) + (x >= (1u << 29));
}

/* Bytes of the len stream a token takes. */
GC_HD unsigned gc_len_bytes(uint32_t lit, uint32_t mlen)
{
	return (lit >= 7 ? gc_varint_len(lit - 7) : 0) + (mlen - 3 >= 15 ? gc_varint_len(mlen - 3 - 15) : 0);
}

/* ------------------------------------------------------------ parse */

/* Shortest match worth an offset of k low bytes: with tables chosen by the
 * previous byte a literal costs a few bits (a FASTQ base about 2), so a
 * match must be long to pay for its offset (6 + 2k measured best of the
 * forms tried on Illumina and gcide: bench/host/issue17-gpu-compress.md). */
GC_HD uint32_t gc_min_match(unsigned k) { return 6 + 2 * k; }

/* Bytes in[p..] and in[s..] (s < p) have in common, at most max; p + max
 * never passes the input's end.  On the GPU four bytes at a time from
 * aligned words, one new word a side a step (the input starts on a
 * 16-byte boundary, so no word starts before it, and none reaches past
 * p + max). */
GC_HD uint32_t gc_match_len(const uint8_t *in, uint64_t p, uint64_t s, uint32_t max)
{
	uint32_t l = 0;
#ifdef __CUDA_ARCH__
	if (max >= 8) {
		const uint32_t *wa = (const uint32_t *)((uintptr_t)(in + p) & ~(uintptr_t)3);
		const uint32_t *wc = (const uint32_t *)((uintptr_t)(in + s) & ~(uintptr_t)3);
		const unsigned sa = (unsigned)((uintptr_t)(in + p) & 3) * 8, sc = (unsigned)((uintptr_t)(in + s) & 3) * 8;
		uint32_t a0 = wa[0], c0 = wc[0];
		/* step i reads words i and i + 1 of each side: bytes before
		 * p + l + 8 <= p + max */
		for (uint32_t i = 0; l + 8 <= max; i++) {
			const uint32_t a1 = wa[i + 1], c1 = wc[i + 1];
			const uint32_t x = __funnelshift_r(a0, a1, sa), y = __funnelshift_r(c0, c1, sc);
			if (x != y)
				return l + (__ffs(x ^ y) - 1) / 8;
			a0 = a1, c0 = c1;
			l += 4;
		}
	}
#endif
	while (l < max && in[p + l] == in[s + l])
		l++;
	return l;
}

/* A candidate's score: bytes it covers, less what its offset costs. */
GC_HD int32_t gc_score(uint32_t len, uint32_t d, uint32_t prev)
{
	return (int32_t)len * 4 - (d == prev ? 0 : 8 * (int32_t)(gc_off_low(d) + 1));
}

/* Whether a match of len at distance d is worth taking. */
GC_HD int gc_worth(uint32_t len, uint32_t d, uint32_t prev, uint32_t S)
{
	return len >= S && len >= (d == prev ? 3u : gc_min_match(gc_off_low(d)));
}

/* Candidate distance d at p for gc_find_pos, measured to at most
 * GC_FIND_MAX and never past end: kept in *best when worth taking and
 * scoring higher than the best so far (earlier candidates win ties). */
GC_HD void gc_find_try(const gc_geom *g, const uint8_t *in, uint64_t p, uint64_t end, uint32_t d, int32_t *best_sc,
		       uint32_t *best_len, uint32_t *best_d)
{
	const uint32_t S = g->sym;
	const uint32_t room = (uint32_t)(end - p) < GC_FIND_MAX ? (uint32_t)(end - p) : GC_FIND_MAX;
	uint32_t l = gc_match_len(in, p, p - d, room);
	l -= l % S;
	if (!gc_worth(l, d, 0, S))
		return;
	const int32_t sc = gc_score(l, d, 0);
	if (sc > *best_sc)
		*best_sc = sc, *best_len = l, *best_d = d;
}

/* The best match at position p by the near, far and run candidates (not
 * the repeat offset, which depends on the parse): its length, at most
 * GC_FIND_MAX and never past p's chunk, to *len (0: none; the near slot of
 * p, which it replaces) and its distance to *dist.  Every position at
 * once: the parse then only walks. */
GC_HD void gc_find_pos(const gc_geom *g, const uint8_t *in, const uint32_t *far, uint64_t p, uint16_t *len,
		       uint32_t *dist)
{
	const uint32_t S = g->sym;
	const uint64_t end = gc_chunk_end(g, p >> g->chunk_log);
	const int room = p + 4 <= end;
	const uint32_t nd = *len;
	uint32_t best_len = 0, best_d = 0, last = 0;
	int32_t best_sc = 0;
	unsigned nc = 0;  /* candidates so far (the last: last) */
	if (p >= S) {
		if (room)
			gc_find_try(g, in, p, end, S, &best_sc, &best_len, &best_d);
		nc++, last = S;
	}
	if (nd && nd != S) {
		if (room)
			gc_find_try(g, in, p, end, nd, &best_sc, &best_len, &best_d);
		nc++, last = nd;
	}
	/* the long key first: where both reach the finder's limit, it wins */
	for (unsigned t = 2; t-- > 0;)
		if (p + gc_far_len(t) <= g->n) {
			const int64_t h = gc_far_key(in + p, g->far_log, t);
			const uint32_t q = h < 0 ? GC_FAR_EMPTY : far[h];
			if (q != GC_FAR_EMPTY && q < p && p - q <= g->window && p - q != S && p - q != nd &&
			    (nc < 3 || p - q != last)) {
				if (room)
					gc_find_try(g, in, p, end, (uint32_t)(p - q), &best_sc, &best_len, &best_d);
				nc++, last = (uint32_t)(p - q);
			}
		}
	*len = (uint16_t)best_len;
	*dist = best_d;
}

/* The finder's results as the parse reads them: on the GPU eight
 * positions at a time (three vector loads), as a parse thread walks its
 * positions in order and each lone load would wait in turn.  Its layout
 * differs between the host and device passes: a local only. */
typedef struct gc_found {
	uint64_t base;  /* the positions held: [base, base + 8) */
#ifdef __CUDA_ARCH__
	uint4 l, d0, d1;
#endif
} gc_found;

#define GC_FOUND_NONE ((uint64_t)1 << 63)

/* The finder's length and distance at p (the GPU reads up to p + 7:
 * its arrays hold n + 16 entries). */
GC_HD void gc_found_at(const uint16_t *blen, const uint32_t *bdist, gc_found *f, uint64_t p, uint32_t *len,
		       uint32_t *dist)
{
#ifdef __CUDA_ARCH__
	if (p - f->base >= 8) {
		f->base = p & ~(uint64_t)7;
		f->l = *(const uint4 *)(blen + f->base);
		f->d0 = *(const uint4 *)(bdist + f->base);
		f->d1 = *(const uint4 *)(bdist + f->base + 4);
	}
	const unsigned i = (unsigned)(p - f->base), j = i & 3;
	const uint32_t lw = i < 4 ? (i < 2 ? f->l.x : f->l.y) : (i < 6 ? f->l.z : f->l.w);
	const uint4 q = i < 4 ? f->d0 : f->d1;
	*len = i & 1 ? lw >> 16 : lw & 0xFFFF;
	*dist = j < 2 ? (j ? q.y : q.x) : (j == 3 ? q.w : q.z);
#else
	(void)f;
	*len = blen[p];
	*dist = bdist[p];
#endif
}

/* The best match at p: the found one or the repeat offset; its score
 * (0 and *len 0: none). */
GC_HD int32_t gc_best_at(const gc_geom *g, const uint8_t *in, const uint16_t *blen, const uint32_t *bdist, gc_found *f,
			 uint64_t p, uint64_t ce, uint32_t prev, uint32_t *len, uint32_t *dist)
{
	const uint32_t S = g->sym;
	uint32_t best_len = 0, best_d = 0;
	int32_t best_sc = 0;
	if (prev && prev <= p) {
		uint32_t l = gc_match_len(in, p, p - prev, (uint32_t)(ce - p));
		l -= l % S;
		if (gc_worth(l, prev, prev, S))
			best_len = l, best_d = prev, best_sc = gc_score(l, prev, prev);
	}
	uint32_t l, d;
	gc_found_at(blen, bdist, f, p, &l, &d);
	if (l && d != prev) {
		if (l == GC_FIND_MAX) {  /* the finder stops there; the match may go on */
			l = gc_match_len(in, p, p - d, (uint32_t)(ce - p));
			l -= l % S;
		}
		const int32_t sc = gc_score(l, d, prev);
		if (sc > best_sc)
			best_sc = sc, best_len = l, best_d = d;
	}
	*len = best_len;
	*dist = best_d;
	return best_sc;
}

/* How many bytes before p equal those before q, at most m (S = 1): four
 * at a time, their loads issued together (a byte at a time, each load
 * waited on the one before). */
GC_HD uint32_t gc_back_len(const uint8_t *in, uint64_t p, uint64_t q, uint32_t m)
{
	uint32_t e = 0;
	while (e < m) {
		const uint32_t w = m - e < 4 ? m - e : 4;
		uint32_t a = 0, b = 0;
		for (uint32_t i = 0; i < 4; i++)
			if (i < w)
				a |= (uint32_t)in[p - 1 - e - i] << (8 * i), b |= (uint32_t)in[q - 1 - e - i] << (8 * i);
		const uint32_t d = a ^ b;
#ifdef __CUDA_ARCH__
		const uint32_t run = d ? (uint32_t)(__ffs(d) - 1) / 8 : 4;
#else
		const uint32_t run = d ? (uint32_t)__builtin_ctz(d) / 8 : 4;
#endif
		e += run < w ? run : w;
		if (run < w)  /* a short last word (w < 4) takes e to m */
			break;
	}
	return e;
}

/* Parses chunk c into tok[c * cap ...] from every position's best match
 * (blen, bdist) and the repeat offset; returns the number of tokens. */
GC_HD uint32_t gc_parse_chunk(const gc_geom *g, const uint8_t *in, const uint16_t *blen, const uint32_t *bdist,
			       uint64_t c, gc_tok *tok)
{
	const uint64_t cs = c << g->chunk_log;
	const uint64_t ce = gc_chunk_end(g, c);
	const uint32_t S = g->sym;
	gc_tok *t = tok + c * g->cap;
	uint32_t nt = 0, prev = 0;
	uint64_t p = cs, lit0 = cs;
	gc_found f;
	f.base = GC_FOUND_NONE;
	while (p + 4 <= ce) {
		uint32_t best_len = 0, best_d = 0;
		int32_t best_sc = gc_best_at(g, in, blen, bdist, &f, p, ce, prev, &best_len, &best_d);
		if (!best_len) {
			p += S;
			continue;
		}
		/* One step lazy: a better match one symbol on wins. */
		if (p + S + 4 <= ce && best_len < GC_FIND_MAX) {
			uint32_t l2 = 0, d2 = 0;
			const int32_t sc2 = gc_best_at(g, in, blen, bdist, &f, p + S, ce, prev, &l2, &d2);
			if (l2 && sc2 > best_sc + GC_LAZY_MARGIN) {
				p += S;
				continue;
			}
		}
		/* Into the literals before it, which a far anchor or a near entry
		 * from an earlier tile can skip. */
		if (S == 1) {
			const uint64_t q = p - best_d, room = ((uint32_t)1 << g->chunk_log) - best_len;
			const uint64_t m = p - lit0 < q ? p - lit0 : q;
			const uint32_t e = gc_back_len(in, p, q, (uint32_t)(m < room ? m : room));
			p -= e, best_len += e;
		} else {
			while (p >= lit0 + S && p - best_d >= S && best_len + S <= ((uint32_t)1 << g->chunk_log)) {
				uint32_t e = 0;
				while (e < S && in[p - S + e] == in[p - best_d - S + e])
					e++;
				if (e < S)
					break;
				p -= S, best_len += S;
			}
		}
		t[nt].dist = best_d;
		t[nt].lm = (uint32_t)(p - lit0) | best_len << 16;
		nt++;
		p += best_len;
		lit0 = p;
		prev = best_d;
	}
	return nt;
}

/* ------------------------------------------------------------ levels */

/* Map values of chunk c before levels: 0 for literal bytes, unresolved for
 * match bytes; the chunk's levels unresolved. */
GC_HD void gc_level_init(const gc_geom *g, const gc_tok *tok, const uint32_t *ntok, uint8_t *lev, uint8_t *map,
			 uint64_t c)
{
	const gc_tok *t = tok + c * g->cap;
	const uint64_t cs = c << g->chunk_log;
	const uint64_t ce = gc_chunk_end(g, c);
	uint64_t pos = cs;
	for (uint32_t i = 0; i < ntok[c]; i++) {
		const uint32_t lit = t[i].lm & 0xFFFF, mlen = t[i].lm >> 16;
		for (uint32_t j = 0; j < lit; j++)
			map[pos + j] = 0;
		pos += lit;
		for (uint32_t j = 0; j < mlen; j++)
			map[pos + j] = GC_UNRESOLVED;
		pos += mlen;
		lev[c * g->cap + i] = GC_UNRESOLVED;
	}
	for (; pos < ce; pos++)
		map[pos] = 0;
}

/* A token at pos whose sources' largest map value is m takes level m
 * (SPEC.md 6.1), or, over the depth, is made literals: its bytes' map
 * values become m + 1, or 0.  Each byte is written once, from unresolved
 * to final, so a reader needs no other signal. */
GC_HD uint8_t gc_level_of(const gc_geom *g, unsigned m) { return m > g->depth ? GC_DROPPED : (uint8_t)m; }
GC_HD uint8_t gc_map_of(const gc_geom *g, unsigned m) { return m > g->depth ? 0 : (uint8_t)(m + 1); }

GC_HD void gc_level_set(const gc_geom *g, uint8_t *lv, uint8_t *map, uint64_t pos, uint32_t mlen, unsigned m)
{
	const uint8_t v = gc_map_of(g, m);
	*lv = gc_level_of(g, m);
	for (uint32_t j = 0; j < mlen; j++)
		map[pos + j] = v;
}

/* Chunk c's levels, its tokens in order, every earlier chunk done: a
 * token's level is a function of the bytes before it alone, so any order
 * that waits for a token's sources gives the same levels (the kernel's
 * warps run chunks at once). */
GC_HD void gc_level_chunk(const gc_geom *g, const gc_tok *tok, const uint32_t *ntok, uint8_t *lev, uint8_t *map,
			  uint64_t c)
{
	const gc_tok *t = tok + c * g->cap;
	uint8_t *lv = lev + c * g->cap;
	uint64_t pos = c << g->chunk_log;
	for (uint32_t i = 0; i < ntok[c]; i++) {
		const uint32_t lit = t[i].lm & 0xFFFF, mlen = t[i].lm >> 16;
		pos += lit;
		const uint64_t src = pos - t[i].dist, end = src + mlen < pos ? src + mlen : pos;
		unsigned m = 0;
		for (uint64_t x = src; x < end; x++)
			m = map[x] > m ? map[x] : m;
		gc_level_set(g, &lv[i], map, pos, mlen, m);
		pos += mlen;
	}
}

/* ------------------------------------------------------------ streams */

/* Chunk c's counts once levels are final (map holds final values). */
GC_HD void gc_chunk_stat(const gc_geom *g, const gc_tok *tok, const uint32_t *ntok, const uint8_t *lev,
			 const uint8_t *map, uint64_t c, gc_cstat *cs_out)
{
	const gc_tok *t = tok + c * g->cap;
	const uint8_t *lv = lev + c * g->cap;
	const uint64_t cs = c << g->chunk_log;
	const uint64_t ce = gc_chunk_end(g, c);
	const uint64_t bs = (c >> (g->block_log - g->chunk_log)) << g->block_log;
	gc_cstat st;
	st.nk = st.lead = st.tail = st.f_mlen = st.f_dist = st.last_dist = 0;
	st.lit = st.lenb = st.heads = st.lows = st.chained = st.maxlev = 0;
	st.carry_in = st.prev_in = st.o_cmd = st.o_lit = st.o_len = st.o_head = st.o_low = 0;
	uint64_t pos = cs, last_end = cs;
	uint32_t mbytes = 0, prev = 0;
	for (uint32_t i = 0; i < ntok[c]; i++) {
		const uint32_t lit = t[i].lm & 0xFFFF, mlen = t[i].lm >> 16, d = t[i].dist;
		pos += lit;
		if (lv[i] <= g->depth) {
			if (!st.nk) {
				st.lead = (uint32_t)(pos - cs);
				st.f_mlen = mlen;
				st.f_dist = d;
			} else {
				st.lenb += gc_len_bytes((uint32_t)(pos - last_end), mlen);
				if (d != prev)
					st.heads++, st.lows += gc_off_low(d);
			}
			const uint64_t src = pos - d;
			const uint64_t lo = src > bs ? src : bs;
			const uint64_t hi = src + mlen < pos ? src + mlen : pos;
			int ch = 0;
			for (uint64_t s = lo; s < hi && !ch; s++)
				ch = map[s] != 0;
			st.chained += (uint32_t)ch;
			st.maxlev = lv[i] > st.maxlev ? lv[i] : st.maxlev;
			st.nk++;
			mbytes += mlen;
			prev = d;
			last_end = pos + mlen;
		}
		pos += mlen;
	}
	st.tail = (uint32_t)(ce - last_end);
	st.last_dist = prev;
	st.lit = (uint32_t)(ce - cs) - mbytes;
	*cs_out = st;
}

/* The block scan's running state: the carry (literal bytes before the
 * next kept token), the repeat offset, and each raw stream's bytes. */
typedef struct gc_scan {
	uint32_t carry, prev, T, lit, lenb, H, lows;
} gc_scan;

/* Chunk c (stats s) added to the running state. */
GC_HD void gc_scan_chunk(const gc_geom *g, const gc_cstat *s, uint64_t c, gc_scan *x)
{
	if (s->nk) {
		x->lenb += gc_len_bytes(x->carry + s->lead, s->f_mlen);
		if (s->f_dist != x->prev)
			x->H++, x->lows += gc_off_low(s->f_dist);
		x->carry = s->tail;
		x->prev = s->last_dist;
	} else {
		x->carry += (uint32_t)(gc_chunk_end(g, c) - (c << g->chunk_log));
	}
	x->T += s->nk, x->lit += s->lit, x->lenb += s->lenb, x->H += s->heads, x->lows += s->lows;
}

/* Block b's scan over its chunks' counts: each chunk's literal carry and
 * previous offset coming in, its stream offsets, and the block's totals. */
GC_HD void gc_block_scan(const gc_geom *g, gc_cstat *cst, uint64_t b, gc_blk *blk)
{
	const uint64_t c0 = b << (g->block_log - g->chunk_log);
	const uint64_t bs = b << g->block_log;
	uint64_t c1 = c0 + ((uint64_t)1 << (g->block_log - g->chunk_log));
	if (c1 > g->nchunks)
		c1 = g->nchunks;
	gc_scan x = {0, 0, 0, 0, 0, 0, 0};
	uint32_t chained = 0, maxlev = 0;
	for (uint64_t c = c0; c < c1; c++) {
		gc_cstat *s = &cst[c];
		s->carry_in = x.carry;
		s->prev_in = x.prev;
		s->o_cmd = x.T, s->o_lit = x.lit, s->o_len = x.lenb, s->o_head = x.H, s->o_low = x.lows;
		gc_scan_chunk(g, s, c, &x);
		chained += s->chained;
		maxlev = s->maxlev > maxlev ? s->maxlev : maxlev;
	}
	blk->L = (uint32_t)(gc_block_end(g, b) - bs);
	blk->T = x.T, blk->lit = x.lit, blk->lenb = x.lenb, blk->H = x.H, blk->lows = x.lows;
	blk->chained = chained, blk->maxlev = maxlev;
	blk->rsize[0] = x.T, blk->rsize[1] = x.lit, blk->rsize[2] = x.lenb, blk->rsize[3] = x.H + x.lows;
}

/* Block b's parts: its raw streams, the off stream cut into heads and low
 * bytes (SPEC.md 5.2's encoder rule). */
GC_HD void gc_block_parts(const gc_geom *g, gc_blk *blk)
{
	const uint32_t n[GC_PARTS] = {blk->T, blk->lit, blk->lenb, blk->H, blk->lows};
	const uint64_t src[GC_PARTS] = {gc_raw_cmd(g), gc_raw_lit(g), gc_raw_len(g), gc_raw_head(g), gc_raw_low(g)};
	for (unsigned i = 0; i < GC_PARTS; i++) {
		gc_part *pt = &blk->part[i];
		pt->n = n[i];
		pt->src = (uint32_t)src[i];
		pt->c = pt->dst = 0;
		pt->k = 0;
		pt->kind = GC_EMPTY;
		pt->stream = 0;
	}
}

/* A kept token's bytes (SPEC.md 6): its cmd byte at cmd, its varints
 * from len (returns where they end), and unless it repeats the offset,
 * its head byte at head and gc_off_low(d) low bytes from low.  nl: the
 * literals before it; mlen: its match length. */
GC_HD uint8_t *gc_tok_put(uint32_t nl, uint32_t mlen, uint32_t d, int rep, uint8_t *cmd, uint8_t *len, uint8_t *head,
			  uint8_t *low)
{
	const uint32_t m = mlen - 3;
	*cmd = (uint8_t)((nl >= 7 ? 7 : nl) << 5 | (rep ? 16 : 0) | (m >= 15 ? 15 : m));
	if (nl >= 7)
		len = gc_put_varint(len, nl - 7);
	if (m >= 15)
		len = gc_put_varint(len, m - 15);
	if (!rep) {
		const unsigned k = gc_off_low(d);
		const uint64_t x = (uint64_t)d - 1;
		*head = (uint8_t)(k << 5 | (uint32_t)(x >> (8 * k)));
		for (unsigned j = 0; j < k; j++)
			low[j] = (uint8_t)(x >> (8 * j));
	}
	return len;
}

/* Writes chunk c's kept tokens into its block's raw streams, and its
 * literal bytes unless lits is 0 (the GPU copies them apart: they are the
 * chunk's bytes whose map value is 0, in order). */
GC_HD void gc_chunk_write(const gc_geom *g, const uint8_t *in, const gc_tok *tok, const uint32_t *ntok,
			  const uint8_t *lev, const gc_cstat *cst, uint64_t c, uint8_t *raw, int lits)
{
	const gc_tok *t = tok + c * g->cap;
	const uint8_t *lv = lev + c * g->cap;
	const gc_cstat *s = &cst[c];
	const uint64_t b = c >> (g->block_log - g->chunk_log);
	const uint64_t cs = c << g->chunk_log;
	const uint64_t ce = gc_chunk_end(g, c);
	uint8_t *r = raw + b * g->raw_stride;
	uint8_t *cmd = r + gc_raw_cmd(g) + s->o_cmd, *lit = r + gc_raw_lit(g) + s->o_lit;
	uint8_t *len = r + gc_raw_len(g) + s->o_len, *head = r + gc_raw_head(g) + s->o_head;
	uint8_t *low = r + gc_raw_low(g) + s->o_low;
	uint64_t pos = cs, last_end = cs;
	uint32_t prev = s->prev_in, carry = s->carry_in;
	for (uint32_t i = 0; i < ntok[c]; i++) {
		const uint32_t l = t[i].lm & 0xFFFF, mlen = t[i].lm >> 16, d = t[i].dist;
		pos += l;
		if (lv[i] <= g->depth) {
			const uint32_t nl = (uint32_t)(pos - last_end) + carry;
			for (uint64_t x = last_end; lits && x < pos; x++)
				*lit++ = in[x];
			carry = 0;
			const int rep = d == prev;
			len = gc_tok_put(nl, mlen, d, rep, cmd++, len, head, low);
			if (!rep)
				head++, low += gc_off_low(d);
			prev = d;
			last_end = pos + mlen;
		}
		pos += mlen;
	}
	for (uint64_t x = last_end; lits && x < ce; x++)
		*lit++ = in[x];
}

/* ------------------------------------------------------------ codec 2 */

/* Whether symbol j of a part of n symbols starts a lane. */
GC_HD int gc_lane_start(uint32_t n, uint32_t j)
{
	const uint32_t s0 = j >> GC_SEG_LOG << GC_SEG_LOG;
	const uint32_t m = n - s0 < ((uint32_t)1 << GC_SEG_LOG) ? n - s0 : (uint32_t)1 << GC_SEG_LOG;
	const uint32_t q = (m + GC_LANES - 1) / GC_LANES;
	return (j - s0) % q == 0;
}

/* The context of symbol j of a part of n symbols at src, for the counts
 * cnt[c][s] of symbol s after context c: the previous symbol of its lane,
 * or WLZ_HUF_START for a lane's first (a lane starts in table 0). */
GC_HD unsigned gc_context(const uint8_t *src, uint32_t n, uint32_t j)
{
	return gc_lane_start(n, j) ? WLZ_HUF_START : src[j - 1];
}

/* A part's kind from its size n and k symbols present; GC_HUF when it
 * is to get a code. */
GC_HD unsigned gc_part_kind(uint32_t n, unsigned k)
{
	return n == 0 ? GC_EMPTY : k == 1 ? GC_RUN : n <= 64 ? GC_RAW : GC_HUF;
}

/* Tables a part of n symbols, k of them present, may cluster its
 * contexts into (lit: the part holds literals, part 1): up to one per 2048
 * symbols, as the CPU encoder's literals; none where the context counts
 * are too sparse to tell contexts apart (k^2 cells over n symbols:
 * commands, lengths, offset bytes), which saved under 0.02% and cost the
 * most clustering work; at most GC_CLUSTER_KMAX_T in a part of commands,
 * lengths or offsets where more than GC_CLUSTER_KMAX symbols occur
 * (offset low bytes: nearly every byte value).  Such a part's counts are
 * too large to copy to shared memory, so each clustering pass reads them
 * from global memory, and its passes cost in proportion to its tables.
 * On FASTQ and text its tables rarely pay for their headers; on typed
 * arrays' offsets they do, and four keep most of that
 * (bench/host/issue17-r26.md). */
#define GC_CLUSTER_KMAX 160
#define GC_CLUSTER_KMAX_T 4
GC_HD unsigned gc_part_want(uint32_t n, unsigned k, int lit)
{
	if ((uint64_t)k * k > n)
		return 1;
	const unsigned most = !lit && k > GC_CLUSTER_KMAX ? GC_CLUSTER_KMAX_T : GC_TMAX;
	return n / 2048 < most ? n / 2048 : most;
}

/* Whether tc clustered tables coding in bc bits beat one table coding in
 * bits, each with its header (k symbols present). */
GC_HD int gc_tables_win(uint64_t bits, uint64_t bc, unsigned k, unsigned tc)
{
	return tc > 1 && bc + 4 * (uint64_t)k * (tc + 1) < bits + 4 * (uint64_t)k;
}

/* Table t's canonical codes from its lengths, by (length, symbol), stored
 * bit-reversed (the first bit read is a lane's lowest); a one-symbol
 * table codes its symbol in no bits. */
GC_HD void gc_table_codes(gc_code *code, unsigned t)
{
	unsigned kt = 0;
	for (unsigned s = 0; s < 256; s++)
		kt += code->len[t][s] != 0;
	uint32_t next = 0;
	unsigned prevlen = 0;
	int first = 1;
	for (unsigned s = 0; s < 256; s++)
		code->bits[t][s] = kt == 1 ? 0 : code->len[t][s], code->code[t][s] = 0;
	for (unsigned L = 1; L <= GC_MAXBITS && kt > 1; L++)
		for (unsigned s = 0; s < 256; s++) {
			if (code->len[t][s] != L)
				continue;
			if (first)
				next = 0, first = 0;
			else
				next = (next + 1) << (L - prevlen);
			prevlen = L;
			uint32_t r = 0;
			for (unsigned j = 0; j < L; j++)
				r |= ((next >> j) & 1) << (L - 1 - j);
			code->code[t][s] = (uint16_t)r;
		}
}

/* Part pt's code from its context counts cnt[257][256] (lit: the part holds
 * literals; w: scratch):
 * kind, present symbols, and one table or up to GC_TMAX chosen by the
 * previous symbol (the CPU encoder's clustering, common/huf_cluster.h),
 * whichever codes smaller with its header.  The reference's path; the
 * kernel k_code spreads the same steps over a CTA. */
GC_HD void gc_part_code(const uint32_t (*cnt)[256], gc_part *pt, int lit, gc_code *code, gc_code_work *w)
{
	uint32_t all[256];
	uint64_t *tot = w->tot;
	unsigned k = 0;
	for (unsigned s = 0; s < 256; s++)
		all[s] = 0;
	for (unsigned c = 0; c < WLZ_HUF_NCTX; c++) {
		uint64_t t = 0;
		for (unsigned s = 0; s < 256; s++)
			t += cnt[c][s], all[s] += cnt[c][s];
		tot[c] = t;
	}
	for (unsigned s = 0; s < 256; s++) {
		k += all[s] != 0;
		code->next[s] = 0;
	}
	code->T = 1;
	pt->k = (uint16_t)k;
	pt->kind = (uint8_t)gc_part_kind(pt->n, k);
	if (pt->kind != GC_HUF)
		return;
	uint64_t bits = wlz_huf_build_table(all, code->len[0]);
	unsigned T = 1;
	const unsigned want = gc_part_want(pt->n, k, lit);
	if (want > 1) {
		uint8_t grp[WLZ_HUF_NCTX];
		for (unsigned c = 0; c < WLZ_HUF_NCTX; c++)
			grp[c] = 0;
		const unsigned tc = wlz_huf_cluster(cnt, tot, want, grp, &w->cw);
		uint8_t(*lc)[256] = w->lc;
		uint64_t bc = 0;
		for (unsigned t = 0; t < tc; t++) {
			uint32_t h[256];
			for (unsigned s = 0; s < 256; s++)
				h[s] = 0;
			for (unsigned c = 0; c < WLZ_HUF_NCTX; c++)
				if (tot[c] && grp[c] == t)
					for (unsigned s = 0; s < 256; s++)
						h[s] += cnt[c][s];
			bc += wlz_huf_build_table(h, lc[t]);
		}
		if (gc_tables_win(bits, bc, k, tc)) {
			T = tc;
			for (unsigned t = 0; t < tc; t++)
				for (unsigned s = 0; s < 256; s++)
					code->len[t][s] = lc[t][s];
			for (unsigned s = 0; s < 256; s++)
				code->next[s] = grp[s];
		}
	}
	code->T = (uint8_t)T;
	for (unsigned t = 0; t < T; t++)
		gc_table_codes(code, t);
}

/* Lanes of a segment of m symbols: lane l holds [l*q, (l+1)*q) of it. */
GC_HD uint32_t gc_lane_q(uint32_t m) { return (m + GC_LANES - 1) / GC_LANES; }

/* Bytes of lane l of segment g of a part of n symbols at src. */
GC_HD uint32_t gc_lane_bytes(const uint8_t *src, uint32_t n, const gc_code *code, uint32_t g, unsigned l)
{
	const uint32_t s0 = g << GC_SEG_LOG;
	const uint32_t m = n - s0 < ((uint32_t)1 << GC_SEG_LOG) ? n - s0 : (uint32_t)1 << GC_SEG_LOG;
	const uint32_t q = gc_lane_q(m);
	const uint32_t a = l * q < m ? l * q : m, e = (l + 1) * q < m ? (l + 1) * q : m;
	uint64_t bits = 0;
	unsigned t = 0;
	for (uint32_t i = a; i < e; i++) {
		const uint8_t s = src[s0 + i];
		bits += code->bits[t][s];
		t = code->next[s];
	}
	return (uint32_t)((bits + 7) / 8);
}

/* Writes lane l of segment g (its bytes start at dst). */
GC_HD void gc_lane_write(const uint8_t *src, uint32_t n, const gc_code *code, uint32_t g, unsigned l, uint8_t *dst)
{
	const uint32_t s0 = g << GC_SEG_LOG;
	const uint32_t m = n - s0 < ((uint32_t)1 << GC_SEG_LOG) ? n - s0 : (uint32_t)1 << GC_SEG_LOG;
	const uint32_t q = gc_lane_q(m);
	const uint32_t a = l * q < m ? l * q : m, e = (l + 1) * q < m ? (l + 1) * q : m;
	uint64_t acc = 0;
	unsigned nb = 0, t = 0;
	for (uint32_t i = a; i < e; i++) {
		const uint8_t s = src[s0 + i];
		acc |= (uint64_t)code->code[t][s] << nb;
		nb += code->bits[t][s];
		t = code->next[s];
		while (nb >= 8) {
			*dst++ = (uint8_t)acc;
			acc >>= 8;
			nb -= 8;
		}
	}
	if (nb)
		*dst++ = (uint8_t)acc;
}

/* Bytes of a huf body before its segments. */
GC_HD uint32_t gc_huf_prelude(unsigned k, unsigned T, uint32_t G)
{
	return 2 + 32 + (k * (T > 1 ? T + 1 : 1) + 1) / 2 + 4 * G;
}

/* Writes a huf body's prelude: seg_log, the tables, bitmap, next tables
 * and lengths, and the G segment sizes segsz[]. */
GC_HD uint8_t *gc_huf_prelude_write(uint8_t *p, const gc_code *code, const uint32_t *segsz, uint32_t G)
{
	*p++ = GC_SEG_LOG;
	*p++ = code->T;
	uint8_t present[256];
	for (unsigned s = 0; s < 256; s++) {
		present[s] = 0;
		for (unsigned t = 0; t < code->T; t++)
			present[s] |= code->len[t][s] != 0;
	}
	for (unsigned i = 0; i < 32; i++) {
		uint8_t m = 0;
		for (unsigned j = 0; j < 8; j++)
			m |= (uint8_t)(present[i * 8 + j] << j);
		*p++ = m;
	}
	unsigned half = 0;
	uint8_t acc = 0;
	for (unsigned t = 0; t <= code->T; t++) {
		/* round 0: next tables (only with more than one); then lengths */
		if (t == 0 && code->T == 1)
			continue;
		for (unsigned s = 0; s < 256; s++) {
			if (!present[s])
				continue;
			const uint8_t v = t == 0 ? code->next[s] : code->len[t - 1][s];
			if (!half) {
				acc = v;
				half = 1;
			} else {
				*p++ = (uint8_t)(acc | v << 4);
				half = 0;
			}
		}
	}
	if (half)
		*p++ = acc;
	for (uint32_t g = 0; g < G; g++) {
		*p++ = (uint8_t)segsz[g], *p++ = (uint8_t)(segsz[g] >> 8);
		*p++ = (uint8_t)(segsz[g] >> 16), *p++ = (uint8_t)(segsz[g] >> 24);
	}
	return p;
}

/* Bytes of a codec-2 part's entry in its stream's part list. */
GC_HD uint32_t gc_part_head(const gc_part *pt)
{
	return 1 + gc_varint_len(pt->n) + (pt->kind == GC_HUF ? gc_varint_len(pt->c) : 0);
}

/* The part's stored body bytes. */
GC_HD uint32_t gc_part_body(const gc_part *pt)
{
	return pt->kind == GC_RAW ? pt->n : pt->kind == GC_RUN ? 1 : pt->kind == GC_HUF ? pt->c : 0;
}

/* Block b's layout once its huf parts know their body sizes (pt->c): the
 * kind of every part, each stream's codec and size, the payload size, and
 * every part body's offset in the payload. */
GC_HD void gc_block_layout(gc_blk *blk)
{
	uint32_t at = 0;
	for (unsigned s = 0; s < 4; s++) {
		const uint32_t rs = blk->rsize[s];
		uint32_t cs = 1;
		for (unsigned i = gc_first_part(s); i < gc_first_part(s + 1); i++) {
			gc_part *pt = &blk->part[i];
			if (pt->kind == GC_EMPTY)
				continue;
			if (pt->kind == GC_HUF && (uint64_t)pt->c >= pt->n - pt->n / 16)
				pt->kind = GC_RAW;
			cs += gc_part_head(pt) + gc_part_body(pt);
		}
		if (rs == 0 || cs >= rs) {
			blk->codec[s] = 0;
			blk->csize[s] = rs;
		} else {
			blk->codec[s] = 2;
			blk->csize[s] = cs;
		}
		/* body offsets: after the stream's part list */
		uint32_t b = at;
		if (blk->codec[s] == 2) {
			b += 1;
			for (unsigned i = gc_first_part(s); i < gc_first_part(s + 1); i++) {
				const gc_part *pt = &blk->part[i];
				if (pt->kind != GC_EMPTY)
					b += gc_part_head(pt);
			}
		}
		for (unsigned i = gc_first_part(s); i < gc_first_part(s + 1); i++) {
			gc_part *pt = &blk->part[i];
			pt->stream = (uint8_t)s;
			pt->dst = b;
			if (blk->codec[s] == 2)
				b += gc_part_body(pt);
			else
				b += pt->kind == GC_EMPTY ? 0 : pt->n;  /* raw stream: the parts' bytes back to back */
		}
		at += blk->csize[s];
	}
	blk->P = at;
}

/* Writes stream s's codec-2 part list at the start of the stream. */
GC_HD void gc_stream_head_write(const gc_blk *blk, unsigned s, uint8_t *payload)
{
	if (blk->codec[s] != 2)
		return;
	uint32_t at = 0;
	for (unsigned i = 0; i < s; i++)
		at += blk->csize[i];
	uint8_t *p = payload + at;
	unsigned np = 0;
	for (unsigned i = gc_first_part(s); i < gc_first_part(s + 1); i++)
		np += blk->part[i].kind != GC_EMPTY;
	*p++ = (uint8_t)np;
	for (unsigned i = gc_first_part(s); i < gc_first_part(s + 1); i++) {
		const gc_part *pt = &blk->part[i];
		if (pt->kind == GC_EMPTY)
			continue;
		*p++ = pt->kind;
		p = gc_put_varint(p, pt->n);
		if (pt->kind == GC_HUF)
			p = gc_put_varint(p, pt->c);
	}
}

/* The 80-byte block header, but for its checksum (bytes 72..79). */
GC_HD void gc_block_header(const gc_blk *blk, uint8_t *h)
{
	for (unsigned i = 0; i < 80; i++)
		h[i] = 0;
	h[0] = 'w', h[1] = 'l', h[2] = 'z', h[3] = 'B';
	for (unsigned i = 0; i < 4; i++) {
		h[4 + i] = (uint8_t)(blk->L >> (8 * i));
		h[8 + i] = (uint8_t)(blk->T >> (8 * i));
	}
	h[12] = (uint8_t)blk->maxlev;
	const uint32_t ch = blk->chained > 0xFFFFFF ? 0xFFFFFF : blk->chained;
	h[13] = (uint8_t)ch, h[14] = (uint8_t)(ch >> 8), h[15] = (uint8_t)(ch >> 16);
	/* the header's stream order is cmd, lit, len, off: ours too */
	for (unsigned s = 0; s < 4; s++) {
		h[16 + s] = blk->codec[s];
		for (unsigned i = 0; i < 4; i++) {
			h[20 + 8 * s + i] = (uint8_t)(blk->csize[s] >> (8 * i));
			h[24 + 8 * s + i] = (uint8_t)(blk->rsize[s] >> (8 * i));
		}
	}
	for (unsigned i = 0; i < 8; i++) {
		h[56 + i] = (uint8_t)(blk->content_hash >> (8 * i));
		h[64 + i] = (uint8_t)(blk->payload_hash >> (8 * i));
	}
}

#endif
