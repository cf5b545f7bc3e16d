/*
 * plan.c - the host's plan of a GPU decode call (plan.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/wlz_internal.h"
#include "gpu_wavefront/headers.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/plan.h"

int wlz_gpu_grow(void **p, size_t *cap, size_t need, size_t unit)
{
	if (need <= *cap)
		return 1;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	return wlz_grow(p, cap, c, unit);
}

void wlz_gpu_call_clear(wlz_gpu_call *c)
{
	for (size_t i = 0; i < c->nm; i++)
		wlz_member_free(&c->mem[i].m);
	c->nm = c->nblk = c->np = c->nrun = 0;
	c->narchives = 0;
	c->total = c->dtotal = c->wmax = c->words = 0;
	c->same = 1;
	c->quiet_archives = 0;
}

void wlz_gpu_call_free(wlz_gpu_call *c)
{
	wlz_gpu_call_clear(c);
	free(c->mem);
	free(c->blk);
	free(c->pc);
	free(c->run);
	memset(c, 0, sizeof *c);
}

/* Appends the members of one archive; on an error, returns with what it
 * appended (the caller rolls back). */
static wlz_error add_members(wlz_gpu_call *c, const uint8_t *harc, const uint8_t *dsrc, size_t size,
			     uint64_t memory_limit, uint32_t id, const wlz_gpu_layout *expect)
{
	if (!size)
		return wlz_fail(WLZ_ERR_TRUNCATED, "empty input");
	size_t j = 0;
	for (uint64_t at = 0; at < size; j++) {
		if (!wlz_gpu_grow((void **)&c->mem, &c->mem_cap, c->nm + 1, sizeof *c->mem))
			return wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		wlz_gpu_cmember *cm = &c->mem[c->nm];
		WLZ_TRY(wlz_member_parse(harc, size, at, &cm->m));
		c->nm++;
		const wlz_member *m = &cm->m;
		/* (same start, size and block count: the index read was the
		 * fetched one, and it names every block header read.  The
		 * parse's own checks imply it, a footer from the end back; it
		 * states what makes a fetched image enough) */
		if (expect && (j >= expect->nm || expect->m[j].start != at || expect->m[j].size != m->size ||
			       expect->m[j].nblocks != m->nblocks))
			return wlz_fail(WLZ_ERR_INTERNAL, "member %zu is not where its footer placed it", j);
		const uint64_t window = (uint64_t)1 << m->h.window_log;
		if (window > memory_limit)
			return wlz_fail(WLZ_ERR_WINDOW, "a window of %llu MiB, over the limit of %llu MiB (--memory=)",
					(unsigned long long)(window >> 20), (unsigned long long)(memory_limit >> 20));
		for (uint64_t b = 0; b < m->nblocks; b++)
			for (int k = 0; k < WLZ_NSTREAMS; k++)
				if (m->blocks[b].codec[k] == WLZ_CODEC_ZSTD)
					return wlz_fail(WLZ_ERR_GPU,
							"block %llu: zstd streams cannot be decoded on a GPU",
							(unsigned long long)b);
		if (!wlz_gpu_grow((void **)&c->blk, &c->blk_cap, c->nblk + m->nblocks, sizeof *c->blk))
			return wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		for (uint64_t b = 0; b < m->nblocks; b++)
			c->blk[c->nblk++] = (wlz_gpu_cblock){c->nm - 1, b, 0};
		cm->harc = harc;
		cm->dsrc = dsrc;
		cm->archive = id;
		cm->hpos = c->total;
		cm->dpos = (c->dtotal + 15) & ~(uint64_t)15;
		c->same &= cm->hpos == cm->dpos;
		c->total += m->content_size;
		c->dtotal = cm->dpos + m->content_size;
		c->wmax = window > c->wmax ? window : c->wmax;
		at += m->size;
	}
	if (expect && j != expect->nm)
		return wlz_fail(WLZ_ERR_INTERNAL, "%zu members, the footers gave %zu", j, expect->nm);
	return WLZ_OK;
}

wlz_error wlz_gpu_call_add(wlz_gpu_call *c, const uint8_t *harc, const uint8_t *dsrc, size_t size,
			   uint64_t memory_limit, uint32_t id)
{
	return wlz_gpu_call_add_checked(c, harc, dsrc, size, memory_limit, id, NULL);
}

