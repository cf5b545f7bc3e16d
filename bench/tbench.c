/*
 * tbench.c - decode throughput against thread count, all codecs in one run.
 *
 * For each file: wavelz (one archive, T threads), zstd -3 as one frame (one
 * thread), zstd -3 in independent 1 MiB frames decoded by T threads (what
 * pzstd and seekable zstd do), lz4 (default acceleration) in independent
 * 1 MiB blocks by T threads, and memcpy by T threads.  Every decoder writes
 * into the same pre-faulted buffer (on 2 MiB pages where the kernel allows,
 * as the CLI's); every output is compared with the input once.  The runs go
 * in rounds, every codec and thread count once per round, so that a slow
 * spell of a shared machine hits all alike; the figure is the best of -r
 * rounds after a warm-up round.  zstd also runs with its XXH64 content
 * checksum ("+ck", as the zstd CLI writes frames); wavelz always checks its
 * XXH3 checksums.  Prints CSV:
 *   file,codec,threads,ratio_pct,gbps
 *
 * usage: tbench [-T 1,2,4] [-r 5] [-l 3] [-w a.wlz[,b.wlz]] [-W] [-I N] FILE...
 *   -w: decode this archive (of FILE) instead of compressing FILE again;
 *       several, comma-separated, run side by side in the same rounds as
 *       rows "wavelz@NAME" (archives of one file made different ways).
 *   -W: wavelz only (for profiling).
 *   -I N: also N independent single-threaded wavelz decodes of the (first)
 *         archive at once, each into its own buffer (what the hardware
 *         allows without any coordination between threads).
 */
#define _GNU_SOURCE
#include <lz4.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#include "fileio.h"
#include "wavelz.h"

#define FRAME ((size_t)1 << 20)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Output buffers as the CLI allocates them (on 2 MiB pages where the
 * kernel allows); fair to every codec, since all share the buffer. */
static void *xmalloc_huge(size_t n)
{
	void *p = fio_alloc_large(n);
	if (!p) {
		fprintf(stderr, "tbench: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "tbench: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = xmalloc((size_t)sz);
	if (fread(p, 1, (size_t)sz, f) != (size_t)sz) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*n = (size_t)sz;
	return p;
}

/* zstd -3; ck: with the content checksum (XXH64) that the zstd CLI writes
 * and checks by default. */
static size_t zstd3(void *dst, size_t cap, const void *src, size_t n, int ck)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, ck);
	size_t c = ZSTD_compress2(cc, dst, cap, src, n);
	ZSTD_freeCCtx(cc);
	return ZSTD_isError(c) ? 0 : c;
}

/* Independent frames: compressed bytes of frame i at data + off[i]. */
typedef struct frames {
	uint8_t *data;
	size_t *off, *len;
	size_t count, total;
} frames;

static frames make_frames(const uint8_t *src, size_t n, int lz4, int ck)
{
	frames fr;
	fr.count = (n + FRAME - 1) / FRAME;
	size_t bound = lz4 ? (size_t)LZ4_compressBound((int)FRAME) : ZSTD_compressBound(FRAME);
	fr.data = xmalloc(bound * fr.count);
	fr.off = xmalloc(sizeof(size_t) * (fr.count + 1));
	fr.len = xmalloc(sizeof(size_t) * (fr.count + 1));
	size_t at = 0;
	for (size_t i = 0; i < fr.count; i++) {
		size_t len = i + 1 == fr.count ? n - i * FRAME : FRAME;
		size_t c;
		if (lz4)
			c = (size_t)LZ4_compress_default((const char *)src + i * FRAME, (char *)fr.data + at,
							 (int)len, (int)bound);
		else
			c = zstd3(fr.data + at, bound, src + i * FRAME, len, ck);
		if (!c) {
			fprintf(stderr, "tbench: frame compression failed\n");
			exit(2);
		}
		fr.off[i] = at;
		fr.len[i] = c;
		at += c;
	}
	fr.total = at;
	return fr;
}

typedef struct run {
	const char *codec;
	int threads;
	/* frames */
	const frames *fr;
	int lz4;
	ZSTD_DCtx **dz;  /* one per thread, made before timing (wavelz reuses its own too) */
	_Atomic size_t next;
	/* memcpy */
	const uint8_t *src;
	/* output */
	uint8_t *dst;
	size_t n;
	_Atomic int failed;
} run;

