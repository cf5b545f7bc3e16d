/*
 * gc_host.c - geometry and member framing for the GPU compressor.
 */
#include "gpu_compress/gc_host.h"

#include <stdlib.h>
#include <string.h>

#include "common/wlz_internal.h"

void wlz_gpu_copts_init(wlz_gpu_copts *o)
{
	o->block_log = 20;
	o->depth = 10;
	o->symbol = 1;
}

static unsigned ceil_log2(uint64_t v)
{
	unsigned l = 0;
	while (((uint64_t)1 << l) < v)
		l++;
	return l;
}

wlz_error wlz_gc_geom(gc_geom *g, uint64_t n, const wlz_gpu_copts *o)
{
	if (!o || o->block_log < 16 || o->block_log > 22 || o->depth < 0 || o->depth > GC_MAX_DEPTH ||
	    (o->symbol != 1 && o->symbol != 2 && o->symbol != 4))
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: block_log 16..22, depth 0..%d, symbol 1, 2 or 4",
				GC_MAX_DEPTH);
	if (n > WLZ_GC_PIECE)
		return wlz_fail(WLZ_ERR_PARAM, "GPU compression: a member holds at most 2 GiB");
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->block_log = o->block_log;
	/* parse units of 1 KiB: four times the threads of 4 KiB for 0.04% of
	 * size (bench/host/issue17-gpu-compress.md) */
	g->chunk_log = 10;
	g->cap = (1u << g->chunk_log) / 3 + 1;
	g->nblocks = (n + ((uint64_t)1 << g->block_log) - 1) >> g->block_log;
	g->nchunks = (n + ((uint64_t)1 << g->chunk_log) - 1) >> g->chunk_log;
	g->near_log = 13;
	unsigned fl = ceil_log2(n / 4 + 1);
	g->far_log = fl < 16 ? 16 : fl > 27 ? 27 : fl;
	g->sym = o->symbol;
	g->depth = (uint32_t)o->depth;
	g->window = (uint64_t)1 << wlz_gc_window_log(g);
	g->raw_stride = gc_raw_end(g);
	g->segmax = (uint32_t)((((uint64_t)1 << g->block_log) + ((uint64_t)1 << GC_SEG_LOG) - 1) >> GC_SEG_LOG);
	return WLZ_OK;
}

unsigned wlz_gc_window_log(const gc_geom *g)
{
	const unsigned l = ceil_log2(g->n);
	return l < g->block_log ? g->block_log : l > 31 ? 31 : l;
}

void wlz_gc_member_head(const gc_geom *g, uint8_t h[32])
{
	memset(h, 0, 32);
	h[0] = 0x89, h[1] = 'W', h[2] = 'L', h[3] = 'Z';
	wlz_wr16(h + 4, 5);
	h[8] = (uint8_t)g->block_log;
	h[9] = 1;
	h[10] = (uint8_t)g->depth;
	h[11] = (uint8_t)wlz_gc_window_log(g);
	wlz_wr64(h + 16, g->n);
	wlz_wr64(h + 24, wlz_xxh3(h, 24));
}

wlz_error wlz_gc_member_tail(const gc_geom *g, uint64_t index_off, const uint64_t *blk_off, const uint64_t *hash,
			     uint8_t *dst)
{
	const uint64_t nb = g->nblocks;
	uint8_t *p = dst;
	memcpy(p, "wlzI", 4);
	wlz_wr32(p + 4, 0);
	wlz_wr64(p + 8, nb);
	for (uint64_t b = 0; b < nb; b++) {
		wlz_wr64(p + 16 + 16 * b, blk_off[b]);
		wlz_wr64(p + 24 + 16 * b, hash[b]);
	}
	wlz_wr64(p + 16 + 16 * nb, g->n);
	/* the digest hashes the checksums back to back, little-endian */
	uint8_t *le = malloc(8 * nb + 1);
	if (!le)
		return wlz_fail(WLZ_ERR_NOMEM, "GPU compression: no memory for the index");
	for (uint64_t b = 0; b < nb; b++)
		wlz_wr64(le + 8 * b, hash[b]);
	wlz_wr64(p + 24 + 16 * nb, wlz_xxh3(le, 8 * nb));
	free(le);
	wlz_wr64(p + 32 + 16 * nb, wlz_xxh3(p, 32 + 16 * nb));
	p += 40 + 16 * nb;
	wlz_wr64(p, index_off);
	wlz_wr64(p + 8, index_off + 40 + 16 * nb + 24);
	memcpy(p + 16, "wlzEND\r\n", 8);
	return WLZ_OK;
}

uint64_t wlz_gc_member_bound(uint64_t n, unsigned block_log)
{
	const uint64_t nb = (n + ((uint64_t)1 << block_log) - 1) >> block_log;
	/* a stream is stored raw at worst: P <= the sum of rsize, which the
	 * parse's shortest matches (gc_min_match) keep under 2L */
	return 32 + n / 2 * 5 + 8 + nb * (80 + 16) + 64;
}

size_t wlz_gpu_compress_bound(uint64_t n)
{
	uint64_t t = 0;
	do {
		const uint64_t m = n < WLZ_GC_PIECE ? n : WLZ_GC_PIECE;
		t += wlz_gc_member_bound(m, 16);
		n -= m;
	} while (n);
	return (size_t)t;
}
