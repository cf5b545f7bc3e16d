/*
 * test_limits.c - resource limits of decoding (issue 5).
 *
 *  1. Hostile size claims: archives whose header, block headers, index or
 *     footer claim up to 2^56 bytes of content, 2^64 - 1 blocks, 4 GiB
 *     streams or a member of 2^64 - 1 bytes (each with its checksum right)
 *     that the archive cannot back.  Every entry point (the stream decoder
 *     and wlz_get_content_size included) must reject them, from a child
 *     process whose address space is capped at 64 MiB above what it uses at
 *     the start, so that any allocation sized by a claim fails the test.
 *     Window claims up to 2^40: the stream decoder refuses a window over
 *     its memory limit with WLZ_ERR_WINDOW before allocating it, and the
 *     in-memory decoder needs no window of its own.
 *  2. Peak memory of a real decode, in a child process, at 1 and 4 threads:
 *     peak RSS - (archive + output) must stay under a constant per thread
 *     (README: "Memory").  The stream decoder's peak is its window and the
 *     blocks in flight, far under the content's size, and the stream
 *     encoder's stays under wlz_compress_memory() (writing the bytes of
 *     wlz_compress).  Skipped under sanitizers, whose shadow memory makes
 *     RSS meaningless.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "wavelz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TL_SANITIZED 1
#endif
#endif
#ifndef TL_SANITIZED
#define TL_SANITIZED 0
#endif

/* Current virtual size of this process, from /proc (0 if unknown). */
static uint64_t vm_size(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long pages = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Stream callbacks: the input read from memory in pieces of 100000 bytes
 * (tu_mem_read), the output counted and dropped. */
static const tu_pieces PIECES = { 100000, 0, 0 };

typedef struct counter {
	uint64_t n, h;  /* bytes, FNV-1a of them */
} counter;

static int count_write(void *opaque, const void *buf, size_t n)
{
	counter *c = opaque;
	const uint8_t *p = buf;
	for (size_t i = 0; i < n; i++)
		c->h = (c->h ^ p[i]) * 0x100000001B3ull;
	c->n += n;
	return 0;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
	counter c = { 0, 0xCBF29CE484222325ull };
	count_write(&c, p, n);
	return c.h;
}

static void cap_memory(void)
{
	if (!TL_SANITIZED) {
		uint64_t now = vm_size();
		struct rlimit rl = { now + (64u << 20), now + (64u << 20) };
		if (now && setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(3);
	}
}

/* Rejected as malformed: not accepted, and not WLZ_ERR_NOMEM, which would
 * mean an allocation sized by a claim was tried (and failed only thanks to
 * the cap).  (A function: each entry point is called once.) */
static int REJECTED(wlz_error e)
{
	return e != WLZ_OK && e != WLZ_ERR_NOMEM;
}

/* In a child capped at 64 MiB more address space: every entry point on
 * the archive must fail without crashing.  Returns the child's verdict. */
static int capped_reject(const uint8_t *arc, size_t asize, const char *what)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		cap_memory();
		wlz_info info;
		wlz_stats *st = malloc(sizeof(*st));
		uint64_t cs;
		uint8_t out[4096];
		size_t got;
		wlz_dctx *d = wlz_dctx_create(4);
		if (!st || !d)
			_exit(4);
		if (!TL_SANITIZED) {  /* the cap works: a claim-sized buffer fails */
			void *big = malloc(256u << 20);
			if (big)
				_exit(5);
		}
		int bad = 0;
		bad |= !REJECTED(wlz_get_info(arc, asize, &info));
		bad |= !REJECTED(wlz_get_stats(arc, asize, st)) << 1;
		bad |= !REJECTED(wlz_decompress(d, out, sizeof(out), arc, asize, &got)) << 2;
		/* A caller that believes the claim offers a huge (unbacked)
		 * buffer: the decoder must still not touch or allocate it. */
		bad |= !REJECTED(wlz_decompress(d, out, SIZE_MAX, arc, asize, &got)) << 3;
		/* The content size needs every member, index and footer. */
		bad |= !REJECTED(wlz_get_content_size(arc, asize, &cs)) << 4;
		/* The stream decoder, front to back (its window is 2^17). */
		tu_memrd in = { arc, asize, 0, PIECES };
		counter c = { 0, 0 };
		bad |= !REJECTED(wlz_decompress_stream(d, tu_mem_read, &in, count_write, &c, NULL)) << 5;
		wlz_dctx_free(d);
		free(st);
		_exit(bad ? 64 + bad : 0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		TU_CHECK(0, "%s: cannot run the child", what);
		return 0;
	}
	TU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child %s %d%s", what,
		 WIFEXITED(status) ? "exited" : "died of signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		 WIFEXITED(status) && WEXITSTATUS(status) >= 64 ? " (64 + a bit per entry point that accepted "
		 "the archive or ran out of memory: info, stats, decompress, decompress into SIZE_MAX, "
		 "content_size, decompress_stream)" : "");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A window claim: in a capped child, the in-memory decoder decodes (a
 * window costs it nothing), the stream decoder with the default memory
 * limit (2 GiB) refuses windows over it with WLZ_ERR_WINDOW, and with a
 * 16 MiB limit refuses every window over 16 MiB, before allocating it. */
static int capped_window(const uint8_t *arc, size_t asize, const uint8_t *src, size_t n, unsigned window_log)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		cap_memory();
		uint8_t *out = malloc(n);
		size_t got = 0;
		wlz_dctx *d = wlz_dctx_create(2);
		if (!out || !d)
			_exit(4);
		int bad = 0;
		bad |= (wlz_decompress(d, out, n, arc, asize, &got) != WLZ_OK || got != n || memcmp(out, src, n)) << 0;
		tu_memrd in = { arc, asize, 0, PIECES };
		counter c = { 0, 0 };
		wlz_error e = wlz_decompress_stream(d, tu_mem_read, &in, count_write, &c, NULL);
		if (window_log > 31)
			bad |= (e != WLZ_ERR_WINDOW || c.n != 0) << 1;
		wlz_dctx_set_memory_limit(d, 16u << 20);
		in.at = 0;
		c.n = 0;
		e = wlz_decompress_stream(d, tu_mem_read, &in, count_write, &c, NULL);
		if (window_log > 24)
			bad |= (e != WLZ_ERR_WINDOW || c.n != 0) << 2;
		else
			bad |= (e != WLZ_OK || c.n != n) << 3;
		wlz_dctx_free(d);
		free(out);
		_exit(bad ? 64 + bad : 0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		TU_CHECK(0, "window 2^%u: cannot run the child", window_log);
		return 0;
	}
	TU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "window claim 2^%u: child %s %d%s", window_log,
		 WIFEXITED(status) ? "exited" : "died of signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		 WIFEXITED(status) && WEXITSTATUS(status) >= 64 ? " (64 + 1: in-memory decode failed, 2: the "
		 "default limit did not refuse it, 4: a 16 MiB limit did not refuse it, 8: a window within the "
		 "limit did not decode)" : "");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void hostile_claims(uint64_t seed)
{
	/* A real two-block archive to start from. */
	size_t n = 100000, cap = wlz_compress_bound(n), asize = 0;
	uint8_t *src = tu_xmalloc(n), *arc = tu_xmalloc(cap), *work = tu_xmalloc(cap);
	wlz_options opt;
	wlz_options_init(&opt);
	opt.block_log = 16;
	tu_fill(TU_TEXT, src, n, seed);
	wlz_cctx *c = wlz_cctx_create(&opt);
	TU_CHECK(c && wlz_compress(c, arc, cap, src, n, &asize) == WLZ_OK, "compress");
	wlz_cctx_free(c);
	tu_block blk[2];
	size_t index_at = 0;
	long nb = tu_walk_blocks(arc, asize, 0, blk, 2, &index_at);
	TU_CHECK(nb == 2, "the test archive has %ld blocks, expected 2", nb);
	if (nb != 2) {
		free(src);
		free(arc);
		free(work);
		return;
	}
	int ok = 0, total = 0;
	/* The header's content size (and block size). */
	{
		static const struct {
			uint64_t content;
			unsigned block_log;
			const char *what;
		} cl[] = {
			{ (uint64_t)1 << 56, 16, "header: 2^56 bytes" },
			{ (uint64_t)1 << 56, 26, "header: 2^56 bytes in blocks of 64 MiB" },
			{ (uint64_t)1 << 40, 26, "header: 1 TiB" },
			{ (uint64_t)1 << 32, 16, "header: 4 GiB" },
			{ 3ull << 26, 26, "header: 192 MiB in blocks of 64 MiB" },
			{ ((uint64_t)1 << 56) + 1, 26, "header: 2^56 + 1 bytes" },
			{ UINT64_MAX - 1, 16, "header: 2^64 - 2 bytes" },
			{ 100001, 16, "header: one byte more than the blocks hold" },
		};
		for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
			memcpy(work, arc, asize);
			work[8] = (uint8_t)cl[i].block_log;
			tu_wr64(work + 16, cl[i].content);
			tu_fix_header(work);
			ok += capped_reject(work, asize, cl[i].what);
			total++;
		}
	}
	/* The index's block count and content size, the footer's sizes. */
	{
		static const struct {
			int field;  /* 0 index count, 1 index content size, 2 footer index offset, 3 member size */
			uint64_t v;
			const char *what;
		} cl[] = {
			{ 0, (uint64_t)1 << 40, "index: 2^40 blocks" },
			{ 0, UINT64_MAX, "index: 2^64 - 1 blocks" },
			{ 0, 3, "index: 3 blocks" },
			{ 1, (uint64_t)1 << 56, "index: 2^56 content bytes" },
			{ 2, (uint64_t)1 << 62, "footer: the index at 2^62" },
			{ 2, 0, "footer: the index at 0" },
			{ 3, UINT64_MAX, "footer: a member of 2^64 - 1 bytes" },
			{ 3, (uint64_t)1 << 40, "footer: a member of 1 TiB" },
		};
		for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
			memcpy(work, arc, asize);
			uint8_t *idx = work + index_at, *foot = work + asize - TU_FOOTER_SIZE;
			switch (cl[i].field) {
			case 0:
				tu_wr64(idx + 8, cl[i].v);
				break;
			case 1:
				tu_wr64(idx + 16 + TU_INDEX_ENTRY * 2, cl[i].v);
				break;
			case 2:
				tu_wr64(foot, cl[i].v);
				break;
			default:
				tu_wr64(foot + 8, cl[i].v);
				break;
			}
			tu_fix_index(idx, 2);
			ok += capped_reject(work, asize, cl[i].what);
			total++;
		}
	}
	/* Block headers: lengths and stream sizes out of all proportion. */
	{
		static const struct {
			int block, offset;   /* the 32-bit field at this offset */
			uint32_t v;
			int zstd;            /* >= 0: that stream's codec set to zstd (1) */
			const char *what;
		} cl[] = {
			{ 0, 4, 0xFFFFFFFFu, -1, "block 0: 4 GiB of content" },
			{ 1, 4, 1u << 26, -1, "block 1: 64 MiB of content" },
			{ 1, 8, 0xFFFFFFFFu, -1, "block 1: 2^32 - 1 tokens" },
			{ 0, 20, 0xFFFFFFFFu, -1, "block 0: a cmd stream of 4 GiB stored" },
			{ 1, 44, 0x7FFFFFFFu, -1, "block 1: an off stream of 2 GiB stored" },
			{ 0, 32, 0xFFFFFFFFu, -1, "block 0: a literal stream of 4 GiB" },
			{ 1, 48, 0xFFFFFFFFu, -1, "block 1: an off stream of 4 GiB" },
			/* zstd streams may be stored in any size: only the bytes
			 * there are can back one */
			{ 0, 20, 0xFFFFFFFFu, 0, "block 0: a zstd cmd stream of 4 GiB stored" },
			{ 0, 44, 0x10000000u, 3, "block 0: a zstd off stream of 256 MiB stored" },
			{ 1, 28, 0xFFFFFFF0u, 1, "block 1: a zstd literal stream of 4 GiB stored" },
		};
		for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
			memcpy(work, arc, asize);
			uint8_t *bh = work + blk[cl[i].block].head;
			tu_wr32(bh + cl[i].offset, cl[i].v);
			if (cl[i].zstd >= 0)
				bh[16 + cl[i].zstd] = 1;
			tu_fix_bhead(bh);
			ok += capped_reject(work, asize, cl[i].what);
			total++;
		}
	}
	printf("hostile size claims: %d of %d rejected within the memory cap%s\n", ok, total,
	       TL_SANITIZED ? " (cap off under sanitizers)" : "");
	/* Window claims: valid archives (a window may exceed what the
	 * matches need), which only the stream decoder pays for. */
	{
		static const unsigned wl[] = { 17, 24, 25, 31, 32, 40 };
		int wok = 0;
		for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++) {
			memcpy(work, arc, asize);
			work[11] = (uint8_t)wl[i];
			tu_fix_header(work);
			wok += capped_window(work, asize, src, n, wl[i]);
		}
		printf("window claims: %d of %d handled within the memory cap\n", wok,
		       (int)(sizeof(wl) / sizeof(wl[0])));
	}
	free(src);
	free(arc);
	free(work);
}

