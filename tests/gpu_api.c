/*
 * gpu_api.c - the GPU decoder's API against the CPU decoder: every form
 * (host to host into pinned and plain memory, to a write function, check
 * only, host to device, device to device into an unaligned place on a
 * stream of the caller's), in pieces of a few blocks, and with so little
 * GPU memory that only the window stays resident.  Exit 77 without a GPU.
 *   gpu_api [--split-first] [FILE]   (FILE: real data to add, e.g. a FASTQ
 *   slice; --split-first: the split check before any other GPU work, as a
 *   fresh process's first call, when no kernel is loaded yet)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "testutil.h"
#include "wavelz.h"
#include "wavelz_gpu.h"

struct arc {
	const char *name;
	uint8_t *a, *want;
	size_t asize, size;
	int small_window; /* expect a decode with only the window resident */
};

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	*n = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		const long sz = ftell(f);
		if (sz > 0 && fseek(f, 0, SEEK_SET) == 0) {
			p = tu_xmalloc((size_t)sz);
			*n = fread(p, 1, (size_t)sz, f);
		}
	}
	fclose(f);
	return p;
}

struct stop_writer {
	int calls;
};

static int stop_write(void *opaque, const void *buf, size_t n)
{
	(void)buf, (void)n;
	((struct stop_writer *)opaque)->calls++;
	return 1;
}

/* WLZ_GPU_API_QUICK set: the first archive only, from 8 MiB of GPU
 * memory down (for compute-sanitizer's slow runs). */
static int quick;

static void check(wlz_gdctx *g, const struct arc *x)
{
	const char *nm = x->name;
	size_t got = 0;
	wlz_gpu_stats st;
	wlz_gdctx_set_gpu_memory(g, 0);
	wlz_gdctx_set_piece_size(g, 0);

	/* 1. Host to host, pinned, the pieces chosen. */
	uint8_t *pin = wlz_gpu_host_alloc(x->size + 1);
	TU_CHECK(pin != NULL, "%s: pinned memory", nm);
	wlz_error e = wlz_gpu_decompress(g, pin, x->size, x->a, x->asize, &got);
	TU_CHECK(e == WLZ_OK && got == x->size && !memcmp(pin, x->want, x->size), "%s: pinned: %s (%s)", nm,
		 wlz_error_name(e), wlz_error_detail());

	/* 2. Plain memory, pieces of two blocks. */
	wlz_gdctx_set_piece_size(g, 128 << 10);
	uint8_t *plain = tu_xmalloc(x->size + 1);
	memset(plain, 0xAA, x->size + 1);
	e = wlz_gpu_decompress(g, plain, x->size, x->a, x->asize, &got);
	wlz_gdctx_stats(g, &st);
	TU_CHECK(e == WLZ_OK && got == x->size && !memcmp(plain, x->want, x->size), "%s: pieces: %s (%s)", nm,
		 wlz_error_name(e), wlz_error_detail());
	TU_CHECK(!x->small_window || st.pieces > 2, "%s: %llu pieces of 128 KiB", nm,
		 (unsigned long long)st.pieces);
	/* check only */
	e = wlz_gpu_decompress(g, NULL, 0, x->a, x->asize, &got);
	TU_CHECK(e == WLZ_OK && got == x->size, "%s: check only: %s", nm, wlz_error_name(e));

	/* 3. A write function, in less and less GPU memory. */
	int slab = 0, fits = 0;
	for (uint64_t mem = (uint64_t)(quick ? 8 : 64) << 20; mem >= (64 << 10); mem /= 2) {
		wlz_gdctx_set_gpu_memory(g, mem);
		tu_cmpwr w = {x->want, x->size, 0, 0, 0};
		uint64_t n = 0;
		e = wlz_gpu_decompress_stream(g, x->a, x->asize, tu_cmp_write, &w, &n);
		if (e == WLZ_ERR_NOMEM)
			break;
		wlz_gdctx_stats(g, &st);
		TU_CHECK(e == WLZ_OK && !w.differ && w.at == x->size && n == x->size,
			 "%s: stream in %llu KiB: %s (%s), %zu of %zu", nm, (unsigned long long)(mem >> 10),
			 wlz_error_name(e), wlz_error_detail(), w.at, x->size);
		fits++;
		if (st.resident < x->size && st.moves > 0)
			slab++;
	}
	TU_CHECK(fits > 0, "%s: no GPU memory size worked", nm);
	TU_CHECK(!x->small_window || slab > 0, "%s: never decoded with only the window resident", nm);
	wlz_gdctx_set_gpu_memory(g, 0);

	/* 4. Host to device, from plain memory, pieces of two blocks. */
	uint8_t *d = NULL, *ds = NULL;
	cudaStream_t cs;
	TU_CHECK(cudaMalloc((void **)&d, x->size + 16) == cudaSuccess && cudaMalloc((void **)&ds, x->asize + 1) ==
			 cudaSuccess && cudaStreamCreate(&cs) == cudaSuccess,
		 "%s: cudaMalloc", nm);
	e = wlz_gpu_decompress_h2d(g, d, x->size, x->a, x->asize, &got, NULL);
	if (e == WLZ_OK)
		e = wlz_gdctx_wait(g);
	memset(plain, 0xAA, x->size);
	cudaMemcpy(plain, d, x->size, cudaMemcpyDeviceToHost);
	TU_CHECK(e == WLZ_OK && got == x->size && !memcmp(plain, x->want, x->size), "%s: h2d: %s (%s)", nm,
		 wlz_error_name(e), wlz_error_detail());

	/* 5. Device to device, to an unaligned place, on our stream. */
	wlz_gdctx_set_piece_size(g, 0);
	cudaMemcpy(ds, x->a, x->asize, cudaMemcpyHostToDevice);
	e = wlz_gpu_decompress_d2d(g, d + 3, x->size, ds, x->asize, &got, cs);
	if (e == WLZ_OK)
		e = wlz_gdctx_wait(g);
	memset(plain, 0xAA, x->size);
	cudaMemcpy(plain, d + 3, x->size, cudaMemcpyDeviceToHost);
	TU_CHECK(e == WLZ_OK && got == x->size && !memcmp(plain, x->want, x->size), "%s: d2d: %s (%s)", nm,
		 wlz_error_name(e), wlz_error_detail());
	wlz_gpu_stats fs;
	wlz_gdctx_stats(g, &fs);
	TU_CHECK(fs.host_copies == 0, "%s: d2d: the archive was copied whole to read its headers", nm);
	cudaFree(d);
	cudaFree(ds);
	cudaStreamDestroy(cs);

	/* 6. A write function that stops the decode. */
	if (x->size) {
		struct stop_writer sw = {0};
		e = wlz_gpu_decompress_stream(g, x->a, x->asize, stop_write, &sw, NULL);
		TU_CHECK(e == WLZ_ERR_WRITE && sw.calls == 1, "%s: stopped writer: %s, %d calls", nm, wlz_error_name(e),
			 sw.calls);
	}
	wlz_gpu_host_free(pin);
	free(plain);
}

