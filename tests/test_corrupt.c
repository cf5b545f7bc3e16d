/*
 * test_corrupt.c - damaged archives must be rejected, never decoded to
 * WLZ_OK and never crash: a bit flip at every byte position (more patterns
 * on a sample) and every truncation.  Each damaged archive sits in a buffer
 * of exactly its size, so a sanitizer build (WLZ_SANITIZE) catches reads
 * past the end.  The stream decoder gets a sample of the same damage: it
 * must fail too, having written only a prefix of the content (it writes
 * only blocks whose checksums held).
 *
 * usage: test_corrupt [input_bytes]   (default 200000)
 * A crash prints the mode (index into modes[], 8 = a flip with the block's
 * checksums recomputed, 9 = truncation) and the position or length being
 * tried.
 */
#define _POSIX_C_SOURCE 200809L /* write() in the crash handler */
#include "wavelz.h"
#include "testutil.h"  /* after wavelz.h: tu_stream_decode */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What is being tried, for the crash handler. */
static volatile size_t cur_pos;
static volatile unsigned cur_mode;

static void on_crash(int sig)
{
	static const char head[] = "CRASH while decoding a damaged archive: mode ";
	char msg[sizeof head + 32], digits[24];
	size_t len = sizeof head - 1, nd = 0, pos = cur_pos;
	memcpy(msg, head, len);
	msg[len++] = (char)('0' + cur_mode % 10);
	msg[len++] = ' ';
	msg[len++] = '@';
	do {
		digits[nd++] = (char)('0' + pos % 10);
		pos /= 10;
	} while (pos);
	while (nd)
		msg[len++] = digits[--nd];
	msg[len++] = '\n';
	if (write(2, msg, len) < 0)
		_exit(128 + sig);
	_exit(128 + sig);
}

/* Reports positions where a damaged archive decoded to WLZ_OK, as ranges. */
static void report(const char *mode, const size_t *bad, size_t nbad)
{
	size_t i = 0, shown = 0;
	if (!nbad)
		return;
	fprintf(stderr, "%s: %zu damaged archive(s) decoded to WLZ_OK at:", mode, nbad);
	while (i < nbad && shown < 30) {
		size_t j = i;
		while (j + 1 < nbad && bad[j + 1] == bad[j] + 1)
			j++;
		if (j == i)
			fprintf(stderr, " %zu", bad[i]);
		else
			fprintf(stderr, " %zu-%zu", bad[i], bad[j]);
		i = j + 1;
		shown++;
	}
	fprintf(stderr, "%s\n", i < nbad ? " ..." : "");
}

static int valid_error(wlz_error e)
{
	return e > WLZ_OK && e < WLZ_ERR_COUNT_;
}

/* The stream decoder over an archive in memory (odd piece sizes), its
 * output compared with the content as it comes; the writer keeps going
 * after a wrong byte, so that a decoder that goes on writing is caught.
 * Returns the error, *wrong set if anything written was not the content's
 * next bytes. */
static wlz_error stream_try(wlz_dctx *dctx, const uint8_t *arc, size_t asize, const uint8_t *want, size_t n,
			    int *wrong)
{
	static const tu_pieces pc = { 40000, 2654435761u, 7 };
	tu_cmpwr out = { want, n, 0, 0, 1 };
	return tu_stream_decode(dctx, arc, asize, pc, &out, 0, NULL, wrong);
}

/* One archive of the set. */
typedef struct spec {
	const char *what;
	int kind;
	size_t n;
	int level, depth, flatten, threads;
} spec;

static size_t counts[WLZ_ERR_COUNT_];

/* Byte flips inside block payloads with the block's payload and header
 * checksums computed again (as tests/forge_bad.c does), so that damaged
 * streams and tokens reach the entropy decoder and the token parser and
 * must be refused by their own rules or, where they still decode, by the
 * content checksum; never a crash, never wrong bytes with WLZ_OK.  Walks
 * the blocks front to back (SPEC.md, sections 1 and 3).  Returns how many
 * flips were refused by a rule other than a checksum. */
