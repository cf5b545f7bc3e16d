/*
 * test_threads.c - the parallel decoder: one archive decoded by 1, 2, 3, 8
 * and 16 threads, under both scheduling designs, repeatedly, always to the
 * same bytes; and archives corrupted in a middle block, which every thread
 * count must reject without hanging (threads waiting on the bad block have
 * to stop).  Small blocks give many blocks and references into blocks that
 * are still being decoded.  Built with WLZ_SANITIZE=thread, CI runs it under
 * ThreadSanitizer.
 *
 * usage: test_threads [rounds [small]]   (default 3 rounds; "small": inputs a
 *        quarter the size and at most 8 threads, for ThreadSanitizer in CI) 
 */
#define _POSIX_C_SOURCE 200809L  /* setenv */
#include "testutil.h"
#include "wavelz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int nthreads[] = { 1, 2, 3, 8, 16 };
static size_t NT = sizeof nthreads / sizeof nthreads[0];

static void check_archive(const uint8_t *src, size_t n, const uint8_t *arc, size_t csize, int rounds,
			  const char *what)
{
	uint8_t *out = tu_xmalloc(n);
	for (int design = 0; design < 2; design++) {
		setenv("WAVELZ_SCHED", design ? "defer" : "wait", 1);
		for (size_t t = 0; t < NT; t++) {
			wlz_dctx *dc = wlz_dctx_create(nthreads[t]);
			TU_CHECK(dc != NULL, "dctx_create(%d)", nthreads[t]);
			for (int r = 0; dc && r < rounds; r++) {
				size_t got = 0;
				memset(out, 0x5A ^ r, n);
				wlz_error e = wlz_decompress(dc, out, n, arc, csize, &got);
				TU_CHECK(e == WLZ_OK && got == n && memcmp(out, src, n) == 0,
					 "%s, %s, %d threads, round %d: %s", what, design ? "defer" : "wait",
					 nthreads[t], r, wlz_error_name(e));
			}
			wlz_dctx_free(dc);
		}
	}
	unsetenv("WAVELZ_SCHED");
	free(out);
}

/* A flipped byte in a middle block: its checksum fails before it publishes
 * anything, so every block that reads from it must give up waiting. */
static void check_corrupt(size_t n, const uint8_t *arc, size_t csize, const char *what)
{
	wlz_info info;
	if (wlz_get_info(arc, csize, &info) != WLZ_OK || info.block_count < 4)
		return;
	uint8_t *bad = tu_xmalloc(csize), *out = tu_xmalloc(n);
	const size_t hdr = WLZ_HEADER_SIZE + (size_t)info.block_count * 80 + 8;
	const size_t spots[3] = { hdr + (csize - hdr) / 3, hdr + (csize - hdr) / 2, csize - 17 - 8 };
	for (int k = 0; k < 3; k++) {
		memcpy(bad, arc, csize);
		bad[spots[k]] ^= 0x10;
		for (int design = 0; design < 2; design++) {
			setenv("WAVELZ_SCHED", design ? "defer" : "wait", 1);
			for (size_t t = 0; t < NT; t++) {
				wlz_dctx *dc = wlz_dctx_create(nthreads[t]);
				size_t got = 1;
				wlz_error e = dc ? wlz_decompress(dc, out, n, bad, csize, &got) : WLZ_ERR_NOMEM;
				TU_CHECK(e != WLZ_OK && e != WLZ_ERR_INTERNAL && got == 0,
					 "%s: flip at %zu accepted or misreported with %d threads (%s): %s", what,
					 spots[k], nthreads[t], design ? "defer" : "wait", wlz_error_name(e));
				wlz_dctx_free(dc);
			}
		}
	}
	unsetenv("WAVELZ_SCHED");
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
	} cases[] = {
		/* parallel 1: sources in the blocks just before, which other
		 * threads are still decoding (the waits); 16: the default */
		{ TU_FASTQ, 1, -1, 16, 3000000 },
		{ TU_FASTQ, 3, -1, 1, 3000000 },
		{ TU_TEXT, 3, -1, 1, 2500000 },
		{ TU_REPEATS, 3, -1, 1, 2000000 },
		{ TU_FASTQ, 3, 2, 4, 2000000 },
		{ TU_TEXT, 12, -1, 1, 1500000 },
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
		opt.threads = 2;
		wlz_cctx *cc = wlz_cctx_create(&opt);
		size_t cap = wlz_compress_bound(n), csize = 0;
		uint8_t *arc = tu_xmalloc(cap);
		wlz_error e = wlz_compress(cc, arc, cap, src, n, &csize);
		char what[96];
		snprintf(what, sizeof what, "%s level %d depth %d parallel %d", tu_kind_name(cases[i].kind),
			 cases[i].level, cases[i].depth, cases[i].parallel);
		TU_CHECK(e == WLZ_OK, "%s: compress: %s", what, wlz_error_name(e));
		if (e == WLZ_OK) {
			check_archive(src, n, arc, csize, rounds, what);
			check_corrupt(n, arc, csize, what);
			printf("  %-28s %8zu -> %8zu bytes, %zu thread counts x 2 designs x %d rounds\n", what, n,
			       csize, NT, rounds);
		}
		wlz_cctx_free(cc);
		free(arc);
		free(src);
	}
	return tu_finish("test_threads");
}
