/*
 * test_gpu_plan.c - the GPU decoder's host side, which needs no GPU: the
 * call's plan (members, blocks, pieces, runs of stored bytes) and each
 * piece's preparation (block layout, checks' arrays, stream segments).
 *   - Every stream of every block is covered by its segments exactly: the
 *     decoded bytes of each (block, stream) add up to its size.
 *   - Pieces prepared by the worker threads equal those prepared on the
 *     caller's thread, again and again (slots reused).
 *   - A Huffman part whose last segment's size is damaged flags its block
 *     only, and leaves none of its segments behind (its first ones were
 *     planned before the size was read); the other blocks keep theirs.
 *   - Plans made in runs of blocks, each finished and placed after the
 *     ones before (the split's way, wlz_gpu_ent_plan_place), form one
 *     plan of the same segments and tables as a plan made whole, in
 *     groups that keep the kernel's rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/ent.h"
#include "common/huf.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/parse.h"
#include "gpu_wavefront/prep.h"
#include "gpu_prep_cmp.h"
#include "testutil.h"
#include "wavelz.h"

/* Decoded bytes the segments of block i give to stream s. */
static uint64_t covered(const wlz_gpu_prep *p, uint64_t i, int s)
{
	const uint64_t lo = p->blk[i].s_off[s], hi = lo + p->blk[i].rsize[s];
	uint64_t n = 0;
	for (size_t k = 0; k < p->plan.nseg; k++) {
		const wlz_gpu_seg *g = &p->plan.seg[k];
		if (g->blk == i && g->out_off >= lo && g->out_off < hi)
			n += g->m;
	}
	return n;
}

/* Every block of every piece: segments cover its streams (unless the
 * block is flagged), tables in range; returns the blocks flagged. */
static unsigned check_pieces(const wlz_gpu_call *c, const char *what, long flag_want)
{
	wlz_gpu_prep p;
	memset(&p, 0, sizeof p);
	unsigned flagged = 0;
	for (uint64_t k = 0; k < c->np; k++) {
		const wlz_gpu_piece *pc = &c->pc[k];
		wlz_gpu_prep_build(c, k, &p);
		TU_CHECK(p.err == WLZ_OK, "%s: piece %llu: %s", what, (unsigned long long)k, p.detail);
		for (size_t s = 0; s < p.plan.nseg; s++) {
			const wlz_gpu_seg *g = &p.plan.seg[s];
			TU_CHECK(g->blk < pc->nb && (!g->ntab || g->tab + g->ntab <= p.plan.ntab),
				 "%s: piece %llu: segment %zu: block %u, tables %u+%u of %zu", what,
				 (unsigned long long)k, s, g->blk, g->tab, g->ntab, p.plan.ntab);
		}
		for (uint64_t i = 0; i < pc->nb; i++) {
			const long f = (long)(pc->f0 + i);
			if (p.hfl[i]) {
				flagged++;
				TU_CHECK(f == flag_want, "%s: block %ld flagged", what, f);
				for (int s = 0; s < WLZ_NSTREAMS; s++)
					TU_CHECK(covered(&p, i, s) == 0, "%s: flagged block %ld keeps segments", what, f);
				continue;
			}
			for (int s = 0; s < WLZ_NSTREAMS; s++)
				TU_CHECK(covered(&p, i, s) == p.blk[i].rsize[s], "%s: block %ld stream %d: %llu of %u bytes",
					 what, f, s, (unsigned long long)covered(&p, i, s), p.blk[i].rsize[s]);
		}
	}
	wlz_gpu_prep_free(&p);
	return flagged;
}

/* The streams of blocks [b0, b1) of m into p, at the places blk gives. */
static int plan_blocks(wlz_gpu_ent_plan *p, const uint8_t *arc, const wlz_member *m, uint64_t b0, uint64_t b1,
		       const wlz_gpu_pblock *blk)
{
	for (uint64_t b = b0; b < b1; b++) {
		const wlz_block_entry *e = &m->blocks[b];
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			p->blk = (uint32_t)b;
			if (!wlz_gpu_ent_add(p, arc + in, in - m->offset, e->csize[k], e->codec[k], e->rsize[k],
					     blk[b].s_off[k]))
				return 0;
			in += e->csize[k];
		}
	}
	return 1;
}