static size_t forged_flips(const spec *sp, wlz_dctx *dctx, const uint8_t *arc, size_t csize, const uint8_t *src,
			   size_t n, uint8_t *dst, uint64_t seed)
{
	enum { HDR = 32, BHEAD = 80 };
	uint8_t *work = tu_xmalloc(csize);
	size_t tried = 0, wrong = 0, rules = 0, sums = 0, at = HDR;
	tu_rng r;
	tu_rng_seed(&r, seed);
	memcpy(work, arc, csize);
	cur_mode = 8;
	while (at + BHEAD <= csize && !memcmp(arc + at, "wlzB", 4)) {
		uint64_t psize = 0;
		for (int k = 0; k < 4; k++) {
			uint32_t c;
			memcpy(&c, arc + at + 20 + 8 * k, 4);
			psize += c;
		}
		uint8_t *h = work + at, *pay = work + at + BHEAD;
		if (at + BHEAD + psize > csize)
			break;
		for (uint64_t i = 0; i < psize; i += 1 + tu_rng_below(&r, 5)) {
			const uint8_t mask = (uint8_t)(1 + tu_rng_below(&r, 255));
			cur_pos = (size_t)(pay - work + i);
			pay[i] ^= mask;
			uint64_t v = tu_xxh3(pay, psize);
			memcpy(h + 64, &v, 8);
			v = tu_xxh3(h, 72);
			memcpy(h + 72, &v, 8);
			size_t dsize = 0;
			const wlz_error e = wlz_decompress(dctx, dst, n, work, csize, &dsize);
			tried++;
			if (e == WLZ_OK)
				wrong += dsize != n || memcmp(dst, src, n) != 0;
			else if (e == WLZ_ERR_CHECKSUM)
				sums++;
			else
				rules++;
			TU_CHECK(e == WLZ_OK || valid_error(e), "%s: forged flip @%zu: error code %d", sp->what,
				 (size_t)cur_pos, (int)e);
			pay[i] ^= mask;
		}
		memcpy(h, arc + at, BHEAD);
		at += BHEAD + psize;
	}
	printf("  forged flips (checksums recomputed): %zu tried, %zu refused by a rule, %zu by the content "
	       "checksum, %zu decoded to wrong bytes\n", tried, rules, sums, wrong);
	TU_CHECK(tried > 0, "%s: no block payload found to damage", sp->what);
	TU_CHECK(wrong == 0, "%s: %zu forged archives decoded to WRONG bytes with WLZ_OK", sp->what, wrong);
	TU_CHECK(memcmp(work, arc, csize) == 0, "%s: forged flips not undone", sp->what);
	free(work);
	return rules;
}

