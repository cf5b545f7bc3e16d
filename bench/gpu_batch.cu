/*
 * gpu_batch.cu - issue 16's batch bench:
 *   gpu_batch CONTENT N [REPS]
 * The content is cut into N slices of 1 to 64 MiB (bench_slices), each
 * compressed on the CPU as wavelz archives (-3, or $WLZ_BENCH_LEVEL;
 * depth 10) and, when built with nvCOMP, as zstd -3: one frame a slice
 * (what `zstd -3 FILE` writes) and one frame a 64 KiB chunk.  Then, all
 * device-resident (compressed bytes in GPU memory to content in GPU
 * memory), timed by the host's clock around the whole call, best of REPS
 * after a checked first run:
 *   wavelz-batch  the API's batch (wlz_gpu_decompress_batch);
 *   wavelz-one    the same bytes as one archive (wlz_gpu_decompress_d2d);
 *   nvcomp-zstd-file, nvcomp-zstd-64k  nvCOMP's batched zstd decoder on
 *                 the frames, in as few launches as its temporary memory
 *                 allows (a user's loop over sub-batches);
 * each on the first GPU and, where there are more, on every GPU at once
 * (slices spread by stored bytes, largest first, a host thread a GPU).
 * With $GPU_BATCH_H2H=1, each codec's rows host to host too (labelled
 * -h2h): pinned archives to pinned content (wavelz: items' h_dst), the
 * transfers timed.
 * Every first run's output is compared with the content.  nvCOMP is a
 * bench comparator only, never a dependency of wavelz.
 */
#include <time.h>
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
#include "bench/gpu_util.h"
extern "C" {
#include "wavelz.h"
#include "wavelz_gpu.h"
}
#ifdef WLZ_NVCOMP
#include <zstd.h>
#include <nvcomp/zstd.h>
#endif

static size_t up256(size_t n)
{
	return (n + 255) & ~(size_t)255;
}

/* A frame (or archive) to decode: where its bytes lie in the host's blob,
 * and where its content goes, as offsets into the GPU's output. */
struct piece {
	size_t src, size, dst, usize;
	int slice;
};

/* One GPU's share of a codec's pieces, uploaded: the compressed blob and
 * the content's room on that GPU. */
struct share {
	int dev = 0;
	std::vector<piece> p;
	uint8_t *d_src = nullptr, *d_out = nullptr;
	uint8_t *h_src = nullptr, *h_out = nullptr; /* host to host: the same layouts, pinned */
	size_t src_bytes = 0, out_bytes = 0;
};

/* The slices on ng GPUs: largest stored first, to the least loaded. */
static std::vector<int> spread(const std::vector<size_t> &stored, int ng)
{
	std::vector<int> gpu(stored.size(), 0);
	std::vector<size_t> order(stored.size());
	std::vector<uint64_t> load(ng, 0);
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stored[a] > stored[b]; });
	for (size_t k : order) {
		const int best = (int)(std::min_element(load.begin(), load.end()) - load.begin());
		gpu[k] = best;
		load[best] += stored[k];
	}
	return gpu;
}

/* The pieces of the slices on GPU dev (frames: each slice's frames, in
 * order; blob: their bytes), laid out on that GPU: each slice's content
 * at a 256-byte boundary, its frames' at their offsets in it. */
static share make_share(int dev, const std::vector<std::vector<piece>> &frames, const std::vector<uint8_t> &blob,
			const std::vector<int> &gpu, const std::vector<size_t> &sizes, bool h2h)
{
	share s;
	s.dev = dev;
	size_t so = 0, oo = 0;
	std::vector<size_t> at;
	for (size_t i = 0; i < sizes.size(); i++) {
		if (gpu[i] != dev)
			continue;
		for (piece f : frames[i]) {
			at.push_back(f.src);
			f.src = so, f.dst += oo;
			so += up256(f.size);
			s.p.push_back(f);
		}
		oo += up256(sizes[i]);
	}
	s.src_bytes = so, s.out_bytes = oo;
	CK(cudaSetDevice(dev));
	CK(cudaMalloc(&s.d_src, so + 1));
	CK(cudaMalloc(&s.d_out, oo + 1));
	for (size_t k = 0; k < s.p.size(); k++)
		CK(cudaMemcpy(s.d_src + s.p[k].src, blob.data() + at[k], s.p[k].size, cudaMemcpyHostToDevice));
	if (h2h) {
		CK(cudaMallocHost(&s.h_src, so + 1));
		CK(cudaMallocHost(&s.h_out, oo + 1));
		for (size_t k = 0; k < s.p.size(); k++)
			memcpy(s.h_src + s.p[k].src, blob.data() + at[k], s.p[k].size);
		memset(s.h_out, 0, oo);
	}
	return s;
}