static int by_out(const void *a, const void *b)
{
	const uint64_t x = ((const wlz_gpu_seg *)a)->out_off, y = ((const wlz_gpu_seg *)b)->out_off;
	return x < y ? -1 : x > y;
}

/* Runs of m's blocks planned apart and placed (as split.c does) against
 * one plan of them all: the failures found. */
static unsigned check_runs(const uint8_t *arc, const wlz_member *m, unsigned nrun)
{
	const uint64_t nb = m->nblocks;
	wlz_gpu_pblock *blk = tu_xmalloc((nb + 1) * sizeof *blk);
	uint64_t sb = 0, nt = 0, ns = 0, at = 0;
	for (uint64_t b = 0; b < nb; b++) {
		blk[b] = wlz_gpu_pblock_next(&m->blocks[b], at, 0, (uint64_t)1 << m->h.window_log, &sb, &nt, &ns);
		at += m->blocks[b].length;
	}
	wlz_gpu_ent_plan one, total, run[8];
	memset(&one, 0, sizeof one);
	memset(&total, 0, sizeof total);
	memset(run, 0, sizeof run);
	unsigned bad = 0;
	if (!plan_blocks(&one, arc, m, 0, nb, blk) || !wlz_gpu_ent_plan_finish(&one))
		bad++;
	for (unsigned r = 0; r < nrun; r++)
		if (!plan_blocks(&run[r], arc, m, nb * r / nrun, nb * (r + 1) / nrun, blk) ||
		    !wlz_gpu_ent_plan_finish(&run[r]))
			bad++;
	for (unsigned r = 0; r < nrun; r++)
		wlz_gpu_ent_plan_place(&run[r], &total);
	if (bad || total.nseg != one.nseg || total.ntab != one.ntab || total.max_tab != one.max_tab) {
		fprintf(stderr, "runs: %zu segments and %zu tables, whole: %zu and %zu\n", total.nseg, total.ntab,
			one.nseg, one.ntab);
		bad++;
	}
	/* The device's arrays: the runs' one after another. */
	wlz_gpu_seg *seg = tu_xmalloc((total.nseg + 1) * sizeof *seg);
	wlz_gpu_group *grp = tu_xmalloc((total.ngrp + 1) * sizeof *grp);
	uint8_t *codes = tu_xmalloc(total.ntab * 256 + 1);
	size_t ks = 0, kg = 0, kt = 0;
	for (unsigned r = 0; r < nrun; r++) {
		memcpy(seg + ks, run[r].seg, run[r].nseg * sizeof *seg);
		memcpy(grp + kg, run[r].grp, run[r].ngrp * sizeof *grp);
		memcpy(codes + kt * 256, run[r].codes, run[r].ntab * 256);
		ks += run[r].nseg, kg += run[r].ngrp, kt += run[r].ntab;
	}
	/* Groups: every segment in one, shared tables alike, packed ones few. */
	uint8_t *seen = calloc(total.nseg + 1, 1);
	for (size_t g = 0; g < total.ngrp && !bad; g++) {
		const wlz_gpu_group *q = &grp[g];
		if (q->nseg == 0 || q->nseg > WLZ_GPU_GROUP || q->seg + q->nseg > total.nseg ||
		    q->tab + q->ntab > total.ntab) {
			bad++;
			break;
		}
		for (uint32_t i = q->seg; i < q->seg + q->nseg; i++) {
			const wlz_gpu_seg *x = &seg[i];
			bad += seen[i]++ != 0;
			bad += q->ntab ? x->tab != q->tab || x->ntab != q->ntab : x->ntab > WLZ_GPU_OWN;
			bad += x->ntab && x->tab + x->ntab > total.ntab;
		}
	}
	for (size_t i = 0; i < total.nseg && !bad; i++)
		bad += !seen[i];
	/* The same segments, each with the same tables' codes. */
	if (!bad) {
		qsort(seg, total.nseg, sizeof *seg, by_out);
		qsort(one.seg, one.nseg, sizeof *seg, by_out);
		for (size_t i = 0; i < total.nseg; i++) {
			const wlz_gpu_seg *x = &seg[i], *y = &one.seg[i];
			if (x->in_off != y->in_off || x->out_off != y->out_off || x->in_size != y->in_size || x->m != y->m ||
			    x->ntab != y->ntab || x->blk != y->blk || (!x->ntab && x->tab != y->tab) ||
			    (x->ntab && memcmp(codes + (size_t)x->tab * 256, one.codes + (size_t)y->tab * 256,
					       (size_t)x->ntab * 256))) {
				bad++;
				break;
			}
		}
	}
	free(seen);
	free(codes);
	free(grp);
	free(seg);
	for (unsigned r = 0; r < nrun; r++)
		wlz_gpu_ent_plan_free(&run[r]);
	wlz_gpu_ent_plan_free(&one);
	free(blk);
	return bad;
}