/* A byte of the last block's payload damaged: the pieces before it are
 * written, every byte right, then the error. */
static void damaged(wlz_gdctx *g, const struct arc *x)
{
	tu_block b[4096];
	long nb = tu_walk_blocks(x->a, x->asize, 0, b, 4096, NULL);
	TU_CHECK(nb > 4, "%s: %ld blocks", x->name, nb);
	if (nb <= 4)
		return;
	uint8_t *bad = tu_xmalloc(x->asize);
	memcpy(bad, x->a, x->asize);
	bad[b[nb - 1].payload + b[nb - 1].psize / 2] ^= 0x10;
	wlz_gdctx_set_piece_size(g, 128 << 10);
	tu_cmpwr w = {x->want, x->size, 0, 0, 0};
	uint64_t n = 0;
	wlz_error e = wlz_gpu_decompress_stream(g, bad, x->asize, tu_cmp_write, &w, &n);
	TU_CHECK(e == WLZ_ERR_CHECKSUM && !w.differ && w.at > 0 && w.at < x->size,
		 "%s damaged: %s (%s), %zu of %zu written", x->name, wlz_error_name(e), wlz_error_detail(), w.at,
		 x->size);
	e = wlz_gpu_decompress(g, NULL, 0, bad, x->asize, &(size_t){0});
	TU_CHECK(e == WLZ_ERR_CHECKSUM, "%s damaged, check only: %s", x->name, wlz_error_name(e));
	free(bad);
}

struct batch_out {
	tu_cmpwr w[16];
};

static int batch_write(void *opaque, size_t item, const void *buf, size_t n)
{
	struct batch_out *o = opaque;
	return item < 16 ? tu_cmp_write(&o->w[item], buf, n) : 1;
}

