/*
 * test_gcref.c - the GPU compressor's steps, run by its CPU reference
 * (gpu_compress/gc_ref.c), write archives that the CPU decoder reads back
 * bit-exact, whose block headers state max_level and chained exactly and
 * whose levels keep the depth limit.  No GPU needed: the GPU must write
 * the same bytes (tests/gpu_compress.c checks that on a device).
 *
 * usage: test_gcref [FILE.zst ...]   (real-data slices, optional)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavelz.h"
#include "gpu_compress/gc_host.h"
#include "testutil.h"

static wlz_dctx *dctx;

/* Compresses src with o, decodes it, and checks the archive's claims.
 * Returns the archive size (0 on a failure). */
static size_t one(const char *what, const uint8_t *src, size_t n, const wlz_gpu_copts *o)
{
	const size_t cap = wlz_gpu_compress_bound(n);
	uint8_t *arc = tu_xmalloc(cap), *back = tu_xmalloc(n + 1);
	size_t an = 0, dn = 0;
	wlz_error e = wlz_gc_ref_compress(o, arc, cap, src, n, &an);
	TU_CHECK(e == WLZ_OK, "%s: compress: %s (%s)", what, wlz_error_name(e), wlz_error_detail());
	if (e) {
		free(arc), free(back);
		return 0;
	}
	e = wlz_decompress(dctx, back, n + 1, arc, an, &dn);
	TU_CHECK(e == WLZ_OK, "%s (S=%u depth %d B=2^%u): decode: %s (%s)", what, o->symbol, o->depth, o->block_log,
		 wlz_error_name(e), wlz_error_detail());
	TU_CHECK(e || (dn == n && memcmp(back, src, n) == 0), "%s: decoded %zu bytes, not the input's %zu", what, dn,
		 n);
	/* one member for up to 2 GiB: its recorded levels against recomputed */
	wlz_info info;
	e = wlz_get_info(arc, an, &info);
	TU_CHECK(e == WLZ_OK && info.archive_size == an && info.depth == o->depth &&
			 info.block_log == o->block_log,
		 "%s: info: %s, depth %d", what, wlz_error_name(e), info.depth);
	wlz_stats st;
	e = wlz_get_stats(arc, an, &st);
	TU_CHECK(e == WLZ_OK, "%s: stats: %s", what, wlz_error_name(e));
	if (!e) {
		TU_CHECK(st.index_understated == 0 && st.chained_misstated == 0,
			 "%s: %llu blocks understate max_level, %llu misstate chained", what,
			 (unsigned long long)st.index_understated, (unsigned long long)st.chained_misstated);
		TU_CHECK(st.max_level <= (unsigned)o->depth, "%s: a level of %u over depth %d", what, st.max_level,
			 o->depth);
		TU_CHECK(st.max_level == info.max_level, "%s: recorded max_level %u, recomputed %u", what,
			 info.max_level, st.max_level);
	}
	free(arc), free(back);
	return e ? 0 : an;
}

static void opts(wlz_gpu_copts *o, unsigned block_log, int depth, unsigned sym)
{
	wlz_gpu_copts_init(o);
	o->block_log = block_log;
	o->depth = depth;
	o->symbol = sym;
}

/* int16 and float32 fields: smooth, so that whole elements repeat. */
static void fill_numeric(uint8_t *buf, size_t n, unsigned width, uint64_t seed)
{
	tu_rng r;
	tu_rng_seed(&r, seed);
	double v = 0;
	for (size_t i = 0; i + width <= n; i += width) {
		v += (double)(int)tu_rng_below(&r, 5) - 2;
		if (width == 2) {
			const int16_t x = (int16_t)v;
			memcpy(buf + i, &x, 2);
		} else {
			const float x = (float)((int)v / 4) * 0.25f;
			memcpy(buf + i, &x, 4);
		}
	}
	memset(buf + n / width * width, 0, n % width);
}

int main(int argc, char **argv)
{
	const uint64_t seed = tu_seed(20261127);
	dctx = wlz_dctx_create(2);
	wlz_gpu_copts o;

	/* hostile sizes around blocks and chunks, every kind of generated data */
	static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 11, 12, 13, 4095, 4096, 4097, 65535, 65536, 65537, 200000};
	for (int k = 0; k < TU_KIND_COUNT; k++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			const size_t n = sizes[i];
			uint8_t *buf = tu_xmalloc(n + 1);
			tu_fill(k, buf, n, seed + i);
			char what[64];
			snprintf(what, sizeof(what), "%s %zu", tu_kind_name(k), n);
			opts(&o, 16, 10, 1);
			one(what, buf, n, &o);
			free(buf);
		}

	/* depths, block sizes and symbol widths on 3 MB of FASTQ and text */
	const size_t n = 3u << 20;
	uint8_t *buf = tu_xmalloc(n);
	for (int k = TU_TEXT; k <= TU_FASTQ; k++) {
		tu_fill(k, buf, n, seed ^ (uint64_t)k);
		static const int depths[] = {0, 1, 2, 10, 200};
		for (size_t d = 0; d < 5; d++)
			for (unsigned bl = 16; bl <= 20; bl += 4) {
				opts(&o, bl, depths[d], 1);
				one(tu_kind_name(k), buf, n, &o);
			}
		for (unsigned s = 2; s <= 4; s += 2) {
			opts(&o, 20, 10, s);
			one(tu_kind_name(k), buf, n, &o);
		}
	}

	/* typed arrays: S matching the element width is smaller than S = 1 */
	for (unsigned w = 2; w <= 4; w += 2) {
		fill_numeric(buf, n, w, seed + w);
		opts(&o, 20, 10, 1);
		const size_t a1 = one(w == 2 ? "int16 S=1" : "float32 S=1", buf, n, &o);
		opts(&o, 20, 10, w);
		const size_t aw = one(w == 2 ? "int16 S=2" : "float32 S=4", buf, n, &o);
		printf("%s field: S=1 %zu bytes, S=%u %zu bytes\n", w == 2 ? "int16" : "float32", a1, w, aw);
	}
	free(buf);

	/* real slices: every depth of the bench */
	for (int i = 1; i < argc; i++) {
		size_t rn = 0;
		uint8_t *real = tu_read_zst(argv[i], &rn);
		TU_CHECK(real != NULL, "%s: unreadable", argv[i]);
		if (!real)
			continue;
		static const int depths[] = {2, 10, 200};
		for (size_t d = 0; d < 3; d++) {
			opts(&o, 20, depths[d], 1);
			const size_t an = one(argv[i], real, rn, &o);
			printf("%s depth %d: %zu -> %zu (%.2f%%)\n", argv[i], depths[d], rn, an, 100.0 * an / rn);
		}
		free(real);
	}
	/* options out of range are refused, not clamped */
	{
		uint8_t x[64], a[4096];
		size_t an;
		memset(x, 1, sizeof(x));
		opts(&o, 20, 201, 1);
		TU_CHECK(wlz_gc_ref_compress(&o, a, sizeof(a), x, sizeof(x), &an) == WLZ_ERR_PARAM, "depth 201 accepted");
		opts(&o, 20, 10, 3);
		TU_CHECK(wlz_gc_ref_compress(&o, a, sizeof(a), x, sizeof(x), &an) == WLZ_ERR_PARAM, "symbol 3 accepted");
		opts(&o, 23, 10, 1);
		TU_CHECK(wlz_gc_ref_compress(&o, a, sizeof(a), x, sizeof(x), &an) == WLZ_ERR_PARAM, "block_log 23 accepted");
	}
	wlz_dctx_free(dctx);
	return tu_finish("gcref");
}
