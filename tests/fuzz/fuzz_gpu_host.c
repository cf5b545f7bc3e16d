/*
 * fuzz_gpu_host.c - libFuzzer target: the GPU decoder's host side, which
 * reads the archive before any kernel runs, on arbitrary bytes (a byte of
 * parameters, then the archive).  The call's plan (wlz_gpu_call_add, cut
 * into pieces of 64 KiB to 8 MiB), each piece prepared (stream headers
 * into segments and tables: wlz_gpu_prep_build), and the split's plan of
 * each member (blocks laid out, streams planned in runs, each finished
 * and placed as split.c does; its pieces and groups).  Errors are fine;
 * what must hold where the bytes are accepted:
 *   - every segment names a block of its piece, and tables of the plan;
 *   - a block the host did not flag has its streams covered by segments
 *     exactly (the GPU decodes each of its bytes once);
 *   - the split's pieces take every group once, in whole rounds;
 *   - where the archive is taken from a host image of only the bytes the
 *     header fetch copied (as for an archive in GPU memory; the rest of
 *     the image stale), the whole archive is accepted too, and every
 *     piece is prepared the same from both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/headers.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/plan.h"
#include "gpu_wavefront/prep.h"
#include "tests/gpu_prep_cmp.h"

#define LIMIT ((uint64_t)1 << 30)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decoded bytes the segments of plan p give to block i's bytes [lo, hi). */
static uint64_t covered(const wlz_gpu_ent_plan *p, uint64_t i, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	for (size_t k = 0; k < p->nseg; k++) {
		const wlz_gpu_seg *g = &p->seg[k];
		if (g->blk == i && g->out_off >= lo && g->out_off < hi)
			n += g->m;
	}
	return n;
}

static void pieces(const wlz_gpu_call *c)
{
	wlz_gpu_prep p;
	memset(&p, 0, sizeof p);
	for (uint64_t k = 0; k < c->np; k++) {
		const wlz_gpu_piece *pc = &c->pc[k];
		wlz_gpu_prep_build(c, k, &p);
		if (p.err != WLZ_OK)
			break;
		for (size_t s = 0; s < p.plan.nseg; s++) {
			const wlz_gpu_seg *g = &p.plan.seg[s];
			if (g->blk >= pc->nb || (g->ntab && g->tab + g->ntab > p.plan.ntab))
				abort();
		}
		/* (the coverage check is quadratic: small pieces only) */
		for (uint64_t i = 0; i < pc->nb && p.plan.nseg <= 4096; i++)
			for (int s = 0; !p.hfl[i] && s < WLZ_NSTREAMS; s++) {
				const uint64_t lo = p.blk[i].s_off[s];
				if (covered(&p.plan, i, lo, lo + p.blk[i].rsize[s]) != p.blk[i].rsize[s])
					abort();
			}
	}
	wlz_gpu_prep_free(&p);
}

/* Member m's streams planned as the split plans a GPU's share: its blocks
 * in nrun runs, each planned and finished apart, then placed in order. */
static void split_plan(const uint8_t *arc, const wlz_member *m, unsigned nrun)
{
	const uint64_t nb = m->nblocks;
	wlz_gpu_pblock *blk = malloc((nb + 1) * sizeof *blk);
	wlz_gpu_ent_plan total, run[4];
	memset(&total, 0, sizeof total);
	memset(run, 0, sizeof run);
	if (!blk)
		return;
	uint64_t sb = 0, nt = 0, ns = 0, at = 0;
	for (uint64_t b = 0; b < nb; b++) {
		blk[b] = wlz_gpu_pblock_next(&m->blocks[b], at, 0, (uint64_t)1 << m->h.window_log, &sb, &nt, &ns);
		at += m->blocks[b].length;
	}
	int ok = 1;
	for (unsigned r = 0; r < nrun && ok; r++) {
		for (uint64_t b = nb * r / nrun; b < nb * (r + 1) / nrun && ok; b++) {
			const wlz_block_entry *e = &m->blocks[b];
			uint64_t in = e->data_offset;
			for (int k = 0; k < WLZ_NSTREAMS && ok; k++) {
				run[r].blk = (uint32_t)b;
				ok = wlz_gpu_ent_add(&run[r], arc + in, in - m->offset, e->csize[k], e->codec[k], e->rsize[k],
						     blk[b].s_off[k]);
				in += e->csize[k];
			}
		}
		ok = ok && wlz_gpu_ent_plan_finish(&run[r]);
	}
	if (ok) {
		/* (placed, each run's segments name the tables of all: total
		 * holds only the counts) */
		size_t nseg = 0;
		for (unsigned r = 0; r < nrun; r++) {
			wlz_gpu_ent_plan_place(&run[r], &total);
			nseg += run[r].nseg;
		}
		for (unsigned r = 0; r < nrun; r++)
			for (size_t s = 0; s < run[r].nseg; s++) {
				const wlz_gpu_seg *g = &run[r].seg[s];
				if (g->blk >= nb || (g->ntab && g->tab + g->ntab > total.ntab))
					abort();
			}
		for (uint64_t b = 0; b < nb && nseg <= 4096; b++)
			for (int s = 0; s < WLZ_NSTREAMS; s++) {
				const uint64_t lo = blk[b].s_off[s], n = m->blocks[b].rsize[s];
				uint64_t got = 0;
				for (unsigned r = 0; r < nrun; r++)
					got += covered(&run[r], b, lo, lo + n);
				if (got != n)
					abort();
			}
	}
	for (unsigned r = 0; r < nrun; r++)
		wlz_gpu_ent_plan_free(&run[r]);
	free(blk);
}

