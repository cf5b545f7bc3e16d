/*
 * gpu_entropy.cu - the GPU half of the stream codec study (issue 14).
 *
 * Reads an archive whose streams are raw or codec 2 (the default), decodes
 * every segment of every stream of it in one launch, checks the output
 * against the CPU's decode of the same streams, and times the launch
 * (kernel only: the archive, tables and segment list already in GPU
 * memory; tables and list are built on the host from the stream headers).
 * Beside it, in the same run: nvCOMP's ANS on the same decoded streams cut
 * into 64 KiB chunks (compressed by nvCOMP, decompression timed),
 * device-resident.  nvCOMP is a bench comparator only (-DWLZ_NVCOMP,
 * linked here alone).
 *
 * usage: gpu_entropy ARCHIVE [reps]     CSV on stdout
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
extern "C" {
#include "common/ent.h"
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
}
#ifdef WLZ_NVCOMP
#include <nvcomp/ans.h>
#endif

#include "bench/gpu_util.h"

/* The plan's shape (to stderr): thread blocks, their warps, and the
 * symbols a lane of each block's longest segment (an SM runs its blocks'
 * lanes side by side, then the next blocks'); WLZ_ENT_STATS=2 also lists
 * each block. */
static void plan_stats(const wlz_gpu_ent_plan *p)
{
	size_t warps = 0, huf = 0, shared = 0;
	const bool each = getenv("WLZ_ENT_STATS")[0] == '2';
	std::vector<uint32_t> lane;
	for (size_t g = 0; g < p->ngrp; g++) {
		const wlz_gpu_group &gr = p->grp[g];
		uint32_t most = 0;
		for (uint32_t i = 0; i < gr.nseg; i++) {
			const wlz_gpu_seg &s = p->seg[gr.seg + i];
			warps++;
			if (s.ntab) {
				huf++;
				most = std::max(most, (s.m + 31) / 32);
			}
		}
		shared += gr.ntab != 0;
		lane.push_back(most);
		if (each)
			fprintf(stderr, "block %zu: %u warps, %u shared tables, longest lane %u\n", g, gr.nseg, gr.ntab,
				most);
	}
	std::vector<uint32_t> sorted = lane;
	std::sort(sorted.begin(), sorted.end());
	fprintf(stderr, "%zu blocks (%zu of shared tables), %zu warps (%zu Huffman, %zu copies or runs)\n", p->ngrp,
		shared, warps, huf, warps - huf);
	if (!sorted.empty())
		fprintf(stderr, "a block's longest lane (symbols): min %u, median %u, p90 %u, max %u\n", sorted[0],
			sorted[sorted.size() / 2], sorted[sorted.size() * 9 / 10], sorted.back());
}