typedef struct targ {
	run *r;
	int id;
} targ;

static void *frames_worker(void *p)
{
	targ *a = p;
	run *r = a->r;
	ZSTD_DCtx *dz = r->lz4 ? NULL : r->dz[a->id];
	for (;;) {
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->fr->count)
			break;
		size_t len = i + 1 == r->fr->count ? r->n - i * FRAME : FRAME;
		const uint8_t *in = r->fr->data + r->fr->off[i];
		size_t got;
		if (r->lz4) {
			int g = LZ4_decompress_safe((const char *)in, (char *)r->dst + i * FRAME, (int)r->fr->len[i],
						    (int)len);
			got = g < 0 ? 0 : (size_t)g;
		} else {
			got = ZSTD_decompressDCtx(dz, r->dst + i * FRAME, len, in, r->fr->len[i]);
		}
		if (got != len)
			atomic_store(&r->failed, 1);
	}
	return NULL;
}

static void *memcpy_worker(void *p)
{
	targ *a = p;
	run *r = a->r;
	size_t per = (r->n / (size_t)r->threads + 4095) & ~(size_t)4095;
	size_t lo = per * (size_t)a->id, hi = lo + per > r->n ? r->n : lo + per;
	if (lo < hi)
		memcpy(r->dst + lo, r->src + lo, hi - lo);
	return NULL;
}

static double timed_threads(run *r, void *(*fn)(void *))
{
	pthread_t tid[256];
	targ args[256];
	atomic_store(&r->next, 0);
	double t0 = now();
	for (int t = 1; t < r->threads; t++) {
		args[t] = (targ){ r, t };
		pthread_create(&tid[t], NULL, fn, &args[t]);
	}
	args[0] = (targ){ r, 0 };
	fn(&args[0]);
	for (int t = 1; t < r->threads; t++)
		pthread_join(tid[t], NULL);
	return now() - t0;
}

typedef struct indep_arg {
	const uint8_t *arc;
	size_t asize, n;
	uint8_t *dst;
	int reps, failed;
} indep_arg;

static void *indep_worker(void *p)
{
	indep_arg *a = p;
	wlz_dctx *dc = wlz_dctx_create(1);
	for (int r = 0; r < a->reps; r++) {
		size_t got = 0;
		if (!dc || wlz_decompress(dc, a->dst, a->n, a->arc, a->asize, &got) != WLZ_OK || got != a->n)
			a->failed = 1;
	}
	wlz_dctx_free(dc);
	return NULL;
}

static void report(const char *file, const char *codec, int threads, size_t csize, size_t n, double best);

/* N single-threaded decodes of the same archive at once: aggregate GB/s. */
static void run_indep(const char *name, const uint8_t *arc, size_t asize, const uint8_t *src, size_t n, int nth,
		      int reps)
{
	indep_arg *a = xmalloc(sizeof(*a) * (size_t)nth);
	pthread_t *tid = xmalloc(sizeof(*tid) * (size_t)nth);
	for (int t = 0; t < nth; t++) {
		a[t] = (indep_arg){ arc, asize, n, xmalloc_huge(n), reps > 0 ? reps : 1, 0 };
		memset(a[t].dst, 0, n);
	}
	double t0 = now();
	for (int t = 0; t < nth; t++)
		pthread_create(&tid[t], NULL, indep_worker, &a[t]);
	for (int t = 0; t < nth; t++)
		pthread_join(tid[t], NULL);
	double dt = now() - t0;
	for (int t = 0; t < nth; t++) {
		if (a[t].failed || memcmp(a[t].dst, src, n)) {
			fprintf(stderr, "tbench: independent decode failed\n");
			exit(1);
		}
		free(a[t].dst);
	}
	/* report() divides n by the time: give it the time per archive. */
	report(name, "wavelz-indep", nth, asize, n, dt / ((double)nth * a[0].reps));
	free(a);
	free(tid);
}

static void report(const char *file, const char *codec, int threads, size_t csize, size_t n, double best)
{
	printf("%s,%s,%d,%.2f,%.3f\n", file, codec, threads, n ? 100.0 * (double)csize / (double)n : 0,
	       (double)n / best / 1e9);
	fflush(stdout);
}

