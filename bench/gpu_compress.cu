/*
 * gpu_compress.cu - the GPU compressor timed, with nvCOMP's compressors on
 * the same file in the same run (issue 17's table; nvCOMP is a bench
 * comparator only, never a dependency of wavelz).
 *
 *   gpu_compress_bench FILE [reps]
 *   env: DEPTH (default 10), SYMBOL (1), BLOCK_LOG (20), GPU_PEERS
 *        ("lz4,snappy,gdeflate,zstd", default all), CHECK=1 (also compare
 *        with the CPU reference, slow on large files)
 *
 * Rows (CSV): wavelz device-resident (input in GPU memory to the archive
 * in GPU memory, every stage: finders, parse, levels, streams, codec 2,
 * checksums, index), wavelz host-to-host (pinned), and each nvCOMP
 * compressor device-resident on 64 KiB chunks.  Every wavelz archive is
 * decoded by the CPU and the GPU decoder and compared with the file.
 */
#include <string.h>
#include "bench/gpu_util.h"
extern "C" {
#include "include/wavelz.h"
#include "include/wavelz_gpu.h"
#include "gpu_compress/gc_host.h"
}
#ifdef WLZ_NVCOMP
#include <nvcomp/gdeflate.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>
#endif

template <class F> static void wall(int reps, F fn, double *best, double *med)
{
	std::vector<double> t;
	fn();
	for (int r = 0; r < reps; r++) {
		const double a = bench_now();
		fn();
		t.push_back(bench_now() - a);
	}
	if (t.empty())
		t.push_back(0);
	std::sort(t.begin(), t.end());
	*best = t[0];
	*med = t[t.size() / 2];
}

static int envi(const char *k, int d)
{
	const char *v = getenv(k);
	return v ? atoi(v) : d;
}