static void free_share(share &s)
{
	CK(cudaSetDevice(s.dev));
	CK(cudaFree(s.d_src));
	CK(cudaFree(s.d_out));
	CK(cudaFreeHost(s.h_src));
	CK(cudaFreeHost(s.h_out));
	s.d_src = s.d_out = s.h_src = s.h_out = nullptr;
}

/* Whether every slice of the shares holds its content (each slice's
 * first piece gives where it starts); clears the outputs for the next run. */
static bool check_shares(std::vector<share> &sh, const std::vector<uint8_t> &in, const std::vector<size_t> &starts,
			 const std::vector<size_t> &sizes)
{
	bool ok = true;
	std::vector<uint8_t> back;
	for (auto &s : sh) {
		CK(cudaSetDevice(s.dev));
		int last = -1;
		for (const piece &f : s.p) {
			if (f.slice == last)
				continue;
			last = f.slice;
			const uint8_t *got = s.h_out + f.dst;
			if (!s.h_out) {
				back.resize(sizes[f.slice]);
				CK(cudaMemcpy(back.data(), s.d_out + f.dst, back.size(), cudaMemcpyDeviceToHost));
				got = back.data();
			}
			ok = ok && !memcmp(got, in.data() + starts[f.slice], sizes[f.slice]);
		}
		CK(cudaMemset(s.d_out, 0, s.out_bytes));
		if (s.h_out)
			memset(s.h_out, 0, s.out_bytes);
	}
	return ok;
}

/* Runs decode(shares) reps + 1 times; the first run is checked.  Returns
 * the best wall seconds of the others, or -1 when a run failed or the
 * check did. */
template <class F>
static double run_shares(std::vector<share> &sh, int reps, const std::vector<uint8_t> &in,
			 const std::vector<size_t> &starts, const std::vector<size_t> &sizes, F decode)
{
	double best = 1e30;
	for (int r = 0; r <= reps; r++) {
		for (auto &s : sh) {
			CK(cudaSetDevice(s.dev));
			CK(cudaDeviceSynchronize());
		}
		const double t0 = bench_now();
		const bool ok = decode(sh);
		const double t = bench_now() - t0;
		if (!ok)
			return -1;
		if (r == 0) {
			if (!check_shares(sh, in, starts, sizes)) {
				fprintf(stderr, "gpu_batch: output differs\n");
				return -1;
			}
		} else {
			best = std::min(best, t);
		}
	}
	return best;
}

/* Calls one(share) on every share at once, a host thread each. */
template <class F> static bool each_at_once(std::vector<share> &sh, F one)
{
	std::atomic<int> bad(0);
	std::vector<std::thread> th;
	for (auto &s : sh)
		th.emplace_back([&, ps = &s] {
			CK(cudaSetDevice(ps->dev));
			if (!one(*ps))
				bad = 1;
		});
	for (auto &t : th)
		t.join();
	return !bad;
}

#ifdef WLZ_NVCOMP
/* nvCOMP's batched zstd on one share: the frames cut into as few
 * sub-batches as the temporary memory allows (halving until one fits in
 * half of the GPU's free memory), launched in turn on one stream. */
struct nvzstd {
	share *s = nullptr;
	std::vector<std::pair<size_t, size_t>> groups; /* [first, end) of the pieces */
	void **d_cp = nullptr, **d_up = nullptr;
	size_t *d_cl = nullptr, *d_ul = nullptr, *d_got = nullptr;
	nvcompStatus_t *d_st = nullptr;
	void *d_temp = nullptr;
	size_t temp = 0;