wlz_error wlz_gpu_call_add_checked(wlz_gpu_call *c, const uint8_t *harc, const uint8_t *dsrc, size_t size,
				   uint64_t memory_limit, uint32_t id, const wlz_gpu_layout *expect)
{
	if (!c->nm)
		c->same = 1;
	const wlz_gpu_call was = *c;
	const wlz_error e = add_members(c, harc, dsrc, size, memory_limit, id, expect);
	if (e != WLZ_OK) {
		for (size_t i = was.nm; i < c->nm; i++)
			wlz_member_free(&c->mem[i].m);
		c->nm = was.nm;
		c->nblk = was.nblk;
		c->total = was.total;
		c->dtotal = was.dtotal;
		c->wmax = was.wmax;
		c->same = was.same;
		return e;
	}
	c->narchives++;
	return WLZ_OK;
}

wlz_gpu_pblock wlz_gpu_pblock_next(const wlz_block_entry *e, uint64_t bstart, uint64_t mfirst, uint64_t window,
				   uint64_t *sbytes, uint64_t *ntok, uint64_t *nscr)
{
	wlz_gpu_pblock p;
	memset(&p, 0, sizeof p);
	for (int k = 0; k < WLZ_NSTREAMS; k++) {
		*sbytes = (*sbytes + 15) & ~(uint64_t)15;
		p.s_off[k] = *sbytes;
		p.rsize[k] = e->rsize[k];
		*sbytes += e->rsize[k] + 16;
	}
	p.bstart = bstart;
	p.mfirst = mfirst;
	p.window = window;
	p.length = e->length;
	p.ntok = e->token_count;
	p.tok_off = *ntok;
	p.scr_off = *nscr;
	*ntok += e->token_count;
	/* varint starts, 8-byte alignment, then the carries' 8-byte words */
	const uint64_t segs = ((uint64_t)e->token_count + WLZ_GPU_PARSE_TILE - 1) / WLZ_GPU_PARSE_TILE;
	*nscr += e->rsize[WLZ_S_LEN] + 1 + 2 + 2 * (WLZ_GPU_PARSE_BLOCK_WORDS + WLZ_GPU_PARSE_SEG_WORDS * segs);
	return p;
}

#define MAXOF(a, b) ((a) > (b) ? (a) : (b))

wlz_error wlz_gpu_call_cut(wlz_gpu_call *c, uint64_t piece)
{
	return wlz_gpu_call_cut_ramp(c, piece, piece);
}

wlz_error wlz_gpu_call_cut_ramp(wlz_gpu_call *c, uint64_t first, uint64_t piece)
{
	first = first < piece && first ? first : piece;
	c->np = c->nrun = 0;
	c->words = 0;
	c->max_arc = c->max_sbytes = c->max_ntok = c->max_nscr = c->max_pack = c->max_nb = c->max_content = 0;
	c->max_lit = c->max_tok = 0;
	for (uint64_t f = 0; f < c->nblk;) {
		if (!wlz_gpu_grow((void **)&c->pc, &c->pc_cap, c->np + 1, sizeof *c->pc))
			return wlz_fail(WLZ_ERR_NOMEM, "out of memory");
		wlz_gpu_piece *p = &c->pc[c->np++];
		memset(p, 0, sizeof *p);
		p->f0 = f;
		p->r0 = c->nrun;
		uint64_t content = 0;
		wlz_gpu_run *r = NULL;
		/* (each piece after the first twice the last, up to piece) */
		if (c->np > 1)
			first = first < piece / 2 ? 2 * first : piece;
		for (; f < c->nblk && (f == p->f0 || content < first); f++) {
			const wlz_gpu_cmember *cm = &c->mem[c->blk[f].m];
			const uint64_t b = c->blk[f].b, B = (uint64_t)1 << cm->m.h.block_log;
			const wlz_block_entry *e = &cm->m.blocks[b];
			if (f == p->f0) {
				p->d0 = cm->dpos + b * B;
				p->h0 = cm->hpos + b * B;
			}
			p->d1 = cm->dpos + b * B + e->length;
			p->h1 = cm->hpos + b * B + e->length;
			/* a block of another archive (or before the run: never,
			 * payloads lie in order) starts a run */
			if (!r || r->harc != cm->harc || e->data_offset < r->a1) {
				if (!wlz_gpu_grow((void **)&c->run, &c->run_cap, c->nrun + 1, sizeof *c->run))
					return wlz_fail(WLZ_ERR_NOMEM, "out of memory");
				r = &c->run[c->nrun++];
				r->harc = cm->harc;
				r->dsrc = cm->dsrc;
				r->a0 = e->data_offset;
				r->slot = p->arc;
				p->nr++;
			}
			r->a1 = e->data_offset + wlz_payload_size(e);
			c->blk[f].run = c->nrun - 1;
			/* (16 readable bytes after each run: the stream decoder reads
			 * that far, the gather 8) */
			p->arc = ((r->slot + r->a1 - r->a0 + 15) & ~(uint64_t)15) + 16;
			wlz_gpu_pblock_next(e, 0, 0, 0, &p->sbytes, &p->ntok, &p->nscr);
			p->pack += (wlz_payload_size(e) + 15) & ~(uint64_t)15;
			p->max_lit = MAXOF(p->max_lit, e->rsize[WLZ_S_LIT]);
			p->max_tok = MAXOF(p->max_tok, e->token_count);
			p->max_level = MAXOF(p->max_level, e->max_level);
			content += e->length;
		}
		p->nb = f - p->f0;
		p->stat = c->words;
		c->words += WLZ_GPU_VERDICT_HEAD + 2 * p->nb + 1;
		c->max_arc = MAXOF(c->max_arc, p->arc);
		c->max_sbytes = MAXOF(c->max_sbytes, p->sbytes);
		c->max_ntok = MAXOF(c->max_ntok, p->ntok);
		c->max_nscr = MAXOF(c->max_nscr, p->nscr);
		c->max_pack = MAXOF(c->max_pack, p->pack);
		c->max_nb = MAXOF(c->max_nb, p->nb);
		c->max_content = MAXOF(c->max_content, p->d1 - p->d0);
		c->max_lit = MAXOF(c->max_lit, p->max_lit);
		c->max_tok = MAXOF(c->max_tok, p->max_tok);
	}
	return WLZ_OK;
}