int main(int argc, char **argv)
{
	int reps;
	std::vector<uint8_t> data = bench_open(argc, argv, "gpu_compress_bench", 5, &reps);
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	const size_t n = data.size();
	wlz_gpu_copts o;
	wlz_gpu_copts_init(&o);
	o.depth = envi("DEPTH", 10);
	o.symbol = (unsigned)envi("SYMBOL", 1);
	o.block_log = (unsigned)envi("BLOCK_LOG", 20);
	wlz_gcctx *g = wlz_gcctx_create(0);
	if (!g) {
		fprintf(stderr, "gpu_compress_bench: no context\n");
		return 2;
	}
	const size_t cap = wlz_gpu_compress_bound(n);
	uint8_t *d_src, *d_dst;
	CK(cudaMalloc(&d_src, n + 16));
	CK(cudaMalloc(&d_dst, cap));
	CK(cudaMemcpy(d_src, data.data(), n, cudaMemcpyHostToDevice));
	uint8_t *h_src = (uint8_t *)wlz_gpu_host_alloc(n + 1), *h_dst = (uint8_t *)wlz_gpu_host_alloc(cap);
	if (!h_src || !h_dst) {
		fprintf(stderr, "gpu_compress_bench: no pinned memory\n");
		return 2;
	}
	memcpy(h_src, data.data(), n);
	printf("file,codec,bytes,compressed,compressed_pct,gbps_best,gbps_median,what\n");
	char what[200];
	snprintf(what, sizeof(what), "depth %d S=%u 2^%u blocks", o.depth, o.symbol, o.block_log);

	/* device-resident: one member a call, at most 2 GiB */
	size_t dsz = 0;
	double best = 0, med = 0;
	if (n <= WLZ_GC_PIECE) {
		wall(reps, [&] {
			wlz_error e = wlz_gpu_compress_d2d(g, &o, d_dst, cap, d_src, n, &dsz, NULL);
			if (!e)
				e = wlz_gcctx_wait(g);
			if (e) {
				fprintf(stderr, "gpu_compress_bench: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
				exit(3);
			}
		}, &best, &med);
		wlz_gpu_cstats cs;
		wlz_gcctx_stats(g, &cs);
		printf("%s,wavelz-gpu,%zu,%zu,%.2f,%.2f,%.2f,device-resident %s (tables %.2f find %.2f parse %.2f levels %.2f "
		       "streams %.2f entropy %.2f finish %.2f ms)\n",
		       name, n, dsz, 100.0 * dsz / n, n / best / 1e9, n / med / 1e9, what, cs.tables_s * 1e3, cs.find_s * 1e3,
		       cs.parse_s * 1e3, cs.levels_s * 1e3, cs.streams_s * 1e3, cs.entropy_s * 1e3,
		       cs.finish_s * 1e3);
	}
	/* host to host, pinned */
	size_t hsz = 0;
	wall(reps, [&] {
		const wlz_error e = wlz_gpu_compress(g, &o, h_dst, cap, h_src, n, &hsz);
		if (e) {
			fprintf(stderr, "gpu_compress_bench: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
			exit(3);
		}
	}, &best, &med);
	printf("%s,wavelz-gpu,%zu,%zu,%.2f,%.2f,%.2f,host-to-host pinned %s\n", name, n, hsz, 100.0 * hsz / n,
	       n / best / 1e9, n / med / 1e9, what);

	/* checks: d2d equals h2h; both decoders give the file back */
	int bad = 0;
	if (n <= WLZ_GC_PIECE) {
		std::vector<uint8_t> a(dsz);
		CK(cudaMemcpy(a.data(), d_dst, dsz, cudaMemcpyDeviceToHost));
		if (dsz != hsz || memcmp(a.data(), h_dst, hsz)) {
			fprintf(stderr, "gpu_compress_bench: d2d and h2h archives differ\n");
			bad = 1;
		}
	}
	{
		std::vector<uint8_t> back(n + 1);
		size_t dn = 0;
		wlz_dctx *c = wlz_dctx_create(0);
		wlz_error e = wlz_decompress(c, back.data(), n + 1, h_dst, hsz, &dn);
		if (e || dn != n || memcmp(back.data(), data.data(), n)) {
			fprintf(stderr, "gpu_compress_bench: CPU decode: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
			bad = 1;
		}
		wlz_dctx_free(c);
		wlz_gdctx *gd = wlz_gdctx_create(0);
		memset(back.data(), 0, n);
		e = wlz_gpu_decompress(gd, back.data(), n + 1, h_dst, hsz, &dn);
		if (e || dn != n || memcmp(back.data(), data.data(), n)) {
			fprintf(stderr, "gpu_compress_bench: GPU decode: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
			bad = 1;
		}
		wlz_gdctx_free(gd);
	}
	if (envi("CHECK", 0)) {
		std::vector<uint8_t> r(cap);
		size_t rn = 0;
		const wlz_error e = wlz_gc_ref_compress(&o, r.data(), cap, data.data(), n, &rn);
		if (e || rn != hsz || memcmp(r.data(), h_dst, hsz)) {
			fprintf(stderr, "gpu_compress_bench: the GPU archive differs from the CPU reference's\n");
			bad = 1;
		} else {
			fprintf(stderr, "gpu_compress_bench: equal to the CPU reference (%zu bytes)\n", rn);
		}
	}
	if (bad)
		printf("%s,wavelz-gpu,%zu,%zu,,,,MISMATCH\n", name, n, hsz);
	wlz_gcctx_free(g);

#ifdef WLZ_NVCOMP
	/* nvCOMP's compressors, 64 KiB chunks, device-resident */
	const size_t CH = 1 << 16, nc = (n + CH - 1) / CH;
	std::vector<void *> hu(nc), hc(nc);
	std::vector<size_t> hl(nc);
	size_t maxc = 0, m = 0;
#define MAXC(P)                                                                                                  \
	do {                                                                                                     \
		if (nvcompBatched##P##CompressGetMaxOutputChunkSize(CH, nvcompBatched##P##CompressDefaultOpts, &m) == \
		    nvcompSuccess)                                                                               \
			maxc = std::max(maxc, m);                                                                \
	} while (0)
	MAXC(LZ4);
	MAXC(Snappy);
	MAXC(Gdeflate);
	MAXC(Zstd);
	maxc = (maxc + 15) & ~(size_t)15;
	uint8_t *d_cmp;
	void **d_un, **d_cp;
	size_t *d_ul, *d_cl;
	nvcompStatus_t *d_st;
	CK(cudaMalloc(&d_cmp, maxc * nc));
	for (size_t i = 0; i < nc; i++)
		hu[i] = d_src + i * CH, hc[i] = d_cmp + i * maxc, hl[i] = std::min(CH, n - i * CH);
	CK(cudaMalloc(&d_un, nc * sizeof(void *)));
	CK(cudaMalloc(&d_cp, nc * sizeof(void *)));
	CK(cudaMalloc(&d_ul, nc * sizeof(size_t)));
	CK(cudaMalloc(&d_cl, nc * sizeof(size_t)));
	CK(cudaMalloc(&d_st, nc * sizeof(nvcompStatus_t)));
	CK(cudaMemcpy(d_un, hu.data(), nc * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_cp, hc.data(), nc * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_ul, hl.data(), nc * sizeof(size_t), cudaMemcpyHostToDevice));
	const char *pick = getenv("GPU_PEERS");
	auto want = [&](const char *c) { return !pick || strstr(pick, c) != NULL; };
#define PEER(P, label)                                                                                              \
	do {                                                                                                        \
		size_t ct = 0;                                                                                      \
		if (nvcompBatched##P##CompressGetTempSize(nc, CH, nvcompBatched##P##CompressDefaultOpts, &ct, n, 0) != \
		    nvcompSuccess) {                                                                                \
			fprintf(stderr, "gpu_compress_bench: %s: no temp size\n", label);                          \
			break;                                                                                      \
		}                                                                                                   \
		void *d_temp = NULL;                                                                                \
		if (cudaMalloc(&d_temp, ct + 16) != cudaSuccess) {                                                  \
			fprintf(stderr, "gpu_compress_bench: %s: no memory for %zu temp bytes\n", label, ct);      \
			cudaGetLastError();                                                                         \
			break;                                                                                      \
		}                                                                                                   \
		nvcompStatus_t s_ = nvcompSuccess;                                                                  \
		timed(reps, [&] {                                                                                   \
			s_ = nvcompBatched##P##CompressAsync((const void *const *)d_un, d_ul, CH, nc, d_temp, ct, d_cp, \
							     d_cl, nvcompBatched##P##CompressDefaultOpts, d_st, 0);  \
		}, &best, &med);                                                                                    \
		std::vector<size_t> cl(nc);                                                                         \
		CK(cudaMemcpy(cl.data(), d_cl, nc * sizeof(size_t), cudaMemcpyDeviceToHost));                      \
		size_t cs = 0;                                                                                      \
		for (size_t v : cl)                                                                                 \
			cs += v;                                                                                    \
		printf("%s,nvcomp-%s,%zu,%zu,%.2f,%.2f,%.2f,device-resident compress (%zu chunks of 64 KiB)%s\n", name, \
		       label, n, cs, 100.0 * cs / n, n / best / 1e6, n / med / 1e6, nc,                            \
		       s_ == nvcompSuccess ? "" : " FAILED");                                                      \
		CK(cudaFree(d_temp));                                                                               \
	} while (0)
	if (want("lz4"))
		PEER(LZ4, "lz4");
	if (want("snappy"))
		PEER(Snappy, "snappy");
	if (want("gdeflate"))
		PEER(Gdeflate, "gdeflate");
	if (want("zstd"))
		PEER(Zstd, "zstd");
#endif
	return bad ? 1 : 0;
}
