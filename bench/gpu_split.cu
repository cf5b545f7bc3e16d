/*
 * gpu_split.cu - one member decoded by several GPUs at once (issue 16).
 *
 *   gpu_split ARCHIVE [reps [gpus [group]]]
 *
 * The member's blocks are cut into groups of `group` blocks (default 8),
 * dealt to the GPUs in turn, so that the GPUs move through the member side
 * by side: a source then seldom lies in bytes another GPU has yet to
 * write (cut into one share a GPU, the second GPU's far sources waited on
 * the first: bench/host/issue16-split.md).  Each GPU decodes its own
 * blocks' streams (entropy.cu), tokens (parse.cu) and literals, then runs
 * the pass (flow.cu) over its own tokens, reading the bytes and polling
 * the token states of the other GPUs' over peer access; then it checks its
 * blocks' XXH3-64.  The output, the tokens, the pass's granule table and
 * token states are each one range of addresses whose pages lie on the
 * GPU that writes them (CUDA's virtual memory management), so that a
 * source is read at its position wherever it lies.
 *
 * Times one GPU (the product's single-GPU pass) and all gpus (default:
 * every visible GPU), alternating, best of reps: device-resident, from
 * the archive in GPU memory to checked content in GPU memory (the host's
 * wall time around the launches on every GPU and their completion).  The
 * content must equal the CPU decoder's, every block's checksum hold and
 * no stage fail (exit 1 otherwise).
 *
 * $GPU_SPLIT_SELF=1 also times one GPU through the split's own steps (its
 * ranges, states and pass), to tell the split's cost from NVLink's.
 * $GPU_SPLIT_STATS=1 runs the split's pass with its wait counters
 * (flow.h; slower: the times are not the product's) and prints each GPU's
 * for its last run.
 */
#include <cuda.h>
#include <string.h>
#include <time.h>
extern "C" {
#include "format/format.h"
#include "gpu_wavefront/entropy.h"
#include "gpu_wavefront/flow.h"
#include "gpu_wavefront/plan.h"
#include "gpu_wavefront/xxh3.h"
#include "wavelz.h"
#include "wavelz_gpu.h"
}
#include "bench/gpu_util.h"

#define CU(x)                                                                                 \
	do {                                                                                  \
		CUresult r_ = (x);                                                            \
		if (r_ != CUDA_SUCCESS) {                                                     \
			const char *s_ = "?";                                                 \
			cuGetErrorString(r_, &s_);                                            \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_);               \
			exit(2);                                                              \
		}                                                                             \
	} while (0)

/* One range of addresses of size bytes, readable and writable by every
 * GPU: segment k, from at[k] to the next one's (in order, at[0] = 0),
 * lies on GPU dev[k] (its edges rounded to the allocation granularity,
 * so that a GPU may hold a little of a neighbour's). */
struct spread_mem {
	CUdeviceptr base = 0;
	size_t size = 0;
	std::vector<CUmemGenericAllocationHandle> h;
	std::vector<size_t> at, len;
};