/* Peak RSS of a child that decodes arc with the given threads, in bytes. */
static long peak_decode_rss(const uint8_t *arc, size_t asize, size_t n, int threads)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (n == 0)
			_exit(0);  /* the baseline */
		uint8_t *out = malloc(n);
		size_t got = 0;
		wlz_dctx *d = wlz_dctx_create(threads);
		if (!out || !d || wlz_decompress(d, out, n, arc, asize, &got) != WLZ_OK || got != n)
			_exit(1);
		wlz_dctx_free(d);
		free(out);
		_exit(0);
	}
	int status = 0;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return ru.ru_maxrss * 1024L;
}

static void decode_memory(uint64_t seed)
{
	if (TL_SANITIZED) {
		printf("decode memory: skipped under a sanitizer (RSS includes shadow memory)\n");
		return;
	}
	size_t n = 48u << 20, cap = wlz_compress_bound(n), asize = 0;
	uint8_t *src = tu_xmalloc(n), *arc = tu_xmalloc(cap);
	tu_fill(TU_FASTQ, src, n, seed);
	wlz_options opt;
	wlz_options_init(&opt);
	opt.level = 1;
	wlz_cctx *c = wlz_cctx_create(&opt);
	TU_CHECK(c && wlz_compress(c, arc, cap, src, n, &asize) == WLZ_OK, "compress");
	wlz_cctx_free(c);
	free(src);
	/* The parent's pages are shared with the child until written, and
	 * ru_maxrss counts them: measure the baseline, a child doing nothing. */
	long base = peak_decode_rss(arc, asize, 0, 1);
	for (int threads = 1; threads <= 4; threads *= 4) {
		long peak = peak_decode_rss(arc, asize, n, threads);
		TU_CHECK(peak > 0, "T=%d: decode failed", threads);
		if (peak <= 0)
			continue;
		/* README: archive + output + about 0.5 MiB per thread + 64 B a
		 * block; allowed here: 2 MiB per thread and 8 MiB overall. */
		long extra = peak - base - (long)n;
		long allowed = threads * (2L << 20) + (8L << 20);
		printf("decode memory, T=%d: peak RSS %.1f MiB = baseline %.1f (archive %.1f inside) + output "
		       "%.1f + %.2f MiB (allowed %.1f)\n", threads, peak / 1048576.0, base / 1048576.0,
		       asize / 1048576.0, n / 1048576.0, extra / 1048576.0, allowed / 1048576.0);
		TU_CHECK(extra <= allowed, "T=%d: decoding used %.1f MiB beyond its output, allowed %.1f",
			 threads, extra / 1048576.0, allowed / 1048576.0);
	}
	free(arc);
}

