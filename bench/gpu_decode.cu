/*
 * gpu_decode.cu - a whole decode on the GPU (issue 15's pipeline), checked
 * and timed.
 *
 *   gpu_decode ARCHIVE [reps]
 *
 * One member.  The archive goes to GPU memory; then on the GPU: every
 * stream's entropy stage (entropy.cu), every block's tokens (parse.cu),
 * literals and matches in one persistent pass (flow.cu), and every block's
 * XXH3-64 (xxh3.cu) against its header.  The output must equal the CPU
 * decoder's (exit 1 otherwise).  Times, alternating runs: device-resident
 * (archive in GPU memory to checked content in GPU memory, every stage, and per
 * stage) and host to host (pinned archive to pinned content); beside the
 * CPU decoder on every core.
 */
#include <string.h>
#include <time.h>
extern "C" {
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/flow.h"
#include "gpu_wavefront/xxh3.h"
#include "wavelz.h"
}
#include "bench/gpu_util.h"

/* Milliseconds between two events. */
static float between(cudaEvent_t a, cudaEvent_t b)
{
	float ms;
	CK(cudaEventElapsedTime(&ms, a, b));
	return ms;
}

int main(int argc, char **argv)
{
	int reps;
	std::vector<uint8_t> arc = bench_open(argc, argv, "gpu_decode", 5, &reps);
	/* Streams' places (16-byte aligned, 16 bytes after each), the entropy
	 * plan, the blocks. */
	wlz_gpu_ent_plan plan;
	memset(&plan, 0, sizeof plan);
	std::vector<wlz_gpu_pblock> blk;
	std::vector<uint64_t> boff, blen, bsum;
	uint64_t sbytes = 0, ntok = 0, nscr = 0, size = 0;
	unsigned maxl = 0;
	uint32_t max_lit = 0;
	const unsigned members = each_block(arc, "gpu_decode", [&](const wlz_block_entry *e, uint64_t bstart) {
		const wlz_gpu_pblock p = wlz_gpu_pblock_next(e, bstart, 0, UINT64_MAX, &sbytes, &ntok, &nscr);
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			if (!wlz_gpu_ent_add(&plan, arc.data() + in, in, e->csize[k], e->codec[k], e->rsize[k],
					     p.s_off[k])) {
				fprintf(stderr, "gpu_decode: a stream the GPU cannot decode (codec %d)\n", e->codec[k]);
				exit(2);
			}
			in += e->csize[k];
		}
		blk.push_back(p);
		boff.push_back(bstart);
		blen.push_back(e->length);
		bsum.push_back(e->checksum);
		maxl = e->max_level > maxl ? e->max_level : maxl;
		max_lit = e->rsize[WLZ_S_LIT] > max_lit ? e->rsize[WLZ_S_LIT] : max_lit;
		size += e->length;
	});
	if (members != 1) {
		fprintf(stderr, "gpu_decode: one member only\n");
		return 2;
	}
	if (!wlz_gpu_ent_plan_finish(&plan))
		return 2;
	const size_t n = blk.size();
	/* Rounds of source resolution before the pass, as the library picks
	 * them, or $WLZ_GPU_RESOLVE (a bench knob, for side-by-side runs). */
	unsigned rounds = wlz_gpu_flow_resolve_for(maxl);
	if (getenv("WLZ_GPU_RESOLVE"))
		rounds = (unsigned)atoi(getenv("WLZ_GPU_RESOLVE"));
	uint64_t window = UINT64_MAX;
	for (const wlz_gpu_pblock &b : blk)
		window = std::min(window, b.window);
	uint32_t max_tok = 0; /* (the parse's segments a block) */
	for (const wlz_gpu_pblock &b : blk)
		max_tok = b.ntok > max_tok ? b.ntok : max_tok;

	/* The CPU's content, to compare. */
	std::vector<uint8_t> want(size + 16);
	wlz_dctx *dc = wlz_dctx_create(0);
	size_t got = 0;
	/* (timed too: the CPU decoder on every core, the peer in this run) */
	double cpu_s = 1e30;
	for (int r = 0; r <= reps; r++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (!dc || wlz_decompress(dc, want.data(), want.size(), arc.data(), arc.size(), &got) != WLZ_OK ||
		    got != size) {
			fprintf(stderr, "gpu_decode: the CPU does not decode the archive\n");
			return 2;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		const double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		cpu_s = r > 0 && sec < cpu_s ? sec : cpu_s;
	}
	wlz_dctx_free(dc);

	uint8_t *d_in, *d_st, *d_out;
	int *d_err;
	wlz_gpu_seg *d_seg;
	wlz_gpu_group *d_grp;
	uint16_t *d_tab;
	wlz_gpu_pblock *d_blk;
	wlz_gpu_token *d_tok;
	uint32_t *d_scr, *d_bad;
	uint64_t *d_boff, *d_blen, *d_hash, *d_hscr;
	CK(cudaMalloc(&d_in, arc.size() + 16));
	CK(cudaMemset(d_in, 0, arc.size() + 16));
	CK(cudaMemcpy(d_in, arc.data(), arc.size(), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_st, sbytes + 64));
	CK(cudaMemset(d_st, 0, sbytes + 64));
	CK(cudaMalloc(&d_out, size + 16));
	CK(cudaMalloc(&d_err, 2 * sizeof(int)));
	CK(cudaMalloc(&d_seg, plan.nseg * sizeof(wlz_gpu_seg) + 1));
	CK(cudaMalloc(&d_grp, plan.ngrp * sizeof(wlz_gpu_group) + 1));
	CK(cudaMalloc(&d_tab, plan.ntab * WLZ_GPU_TAB * 2 + 16));
	CK(cudaMemcpy(d_seg, plan.seg, plan.nseg * sizeof(wlz_gpu_seg), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_grp, plan.grp, plan.ngrp * sizeof(wlz_gpu_group), cudaMemcpyHostToDevice));
	uint8_t *d_codes;
	CK(cudaMalloc(&d_codes, plan.ntab * 256 + 16));
	CK(cudaMemcpy(d_codes, plan.codes, plan.ntab * 256, cudaMemcpyHostToDevice));
	/* (the tables are built on the GPU, timed with the entropy stage) */
	CK(cudaMalloc(&d_blk, n * sizeof(wlz_gpu_pblock)));
	CK(cudaMemcpy(d_blk, blk.data(), n * sizeof(wlz_gpu_pblock), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_tok, (ntok + 1) * sizeof(wlz_gpu_token)));
	CK(cudaMalloc(&d_scr, (nscr + 1) * 4));
	CK(cudaMalloc(&d_bad, (n + 1) * 4));
	CK(cudaMalloc(&d_boff, n * 8));
	CK(cudaMalloc(&d_blen, n * 8));
	CK(cudaMalloc(&d_hash, n * 8));
	CK(cudaMalloc(&d_hscr, wlz_gpu_xxh3_scratch(size)));
	CK(cudaMemcpy(d_boff, boff.data(), n * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_blen, blen.data(), n * 8, cudaMemcpyHostToDevice));

	void *d_flow;
	uint32_t *d_fail;
	/* tokens cut into pieces where the library would cut them, or as
	 * $WLZ_GPU_CUT says (0 or 1: a bench knob, for side-by-side runs) */
	const bool cut = getenv("WLZ_GPU_CUT") ? atoi(getenv("WLZ_GPU_CUT")) != 0
					       : wlz_gpu_flow_cut_for(maxl, size, ntok) != 0;
	wlz_gpu_token *d_ops = NULL;
	if (cut)
		CK(cudaMalloc(&d_ops, 2 * (ntok ? ntok : 1) * sizeof(wlz_gpu_token)));
	if (cut && !rounds)
		fprintf(stderr, "gpu_decode: WLZ_GPU_CUT=1 without rounds of resolution (max_level %u): no cut\n", maxl);
	CK(cudaMalloc(&d_flow, wlz_gpu_flow_work(cut ? 2 * ntok : ntok, size)));
	CK(cudaMalloc(&d_fail, WLZ_GPU_FLOW_FAIL * 4));

	cudaEvent_t ev[6]; /* the stages' bounds; ev[5] the host-to-host start */
	for (auto &e : ev)
		CK(cudaEventCreate(&e));
	/* Host to host: the archive from pinned memory, the content back to it. */
	uint8_t *h_arc, *h_out;
	CK(cudaMallocHost(&h_arc, arc.size()));
	CK(cudaMallocHost(&h_out, size + 1));
	memcpy(h_arc, arc.data(), arc.size());
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	printf("file,blocks,tokens,bytes,max_level,gbps,gbps_h2h,cpu_all_cores_gbps,"
	       "entropy_ms,parse_ms,"
	       "exec_ms,checksum_ms,ent_err,blocks_bad,checksum_bad,exec_fail,same_"
	       "as_cpu,what\n");
	int status = 0;
	{
		float best = 1e30f, best_h2h = 1e30f, stage[4] = {0, 0, 0, 0};
		int fail = 0;
		for (int r = 0; r <= 2 * reps + 1; r++) {
			/* Even runs device-resident, odd ones host to host. */
			const bool h2h = r & 1;
			/* (every run on a cleared output, so that a byte the pass
			 * read before it was final cannot pass for the last run's;
			 * not timed) */
			CK(cudaMemset(d_out, 0, size));
			CK(cudaMemset(d_err, 0, 2 * sizeof(int)));
			CK(cudaMemset(d_bad, 0, (n + 1) * 4));
			const cudaEvent_t h0 = ev[5];
			CK(cudaEventRecord(h0));
			if (h2h)
				CK(cudaMemcpyAsync(d_in, h_arc, arc.size(), cudaMemcpyHostToDevice, 0));
			CK(cudaEventRecord(ev[0]));
			if (wlz_gpu_ent_tables(d_codes, plan.ntab, d_tab, 0) || wlz_gpu_ent_launch(&plan, d_seg, d_grp, d_tab, d_in, d_st, d_err, NULL, 0))
				return 3;
			CK(cudaEventRecord(ev[1]));
			if (wlz_gpu_parse(d_blk, n, max_tok, d_st, d_scr, d_tok, d_bad, 0))
				return 3;
			CK(cudaEventRecord(ev[2]));
			if (wlz_gpu_flow(d_blk, n, max_lit, d_tok, ntok, d_st, d_out, size, d_flow, d_bad, d_fail, rounds,
					 window, d_ops, 0))
				return 3;
			CK(cudaEventRecord(ev[3]));
			if (wlz_gpu_xxh3(d_out, d_boff, d_blen, d_hash, n, d_hscr, 0))
				return 3;
			CK(cudaEventRecord(ev[4]));
			if (h2h) {
				CK(cudaMemcpyAsync(h_out, d_out, size, cudaMemcpyDeviceToHost, 0));
				CK(cudaEventRecord(ev[4]));
				CK(cudaEventSynchronize(ev[4]));
				const float t = between(h0, ev[4]);
				best_h2h = r > 1 && t < best_h2h ? t : best_h2h;
				continue;
			}
			CK(cudaEventSynchronize(ev[4]));
			const float total = between(ev[0], ev[4]);
			if (r > 1 && total < best) {
				best = total;
				for (int s = 0; s < 4; s++)
					stage[s] = between(ev[s], ev[s + 1]);
			}
		}
		/* Checks: every stage's verdict, the checksums, the content. */
		int err[2];
		std::vector<uint32_t> bad(n + 1);
		std::vector<uint64_t> hash(n);
		std::vector<uint8_t> out(size);
		CK(cudaMemcpy(err, d_err, sizeof err, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(bad.data(), d_bad, (n + 1) * 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hash.data(), d_hash, n * 8, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(out.data(), d_out, size, cudaMemcpyDeviceToHost));
		uint32_t f[WLZ_GPU_FLOW_FAIL];
		CK(cudaMemcpy(f, d_fail, sizeof f, cudaMemcpyDeviceToHost));
		if (f[0]) {
			fprintf(stderr,
				"gpu_decode: execution gave up: token %u waits on %u..%u (state "
				"%u), inside %08x\n",
				f[1], f[2], f[3], f[4], f[5]);
			fail = 1;
		}
		size_t nbad = bad[n] != 0, nsum = 0;
		for (size_t b = 0; b < n; b++)
			nbad += bad[b] != 0, nsum += hash[b] != bsum[b];
		const bool same = !memcmp(out.data(), want.data(), size);
		const bool same_h2h = !memcmp(h_out, want.data(), size);
		printf("%s,%zu,%llu,%llu,%u,%.1f,%.1f,%.2f,%.3f,%.3f,%.3f,%.3f,%d,%zu,%zu,%d,%"
		       "s,device-resident and "
		       "host-to-host (pinned; the entropy plan built on the CPU beforehand)\n",
		       name, n, (unsigned long long)ntok, (unsigned long long)size, maxl, size / best / 1e6,
		       size / best_h2h / 1e6, size / cpu_s / 1e9, stage[0], stage[1], stage[2], stage[3], err[0], nbad,
		       nsum, fail, same && same_h2h ? "yes" : "NO");
		fflush(stdout);
		status |= !(same && same_h2h && !err[0] && !nbad && !nsum && !fail);
	}
	CK(cudaFreeHost(h_arc));
	CK(cudaFreeHost(h_out));
	return status;
}
