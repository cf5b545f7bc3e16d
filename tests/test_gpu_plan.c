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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/ent.h"
#include "common/huf.h"
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

int main(void)
{
	const uint64_t seed = tu_seed(17);
	const size_t n = 3u << 20;
	uint8_t *in = tu_xmalloc(n);
	tu_fill(TU_FASTQ, in, n, seed);
	size_t asize = 0;
	uint8_t *arc = tu_compress(in, n, 16, 18, &asize);

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
