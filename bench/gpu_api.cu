/*
 * gpu_api.cu - the GPU decoder's public API timed, as a user calls it
 * (every check included, the payload checksums too):
 *   gpu_api ARCHIVE [REPS]
 * Rows (CSV): file, form, piece setting, pieces, content bytes, best and
 * median GB/s of content.  Forms:
 *   d2d        device-resident: the archive in GPU memory to the content
 *              in GPU memory (wlz_gpu_decompress_d2d, then the wait);
 *   h2d        from pinned host memory to GPU memory;
 *   h2h        pinned host memory to pinned host memory
 *              (wlz_gpu_decompress);
 *   h2h-write  pinned host memory to a write function that drops the
 *              bytes (wlz_gpu_decompress_stream: staged, each piece
 *              checked before it is handed on).
 * Each form with the pieces chosen (auto) and as one piece (whole), so
 * that the transfers' overlap shows.  Output is checked against the CPU
 * decoder once per form.
 */
#include <math.h>
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
#include "bench/gpu_util.h"
extern "C" {
#include "wavelz.h"
#include "wavelz_gpu.h"
}

static int drop(void *, const void *, size_t)
{
	return 0;
}

struct cmp_sink {
	const uint8_t *want;
	size_t at, n;
	int bad;
};

static int cmp_write(void *o, const void *buf, size_t n)
{
	cmp_sink *c = (cmp_sink *)o;
	if (c->at + n > c->n || memcmp(c->want + c->at, buf, n))
		c->bad = 1;
	c->at += n;
	return 0;
}

static double now()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* --batch CONTENT N: the content cut into N slices (sizes spread
 * log-uniformly from 1 to 64 MiB, in order, until the content ends), each
 * compressed (-3, or $WLZ_BENCH_LEVEL; depth 10), decoded as one batch device-resident (the
 * archives in GPU memory, each content to its own GPU buffer), beside the
 * same bytes as one archive in the same run. */
