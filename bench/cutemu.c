/* bench/cutemu.c - a CPU emulation of the GPU decoder's resolution (flow.cu): rounds of hops,
 * one cut, rounds of hops over pieces, the expansion; checks every piece's
 * bytes against the content and computes the longest chain. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "wavelz.h"
#include "format/format.h"
#include "cpu_decoder/block_decode.h"
#include "fileio.h"

typedef struct { uint32_t lit, mlen; uint64_t src, pos, lp; } T;
/* (granules of 2^GB bytes, as gpu_wavefront/flow.cu's GRAN_BITS) */
#define GB 6
#define CUT_SHIFT 40
#define CUT_LOW ((1ull << CUT_SHIFT) - 1)
static T *tok; static uint32_t ntok; static uint32_t *gidx; static uint64_t size, window;
static unsigned vis_seed = 1;

static uint32_t find(uint64_t a) {
	uint32_t j = gidx[a >> GB];
	while (j + 1 < ntok && tok[j + 1].pos <= a) j++;
	return j;
}
/* old copies for random visibility */
static uint64_t *osrc, *olp;
static uint64_t rd_src(uint32_t j) { return (rand_r(&vis_seed) & 1) ? osrc[j] : tok[j].src; }
static uint64_t rd_lp(uint32_t j) { return (rand_r(&vis_seed) & 1) ? olp[j] : tok[j].lp; }

static uint64_t hop(int cut, uint32_t k, uint64_t a, uint64_t len, uint64_t d, uint64_t t0) {
	if (a < t0) return a;
	uint32_t j = find(a);
	const uint64_t ud = tok[j].pos + tok[j].lit, um = tok[j].mlen, us = rd_src(j);
	if (j >= k || a < ud || a + len > ud + um) return a;
	const uint64_t jl = cut ? rd_lp(j) : 0, jc = jl >> CUT_SHIFT;
	uint64_t n;
	if (!jc) { if (ud - us < um) return a; n = us + (a - ud); }
	else if (a + len <= ud + jc) n = us + (a - ud);
	else if (a >= ud + jc) n = (jl & CUT_LOW) + (a - ud - jc);
	else return a;
	return d - n <= window ? n : a;
}

/* hops made (as the GPU's rounds: the first over every token, each later
 * one over the tokens the round before moved), a proxy for their time */
static uint64_t nhops;

static void rounds(int cut, unsigned R) {
	uint32_t *perm = malloc(ntok * 4);
	uint8_t *mv = malloc(ntok), *mv2 = malloc(ntok);
	for (uint32_t i = 0; i < ntok; i++) perm[i] = i, mv[i] = 1;
	for (unsigned r = 0; r < R; r++) {
		memset(mv2, 0, ntok);
		for (uint32_t i = 0; i < ntok; i++) osrc[i] = tok[i].src, olp[i] = tok[i].lp;
		for (uint32_t i = ntok - 1; i > 0; i--) { uint32_t q = rand_r(&vis_seed) % (i + 1), x = perm[i]; perm[i] = perm[q]; perm[q] = x; }
		const uint64_t t0 = tok[0].pos;
		for (uint32_t ii = 0; ii < ntok; ii++) {
			const uint32_t k = perm[ii];
			if (!mv[k]) continue;
			const uint64_t dst = tok[k].pos + tok[k].lit, a = tok[k].src, mlen = tok[k].mlen;
			const uint64_t lp = cut ? tok[k].lp : 0, c = lp >> CUT_SHIFT;
			if (!mlen || !(c || dst - a >= mlen)) continue;
			const uint64_t n = hop(cut, k, a, c ? c : mlen, dst, t0);
			nhops++;
			mv2[k] |= n != a;
			tok[k].src = n;
			if (c) {
				const uint64_t a2 = lp & CUT_LOW, n2 = hop(cut, k, a2, mlen - c, dst + c, t0);
				nhops++;
				mv2[k] |= n2 != a2;
				tok[k].lp = c << CUT_SHIFT | n2;
			}
		}
		uint8_t *x = mv; mv = mv2; mv2 = x;
	}
	free(perm); free(mv); free(mv2);
}