	bool setup(share &sh)
	{
		s = &sh;
		CK(cudaSetDevice(sh.dev));
		const size_t n = sh.p.size();
		std::vector<void *> cp(n), up(n);
		std::vector<size_t> cl(n), ul(n);
		for (size_t k = 0; k < n; k++) {
			cp[k] = sh.d_src + sh.p[k].src, cl[k] = sh.p[k].size;
			up[k] = sh.d_out + sh.p[k].dst, ul[k] = sh.p[k].usize;
		}
		CK(cudaMalloc(&d_cp, n * sizeof(void *) + 1));
		CK(cudaMalloc(&d_up, n * sizeof(void *) + 1));
		CK(cudaMalloc(&d_cl, n * sizeof(size_t) + 1));
		CK(cudaMalloc(&d_ul, n * sizeof(size_t) + 1));
		CK(cudaMalloc(&d_got, n * sizeof(size_t) + 1));
		CK(cudaMalloc(&d_st, n * sizeof(nvcompStatus_t) + 1));
		CK(cudaMemcpy(d_cp, cp.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_up, up.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_cl, cl.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_ul, ul.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
		size_t fr = 0, tot = 0;
		CK(cudaMemGetInfo(&fr, &tot));
		for (size_t parts = 1; parts <= n; parts *= 2) {
			groups.clear();
			size_t need = 0;
			for (size_t g = 0; g < parts; g++) {
				const size_t a = n * g / parts, b = n * (g + 1) / parts;
				if (a == b)
					continue;
				size_t mx = 0, sum = 0, t = 0;
				for (size_t k = a; k < b; k++)
					mx = std::max(mx, ul[k]), sum += ul[k];
				if (nvcompBatchedZstdDecompressGetTempSize(b - a, mx, nvcompBatchedZstdDecompressDefaultOpts, &t,
									   sum, 0) != nvcompSuccess)
					return false;
				need = std::max(need, t);
				groups.push_back({a, b});
			}
			if (need < fr / 2) {
				temp = need;
				CK(cudaMalloc(&d_temp, temp + 256));
				return true;
			}
		}
		return false;
	}

	bool run()
	{
		for (auto [a, b] : groups)
			if (nvcompBatchedZstdDecompressAsync((const void *const *)d_cp + a, d_cl + a, d_ul + a, d_got + a, b - a,
							     d_temp, temp, d_up + a, nvcompBatchedZstdDecompressDefaultOpts,
							     d_st + a, 0) != nvcompSuccess)
				return false;
		CK(cudaDeviceSynchronize());
		std::vector<nvcompStatus_t> st(s->p.size());
		CK(cudaMemcpy(st.data(), d_st, st.size() * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost));
		for (auto x : st)
			if (x != nvcompSuccess)
				return false;
		return true;
	}

	void release()
	{
		if (!s)
			return;
		CK(cudaSetDevice(s->dev));
		for (void *p : {(void *)d_cp, (void *)d_up, (void *)d_cl, (void *)d_ul, (void *)d_got, (void *)d_st, d_temp})
			CK(cudaFree(p));
		*this = nvzstd();
	}
};
#endif

/* The pieces of a codec (frames[i]: slice i's) on 1 GPU and on ng, timed
 * by decode(share &, index); prints a row each. */
struct rowctx {
	const char *file;
	const std::vector<uint8_t> *in;
	const std::vector<size_t> *starts, *sizes;
	size_t bytes;
	int reps, ng;
	double base; /* wavelz-batch's seconds on one GPU, for the ratio */
	bool h2h;    /* rows host to host too ($GPU_BATCH_H2H=1) */
};

static void print_row(const rowctx &c, const char *codec, size_t archives, size_t stored, int gpus, double s,
		      const char *what)
{
	if (s <= 0) {
		printf("%s,%s,%zu,%zu,%zu,%d,FAILED,,%s\n", c.file, codec, archives, c.bytes, stored, gpus, what);
		return;
	}
	printf("%s,%s,%zu,%zu,%zu,%d,%.1f,%.2f,%s\n", c.file, codec, archives, c.bytes, stored, gpus, c.bytes / s / 1e9,
	       c.base > 0 ? c.base / s : 1.0, what);
	fflush(stdout);
}

/* A codec's rows: its pieces (frames[i]: slice i's) decoded on the first
 * GPU, then on every GPU at once and each GPU's share alone; device-
 * resident, then (c.h2h) host to host, from and to pinned memory (the
 * shares' h_src and h_out).  setup(d, share) prepares GPU d's share,
 * decode(shares) decodes them all (the time), release(d) undoes setup.
 * Returns the one-GPU device-resident seconds. */
template <class Setup, class Decode, class Release>
static double codec_rows(rowctx &c, const char *codec, const char *what, const std::vector<std::vector<piece>> &frames,
			 const std::vector<uint8_t> &blob, Setup setup, Decode decode, Release release)
{
	const size_t n = frames.size();
	std::vector<size_t> stored(n, 0);
	size_t nframes = 0, total = 0;
	for (size_t i = 0; i < n; i++)
		for (const piece &f : frames[i])
			stored[i] += f.size, nframes++, total += f.size;
	std::vector<int> counts = {1};
	if (c.ng > 1)
		counts.push_back(c.ng);
	double one = -1;
	for (int h2h = 0; h2h <= (int)c.h2h; h2h++)
	for (int ng : counts) {
		const std::vector<int> gpu = spread(stored, ng);
		std::vector<share> sh;
		for (int d = 0; d < ng; d++)
			sh.push_back(make_share(d, frames, blob, gpu, *c.sizes, h2h));
		char name[96];
		snprintf(name, sizeof name, "%s%s", codec, h2h ? "-h2h" : "");
		bool ok = true;
		for (int d = 0; d < ng; d++)
			ok = ok && setup(d, sh[d]);
		const double s = ok ? run_shares(sh, c.reps, *c.in, *c.starts, *c.sizes, decode) : -1;
		char label[240];
		snprintf(label, sizeof label, "%s (%zu frames)%s", what, nframes,
			 h2h ? "; host to host instead: pinned archives to pinned content" : "");
		print_row(c, name, n, total, ng, s, label);
		if (ng == 1 && !h2h)
			one = s;
		/* each share alone: the gap to the row above is what running
		 * together costs, beyond the shares' own imbalance */
		for (int d = 0; ok && ng > 1 && d < ng; d++) {
			std::vector<share> alone = {sh[d]};
			const double t = run_shares(alone, c.reps, *c.in, *c.starts, *c.sizes, decode);
			snprintf(label, sizeof label, "GPU %d's share of the row above alone (%zu frames)", d, sh[d].p.size());
			char sname[128];
			snprintf(sname, sizeof sname, "%s-share%d", name, d);
			print_row(c, sname, n, total, 1, t, label);
		}
		for (int d = 0; d < ng; d++)
			release(d);
		for (auto &x : sh)
			free_share(x);
	}
	return one;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gpu_batch CONTENT N [REPS]\n");
		return 2;
	}
	int reps;
	char *av[] = {argv[0], argv[1], argc > 3 ? argv[3] : NULL};
	std::vector<uint8_t> in = bench_open(argc > 3 ? 3 : 2, av, "gpu_batch", 3, &reps);
	const int want_n = atoi(argv[2]);
	const char *file = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	std::vector<size_t> sizes, starts;
	const size_t at = bench_slices(in.size(), want_n, &starts, &sizes);
	const size_t n = sizes.size();
	int ng = 0;
	CK(cudaGetDeviceCount(&ng));
	const char *hh = getenv("GPU_BATCH_H2H");
	rowctx c = {file, &in, &starts, &sizes, at, reps, ng, 0, hh && !strcmp(hh, "1")};

	/* The slices compressed side by side, a thread each (one archive of a
	 * few blocks compresses on one thread anyway under a depth limit). */
	wlz_options o;
	wlz_options_init(&o);
	o.level = getenv("WLZ_BENCH_LEVEL") ? atoi(getenv("WLZ_BENCH_LEVEL")) : 3;
	o.depth = 10;
	std::vector<std::vector<uint8_t>> arcs(n);
	std::vector<wlz_cctx *> cs(bench_threads(), nullptr);
	std::atomic<int> failed(0);
	bench_parallel(n, [&](unsigned t, size_t i) {
		wlz_options so = o;
		so.threads = 1;
		if (!cs[t] && !(cs[t] = wlz_cctx_create(&so))) {
			failed = 1;
			return;
		}
		arcs[i].resize(wlz_compress_bound(sizes[i]));
		size_t got = 0;
		if (wlz_compress(cs[t], arcs[i].data(), arcs[i].size(), in.data() + starts[i], sizes[i], &got) != WLZ_OK)
			failed = 1;
		arcs[i].resize(got);
	});
	for (auto *x : cs)
		wlz_cctx_free(x);
	if (failed) {
		fprintf(stderr, "gpu_batch: compression failed\n");
		return 2;
	}
	printf("file,codec,archives,bytes,stored,gpus,gbps,vs_wavelz_batch_1gpu,what\n");

	/* wavelz: one piece an archive, a context a GPU. */
	std::vector<uint8_t> blob;
	std::vector<std::vector<piece>> frames(n);
	for (size_t i = 0; i < n; i++) {
		frames[i].push_back({blob.size(), arcs[i].size(), 0, sizes[i], (int)i});
		blob.insert(blob.end(), arcs[i].begin(), arcs[i].end());
		std::vector<uint8_t>().swap(arcs[i]);
	}
	std::vector<wlz_gdctx *> gs(ng, nullptr);
	std::vector<std::vector<wlz_gpu_item>> items(ng);
	for (int d = 0; d < ng; d++)
		if (!(gs[d] = wlz_gdctx_create(d))) {
			fprintf(stderr, "gpu_batch: no context on GPU %d\n", d);
			return 2;
		}
	/* The same bytes as one archive (for the wavelz-one rows). */
	std::vector<uint8_t> one(wlz_compress_bound(at));
	size_t one_size = 0;
	{
		wlz_options oo = o;
		oo.threads = 0;
		wlz_cctx *cc = wlz_cctx_create(&oo);
		if (!cc || wlz_compress(cc, one.data(), one.size(), in.data(), at, &one_size) != WLZ_OK) {
			fprintf(stderr, "gpu_batch: compression failed\n");
			return 2;
		}
		wlz_cctx_free(cc);
	}
	/* $GPU_BATCH_PIECES: the contexts' piece sizes to run the wavelz rows
	 * with (wlz_gdctx_set_piece_size; 0, the default: chosen) */
	const char *pieces = getenv("GPU_BATCH_PIECES") ? getenv("GPU_BATCH_PIECES") : "0";
	for (const char *q = pieces; *q;) {
		char *e;
		const unsigned long long psz = strtoull(q, &e, 10);
		if (e == q)
			break;
		q = e + strspn(e, " ,");
		for (auto *g : gs)
			wlz_gdctx_set_piece_size(g, psz);
		char nbuf[2][64];
		int which = 0;
		auto pname = [&](const char *base) -> const char * {
			char *b = nbuf[which++ & 1];
			if (psz)
				snprintf(b, 64, "%s-piece%llu", base, psz);
			else
				snprintf(b, 64, "%s", base);
			return b;
		};
		const double t1 = codec_rows(
			c, pname("wavelz-batch"), "the API's batch, device-resident", frames, blob,
			[&](int d, share &s) {
				items[d].assign(s.p.size(), wlz_gpu_item{});
				for (size_t k = 0; k < s.p.size(); k++) {
					wlz_gpu_item &it = items[d][k];
					it.src = (s.h_src ? s.h_src : s.d_src) + s.p[k].src, it.src_size = s.p[k].size;
					it.d_dst = s.h_out ? NULL : s.d_out + s.p[k].dst, it.dst_cap = s.p[k].usize;
					it.h_dst = s.h_out ? s.h_out + s.p[k].dst : NULL;
					it.gpu = d;
				}
				return true;
			},
			[&](std::vector<share> &sh) {
				/* one GPU: its batch; several: the API's multi-GPU batch,
				 * each item on the GPU that holds it.  Host to host: each
				 * item's content into its place in h_out (h_dst). */
				const bool h2h = sh[0].h_out != nullptr;
				const unsigned flags = h2h ? 0 : WLZ_GPU_SRC_DEVICE;
				wlz_error e;
				if (sh.size() == 1) {
					std::vector<wlz_gpu_item> &it = items[sh[0].dev];
					e = wlz_gpu_decompress_batch(gs[sh[0].dev], it.data(), it.size(), flags, NULL, NULL);
				} else {
					std::vector<wlz_gpu_item> all;
					for (auto &s : sh)
						all.insert(all.end(), items[s.dev].begin(), items[s.dev].end());
					e = wlz_gpu_decompress_batch_multi(gs.data(), (int)sh.size(), all.data(), all.size(),
									   flags, NULL, NULL);
				}
				/* where each GPU's call spent its time (stderr) */
				for (auto &s : sh) {
					wlz_gpu_stats st;
					wlz_gdctx_stats(gs[s.dev], &st);
					fprintf(stderr,
						"gpus %zu, GPU %d: check %.1f ms, queue %.1f ms (wait %.1f), finish %.1f ms, "
						"GPU span %.1f ms, %llu pieces, %llu archives copied whole\n",
						sh.size(), s.dev, st.host_check_s * 1e3, st.host_queue_s * 1e3,
						st.host_wait_s * 1e3, st.host_finish_s * 1e3, st.gpu_s * 1e3,
						(unsigned long long)st.pieces, (unsigned long long)st.host_copies);
				}
				if (e != WLZ_OK)
					fprintf(stderr, "gpu_batch: %s (%s)\n", wlz_error_name(e), wlz_error_detail());
				return e == WLZ_OK;
			},
			[&](int d) { items[d].clear(); });

		/* The same bytes as one archive, on the first GPU. */
		{
			CK(cudaSetDevice(0));
			uint8_t *d_one, *d_out;
			CK(cudaMalloc(&d_one, one_size));
			CK(cudaMalloc(&d_out, at + 1));
			CK(cudaMemcpy(d_one, one.data(), one_size, cudaMemcpyHostToDevice));
			double best = 1e30;
			bool ok = true;
			for (int r = 0; r <= reps && ok; r++) {
				CK(cudaDeviceSynchronize());
				size_t got = 0;
				const double t0 = bench_now();
				wlz_error e = wlz_gpu_decompress_d2d(gs[0], d_out, at, d_one, one_size, &got, NULL);
				if (e == WLZ_OK)
					e = wlz_gdctx_wait(gs[0]);
				const double t = bench_now() - t0;
				ok = e == WLZ_OK && got == at;
				if (ok && r == 0) {
					std::vector<uint8_t> back(at);
					CK(cudaMemcpy(back.data(), d_out, at, cudaMemcpyDeviceToHost));
					ok = !memcmp(back.data(), in.data(), at);
				} else if (r) {
					best = std::min(best, t);
				}
			}
			CK(cudaFree(d_one));
			CK(cudaFree(d_out));
			print_row(c, pname("wavelz-one"), 1, one_size, 1, ok ? best : -1,
				  "the same bytes as one archive (wlz_gpu_decompress_d2d), device-resident");
		}
		if (c.base <= 0)
			c.base = t1;
	}
	for (auto *g : gs)
		wlz_gdctx_free(g);

#ifdef WLZ_NVCOMP
	/* zstd -3 frames: one a slice, then one a 64 KiB chunk ($GPU_BATCH_NVCOMP=0: neither). */
	const char *nv = getenv("GPU_BATCH_NVCOMP");
	for (size_t chunk : {(size_t)0, (size_t)1 << 16}) {
		if (nv && !strcmp(nv, "0"))
			break;
		std::vector<std::vector<uint8_t>> z(n);
		bench_parallel(n, [&](unsigned, size_t i) {
			const size_t step = chunk ? chunk : sizes[i];
			for (size_t a = 0; a < sizes[i]; a += step) {
				const size_t m = std::min(step, sizes[i] - a), have = z[i].size();
				z[i].resize(have + 8 + ZSTD_compressBound(m));
				const size_t r = ZSTD_compress(z[i].data() + have + 8, ZSTD_compressBound(m),
							       in.data() + starts[i] + a, m, 3);
				if (ZSTD_isError(r)) {
					failed = 1;
					return;
				}
				const uint64_t len = r;
				memcpy(z[i].data() + have, &len, 8);
				z[i].resize(have + 8 + r);
			}
		});
		if (failed) {
			fprintf(stderr, "gpu_batch: zstd failed\n");
			return 2;
		}
		blob.clear();
		for (size_t i = 0; i < n; i++) {
			frames[i].clear();
			size_t a = 0, dst = 0;
			while (a < z[i].size()) {
				uint64_t len;
				memcpy(&len, z[i].data() + a, 8);
				const size_t m = std::min(chunk ? chunk : sizes[i], sizes[i] - dst);
				frames[i].push_back({blob.size(), (size_t)len, dst, m, (int)i});
				blob.insert(blob.end(), z[i].begin() + a + 8, z[i].begin() + a + 8 + len);
				a += 8 + len, dst += m;
			}
			std::vector<uint8_t>().swap(z[i]);
		}
		std::vector<nvzstd> nz(ng);
		codec_rows(
			c, chunk ? "nvcomp-zstd-64k" : "nvcomp-zstd-file",
			chunk ? "nvCOMP batched zstd, libzstd -3 frames of 64 KiB, device-resident"
			      : "nvCOMP batched zstd, one libzstd -3 frame a slice, device-resident",
			frames, blob, [&](int d, share &s) { return nz[d].setup(s); },
			[&](std::vector<share> &sh) {
				return each_at_once(sh, [&](share &s) {
					/* host to host: the frames up, then the content down */
					if (s.h_src)
						CK(cudaMemcpyAsync(s.d_src, s.h_src, s.src_bytes, cudaMemcpyHostToDevice, 0));
					const bool ok = nz[s.dev].run();
					if (ok && s.h_out)
						CK(cudaMemcpy(s.h_out, s.d_out, s.out_bytes, cudaMemcpyDeviceToHost));
					return ok;
				});
			},
			[&](int d) { nz[d].release(); });
	}
#endif
	return 0;
}
