/*
 * test_limits.c - resource limits of decoding (issue 5).
 *
 *  1. Hostile size claims: headers that claim up to 2^56 bytes of content
 *     and up to 2^40 blocks (header checksum right) that the archive's
 *     index cannot back.  Every entry point must reject them, from a child
 *     process whose address space is capped at 64 MiB above what it uses at
 *     the start, so that any allocation sized by a claim fails the test.
 *     (A claim the index does back may be true: a few bytes of zstd stream
 *     can decode to a whole block.  wlz_decompress then needs only the
 *     caller's buffer; wlz_get_stats needs the content size by contract.)
 *  2. Peak memory of a real decode, in a child process, at 1 and 4 threads:
 *     peak RSS - (archive + output) must stay under a constant per thread
 *     (README: "Memory").  Skipped under sanitizers, whose shadow memory
 *     makes RSS meaningless.
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

static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Rewrites the header's sizes of a valid archive and fixes its checksum. */
static void claim(uint8_t *arc, uint64_t content_size, unsigned block_log, uint64_t block_count)
{
	arc[8] = (uint8_t)block_log;
	wr64(arc + 16, content_size);
	wr64(arc + 24, block_count);
	wr64(arc + 40, tu_xxh3(arc, 40));
}

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

/* In a child capped at 64 MiB more address space: every entry point on
 * the archive must fail without crashing.  Returns the child's verdict. */
static int capped_reject(const uint8_t *arc, size_t asize, const char *what)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (!TL_SANITIZED) {
			uint64_t now = vm_size();
			struct rlimit rl = { now + (64u << 20), now + (64u << 20) };
			if (now && setrlimit(RLIMIT_AS, &rl) != 0)
				_exit(3);
		}
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
		/* Rejected as malformed: not accepted, and not WLZ_ERR_NOMEM,
		 * which would mean an allocation sized by the claim was tried
		 * (and failed only thanks to the cap). */
#define REJECTED(e) ((e) != WLZ_OK && (e) != WLZ_ERR_NOMEM)
		int bad = 0;
		bad |= !REJECTED(wlz_get_info(arc, asize, &info));
		bad |= !REJECTED(wlz_get_stats(arc, asize, st)) << 1;
		bad |= !REJECTED(wlz_decompress(d, out, sizeof(out), arc, asize, &got)) << 2;
		/* A caller that believes the claim offers a huge (unbacked)
		 * buffer: the decoder must still not touch or allocate it. */
		bad |= !REJECTED(wlz_decompress(d, out, SIZE_MAX, arc, asize, &got)) << 3;
		(void)wlz_get_content_size(arc, asize, &cs); /* the header alone: may pass */
		wlz_dctx_free(d);
		free(st);
		_exit(bad ? 16 + bad : 0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		TU_CHECK(0, "%s: cannot run the child", what);
		return 0;
	}
	TU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child %s %d", what,
		 WIFEXITED(status) ? "exited" : "died of signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
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
	static const struct {
		uint64_t content;
		unsigned block_log;
		uint64_t blocks;     /* 0: the count the content needs */
		const char *what;
	} cl[] = {
		{ (uint64_t)1 << 56, 16, 0, "2^56 bytes in 2^40 blocks" },
		{ (uint64_t)1 << 56, 26, 0, "2^56 bytes in 2^30 blocks of 64 MiB" },
		{ (uint64_t)1 << 40, 26, 0, "1 TiB in 16384 blocks" },
		{ (uint64_t)1 << 32, 16, 0, "4 GiB in 65536 blocks" },
		{ 3ull << 26, 26, 0, "192 MiB in 3 blocks of 64 MiB" },
		{ (uint64_t)1 << 56, 16, 2, "2^56 bytes in 2 blocks" },
		{ ((uint64_t)1 << 56) + 1, 26, 0, "2^56 + 1 bytes" },
		{ UINT64_MAX, 26, UINT64_MAX, "2^64 - 1 bytes and blocks" },
	};
	int ok = 0, total = 0;
	for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
		memcpy(work, arc, asize);
		uint64_t nb = cl[i].blocks;
		if (!nb)
			nb = (cl[i].content + ((uint64_t)1 << cl[i].block_log) - 1) >> cl[i].block_log;
		claim(work, cl[i].content, cl[i].block_log, nb);
		ok += capped_reject(work, asize, cl[i].what);
		total++;
	}
	printf("hostile size claims: %d of %d rejected within the memory cap%s\n", ok, total,
	       TL_SANITIZED ? " (cap off under sanitizers)" : "");
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

int main(void)
{
	uint64_t seed = tu_seed(99);
	hostile_claims(seed);
	decode_memory(seed);
	return tu_finish("test_limits");
}