/* The archives with three bad ones among them (a damaged payload, a cut
 * end, not an archive) as one batch: each bad one named, every good one
 * decoded, through a write function and to device memory, from host and
 * from device memory, in pieces shared between archives. */
static void batch(wlz_gdctx *g, const struct arc *xs, int nx)
{
	wlz_gpu_item it[16];
	const struct arc *ok[16];
	int bad[16], n = 0;
	uint8_t *dmg = NULL;
	tu_block b[4096];
	const long nb = tu_walk_blocks(xs[0].a, xs[0].asize, 0, b, 4096, NULL);
	for (int i = 0; i < nx && n < 13; i++) {
		memset(&it[n], 0, sizeof it[n]);
		it[n].src = xs[i].a, it[n].src_size = xs[i].asize, ok[n] = &xs[i], bad[n++] = 0;
		if (i == 0 && nb > 4) {
			dmg = tu_xmalloc(xs[0].asize);
			memcpy(dmg, xs[0].a, xs[0].asize);
			dmg[b[nb / 2].payload + b[nb / 2].psize / 2] ^= 0x04;
			memset(&it[n], 0, sizeof it[n]);
			it[n].src = dmg, it[n].src_size = xs[0].asize, ok[n] = &xs[0], bad[n++] = 1;
		}
		if (i == 1) {
			memset(&it[n], 0, sizeof it[n]);
			it[n].src = xs[1].a, it[n].src_size = xs[1].asize - 7, ok[n] = &xs[1], bad[n++] = 1;
			memset(&it[n], 0, sizeof it[n]);
			it[n].src = xs[1].want, it[n].src_size = 5000, ok[n] = &xs[1], bad[n++] = 1;
		}
	}
	static char det[16][WLZ_DETAIL_MAX];
	for (int form = 0; form < 6; form++) {
		/* 0: write, pieces of 128 KiB; 1: write, chosen; 2: device
		 * output; 3: device output from device memory (the headers
		 * fetched, the bad ones given the same verdicts as in 2);
		 * 4: host output, pinned, pieces of 128 KiB; 5: host output,
		 * pageable, chosen */
		wlz_gdctx_set_piece_size(g, form == 0 || form == 4 ? 128 << 10 : 0);
		struct batch_out o;
		uint8_t *dsrc[16] = {0};
		for (int i = 0; i < n; i++) {
			o.w[i] = (tu_cmpwr){ok[i]->want, ok[i]->size, 0, 0, 1};
			it[i].d_dst = it[i].h_dst = NULL;
			it[i].dst_cap = 0;
			if (form == 2 || form == 3) {
				cudaMalloc(&it[i].d_dst, ok[i]->size + 1);
				it[i].dst_cap = ok[i]->size;
			}
			if (form >= 4) {
				it[i].h_dst = form == 4 ? wlz_gpu_host_alloc(ok[i]->size + 1) : malloc(ok[i]->size + 1);
				it[i].dst_cap = ok[i]->size;
			}
			if (form == 3) {
				cudaMalloc((void **)&dsrc[i], it[i].src_size + 1);
				cudaMemcpy(dsrc[i], it[i].src, it[i].src_size, cudaMemcpyHostToDevice);
			}
		}
		const void *hsrc[16];
		for (int i = 0; i < n && form == 3; i++)
			hsrc[i] = it[i].src, it[i].src = dsrc[i];
		wlz_error e = wlz_gpu_decompress_batch(g, it, n, form == 3 ? WLZ_GPU_SRC_DEVICE : 0,
					       form < 2 ? batch_write : NULL, &o);
		TU_CHECK(e != WLZ_OK, "batch %d: bad archives accepted", form);
		if (form == 3) {
			/* the cut one and the one that is not an archive are read
			 * whole; every other's structure is fetched */
			wlz_gpu_stats st;
			wlz_gdctx_stats(g, &st);
			int cut = 0;
			for (int i = 0; i < n; i++)
				cut += bad[i] && it[i].src_size != ok[i]->asize;
			TU_CHECK(st.host_copies == (uint64_t)cut, "batch 3: %llu archives copied whole, %d wanted",
				 (unsigned long long)st.host_copies, cut);
		}
		for (int i = 0; i < n && form >= 2; i++) {
			if (form == 2)
				snprintf(det[i], sizeof det[i], "%s", it[i].detail);
			else
				TU_CHECK(!strcmp(det[i], it[i].detail), "batch %d: item %d: \"%s\", batch 2's \"%s\"", form,
					 i, it[i].detail, det[i]);
		}
		int good = 0, refused = 0;
		for (int i = 0; i < n; i++) {
			if (form == 3)
				it[i].src = hsrc[i];
			if (bad[i]) {
				TU_CHECK(it[i].err != WLZ_OK, "batch %d: bad item %d accepted", form, i);
				refused += it[i].err != WLZ_OK;
				continue;
			}
			int same;
			if (form < 2) {
				same = !o.w[i].differ && o.w[i].at == ok[i]->size;
			} else if (form >= 4) {
				same = !memcmp(it[i].h_dst, ok[i]->want, ok[i]->size);
			} else {
				uint8_t *back = tu_xmalloc(ok[i]->size + 1);
				cudaMemcpy(back, it[i].d_dst, ok[i]->size, cudaMemcpyDeviceToHost);
				same = !memcmp(back, ok[i]->want, ok[i]->size);
				free(back);
			}
			TU_CHECK(it[i].err == WLZ_OK && same && it[i].content_size == ok[i]->size,
				 "batch %d: item %d (%s): %s (%s), same %d", form, i, ok[i]->name, wlz_error_name(it[i].err),
				 it[i].detail, same);
			good += it[i].err == WLZ_OK && same;
		}
		for (int i = 0; i < n; i++) {
			cudaFree(it[i].d_dst);
			cudaFree(dsrc[i]);
			if (form == 4)
				wlz_gpu_host_free(it[i].h_dst);
			else
				free(it[i].h_dst);
			it[i].h_dst = NULL;
		}
		printf("gpu_api: batch %d: %d good archives decoded, %d bad ones refused (%s)\n", form, good, refused,
		       it[1].detail);
	}
	{
		/* device and host output in one batch: refused, nothing decoded */
		wlz_gpu_item mx[2];
		void *d = NULL, *h = malloc(ok[0]->size + 1);
		cudaMalloc(&d, ok[0]->size + 1);
		memset(mx, 0, sizeof mx);
		for (int i = 0; i < 2; i++)
			mx[i].src = ok[0]->a, mx[i].src_size = ok[0]->asize, mx[i].dst_cap = ok[0]->size;
		mx[0].d_dst = d, mx[1].h_dst = h;
		const wlz_error e = wlz_gpu_decompress_batch(g, mx, 2, 0, NULL, NULL);
		TU_CHECK(e == WLZ_ERR_PARAM && mx[0].err != WLZ_OK && mx[1].err != WLZ_OK,
			 "a batch to device and host buffers at once: %s", wlz_error_name(e));
		cudaFree(d);
		free(h);
		/* to host buffers, one too small: refused, nothing written past
		 * its room, the other decoded */
		const size_t n0 = ok[0]->size, n1 = ok[1 % nx]->size;
		uint8_t *h0 = malloc(n0 + 64), *h1 = malloc(n1 + 1);
		memset(h0, 0x5A, n0 + 64);
		memset(mx, 0, sizeof mx);
		mx[0].src = ok[0]->a, mx[0].src_size = ok[0]->asize, mx[0].h_dst = h0, mx[0].dst_cap = n0 - 1;
		mx[1].src = ok[1 % nx]->a, mx[1].src_size = ok[1 % nx]->asize, mx[1].h_dst = h1, mx[1].dst_cap = n1;
		wlz_gdctx_set_piece_size(g, 128 << 10);
		const wlz_error e2 = wlz_gpu_decompress_batch(g, mx, 2, 0, NULL, NULL);
		wlz_gdctx_set_piece_size(g, 0);
		int untouched = 1;
		for (size_t i = 0; i < 65; i++)
			untouched &= h0[n0 - 1 + i] == 0x5A;
		TU_CHECK(e2 == WLZ_ERR_DST_TOO_SMALL && mx[0].err == WLZ_ERR_DST_TOO_SMALL && untouched,
			 "a host buffer one byte short: %s, item %s, bytes past it %s", wlz_error_name(e2),
			 wlz_error_name(mx[0].err), untouched ? "untouched" : "WRITTEN");
		TU_CHECK(mx[1].err == WLZ_OK && !memcmp(h1, ok[1 % nx]->want, n1),
			 "the other item beside a short host buffer: %s", wlz_error_name(mx[1].err));
		free(h0);
		free(h1);
	}
	/* every GPU at once (one here is enough to run the code) */
	const int ng = wlz_gpu_count() < 4 ? wlz_gpu_count() : 4;
	wlz_gdctx *gs[4] = {0};
	int made = 1;
	for (int d = 0; d < ng; d++)
		made &= (gs[d] = wlz_gdctx_create(d)) != NULL;
	TU_CHECK(made, "a context on each of %d GPUs", ng);
	if (made) {
		struct batch_out o;
		for (int i = 0; i < n; i++) {
			o.w[i] = (tu_cmpwr){ok[i]->want, ok[i]->size, 0, 0, 1};
			it[i].d_dst = NULL, it[i].dst_cap = 0, it[i].gpu = -1;
		}
		wlz_gdctx_set_piece_size(gs[0], 128 << 10);
		wlz_error e = wlz_gpu_decompress_batch_multi(gs, ng, it, n, 0, batch_write, &o);
		TU_CHECK(e != WLZ_OK, "multi: bad archives accepted");
		int good = 0, used = 0;
		for (int i = 0; i < n; i++) {
			used |= 1 << it[i].gpu;
			if (bad[i]) {
				TU_CHECK(it[i].err != WLZ_OK, "multi: bad item %d accepted", i);
				continue;
			}
			const int same = !o.w[i].differ && o.w[i].at == ok[i]->size;
			TU_CHECK(it[i].err == WLZ_OK && same, "multi: item %d (%s) on GPU %d: %s (%s)", i, ok[i]->name,
				 it[i].gpu, wlz_error_name(it[i].err), it[i].detail);
			good += it[i].err == WLZ_OK && same;
		}
		TU_CHECK(used == (1 << ng) - 1, "multi: GPUs used %x of %d", used, ng);
		printf("gpu_api: batch on %d GPUs: %d good archives decoded\n", ng, good);
	}
	for (int d = 0; d < ng; d++)
		wlz_gdctx_free(gs[d]);
	/* stop at the first bad one */
	wlz_error e = wlz_gpu_decompress_batch(g, it, n, WLZ_GPU_STOP_ON_ERROR, NULL, NULL);
	TU_CHECK(e != WLZ_OK, "batch: stop on error: %s", wlz_error_name(e));
	free(dmg);
}