static int batch_bench(const char *path, int want_n, int reps)
{
	std::vector<uint8_t> in = slurp(path);
	wlz_options o;
	wlz_options_init(&o);
	o.level = getenv("WLZ_BENCH_LEVEL") ? atoi(getenv("WLZ_BENCH_LEVEL")) : 3;
	o.depth = 10;
	wlz_cctx *cc = wlz_cctx_create(&o);
	std::vector<size_t> sizes, starts;
	uint64_t x = 88172645463325252ull;
	size_t at = 0;
	while (at < in.size() && (int)sizes.size() < want_n) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = (size_t)((1u << 20) * exp2((double)(x % 6000) / 1000.0));
		n = std::min(n, in.size() - at);
		starts.push_back(at);
		sizes.push_back(n);
		at += n;
	}
	/* The slices compressed side by side, a thread each: under a depth
	 * limit a slice of few blocks compresses on one thread anyway. */
	std::vector<std::vector<uint8_t>> arcs(sizes.size());
	std::atomic<size_t> next_slice(0);
	std::atomic<int> failed(0);
	std::vector<std::thread> pool;
	const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
	for (unsigned t = 0; t < nt; t++)
		pool.emplace_back([&] {
			wlz_options so = o;
			so.threads = 1;
			wlz_cctx *c = wlz_cctx_create(&so);
			for (size_t i; c && (i = next_slice++) < sizes.size();) {
				arcs[i].resize(wlz_compress_bound(sizes[i]));
				size_t got = 0;
				if (wlz_compress(c, arcs[i].data(), arcs[i].size(), in.data() + starts[i], sizes[i], &got) !=
				    WLZ_OK)
					failed = 1;
				arcs[i].resize(got);
			}
			failed = failed | !c;
			wlz_cctx_free(c);
		});
	for (auto &th : pool)
		th.join();
	if (failed)
		return 2;
	std::vector<uint8_t> one(wlz_compress_bound(at));
	size_t one_size = 0;
	if (wlz_compress(cc, one.data(), one.size(), in.data(), at, &one_size) != WLZ_OK)
		return 2;
	wlz_cctx_free(cc);
	wlz_gdctx *g = wlz_gdctx_create(0);
	const size_t n = arcs.size();
	std::vector<wlz_gpu_item> it(n);
	uint8_t *dall, *dout, *done;
	size_t stored = 0;
	for (auto &a : arcs)
		stored += (a.size() + 255) & ~(size_t)255;
	CK(cudaMalloc(&dall, stored));
	CK(cudaMalloc(&dout, at + 256 * n));
	CK(cudaMalloc(&done, one_size));
	CK(cudaMemcpy(done, one.data(), one_size, cudaMemcpyHostToDevice));
	size_t so = 0, oo = 0;
	for (size_t i = 0; i < n; i++) {
		memset(&it[i], 0, sizeof it[i]);
		CK(cudaMemcpy(dall + so, arcs[i].data(), arcs[i].size(), cudaMemcpyHostToDevice));
		it[i].src = dall + so, it[i].src_size = arcs[i].size();
		it[i].d_dst = dout + oo, it[i].dst_cap = sizes[i];
		so += (arcs[i].size() + 255) & ~(size_t)255;
		oo += (sizes[i] + 255) & ~(size_t)255;
	}
	std::vector<double> tb, t1;
	int ok = 1;
	for (int r = 0; r <= reps; r++) {
		CK(cudaDeviceSynchronize());
		double t0 = now();
		wlz_error e = wlz_gpu_decompress_batch(g, it.data(), n, WLZ_GPU_SRC_DEVICE, NULL, NULL);
		double t = now() - t0;
		if (e != WLZ_OK) {
			fprintf(stderr, "batch: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
			ok = 0;
			break;
		}
		if (r == 0) {
			/* checked once against the input */
			std::vector<uint8_t> back(at);
			size_t p = 0;
			for (size_t i = 0; i < n; i++) {
				CK(cudaMemcpy(back.data() + p, it[i].d_dst, sizes[i], cudaMemcpyDeviceToHost));
				p += sizes[i];
			}
			if (memcmp(back.data(), in.data(), at)) {
				fprintf(stderr, "batch: output differs\n");
				ok = 0;
				break;
			}
		} else {
			tb.push_back(t);
		}
		size_t got;
		t0 = now();
		e = wlz_gpu_decompress_d2d(g, dout, at, done, one_size, &got, NULL);
		if (e == WLZ_OK)
			e = wlz_gdctx_wait(g);
		t = now() - t0;
		if (e != WLZ_OK)
			ok = 0;
		if (r)
			t1.push_back(t);
	}
	/* Every GPU: items spread by stored bytes (largest first, to the
	 * least loaded), each archive and its output on its GPU. */
	int ng = 0;
	cudaGetDeviceCount(&ng);
	std::vector<double> tm;
	if (ng > 1 && ok) {
		std::vector<wlz_gdctx *> gs(ng);
		std::vector<uint64_t> load(ng, 0);
		std::vector<size_t> order(n);
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return arcs[a].size() > arcs[b].size(); });
		std::vector<wlz_gpu_item> im(it);
		for (size_t k : order) {
			int best = (int)(std::min_element(load.begin(), load.end()) - load.begin());
			im[k].gpu = best;
			load[best] += arcs[k].size();
		}
		std::vector<uint8_t *> bufs;
		for (int d = 0; d < ng; d++) {
			CK(cudaSetDevice(d));
			gs[d] = wlz_gdctx_create(d);
			for (size_t i = 0; i < n; i++)
				if (im[i].gpu == d) {
					uint8_t *a, *o;
					CK(cudaMalloc(&a, arcs[i].size() + 1));
					CK(cudaMalloc(&o, sizes[i] + 1));
					CK(cudaMemcpy(a, arcs[i].data(), arcs[i].size(), cudaMemcpyHostToDevice));
					im[i].src = a, im[i].d_dst = o;
					bufs.push_back(a), bufs.push_back(o);
				}
		}
		for (int r = 0; r <= reps && ok; r++) {
			for (int d = 0; d < ng; d++) {
				CK(cudaSetDevice(d));
				CK(cudaDeviceSynchronize());
			}
			const double t0 = now();
			wlz_error e = wlz_gpu_decompress_batch_multi(gs.data(), ng, im.data(), n, WLZ_GPU_SRC_DEVICE, NULL, NULL);
			const double t = now() - t0;
			if (e != WLZ_OK) {
				fprintf(stderr, "multi: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
				ok = 0;
			} else if (r == 0) {
				for (size_t i = 0; i < n && ok; i++) {
					std::vector<uint8_t> back(sizes[i]);
					CK(cudaSetDevice(im[i].gpu));
					CK(cudaMemcpy(back.data(), im[i].d_dst, sizes[i], cudaMemcpyDeviceToHost));
					size_t off = 0;
					for (size_t j = 0; j < i; j++)
						off += sizes[j];
					ok = !memcmp(back.data(), in.data() + off, sizes[i]);
				}
				if (!ok)
					fprintf(stderr, "multi: output differs\n");
			} else {
				tm.push_back(t);
			}
		}
		for (auto *b : bufs)
			cudaFree(b);
		for (auto *x : gs)
			wlz_gdctx_free(x);
		CK(cudaSetDevice(0));
		std::sort(tm.begin(), tm.end());
	}
	std::sort(tb.begin(), tb.end());
	std::sort(t1.begin(), t1.end());
	size_t stored_sum = 0;
	for (auto &a : arcs)
		stored_sum += a.size();
	printf("file,archives,bytes,stored_batch,stored_one,batch_gbps,one_gbps,batch_over_one,gpus,multi_gbps,"
	       "multi_over_batch,what\n");
	if (ok)
		printf("%s,%zu,%zu,%zu,%zu,%.1f,%.1f,%.2f,%d,%.1f,%.2f,device-resident API batch (1 to 64 MiB slices) vs "
		       "one archive; the batch on every GPU\n",
		       path, n, at, stored_sum, one_size, at / tb[0] / 1e9, at / t1[0] / 1e9, t1[0] / tb[0], ng,
		       tm.empty() ? 0.0 : at / tm[0] / 1e9, tm.empty() ? 0.0 : tb[0] / tm[0]);
	cudaFree(dall);
	cudaFree(dout);
	cudaFree(done);
	wlz_gdctx_free(g);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "--batch"))
		return batch_bench(argv[2], atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 3);
	if (argc < 2) {
		fprintf(stderr, "usage: gpu_api ARCHIVE [REPS]\n");
		return 2;
	}
	const int reps = argc > 2 ? atoi(argv[2]) : 5;
	std::vector<uint8_t> arc = slurp(argv[1]);
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	uint64_t size = 0;
	if (wlz_get_content_size(arc.data(), arc.size(), &size) != WLZ_OK)
		return 2;
	std::vector<uint8_t> want(size + 1);
	wlz_dctx *dc = wlz_dctx_create(0);
	size_t got = 0;
	if (wlz_decompress(dc, want.data(), size, arc.data(), arc.size(), &got) != WLZ_OK)
		return 2;
	wlz_dctx_free(dc);
	wlz_gdctx *g = wlz_gdctx_create(0);
	uint8_t *hsrc = (uint8_t *)wlz_gpu_host_alloc(arc.size()), *hdst = (uint8_t *)wlz_gpu_host_alloc(size + 1);
	uint8_t *dsrc, *ddst;
	CK(cudaMalloc(&dsrc, arc.size() + 1));
	CK(cudaMalloc(&ddst, size + 1));
	memcpy(hsrc, arc.data(), arc.size());
	CK(cudaMemcpy(dsrc, arc.data(), arc.size(), cudaMemcpyHostToDevice));
	printf("file,form,piece,pieces,bytes,gbps_best,gbps_median,host_check_ms,host_queue_ms,host_wait_ms,gpu_span_ms,"
	       "what\n");
	const char *forms[] = {"d2d", "h2d", "h2h", "h2h-write"};
	/* piece settings: chosen, whole, 64 MiB, 32 MiB */
	const uint64_t psize[] = {0, UINT64_MAX, 64ull << 20, 32ull << 20};
	const char *pname[] = {"auto", "whole", "64MiB", "32MiB"};
	for (int f = 0; f < 4; f++)
		for (int whole = 0; whole < 4; whole++) {
			wlz_gdctx_set_piece_size(g, psize[whole]);
			std::vector<double> t;
			int ok = 1;
			for (int r = 0; r <= reps && ok; r++) {
				cmp_sink cs = {want.data(), 0, size, 0};
				const int check = r == 0;
				CK(cudaMemset(ddst, 0, size + 1));
				memset(hdst, 0, check ? size : 0);
				CK(cudaDeviceSynchronize());
				const double t0 = now();
				wlz_error e;
				if (f == 0 || f == 1) {
					e = f == 0 ? wlz_gpu_decompress_d2d(g, ddst, size, dsrc, arc.size(), &got, NULL)
						   : wlz_gpu_decompress_h2d(g, ddst, size, hsrc, arc.size(), &got, NULL);
					if (e == WLZ_OK)
						e = wlz_gdctx_wait(g);
				} else if (f == 2) {
					e = wlz_gpu_decompress(g, hdst, size, hsrc, arc.size(), &got);
				} else {
					uint64_t n;
					e = wlz_gpu_decompress_stream(g, hsrc, arc.size(), check ? cmp_write : drop, &cs, &n);
				}
				const double dt = now() - t0;
				if (e != WLZ_OK) {
					fprintf(stderr, "%s %s: %s (%s)\n", name, forms[f], wlz_error_name(e), wlz_error_detail());
					ok = 0;
					break;
				}
				if (check) {
					int same;
					if (f < 2) {
						std::vector<uint8_t> back(size);
						CK(cudaMemcpy(back.data(), ddst, size, cudaMemcpyDeviceToHost));
						same = !memcmp(back.data(), want.data(), size);
					} else if (f == 2) {
						same = !memcmp(hdst, want.data(), size);
					} else {
						same = !cs.bad && cs.at == size;
					}
					if (!same) {
						fprintf(stderr, "%s %s: output differs from the CPU's\n", name, forms[f]);
						ok = 0;
					}
					continue;
				}
				t.push_back(dt);
			}
			if (!ok) {
				printf("%s,%s,%s,0,%llu,0,0,0,0,0,0,FAILED\n", name, forms[f], pname[whole],
				       (unsigned long long)size);
				continue;
			}
			wlz_gpu_stats st;
			wlz_gdctx_stats(g, &st);
			std::sort(t.begin(), t.end());
			printf("%s,%s,%s,%llu,%llu,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f,%s\n", name, forms[f], pname[whole],
			       (unsigned long long)st.pieces, (unsigned long long)size, size / t[0] / 1e9,
			       size / t[t.size() / 2] / 1e9, st.host_check_s * 1e3, st.host_queue_s * 1e3,
			       st.host_wait_s * 1e3, st.gpu_s * 1e3,
			       f == 0 ? "device-resident, API (host wall clock)" : f == 1 ? "pinned host to device, API"
			       : f == 2 ? "host to host, pinned, API" : "host to host through a write function, API");
		}
	cudaFree(dsrc);
	cudaFree(ddst);
	wlz_gpu_host_free(hsrc);
	wlz_gpu_host_free(hdst);
	wlz_gdctx_free(g);
	return 0;
}
