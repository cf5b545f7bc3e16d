/*
 * zparse.c - zstd's parse coded in wavelz's format (issue 13, point 3:
 * is level 19's gap to `zstd -19 --long=27` in the parse or in the format?).
 *
 * zstd at the level given, with --long=27, parses the input
 * (ZSTD_generateSequences); its sequences become wavelz tokens (cut at
 * wavelz's 1 MiB blocks, a match crossing a block edge split in two), and
 * wavelz's block coder (encoder/block_encode.c, codec 2 by default) codes
 * them.  Printed beside zstd's own frame and a wavelz archive of the same
 * input, if given: the same parse in both formats says how much the
 * format costs; the two formats' own parses say how much the parse does.
 *
 * usage: zparse FILE LEVEL [ARCHIVE]
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "fileio.h"
#include "common/huf.h"
#include "encoder/block_encode.h"
#include "format/format.h"

/* path whole (fio_load); exits on an error. */
static const uint8_t *load(fio_input *in, const char *path, size_t *n)
{
	const int err = fio_load(in, path);
	if (err) {
		fprintf(stderr, "zparse: %s: %s\n", path, fio_strerror(err));
		exit(2);
	}
	*n = in->size;
	return in->data;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: zparse FILE LEVEL [ARCHIVE]\n");
		return 2;
	}
	size_t n;
	fio_input fin, fa;
	const uint8_t *src = load(&fin, argv[1], &n);
	const int level = atoi(argv[2]);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_enableLongDistanceMatching, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, 27);
	/* zstd's own frame, for its size */
	const size_t cap = ZSTD_compressBound(n);
	uint8_t *zf = malloc(cap);
	const size_t zsize = ZSTD_compress2(cc, zf, cap, src, n);
	if (ZSTD_isError(zsize))
		return 2;
	/* (the block splitter only cuts blocks after the parse; with it on,
	 * zstd 1.5.4's ZSTD_generateSequences repeats block ends and covers
	 * more than the input) */
	ZSTD_CCtx_setParameter(cc, ZSTD_c_useBlockSplitter, ZSTD_ps_disable);
	const size_t maxseq = ZSTD_sequenceBound(n);
	ZSTD_Sequence *seq = malloc(maxseq * sizeof *seq);
	const size_t ns = ZSTD_generateSequences(cc, seq, maxseq, src, n);
	if (ZSTD_isError(ns)) {
		fprintf(stderr, "zparse: %s\n", ZSTD_getErrorName(ns));
		return 2;
	}
	/* Sequences to tokens, block by block. */
	const uint32_t B = 1u << 20;
	const size_t nb = (n + B - 1) / B;
	wlz_token *tok = malloc((n / 3 + 2 * nb + 2) * sizeof *tok);
	size_t *first = calloc(nb + 1, sizeof *first), nt = 0;
	uint64_t pos = 0, lits = 0, matches = 0, mbytes = 0;
	size_t b = 0;
	uint32_t plit = 0;         /* literals pending before the next match */
	for (size_t i = 0; i < ns; i++) {
		uint64_t ll = seq[i].litLength, ml = seq[i].matchLength;
		const uint64_t off = seq[i].offset;
		lits += ll;
		while (ll) {           /* literals, cut at block edges */
			const uint64_t room = (uint64_t)(b + 1) * B - pos, take = ll < room ? ll : room;
			plit += (uint32_t)take, pos += take, ll -= take;
			if (pos == (uint64_t)(b + 1) * B) {
				if (plit) /* the block's literal tail: kept as literals of no token */
					plit = 0;
				first[++b] = nt;
			}
		}
		if (!ml)
			continue;
		matches++, mbytes += ml;
		while (ml) {
			const uint64_t room = (uint64_t)(b + 1) * B - pos, take = ml < room ? ml : room;
			if (take >= 3) {
				tok[nt++] = (wlz_token){plit, (uint32_t)take, off};
				plit = 0;
			} else {
				plit += (uint32_t)take; /* (under 3 bytes: as literals) */
			}
			pos += take, ml -= take;
			if (pos == (uint64_t)(b + 1) * B) {
				plit = 0;
				first[++b] = nt;
			}
		}
	}
	while (b < nb)
		first[++b] = nt;
	if (pos != n) {
		fprintf(stderr, "zparse: sequences cover %llu of %zu bytes\n", (unsigned long long)pos, n);
		return 2;
	}
	/* (ZPARSE_DUMP=FILE: the tokens as text, "block lit mlen dist", for
	 * the parse debug of parse_opt.c) */
	const char *dump = getenv("ZPARSE_DUMP");
	if (dump) {
		FILE *f = fopen(dump, "w");
		for (size_t k = 0; f && k < nb; k++)
			for (size_t t = first[k]; t < first[k + 1]; t++)
				fprintf(f, "%zu %u %u %llu\n", k, tok[t].lit, tok[t].mlen, (unsigned long long)tok[t].dist);
		if (f)
			fclose(f);
	}
	/* The blocks coded as wavelz codes them (80-byte headers, header,
	 * index and footer as a member has them). */
	wlz_benc *be = wlz_benc_create(B);
	const wlz_bparams bp = {WLZ_STREAMS_HUF, 19, 16, WLZ_HUF_SEG_DEFAULT, WLZ_HUF_CLUSTER_ITER};
	uint64_t total = 32 + 40 + 16 * nb + 24, cs[WLZ_NSTREAMS] = {0}, rs[WLZ_NSTREAMS] = {0};
	for (size_t k = 0; k < nb; k++) {
		const uint8_t *out;
		size_t osz;
		wlz_block_entry e;
		const uint64_t bs = (uint64_t)k * B, be_ = bs + B < n ? bs + B : n;
		if (wlz_benc_encode(be, src, bs, be_, tok + first[k], first[k + 1] - first[k], &bp, &out, &osz, &e) !=
		    WLZ_OK) {
			fprintf(stderr, "zparse: block %zu does not code\n", k);
			return 2;
		}
		total += 80 + osz;
		for (int st = 0; st < WLZ_NSTREAMS; st++)
			cs[st] += e.csize[st], rs[st] += e.rsize[st];
	}
	printf("input %zu bytes; zstd -%d --long=27: %zu bytes, %llu matches (%llu bytes), %llu literals\n", n, level,
	       zsize, (unsigned long long)matches, (unsigned long long)mbytes, (unsigned long long)lits);
	printf("zstd's parse in wavelz's format: %llu bytes (%+.2f%% against zstd), %zu tokens\n",
	       (unsigned long long)total, 100.0 * ((double)total / (double)zsize - 1), nt);
	static const char *const sname[WLZ_NSTREAMS] = {"cmd", "lit", "len", "off"};
	for (int k = 0; k < WLZ_NSTREAMS; k++)
		printf("  %s: %llu bytes stored, %llu decoded (%.2f bits a token)\n", sname[k], (unsigned long long)cs[k],
		       (unsigned long long)rs[k], nt ? 8.0 * (double)cs[k] / (double)nt : 0);
	if (argc > 3) {
		size_t an;
		const uint8_t *a = load(&fa, argv[3], &an);
		wlz_member m;
		uint64_t ntok = 0, nlit = 0;
		if (wlz_member_parse(a, an, 0, &m) == WLZ_OK) {
			for (uint64_t k = 0; k < m.nblocks; k++)
				ntok += m.blocks[k].token_count, nlit += m.blocks[k].rsize[WLZ_S_LIT];
			wlz_member_free(&m);
		}
		printf("wavelz's parse (%s): %zu bytes (%+.2f%% against zstd), %llu tokens, %llu literals\n", argv[3], an,
		       100.0 * ((double)an / (double)zsize - 1), (unsigned long long)ntok, (unsigned long long)nlit);
		fio_unload(&fa);
	}
	wlz_benc_free(be);
	ZSTD_freeCCtx(cc);
	free(zf);
	free(seq);
	free(tok);
	free(first);
	fio_unload(&fin);
	return 0;
}
