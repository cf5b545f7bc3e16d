/*
 * gpu_peers.cu - nvCOMP's whole-file decoders on the same file, the peers
 * of bench/gpu_decode in issue 15's table (nvCOMP is a bench comparator
 * only, never a dependency of wavelz).
 *
 *   gpu_peers FILE [reps]
 *
 * The file is cut into 64 KiB chunks and compressed with nvCOMP's LZ4,
 * Snappy and GDeflate on the GPU, and with zstd level 3 on the CPU
 * (libzstd, a frame a chunk) for nvCOMP's zstd decoder.  Each is then
 * decoded by nvCOMP's batched API, timed device-resident (compressed
 * chunks in GPU memory to decoded chunks in GPU memory), and checked
 * against the file.  A row per codec: the ratio and GB/s (best of reps).
 */
#include <string.h>
#include <zstd.h>
#include <nvcomp/gdeflate.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>
#include "bench/gpu_util.h"

static const size_t CH = 1 << 16;

/* The chunks' device pointers and sizes, as nvCOMP's batched calls take
 * them. */
struct batch {
	size_t n;
	void **d_un, **d_cmp;
	size_t *d_ul, *d_cl, *d_got;
	nvcompStatus_t *d_st;
};

#define NV(call)                                                                                                       \
	do {                                                                                                           \
		nvcompStatus_t s_ = (call);                                                                            \
		if (s_ != nvcompSuccess) {                                                                             \
			fprintf(stderr, "gpu_peers: %s: nvCOMP status %d\n", #call, (int)s_);                          \
			exit(3);                                                                                       \
		}                                                                                                      \
	} while (0)

/* One codec's row: compress (by comp, which fills the compressed chunks
 * and their sizes), then time dec. */
template <class C, class D>
static void row(const char *file, const char *codec, const char *how, const std::vector<uint8_t> &data,
		uint8_t *d_data, size_t maxc, const batch &B, int reps, C comp, D dec)
{
	comp();
	CK(cudaDeviceSynchronize());
	std::vector<size_t> cl(B.n);
	CK(cudaMemcpy(cl.data(), B.d_cl, B.n * sizeof(size_t), cudaMemcpyDeviceToHost));
	size_t csum = 0;
	for (size_t v : cl)
		csum += v;
	CK(cudaMemset(d_data, 0, data.size()));
	dec();
	CK(cudaDeviceSynchronize());
	std::vector<uint8_t> back(data.size());
	CK(cudaMemcpy(back.data(), d_data, data.size(), cudaMemcpyDeviceToHost));
	std::vector<nvcompStatus_t> st(B.n);
	CK(cudaMemcpy(st.data(), B.d_st, B.n * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost));
	size_t bad = 0;
	for (auto s : st)
		bad += s != nvcompSuccess;
	const bool ok = !bad && !memcmp(back.data(), data.data(), data.size());
	double best, med;
	timed(reps, dec, &best, &med);
	printf("%s,nvcomp-%s,%zu,%zu,%.2f,%.1f,%.1f,device-resident (%zu chunks of 64 KiB; compressed %s)%s\n", file,
	       codec, data.size(), csum, 100.0 * csum / data.size(), data.size() / best / 1e6,
	       data.size() / med / 1e6, B.n, how, ok ? "" : " MISMATCH");
	(void)maxc;
}

int main(int argc, char **argv)
{
	int reps;
	std::vector<uint8_t> data = bench_open(argc, argv, "gpu_peers", 10, &reps);
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	const size_t n = (data.size() + CH - 1) / CH, size = data.size();
	/* Room for the largest compressed chunk of any of them. */
	size_t maxc = ZSTD_compressBound(CH), m;
	NV(nvcompBatchedLZ4CompressGetMaxOutputChunkSize(CH, nvcompBatchedLZ4CompressDefaultOpts, &m));
	maxc = std::max(maxc, m);
	NV(nvcompBatchedSnappyCompressGetMaxOutputChunkSize(CH, nvcompBatchedSnappyCompressDefaultOpts, &m));
	maxc = std::max(maxc, m);
	NV(nvcompBatchedGdeflateCompressGetMaxOutputChunkSize(CH, nvcompBatchedGdeflateCompressDefaultOpts, &m));
	maxc = std::max(maxc, m);
	maxc = (maxc + 15) & ~(size_t)15;

	uint8_t *d_data, *d_cmp;
	CK(cudaMalloc(&d_data, size + 16));
	CK(cudaMalloc(&d_cmp, maxc * n));
	batch B;
	B.n = n;
	std::vector<void *> hu(n), hc(n);
	std::vector<size_t> hl(n);
	for (size_t i = 0; i < n; i++)
		hu[i] = d_data + i * CH, hc[i] = d_cmp + i * maxc, hl[i] = std::min(CH, size - i * CH);
	CK(cudaMalloc(&B.d_un, n * sizeof(void *)));
	CK(cudaMalloc(&B.d_cmp, n * sizeof(void *)));
	CK(cudaMalloc(&B.d_ul, n * sizeof(size_t)));
	CK(cudaMalloc(&B.d_cl, n * sizeof(size_t)));
	CK(cudaMalloc(&B.d_got, n * sizeof(size_t)));
	CK(cudaMalloc(&B.d_st, n * sizeof(nvcompStatus_t)));
	CK(cudaMemcpy(B.d_un, hu.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(B.d_cmp, hc.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(B.d_ul, hl.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
	auto upload = [&] { CK(cudaMemcpy(d_data, data.data(), size, cudaMemcpyHostToDevice)); };
	size_t t = 0;
	void *d_temp = NULL;
	size_t temp_cap = 0;
	auto temp = [&](size_t want) {
		if (want > temp_cap) {
			if (d_temp)
				CK(cudaFree(d_temp));
			CK(cudaMalloc(&d_temp, want));
			temp_cap = want;
		}
	};
	printf("file,codec,bytes,compressed,compressed_pct,gbps_best,gbps_median,what\n");

	/* LZ4, Snappy, GDeflate: compressed by nvCOMP on the GPU. */
#define GPU_PEER(P, label)                                                                                             \
	do {                                                                                                           \
		size_t ct = 0, dt = 0;                                                                                 \
		NV(nvcompBatched##P##CompressGetTempSize(n, CH, nvcompBatched##P##CompressDefaultOpts, &ct, size, 0)); \
		NV(nvcompBatched##P##DecompressGetTempSize(n, CH, nvcompBatched##P##DecompressDefaultOpts, &dt, size,  \
							   0));                                                        \
		temp(std::max(ct, dt) + 16);                                                                           \
		t = dt;                                                                                                \
		row(                                                                                                   \
			name, label, "by nvCOMP on the GPU", data, d_data, maxc, B, reps,                              \
			[&] {                                                                                          \
				upload();                                                                              \
				NV(nvcompBatched##P##CompressAsync((const void *const *)B.d_un, B.d_ul, CH, n, d_temp, \
								   ct, B.d_cmp, B.d_cl,                                \
								   nvcompBatched##P##CompressDefaultOpts, B.d_st, 0)); \
			},                                                                                             \
			[&] {                                                                                          \
				nvcompBatched##P##DecompressAsync((const void *const *)B.d_cmp, B.d_cl, B.d_ul,        \
								  B.d_got, n, d_temp, t, B.d_un,                       \
								  nvcompBatched##P##DecompressDefaultOpts, B.d_st, 0); \
			});                                                                                            \
	} while (0)
	/* $GPU_PEERS, e.g. "zstd,lz4", picks codecs (default: all): on large
	 * inputs GDeflate's temporary memory does not fit beside the rest. */
	const char *pick = getenv("GPU_PEERS");
	auto want = [&](const char *c) { return !pick || strstr(pick, c) != NULL; };
	if (want("lz4"))
		GPU_PEER(LZ4, "lz4");
	if (want("snappy"))
		GPU_PEER(Snappy, "snappy");
	if (want("gdeflate"))
		GPU_PEER(Gdeflate, "gdeflate");

	/* zstd: level 3 on the CPU, a frame a chunk. */
	if (want("zstd")) {
		size_t dt = 0;
		NV(nvcompBatchedZstdDecompressGetTempSize(n, CH, nvcompBatchedZstdDecompressDefaultOpts, &dt, size, 0));
		temp(dt + 16);
		row(
			name, "zstd", "by libzstd level 3 on the CPU", data, d_data, maxc, B, reps,
			[&] {
				std::vector<uint8_t> buf(maxc);
				std::vector<size_t> cl(n);
				for (size_t i = 0; i < n; i++) {
					cl[i] = ZSTD_compress(buf.data(), maxc, &data[i * CH], hl[i], 3);
					if (ZSTD_isError(cl[i])) {
						fprintf(stderr, "gpu_peers: zstd: %s\n", ZSTD_getErrorName(cl[i]));
						exit(3);
					}
					CK(cudaMemcpy(d_cmp + i * maxc, buf.data(), cl[i], cudaMemcpyHostToDevice));
				}
				CK(cudaMemcpy(B.d_cl, cl.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
			},
			[&] {
				nvcompBatchedZstdDecompressAsync((const void *const *)B.d_cmp, B.d_cl, B.d_ul, B.d_got, n,
								 d_temp, dt, B.d_un, nvcompBatchedZstdDecompressDefaultOpts,
								 B.d_st, 0);
			});
	}
	return 0;
}