/* One archive on every GPU at once (wlz_gpu_decompress_split): each
 * archive decodes to its content, a damaged payload is named, a damaged
 * content checksum too.  With one GPU only the one-GPU path runs. */
static void split(const struct arc *xs, int nx)
{
	const int ng = wlz_gpu_count() < 4 ? wlz_gpu_count() : 4;
	wlz_gdctx *gs[4] = {0};
	int made = 1;
	for (int d = 0; d < ng; d++)
		made &= (gs[d] = wlz_gdctx_create(d)) != NULL;
	TU_CHECK(made, "split: a context on each of %d GPUs", ng);
	for (int i = 0; made && i < nx; i++) {
		uint8_t *out = tu_xmalloc(xs[i].size + 1);
		size_t got = 0;
		wlz_error e = wlz_gpu_decompress_split(gs, ng, out, xs[i].size, xs[i].a, xs[i].asize, &got);
		TU_CHECK(e == WLZ_OK && got == xs[i].size && !memcmp(out, xs[i].want, got), "split: %s on %d GPUs: %s (%s)",
			 xs[i].name, ng, wlz_error_name(e), wlz_error_detail());
		free(out);
	}
	tu_block b[4096];
	const long nb = made ? tu_walk_blocks(xs[0].a, xs[0].asize, 0, b, 4096, NULL) : 0;
	if (nb > 4) {
		uint8_t *bad = tu_xmalloc(xs[0].asize);
		memcpy(bad, xs[0].a, xs[0].asize);
		bad[b[nb - 2].payload + b[nb - 2].psize / 2] ^= 0x10;
		wlz_error e = wlz_gpu_decompress_split(gs, ng, NULL, 0, bad, xs[0].asize, &(size_t){0});
		TU_CHECK(e == WLZ_ERR_CHECKSUM, "split: damaged payload: %s (%s)", wlz_error_name(e), wlz_error_detail());
		free(bad);
	}
	for (int d = 0; d < ng; d++)
		wlz_gdctx_free(gs[d]);
	printf("gpu_api: one archive at a time on %d GPUs at once: checked\n", ng);
}