static void cut_phase(void) {
	const uint64_t t0 = tok[0].pos;
	for (uint32_t k = 0; k < ntok; k++) {
		const T t = tok[k];
		const uint64_t dst = t.pos + t.lit, a = t.src, m = t.mlen;
		if (!m || dst - a < m || a < t0) continue;
		uint32_t j = find(a);
		if (j >= k) continue;
		const uint64_t ud = tok[j].pos + tok[j].lit, um = tok[j].mlen, us = tok[j].src;
		const int plain = um && ud - us >= um;
		uint64_t edge; int useful;
		if (a < ud) { edge = ud; useful = plain && a + m <= ud + um; }
		else if (a < ud + um) {
			edge = ud + um; useful = plain;
			if (!useful && j + 1 < k) { const T u = tok[j + 1]; useful = !u.lit && u.mlen && a + m <= u.pos + u.mlen && u.pos - u.src >= u.mlen; }
		} else continue;
		if (a + m <= edge || !useful || edge - a >= (1ull << 24) || edge > CUT_LOW) continue;
		tok[k].lp = (edge - a) << CUT_SHIFT | edge;
	}
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	const int docut = argc > 2 ? atoi(argv[2]) : 1; const unsigned R = argc > 3 ? atoi(argv[3]) : 8;
	fio_input in; if (fio_load(&in, argv[1])) return 1;
	uint64_t csize; size_t got; wlz_get_content_size(in.data, in.size, &csize);
	uint8_t *content = malloc(csize); wlz_dctx *dc = wlz_dctx_create(0);
	if (wlz_decompress(dc, content, csize, in.data, in.size, &got) != WLZ_OK) return 1;
	wlz_member m; wlz_member_parse(in.data, in.size, 0, &m);
	window = (uint64_t)1 << m.h.window_log; size = csize;
	wlz_bdec *bd = wlz_bdec_create();
	uint64_t cap = 1 << 20; tok = malloc(cap * sizeof *tok); ntok = 0; uint64_t bstart = 0;
	for (uint64_t b = 0; b < m.nblocks; b++) {
		const wlz_block_entry *e = &m.blocks[b]; const wlz_dtoken *t;
		if (wlz_bdec_tokens(bd, in.data, e, bstart, bstart + e->length, &t) != WLZ_OK) return 1;
		uint64_t pos = bstart;
		for (uint32_t i = 0; i < e->token_count; i++) {
			if (ntok == cap) { cap *= 2; tok = realloc(tok, cap * sizeof *tok); }
			tok[ntok++] = (T){t[i].lit, t[i].mlen, t[i].src, pos, 0};
			pos += t[i].lit + t[i].mlen;
		}
		bstart += e->length;
	}
	/* granules as index_kernel */
	const uint64_t ng = (size >> GB) + 2; gidx = calloc(ng, 4);
	for (uint32_t i = 0; i < ntok; i++) {
		const uint64_t s = tok[i].pos, e = i + 1 < ntok ? tok[i + 1].pos : size;
		for (uint64_t q = i ? (s + (1u << GB) - 1) >> GB : s >> GB; q < (e + (1u << GB) - 1) >> GB; q++) gidx[q] = i;
	}
	osrc = malloc(ntok * 8); olp = malloc(ntok * 8);
	for (uint32_t i = 0; i < ntok; i++) osrc[i] = tok[i].src, olp[i] = 0;
	uint64_t *orig = malloc(ntok * 8); for (uint32_t i = 0; i < ntok; i++) orig[i] = tok[i].src;
	/* $CUTEMU_WHOLE, $CUTEMU_PIECE: the rounds before and after the cut
	 * (both R unless set), to model other schedules */
	const unsigned RW = getenv("CUTEMU_WHOLE") ? (unsigned)atoi(getenv("CUTEMU_WHOLE")) : R;
	const unsigned RP = getenv("CUTEMU_PIECE") ? (unsigned)atoi(getenv("CUTEMU_PIECE")) : R;
	rounds(0, RW);
	const uint64_t hw = nhops;
	if (docut) { cut_phase(); rounds(1, RP); }
	/* expand */
	T *ops = malloc(2 * (uint64_t)ntok * sizeof *ops); uint64_t no = 0, ncut = 0;
	for (uint32_t k = 0; k < ntok; k++) {
		const uint64_t c = tok[k].lp >> CUT_SHIFT;
		if (!c) { ops[no++] = (T){tok[k].lit, tok[k].mlen, tok[k].src, tok[k].pos, 0}; continue; }
		ncut++;
		ops[no++] = (T){tok[k].lit, (uint32_t)c, tok[k].src, tok[k].pos, 0};
		ops[no++] = (T){0, (uint32_t)(tok[k].mlen - c), tok[k].lp & CUT_LOW, tok[k].pos + tok[k].lit + c, 0};
	}
	/* checks */
	uint64_t bad = 0, past = 0, gaps = 0, moved = 0;
	for (uint64_t i = 0; i < no; i++) {
		const uint64_t dst = ops[i].pos + ops[i].lit;
		if (i + 1 < no && dst + ops[i].mlen != ops[i + 1].pos) gaps++;
		if (!ops[i].mlen) continue;
		const uint64_t d = dst - ops[i].src;
		if (d < ops[i].mlen) continue; /* overlapping: unchanged (checked below) */
		if (ops[i].src + ops[i].mlen > size) { bad++; continue; }
		bad += memcmp(content + ops[i].src, content + dst, ops[i].mlen) != 0;
		past += d > window;
	}
	for (uint32_t k = 0; k < ntok; k++) {
		moved += tok[k].src != orig[k];
		const uint64_t dst = tok[k].pos + tok[k].lit;
		if (tok[k].mlen && dst - orig[k] < tok[k].mlen && (tok[k].src != orig[k] || tok[k].lp)) bad++;
	}
	/* longest chain over ops (waves) */
	uint32_t *w = calloc(no + 1, 4), longest = 0;
	for (uint64_t i = 0; i < no; i++) {
		if (!ops[i].mlen) continue;
		const uint64_t dst = ops[i].pos + ops[i].lit, a = ops[i].src;
		const uint64_t e = dst - a < ops[i].mlen ? dst : a + ops[i].mlen;
		int64_t lo = -1, hi = (int64_t)i;
		while (hi - lo > 1) { int64_t mm = (lo + hi) / 2; if (ops[mm].pos <= a) lo = mm; else hi = mm; }
		uint32_t x = 0;
		for (int64_t j = lo < 0 ? 0 : lo; j < (int64_t)i && ops[j].pos < e; j++) {
			const uint64_t ms = ops[j].pos + ops[j].lit, me = ms + ops[j].mlen;
			if (ops[j].mlen && ms < e && me > a) x = w[j] + 1 > x ? w[j] + 1 : x;
		}
		w[i] = x; longest = x + 1 > longest ? x + 1 : longest;
	}
	printf("%s cut=%d rounds=%u+%u tokens %u cuts %llu ops %llu moved %llu bad %llu past_window %llu gaps %llu longest %u "
	       "hops %llu+%llu\n",
	       argv[1], docut, RW, docut ? RP : 0, ntok, (unsigned long long)ncut, (unsigned long long)no,
	       (unsigned long long)moved, (unsigned long long)bad, (unsigned long long)past, (unsigned long long)gaps,
	       longest, (unsigned long long)hw, (unsigned long long)(nhops - hw));
	/* (gaps: blocks' tails of literals between pieces, as between tokens) */
	return bad || past;
}