/* Peak RSS of a child that streams: mode 0 does nothing (the baseline),
 * 1 decodes arc through wlz_decompress_stream (limit: the window), 2
 * compresses src[0..n) through wlz_compress_stream with opt.  The child
 * checks what it wrote (content or archive: size and FNV-1a) against want
 * and exits nonzero if it differs. */
static long peak_stream_rss(int mode, const uint8_t *in, size_t in_n, const wlz_options *opt, int threads,
			    uint64_t want_n, uint64_t want_h)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		tu_memrd rd = { in, in_n, 0, PIECES };
		counter c = { 0, 0xCBF29CE484222325ull };
		wlz_error e = WLZ_OK;
		if (mode == 0)
			_exit(0);
		if (mode == 1) {
			wlz_dctx *d = wlz_dctx_create(threads);
			if (!d)
				_exit(2);
			e = wlz_decompress_stream(d, tu_mem_read, &rd, count_write, &c, NULL);
			wlz_dctx_free(d);
		} else {
			wlz_cctx *cc = wlz_cctx_create(opt);
			if (!cc)
				_exit(2);
			e = wlz_compress_stream(cc, tu_mem_read, &rd, count_write, &c, in_n);
			wlz_cctx_free(cc);
		}
		_exit(e != WLZ_OK ? 3 : c.n != want_n || c.h != want_h ? 4 : 0);
	}
	int status = 0;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		TU_CHECK(0, "stream child (mode %d): %s %d", mode, WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	return ru.ru_maxrss * 1024L;
}