static void check(const char *what, const uint8_t *a, const uint8_t *b, size_t n, int failed)
{
	if (failed || memcmp(a, b, n) != 0) {
		fprintf(stderr, "tbench: %s: decoded bytes differ\n", what);
		exit(1);
	}
}

/* One measurement: a codec at a thread count. */
enum { M_WLZ, M_ZSTD, M_FRAMES, M_MEMCPY };
typedef struct meas {
	int kind;
	const char *codec;
	int threads;
	size_t csize;
	const uint8_t *arc;  /* M_WLZ */
	wlz_dctx *dc;
	const uint8_t *z;    /* M_ZSTD */
	const frames *fr;    /* M_FRAMES */
	int lz4;
	double best;
} meas;

/* Runs m once into dst; returns the seconds.  check: compare with src. */
static double run_meas(meas *m, const uint8_t *src, uint8_t *dst, size_t n, int check_it,
		       ZSTD_DCtx **fdz)
{
	/* A checked run starts from bytes no codec writes, so that one that
	 * left some unwritten cannot pass on the previous codec's output. */
	if (check_it)
		memset(dst, 0xA5, n);
	double t0 = now(), t;
	int failed = 0;
	if (m->kind == M_WLZ) {
		size_t got = 0;
		wlz_error e = wlz_decompress(m->dc, dst, n, m->arc, m->csize, &got);
		t = now() - t0;
		if (e != WLZ_OK || got != n) {
			fprintf(stderr, "tbench: wavelz: %s\n", wlz_error_name(e));
			exit(1);
		}
	} else if (m->kind == M_ZSTD) {
		size_t got = ZSTD_decompressDCtx(fdz[0], dst, n, m->z, m->csize);
		t = now() - t0;
		failed = got != n;
	} else {
		run r = { .codec = m->codec, .threads = m->threads, .fr = m->fr, .lz4 = m->lz4, .dz = fdz,
			  .src = src, .dst = dst, .n = n };
		atomic_init(&r.failed, 0);
		t = timed_threads(&r, m->kind == M_FRAMES ? frames_worker : memcpy_worker);
		failed = atomic_load(&r.failed);
	}
	if (check_it)
		check(m->codec, src, dst, n, failed);
	return t;
}

