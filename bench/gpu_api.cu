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
#include <algorithm>
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

int main(int argc, char **argv)
{
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
				const double t0 = bench_now();
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
				const double dt = bench_now() - t0;
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