/* The split's pieces (wlz_gpu_split_cut) for every count of groups and
 * GPUs up to a few thousand groups: whole rounds but the last, in order,
 * all groups once; one piece unless published; at most the wanted count;
 * and where ramped, the first piece no larger than the second, nor that
 * than the third. */
static void split_cuts(void)
{
	int bad = 0, ramps = 0;
	for (int ng = 2; ng <= 8 && !bad; ng++)
		for (uint64_t n = 1; n <= 3000 && !bad; n += n < 200 ? 1 : 37)
			for (uint64_t want = 0; want <= 10 && !bad; want++)
				for (int pub = 0; pub <= 1 && !bad; pub++) {
					uint64_t pg[WLZ_GPU_SPLIT_PIECES + 1];
					const uint64_t np = wlz_gpu_split_cut(n, ng, pub, want, pg);
					const uint64_t rounds = (n + (uint64_t)ng - 1) / (uint64_t)ng;
					int ok = np >= 1 && np <= WLZ_GPU_SPLIT_PIECES && pg[0] == 0 && pg[np] == n &&
						 (pub || np == 1) && (!want || np <= want);
					for (uint64_t k = 1; ok && k <= np; k++)
						ok = pg[k] > pg[k - 1] && (k == np || pg[k] % (uint64_t)ng == 0);
					if (ok && pub && !want && rounds >= 2 * WLZ_GPU_SPLIT_ROUNDS)
						ok = np >= 2;
					if (ok && np >= 3 && rounds >= 64 * WLZ_GPU_SPLIT_ROUNDS) {
						ramps++;
						ok = pg[1] - pg[0] <= pg[2] - pg[1] && pg[2] - pg[1] <= pg[3] - pg[2];
					}
					if (!ok) {
						bad = 1;
						TU_CHECK(0, "split cut: %llu groups, %d GPUs, want %llu, pub %d: %llu pieces",
							 (unsigned long long)n, ng, (unsigned long long)want, pub,
							 (unsigned long long)np);
					}
				}
	TU_CHECK(bad || ramps > 0, "split cut: no ramped case reached");
}

/* Where the split publishes groups whole (wlz_gpu_split_shift): the
 * archive of 64 KiB blocks in groups of 8 (2^19 bytes), not in groups of
 * 3; and the same content after 256 KiB of random bytes, whose first 4
 * blocks hold no token: groups of 8 still, of 4 not. */
