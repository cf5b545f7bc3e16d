/*
 * gpu_compress.c - the GPU compressor on a device: its archives equal the
 * CPU reference's byte for byte, and decode bit-exact on the CPU and GPU
 * decoders; host-to-host and device-to-device alike; hostile sizes,
 * incompressible data, every symbol width and depth.  Exits 77 (skipped)
 * without a GPU.
 *
 * usage: gpu_compress [FILE.zst ...]   (real-data slices, optional)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "wavelz.h"
#include "wavelz_gpu.h"
#include "gpu_compress/gc_host.h"
#include "testutil.h"

static wlz_gcctx *gc;
static wlz_gdctx *gd;
static wlz_dctx *cpu;

static void one(const char *what, const uint8_t *src, size_t n, const wlz_gpu_copts *o)
{
	const size_t cap = wlz_gpu_compress_bound(n);
	uint8_t *a = tu_xmalloc(cap), *r = tu_xmalloc(cap), *back = tu_xmalloc(n + 1);
	size_t an = 0, rn = 0, dn = 0;
	char tag[160];
	snprintf(tag, sizeof(tag), "%s (%zu bytes, S=%u, depth %d, 2^%u blocks)", what, n, o->symbol, o->depth,
		 o->block_log);
	wlz_error e = wlz_gpu_compress(gc, o, a, cap, src, n, &an);
	TU_CHECK(e == WLZ_OK, "%s: GPU compress: %s (%s)", tag, wlz_error_name(e), wlz_error_detail());
	wlz_error er = wlz_gc_ref_compress(o, r, cap, src, n, &rn);
	TU_CHECK(er == WLZ_OK, "%s: reference: %s", tag, wlz_error_name(er));
	if (e || er)
		goto done;
	if (an != rn || memcmp(a, r, an) != 0) {
		size_t i = 0;
		while (i < an && i < rn && a[i] == r[i])
			i++;
		TU_CHECK(0, "%s: GPU archive (%zu bytes) differs from the reference's (%zu) at byte %zu", tag, an, rn, i);
	}
	e = wlz_decompress(cpu, back, n + 1, a, an, &dn);
	TU_CHECK(e == WLZ_OK && dn == n && memcmp(back, src, n) == 0, "%s: CPU decode: %s (%s)", tag,
		 wlz_error_name(e), wlz_error_detail());
	memset(back, 0, n + 1);
	e = wlz_gpu_decompress(gd, back, n + 1, a, an, &dn);
	TU_CHECK(e == WLZ_OK && dn == n && memcmp(back, src, n) == 0, "%s: GPU decode: %s (%s)", tag,
		 wlz_error_name(e), wlz_error_detail());
	/* device to device gives the same bytes, from an aligned source and
	 * from one a byte past a boundary (staged by the compressor) */
	for (unsigned off = 0; off < 2 && n <= (64u << 20); off++) {
		uint8_t *d_src = NULL;
		void *d_dst = NULL;
		size_t dsz = 0;
		if (cudaMalloc((void **)&d_src, n + 16) == cudaSuccess && cudaMalloc(&d_dst, cap) == cudaSuccess &&
		    cudaMemcpy(d_src + off, src, n, cudaMemcpyHostToDevice) == cudaSuccess) {
			e = wlz_gpu_compress_d2d(gc, o, d_dst, cap, d_src + off, n, &dsz, NULL);
			if (!e)
				e = wlz_gcctx_wait(gc);
			TU_CHECK(e == WLZ_OK, "%s: d2d (source +%u): %s (%s)", tag, off, wlz_error_name(e), wlz_error_detail());
			if (!e)
				TU_CHECK(dsz == an && cudaMemcpy(r, d_dst, dsz, cudaMemcpyDeviceToHost) == cudaSuccess &&
						 memcmp(r, a, an) == 0,
					 "%s: d2d archive (source +%u, %zu bytes) differs from host-to-host (%zu)", tag, off,
					 dsz, an);
		} else {
			TU_CHECK(0, "%s: no device memory for d2d", tag);
		}
		cudaFree(d_src);
		cudaFree(d_dst);
	}
	printf("%-60s %10zu -> %10zu  %6.2f%%\n", tag, n, an, n ? 100.0 * an / n : 0.0);
