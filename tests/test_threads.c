/*
 * test_threads.c - the parallel decoder: one archive decoded by 1, 2, 3, 8
 * and 16 threads, repeatedly, always to the
 * same bytes; and archives corrupted in a middle block, which every thread
 * count must reject without hanging (threads waiting on the bad block have
 * to stop).  The stream decoder, which decodes batches of blocks on the
 * same workers into a window that wraps, gets the same archives.  Small
 * blocks give many blocks and references into blocks that are still being
 * decoded.  Built with WLZ_SANITIZE=thread, CI runs it under
 * ThreadSanitizer.
 *
 * usage: test_threads [rounds [small]]   (default 3 rounds; "small": inputs a
 *        quarter the size and at most 8 threads, for ThreadSanitizer in CI) 
 */
#define _POSIX_C_SOURCE 200809L  /* setenv */
#include "wavelz.h"
#include "testutil.h"  /* after wavelz.h: tu_stream_decode */
#include "common/wlz_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int nthreads[] = { 1, 2, 3, 8, 16 };
static size_t NT = sizeof nthreads / sizeof nthreads[0];

/* Streams arc with the window limited to `limit` bytes (0: the default):
 * the archive from memory in pieces of up to 64 KiB, the output compared
 * with the content as it comes. */
static wlz_error stream_decode(wlz_dctx *dc, const uint8_t *arc, size_t csize, const uint8_t *want, size_t n,
			       uint64_t limit, int *wrong)
{
	static const tu_pieces pc = { 65536, 40503u, 3 };
	tu_cmpwr out = { want, n, 0, 0, 0 };
	return tu_stream_decode(dc, arc, csize, pc, &out, limit, NULL, wrong);
}

/* order: how runs of several threads must go (wlz_dctx_last_order), 0 if
 * either way. */
static void check_archive(const uint8_t *src, size_t n, const uint8_t *arc, size_t csize, int rounds,
			  const char *what, int order)
{
	wlz_info info;
	const int have_info = wlz_get_info(arc, csize, &info) == WLZ_OK;
	TU_CHECK(have_info, "%s: get_info", what);
	uint8_t *out = tu_xmalloc(n);
	{
		for (size_t t = 0; t < NT; t++) {
			wlz_dctx *dc = wlz_dctx_create(nthreads[t]);
			TU_CHECK(dc != NULL, "dctx_create(%d)", nthreads[t]);
			for (int r = 0; dc && r < rounds; r++) {
				size_t got = 0;
				memset(out, 0x5A ^ r, n);
				wlz_error e = wlz_decompress(dc, out, n, arc, csize, &got);
				TU_CHECK(e == WLZ_OK && got == n && memcmp(out, src, n) == 0,
					 "%s, %d threads, round %d: %s", what, nthreads[t], r,
					 wlz_error_name(e));
				TU_CHECK(nthreads[t] == 1 || !order || wlz_dctx_last_order(dc) == order,
					 "%s, %d threads: blocks run %s", what, nthreads[t],
					 wlz_dctx_last_order(dc) == 2 ? "in order" : "side by side");
			}
			/* Streamed, within exactly the archive's window. */
			if (dc && have_info) {
				int wrong = 0;
				wlz_error e = stream_decode(dc, arc, csize, src, n, (uint64_t)1 << info.window_log, &wrong);
				TU_CHECK(e == WLZ_OK && !wrong, "%s, %d threads: decompress_stream: %s%s", what,
					 nthreads[t], wlz_error_name(e),
					 wrong ? ", bytes differ" : "");
			}
			wlz_dctx_free(dc);
		}
	}
	free(out);
}

/* A flipped byte in a middle block's payload: its checksum fails before it
 * publishes anything, so every block that reads from it must give up
 * waiting.  The payloads are found by walking the block headers (the
 * headers, index and footer are checked before any block is decoded). */