/* Every flip pattern and every truncation of one archive. */
static void attack(const spec *sp, uint64_t seed)
{
	const size_t n = sp->n;
	uint8_t *src = tu_xmalloc(n), *dst = tu_xmalloc(n), *arc, *work;
	size_t cap = wlz_compress_bound(n), csize = 0, dsize = 0, *bad;
	size_t nbad;
	wlz_options opt;
	wlz_cctx *cctx;
	wlz_dctx *dctx = wlz_dctx_create(sp->threads);
	wlz_info info;
	wlz_error e;
	static const struct {
		uint8_t mask;
		size_t step; /* try every step-th position (plus both ends) */
		int stream;  /* the stream decoder too */
	} modes[] = { { 0x01, 1, 0 }, { 0x80, 7, 0 }, { 0xFF, 19, 1 }, { 0x10, 29, 1 } };

	tu_fill(sp->kind, src, n, seed);
	wlz_options_init(&opt);
	opt.level = sp->level;
	opt.block_log = 16;
	opt.parallel = 1;  /* references into the blocks just before */
	opt.depth = sp->depth;
	opt.flatten = sp->flatten;
	opt.threads = 1;
	cctx = wlz_cctx_create(&opt);
	arc = tu_xmalloc(cap);
	if (!cctx || !dctx || (e = wlz_compress(cctx, arc, cap, src, n, &csize)) != WLZ_OK) {
		TU_CHECK(0, "%s: cannot make the test archive", sp->what);
		exit(EXIT_FAILURE);
	}
	wlz_cctx_free(cctx);
	e = wlz_decompress(dctx, dst, n, arc, csize, &dsize);
	if (e != WLZ_OK || dsize != n || memcmp(dst, src, n) != 0) {
		TU_CHECK(0, "%s: the undamaged archive does not round trip: %s", sp->what, wlz_error_name(e));
		exit(EXIT_FAILURE);
	}
	printf("%s: archive of %zu bytes for %zu, %zu blocks, %d thread(s)\n", sp->what, csize, n,
	       tu_block_count(n, 16), sp->threads);

	/* Damage that reaches the parsers: most flips of coded streams break
	 * one of their rules before any checksum is compared. */
	{
		const size_t rules = forged_flips(sp, dctx, arc, csize, src, n, dst, seed ^ 0x5EED);
		/* (random data is stored as literals alone: any flip decodes) */
		TU_CHECK(rules > 0 || sp->kind == TU_RANDOM, "%s: no forged flip was refused by a decoding rule",
			 sp->what);
	}

	/* The archive lives in a buffer of exactly its size. */
	work = tu_xmalloc(csize);
	memcpy(work, arc, csize);
	bad = tu_xmalloc((csize + 1) * sizeof *bad);

	for (unsigned m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		size_t tried = 0, wrong = 0, streamed = 0, s_ok = 0, s_wrong = 0;
		double tm = tu_now();
		nbad = 0;
		cur_mode = m;
		for (size_t pos = 0; pos < csize; pos++) {
			if (pos % modes[m].step && pos >= 64 && pos + 64 < csize)
				continue;
			cur_pos = pos;
			work[pos] ^= modes[m].mask;
			e = wlz_decompress(dctx, dst, n, work, csize, &dsize);
			(void)wlz_get_info(work, csize, &info); /* may pass: streams unchecked */
			if (modes[m].stream) {
				int bad_out = 0;
				wlz_error se = stream_try(dctx, work, csize, src, n, &bad_out);
				streamed++;
				s_ok += se == WLZ_OK;
				s_wrong += bad_out;
				TU_CHECK(se != WLZ_OK && !bad_out && valid_error(se),
					 "%s: xor 0x%02x @%zu: decompress_stream %s%s", sp->what, modes[m].mask, pos,
					 wlz_error_name(se), bad_out ? ", wrote bytes that are not the content" : "");
			}
			work[pos] ^= modes[m].mask;
			tried++;
			if (e == WLZ_OK) {
				bad[nbad++] = pos;
				/* Worse than redundant bits: wrong bytes passed the checksums. */
				if (dsize != n || memcmp(dst, src, n) != 0)
					wrong++;
			} else
				TU_CHECK(valid_error(e), "xor 0x%02x @%zu: error code %d out of range",
					 modes[m].mask, pos, (int)e);
			if (valid_error(e))
				counts[e]++;
		}
		printf("  xor 0x%02x: %zu positions tried, %zu accepted (%zu with wrong output); streamed %zu, %zu "
		       "accepted, %zu wrote wrong bytes; %.1f s\n", modes[m].mask, tried, nbad, wrong, streamed, s_ok,
		       s_wrong, tu_now() - tm);
		TU_CHECK(wrong == 0, "%s: xor 0x%02x: %zu damaged archives decoded to WRONG bytes with WLZ_OK",
			 sp->what, modes[m].mask, wrong);
		if (nbad) {
			char what[32];
			snprintf(what, sizeof what, "xor 0x%02x", modes[m].mask);
			report(what, bad, nbad);
			TU_CHECK(nbad == 0, "%s: %zu bit-flipped archives decoded to WLZ_OK", sp->what, nbad);
		}
	}
	TU_CHECK(memcmp(work, arc, csize) == 0, "%s: the library wrote into its input", sp->what);

	/* Every truncation; the prefix is copied to the end of the buffer so
	 * that the byte after it is outside the allocation. */
	nbad = 0;
	cur_mode = 9;
	{
		double t1 = tu_now();
		size_t info_ok = 0, size_bad = 0, streamed = 0, s_bad = 0;
		for (size_t len = 0; len < csize; len++) {
			uint8_t *p = work + (csize - len);
			uint64_t cs;
			cur_pos = len;
			memcpy(p, arc, len);
			e = wlz_decompress(dctx, dst, n, p, len, &dsize);
			if (e == WLZ_OK)
				bad[nbad++] = len;
			else if (valid_error(e))
				counts[e]++;
			if (wlz_get_info(p, len, &info) == WLZ_OK)
				info_ok++;
			/* The content size needs the whole archive now. */
			if (wlz_get_content_size(p, len, &cs) == WLZ_OK)
				size_bad++;
			if (len % 37 == 0 || len + 200 > csize) {
				int bad_out = 0;
				wlz_error se = stream_try(dctx, p, len, src, n, &bad_out);
				streamed++;
				if (se == WLZ_OK || bad_out || (len >= WLZ_HEADER_SIZE && se != WLZ_ERR_TRUNCATED)) {
					s_bad++;
					TU_CHECK(0, "%s: decompress_stream of the first %zu bytes: %s%s, expected "
						 "WLZ_ERR_TRUNCATED", sp->what, len, wlz_error_name(se),
						 bad_out ? ", wrote bytes that are not the content" : "");
				}
			}
		}
		printf("  truncations: %zu lengths tried, %zu decoded, %zu passed get_info, %zu get_content_size; "
		       "%zu streamed, %zu wrong; %.1f s\n", csize, nbad, info_ok, size_bad, streamed, s_bad,
		       tu_now() - t1);
		report("truncated to length", bad, nbad);
		TU_CHECK(nbad == 0, "%s: %zu truncated archives decoded to WLZ_OK", sp->what, nbad);
		TU_CHECK(info_ok == 0, "%s: %zu truncated archives passed wlz_get_info", sp->what, info_ok);
		TU_CHECK(size_bad == 0, "%s: %zu truncated archives passed wlz_get_content_size", sp->what,
			 size_bad);
	}
	/* Trailing bytes after the archive's end are not part of it either:
	 * a zero byte, or the start of a second member (each truncation of a
	 * second copy; the archive is a valid member only when it is whole). */
	{
		uint8_t *longer = tu_xmalloc(2 * csize);
		uint8_t *dst2 = tu_xmalloc(2 * n + 1);
		size_t cut_ok = 0;
		uint64_t cs;
		memcpy(longer, arc, csize);
		longer[csize] = 0;
		e = wlz_decompress(dctx, dst, n, longer, csize + 1, &dsize);
		TU_CHECK(e != WLZ_OK, "%s: archive + 1 trailing byte decoded to WLZ_OK", sp->what);
		memcpy(longer + csize, arc, csize);
		for (size_t len = 1; len < csize; len += len < 64 || len + 64 > csize ? 1 : 13) {
			if (wlz_decompress(dctx, dst2, 2 * n, longer, csize + len, &dsize) == WLZ_OK ||
			    wlz_get_content_size(longer, csize + len, &cs) == WLZ_OK)
				cut_ok++;
		}
		TU_CHECK(cut_ok == 0, "%s: %zu archives followed by part of a second member passed", sp->what,
			 cut_ok);
		e = wlz_decompress(dctx, dst2, 2 * n, longer, 2 * csize, &dsize);
		TU_CHECK(e == WLZ_OK && dsize == 2 * n && memcmp(dst2, src, n) == 0 && memcmp(dst2 + n, src, n) == 0,
			 "%s: two whole members: %s", sp->what, wlz_error_name(e));
		free(longer);
		free(dst2);
	}

	/* A dctx that saw all of that still works. */
	e = wlz_decompress(dctx, dst, n, arc, csize, &dsize);
	TU_CHECK(e == WLZ_OK && dsize == n && memcmp(dst, src, n) == 0,
		 "%s: good archive after the damaged ones: %s", sp->what, wlz_error_name(e));

	wlz_dctx_free(dctx);
	free(bad);
	free(work);
	free(arc);
	free(src);
	free(dst);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : 200000;
	uint64_t seed = tu_seed(4242);
	double t0 = tu_now();
	/* A set of archives that between them use every stream codec, depth
	 * limits, flattening, repeat offsets, long matches, and the threaded
	 * decoder; the first is the largest. */
	const spec set[] = {
		{ "fastq, level 3", TU_FASTQ, n, 3, WLZ_DEPTH_UNLIMITED, 0, 1 },
		{ "random (raw streams)", TU_RANDOM, n / 4, 1, WLZ_DEPTH_UNLIMITED, 0, 1 },
		{ "text, level 9, depth 2, flattened", TU_TEXT, n / 2, 9, 2, 1, 1 },
		{ "repeats, level 1, 3 threads", TU_REPEATS, n / 2, 1, WLZ_DEPTH_UNLIMITED, 0, 3 },
	};

	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	signal(SIGILL, on_crash);
	signal(SIGABRT, on_crash);

	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		attack(&set[i], seed + i);

	printf("errors returned:");
	for (int c = 1; c < WLZ_ERR_COUNT_; c++)
		if (counts[c])
			printf(" %s=%zu", wlz_error_name((wlz_error)c), counts[c]);
	printf("\n%.1f s\n", tu_now() - t0);
	return tu_finish("test_corrupt");
}
