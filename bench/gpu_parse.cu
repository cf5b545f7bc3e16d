/*
 * gpu_parse.cu - the GPU token parser (gpu_wavefront/parse.cu, issue 15)
 * against the CPU's, and timed.
 *
 *   gpu_parse ARCHIVE [reps]
 *
 * Every block's streams are decoded on the CPU and put in GPU memory; the
 * GPU parses every block in one launch, and its tokens (lit, mlen, source)
 * must equal wlz_bdec_tokens' for every token of every block, and no
 * block may be marked bad (exit 1 otherwise).  Then each block's cmd
 * stream is damaged once (bits 2 and 7 of one byte flipped: the literal
 * and match lengths change, so the block can no longer end where it must)
 * and the count of damaged blocks the GPU refuses is printed.
 * Times: kernel-only, streams in GPU memory to tokens in GPU memory.
 */
#include <string.h>
extern "C" {
#include "common/ent.h"
#include "format/format.h"
}
#include "bench/gpu_parse_ref.h"
#include "bench/gpu_util.h"

int main(int argc, char **argv)
{
	int reps;
	std::vector<uint8_t> arc = bench_open(argc, argv, "gpu_parse", 20, &reps);
	std::vector<uint8_t> st;              /* every block's decoded streams */
	std::vector<wlz_gpu_pblock> blk;
	std::vector<wlz_gpu_token> want;
	wlz_huf_tables *ht = (wlz_huf_tables *)malloc(sizeof(wlz_huf_tables));
	uint64_t sbytes = 0, ntok = 0, nscr = 0, content = 0;
	each_block(arc, "gpu_parse", [&](const wlz_block_entry *e, uint64_t bstart) {
		const wlz_gpu_pblock p = wlz_gpu_pblock_next(e, bstart, 0, UINT64_MAX, &sbytes, &ntok, &nscr);
		st.resize(sbytes);
		uint64_t in = e->data_offset;
		for (int k = 0; k < WLZ_NSTREAMS; k++) {
			if (!cpu_stream(&arc[in], e, k, &st[p.s_off[k]], ht)) {
				fprintf(stderr, "gpu_parse: a stream does not decode on the CPU\n");
				exit(2);
			}
			in += e->csize[k];
		}
		want.resize(ntok);
		if (!wlz_bench_ref_tokens(arc.data(), e, bstart, want.data() + p.tok_off)) {
			fprintf(stderr, "gpu_parse: the CPU does not parse block %zu\n", blk.size());
			exit(2);
		}
		blk.push_back(p);
		content += e->length;
	});
	free(ht);

	uint8_t *d_st;
	uint32_t *d_scr, *d_bad;
	wlz_gpu_token *d_tok;
	wlz_gpu_pblock *d_blk;
	const size_t n = blk.size();
	uint32_t max_tok = 0; /* (the parse's segments a block) */
	for (const wlz_gpu_pblock &b : blk)
		max_tok = b.ntok > max_tok ? b.ntok : max_tok;
	CK(cudaMalloc(&d_st, st.size() + 16));
	CK(cudaMalloc(&d_scr, (nscr + 1) * 4));
	CK(cudaMalloc(&d_bad, (n + 1) * 4));
	CK(cudaMemset(d_bad, 0, (n + 1) * 4));
	CK(cudaMalloc(&d_tok, (ntok + 1) * sizeof(wlz_gpu_token)));
	CK(cudaMalloc(&d_blk, n * sizeof(wlz_gpu_pblock)));
	CK(cudaMemcpy(d_st, st.data(), st.size(), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_blk, blk.data(), n * sizeof(wlz_gpu_pblock), cudaMemcpyHostToDevice));
	if (wlz_gpu_parse(d_blk, n, max_tok, d_st, d_scr, d_tok, d_bad, 0))
		return 2;
	std::vector<wlz_gpu_token> got(ntok);
	std::vector<uint32_t> bad(n + 1);
	CK(cudaMemcpy(got.data(), d_tok, ntok * sizeof(wlz_gpu_token), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(bad.data(), d_bad, (n + 1) * 4, cudaMemcpyDeviceToHost));
	size_t diff = 0, nbad = bad[n] != 0;  /* (the summary flag counts as one) */
	for (size_t b = 0; b < n; b++)
		nbad += bad[b] != 0;
	for (size_t i = 0; i < ntok; i++)
		if ((got[i].lit != want[i].lit || got[i].mlen != want[i].mlen || got[i].src != want[i].src) &&
		    diff++ < 5)
			fprintf(stderr, "gpu_parse: token %zu: %u %u %llu, want %u %u %llu\n", i, got[i].lit,
				got[i].mlen, (unsigned long long)got[i].src, want[i].lit, want[i].mlen,
				(unsigned long long)want[i].src);

	double best, med;
	timed(reps, [&] { wlz_gpu_parse(d_blk, n, max_tok, d_st, d_scr, d_tok, d_bad, 0); }, &best, &med);

	/* Damage: one cmd byte of each block flipped (the GPU's copy only). */
	size_t refused = 0, tried = 0;
	for (size_t b = 0; b < n; b++) {
		if (!blk[b].ntok)
			continue;
		const uint64_t at = blk[b].s_off[0] + (blk[b].ntok * 7919ull + b) % blk[b].ntok;
		const uint8_t orig = st[at], flip = orig ^ 0x84;
		CK(cudaMemcpy(d_st + at, &flip, 1, cudaMemcpyHostToDevice));
		CK(cudaMemset(d_bad, 0, (n + 1) * 4));
		if (wlz_gpu_parse(d_blk, n, max_tok, d_st, d_scr, d_tok, d_bad, 0))
			return 2;
		uint32_t gb, any;
		CK(cudaMemcpy(&gb, d_bad + b, 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(&any, d_bad + n, 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(d_st + at, &orig, 1, cudaMemcpyHostToDevice));
		tried++;
		refused += gb != 0 && any != 0;
	}
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	printf("file,blocks,tokens,content_bytes,gpu_gbps_best,gpu_gbps_median,token_diff,blocks_bad,flips_refused\n");
	printf("%s,%zu,%llu,%llu,%.1f,%.1f,%zu,%zu,%zu/%zu\n", name, n, (unsigned long long)ntok,
	       (unsigned long long)content, content / best / 1e6, content / med / 1e6, diff, nbad, refused, tried);
	return diff || nbad;
}