static void split_pieces(const wlz_member *m, int ng)
{
	const uint32_t shift = wlz_gpu_split_shift(m, 8);
	const uint64_t ngroups = (m->nblocks + 7) / 8;
	uint64_t pg[WLZ_GPU_SPLIT_PIECES + 1];
	const uint64_t np = wlz_gpu_split_cut(ngroups, ng, shift != 0, 0, pg);
	if (!ngroups)
		return;
	if (np < 1 || np > WLZ_GPU_SPLIT_PIECES || pg[0] != 0 || pg[np] != ngroups)
		abort();
	for (uint64_t k = 1; k <= np; k++)
		if (pg[k] <= pg[k - 1] || (k < np && pg[k] % (uint64_t)ng))
			abort();
}

/* The fetch's copies, on the host ("device memory" is host memory here). */
static int copy_host(void *opaque, const wlz_gpu_hrange *r, size_t n)
{
	(void)opaque;
	for (size_t k = 0; k < n; k++)
		memcpy(r[k].dst, r[k].src, r[k].len);
	return 0;
}

static void image(const uint8_t *data, size_t size, uint8_t stale)
{
	uint8_t *img = malloc(size + 1);
	wlz_gpu_headers *x = wlz_gpu_headers_create();
	wlz_gpu_harc a = {data, size, img, 0};
	if (img)
		memset(img, stale, size);
	if (img && x && wlz_gpu_headers_fetch(x, &a, 1, copy_host, NULL) == 0 && a.ok) {
		const wlz_gpu_layout lay = wlz_gpu_headers_layout(x, 0);
		wlz_gpu_call s, f;
		memset(&s, 0, sizeof s);
		memset(&f, 0, sizeof f);
		if (wlz_gpu_call_add_checked(&s, img, data, size, LIMIT, 0, &lay) == WLZ_OK) {
			if (wlz_gpu_call_add(&f, data, NULL, size, LIMIT, 0) != WLZ_OK || f.nm != s.nm || f.nblk != s.nblk ||
			    wlz_gpu_call_cut(&s, 256 << 10) != WLZ_OK || wlz_gpu_call_cut(&f, 256 << 10) != WLZ_OK ||
			    f.np != s.np)
				abort();
			wlz_gpu_prep ps, pf;
			memset(&ps, 0, sizeof ps);
			memset(&pf, 0, sizeof pf);
			for (uint64_t k = 0; k < s.np; k++) {
				wlz_gpu_prep_build(&s, k, &ps);
				wlz_gpu_prep_build(&f, k, &pf);
				if (!same_prep(&ps, &pf, s.pc[k].nb))
					abort();
			}
			wlz_gpu_prep_free(&ps);
			wlz_gpu_prep_free(&pf);
		}
		wlz_gpu_call_free(&s);
		wlz_gpu_call_free(&f);
	}
	wlz_gpu_headers_free(x);
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const unsigned par = data[0];
	data++, size--;
	wlz_gpu_call c;
	memset(&c, 0, sizeof c);
	if (wlz_gpu_call_add(&c, data, NULL, size, LIMIT, 0) == WLZ_OK &&
	    wlz_gpu_call_cut(&c, (uint64_t)1 << (16 + (par & 7))) == WLZ_OK) {
		pieces(&c);
		for (size_t k = 0; k < c.nm; k++) {
			split_plan(c.mem[k].harc, &c.mem[k].m, 1 + (par >> 3 & 3));
			split_pieces(&c.mem[k].m, 2 + (int)(par >> 5));
		}
	}
	wlz_gpu_call_free(&c);
	image(data, size, par & 1 ? 0xA5 : 0);
	return 0;
}
