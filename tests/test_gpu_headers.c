/*
 * test_gpu_headers.c - the structure of device-resident archives fetched
 * for the host (gpu_wavefront/headers.c), with memcpy standing in for the
 * GPU's copies, so no GPU is needed:
 *   - good archives (FASTQ, text, incompressible, empty, two members)
 *     are followed, and their fetched images plan exactly as the whole
 *     archives do (members, blocks, and every piece's stream segments and
 *     tables), from a small share of their bytes;
 *   - damaged archives (every byte of their headers, indexes and footers,
 *     block headers and stream headers flipped, and bytes of payload):
 *     whatever the image held before (zeros, the undamaged archive's
 *     bytes, or another archive's), an image the plan accepts is one
 *     whose whole archive it accepts too, with the same plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/ent.h"
#include "gpu_prep_cmp.h"
#include "gpu_wavefront/headers.h"
#include "gpu_wavefront/plan.h"
#include "testutil.h"
#include "wavelz.h"

#define LIMIT ((uint64_t)1 << 31)

static size_t copied;

/* The copies, on the host: here "device memory" is host memory. */
static int copy_host(void *opaque, const wlz_gpu_hrange *r, size_t n)
{
	(void)opaque;
	for (size_t k = 0; k < n; k++) {
		memcpy(r[k].dst, r[k].src, r[k].len);
		copied += r[k].len;
	}
	return 0;
}

/* Whether two plans of the same archive agree, piece by piece. */
static int same_plans(wlz_gpu_call *a, wlz_gpu_call *b)
{
	if (a->nm != b->nm || a->nblk != b->nblk || a->total != b->total)
		return 0;
	for (size_t i = 0; i < a->nm; i++)
		if (a->mem[i].m.nblocks != b->mem[i].m.nblocks || a->mem[i].m.size != b->mem[i].m.size ||
		    !same_bytes(a->mem[i].m.blocks, b->mem[i].m.blocks, a->mem[i].m.nblocks * sizeof(wlz_block_entry)))
			return 0;
	if (wlz_gpu_call_cut(a, 256 << 10) != WLZ_OK || wlz_gpu_call_cut(b, 256 << 10) != WLZ_OK || a->np != b->np)
		return 0;
	int same = 1;
	wlz_gpu_prep pa, pb;
	memset(&pa, 0, sizeof pa);
	memset(&pb, 0, sizeof pb);
	for (uint64_t k = 0; k < a->np && same; k++) {
		wlz_gpu_prep_build(a, k, &pa);
		wlz_gpu_prep_build(b, k, &pb);
		same = same_prep(&pa, &pb, a->pc[k].nb);
	}
	wlz_gpu_prep_free(&pa);
	wlz_gpu_prep_free(&pb);
	return same;
}

/* Plans arc from an image that held stale (or zeros) and then got what
 * the fetch took, and whole.  Returns whether the image was accepted;
 * where it was, the whole archive must be, with the same plan. */
static int check_image(const uint8_t *arc, size_t size, const uint8_t *stale, const char *what)
{
	uint8_t *img = tu_xmalloc(size + 1);
	if (stale)
		memcpy(img, stale, size);
	else
		memset(img, 0, size);
	wlz_gpu_harc a = {arc, size, img, 0};
	wlz_gpu_headers *x = wlz_gpu_headers_create();
	TU_CHECK(x && wlz_gpu_headers_fetch(x, &a, 1, copy_host, NULL) == 0, "%s: fetch failed", what);
	wlz_gpu_call s, f;
	memset(&s, 0, sizeof s);
	memset(&f, 0, sizeof f);
	wlz_gpu_layout lay = {NULL, 0};
	if (a.ok)
		lay = wlz_gpu_headers_layout(x, 0);
	const int took = a.ok && wlz_gpu_call_add_checked(&s, img, arc, size, LIMIT, 0, &lay) == WLZ_OK;
	const int whole = wlz_gpu_call_add(&f, arc, NULL, size, LIMIT, 0) == WLZ_OK;
	if (took) {
		TU_CHECK(whole, "%s: the image was accepted, the whole archive is not (%s)", what, wlz_error_detail());
		if (whole)
			TU_CHECK(same_plans(&s, &f), "%s: the image plans otherwise than the whole archive", what);
	}
	wlz_gpu_call_free(&s);
	wlz_gpu_call_free(&f);
	wlz_gpu_headers_free(x);
	free(img);
	return took;
}

/* A good archive: followed, and from under a tenth of its bytes when it
 * is large. */
static void good(const uint8_t *arc, size_t size, const char *what)
{
	copied = 0;
	TU_CHECK(check_image(arc, size, NULL, what), "%s: a good archive's structure was not followed", what);
	if (size > (1u << 20))
		TU_CHECK(copied < size / 10, "%s: %zu of %zu bytes fetched", what, copied, size);
}

