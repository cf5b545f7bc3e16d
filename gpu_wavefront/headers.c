/*
 * headers.c - the structure of device-resident archives fetched into host
 * images (headers.h).  Each round lists byte ranges, copies them on the
 * GPU into one packed buffer (ranges.cu), takes that down in one transfer
 * and spreads it over the images:
 *   1. footers, from each archive's end back to its start (a member a
 *      round);
 *   2. each member's header and index;
 *   3. the block headers the index names;
 *   4. the part tables of the codec-2 streams the block headers give;
 *   5. each run part's byte and each Huffman part's fixed header;
 *   6. the rest of each Huffman part's header: its tables and segment
 *      sizes, as long as the fixed header says.
 * Anything that does not hold together leaves the archive not ok.
 */
#include <stdlib.h>
#include <string.h>
#include "common/ent.h"
#include "format/format.h"
#include "gpu_wavefront/headers.h"
#include "gpu_wavefront/plan.h"

/* A walk over more members than this goes to the whole copy (a round
 * each). */
#define MAX_MEMBER_ROUNDS 64
#define MEMBER_MIN (WLZ_HEADER_SIZE + WLZ_INDEX_FIXED + WLZ_FOOTER_SIZE)
#define HUF_FIXED 34 /* a Huffman part's first bytes: seg_log, T, the bitmap */

struct req {
	size_t a;
	uint64_t off, len;
};

/* A codec-2 stream whose part table round 4 fetched. */
struct stream {
	size_t a;
	uint64_t at, csize, rsize;
};

struct wlz_gpu_headers {
	struct req *r;
	size_t nr, rcap;
	struct stream *st;      /* codec-2 streams (round 4) */
	size_t nst, stcap;
	struct stream *hp;      /* their Huffman parts (round 5): csize, rsize the part's */
	size_t hpcap;
	wlz_gpu_lmember *m;     /* members of every archive, each archive's in order */
	size_t nm, mcap;
	size_t *first, *count;  /* per archive: its members in m */
	size_t acap;
	wlz_gpu_hrange *hr;     /* a round's ranges, as copy takes them */
	size_t hrcap;
	wlz_gpu_copy_fn copy;
	void *opaque;
};

wlz_gpu_headers *wlz_gpu_headers_create(void)
{
	return calloc(1, sizeof(wlz_gpu_headers));
}

void wlz_gpu_headers_free(wlz_gpu_headers *x)
{
	if (!x)
		return;
	free(x->r);
	free(x->st);
	free(x->hp);
	free(x->m);
	free(x->first);
	free(x->count);
	free(x->hr);
	free(x);
}

/* Asks for bytes [off, off + len) of archive i, or marks it not ok where
 * they lie outside it.  0 when memory ran out. */
static int want(wlz_gpu_headers *x, wlz_gpu_harc *a, size_t i, uint64_t off, uint64_t len)
{
	if (off > a[i].size || len > a[i].size - off) {
		a[i].ok = 0;
		return 1;
	}
	if (!len)
		return 1;
	if (!wlz_gpu_grow((void **)&x->r, &x->rcap, x->nr + 1, sizeof *x->r))
		return 0;
	x->r[x->nr++] = (struct req){i, off, len};
	return 1;
}

/* The round: every range asked for copied into its image. */
static int fetch(wlz_gpu_headers *x, wlz_gpu_harc *a)
{
	const size_t n = x->nr;
	if (!n)
		return 0;
	if (!wlz_gpu_grow((void **)&x->hr, &x->hrcap, n, sizeof *x->hr))
		return -1;
	for (size_t k = 0; k < n; k++)
		x->hr[k] = (wlz_gpu_hrange){a[x->r[k].a].d + x->r[k].off, a[x->r[k].a].h + x->r[k].off, x->r[k].len};
	x->nr = 0;
	return x->copy(x->opaque, x->hr, n) ? -1 : 0;
}

/* Round 1: each archive's members from its footers, walked back from its
 * end. */