int main(int argc, char **argv)
{
	int reps;
	/* WLZ_ENT_STATS: the plan's shape only, no device needed. */
	const bool stats = getenv("WLZ_ENT_STATS") && argc > 1;
	std::vector<uint8_t> arc = stats ? slurp(argv[1]) : bench_open(argc, argv, "gpu_entropy", 20, &reps);
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	/* Every stream of every block: the plan, and the CPU's decode of it
	 * (each stream 16-byte aligned in one output buffer). */
	wlz_gpu_ent_plan plan;
	memset(&plan, 0, sizeof plan);
	std::vector<size_t> soff, slen;
	std::vector<uint8_t> expect;
	wlz_huf_tables *ht = (wlz_huf_tables *)malloc(sizeof(wlz_huf_tables));
	size_t stored = 0;
	each_block(arc, "gpu_entropy", [&](const wlz_block_entry *e, uint64_t) {
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			const size_t rs = e->rsize[k], cs = e->csize[k];
			expect.resize((expect.size() + 15) & ~(size_t)15);
			const size_t o = expect.size();
			expect.resize(o + rs);
			if (!cpu_stream(&arc[in], e, k, &expect[o], ht)) {
				fprintf(stderr, "gpu_entropy: a stream does not decode on the CPU\n");
				exit(2);
			}
			if (!wlz_gpu_ent_add(&plan, arc.data() + in, in, cs, e->codec[k], rs, o)) {
				fprintf(stderr, "gpu_entropy: a stream the GPU cannot decode (codec %d)\n", e->codec[k]);
				exit(2);
			}
			if (rs)
				soff.push_back(o), slen.push_back(rs);
			stored += cs;
			in += cs;
		}
	});
	free(ht);
	if (!wlz_gpu_ent_plan_finish(&plan))
		return 2;
	const size_t total = expect.size();
	size_t decoded = 0;
	for (size_t v : slen)
		decoded += v;
	if (stats) {
		plan_stats(&plan);
		return 0;
	}
	printf("file,coder,streams,decoded_bytes,coded_bytes,coded_pct,gbps_best,gbps_median,what\n");
	uint8_t *d_out, *d_in;
	int *d_err;
	wlz_gpu_seg *d_seg;
	wlz_gpu_group *d_grp;
	uint16_t *d_tab;
	CK(cudaMalloc(&d_out, total + 64));
	CK(cudaMalloc(&d_err, sizeof(int)));
	CK(cudaMalloc(&d_in, arc.size() + 16));
	CK(cudaMalloc(&d_seg, plan.nseg * sizeof(wlz_gpu_seg)));
	CK(cudaMalloc(&d_grp, plan.ngrp * sizeof(wlz_gpu_group)));
	CK(cudaMemcpy(d_grp, plan.grp, plan.ngrp * sizeof(wlz_gpu_group), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_tab, plan.ntab * WLZ_GPU_TAB * 2 + 16));
	CK(cudaMemset(d_in, 0, arc.size() + 16));
	CK(cudaMemcpy(d_in, arc.data(), arc.size(), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_seg, plan.seg, plan.nseg * sizeof(wlz_gpu_seg), cudaMemcpyHostToDevice));
	uint8_t *d_codes;
	CK(cudaMalloc(&d_codes, plan.ntab * 256 + 16));
	CK(cudaMemcpy(d_codes, plan.codes, plan.ntab * 256, cudaMemcpyHostToDevice));
	/* (the tables are built on the GPU, timed with the entropy stage) */
	CK(cudaMemset(d_out, 0, total));
	CK(cudaMemset(d_err, 0, sizeof(int)));
	if (wlz_gpu_ent_tables(d_codes, plan.ntab, d_tab, 0) || wlz_gpu_ent_launch(&plan, d_seg, d_grp, d_tab, d_in, d_out, d_err, NULL, 0))
		return 3;
	CK(cudaDeviceSynchronize());
	int err;
	std::vector<uint8_t> got(total);
	CK(cudaMemcpy(&err, d_err, sizeof err, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(got.data(), d_out, total, cudaMemcpyDeviceToHost));
	const bool ok = err == 0 && !memcmp(got.data(), expect.data(), total);
	double best, med;
	timed(reps, [&] { wlz_gpu_ent_tables(d_codes, plan.ntab, d_tab, 0); wlz_gpu_ent_launch(&plan, d_seg, d_grp, d_tab, d_in, d_out, d_err, NULL, 0); }, &best, &med);
	printf("%s,codec2,%zu,%zu,%zu,%.2f,%.1f,%.1f,kernel-only (%zu segments, %zu groups)%s\n", name, slen.size(),
	       decoded, stored, 100.0 * stored / decoded, decoded / best / 1e6, decoded / med / 1e6, plan.nseg, plan.ngrp,
	       ok ? "" : " MISMATCH");
	if (!ok)
		fprintf(stderr, "gpu_entropy: %d bad segments, output %s\n", err,
			memcmp(got.data(), expect.data(), total) ? "differs" : "matches");
	CK(cudaFree(d_in));
	CK(cudaFree(d_seg));
	CK(cudaFree(d_grp));
	CK(cudaFree(d_tab));
	CK(cudaFree(d_codes));
	wlz_gpu_ent_plan_free(&plan);
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
