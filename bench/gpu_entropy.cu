/*
 * gpu_entropy.cu - the GPU half of the stream codec study (issue 14).
 *
 * Reads what bench/streams.c wrote (-o PREFIX): the decoded streams
 * (PREFIX.raw) and the same streams coded by rans32 and huf32.  For each
 * coder it decodes every segment of every stream in one launch, checks the
 * output against the decoded streams, and times the launch (kernel only:
 * coded bytes, tables and segment list already in GPU memory; the tables
 * and list are built on the host from the stream headers).  Beside it, in
 * the same run: nvCOMP's ANS on the same decoded streams cut into 64 KiB
 * chunks (compressed by nvCOMP, decompression timed), device-resident.
 * nvCOMP is a bench comparator only (-DWLZ_NVCOMP, linked here alone).
 *
 * usage: gpu_entropy PREFIX [reps]     CSV on stdout
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <string>
#include <vector>
#include "gpu_wavefront/entropy.h"
#ifdef WLZ_NVCOMP
#include <nvcomp/ans.h>
#endif

#define CK(x)                                                                                  \
	do {                                                                                   \
		cudaError_t e_ = (x);                                                          \
		if (e_ != cudaSuccess) {                                                       \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(2);                                                               \
		}                                                                              \
	} while (0)

static std::vector<uint8_t> slurp(const char *path)
{
	std::vector<uint8_t> b;
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	uint8_t tmp[1 << 16];
	size_t k;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		b.insert(b.end(), tmp, tmp + k);
	fclose(f);
	return b;
}

/* Times fn over reps runs on one stream: best and median milliseconds. */
template <class F> static void timed(int reps, F fn, double *best, double *med)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	std::vector<float> ms;
	fn(); /* warm-up */
	CK(cudaDeviceSynchronize());
	for (int r = 0; r < reps; r++) {
		CK(cudaEventRecord(a));
		fn();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float t;
		CK(cudaEventElapsedTime(&t, a, b));
		ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	*best = ms[0];
	*med = ms[ms.size() / 2];
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gpu_entropy PREFIX [reps]\n");
		return 2;
	}
	const int reps = argc > 2 ? atoi(argv[2]) : 20;
	std::string pre = argv[1];
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	std::vector<uint8_t> raw = slurp((pre + ".raw").c_str());
	/* decoded streams: offsets into one expected output */
	std::vector<size_t> soff, slen;
	std::vector<uint8_t> expect;
	for (size_t i = 0; i + 4 <= raw.size();) {
		uint32_t n;
		memcpy(&n, &raw[i], 4);
		soff.push_back(expect.size());
		slen.push_back(n);
		expect.insert(expect.end(), raw.begin() + i + 4, raw.begin() + i + 4 + n);
		i += 4 + n;
	}
	const size_t total = expect.size();
	printf("file,coder,streams,decoded_bytes,coded_bytes,coded_pct,gbps_best,gbps_median,what\n");
	uint8_t *d_out;
	int *d_err;
	CK(cudaMalloc(&d_out, total + 64));
	CK(cudaMalloc(&d_err, sizeof(int)));
	std::vector<uint8_t> got(total);
	static const char *ext[2] = {"rans", "huf"};
	for (int c = 0; c < 2; c++) {
		std::vector<uint8_t> cod = slurp((pre + "." + ext[c]).c_str());
		std::vector<uint8_t> in;
		wlz_gpu_ent_plan plan;
		memset(&plan, 0, sizeof plan);
		plan.coder = c;
		size_t k = 0, coded = 0;
		for (size_t i = 0; i + 8 <= cod.size(); k++) {
			uint32_t hd[2];
			memcpy(hd, &cod[i], 8);
			if (k >= slen.size() || hd[0] != slen[k]) {
				fprintf(stderr, "gpu_entropy: %s does not match the raw streams\n", ext[c]);
				return 2;
			}
			while (in.size() & 15)
				in.push_back(0);
			const size_t at = in.size();
			in.insert(in.end(), cod.begin() + i + 8, cod.begin() + i + 8 + hd[1]);
			coded += hd[1];
			if (!wlz_gpu_ent_add(&plan, in.data(), at, hd[1], hd[0], soff[k])) {
				fprintf(stderr, "gpu_entropy: stream %zu of %s does not parse\n", k, ext[c]);
				return 2;
			}
			i += 8 + hd[1];
		}
		in.resize(in.size() + 16, 0);
		uint8_t *d_in;
		wlz_gpu_seg *d_seg;
		void *d_tab;
		const size_t tsz = c == WLZ_GPU_RANS ? 4096 * 4 : 2048 * 2;
		CK(cudaMalloc(&d_in, in.size()));
		CK(cudaMalloc(&d_seg, plan.nseg * sizeof(wlz_gpu_seg)));
		CK(cudaMalloc(&d_tab, plan.ntab * tsz + 16));
		CK(cudaMemcpy(d_in, in.data(), in.size(), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_seg, plan.seg, plan.nseg * sizeof(wlz_gpu_seg), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_tab, plan.tabs, plan.ntab * tsz, cudaMemcpyHostToDevice));
		CK(cudaMemset(d_out, 0, total));
		CK(cudaMemset(d_err, 0, sizeof(int)));
		if (wlz_gpu_ent_launch(c, d_seg, plan.nseg, d_tab, d_in, d_out, d_err, 0))
			return 3;
		CK(cudaDeviceSynchronize());
		int err;
		CK(cudaMemcpy(&err, d_err, sizeof err, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(got.data(), d_out, total, cudaMemcpyDeviceToHost));
		const bool ok = err == 0 && !memcmp(got.data(), expect.data(), total);
		double best, med;
		timed(reps, [&] { wlz_gpu_ent_launch(c, d_seg, plan.nseg, d_tab, d_in, d_out, d_err, 0); }, &best, &med);
		printf("%s,%s,%zu,%zu,%zu,%.2f,%.1f,%.1f,kernel-only (%zu segments)%s\n", name, c ? "huf32" : "rans32",
		       k, total, coded, 100.0 * coded / total, total / best / 1e6, total / med / 1e6, plan.nseg,
		       ok ? "" : " MISMATCH");
		if (!ok)
			fprintf(stderr, "gpu_entropy: %s: %d bad segments, output %s\n", ext[c], err,
				memcmp(got.data(), expect.data(), total) ? "differs" : "matches");
		CK(cudaFree(d_in));
		CK(cudaFree(d_seg));
		CK(cudaFree(d_tab));
		wlz_gpu_ent_plan_free(&plan);
	}
#ifdef WLZ_NVCOMP
	{
		/* The same decoded streams in 64 KiB chunks (none crossing a
		 * stream), each chunk 16-byte aligned as nvCOMP asks. */
		const size_t CH = 1 << 16;
		std::vector<size_t> cin_off, cin_len, cout_off;
		size_t pos = 0;
		for (size_t s = 0; s < slen.size(); s++)
			for (size_t o = 0; o < slen[s]; o += CH) {
				cin_off.push_back(soff[s] + o);
				cin_len.push_back(std::min(CH, slen[s] - o));
				cout_off.push_back(pos);
				pos += (cin_len.back() + 15) & ~(size_t)15;
			}
		const size_t nch = cin_off.size();
		std::vector<uint8_t> staged(pos, 0);
		for (size_t i = 0; i < nch; i++)
			memcpy(&staged[cout_off[i]], &expect[cin_off[i]], cin_len[i]);
		uint8_t *d_un, *d_cmp;
		CK(cudaMalloc(&d_un, pos));
		CK(cudaMemcpy(d_un, staged.data(), pos, cudaMemcpyHostToDevice));
		size_t maxc;
		nvcompBatchedANSCompressOpts_t copt = nvcompBatchedANSCompressDefaultOpts;
		nvcompBatchedANSDecompressOpts_t dopt = nvcompBatchedANSDecompressDefaultOpts;
		nvcompBatchedANSCompressGetMaxOutputChunkSize(CH, copt, &maxc);
		maxc = (maxc + 15) & ~(size_t)15;
		CK(cudaMalloc(&d_cmp, maxc * nch));
		std::vector<void *> hu(nch), hc(nch);
		std::vector<size_t> hl(nch);
		for (size_t i = 0; i < nch; i++)
			hu[i] = d_un + cout_off[i], hc[i] = d_cmp + i * maxc, hl[i] = cin_len[i];
		void **d_up, **d_cp;
		size_t *d_ul, *d_cl, *d_al;
		nvcompStatus_t *d_st;
		CK(cudaMalloc(&d_up, nch * sizeof(void *)));
		CK(cudaMalloc(&d_cp, nch * sizeof(void *)));
		CK(cudaMalloc(&d_ul, nch * sizeof(size_t)));
		CK(cudaMalloc(&d_cl, nch * sizeof(size_t)));
		CK(cudaMalloc(&d_al, nch * sizeof(size_t)));
		CK(cudaMalloc(&d_st, nch * sizeof(nvcompStatus_t)));
		CK(cudaMemcpy(d_up, hu.data(), nch * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_cp, hc.data(), nch * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_ul, hl.data(), nch * sizeof(size_t), cudaMemcpyHostToDevice));
		size_t ctemp = 0, dtemp = 0;
		nvcompBatchedANSCompressGetTempSize(nch, CH, copt, &ctemp, total, 0);
		nvcompBatchedANSDecompressGetTempSize(nch, CH, dopt, &dtemp, total, 0);
		void *d_temp;
		CK(cudaMalloc(&d_temp, std::max(ctemp, dtemp) + 16));
		if (nvcompBatchedANSCompressAsync(d_up, d_ul, CH, nch, d_temp, ctemp, d_cp, d_cl, copt, d_st, 0) !=
		    nvcompSuccess)
			return 4;
		CK(cudaDeviceSynchronize());
		std::vector<size_t> cl(nch);
		CK(cudaMemcpy(cl.data(), d_cl, nch * sizeof(size_t), cudaMemcpyDeviceToHost));
		size_t csum = 0;
		for (size_t v : cl)
			csum += v;
		CK(cudaMemset(d_un, 0, pos));
		auto dec = [&] {
			nvcompBatchedANSDecompressAsync((const void *const *)d_cp, d_cl, d_ul, d_al, nch, d_temp, dtemp,
							(void *const *)d_up, dopt, d_st, 0);
		};
		dec();
		CK(cudaDeviceSynchronize());
		std::vector<uint8_t> back(pos);
		CK(cudaMemcpy(back.data(), d_un, pos, cudaMemcpyDeviceToHost));
		const bool ok = !memcmp(back.data(), staged.data(), pos);
		double best, med;
		timed(reps, dec, &best, &med);
		printf("%s,nvcomp-ans-64k,%zu,%zu,%zu,%.2f,%.1f,%.1f,device-resident (%zu chunks)%s\n", name,
		       slen.size(), total, csum, 100.0 * csum / total, total / best / 1e6, total / med / 1e6, nch,
		       ok ? "" : " MISMATCH");
	}
#endif
	return 0;
}
