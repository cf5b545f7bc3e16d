/*
 * wavesim.c - a CPU model of decoding a member in waves by level, with
 * the levels found first from the tokens' writers (issues 15 and 16: the
 * design sketched in bench/host/issue15-flow.md, last section).
 *
 *   wavesim ARCHIVE [group [gpus]]
 *
 * 1. Writers: the tokens whose matches wrote the bytes a match reads,
 *    [src, src + min(dist, mlen)) (past dist an overlapping match reads
 *    its own output), a range [lo, hi] of token indices, empty when it
 *    reads only literal bytes.
 * 2. Levels, relaxed in rounds as a GPU would run them: round r sets each
 *    token whose writers' levels moved in round r - 1 (all in round 0) to
 *    0 if it has no writers, else one more than their highest, from round
 *    r - 1's values.  Counted: rounds, and the updates they take with
 *    work lists (a token's readers listed once).
 * 3. Waves: the literal bytes, then the matches of level 0, 1, ... each
 *    reading only bytes of lower levels, copied into an empty buffer; the
 *    result must equal the member's content, and each block's highest
 *    level its header's max_level.
 * With a group size, also the reads across GPUs when the blocks are dealt
 * to the GPUs in groups (bench/gpu_split): of writers' levels in the
 * rounds and of writers' bytes in the waves; and, as the persistent pass
 * runs (its chunks of 32 tokens a group), the chunks holding a token
 * another GPU reads (each publishes its states to the other GPUs with a
 * fence at system scope today), in all and where the reader lies under
 * 16 or 64 MiB of output after its writer.
 *
 * Prints a CSV row (exit 1 if the waves do not rebuild the content or a
 * block's level differs from its header).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_decoder/block_decode.h"
#include "format/format.h"
#include "fileio.h"
#include "wavelz.h"

typedef struct wtok {
	uint64_t dst, mlen, src;
	uint32_t lo, hi;        /* writers (lo > hi: none) */
	uint32_t block;
	uint8_t across;         /* read from another GPU (1), within 16 MiB (2), 64 MiB (4) */
} wtok;

/* The GPU of block b. */
#define GPU_OF(b) ((b) / group % gpus)