static size_t granularity(int ng)
{
	size_t g = 0;
	for (int d = 0; d < ng; d++) {
		CUmemAllocationProp p = {};
		p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		p.location.id = d;
		size_t x;
		CU(cuMemGetAllocationGranularity(&x, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
		g = x > g ? x : g;
	}
	return g;
}

static spread_mem spread_alloc(size_t size, const std::vector<size_t> &at, const std::vector<int> &dev, int ng)
{
	spread_mem m;
	const size_t g = granularity(ng);
	m.size = (size + g - 1) / g * g;
	CU(cuMemAddressReserve(&m.base, m.size, g, 0, 0));
	std::vector<CUmemAccessDesc> acc(ng);
	for (int d = 0; d < ng; d++) {
		acc[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		acc[d].location.id = d;
		acc[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	/* Rounded edges; a segment that rounds to nothing is dropped, and
	 * neighbours on one GPU are one mapping. */
	std::vector<std::pair<size_t, int>> seg;
	for (size_t k = 0; k < at.size(); k++) {
		const size_t a = k == 0 ? 0 : std::min(m.size, at[k] / g * g);
		if (!seg.empty() && seg.back().first == a)
			seg.back().second = dev[k];
		else if (seg.empty() || seg.back().second != dev[k])
			seg.push_back({a, dev[k]});
	}
	for (size_t k = 0; k < seg.size(); k++) {
		const size_t a = seg[k].first, b = k + 1 < seg.size() ? seg[k + 1].first : m.size;
		if (b <= a)
			continue;
		CUmemAllocationProp p = {};
		p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		p.location.id = seg[k].second;
		CUmemGenericAllocationHandle h;
		CU(cuMemCreate(&h, b - a, &p, 0));
		CU(cuMemMap(m.base + a, b - a, 0, h, 0));
		CU(cuMemSetAccess(m.base + a, b - a, acc.data(), ng));
		m.h.push_back(h);
		m.at.push_back(a);
		m.len.push_back(b - a);
	}
	return m;
}

static void spread_free(spread_mem &m)
{
	for (size_t i = 0; i < m.h.size(); i++) {
		CU(cuMemUnmap(m.base + m.at[i], m.len[i]));
		CU(cuMemRelease(m.h[i]));
	}
	if (m.base)
		CU(cuMemAddressFree(m.base, m.size));
	m = spread_mem();
}

/* A block as the archive gives it. */
struct blockinfo {
	const wlz_block_entry *e;
	wlz_block_entry copy;
	uint64_t bstart;
};

/* One GPU's share: its blocks (bix, in order), its token ranges. */
struct share {
	int dev;
	std::vector<size_t> bix;
	std::vector<uint32_t> rfirst, rtok, rchunk;
	uint32_t *d_rfirst, *d_rtok, *d_rchunk;
	cudaEvent_t ev[5];      /* start, parsed, prepared, pass, checksums (timed) */
	cudaEvent_t pev[5];     /* inside step 1 (flow.h's prep_ev) */
	cudaStream_t st, side;  /* side: step 1's copy to the other GPUs */
	cudaEvent_t parsed, prepped;
	wlz_gpu_ent_plan plan;
	std::vector<wlz_gpu_pblock> blk;
	std::vector<uint64_t> boff, blen;
	uint64_t sbytes = 0, nscr = 0, ntok = 0;
	uint32_t max_lit = 0, max_tok = 0;
	uint8_t *d_in, *d_st, *d_codes;
	int *d_err;
	wlz_gpu_seg *d_seg;
	wlz_gpu_group *d_grp;
	uint16_t *d_tab;
	wlz_gpu_pblock *d_blk;
	uint32_t *d_scr, *d_bad, *d_fail, *d_ticket;
	uint32_t *d_gidx, *d_state, *d_rstate, *d_own; /* split: this GPU's copies */
	uint32_t *d_gflag, *d_gcount;                  /* split: a group's publication */
	wlz_gpu_token *d_tok;                          /* split, group publication: its own tokens */
	uint64_t *d_tpos;
	unsigned long long *d_stats;             /* GPU_SPLIT_STATS */
	uint64_t *d_boff, *d_blen, *d_hash, *d_hscr;
};

struct run_result {
	double best_s;
	bool ok;
	/* per GPU, the best run's: entropy and parse, prepare, pass, checksums;
	 * then inside prepare: waiting for the other GPUs' parse, scrub and
	 * ownership, index, literals, and the copy to the other GPUs beside
	 * the literals */
	std::vector<std::vector<float>> stage;
};

/* Decodes the member on ng GPUs, groups of `group` blocks dealt in turn
 * (ng = 1: the single-GPU pass, as the product runs it), reps timed runs
 * after one untimed; checks the last. */
static run_result run(const wlz_member &m, const std::vector<uint8_t> &arc, const std::vector<blockinfo> &bi,
		      uint64_t size, int ng, size_t group, int reps, const std::vector<uint8_t> &want, bool self = false)
{
	/* (self: one GPU through the split's steps, to compare its stages) */
	const bool split = ng > 1 || self;
	const bool stats = split && getenv("GPU_SPLIT_STATS") && atoi(getenv("GPU_SPLIT_STATS"));
	const size_t nb = bi.size();
	std::vector<share> sh(ng);
	for (int d = 0; d < ng; d++) {
		sh[d].dev = d;
		memset(&sh[d].plan, 0, sizeof sh[d].plan);
	}
	/* Blocks in member order, each to its group's GPU: tokens numbered
	 * across the member, streams and scratch per GPU.  Where each group
	 * starts, for the placement of the shared ranges. */
	uint64_t ntok = 0;
	std::vector<size_t> at_out, at_tok;
	std::vector<int> owner;
	for (size_t b = 0; b < nb; b++) {
		share &s = sh[(b / group) % (size_t)ng];
		const wlz_block_entry *e = bi[b].e;
		if (b % group == 0) {
			at_out.push_back(bi[b].bstart);
			at_tok.push_back(ntok * sizeof(wlz_gpu_token));
			owner.push_back(s.dev);
			s.rfirst.push_back((uint32_t)ntok);
			s.rtok.push_back((uint32_t)s.ntok);
		}
		const wlz_gpu_pblock p = wlz_gpu_pblock_next(e, bi[b].bstart, 0, UINT64_MAX, &s.sbytes, &ntok, &s.nscr);
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			if (!wlz_gpu_ent_add(&s.plan, arc.data() + in, in, e->csize[k], e->codec[k], e->rsize[k],
					     p.s_off[k])) {
				fprintf(stderr, "gpu_split: a stream the GPU cannot decode (codec %d)\n", e->codec[k]);
				exit(2);
			}
			in += e->csize[k];
		}
		s.bix.push_back(b);
		s.blk.push_back(p);
		s.boff.push_back(bi[b].bstart);
		s.blen.push_back(e->length);
		s.max_lit = std::max(s.max_lit, e->rsize[WLZ_S_LIT]);
		s.max_tok = std::max(s.max_tok, p.ntok);
		s.ntok += p.ntok;
	}
	for (share &s : sh) {
		/* chunks before each range: its tokens rounded up to 32 */
		s.rtok.push_back((uint32_t)s.ntok);
		s.rchunk.push_back(0);
		for (size_t r = 0; r + 1 < s.rtok.size(); r++)
			s.rchunk.push_back(s.rchunk[r] + (s.rtok[r + 1] - s.rtok[r] + 31) / 32);
		if (!wlz_gpu_ent_plan_finish(&s.plan))
			exit(2);
	}
	/* Group publication (flow.h; GPU_SPLIT_GROUPPUB=0: every chunk's
	 * states instead): groups of a power of two of blocks of one power of
	 * two, so that a position's group is a shift, and tokens in every
	 * group, as the library has it (gpu_wavefront/split.c).  Each GPU's
	 * tokens then lie in its own array. */
	uint32_t gshift = 0;
	if (split && !(getenv("GPU_SPLIT_GROUPPUB") && !atoi(getenv("GPU_SPLIT_GROUPPUB"))))
		gshift = wlz_gpu_split_shift(&m, group); /* (the library's rule) */
	const size_t gran = wlz_gpu_flow_granules(size);
	const std::vector<size_t> zero = {0};
	const std::vector<int> gpu0 = {0};
	spread_mem m_out = spread_alloc(size + 64, at_out, owner, ng);
	spread_mem m_tok = spread_alloc((ntok + 1) * sizeof(wlz_gpu_token), at_tok, owner, ng);
	/* (one GPU: the product's work area, granules then states then the
	 * ticket; several: each its own granule table and states, below) */
	spread_mem m_work = !split ? spread_alloc(wlz_gpu_flow_work(ntok, size), zero, gpu0, 1) : spread_mem();
	uint8_t *out = (uint8_t *)m_out.base;
	wlz_gpu_token *tok = (wlz_gpu_token *)m_tok.base;
	uint32_t *work = (uint32_t *)m_work.base;

	for (share &s : sh) {
		CK(cudaSetDevice(s.dev));
		CK(cudaStreamCreateWithFlags(&s.st, cudaStreamNonBlocking));
		int lo, hi;
		CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
		CK(cudaStreamCreateWithPriority(&s.side, cudaStreamNonBlocking, hi));
		CK(cudaEventCreateWithFlags(&s.parsed, cudaEventDisableTiming));
		CK(cudaEventCreateWithFlags(&s.prepped, cudaEventDisableTiming));
		for (cudaEvent_t &e : s.ev)
			CK(cudaEventCreate(&e));
		for (cudaEvent_t &e : s.pev)
			CK(cudaEventCreate(&e));
		const size_t nr = s.rfirst.size();
		CK(cudaMalloc(&s.d_rfirst, nr * 4 + 4));
		CK(cudaMalloc(&s.d_rtok, nr * 4 + 4));
		CK(cudaMalloc(&s.d_rchunk, nr * 4 + 4));
		CK(cudaMemcpy(s.d_rfirst, s.rfirst.data(), nr * 4, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(s.d_rtok, s.rtok.data(), (nr + 1) * 4, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(s.d_rchunk, s.rchunk.data(), (nr + 1) * 4, cudaMemcpyHostToDevice));
		const size_t n = s.blk.size();
		CK(cudaMalloc(&s.d_in, arc.size() + 16));
		CK(cudaMemset(s.d_in, 0, arc.size() + 16));
		CK(cudaMemcpy(s.d_in, arc.data(), arc.size(), cudaMemcpyHostToDevice));
		CK(cudaMalloc(&s.d_st, s.sbytes + 64));
		CK(cudaMemset(s.d_st, 0, s.sbytes + 64));
		CK(cudaMalloc(&s.d_err, 2 * sizeof(int)));
		CK(cudaMalloc(&s.d_seg, s.plan.nseg * sizeof(wlz_gpu_seg) + 1));
		CK(cudaMalloc(&s.d_grp, s.plan.ngrp * sizeof(wlz_gpu_group) + 1));
		CK(cudaMalloc(&s.d_tab, s.plan.ntab * WLZ_GPU_TAB * 2 + 16));
		CK(cudaMalloc(&s.d_codes, s.plan.ntab * 256 + 16));
		CK(cudaMemcpy(s.d_seg, s.plan.seg, s.plan.nseg * sizeof(wlz_gpu_seg), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(s.d_grp, s.plan.grp, s.plan.ngrp * sizeof(wlz_gpu_group), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(s.d_codes, s.plan.codes, s.plan.ntab * 256, cudaMemcpyHostToDevice));
		CK(cudaMalloc(&s.d_blk, n * sizeof(wlz_gpu_pblock) + 1));
		CK(cudaMemcpy(s.d_blk, s.blk.data(), n * sizeof(wlz_gpu_pblock), cudaMemcpyHostToDevice));
		CK(cudaMalloc(&s.d_scr, (s.nscr + 1) * 4));
		CK(cudaMalloc(&s.d_bad, (n + 1) * 4));
		CK(cudaMalloc(&s.d_fail, WLZ_GPU_FLOW_FAIL * 4));
		CK(cudaMalloc(&s.d_ticket, 4));
		s.d_gidx = s.d_state = s.d_rstate = s.d_own = NULL;
		s.d_gflag = s.d_gcount = NULL;
		s.d_tok = NULL;
		if (gshift) {
			CK(cudaMalloc(&s.d_tok, (ntok + 1) * sizeof(wlz_gpu_token)));
			CK(cudaMalloc(&s.d_gflag, (nb / group + 2) * 4));
			CK(cudaMemset(s.d_gflag, 0, (nb / group + 2) * 4));
			CK(cudaMalloc(&s.d_gcount, (s.rfirst.size() + 1) * 4));
		}
		s.d_tpos = NULL;
		s.d_stats = NULL;
		if (stats)
			CK(cudaMalloc(&s.d_stats, 4 * sizeof(unsigned long long)));
		if (split) {
			CK(cudaMalloc(&s.d_gidx, gran * 4 + 4));
			CK(cudaMalloc(&s.d_state, ntok * 4 + 4));
			CK(cudaMalloc(&s.d_rstate, ntok * 4 + 4));
			CK(cudaMemset(s.d_rstate, 0, ntok * 4 + 4));
			CK(cudaMalloc(&s.d_own, (ntok / 32 + 1) * 4));
			CK(cudaMalloc(&s.d_tpos, ntok * 8 + 8));
		}
		CK(cudaMalloc(&s.d_boff, n * 8 + 8));
		CK(cudaMalloc(&s.d_blen, n * 8 + 8));
		CK(cudaMalloc(&s.d_hash, n * 8 + 8));
		CK(cudaMalloc(&s.d_hscr, wlz_gpu_xxh3_scratch(size)));
		CK(cudaMemcpy(s.d_boff, s.boff.data(), n * 8, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(s.d_blen, s.blen.data(), n * 8, cudaMemcpyHostToDevice));
	}
	std::vector<wlz_gpu_flow_split> sp(ng);
	for (int d = 0; d < ng; d++) {
		const share &s = sh[d];
		const uint32_t nr = (uint32_t)s.rfirst.size();
		wlz_gpu_flow_split &x = sp[d];
		memset(&x, 0, sizeof x);
		x.tok = s.d_tok ? s.d_tok : tok, x.ntok = ntok;
		x.rfirst = s.d_rfirst, x.rtok = s.d_rtok, x.rchunk = s.d_rchunk, x.nr = nr;
		x.count = s.ntok, x.nchunk = s.rchunk[nr];
		x.gidx = s.d_gidx, x.state = s.d_state, x.rstate = s.d_rstate;
		x.own = s.d_own, x.tpos = s.d_tpos;
		for (int o = 0; o < ng; o++)
			if (o != d) {
				x.peer_gidx[x.npeers] = sh[o].d_gidx;
				x.peer_tpos[x.npeers] = sh[o].d_tpos;
				x.peer_rstate[x.npeers++] = sh[o].d_rstate;
			}
		x.ticket = s.d_ticket;
		x.stats = s.d_stats;
		if (s.d_gflag) {
			x.gflag = s.d_gflag, x.gcount = s.d_gcount;
			x.gshift = gshift, x.gpu = (uint32_t)d, x.ngpus = (uint32_t)ng;
			x.t0 = 0; /* (as the library: split.c) */
			for (int o = 0, k = 0; o < ng; o++)
				if (o != d)
					x.peer_gflag[k++] = sh[o].d_gflag;
		}
		x.prep_ev = (void *)sh[d].pev;
	}

	double best = 1e30;
	std::vector<std::vector<float>> stage(ng, std::vector<float>(9, 0));
	for (int r = 0; r <= reps; r++) {
		for (share &s : sh) {
			CK(cudaSetDevice(s.dev));
			if (s.d_stats)
				CK(cudaMemsetAsync(s.d_stats, 0, 4 * sizeof(unsigned long long), s.st));
			CK(cudaMemsetAsync(s.d_err, 0, 2 * sizeof(int), s.st));
			CK(cudaMemsetAsync(s.d_bad, 0, (s.blk.size() + 1) * 4, s.st));
			CK(cudaStreamSynchronize(s.st));
		}
		for (wlz_gpu_flow_split &x : sp)
			x.epoch = (uint32_t)r + 1;
		const double t0 = bench_now();
		for (share &s : sh) {
			CK(cudaSetDevice(s.dev));
			CK(cudaEventRecord(s.ev[0], s.st));
			const size_t n = s.blk.size();
			if (wlz_gpu_ent_tables(s.d_codes, s.plan.ntab, s.d_tab, s.st) ||
			    wlz_gpu_ent_launch(&s.plan, s.d_seg, s.d_grp, s.d_tab, s.d_in, s.d_st, s.d_err, NULL, s.st) ||
			    wlz_gpu_parse(s.d_blk, n, s.max_tok, s.d_st, s.d_scr, s.d_tok ? s.d_tok : tok, s.d_bad, s.st))
				exit(3);
			CK(cudaEventRecord(s.parsed, s.st));
			CK(cudaEventRecord(s.ev[1], s.st));
		}
		for (int d = 0; split && d < ng; d++) {
			share &s = sh[d];
			CK(cudaSetDevice(s.dev));
			/* (without group publication the granules of each range's
			 * last token read the next token's place, another GPU's) */
			for (int o = 0; o < ng && !gshift; o++)
				if (o != d)
					CK(cudaStreamWaitEvent(s.st, sh[o].parsed, 0));
			if (wlz_gpu_flow_split_prep(s.d_blk, s.blk.size(), s.max_lit, &sp[d], s.d_st, out, size, s.d_bad,
						    s.d_fail, s.st, s.side))
				exit(3);
			CK(cudaEventRecord(s.prepped, s.st));
		}
		for (share &s : sh) {
			CK(cudaSetDevice(s.dev));
			CK(cudaEventRecord(s.ev[2], s.st));
		}
		/* (every pass launched before the checksums: a first launch of
		 * their module may wait for the device, and a pass for the
		 * others') */
		for (int d = 0; d < ng; d++) {
			share &s = sh[d];
			CK(cudaSetDevice(s.dev));
			if (!split) {
				if (wlz_gpu_flow(s.d_blk, s.blk.size(), s.max_lit, tok, ntok, s.d_st, out, size, work,
						 s.d_bad, s.d_fail, 0, UINT64_MAX, NULL, s.st))
					exit(3);
			} else {
				for (int o = 0; o < ng; o++)
					if (o != d)
						CK(cudaStreamWaitEvent(s.st, sh[o].prepped, 0));
				if (wlz_gpu_flow_split_run(&sp[d], out, s.d_fail, s.st))
					exit(3);
			}
			CK(cudaEventRecord(s.ev[3], s.st));
		}
		for (share &s : sh) {
			CK(cudaSetDevice(s.dev));
			if (s.blk.size() && wlz_gpu_xxh3(out, s.d_boff, s.d_blen, s.d_hash, s.blk.size(), s.d_hscr, s.st))
				exit(3);
			CK(cudaEventRecord(s.ev[4], s.st));
		}
		for (share &s : sh) {
			CK(cudaSetDevice(s.dev));
			CK(cudaStreamSynchronize(s.st));
		}
		const double t = bench_now() - t0;
		if (r > 0 && t < best) {
			best = t;
			for (int d = 0; d < ng; d++) {
				CK(cudaSetDevice(sh[d].dev));
				for (int k = 0; k < 4; k++)
					CK(cudaEventElapsedTime(&stage[d][k], sh[d].ev[k], sh[d].ev[k + 1]));
				if (split) {
					CK(cudaEventElapsedTime(&stage[d][4], sh[d].ev[1], sh[d].pev[0]));
					const cudaEvent_t *e = sh[d].pev;
					CK(cudaEventElapsedTime(&stage[d][5], e[0], e[1]));
					CK(cudaEventElapsedTime(&stage[d][6], e[1], e[3]));
					CK(cudaEventElapsedTime(&stage[d][7], e[3], e[2]));
					CK(cudaEventElapsedTime(&stage[d][8], e[3], e[4]));
				}
			}
		}
	}
	/* Checks: every stage's verdict, the checksums, the content. */
	bool ok = true;
	for (share &s : sh) {
		CK(cudaSetDevice(s.dev));
		const size_t n = s.blk.size();
		int err[2];
		uint32_t f[WLZ_GPU_FLOW_FAIL];
		std::vector<uint32_t> bad(n + 1);
		std::vector<uint64_t> hash(n + 1);
		CK(cudaMemcpy(err, s.d_err, sizeof err, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(f, s.d_fail, sizeof f, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(bad.data(), s.d_bad, (n + 1) * 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hash.data(), s.d_hash, n * 8, cudaMemcpyDeviceToHost));
		size_t nbad = bad[n] != 0, nsum = 0;
		for (size_t b = 0; b < n; b++)
			nbad += bad[b] != 0, nsum += hash[b] != bi[s.bix[b]].e->checksum;
		if (err[0] || nbad || nsum || f[0]) {
			fprintf(stderr,
				"gpu_split: GPU %d of %d: entropy errors %d, bad blocks %zu, checksum mismatches %zu, "
				"pass %s (token %u waits on %u..%u)\n",
				s.dev, ng, err[0], nbad, nsum, f[0] ? "gave up" : "ok", f[1], f[2], f[3]);
			ok = false;
		}
	}
	for (share &s : sh)
		if (s.d_stats) {
			unsigned long long c[4];
			CK(cudaSetDevice(s.dev));
			CK(cudaMemcpy(c, s.d_stats, sizeof c, cudaMemcpyDeviceToHost));
			fprintf(stderr,
				"gpu_split: %d GPU(s), group %zu, GPU %d's pass: %llu chunks; a warp's stalled polls waiting on "
				"another GPU's token %llu, on an earlier chunk of its own GPU %llu, inside its chunk %llu\n",
				ng, group, s.dev, c[0], c[1], c[2], c[3]);
		}
	std::vector<uint8_t> got(size);
	CK(cudaSetDevice(0));
	CK(cudaMemcpy(got.data(), out, size, cudaMemcpyDeviceToHost));
	if (memcmp(got.data(), want.data(), size)) {
		size_t at = 0;
		while (got[at] == want[at])
			at++;
		fprintf(stderr, "gpu_split: %d GPUs: content differs from the CPU's at byte %zu\n", ng, at);
		ok = false;
	}
	for (share &s : sh) {
		CK(cudaSetDevice(s.dev));
		CK(cudaDeviceSynchronize());
		cudaFree(s.d_in), cudaFree(s.d_st), cudaFree(s.d_err), cudaFree(s.d_seg), cudaFree(s.d_grp);
		cudaFree(s.d_tab), cudaFree(s.d_codes), cudaFree(s.d_blk), cudaFree(s.d_scr), cudaFree(s.d_bad);
		cudaFree(s.d_fail), cudaFree(s.d_ticket), cudaFree(s.d_boff), cudaFree(s.d_blen), cudaFree(s.d_hash);
		cudaFree(s.d_hscr);
		cudaFree(s.d_rfirst), cudaFree(s.d_rtok), cudaFree(s.d_rchunk);
		cudaFree(s.d_gidx), cudaFree(s.d_state), cudaFree(s.d_rstate), cudaFree(s.d_own), cudaFree(s.d_tpos);
		cudaFree(s.d_gflag), cudaFree(s.d_gcount), cudaFree(s.d_tok);
		cudaFree(s.d_stats);
		for (cudaEvent_t &e : s.ev)
			cudaEventDestroy(e);
		for (cudaEvent_t &e : s.pev)
			cudaEventDestroy(e);
		cudaStreamDestroy(s.st);
		cudaStreamDestroy(s.side);
		cudaEventDestroy(s.parsed);
		cudaEventDestroy(s.prepped);
		wlz_gpu_ent_plan_free(&s.plan);
	}
	spread_free(m_out);
	spread_free(m_tok);
	spread_free(m_work);
	return run_result{best, ok, stage};
}

int main(int argc, char **argv)
{
	int reps;
	std::vector<uint8_t> arc = bench_open(argc, argv, "gpu_split", 3, &reps);
	int ndev = 0;
	CK(cudaGetDeviceCount(&ndev));
	const int ng = argc > 3 ? atoi(argv[3]) : ndev;
	const size_t group = argc > 4 ? (size_t)atol(argv[4]) : 8;
	if (ng < 1 || ng > ndev) {
		fprintf(stderr, "gpu_split: %d GPUs asked, %d here\n", ng, ndev);
		return 2;
	}
	for (int d = 0; d < ng; d++) {
		CK(cudaSetDevice(d));
		CK(cudaFree(0));
		for (int o = 0; o < ng; o++) {
			int can = 1;
			if (o != d)
				CK(cudaDeviceCanAccessPeer(&can, d, o));
			if (!can) {
				fprintf(stderr, "gpu_split: GPU %d cannot reach GPU %d's memory: skipped\n", d, o);
				return 77;
			}
			/* (the other GPUs' granule tables and states are written
			 * from here) */
			if (o != d)
				CK(cudaDeviceEnablePeerAccess(o, 0));
		}
	}
	CU(cuInit(0));
	wlz_member m;
	if (wlz_member_parse(arc.data(), arc.size(), 0, &m) != WLZ_OK || m.size != arc.size()) {
		fprintf(stderr, "gpu_split: one valid member only\n");
		return 2;
	}
	std::vector<blockinfo> bi(m.nblocks);
	uint64_t size = 0;
	for (uint64_t b = 0; b < m.nblocks; b++) {
		bi[b].copy = m.blocks[b];
		bi[b].bstart = size;
		size += m.blocks[b].length;
	}
	for (blockinfo &b : bi)
		b.e = &b.copy;
	/* The CPU's content, to compare, and its time on every core. */
	std::vector<uint8_t> want(size + 16);
	wlz_dctx *dc = wlz_dctx_create(0);
	size_t got = 0;
	const double c0 = bench_now();
	if (!dc || wlz_decompress(dc, want.data(), want.size(), arc.data(), arc.size(), &got) != WLZ_OK || got != size) {
		fprintf(stderr, "gpu_split: the CPU does not decode the archive\n");
		return 2;
	}
	const double cpu_s = bench_now() - c0;
	wlz_dctx_free(dc);
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	run_result one = {1e30, true, {}}, all = {1e30, true, {}}, self = {1e30, true, {}};
	const bool want_self = getenv("GPU_SPLIT_SELF") && atoi(getenv("GPU_SPLIT_SELF"));
	/* (alternating, best of each) */
	for (int round = 0; round < 2; round++) {
		run_result a = run(m, arc, bi, size, 1, group, reps, want);
		if (a.best_s < one.best_s)
			one.best_s = a.best_s, one.stage = a.stage;
		one.ok &= a.ok;
		if (want_self) {
			run_result c = run(m, arc, bi, size, 1, group, reps, want, true);
			if (c.best_s < self.best_s)
				self.best_s = c.best_s, self.stage = c.stage;
			one.ok &= c.ok;
		}
		if (ng > 1) {
			run_result b = run(m, arc, bi, size, ng, group, reps, want);
			if (b.best_s < all.best_s)
				all.best_s = b.best_s, all.stage = b.stage;
			all.ok &= b.ok;
		}
	}
	if (ng == 1)
		all = one;
	/* (per-stage times of each GPU's best run: stderr, for the notes) */
	for (int pass = 0; pass < 3; pass++) {
		const run_result &x = pass == 2 ? all : pass ? self : one;
		for (size_t d = 0; d < x.stage.size(); d++)
			fprintf(stderr, "gpu_split: %s GPU %zu: entropy and parse %.3f ms, prepare %.3f (wait %.3f, scrub and "
				"ownership %.3f, index %.3f, literals %.3f, beside them the copy %.3f), pass %.3f, checksums %.3f\n",
				pass == 2 ? "split" : pass ? "alone, split's steps" : "alone", d, x.stage[d][0], x.stage[d][1],
				x.stage[d][4], x.stage[d][5], x.stage[d][6], x.stage[d][7], x.stage[d][8], x.stage[d][2],
				x.stage[d][3]);
	}
	if (want_self)
		fprintf(stderr, "gpu_split: alone through the split's steps: %.1f GB/s\n", size / self.best_s / 1e9);
	printf("file,blocks,bytes,gpus,group,gbps,gbps_one_gpu,speedup,cpu_all_cores_gbps,same_as_cpu,what\n");
	printf("%s,%llu,%llu,%d,%zu,%.1f,%.1f,%.2f,%.2f,%s,device-resident (archive in GPU memory to checked content in "
	       "GPU memory; host wall time around every GPU's launches)\n",
	       name, (unsigned long long)m.nblocks, (unsigned long long)size, ng, group, size / all.best_s / 1e9,
	       size / one.best_s / 1e9, one.best_s / all.best_s, size / cpu_s / 1e9, one.ok && all.ok ? "yes" : "NO");
	/* GPU_SPLIT_H2H=1: host to host through the public API, pinned
	 * archive to pinned content, every check included: one GPU
	 * (wlz_gpu_decompress) against the split (wlz_gpu_decompress_split),
	 * alternated, best of reps after a checked first run of each. */
	bool h2h_ok = true;
	if (getenv("GPU_SPLIT_H2H") && atoi(getenv("GPU_SPLIT_H2H"))) {
		std::vector<wlz_gdctx *> g(ng);
		for (int d = 0; d < ng; d++)
			if (!(g[d] = wlz_gdctx_create(d))) {
				fprintf(stderr, "gpu_split: no context on GPU %d\n", d);
				return 2;
			}
		uint8_t *hs = (uint8_t *)wlz_gpu_host_alloc(arc.size()), *hd = (uint8_t *)wlz_gpu_host_alloc(size);
		if (!hs || !hd) {
			fprintf(stderr, "gpu_split: pinned memory\n");
			return 2;
		}
		memcpy(hs, arc.data(), arc.size());
		double best[2] = {1e30, 1e30};
		for (int r = 0; r <= reps; r++)
			for (int k = 0; k < 2; k++) {
				if (k && ng < 2)
					continue;
				if (r == 0)
					memset(hd, 0, size);
				size_t got = 0;
				const double t0 = bench_now();
				const wlz_error e = k ? wlz_gpu_decompress_split(g.data(), ng, hd, size, hs, arc.size(), &got)
						      : wlz_gpu_decompress(g[0], hd, size, hs, arc.size(), &got);
				const double t = bench_now() - t0;
				if (e != WLZ_OK || got != size || (r == 0 && memcmp(hd, want.data(), size))) {
					fprintf(stderr, "gpu_split: host to host on %d GPUs: %s (%s)\n", k ? ng : 1, wlz_error_name(e),
						wlz_error_detail());
					h2h_ok = false;
				}
				if (r && t < best[k])
					best[k] = t;
			}
		if (ng < 2)
			best[1] = best[0];
		printf("%s,%llu,%llu,%d,%zu,%.1f,%.1f,%.2f,,%s,host to host (the API: pinned archive to pinned content, "
		       "every check; one GPU wlz_gpu_decompress, several wlz_gpu_decompress_split, groups its own)\n",
		       name, (unsigned long long)m.nblocks, (unsigned long long)size, ng, group, size / best[1] / 1e9,
		       size / best[0] / 1e9, best[0] / best[1], h2h_ok ? "yes" : "NO");
		wlz_gpu_host_free(hs);
		wlz_gpu_host_free(hd);
		for (wlz_gdctx *x : g)
			wlz_gdctx_free(x);
	}
	wlz_member_free(&m);
	return one.ok && all.ok && h2h_ok ? 0 : 1;
}