static int walk_members(wlz_gpu_headers *x, wlz_gpu_harc *a, size_t n)
{
	uint64_t *end = malloc((n ? n : 1) * sizeof *end);
	if (!end)
		return -1;
	for (size_t i = 0; i < n; i++) {
		end[i] = a[i].size;
		x->count[i] = 0;
		a[i].ok = a[i].size > 0;
	}
	/* members found back to front, in x->m by archive after the loop */
	wlz_gpu_lmember *rev = NULL;
	size_t nrev = 0, revcap = 0;
	size_t *owner = NULL, ocap = 0;
	int rc = 0;
	for (int round = 0; rc == 0; round++) {
		size_t walking = 0;
		for (size_t i = 0; i < n; i++) {
			if (!a[i].ok || !end[i])
				continue;
			if (round == MAX_MEMBER_ROUNDS || end[i] < MEMBER_MIN) {
				a[i].ok = 0;
				continue;
			}
			if (!want(x, a, i, end[i] - WLZ_FOOTER_SIZE, WLZ_FOOTER_SIZE)) {
				rc = -1;
				break;
			}
			walking++;
		}
		if (rc || !walking)
			break;
		if ((rc = fetch(x, a)))
			break;
		for (size_t i = 0; i < n; i++) {
			if (!a[i].ok || !end[i])
				continue;
			uint64_t ioff, msize;
			/* (an index of n entries follows n block headers: a
			 * footer that gives it more room is refused before the
			 * index is fetched) */
			if (wlz_footer_read(a[i].h + end[i] - WLZ_FOOTER_SIZE, &ioff, &msize) != WLZ_OK ||
			    msize > end[i] || msize < MEMBER_MIN || ioff < WLZ_HEADER_SIZE ||
			    ioff > msize - WLZ_INDEX_FIXED - WLZ_FOOTER_SIZE ||
			    (msize - WLZ_FOOTER_SIZE - ioff - WLZ_INDEX_FIXED) / WLZ_INDEX_ENTRY_SIZE >
				    (ioff - WLZ_HEADER_SIZE) / WLZ_BHEAD_SIZE) {
				a[i].ok = 0;
				continue;
			}
			if (!wlz_gpu_grow((void **)&rev, &revcap, nrev + 1, sizeof *rev) ||
			    !wlz_gpu_grow((void **)&owner, &ocap, nrev + 1, sizeof *owner)) {
				rc = -1;
				break;
			}
			end[i] -= msize;
			owner[nrev] = i;
			rev[nrev++] = (wlz_gpu_lmember){end[i], msize, 0, ioff};
			x->count[i]++;
		}
	}
	/* each archive's members, front to back */
	size_t *fill = calloc(n ? n : 1, sizeof *fill);
	if (rc == 0 && (!fill || !wlz_gpu_grow((void **)&x->m, &x->mcap, nrev + 1, sizeof *x->m)))
		rc = -1;
	for (size_t i = 0, at = 0; rc == 0 && i < n; i++) {
		x->first[i] = at;
		at += x->count[i];
	}
	for (size_t k = 0; rc == 0 && k < nrev; k++) {
		const size_t i = owner[k];
		x->m[x->first[i] + x->count[i] - 1 - fill[i]++] = rev[k];
	}
	free(fill);
	x->nm = nrev;
	free(rev);
	free(owner);
	free(end);
	return rc;
}