/* 48 MiB of FASTQ with a 4 MiB window and 256 KiB blocks: the stream
 * decoder holds the window and the blocks in flight, not the content; the
 * stream encoder stays under what wlz_compress_memory() says, whatever the
 * input's size, and writes the bytes of wlz_compress. */
static void stream_memory(uint64_t seed)
{
	if (TL_SANITIZED) {
		printf("stream memory: skipped under a sanitizer (RSS includes shadow memory)\n");
		return;
	}
	size_t n = 48u << 20, cap = wlz_compress_bound(n), asize = 0;
	uint8_t *src = tu_xmalloc(n), *arc = tu_xmalloc(cap);
	tu_fill(TU_FASTQ, src, n, seed + 1);
	wlz_options opt;
	wlz_options_init(&opt);
	opt.level = 1;
	opt.block_log = 18;
	opt.window_log = 22;
	opt.threads = 2;
	opt.parallel = 4;  /* the same gap (3 blocks) for 48 and 24 MiB */
	wlz_cctx *c = wlz_cctx_create(&opt);
	TU_CHECK(c && wlz_compress(c, arc, cap, src, n, &asize) == WLZ_OK, "compress");
	wlz_cctx_free(c);
	const uint64_t W = (uint64_t)1 << 22, B = (uint64_t)1 << 18;
	/* Touch every page of both buffers, so the baseline holds them. */
	const uint64_t src_h = fnv(src, n), arc_h = fnv(arc, asize);
	long base = peak_stream_rss(0, NULL, 0, NULL, 1, 0, 0);
	for (int threads = 1; threads <= 4; threads *= 4) {
		long peak = peak_stream_rss(1, arc, asize, NULL, threads, n, src_h);
		if (peak <= 0)
			continue;
		/* the ring (window + 4 blocks a thread, mapped twice), the
		 * batch's payloads, a block decoder a thread */
		const long ring = (long)(2 * (W + 4 * (uint64_t)threads * B));
		long extra = peak - base, allowed = ring + threads * (4L << 20) + (8L << 20);
		printf("stream decode memory, T=%d: peak RSS %.1f MiB = baseline %.1f + %.2f MiB (allowed %.1f; "
		       "content %.0f MiB)\n", threads, peak / 1048576.0, base / 1048576.0, extra / 1048576.0,
		       allowed / 1048576.0, n / 1048576.0);
		TU_CHECK(extra <= allowed && extra < (long)n / 2,
			 "T=%d: the stream decoder used %.1f MiB, allowed %.1f (window 4 MiB)", threads,
			 extra / 1048576.0, allowed / 1048576.0);
	}
	{
		/* Half the input (its own archive for the check) must take
		 * about as much: the buffers are set by the window. */
		const uint64_t bound = wlz_compress_memory(&opt);
		size_t hsize = 0;
		uint8_t *harc = tu_xmalloc(wlz_compress_bound(n / 2));
		c = wlz_cctx_create(&opt);
		TU_CHECK(c && wlz_compress(c, harc, wlz_compress_bound(n / 2), src, n / 2, &hsize) == WLZ_OK,
			 "compress half");
		wlz_cctx_free(c);
		const uint64_t harc_h = fnv(harc, hsize);
		free(harc);
		long peak = peak_stream_rss(2, src, n, &opt, 2, asize, arc_h);
		long half = peak_stream_rss(2, src, n / 2, &opt, 2, hsize, harc_h);
		if (peak > 0 && half > 0) {
			long extra = peak - base;
			printf("stream encode memory, T=2: %.2f MiB over the baseline (%.2f for half the input), "
			       "wlz_compress_memory says %.2f MiB (content %.0f MiB)\n", extra / 1048576.0,
			       (half - base) / 1048576.0, bound / 1048576.0, n / 1048576.0);
			TU_CHECK(extra <= (long)bound + (4L << 20), "the stream encoder used %.1f MiB, "
				 "wlz_compress_memory() says %.1f", extra / 1048576.0, bound / 1048576.0);
			TU_CHECK(peak <= half + (4L << 20), "the stream encoder's memory grows with the input: "
				 "%.1f MiB for 48 MiB, %.1f for 24", (peak - base) / 1048576.0, (half - base) / 1048576.0);
		}
	}
	free(src);
	free(arc);
}

int main(void)
{
	uint64_t seed = tu_seed(99);
	hostile_claims(seed);
	decode_memory(seed);
	stream_memory(seed);
	return tu_finish("test_limits");
}