done:
	free(a), free(r), free(back);
}

static void opts(wlz_gpu_copts *o, unsigned block_log, int depth, unsigned sym)
{
	wlz_gpu_copts_init(o);
	o->block_log = block_log;
	o->depth = depth;
	o->symbol = sym;
}

int main(int argc, char **argv)
{
	if (wlz_gpu_count() < 1) {
		printf("gpu_compress: no GPU here: skipped\n");
		return 77;
	}
	const uint64_t seed = tu_seed(20261127);
	gc = wlz_gcctx_create(0);
	gd = wlz_gdctx_create(0);
	cpu = wlz_dctx_create(0);
	TU_CHECK(gc && gd && cpu, "contexts");
	if (!gc || !gd || !cpu)
		return tu_finish("gpu_compress");
	wlz_gpu_copts o;
	/* WLZ_GC_QUICK=1: the small cases only (under compute-sanitizer's
	 * memcheck); 2: fewer still (racecheck, which is slower); 3: text up to
	 * 64 KiB and the batch (racecheck of k_code, slower again) */
	const int quick = getenv("WLZ_GC_QUICK") ? atoi(getenv("WLZ_GC_QUICK")) : 0;
	static const size_t sizes[] = {0, 1, 3, 4, 12, 13, 4095, 4097, 65535, 65536, 65537, 1u << 20, (1u << 20) - 1,
				       (1u << 20) + 1, 5u << 20};
	for (int k = 0; k < TU_KIND_COUNT; k++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			const size_t n = sizes[i];
			if ((quick && n > (1u << 20)) || (quick > 1 && (n > 70000 || (k != TU_TEXT && k != TU_RANDOM))) ||
			    (quick > 2 && k != TU_TEXT))
				continue;
			uint8_t *buf = tu_xmalloc(n + 1);
			tu_fill(k, buf, n, seed + i);
			opts(&o, n < (1u << 20) ? 16 : 20, 10, 1);
			one(tu_kind_name(k), buf, n, &o);
			free(buf);
		}
	const size_t n = quick > 1 ? 256u << 10 : quick ? 1u << 20 : 6u << 20;
	uint8_t *buf = tu_xmalloc(n);
	for (int k = TU_TEXT; k <= TU_FASTQ && quick < 3; k++) {
		tu_fill(k, buf, n, seed ^ (uint64_t)k);
		static const int depths[] = {0, 2, 10, 200};
		for (size_t d = 0; d < 4; d++)
			one(tu_kind_name(k), buf, n, (opts(&o, 20, depths[d], 1), &o));
		for (unsigned s = 2; s <= 4; s += 2)
			one(tu_kind_name(k), buf, n, (opts(&o, 20, 10, s), &o));
		one(tu_kind_name(k), buf, n, (opts(&o, 16, 10, 1), &o));
		one(tu_kind_name(k), buf, n, (opts(&o, 22, 10, 1), &o));
	}
	free(buf);
	/* blocks cut into near segments (gc_near_seg: 256 KiB each, warmed up
	 * from the 128 KiB before), inputs ending inside a segment, every S */
	for (unsigned bl = 19; bl <= 21 && !quick; bl += 2) {
		const size_t B = (size_t)1 << bl, cuts[] = {B + (1u << 18) + 7, 2 * B - 4097};
		for (size_t c = 0; c < 2; c++) {
			uint8_t *sb = tu_xmalloc(cuts[c]);
			for (int k = TU_TEXT; k <= TU_FASTQ; k++) {
				tu_fill(k, sb, cuts[c], seed + bl + c);
				for (unsigned sy = 1; sy <= 4; sy *= 2)
					one(tu_kind_name(k), sb, cuts[c], (opts(&o, bl, 10, sy), &o));
			}
			free(sb);
		}
	}
	for (int i = 1; i < argc && !quick; i++) {
		size_t rn = 0;
		uint8_t *real = tu_read_zst(argv[i], &rn);
		TU_CHECK(real != NULL, "%s: unreadable", argv[i]);
		if (!real)
			continue;
		static const int depths[] = {2, 10, 200};
		for (size_t d = 0; d < 3; d++)
			one(argv[i], real, rn, (opts(&o, 20, depths[d], 1), &o));
		free(real);
	}
	/* a batch: each item's archive equal to its own call's, host to host
	 * and device to device; an item whose destination is too small fails
	 * alone */
	{
		enum { NB = 12 };
		wlz_gpu_citem it[NB], dit[NB];
		uint8_t *src[NB], *one[NB];
		size_t one_n[NB];
		void *d_src[NB], *d_dst[NB];
		opts(&o, 16, 10, 1);
		for (int i = 0; i < NB; i++) {
			const size_t sz = i == 3 ? 0 : ((size_t)1 << (8 + i)) + (size_t)i * 977;
			src[i] = tu_xmalloc(sz + 1);
			tu_fill(i % TU_KIND_COUNT, src[i], sz, seed + 100 + (uint64_t)i);
			const size_t cap = wlz_gpu_compress_bound(sz);
			one[i] = tu_xmalloc(cap);
			TU_CHECK(wlz_gpu_compress(gc, &o, one[i], cap, src[i], sz, &one_n[i]) == WLZ_OK, "batch item %d alone", i);
			it[i].src = src[i], it[i].src_size = sz, it[i].dst = tu_xmalloc(cap);
			it[i].dst_cap = i == 7 ? 10 : cap;
			d_src[i] = d_dst[i] = NULL;
			cudaMalloc(&d_src[i], sz + 1);
			cudaMalloc(&d_dst[i], cap);
			cudaMemcpy(d_src[i], src[i], sz, cudaMemcpyHostToDevice);
			dit[i].src = d_src[i], dit[i].src_size = sz, dit[i].dst = d_dst[i], dit[i].dst_cap = cap;
		}
		wlz_error e = wlz_gpu_compress_batch(gc, &o, it, NB, 0);
		TU_CHECK(e == WLZ_ERR_DST_TOO_SMALL, "batch: %s, not the small item's error", wlz_error_name(e));
		e = wlz_gpu_compress_batch(gc, &o, dit, NB, WLZ_GPU_SRC_DEVICE | WLZ_GPU_DST_DEVICE);
		TU_CHECK(e == WLZ_OK, "batch d2d: %s (%s)", wlz_error_name(e), wlz_error_detail());
		for (int i = 0; i < NB; i++) {
			if (i == 7) {
				TU_CHECK(it[i].err == WLZ_ERR_DST_TOO_SMALL, "batch item 7: %s", wlz_error_name(it[i].err));
			} else {
				TU_CHECK(it[i].err == WLZ_OK && it[i].dst_size == one_n[i] &&
						 memcmp(it[i].dst, one[i], one_n[i]) == 0,
					 "batch item %d differs from its own call", i);
			}
			uint8_t *back = tu_xmalloc(one_n[i] + 1);
			TU_CHECK(dit[i].err == WLZ_OK && dit[i].dst_size == one_n[i] &&
					 cudaMemcpy(back, d_dst[i], one_n[i], cudaMemcpyDeviceToHost) == cudaSuccess &&
					 memcmp(back, one[i], one_n[i]) == 0,
				 "batch d2d item %d differs from its own call", i);
			free(back), free(src[i]), free(one[i]), free(it[i].dst);
			cudaFree(d_src[i]), cudaFree(d_dst[i]);
		}
	}
	wlz_gcctx_free(gc);
	wlz_gdctx_free(gd);
	wlz_dctx_free(cpu);
	return tu_finish("gpu_compress");
}