int main(int argc, char **argv)
{
	if (wlz_gpu_count() < 1) {
		printf("gpu_api: no GPU; skipped\n");
		return 77;
	}
	wlz_gdctx *g = wlz_gdctx_create(0);
	wlz_dctx *dc = wlz_dctx_create(2);
	TU_CHECK(g && dc, "contexts");
	if (!g || !dc)
		return tu_finish("gpu_api");
	const uint64_t seed = tu_seed(15);
	quick = getenv("WLZ_GPU_API_QUICK") != NULL;
	const int split_first = argc > 1 && !strcmp(argv[1], "--split-first");
	if (split_first)
		argc--, argv++;
	struct arc xs[6];
	int nx = 0;

	/* generated FASTQ, blocks of 64 KiB, a window of 256 KiB */
	const size_t gn = (quick ? 2u : 6u) << 20;
	uint8_t *gen = tu_xmalloc(gn);
	tu_fill(TU_FASTQ, gen, gn, seed);
	xs[nx] = (struct arc){"fastq-w18", NULL, gen, 0, gn, 1};
	xs[nx].a = tu_compress(gen, gn, 16, 18, &xs[nx].asize);
	nx++;
	/* two members, the second's content starting unaligned */
	size_t s1, s2;
	const size_t cut = 1000003;
	uint8_t *m1 = tu_compress(gen, cut, 16, 18, &s1), *m2 = tu_compress(gen + cut, gn - cut, 16, 18, &s2);
	uint8_t *two = tu_xmalloc(s1 + s2);
	memcpy(two, m1, s1);
	memcpy(two + s1, m2, s2);
	free(m1);
	free(m2);
	xs[nx++] = (struct arc){"two-members", two, gen, s1 + s2, gn, 1};
	/* text, the defaults */
	const size_t tn = 3u << 20;
	uint8_t *text = tu_xmalloc(tn);
	tu_fill(TU_TEXT, text, tn, seed + 1);
	xs[nx] = (struct arc){"text", NULL, text, 0, tn, 0};
	xs[nx].a = tu_compress(text, tn, 0, 0, &xs[nx].asize);
	nx++;
	/* random bytes, then FASTQ: groups of blocks without tokens, which
	 * the split publishes a chunk at a time instead of a group */
	const size_t xn = 3u << 20, rn0 = 1u << 20;
	uint8_t *mix = tu_xmalloc(xn);
	tu_fill(TU_RANDOM, mix, rn0, seed + 2);
	tu_fill(TU_FASTQ, mix + rn0, xn - rn0, seed + 3);
	xs[nx] = (struct arc){"random-then-fastq", NULL, mix, 0, xn, 1};
	xs[nx].a = tu_compress(mix, xn, 16, 18, &xs[nx].asize);
	nx++;
	/* nothing */
	xs[nx] = (struct arc){"empty", NULL, text, 0, 0, 0};
	xs[nx].a = tu_compress(text, 0, 0, 0, &xs[nx].asize);
	nx++;
	/* real data */
	size_t rn = 0;
	uint8_t *real = argc > 1 ? read_file(argv[1], &rn) : NULL;
	TU_CHECK(argc < 2 || rn > 0, "cannot read %s", argc > 1 ? argv[1] : "");
	if (real && rn) {
		xs[nx] = (struct arc){argv[1], NULL, real, 0, rn, 0};
		xs[nx].a = tu_compress(real, rn, 0, 0, &xs[nx].asize);
		nx++;
	}

	if (split_first)
		split(xs, nx);
	for (int i = 0; i < (quick ? 1 : nx); i++) {
		/* the CPU decoder agrees first */
		uint8_t *cpu = tu_xmalloc(xs[i].size + 1);
		size_t got = 0;
		wlz_error e = wlz_decompress(dc, cpu, xs[i].size, xs[i].a, xs[i].asize, &got);
		TU_CHECK(e == WLZ_OK && got == xs[i].size && !memcmp(cpu, xs[i].want, got), "%s: CPU: %s", xs[i].name,
			 wlz_error_name(e));
		free(cpu);
		check(g, &xs[i]);
		printf("gpu_api: %s (%zu bytes, %zu stored): checked\n", xs[i].name, xs[i].size, xs[i].asize);
	}
	damaged(g, &xs[0]);
	if (!quick) {
		batch(g, xs, nx);
		if (!split_first)
			split(xs, nx);
	}
	for (int i = 0; i < nx; i++)
		free(xs[i].a);
	free(gen);
	free(mix);
	free(text);
	free(real);
	wlz_gdctx_free(g);
	wlz_dctx_free(dc);
	return tu_finish("gpu_api");
}