static void split_shifts(const uint8_t *in, size_t n, const uint8_t *arc, size_t asize, uint64_t seed)
{
	wlz_member m;
	TU_CHECK(wlz_member_parse(arc, asize, 0, &m) == WLZ_OK, "shift: member: %s", wlz_error_detail());
	TU_CHECK(wlz_gpu_split_shift(&m, 8) == 19 && wlz_gpu_split_shift(&m, 1) == 16 &&
			 wlz_gpu_split_shift(&m, 3) == 0,
		 "shift: %u, %u, %u", wlz_gpu_split_shift(&m, 8), wlz_gpu_split_shift(&m, 1), wlz_gpu_split_shift(&m, 3));
	wlz_member_free(&m);
	const size_t r = 256 << 10;
	uint8_t *lead = tu_xmalloc(r + n);
	tu_fill(TU_RANDOM, lead, r, seed + 1);
	memcpy(lead + r, in, n);
	size_t lsize = 0;
	uint8_t *la = tu_compress(lead, r + n, 16, 18, &lsize);
	TU_CHECK(wlz_member_parse(la, lsize, 0, &m) == WLZ_OK, "shift: lead member: %s", wlz_error_detail());
	TU_CHECK(m.blocks[0].token_count == 0 && wlz_gpu_split_shift(&m, 8) == 19 && wlz_gpu_split_shift(&m, 4) == 0,
		 "shift (lead): first block %u tokens; %u, %u", (unsigned)m.blocks[0].token_count,
		 wlz_gpu_split_shift(&m, 8), wlz_gpu_split_shift(&m, 4));
	wlz_member_free(&m);
	free(la);
	free(lead);
}