const char *wlz_gpu_call_name(const wlz_gpu_call *c, uint64_t f, char *buf, size_t cap)
{
	if (f >= c->nblk) {
		snprintf(buf, cap, "a block");
		return buf;
	}
	const wlz_gpu_cblock *k = &c->blk[f];
	const wlz_gpu_cmember *cm = &c->mem[k->m];
	/* the member's index in its archive */
	uint64_t mi = 0;
	for (uint64_t i = k->m; i > 0 && c->mem[i - 1].archive == cm->archive; i--)
		mi++;
	const int many = k->m + 1 < c->nm ? c->mem[k->m + 1].archive == cm->archive : 0;
	const int multi = mi > 0 || many;
	char a[32] = "", m[32] = "";
	if (c->narchives > 1 && !c->quiet_archives)
		snprintf(a, sizeof a, "archive %u: ", cm->archive);
	if (multi)
		snprintf(m, sizeof m, "member %llu: ", (unsigned long long)mi);
	snprintf(buf, cap, "%s%sblock %llu", a, m, (unsigned long long)k->b);
	return buf;
}

uint64_t wlz_gpu_split_cut(uint64_t ngroups, int ng, int pub, uint64_t want, uint64_t *pg)
{
	const uint64_t rounds = (ngroups + (uint64_t)ng - 1) / (uint64_t)ng;
	uint64_t np = want ? (want < rounds ? want : rounds) : rounds / WLZ_GPU_SPLIT_ROUNDS;
	np = !pub || np < 1 ? 1 : np > WLZ_GPU_SPLIT_PIECES ? WLZ_GPU_SPLIT_PIECES : np;
	/* (weights 1, 2, 4, 4, ...: units in all) */
	const uint64_t units = np >= 3 ? 3 + 4 * (np - 2) : np;
	const int ramp = np >= 3 && rounds >= WLZ_GPU_SPLIT_ROUNDS * units / 4;
	for (uint64_t p = 0, u = 0; p <= np; p++) {
		const uint64_t k = (ramp ? rounds * u / units : rounds * p / np) * (uint64_t)ng;
		pg[p] = k < ngroups ? k : ngroups;
		u += p == 0 ? 1 : p == 1 ? 2 : 4;
	}
	return np;
}

uint32_t wlz_gpu_split_shift(const wlz_member *m, uint64_t group)
{
	const uint64_t nb = m->nblocks, bsz = nb ? m->blocks[0].length : 0;
	if (nb < 2 || bsz < 64 || (bsz & (bsz - 1)) || !group || (group & (group - 1)))
		return 0;
	for (uint64_t b = 0; b + 1 < nb; b++)
		if (m->blocks[b].length != bsz)
			return 0;
	if (m->blocks[nb - 1].length > bsz)
		return 0;
	for (uint64_t g = 0; g < nb; g += group) {
		uint64_t t = 0;
		for (uint64_t b = g; b < nb && b < g + group; b++)
			t += m->blocks[b].token_count;
		if (!t)
			return 0;
	}
	uint32_t k = 0;
	while (((uint64_t)1 << k) < bsz * group)
		k++;
	return k;
}
