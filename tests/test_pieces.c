/*
 * test_pieces.c - a block parsed in pieces (wlz_parse_piece: the rounds
 * of small inputs, parsed on several threads) beside the same block
 * parsed whole, on real text and FASTQ slices at levels 1 to 4.  Each
 * piece's tokens stay inside the piece and every match reads bytes equal
 * to its own; and the pieces leave about as many literals as the whole
 * parse, which they do only if each piece sees the block's bytes before it
 * as sources, however far back (the first version's pieces saw only a
 * near window before them, and lost sources on text: bench/host/
 * issue13-r15.md).
 *   test_pieces TEXT.zst FASTQ.zst
 */
#include "testutil.h"
#include "encoder/parse.h"
#include "format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Literal bytes of the tokens of [from, to), checked: inside it, each
 * match's bytes equal to its source's. */
static uint64_t check_tokens(const uint8_t *src, uint64_t from, uint64_t to, const wlz_token *t, size_t n,
			     const char *what)
{
	uint64_t p = from, lits = 0;
	for (size_t i = 0; i < n; i++) {
		lits += t[i].lit;
		p += t[i].lit;
		const int inside = t[i].mlen >= WLZ_MINMATCH && p + t[i].mlen <= to && t[i].dist >= 1 && t[i].dist <= p;
		TU_CHECK(inside, "%s: token %zu at %llu (length %u, distance %llu) leaves [%llu, %llu)", what, i,
			 (unsigned long long)p, t[i].mlen, (unsigned long long)t[i].dist, (unsigned long long)from,
			 (unsigned long long)to);
		if (!inside)
			return UINT64_MAX;
		uint32_t k = 0;
		while (k < t[i].mlen && src[p + k] == src[p + k - t[i].dist])
			k++;
		TU_CHECK(k == t[i].mlen, "%s: token %zu at %llu differs from its source at byte %u", what, i,
			 (unsigned long long)p, k);
		p += t[i].mlen;
	}
	return lits + (to - p);
}

static void one(const uint8_t *src, size_t n, int level, const char *name)
{
	const uint32_t B = 1u << 20;
	wlz_parser *ps = wlz_parser_create(wlz_level_params(level), B);
	TU_CHECK(ps != NULL, "parser");
	if (!ps)
		return;
	/* One block of the input's start, no gap (a small input's rules). */
	const uint64_t bend = n < B ? n : B;
	const wlz_view v = { src, n, 0, (uint64_t)8 << 20, NULL };
	wlz_parser_set_parallel(ps, 1, 0);
	char what[96];
	const wlz_token *tok;
	size_t ntok;
	snprintf(what, sizeof what, "%s, level %d, whole", name, level);
	TU_CHECK(wlz_parse_can_piece(ps), "%s: level %d parses in pieces", name, level);
	TU_CHECK(wlz_parse_block(ps, &v, 0, bend, 0, &tok, &ntok) == WLZ_OK, "%s", what);
	const uint64_t whole = check_tokens(src, 0, bend, tok, ntok, what);
	for (unsigned k = 2; k <= 4; k += 2) {
		uint64_t lits = 0;
		for (unsigned j = 0; j < k; j++) {
			const uint64_t from = bend * j / k, to = bend * (j + 1) / k;
			snprintf(what, sizeof what, "%s, level %d, piece %u of %u", name, level, j + 1, k);
			TU_CHECK(wlz_parse_piece(ps, &v, 0, bend, from, to, &tok, &ntok) == WLZ_OK, "%s", what);
			const uint64_t l = check_tokens(src, from, to, tok, ntok, what);
			lits = l == UINT64_MAX || lits == UINT64_MAX ? UINT64_MAX : lits + l;
		}
		printf("%s, level %d: literals whole %llu, in %u pieces %llu\n", name, level,
		       (unsigned long long)whole, k, (unsigned long long)lits);
		TU_CHECK(lits <= whole + whole / 50 + 2048, "%s, level %d: %u pieces leave %llu literal bytes, the "
			 "whole block %llu", name, level, k, (unsigned long long)lits, (unsigned long long)whole);
	}
	wlz_parser_free(ps);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_pieces TEXT.zst FASTQ.zst\n");
		return 2;
	}
	for (int a = 1; a < 3; a++) {
		size_t n = 0;
		uint8_t *src = tu_read_zst(argv[a], &n);
		TU_CHECK(src != NULL && n > 65536, "%s: read", argv[a]);
		if (!src)
			continue;
		for (int level = 1; level <= 4; level++)
			one(src, n, level, a == 1 ? "text" : "FASTQ");
		free(src);
	}
	return tu_finish("test_pieces");
}