static void check_corrupt(const uint8_t *src, size_t n, const uint8_t *arc, size_t csize, const char *what)
{
	wlz_info info;
	TU_CHECK(wlz_get_info(arc, csize, &info) == WLZ_OK && info.block_count >= 4, "%s: %llu blocks", what,
		 (unsigned long long)info.block_count);
	if (wlz_get_info(arc, csize, &info) != WLZ_OK || info.block_count < 4)
		return;
	const size_t nb = (size_t)info.block_count;
	tu_block *blk = tu_xmalloc(nb * sizeof *blk);
	long walked = tu_walk_blocks(arc, csize, 0, blk, nb, NULL);
	TU_CHECK(walked == (long)nb, "%s: walked %ld blocks of %zu", what, walked, nb);
	if (walked != (long)nb) {
		free(blk);
		return;
	}
	uint8_t *bad = tu_xmalloc(csize), *out = tu_xmalloc(n);
	/* a third of the way in, the middle, the last block's last byte */
	const tu_block *b1 = &blk[nb / 3], *b2 = &blk[nb / 2], *b3 = &blk[nb - 1];
	const size_t spots[3] = { b1->payload + b1->psize / 3, b2->payload + b2->psize / 2,
				  b3->payload + b3->psize - 1 };
	const size_t sblock[3] = { nb / 3, nb / 2, nb - 1 };
	for (int k = 0; k < 3; k++) {
		memcpy(bad, arc, csize);
		bad[spots[k]] ^= 0x10;
		{
			for (size_t t = 0; t < NT; t++) {
				wlz_dctx *dc = wlz_dctx_create(nthreads[t]);
				size_t got = 1;
				wlz_error e = dc ? wlz_decompress(dc, out, n, bad, csize, &got) : WLZ_ERR_NOMEM;
				TU_CHECK(e == WLZ_ERR_CHECKSUM && got == 0,
					 "%s: flip at %zu accepted or misreported with %d threads: %s", what,
					 spots[k], nthreads[t], wlz_error_name(e));
				/* The stream decoder writes the blocks before the
				 * damaged one at most, and fails. */
				if (dc) {
					int wrong = 0;
					e = stream_decode(dc, bad, csize, src, n, 0, &wrong);
					TU_CHECK(e == WLZ_ERR_CHECKSUM && !wrong,
						 "%s: flip at %zu (block %zu), %d threads: decompress_stream %s%s",
						 what, spots[k], sblock[k], nthreads[t],
						 wlz_error_name(e), wrong ? ", wrote wrong bytes" : "");
				}
				wlz_dctx_free(dc);
			}
		}
	}
	free(blk);
	free(bad);
	free(out);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	const int small = argc > 2 && !strcmp(argv[2], "small");
	if (small)
		NT--;  /* no 16 */
	uint64_t seed = tu_seed(20261121);
	static const struct {
		int kind, level, depth, parallel;
		size_t n;
		unsigned window_log;
		int order;  /* check_archive's */
	} cases[] = {
		/* parallel 1: sources in the blocks just before; run in order
		 * (or, where the member's probe block does not show it, side by
		 * side, waiting on threads still decoding them); 16: the
		 * default */
		{ TU_FASTQ, 1, -1, 16, 3000000, 0, 1 },
		{ TU_FASTQ, 3, -1, 1, 3000000, 0, 2 },
		{ TU_TEXT, 3, -1, 1, 2500000, 0, 2 },
		{ TU_REPEATS, 3, -1, 1, 2000000, 0, 0 },
		{ TU_FASTQ, 3, 2, 4, 2000000, 0, 1 },
		{ TU_TEXT, 12, -1, 1, 1500000, 0, 2 },
		/* a window of 256 KiB: the stream decoder's ring wraps */
		{ TU_FASTQ, 3, -1, 1, 3000000, 18, 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = small ? cases[i].n / 4 : cases[i].n;
		uint8_t *src = tu_xmalloc(n);
		tu_fill(cases[i].kind, src, n, seed + i);
		wlz_options opt;
		wlz_options_init(&opt);
		opt.level = cases[i].level;
		opt.depth = cases[i].depth;
		opt.block_log = 16;
		opt.parallel = cases[i].parallel;
		opt.window_log = cases[i].window_log;
		opt.threads = 2;
		wlz_cctx *cc = wlz_cctx_create(&opt);
		size_t cap = wlz_compress_bound(n), csize = 0;
		uint8_t *arc = tu_xmalloc(cap);
		wlz_error e = wlz_compress(cc, arc, cap, src, n, &csize);
		char what[96];
		snprintf(what, sizeof what, "%s level %d depth %d parallel %d%s", tu_kind_name(cases[i].kind),
			 cases[i].level, cases[i].depth, cases[i].parallel, cases[i].window_log ? " window 18" : "");
		TU_CHECK(e == WLZ_OK, "%s: compress: %s", what, wlz_error_name(e));
		if (e == WLZ_OK) {
			check_archive(src, n, arc, csize, rounds, what, cases[i].order);
			check_corrupt(src, n, arc, csize, what);
			printf("  %-28s %8zu -> %8zu bytes, %zu thread counts x %d rounds\n", what, n,
			       csize, NT, rounds);
		}
		wlz_cctx_free(cc);
		free(arc);
		free(src);
	}
	return tu_finish("test_threads");
}