/* The first token whose match ends after p, among t[0..n) (n if none). */
static uint32_t first_ending_after(const wtok *t, uint32_t n, uint64_t p)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		const uint32_t m = lo + (hi - lo) / 2;
		if (t[m].dst + t[m].mlen > p)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: wavesim ARCHIVE [group [gpus]]\n");
		return 2;
	}
	const uint64_t group = argc > 2 ? strtoull(argv[2], NULL, 10) : 16;
	const uint32_t gpus = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 2;
	fio_input in;
	int rc = fio_load(&in, argv[1]);
	wlz_bdec *bd = wlz_bdec_create();
	wlz_dctx *dc = wlz_dctx_create(0);
	if (rc || !bd || !dc || !group || !gpus) {
		fprintf(stderr, "wavesim: %s: %s\n", argv[1], rc ? fio_strerror(rc) : "bad arguments or no memory");
		return 1;
	}
	wlz_member m;
	uint64_t csize = 0;
	size_t got = 0;
	if (wlz_member_parse(in.data, in.size, 0, &m) != WLZ_OK ||
	    wlz_get_content_size(in.data, in.size, &csize) != WLZ_OK) {
		fprintf(stderr, "wavesim: %s is not a valid archive\n", argv[1]);
		return 1;
	}
	uint8_t *content = malloc(csize + 1), *out = calloc(csize + 1, 1), *islit = malloc(csize + 1);
	if (!content || !out || !islit || wlz_decompress(dc, content, csize, in.data, in.size, &got) != WLZ_OK) {
		fprintf(stderr, "wavesim: %s does not decode\n", argv[1]);
		return 1;
	}
	/* Tokens (matches only: a token's literals are placed with the rest). */
	wtok *t = NULL;
	uint32_t n = 0, cap = 0;
	uint64_t bstart = 0;
	memset(islit, 1, csize);
	for (uint64_t b = 0; b < m.nblocks; b++) {
		const wlz_block_entry *e = &m.blocks[b];
		const wlz_dtoken *d;
		if (wlz_bdec_tokens(bd, in.data, e, bstart, bstart + e->length, &d) != WLZ_OK) {
			fprintf(stderr, "wavesim: block %llu does not parse\n", (unsigned long long)b);
			return 1;
		}
		uint64_t pos = bstart;
		for (uint32_t i = 0; i < e->token_count; i++) {
			pos += d[i].lit;
			if (d[i].mlen) {
				if (n == cap) {
					cap = cap ? 2 * cap : 1 << 20;
					if (!(t = realloc(t, (size_t)cap * sizeof *t)))
						return 1;
				}
				t[n++] = (wtok){pos, d[i].mlen, d[i].src, 1, 0, (uint32_t)b, 0};
				memset(islit + pos, 0, d[i].mlen);
			}
			pos += d[i].mlen;
		}
		bstart += e->length;
	}
	/* 1. Writers. */
	uint64_t nreads = 0;
	for (uint32_t k = 0; k < n; k++) {
		const uint64_t dist = t[k].dst - t[k].src, a = t[k].src, b = a + (dist < t[k].mlen ? dist : t[k].mlen);
		const uint32_t lo = first_ending_after(t, k, a);
		uint32_t hi = lo;
		while (hi < k && t[hi].dst < b)
			hi++;
		if (hi > lo)
			t[k].lo = lo, t[k].hi = hi - 1, nreads += hi - lo;
		for (uint32_t j = lo; j < hi; j++)
			if (GPU_OF(t[j].block) != GPU_OF(t[k].block)) {
				const uint64_t back = t[k].dst - t[j].dst;
				t[j].across |= 1 | (back < ((uint64_t)16 << 20) ? 2 : 0) | (back < ((uint64_t)64 << 20) ? 4 : 0);
			}
	}
	/* The pass's chunks: 32 tokens at a time from each group's first. */
	uint64_t chunks = 0, hot[3] = {0};
	for (uint32_t c = 0; c < n;) {
		const uint64_t g = t[c].block / group;
		uint8_t bits = 0;
		uint32_t k = c;
		for (; k < n && k < c + 32 && t[k].block / group == g; k++)
			bits |= t[k].across;
		chunks++;
		for (int x = 0; x < 3; x++)
			hot[x] += bits >> x & 1;
		c = k;
	}
	/* Readers of each token (for the work lists): CSR over the writers. */
	uint32_t *roff = calloc((size_t)n + 1, sizeof *roff), *rd = malloc((nreads ? nreads : 1) * sizeof *rd);
	if (!roff || !rd)
		return 1;
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t j = t[k].lo; j <= t[k].hi && t[k].lo <= t[k].hi; j++)
			roff[j + 1]++;
	for (uint32_t j = 0; j < n; j++)
		roff[j + 1] += roff[j];
	uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
	if (!fill)
		return 1;
	memcpy(fill, roff, ((size_t)n + 1) * sizeof *fill);
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t j = t[k].lo; j <= t[k].hi && t[k].lo <= t[k].hi; j++)
			rd[fill[j]++] = k;
	/* 2. Levels in rounds (Jacobi: each round from the last one's values). */
	uint16_t *lv = calloc(n ? n : 1, sizeof *lv), *nx = malloc((n ? n : 1) * sizeof *nx);
	uint8_t *on = malloc(n ? n : 1), *onx = calloc(n ? n : 1, 1);
	if (!lv || !nx || !on || !onx)
		return 1;
	memset(on, 1, n);
	unsigned rounds = 0;
	uint64_t updates = 0, remote_level_reads = 0;
	for (int any = 1; any; rounds++) {
		any = 0;
		memcpy(nx, lv, (size_t)n * sizeof *lv);
		for (uint32_t k = 0; k < n; k++) {
			if (!on[k])
				continue;
			updates++;
			uint16_t l = 0;
			for (uint32_t j = t[k].lo; j <= t[k].hi && t[k].lo <= t[k].hi; j++) {
				l = lv[j] + 1 > l ? (uint16_t)(lv[j] + 1) : l;
				remote_level_reads += GPU_OF(t[j].block) != GPU_OF(t[k].block);
			}
			if (l != lv[k]) {
				nx[k] = l;
				any = 1;
				for (uint32_t r = roff[k]; r < roff[k + 1]; r++)
					onx[rd[r]] = 1;
			}
		}
		memcpy(lv, nx, (size_t)n * sizeof *lv);
		memcpy(on, onx, n);
		memset(onx, 0, n);
	}
	/* 3. Waves. */
	unsigned top = 0;
	for (uint32_t k = 0; k < n; k++)
		top = lv[k] > top ? lv[k] : top;
	uint64_t *per = calloc((size_t)top + 1, sizeof *per), remote_bytes = 0;  /* (writers on another GPU) */
	if (!per)
		return 1;
	for (uint64_t p = 0; p < csize; p++)
		if (islit[p])
			out[p] = content[p];
	/* (the tokens in wave order: a counting sort by level) */
	uint64_t *at = calloc((size_t)top + 2, sizeof *at);
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!at || !order)
		return 1;
	for (uint32_t k = 0; k < n; k++)
		per[lv[k]]++;
	for (unsigned w = 0; w <= top; w++)
		at[w + 1] = at[w] + per[w];
	for (uint32_t k = 0; k < n; k++)
		order[at[lv[k]]++] = k;
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t k = order[i];
		for (uint64_t x = 0; x < t[k].mlen; x++)
			out[t[k].dst + x] = out[t[k].src + x];
		for (uint32_t j = t[k].lo; j <= t[k].hi && t[k].lo <= t[k].hi; j++)
			remote_bytes += GPU_OF(t[j].block) != GPU_OF(t[k].block);
	}
	free(at), free(order);
	int ok = !memcmp(out, content, csize);
	/* Each block's highest level against its header (saturating at 255). */
	uint64_t misstated = 0;
	for (uint64_t b = 0, k = 0; b < m.nblocks; b++) {
		unsigned hi = 0;
		for (; k < n && t[k].block == b; k++)
			hi = lv[k] > hi ? lv[k] : hi;
		misstated += (hi > 255 ? 255 : hi) != m.blocks[b].max_level;
	}
	ok = ok && !misstated;
	printf("file,group,gpus,matches,writer_reads,rounds,updates,top_level,remote_level_reads,remote_writer_reads,"
	       "chunks,chunks_read_across,within_16MiB,within_64MiB,misstated_blocks,content_equal,tokens_per_wave\n");
	printf("%s,%llu,%u,%u,%llu,%u,%llu,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,", argv[1],
	       (unsigned long long)group, gpus, n, (unsigned long long)nreads, rounds, (unsigned long long)updates,
	       top, (unsigned long long)remote_level_reads, (unsigned long long)remote_bytes,
	       (unsigned long long)chunks, (unsigned long long)hot[0], (unsigned long long)hot[1],
	       (unsigned long long)hot[2], (unsigned long long)misstated, ok ? "yes" : "NO");
	for (unsigned w = 0; w <= top && w < 24; w++)
		printf("%s%llu", w ? " " : "", (unsigned long long)per[w]);
	printf("\n");
	wlz_member_free(&m);
	wlz_bdec_free(bd);
	wlz_dctx_free(dc);
	fio_unload(&in);
	free(t), free(roff), free(rd), free(fill), free(lv), free(nx), free(on), free(onx), free(per);
	free(content), free(out), free(islit);
	return ok ? 0 : 1;
}