/* Flips byte at of arc and checks the images over zeros, over the
 * undamaged archive and over another archive (other holds size bytes). */
static void flip(const uint8_t *arc, size_t size, uint8_t *bad, size_t at, const uint8_t *other, const char *what)
{
	memcpy(bad, arc, size);
	bad[at] ^= (uint8_t)(1u << (at % 8));
	char w[128];
	snprintf(w, sizeof w, "%s, byte %zu flipped", what, at);
	check_image(bad, size, NULL, w);
	check_image(bad, size, arc, w);
	check_image(bad, size, other, w);
}

int main(void)
{
	const uint64_t seed = tu_seed(29);
	const size_t n = 3u << 20;
	uint8_t *in = tu_xmalloc(n);
	const int kinds[3] = {TU_FASTQ, TU_TEXT, TU_RANDOM};
	const char *names[3] = {"FASTQ", "text", "incompressible"};
	uint8_t *arcs[3];
	size_t sizes[3];
	for (int k = 0; k < 3; k++) {
		tu_fill(kinds[k], in, n, seed + (uint64_t)k);
		arcs[k] = tu_compress(in, n, 16, 22, &sizes[k]);
		good(arcs[k], sizes[k], names[k]);
	}
	size_t esize = 0;
	uint8_t *empty = tu_compress(in, 0, 16, 22, &esize);
	good(empty, esize, "empty");

	/* Two members (as cat writes them), small: 8 blocks of FASTQ, then
	 * 4 of text. */
	size_t s1, s2;
	tu_fill(TU_FASTQ, in, 512 << 10, seed + 7);
	uint8_t *m1 = tu_compress(in, 512 << 10, 16, 22, &s1);
	tu_fill(TU_TEXT, in, 256 << 10, seed + 8);
	uint8_t *m2 = tu_compress(in, 256 << 10, 16, 22, &s2);
	const size_t size = s1 + s2;
	TU_CHECK(size <= sizes[0], "the pair is larger than the FASTQ archive it is laid over");
	uint8_t *two = tu_xmalloc(size), *bad = tu_xmalloc(size);
	memcpy(two, m1, s1);
	memcpy(two + s1, m2, s2);
	good(two, size, "two members");
	TU_CHECK(check_image(m2, s2, two, "the second member over the pair's bytes"),
		 "a member's image over stale bytes was not followed");

	/* Every byte the host reads, flipped: headers, footers, indexes, block
	 * headers and each stream's first bytes (its part table and the
	 * Huffman tables after it); then payload bytes at random. */
	wlz_gpu_call c;
	memset(&c, 0, sizeof c);
	TU_CHECK(wlz_gpu_call_add(&c, two, NULL, size, LIMIT, 0) == WLZ_OK, "plan: %s", wlz_error_detail());
	uint8_t *hit = calloc(size, 1);
	for (size_t i = 0; i < c.nm; i++) {
		const wlz_member *m = &c.mem[i].m;
		for (size_t b = 0; b < WLZ_HEADER_SIZE; b++)
			hit[m->offset + b] = 1;
		for (uint64_t b = 0; b < m->nblocks; b++) {
			const wlz_block_entry *e = &m->blocks[b];
			for (size_t k = 0; k < WLZ_BHEAD_SIZE; k++)
				hit[e->data_offset - WLZ_BHEAD_SIZE + k] = 1;
			uint64_t at = e->data_offset;
			for (int s = 0; s < WLZ_NSTREAMS; at += e->csize[s], s++)
				for (uint64_t k = 0; k < e->csize[s] && k < 600; k++)
					hit[at + k] = 1;
		}
		const uint64_t tail = wlz_index_size(m->nblocks) + WLZ_FOOTER_SIZE;
		for (uint64_t b = 0; b < tail; b++)
			hit[m->offset + m->size - tail + b] = 1;
	}
	wlz_gpu_call_free(&c);
	size_t flips = 0;
	for (size_t at = 0; at < size; at++)
		if (hit[at]) {
			flip(two, size, bad, at, arcs[0], "two members");
			flips++;
		}
	uint64_t x = seed | 1;
	for (int r = 0; r < 300; r++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		flip(two, size, bad, (size_t)(x % size), arcs[0], "two members");
	}
	TU_CHECK(flips > 1000, "only %zu structural bytes found", flips);

	free(hit);
	free(bad);
	free(two);
	free(m1);
	free(m2);
	free(empty);
	for (int k = 0; k < 3; k++)
		free(arcs[k]);
	free(in);
	return tu_finish("test_gpu_headers");
}