int main(void)
{
	split_cuts();
	const uint64_t seed = tu_seed(17);
	const size_t n = 3u << 20;
	uint8_t *in = tu_xmalloc(n);
	tu_fill(TU_FASTQ, in, n, seed);
	size_t asize = 0;
	uint8_t *arc = tu_compress(in, n, 16, 18, &asize);

	split_shifts(in, n, arc, asize, seed);

	wlz_gpu_call c;
	memset(&c, 0, sizeof c);
	TU_CHECK(wlz_gpu_call_add(&c, arc, NULL, asize, (uint64_t)1 << 31, 0) == WLZ_OK, "plan: %s",
		 wlz_error_detail());
	TU_CHECK(c.total == n && c.nblk == (n + 65535) / 65536, "plan: %llu bytes, %zu blocks",
		 (unsigned long long)c.total, c.nblk);

	/* Pieces of 256 KiB: 4 blocks, and the last short. */
	TU_CHECK(wlz_gpu_call_cut(&c, 256 << 10) == WLZ_OK && c.np == (c.nblk + 3) / 4, "cut: %zu pieces", c.np);
	uint64_t blocks = 0;
	for (uint64_t k = 0; k < c.np; k++) {
		TU_CHECK(c.pc[k].f0 == blocks && c.pc[k].h1 - c.pc[k].h0 == c.pc[k].d1 - c.pc[k].d0,
			 "cut: piece %llu", (unsigned long long)k);
		blocks += c.pc[k].nb;
	}
	TU_CHECK(blocks == c.nblk, "cut: %llu of %zu blocks", (unsigned long long)blocks, c.nblk);
	TU_CHECK(check_pieces(&c, "whole archive", -1) == 0, "blocks flagged in a good archive");

	/* Pieces that ramp up: 2 blocks, then 4, 8, 16 and 16 until the end. */
	TU_CHECK(wlz_gpu_call_cut_ramp(&c, 128 << 10, 1 << 20) == WLZ_OK, "ramp");
	blocks = 0;
	for (uint64_t k = 0; k < c.np; k++) {
		const uint64_t want = k < 3 ? (uint64_t)2 << k : 16, left = c.nblk - blocks;
		TU_CHECK(c.pc[k].f0 == blocks && c.pc[k].nb == (want < left ? want : left), "ramp: piece %llu: %llu blocks",
			 (unsigned long long)k, (unsigned long long)c.pc[k].nb);
		blocks += c.pc[k].nb;
	}
	TU_CHECK(blocks == c.nblk, "ramp: %llu of %zu blocks", (unsigned long long)blocks, c.nblk);
	TU_CHECK(check_pieces(&c, "ramp", -1) == 0, "blocks flagged in a good archive (ramp)");

	/* Threads against the caller's thread, three times (slots reused):
	 * one piece of all blocks (its headers read on several threads), then
	 * pieces of 2 blocks (many pieces ahead of the consumer). */
	for (int round = 0; round < 2; round++) {
		TU_CHECK(wlz_gpu_call_cut(&c, round ? 128 << 10 : UINT64_MAX) == WLZ_OK, "cut");
		wlz_gpu_prep *ref = calloc(c.np, sizeof *ref);
		for (uint64_t k = 0; k < c.np; k++)
			wlz_gpu_prep_build(&c, k, &ref[k]);
		for (int rep = 0; rep < 3; rep++) {
			wlz_gpu_preparer *w = wlz_gpu_preparer_start(&c, 4);
			TU_CHECK(w != NULL, "preparer");
			if (!w)
				break;
			int differ = 0;
			for (uint64_t k = 0; k < c.np; k++) {
				differ += !same_prep(wlz_gpu_preparer_get(w, k), &ref[k], c.pc[k].nb);
				wlz_gpu_preparer_done(w, k);
			}
			wlz_gpu_preparer_stop(w);
			TU_CHECK(differ == 0, "round %d rep %d: %d of %zu pieces differ", round, rep, differ, c.np);
		}
		for (uint64_t k = 0; k < c.np; k++)
			wlz_gpu_prep_free(&ref[k]);
		free(ref);
	}

	/* Runs placed one after another, as the split plans. */
	for (unsigned nrun = 1; nrun <= 7; nrun += 3)
		TU_CHECK(check_runs(arc, &c.mem[0].m, nrun) == 0, "%u runs placed differ from one plan", nrun);

	/* A Huffman part damaged in its last segment's size, from block 5
	 * on: its first segments are planned before the size is found bad. */
	long target = -1;
	size_t where = 0;
	for (uint64_t i = 5; i < c.nblk && target < 0; i++) {
		const wlz_block_entry *e = &c.mem[0].m.blocks[i];
		uint64_t at = e->data_offset;
		for (int s = 0; s < WLZ_NSTREAMS && target < 0; at += e->csize[s], s++) {
			wlz_ent_part pt[WLZ_ENT_MAX_PARTS];
			unsigned np = 0;
			if (e->codec[s] != WLZ_CODEC_HUF ||
			    wlz_ent_parts(arc + at, e->csize[s], e->rsize[s], pt, &np) != WLZ_OK)
				continue;
			for (unsigned q = 0; q < np && target < 0; q++) {
				static wlz_huf_codes hc;
				if (pt[q].kind != WLZ_PART_HUF || wlz_huf_read_codes(arc + at + pt[q].at, pt[q].c, &hc))
					continue;
				const size_t segs = (pt[q].n + ((size_t)1 << hc.seg_log) - 1) >> hc.seg_log;
				if (segs >= 2) {
					target = (long)i;
					where = at + pt[q].at + hc.hdr + 4 * (segs - 1);
				}
			}
		}
	}
	if (target >= 0) {
		uint8_t *bad = tu_xmalloc(asize);
		memcpy(bad, arc, asize);
		memset(bad + where, 0xFF, 4);
		wlz_gpu_call_free(&c);
		memset(&c, 0, sizeof c);
		TU_CHECK(wlz_gpu_call_add(&c, bad, NULL, asize, (uint64_t)1 << 31, 0) == WLZ_OK, "damaged plan: %s",
			 wlz_error_detail());
		wlz_gpu_call_cut(&c, 256 << 10);
		const unsigned flagged = check_pieces(&c, "damaged", target);
		TU_CHECK(flagged == 1, "damaged: %u blocks flagged, block %ld wanted", flagged, target);
		wlz_gpu_call_free(&c);
		free(bad);
	}
	TU_CHECK(target >= 0, "no coded stream to damage");
	wlz_gpu_call_free(&c);
	free(arc);
	free(in);
	return tu_finish("test_gpu_plan");
}