/* Rounds 2 to 6 (see the top). */
static int member_rounds(wlz_gpu_headers *x, wlz_gpu_harc *a, size_t n)
{
	/* 2: headers and indexes */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; a[i].ok && j < x->count[i]; j++) {
			const wlz_gpu_lmember *m = &x->m[x->first[i] + j];
			if (!want(x, a, i, m->start, WLZ_HEADER_SIZE) ||
			    !want(x, a, i, m->start + m->ioff, m->size - WLZ_FOOTER_SIZE - m->ioff))
				return -1;
		}
	if (fetch(x, a))
		return -1;
	/* 3: the block headers the indexes name */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; a[i].ok && j < x->count[i]; j++) {
			wlz_gpu_lmember *m = &x->m[x->first[i] + j];
			const uint8_t *idx = a[i].h + m->start + m->ioff;
			const uint64_t isize = m->size - WLZ_FOOTER_SIZE - m->ioff, nb = wlz_index_blocks(idx);
			if (nb > isize / WLZ_INDEX_ENTRY_SIZE || wlz_index_size(nb) != isize) {
				a[i].ok = 0;
				break;
			}
			m->nblocks = nb;
			for (uint64_t b = 0; a[i].ok && b < nb; b++) {
				const uint64_t off = wlz_index_offset(idx, b);
				if (off < WLZ_HEADER_SIZE || off > m->ioff || m->ioff - off < WLZ_BHEAD_SIZE)
					a[i].ok = 0;
				else if (!want(x, a, i, m->start + off, WLZ_BHEAD_SIZE))
					return -1;
			}
		}
	if (fetch(x, a))
		return -1;
	/* 4: the part tables of the codec-2 streams */
	x->nst = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; a[i].ok && j < x->count[i]; j++) {
			const wlz_gpu_lmember *m = &x->m[x->first[i] + j];
			wlz_header h;
			if (wlz_header_read(a[i].h + m->start, WLZ_HEADER_SIZE, &h) != WLZ_OK) {
				a[i].ok = 0;
				break;
			}
			const uint8_t *idx = a[i].h + m->start + m->ioff;
			for (uint64_t b = 0; a[i].ok && b < m->nblocks; b++) {
				const uint64_t off = wlz_index_offset(idx, b);
				wlz_block_entry e;
				if (wlz_bhead_read(a[i].h + m->start + off, &h, &e) != WLZ_OK ||
				    wlz_payload_size(&e) > m->ioff - off - WLZ_BHEAD_SIZE) {
					a[i].ok = 0;
					break;
				}
				uint64_t at = m->start + off + WLZ_BHEAD_SIZE;
				for (int s = 0; s < WLZ_NSTREAMS; at += e.csize[s], s++) {
					if (e.codec[s] != WLZ_CODEC_HUF || !e.rsize[s] || !e.csize[s])
						continue;
					if (!wlz_gpu_grow((void **)&x->st, &x->stcap, x->nst + 1, sizeof *x->st))
						return -1;
					x->st[x->nst++] = (struct stream){i, at, e.csize[s], e.rsize[s]};
					const uint64_t t = e.csize[s] < WLZ_ENT_TABLE_MAX ? e.csize[s] : WLZ_ENT_TABLE_MAX;
					if (!want(x, a, i, at, t))
						return -1;
				}
			}
		}
	if (fetch(x, a))
		return -1;
	/* 5: each part's first bytes (a stream whose table does not parse
	 * is judged by the plan, from the same bytes): a run part's byte, a
	 * Huffman part's fixed header */
	size_t nh = 0;
	for (size_t k = 0; k < x->nst; k++) {
		const struct stream *s = &x->st[k];
		if (!a[s->a].ok)
			continue;
		wlz_ent_part pt[WLZ_ENT_MAX_PARTS];
		unsigned np;
		if (wlz_ent_parts(a[s->a].h + s->at, s->csize, s->rsize, pt, &np) != WLZ_OK)
			continue;
		for (unsigned p = 0; p < np; p++) {
			if (pt[p].kind == WLZ_PART_RAW)
				continue;
			const uint64_t at = s->at + pt[p].at, len = pt[p].kind == WLZ_PART_RUN ? 1 : HUF_FIXED;
			if (!want(x, a, s->a, at, len < pt[p].c ? len : pt[p].c))
				return -1;
			if (pt[p].kind == WLZ_PART_HUF && pt[p].c > HUF_FIXED) {
				if (!wlz_gpu_grow((void **)&x->hp, &x->hpcap, nh + 1, sizeof *x->hp))
					return -1;
				x->hp[nh++] = (struct stream){s->a, at, pt[p].c, pt[p].n};
			}
		}
	}
	if (fetch(x, a))
		return -1;
	/* 6: the rest of each Huffman part's header: tables and segment
	 * sizes */
	for (size_t k = 0; k < nh; k++) {
		const struct stream *s = &x->hp[k];
		const size_t head = wlz_huf_head_size(a[s->a].h + s->at, s->rsize);
		if (head > HUF_FIXED && !want(x, a, s->a, s->at + HUF_FIXED, (head < s->csize ? head : s->csize) - HUF_FIXED))
			return -1;
	}
	return fetch(x, a);
}

int wlz_gpu_headers_fetch(wlz_gpu_headers *x, wlz_gpu_harc *a, size_t n, wlz_gpu_copy_fn copy, void *opaque)
{
	x->nr = 0;
	x->copy = copy;
	x->opaque = opaque;
	if (!wlz_gpu_grow((void **)&x->first, &x->acap, n + 1, sizeof *x->first) ||
	    !(x->count = realloc(x->count, x->acap * sizeof *x->count)))
		return -1;
	if (walk_members(x, a, n))
		return -1;
	return member_rounds(x, a, n);
}

wlz_gpu_layout wlz_gpu_headers_layout(const wlz_gpu_headers *x, size_t i)
{
	return (wlz_gpu_layout){x->m + x->first[i], x->count[i]};
}