int main(int argc, char **argv)
{
	int tlist[32] = { 1, 2, 4 }, nt = 3, reps = 5, level = 3;
	char *wlz_paths = NULL;
	int only_wlz = 0, indep = 0;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-T") && i + 1 < argc) {
			nt = 0;
			for (char *s = strtok(argv[++i], ","); s && nt < 32; s = strtok(NULL, ","))
				tlist[nt++] = atoi(s);
		} else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-l") && i + 1 < argc) {
			level = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-I") && i + 1 < argc) {
			indep = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-W")) {
			only_wlz = 1;
		} else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
			wlz_paths = argv[++i];
		} else {
			fprintf(stderr, "usage: tbench [-T 1,2,4] [-r 5] [-l 3] [-w a.wlz[,b.wlz]] [-W] [-I N] FILE...\n");
			return 2;
		}
	}
	for (int k = 0; k < nt; k++)
		if (tlist[k] < 1 || tlist[k] > 256) {
			fprintf(stderr, "tbench: threads must be 1..256\n");
			return 2;
		}
	ZSTD_DCtx *fdz[256] = { NULL };
	for (int k = 0; k < nt; k++)
		for (int t = 0; t < tlist[k]; t++)
			if (!fdz[t])
				fdz[t] = ZSTD_createDCtx();
	printf("file,codec,threads,ratio_pct,gbps\n");
	for (; i < argc; i++) {
		size_t n;
		uint8_t *src = read_file(argv[i], &n);
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		uint8_t *dst = xmalloc_huge(n);
		memset(dst, 0, n);  /* fault the pages in once, for every codec */

		/* wavelz: one archive, or the ones given */
		enum { MAXARC = 8 };
		uint8_t *arcs[MAXARC];
		size_t asizes[MAXARC];
		char label[MAXARC][64];
		int narc = 0;
		if (wlz_paths) {
			char *list = strdup(wlz_paths), *save = NULL;
			if (!list) {
				fprintf(stderr, "tbench: out of memory\n");
				return 2;
			}
			for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
				if (narc == MAXARC) {
					fprintf(stderr, "tbench: at most %d archives\n", (int)MAXARC);
					return 2;
				}
				const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
				arcs[narc] = read_file(p, &asizes[narc]);
				snprintf(label[narc], sizeof label[narc], "wavelz@%s", base);
				narc++;
			}
			free(list);
			if (narc == 0) {
				fprintf(stderr, "tbench: -w names no archive\n");
				return 2;
			}
			if (narc == 1)
				strcpy(label[0], "wavelz");
		} else {
			uint8_t *arc;
			size_t asize;
			wlz_options opt;
			wlz_options_init(&opt);
			opt.level = level;
			wlz_cctx *cc = wlz_cctx_create(&opt);
			size_t cap = wlz_compress_bound(n);
			arc = xmalloc(cap);
			if (!cc || wlz_compress(cc, arc, cap, src, n, &asize) != WLZ_OK) {
				fprintf(stderr, "tbench: wavelz compression failed\n");
				return 1;
			}
			wlz_cctx_free(cc);
			arcs[0] = arc;
			asizes[0] = asize;
			strcpy(label[0], "wavelz");
			narc = 1;
		}
		meas m[32 * (MAXARC + 6)];
		int nm = 0;
		for (int k = 0; k < nt; k++)
			for (int a = 0; a < narc; a++)
				m[nm++] = (meas){ .kind = M_WLZ, .codec = label[a], .threads = tlist[k],
						  .csize = asizes[a], .arc = arcs[a], .dc = wlz_dctx_create(tlist[k]) };
		frames fr[3];
		uint8_t *z[2] = { NULL, NULL };
		if (!only_wlz) {
			/* zstd -3, one frame, one thread: as the library writes it (no
			 * checksum) and as the CLI does (XXH64 checked on decode). */
			for (int ck = 0; ck < 2; ck++) {
				size_t cap = ZSTD_compressBound(n);
				z[ck] = xmalloc(cap);
				size_t zs = zstd3(z[ck], cap, src, n, ck);
				if (!zs) {
					fprintf(stderr, "tbench: zstd compression failed\n");
					return 1;
				}
				m[nm++] = (meas){ .kind = M_ZSTD, .codec = ck ? "zstd-3+ck" : "zstd-3", .threads = 1,
						  .csize = zs, .z = z[ck] };
			}
			/* independent 1 MiB frames: zstd -3 (without and with checksums)
			 * and lz4 */
			static const char *const fname[3] = { "zstd-3-1MiB", "zstd-3-1MiB+ck", "lz4-1MiB" };
			for (int f = 0; f < 3; f++) {
				fr[f] = make_frames(src, n, f == 2, f == 1);
				for (int k = 0; k < nt; k++)
					m[nm++] = (meas){ .kind = M_FRAMES, .codec = fname[f], .threads = tlist[k],
							  .csize = fr[f].total, .fr = &fr[f], .lz4 = f == 2 };
			}
			for (int k = 0; k < nt; k++)
				m[nm++] = (meas){ .kind = M_MEMCPY, .codec = "memcpy", .threads = tlist[k], .csize = n };
		}
		/* Rounds: every measurement once per round, so that a slow spell of
		 * the machine hits every codec alike; round 0 warms up and checks. */
		for (int k = 0; k < nm; k++)
			m[k].best = 1e30;
		for (int r = 0; r <= reps; r++)
			for (int k = 0; k < nm; k++) {
				double t = run_meas(&m[k], src, dst, n, r == 0, fdz);
				if (r > 0 && t < m[k].best)
					m[k].best = t;
			}
		for (int k = 0; k < nm; k++) {
			report(name, m[k].codec, m[k].threads, m[k].csize, n, m[k].best);
			wlz_dctx_free(m[k].dc);
		}
		if (indep > 0)
			run_indep(name, arcs[0], asizes[0], src, n, indep, reps);
		for (int a = 0; a < narc; a++)
			free(arcs[a]);
		for (int f = 0; f < 3 && !only_wlz; f++) {
			free(fr[f].data);
			free(fr[f].off);
			free(fr[f].len);
		}
		free(z[0]);
		free(z[1]);
		free(src);
		free(dst);
	}
	for (int t = 0; t < 256; t++)
		ZSTD_freeDCtx(fdz[t]);
	return 0;
}
