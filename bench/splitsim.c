/*
 * splitsim.c - a model, on the CPU, of what the split over GPUs publishes
 * across them (gpu_wavefront/flow.cu, issue 16): which of a GPU's tokens
 * another GPU reads, and how soon after they are written.
 *
 *   splitsim ARCHIVE [group [gpus]]
 *
 * Blocks are dealt to the GPUs in groups of `group` blocks (default 16,
 * 2 GPUs), as bench/gpu_split deals them; each GPU's tokens are cut into
 * chunks of 32 a group, as the pass cuts them.  A match reads the bytes
 * [src, src + min(dist, mlen)); the tokens whose matches wrote them are its
 * writers (literal bytes have none: they are final before the pass).  A
 * writer on another GPU than its reader is read across GPUs: today each
 * chunk publishes its states to the other GPUs with a fence at system
 * scope, whether or not any of them is read there.
 *
 * Prints a CSV row: chunks; those holding a token read across GPUs
 * (the fences a pass that fenced only those would keep); the same for
 * reads whose reader lies less than 16 MiB and 64 MiB of output after its
 * writer (a reader further on could see the writer's state published
 * late); matches, those reading across GPUs, and those reads by distance
 * from writer to reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_decoder/block_decode.h"
#include "format/format.h"
#include "fileio.h"

#define CH 32

typedef struct tk {
	uint64_t dst, mlen, src;
	uint32_t gpu;
	uint8_t read;           /* bits: read across GPUs (1), within 16 MiB (2), within 64 MiB (4) */
} tk;

/* The last token whose match starts at or before p (-1: none). */
static int64_t at_or_before(const tk *t, uint64_t n, uint64_t p)
{
	int64_t lo = -1, hi = (int64_t)n;
	while (hi - lo > 1) {
		const int64_t m = lo + (hi - lo) / 2;
		if (t[m].dst <= p)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: splitsim ARCHIVE [group [gpus]]\n");
		return 2;
	}
	const uint64_t group = argc > 2 ? strtoull(argv[2], NULL, 10) : 16;
	const uint32_t gpus = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 2;
	if (!group || gpus < 2)
		return 2;
	fio_input in;
	const int err = fio_load(&in, argv[1]);
	wlz_bdec *bd = wlz_bdec_create();
	if (err || !bd) {
		fprintf(stderr, "splitsim: %s: %s\n", argv[1], err ? fio_strerror(err) : "out of memory");
		return 1;
	}
	wlz_member m;
	if (wlz_member_parse(in.data, in.size, 0, &m) != WLZ_OK) {
		fprintf(stderr, "splitsim: %s is not a valid archive\n", argv[1]);
		return 1;
	}
	tk *all = NULL;
	uint64_t n = 0, cap = 0, bstart = 0;
	/* each group's first token, to cut chunks */
	uint64_t *gfirst = calloc(m.nblocks / group + 2, sizeof *gfirst);
	if (!gfirst)
		return 1;
	for (uint64_t b = 0; b < m.nblocks; b++) {
		const wlz_block_entry *e = &m.blocks[b];
		const wlz_dtoken *t;
		if (b % group == 0)
			gfirst[b / group] = n;
		if (wlz_bdec_tokens(bd, in.data, e, bstart, bstart + e->length, &t) != WLZ_OK) {
			fprintf(stderr, "splitsim: block %llu does not parse\n", (unsigned long long)b);
			return 1;
		}
		uint64_t pos = bstart;
		for (uint32_t i = 0; i < e->token_count; i++) {
			pos += t[i].lit;
			if (n == cap) {
				cap = cap ? 2 * cap : 1 << 20;
				if (!(all = realloc(all, cap * sizeof *all)))
					return 1;
			}
			all[n++] = (tk){pos, t[i].mlen, t[i].src, (uint32_t)(b / group % gpus), 0};
			pos += t[i].mlen;
		}
		bstart += e->length;
	}
	const uint64_t ngroups = (m.nblocks + group - 1) / group;
	gfirst[ngroups] = n;
	uint64_t matches = 0, across = 0, dist[5] = {0};
	static const uint64_t edge[4] = {(uint64_t)1 << 20, (uint64_t)16 << 20, (uint64_t)64 << 20,
					 (uint64_t)256 << 20};
	for (uint64_t k = 0; k < n; k++) {
		const tk *r = &all[k];
		if (!r->mlen)
			continue;
		matches++;
		const uint64_t d = r->dst - r->src, a = r->src, b = r->src + (d < r->mlen ? d : r->mlen);
		int any = 0;
		for (int64_t j = at_or_before(all, k, a); j >= 0 && (uint64_t)j < k && all[j].dst < b; j++) {
			tk *w = &all[j];
			if (w->dst + w->mlen <= a || w->gpu == r->gpu)
				continue;
			const uint64_t back = r->dst - w->dst;
			w->read |= 1 | (back < edge[1] ? 2 : 0) | (back < edge[2] ? 4 : 0);
			if (!any) {
				unsigned x = 0;
				while (x < 4 && back >= edge[x])
					x++;
				dist[x]++;
			}
			any = 1;
		}
		across += any;
	}
	uint64_t chunks = 0, hot[3] = {0};
	for (uint64_t g = 0; g < ngroups; g++)
		for (uint64_t c = gfirst[g]; c < gfirst[g + 1]; c += CH) {
			uint8_t bits = 0;
			for (uint64_t k = c; k < c + CH && k < gfirst[g + 1]; k++)
				bits |= all[k].read;
			chunks++;
			for (int x = 0; x < 3; x++)
				hot[x] += bits >> x & 1;
		}
	printf("file,group,gpus,tokens,chunks,chunks_read_across,within_16MiB,within_64MiB,matches,matches_across,"
	       "across_under_1MiB,1_16MiB,16_64MiB,64_256MiB,further\n");
	printf("%s,%llu,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", argv[1],
	       (unsigned long long)group, gpus, (unsigned long long)n, (unsigned long long)chunks,
	       (unsigned long long)hot[0], (unsigned long long)hot[1], (unsigned long long)hot[2],
	       (unsigned long long)matches, (unsigned long long)across, (unsigned long long)dist[0],
	       (unsigned long long)dist[1], (unsigned long long)dist[2], (unsigned long long)dist[3],
	       (unsigned long long)dist[4]);
	wlz_member_free(&m);
	wlz_bdec_free(bd);
	free(all);
	free(gfirst);
	fio_unload(&in);
	return 0;
}
