/*
 * wavelz.c - the wavelz command line: compress, decompress, test and list
 * .wlz archives, with the conventions of zstd's command line.
 *
 * Every file is processed whole in memory: the input is loaded, the result
 * is built and verified, and only then written (see fileio.c for how output
 * files appear atomically).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <ctype.h>
#include <errno.h>
#include <sys/resource.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wavelz.h"
#ifdef WLZ_HAVE_GPU
#include "wavelz_gpu.h"
#endif
#include "fileio.h"

#define PROGRAM "wavelz"
#define SUFFIX ".wlz"
#define WLZ_CLI_MAX_GPUS 16
#define STDIN_DISPLAY "*stdin*"
#define STDOUT_DISPLAY "*stdout*"

/* Below this size a job ends too quickly for a progress line to help. */
#define PROGRESS_MIN_SIZE ((uint64_t)16 << 20)
#define PROGRESS_INTERVAL 0.1   /* seconds between progress updates */
#define PROGRESS_NAME_MAX 40    /* keep the line on one terminal row */

/* 0: silent, 1: errors only, 2: results (default), 3+: verbose. */
static int g_verbosity = 2;

#define DISPLAY(...) fprintf(stderr, __VA_ARGS__)
#define DISPLAYLEVEL(l, ...) \
	do { if (g_verbosity >= (l)) DISPLAY(__VA_ARGS__); } while (0)

enum op { OP_COMPRESS, OP_DECOMPRESS, OP_TEST, OP_LIST };

struct prefs {
	enum op op;
	int level;
	int threads;
	unsigned block_log;
	int depth;
	int flatten;
	int parallel;
	unsigned window_log;    /* --long / --window; 0 = the level's */
	int streams;            /* --streams: WLZ_STREAMS_* */
	unsigned long long memory; /* --memory; 0 = the library's default */
	int to_stdout;
	const char *out_name;   /* -o */
	int force;
	int remove_src;         /* --rm */
	int recursive;          /* -r: directories' files */
	int progress;           /* -1 auto, 0 off, 1 on */
	int gpu;                /* --gpu[=LIST]: 1 on GPUs, -1 on the CPU */
	int ngpu;               /* GPUs listed (0: every visible one) */
	int gpus[WLZ_CLI_MAX_GPUS];
	int depth_given;        /* --depth was given */
	unsigned symbol;        /* --symbol: GPU compression's element size */
};

struct progress {
	const char *name;
	int on;                 /* show updates for the current file */
	int shown;              /* a line is on screen */
	int width;              /* its length, to blank it */
	double last;
	double start;
};

struct job {
	const struct prefs *p;
	wlz_cctx *cctx;
	wlz_dctx *dctx;
#ifdef WLZ_HAVE_GPU
	wlz_gdctx *gctx;        /* the first GPU's: one archive at a time */
	wlz_gdctx *gctxs[WLZ_CLI_MAX_GPUS]; /* every GPU's: batches */
	int ngctx;
	wlz_gcctx *gcc;         /* compression on the GPU */
#endif
	int progress_ok;        /* may progress be shown at all */
	struct progress prog;
	/* totals for the closing summary */
	unsigned files_ok;
	uint64_t total_in;
	uint64_t total_out;
};

/* ------------------------------------------------------------ formatting */

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "155 MiB", "42.5 MiB", "3.14 KiB": three significant digits, like zstd.
 * Integer arithmetic keeps the width provably small. */
static const char *human_size(char *buf, size_t cap, uint64_t v)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	unsigned u = 0, whole, frac, prec, scale, sub;

	while (u < 6 && v >> (10 * u) >= 1024)
		u++;
	if (u == 0) {
		snprintf(buf, cap, "%u B", (unsigned)v);
		return buf;
	}
	whole = (unsigned)(v >> (10 * u));              /* 1..1023 */
	sub = (unsigned)((v >> (10 * u - 10)) & 1023);  /* 1024ths */
	prec = whole >= 100 ? 0 : whole >= 10 ? 1 : 2;
	scale = prec == 0 ? 1 : prec == 1 ? 10 : 100;
	frac = (sub * scale + 512) / 1024;
	if (frac == scale) {            /* rounding carried */
		whole++;
		frac = 0;
	}
	if (prec == 0)
		snprintf(buf, cap, "%u %s", whole % 10000, units[u]);
	else
		snprintf(buf, cap, "%u.%0*u %s", whole % 10000, (int)prec,
			 frac % 100, units[u]);
	return buf;
}

static const char *display_name(const char *path)
{
	return strcmp(path, FIO_STDIO_NAME) == 0 ? STDIN_DISPLAY : path;
}

static void file_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (g_verbosity < 1)
		return;
	fprintf(stderr, PROGRAM ": %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A library error: its category, then what exactly failed, if known. */
static void lib_error(const char *name, wlz_error e)
{
	const char *detail = wlz_error_detail();

	if (detail[0])
		file_error(name, "%s: %s", wlz_error_name(e), detail);
	else
		file_error(name, "%s", wlz_error_name(e));
}

/* -------------------------------------------------------------- progress */

static void progress_start(struct job *job, const char *name, uint64_t size)
{
	struct progress *pr = &job->prog;
	size_t len = strlen(name);

	/* Show the tail of long names: it is the part that differs. */
	pr->name = len > PROGRESS_NAME_MAX ?
		   name + len - PROGRESS_NAME_MAX : name;
	pr->shown = 0;
	pr->width = 0;
	pr->last = now_sec();   /* quick jobs never flash a line */
	pr->start = pr->last;
	pr->on = job->progress_ok &&
		 (job->p->progress == 1 || size >= PROGRESS_MIN_SIZE);
}

/* The library calls this from our own thread, so no locking is needed. */
static void progress_update(void *opaque, uint64_t done, uint64_t total)
{
	struct progress *pr = opaque;
	char a[16], b[16];
	double t;
	int n;

	if (!pr || !pr->on)
		return;
	t = now_sec();
	if (t - pr->last < PROGRESS_INTERVAL)
		return;
	pr->last = t;
	{
		char c[16], eta[32] = "";
		double rate = t > pr->start ? (double)done / (t - pr->start) : 0;
		if (total && rate > 0 && done <= total) {
			double left = (double)(total - done) / rate;
			snprintf(eta, sizeof(eta), ", %um%02us left", (unsigned)(left / 60),
				 (unsigned)left % 60);
		}
		if (total)
			n = fprintf(stderr, "\r%s: %3u%%  %s / %s  %s/s%s", pr->name,
				    (unsigned)((double)done * 100.0 / (double)total),
				    human_size(a, sizeof(a), done), human_size(b, sizeof(b), total),
				    human_size(c, sizeof(c), (uint64_t)rate), eta);
		else
			n = fprintf(stderr, "\r%s: %s  %s/s", pr->name, human_size(a, sizeof(a), done),
				    human_size(c, sizeof(c), (uint64_t)rate));
	}
	if (n > 0 && n < pr->width)
		fprintf(stderr, "%*s", pr->width - n, "");
	if (n > pr->width)
		pr->width = n;
	pr->shown = 1;
}

static void progress_end(struct job *job)
{
	struct progress *pr = &job->prog;

	if (pr->shown)
		fprintf(stderr, "\r%*s\r", pr->width, "");
	pr->shown = 0;
	pr->on = 0;
}

/* ------------------------------------------------------------- one file */

/* Where a file's output goes: NULL for stdout, else a name to free(). */
static int output_name(const struct prefs *p, const char *src, char **dst)
{
	size_t len;

	*dst = NULL;
	if (p->to_stdout)
		return 0;
	if (p->out_name) {
		if (strcmp(p->out_name, FIO_STDIO_NAME) == 0)
			return 0;
		*dst = strdup(p->out_name);
		return *dst ? 0 : ENOMEM;
	}
	if (strcmp(src, FIO_STDIO_NAME) == 0)
		return 0;
	len = strlen(src);
	if (p->op == OP_COMPRESS) {
		*dst = malloc(len + sizeof(SUFFIX));
		if (!*dst)
			return ENOMEM;
		memcpy(*dst, src, len);
		memcpy(*dst + len, SUFFIX, sizeof(SUFFIX));
		return 0;
	}
	/* Decompress: strip the suffix, refusing names it would empty. */
	if (len <= sizeof(SUFFIX) - 1 ||
	    strcmp(src + len - (sizeof(SUFFIX) - 1), SUFFIX) != 0 ||
	    src[len - sizeof(SUFFIX)] == '/')
		return EINVAL;
	*dst = strndup(src, len - (sizeof(SUFFIX) - 1));
	return *dst ? 0 : ENOMEM;
}

/* Load the source and open the destination, reporting failures. */
static int open_pair(const struct prefs *p, const char *src, const char *dst,
		     fio_input *in, fio_output *out)
{
	const char *name = display_name(src);
	int err;

	/* An existing output is a cheap check: do it before reading. */
	if (dst && !p->force && fio_exists(dst)) {
		file_error(dst, "already exists; not overwritten (use -f)");
		return 1;
	}
	unsigned long long size;
	err = fio_open_stream(in, src, &size);
	if (err) {
		file_error(name, "%s", fio_strerror(err));
		return 1;
	}
	err = fio_open(out, dst, p->force, in);
	if (err) {
		if (err == EEXIST)
			file_error(dst, "already exists; not overwritten "
				   "(use -f)");
		else
			file_error(dst ? dst : STDOUT_DISPLAY, "%s",
				   fio_strerror(err));
		fio_close_stream(in);
		return 1;
	}
	return 0;
}

/* Move the finished output into place, and honour --rm. */
static int finish_output(struct job *job, const char *src, const char *dst,
			 fio_input *in, fio_output *out)
{
	int direct = out->is_direct;
	int err;

	err = fio_commit(out, in, job->p->force);
	if (err) {
		if (err == EEXIST)
			file_error(dst, "appeared meanwhile; not overwritten "
				   "(use -f)");
		else
			file_error(dst, "%s", fio_strerror(err));
		return 1;
	}
	/* Only a source now safely stored in a regular file may go. */
	if (job->p->remove_src && dst && !direct && !in->is_stdin) {
		if (unlink(src) != 0) {
			file_error(src, "cannot remove: %s", strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Streaming callbacks: the library reads and writes through these. */
struct sink {
	fio_output *out;        /* NULL: count only (-t) */
	uint64_t n;
	int err;
};

static size_t read_cb(void *opaque, void *buf, size_t cap)
{
	return fio_read(opaque, buf, cap);
}

static size_t pread_cb(void *opaque, void *buf, size_t cap, uint64_t off)
{
	return fio_pread(opaque, buf, cap, off);
}

static int write_cb(void *opaque, const void *buf, size_t n)
{
	struct sink *sk = opaque;
	if (sk->out) {
		int err = fio_write(sk->out, buf, n);
		if (err) {
			sk->err = err;
			return 1;
		}
	}
	sk->n += n;
	return 0;
}

/* A file's (or, t0 < 0, a member's: no speed) one-line summary. */
static void summary(struct job *job, const char *name, const char *dst, uint64_t in_size, uint64_t out_size,
		    double t0, int compressing)
{
	char a[16], b[16], speed[32] = "";
	double dt = now_sec() - t0;
	uint64_t raw = compressing ? in_size : out_size, arc = compressing ? out_size : in_size;

	if (t0 >= 0)
		snprintf(speed, sizeof speed, " %.1f MB/s", dt > 0 ? (double)raw / dt / 1e6 : 0.0);
	DISPLAYLEVEL(2, "%-20s :%6.2f%%   (%6s => %6s, %s)%s\n", name,
		     (double)arc * 100.0 / (double)(raw ? raw : 1),
		     human_size(a, sizeof(a), in_size), human_size(b, sizeof(b), out_size),
		     dst ? dst : (compressing || job->p->op != OP_TEST ? STDOUT_DISPLAY : "OK"), speed);
}

/* A file done: counted, summed up and summarized. */
static void file_counted(struct job *job, const char *name, const char *dst, uint64_t in_size, uint64_t out_size,
			 double t0, int compressing)
{
	job->files_ok++;
	job->total_in += in_size;
	job->total_out += out_size;
	summary(job, name, dst, in_size, out_size, t0, compressing);
}

/* A file's output made: kept (finish_output), counted and summed up;
 * nonzero where keeping it failed (and was said). */
static int file_done(struct job *job, const char *src, const char *name, const char *dst, fio_input *in,
		     fio_output *out, const struct sink *sk, double t0, int compressing)
{
	if (finish_output(job, src, dst, in, out))
		return 1;
	file_counted(job, name, dst, in->nread_, sk->n, t0, compressing);
	return 0;
}

#ifdef WLZ_HAVE_GPU
static void read_pinned(const char *name, size_t (*rd)(void *, void *, size_t), void *opaque, size_t cap,
			uint8_t **buf, size_t *n);

/* --gpu: the whole input read into pinned memory, compressed on the GPU
 * (gpu_compress/), written at once.  WLZ_ERR_READ when the read failed
 * (and was said). */
static wlz_error compress_gpu(struct job *job, const char *name, fio_input *in, struct sink *sk)
{
	const struct prefs *p = job->p;
	uint8_t *src = NULL, *dst;
	size_t n = 0, an = 0;
	read_pinned(name, read_cb, in, in->size_ == ~0ull || in->size_ == 0 ? (size_t)1 << 20 : (size_t)in->size_ + 1,
		    &src, &n);
	if (!src)
		return WLZ_ERR_READ;
	wlz_gpu_copts o;
	wlz_gpu_copts_init(&o);
	if (p->depth_given)
		o.depth = p->depth;  /* unlimited (-1) is refused: the GPU writes a limit */
	o.block_log = p->block_log;
	o.symbol = p->symbol ? p->symbol : 1;
	const size_t cap = wlz_gpu_compress_bound(n);
	dst = wlz_gpu_host_alloc(cap);
	wlz_error e = dst ? wlz_gpu_compress(job->gcc, &o, dst, cap, src, n, &an) : WLZ_ERR_NOMEM;
	wlz_gpu_host_free(src);
	if (!e && write_cb(sk, dst, an))
		e = WLZ_ERR_WRITE;
	wlz_gpu_host_free(dst);
	return e;
}
#endif

static int compress_file(struct job *job, const char *src)
{
	const char *name = display_name(src);
	fio_input in;
	fio_output out;
	char *dst = NULL;
	struct sink sk = { &out, 0, 0 };
	double t0;
	wlz_error e;
	int ret = 1;

	if (output_name(job->p, src, &dst)) {
		file_error(name, "%s", strerror(ENOMEM));
		return 1;
	}
	if (open_pair(job->p, src, dst, &in, &out))
		goto free_name;

	t0 = now_sec();
#ifdef WLZ_HAVE_GPU
	if (job->gcc) {
		e = compress_gpu(job, name, &in, &sk);
		if (e == WLZ_ERR_READ)
			goto abort;  /* said */
	} else
#endif
	{
		progress_start(job, name, in.size_ == ~0ull ? 0 : in.size_);
		/* (a regular file: the workers read it, a piece each) */
		if (in.is_regular && in.size_ != ~0ull) {
			e = wlz_compress_pread(job->cctx, pread_cb, &in, (uint64_t)in.size_, write_cb, &sk);
			if (e == WLZ_OK)
				in.nread_ = in.size_;
		} else {
			e = wlz_compress_stream(job->cctx, read_cb, &in, write_cb, &sk,
						in.size_ == ~0ull ? UINT64_MAX : (uint64_t)in.size_);
		}
		progress_end(job);
	}
	if (e != WLZ_OK) {
		if (e == WLZ_ERR_WRITE && sk.err)
			file_error(dst ? dst : STDOUT_DISPLAY, "write error: %s", fio_strerror(sk.err));
		else if (e == WLZ_ERR_READ && strstr(wlz_error_detail(), "failed"))
			file_error(name, "read error: %s", strerror(in.read_errno ? in.read_errno : errno));
		else
			lib_error(name, e);
		goto abort;
	}
	ret = file_done(job, src, name, dst, &in, &out, &sk, t0, 1);
	goto unload;

abort:
	fio_abort(&out);
unload:
	fio_close_stream(&in);
free_name:
	free(dst);
	return ret;
}

/* A source whose first bytes were already read (to tell an archive from
 * other data, -dcf), given back before the rest. */
struct source {
	fio_input *in;
	unsigned char pre[4];
	size_t npre, at;
};

static size_t source_read(void *opaque, void *buf, size_t cap)
{
	struct source *so = opaque;
	if (so->at < so->npre) {
		size_t k = so->npre - so->at < cap ? so->npre - so->at : cap;
		memcpy(buf, so->pre + so->at, k);
		so->at += k;
		return k;
	}
	return fio_read(so->in, buf, cap);
}

#ifdef WLZ_HAVE_GPU
struct gpu_sink {
	struct job *job;
	struct sink *sk;
	uint64_t done, total;
};

/* The GPU decoder's pieces, checked, written in order. */
static int gpu_write(void *opaque, const void *buf, size_t n)
{
	struct gpu_sink *gs = opaque;
	if (write_cb(gs->sk, buf, n))
		return 1;
	gs->done += n;
	progress_update(&gs->job->prog, gs->done, gs->total);
	return 0;
}

/* Reads everything rd gives into pinned memory (the upload then runs at
 * full speed), starting from cap bytes; *buf NULL on an error, said. */
static void read_pinned(const char *name, size_t (*rd)(void *, void *, size_t), void *opaque, size_t cap,
			uint8_t **buf, size_t *n)
{
	uint8_t *b = wlz_gpu_host_alloc(cap);
	size_t k;
	*n = 0;
	for (;;) {
		if (b && *n == cap) {
			uint8_t *more = wlz_gpu_host_alloc(cap * 2);
			if (more)
				memcpy(more, b, *n);
			wlz_gpu_host_free(b);
			b = more;
			cap *= 2;
		}
		if (!b) {
			file_error(name, "cannot allocate %zu bytes of pinned memory", cap);
			break;
		}
		k = rd(opaque, b + *n, cap - *n);
		if (k == (size_t)-1) {
			file_error(name, "read error: %s", strerror(errno));
			break;
		}
		if (k == 0) {
			*buf = b;
			return;
		}
		*n += k;
	}
	wlz_gpu_host_free(b);
	*buf = NULL;
}

/* Content from which one archive is split over several GPUs: none by
 * default.  The split decodes the whole archive before writing any of it,
 * where one GPU writes each piece while decoding the next, so through the
 * CLI it measured slower end to end (bench/host/issue16-split.md);
 * WAVELZ_GPU_SPLIT_MIN (bytes) turns it on from that size. */
#define GPU_SPLIT_MIN UINT64_MAX

static uint64_t gpu_split_min(void)
{
	const char *s = getenv("WAVELZ_GPU_SPLIT_MIN");
	char *end;
	unsigned long long v;
	if (!s || !*s)
		return GPU_SPLIT_MIN;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || *end ? GPU_SPLIT_MIN : (uint64_t)v;
}

/* One archive of `total` bytes of content on every GPU given (up to
 * WLZ_GPU_SPLIT_MAX), each decoding its share of the blocks
 * (wlz_gpu_decompress_split), then written whole.  *done is 0 where the
 * split does not apply or cannot run (a GPU missing, no peer access or
 * virtual memory calls, memory short): the caller then decodes on one
 * GPU, which also handles archives larger than its memory. */
static wlz_error decode_split(struct job *job, const uint8_t *src, size_t n, uint64_t total, struct sink *sk,
			      int *done)
{
	const struct prefs *p = job->p;
	const int ng = p->ngpu < WLZ_GPU_SPLIT_MAX ? p->ngpu : WLZ_GPU_SPLIT_MAX;
	uint8_t *dst = NULL;
	size_t got = 0;
	wlz_error e;

	*done = 0;
	if (ng < 2 || total < gpu_split_min() || total > SIZE_MAX)
		return WLZ_OK;
	for (; job->ngctx < ng; job->ngctx++) {
		wlz_gdctx *g = wlz_gdctx_create(p->gpus[job->ngctx]);
		if (!g)
			return WLZ_OK;
		wlz_gdctx_set_memory_limit(g, p->memory);
		job->gctxs[job->ngctx] = g;
	}
	/* (a decode needs about three times its content on the GPUs: an
	 * archive that states more goes to the one-GPU path, which pins
	 * nothing for it and says why) */
	uint64_t mem = 0;
	for (int k = 0; k < ng; k++)
		mem += wlz_gdctx_memory(job->gctxs[k]);
	if (total > mem / 3)
		return WLZ_OK;
	if (sk->out && !(dst = wlz_gpu_host_alloc((size_t)total)))
		return WLZ_OK;
	e = wlz_gpu_decompress_split(job->gctxs, ng, dst, dst ? (size_t)total : 0, src, n, &got);
	if (e == WLZ_ERR_GPU || e == WLZ_ERR_NOMEM) {
		DISPLAYLEVEL(3, PROGRAM ": %d GPUs at once: %s; decoding on GPU %d\n", ng, wlz_error_detail(),
			     p->gpus[0]);
		wlz_gpu_host_free(dst);
		return WLZ_OK;
	}
	*done = 1;
	if (e == WLZ_OK && dst) {
		/* (in pieces, for the progress line) */
		struct gpu_sink gs = { job, sk, 0, total };
		const size_t piece = (size_t)64 << 20;
		for (size_t at = 0; at < got && e == WLZ_OK; at += piece)
			if (gpu_write(&gs, dst + at, got - at < piece ? got - at : piece))
				e = WLZ_ERR_WRITE;
	} else if (e == WLZ_OK)
		sk->n += got;
	wlz_gpu_host_free(dst);
	return e;
}

/* Decode the archive read from so (any bytes already read first) on the
 * GPU: read whole into pinned memory (the upload runs at full speed),
 * decoded piece by piece, each piece written once its checks held; -t
 * checks on the GPU and copies nothing back.  A large archive and several
 * GPUs: split over them (decode_split). */
static int decode_gpu(struct job *job, const char *name, struct source *so, uint64_t size_hint, struct sink *sk)
{
	size_t n = 0;
	uint8_t *src;
	uint64_t total = 0;
	wlz_error e;
	int ret = 1;

	read_pinned(name, source_read, so, size_hint != ~0ull ? (size_t)size_hint + 1 : (size_t)1 << 26, &src, &n);
	if (!src)
		return 1;
	e = wlz_get_content_size(src, n, &total);
	if (e == WLZ_OK) {
		struct gpu_sink gs = { job, sk, 0, total };
		int split = 0;
		progress_start(job, name, total);
		e = decode_split(job, src, n, total, sk, &split);
		if (split) {
			/* (decoded, or failed, on every GPU) */
		} else if (sk->out) {
			e = wlz_gpu_decompress_stream(job->gctx, src, n, gpu_write, &gs, NULL);
		} else {
			size_t got = 0;
			e = wlz_gpu_decompress(job->gctx, NULL, 0, src, n, &got);
			sk->n += got;
		}
		progress_end(job);
	}
	if (e == WLZ_ERR_WRITE && sk->err) {
		file_error(STDOUT_DISPLAY, "write error: %s", fio_strerror(sk->err));
		goto out;
	}
	if (e != WLZ_OK) {
		lib_error(name, e);
		goto out;
	}
	ret = 0;
out:
	wlz_gpu_host_free(src);
	return ret;
}
#endif

/* Decode the archive in from front to back into sk (a file, stdout, or
 * nothing for -t).  -dcf passes what is not an archive through, as zstd
 * does. */
static int decode_stream(struct job *job, const char *name, fio_input *in, struct sink *sk)
{
	static const unsigned char magic[4] = { 0x89, 'W', 'L', 'Z' };
	struct source so = { in, { 0 }, 0, 0 };
	wlz_error e;
	uint64_t got = 0;

	if (job->p->force && job->p->to_stdout && sk->out) {
		while (so.npre < 4) {
			size_t k = fio_read(in, so.pre + so.npre, 4 - so.npre);
			if (k == (size_t)-1) {
				file_error(name, "read error: %s", strerror(errno));
				return 1;
			}
			if (k == 0)
				break;
			so.npre += k;
		}
		if (so.npre < 4 || memcmp(so.pre, magic, 4) != 0) {
			unsigned char buf[1 << 16];
			size_t k;
			if (write_cb(sk, so.pre, so.npre))
				return 1;
			while ((k = fio_read(in, buf, sizeof(buf))) != 0 && k != (size_t)-1)
				if (write_cb(sk, buf, k))
					return 1;
			if (k == (size_t)-1)
				file_error(name, "read error: %s", strerror(errno));
			return k == (size_t)-1;
		}
	}
#ifdef WLZ_HAVE_GPU
	if (job->p->gpu >= 0)
		return decode_gpu(job, name, &so, in->size_, sk);
#endif
	progress_start(job, name, in->size_ == ~0ull ? 0 : in->size_);
	e = wlz_decompress_stream(job->dctx, source_read, &so, write_cb, sk, &got);
	progress_end(job);
	if (e != WLZ_OK) {
		if (e == WLZ_ERR_WRITE && sk->err)
			file_error(STDOUT_DISPLAY, "write error: %s", fio_strerror(sk->err));
		else if (e == WLZ_ERR_READ && strstr(wlz_error_detail(), "failed"))
			file_error(name, "read error: %s", strerror(errno));
		else
			lib_error(name, e);
		return 1;
	}
	return 0;
}

#ifdef WLZ_HAVE_GPU
/* Files that go to the GPUs as batches: several, each to a file of its
 * own (stdin and -c go one at a time, in order). */
static int batchable(const char **files, size_t nfiles, const struct prefs *p)
{
	if (nfiles < 2 || p->to_stdout)
		return 0;
	for (size_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i], "-"))
			return 0;
	return 1;
}

/* Archives read a batch, at most. */
#define GPU_BATCH_BYTES ((uint64_t)4 << 30)
#define GPU_BATCH_FILES 1024

struct bfile {
	const char *src;
	char *dst;
	fio_input in;
	fio_output out;
	struct sink sk;
	uint8_t *buf;
	size_t n;
	int has_out;
	double t0;
};

/* Called from the GPUs' threads, each file by one of them at a time. */
static int batch_write(void *opaque, size_t item, const void *buf, size_t n)
{
	struct bfile *b = opaque;
	return write_cb(&b[item].sk, buf, n);
}

/* Opens src (and its output, -d) and reads it whole into pinned memory. */
static int batch_open(struct job *job, const char *src, struct bfile *b)
{
	const char *name = display_name(src);
	unsigned long long size;
	int err;
	memset(b, 0, sizeof *b);
	b->src = src;
	b->t0 = now_sec();
	if (job->p->op == OP_TEST) {
		err = fio_open_stream(&b->in, src, &size);
		if (err) {
			file_error(name, "%s", fio_strerror(err));
			return 1;
		}
	} else {
		err = output_name(job->p, src, &b->dst);
		if (err) {
			file_error(name, err == EINVAL ? "unknown suffix (expected " SUFFIX "); use -o to name the output"
						       : "%s", strerror(err));
			return 1;
		}
		if (open_pair(job->p, src, b->dst, &b->in, &b->out)) {
			free(b->dst);
			return 1;
		}
		size = b->in.size_;
		b->has_out = 1;
		b->sk.out = &b->out;
	}
	read_pinned(name, read_cb, &b->in, size != ~0ull ? (size_t)size + 1 : (size_t)1 << 20, &b->buf, &b->n);
	if (b->buf)
		return 0;
	if (b->has_out)
		fio_abort(&b->out);
	fio_close_stream(&b->in);
	wlz_gpu_host_free(b->buf);
	free(b->dst);
	return 1;
}

/* Many archives decoded (-d) or tested (-t) on the GPUs as batches: each
 * batch one job spread over the GPUs, every archive judged alone, a bad
 * one reported and its output removed, the others kept. */
static int decode_batch_gpu(struct job *job, const char **files, size_t nfiles)
{
	struct bfile *b = calloc(GPU_BATCH_FILES, sizeof *b);
	wlz_gpu_item *it = calloc(GPU_BATCH_FILES, sizeof *it);
	int ret = 0;
	if (!b || !it) {
		DISPLAYLEVEL(1, PROGRAM ": %s\n", strerror(ENOMEM));
		free(b);
		free(it);
		return 1;
	}
	/* (each file holds its input and its output open until its batch
	 * ends: batches stay within the descriptors a process may open) */
	size_t most = GPU_BATCH_FILES;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 2 * most + 128)
		most = rl.rlim_cur > 160 ? (size_t)(rl.rlim_cur - 128) / 2 : 16;
	for (size_t i = 0; i < nfiles;) {
		size_t nb = 0;
		uint64_t bytes = 0;
		for (; i < nfiles && nb < most && bytes < GPU_BATCH_BYTES; i++) {
			if (batch_open(job, files[i], &b[nb])) {
				ret = 1;
				continue;
			}
			memset(&it[nb], 0, sizeof it[nb]);
			it[nb].src = b[nb].buf;
			it[nb].src_size = b[nb].n;
			it[nb].gpu = -1;
			bytes += b[nb++].n;
		}
		/* (each item's own verdict follows; the call's is the first) */
		wlz_gpu_decompress_batch_multi(job->gctxs, job->ngctx, it, nb, 0,
					       job->p->op == OP_TEST ? NULL : batch_write, b);
		for (size_t j = 0; j < nb; j++) {
			const char *name = display_name(b[j].src);
			if (it[j].err == WLZ_ERR_WRITE && b[j].sk.err) {
				file_error(b[j].dst, "write error: %s", fio_strerror(b[j].sk.err));
				ret = 1;
			} else if (it[j].err != WLZ_OK) {
				file_error(name, "%s: %s", wlz_error_name(it[j].err), it[j].detail);
				ret = 1;
			}
			if (it[j].err != WLZ_OK) {
				if (b[j].has_out)
					fio_abort(&b[j].out);
			} else if (b[j].has_out && b[j].sk.n != it[j].content_size) {
				file_error(name, "%" PRIu64 " of %" PRIu64 " bytes written", b[j].sk.n, it[j].content_size);
				fio_abort(&b[j].out);
				ret = 1;
			} else if (!b[j].has_out || !finish_output(job, b[j].src, b[j].dst, &b[j].in, &b[j].out)) {
				file_counted(job, name, b[j].dst, b[j].n, it[j].content_size, b[j].t0, 0);
			} else {
				ret = 1;
			}
			fio_close_stream(&b[j].in);
			wlz_gpu_host_free(b[j].buf);
			free(b[j].dst);
		}
	}
	free(b);
	free(it);
	return ret;
}
#endif

static int decompress_file(struct job *job, const char *src)
{
	const char *name = display_name(src);
	fio_input in;
	fio_output out;
	char *dst = NULL;
	struct sink sk = { &out, 0, 0 };
	double t0;
	int err, ret = 1;

	err = output_name(job->p, src, &dst);
	if (err == EINVAL) {
		file_error(name, "unknown suffix (expected " SUFFIX "); "
			   "use -o to name the output");
		return 1;
	}
	if (err) {
		file_error(name, "%s", strerror(err));
		return 1;
	}
	if (open_pair(job->p, src, dst, &in, &out))
		goto free_name;

	t0 = now_sec();
	if (decode_stream(job, name, &in, &sk))
		goto abort;
	ret = file_done(job, src, name, dst, &in, &out, &sk, t0, 0);
	goto unload;

abort:
	fio_abort(&out);
unload:
	fio_close_stream(&in);
free_name:
	free(dst);
	return ret;
}

/* The members of a concatenated archive, as the decoder judges them. */
struct members {
	uint64_t (*m)[2];       /* archive and content bytes of each */
	size_t n, cap;
};

static void on_member(void *opaque, unsigned k, uint64_t archive_bytes, uint64_t content_bytes)
{
	struct members *ms = opaque;
	(void)k;
	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? 2 * ms->cap : 8;
		uint64_t(*m)[2] = realloc(ms->m, cap * sizeof *m);
		if (!m)
			return;  /* (only the lines are lost) */
		ms->m = m;
		ms->cap = cap;
	}
	ms->m[ms->n][0] = archive_bytes;
	ms->m[ms->n][1] = content_bytes;
	ms->n++;
}

static int test_file(struct job *job, const char *src)
{
	const char *name = display_name(src);
	struct sink sk = { NULL, 0, 0 };
	struct members ms = { NULL, 0, 0 };
	unsigned long long size;
	fio_input in;
	double t0 = now_sec();
	int err;

	err = fio_open_stream(&in, src, &size);
	if (err) {
		file_error(name, "%s", fio_strerror(err));
		return 1;
	}
	wlz_dctx_set_member_fn(job->dctx, on_member, &ms);
	err = decode_stream(job, name, &in, &sk);
	wlz_dctx_set_member_fn(job->dctx, NULL, NULL);
	if (!err) {
		/* (concatenated archives: a line for each member, then the
		 * file's) */
		for (size_t k = 0; ms.n > 1 && k < ms.n; k++) {
			char label[64];
			snprintf(label, sizeof label, "%s (member %zu)", name, k + 1);
			summary(job, label, NULL, ms.m[k][0], ms.m[k][1], -1, 0);
		}
		file_counted(job, name, NULL, in.nread_, sk.n, t0, 0);
	}
	free(ms.m);
	fio_close_stream(&in);
	return err;
}

/* ----------------------------------------------------------------- list */

struct list_totals {
	unsigned files;
	uint64_t blocks, archive, content, tokens;
};

static void list_header(void)
{
	printf("%7s %7s %5s %5s %3s %11s %12s %7s %12s  %-16s  %s\n",
	       "Blocks", "BlkSize", "Level", "Depth", "Ver", "Compressed",
	       "Uncompressed", "Ratio", "Tokens", "Checksum", "Filename");
}

static double ratio(uint64_t content, uint64_t archive)
{
	return archive ? (double)content / (double)archive : 0.0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_stats(const wlz_info *info, const wlz_stats *st)
{
	printf("        %" PRIu64 " => %" PRIu64 " bytes; %" PRIu64 " tokens (all matches),"
	       " literals %.2f%% of the content\n", info->content_size, info->archive_size,
	       st->tokens, pct(st->literal_bytes, info->content_size));
	printf("        dependency level: max %u%s, mean %.2f; matches crossing blocks %.2f%%,"
	       " reaching back > 16 MiB %.2f%%\n", st->max_level, st->max_level == 255 ? "+" : "",
	       st->mean_level, pct(st->cross_block, st->tokens), pct(st->far, st->tokens));
	printf("        chained (read bytes a match of their own block wrote): %.2f%% of matches%s\n",
	       pct(st->chained, st->tokens),
	       st->chained_misstated ? " (the index misstates some blocks' counts)" : "");
	printf("        level histogram (level:tokens):");
	int shown = 0;
	for (int l = 0; l < 256; l++) {
		if (!st->level_hist[l])
			continue;
		if (shown++ % 8 == 0)
			printf("\n         ");
		printf(" %d%s:%" PRIu64, l, l == 255 ? "+" : "", st->level_hist[l]);
	}
	printf("\n");
}

static int list_file(const char *src, struct list_totals *t)
{
	const char *name = display_name(src);
	char a[16], b[16], bs[16], depth[16];
	fio_input in;
	wlz_info info;
	wlz_error e;
	int err;

	err = fio_load(&in, src);
	if (err) {
		file_error(name, "%s", fio_strerror(err));
		return 1;
	}
	/* One row per member: concatenated archives list each. */
	size_t at = 0;
	unsigned member = 0;
	do {
		wlz_stats st;
		char label[64];
		e = wlz_get_info(in.data + at, in.size - at, &info);
		/* -lv decodes every block's tokens to recompute their levels. */
		if (e == WLZ_OK && g_verbosity >= 3)
			e = wlz_get_stats(in.data + at, in.size - at, &st);
		if (e != WLZ_OK) {
			lib_error(name, e);
			fio_unload(&in);
			return 1;
		}
		if (info.block_log >= 20)
			snprintf(bs, sizeof(bs), "%u MiB", 1u << (info.block_log - 20));
		else
			snprintf(bs, sizeof(bs), "%u KiB", 1u << (info.block_log - 10));
		if (info.depth < 0)
			snprintf(depth, sizeof(depth), "-");
		else
			snprintf(depth, sizeof(depth), "%d", info.depth);
		at += (size_t)info.archive_size;
		if (member || at < in.size)
			snprintf(label, sizeof(label), " (member %u)", member + 1);
		else
			label[0] = 0;
		printf("%7" PRIu64 " %7s %5u %5s %3u %11s %12s %7.3f %12" PRIu64
		       "  %016" PRIx64 "  %s%s\n",
		       info.block_count, bs, info.level, depth, info.format_version,
		       human_size(a, sizeof(a), info.archive_size),
		       human_size(b, sizeof(b), info.content_size),
		       ratio(info.content_size, info.archive_size), info.token_count,
		       info.content_checksum, name, label);
		if (g_verbosity >= 3) {
			printf("  window: %s\n", human_size(a, sizeof(a), (uint64_t)1 << info.window_log));
			print_stats(&info, &st);
		}
		t->blocks += info.block_count;
		t->archive += info.archive_size;
		t->content += info.content_size;
		t->tokens += info.token_count;
		member++;
	} while (at < in.size);
	fio_unload(&in);
	t->files++;
	return 0;
}

static void list_footer(const struct list_totals *t)
{
	char a[16], b[16];

	printf("-------------------------------------------------------------"
	       "----------------------------------------------\n");
	printf("%7" PRIu64 " %7s %5s %5s %3s %11s %12s %7.3f %12" PRIu64
	       "  %-16s  %u files\n", t->blocks, "", "", "", "",
	       human_size(a, sizeof(a), t->archive),
	       human_size(b, sizeof(b), t->content),
	       ratio(t->content, t->archive), t->tokens, "", t->files);
}

/* ---------------------------------------------------------- command line */

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [OPTIONS] [FILE...]\n"
"Compress FILEs to FILE" SUFFIX ", or decompress them (-d).\n"
"With no FILE, or when FILE is -, read stdin and write stdout.\n"
"\n"
"Operations:\n"
"  -z, --compress       compress (the default)\n"
"  -d, --decompress     decompress (also as unwavelz; wavelzcat = -dc)\n"
"  -t, --test           decode and verify archives, write nothing\n"
"  -l, --list           describe archives (-v adds details)\n"
"\n"
"Output:\n"
"  -c, --stdout         write to stdout\n"
"  -o FILE              write to FILE (one input only)\n"
"  -k, --keep           keep input files (the default)\n"
"      --rm             remove each input once its output is in place\n"
"  -f, --force          overwrite existing outputs; allow terminal I/O\n"
"  -r, --recursive      operate on the files in directories, recursively\n"
"                       (decompression: those named *" SUFFIX "; compression:\n"
"                       the others)\n"
"\n"
"Compression:\n"
"  -#                   level %d..%d (default %d; it searches as -4 on files up\n"
"                       to 64 MiB)\n"
"  -B, --block-size=SIZE  power of two, 64K..64M (default 1M)\n"
"      --depth=D        limit the dependency depth to D >= 0\n"
"                       (default: unlimited)\n"
"      --[no-]flatten   flatten match chains inside blocks where that costs under\n"
"                       2 bits a match (default: on); --flatten=full leaves none\n"
"      --parallel=N     no match reads the N-1 blocks before its own, so N\n"
"                       threads decode side by side without waiting on each\n"
"                       other (1..%d, default %d below -17; 1: smallest\n"
"                       archive, decoded in block order, the default from\n"
"                       -17 on; an input of n blocks uses 1 under 16 blocks,\n"
"                       then at most n - 15, or n/16 + 1 at -10 and up)\n"
"      --long[=N]       window of 2^N bytes (default N=31, 2 GiB); without it\n"
"                       the level's (128M at -1,-2; 256M at -3..-9; 1G above),\n"
"                       cut to the input's size when known\n"
"      --window=SIZE    the same as a size (64K..2G)\n"
"      --streams=KIND   stream codecs: huf (default: raw or codec 2, which CPU\n"
"                       and GPU decoders read), any (the smallest of raw,\n"
"                       codec 2 and zstd; CPU only where zstd is chosen),\n"
"                       zstd (raw or zstd, CPU only)\n"
"\n"
"Decompression:\n"
"      --memory=SIZE    refuse archives whose window is larger (default 2G)\n"
"      --gpu[=LIST]     decode (-d, -t) on the GPUs (CUDA builds): every stage and\n"
"                       check on a GPU; LIST: 0 or 0,1 (default: every one); many\n"
"                       files go as batches spread over the GPUs, a bad one named\n"
"                       and the others kept; zstd-coded streams cannot be read.\n"
"                       Without -d: compress on the first GPU listed (an LZSS\n"
"                       made for GPUs: fast, larger archives; levels do not\n"
"                       apply; --depth 0..200, default 10)\n"
"      --symbol=S       with --gpu: matches on whole S-byte elements (1, 2, 4)\n"
"  -dcf                 pass input that is not an archive through unchanged\n"
"\n"
"General:\n"
"  -T#, --threads=#     worker threads; 0 = all cores (default 0)\n"
"      --progress       always show progress; --no-progress: never\n"
"  -v, --verbose        more messages; -q, --quiet: fewer (twice: none)\n"
"  -h, --help           show this help; -V, --version: show the version\n"
"  --                   end of options\n"
"\n"
"Environment: WAVELZ_CLEVEL (level), WAVELZ_NBTHREADS (threads),\n"
"WAVELZ_GPU_SPLIT_MIN (bytes of content from which --gpu splits one archive\n"
"over several GPUs; default: never, one GPU writes as it decodes).\n",
		prog, WLZ_LEVEL_MIN, WLZ_LEVEL_MAX, WLZ_LEVEL_DEFAULT, WLZ_PARALLEL_MAX, WLZ_PARALLEL_DEFAULT);
}

static void version(void)
{
	printf(PROGRAM " %s (format %d)\n", WLZ_VERSION_STRING,
	       WLZ_FORMAT_VERSION);
}

static void bad_usage(const char *prog, const char *fmt, ...)
{
	va_list ap;

	if (g_verbosity >= 1) {
		fprintf(stderr, PROGRAM ": ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\nTry '%s --help' for more information.\n",
			prog);
	}
	exit(1);
}

/* Parse decimal digits at *s into *v, advancing *s.  0 if none or too
 * large. */
static int read_uint(const char **s, unsigned long long *v)
{
	unsigned long long r = 0;
	const char *p = *s;

	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (r > (ULLONG_MAX - d) / 10)
			return 0;
		r = r * 10 + d;
		p++;
	}
	*s = p;
	*v = r;
	return 1;
}

/* A size with an optional K/M/G suffix (KB, KiB, ... all mean 1024s). */
static int read_size(const char **s, unsigned long long *v)
{
	unsigned shift = 0;

	if (!read_uint(s, v))
		return 0;
	switch (**s) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	}
	if (shift) {
		(*s)++;
		if (**s == 'i')
			(*s)++;
		if (**s == 'B')
			(*s)++;
		if (*v > (ULLONG_MAX >> shift))
			return 0;
		*v <<= shift;
	}
	return 1;
}

static void set_level(const char *prog, unsigned long long v)
{
	if (v < WLZ_LEVEL_MIN || v > WLZ_LEVEL_MAX)
		bad_usage(prog, "level must be %d..%d", WLZ_LEVEL_MIN,
			  WLZ_LEVEL_MAX);
}

static unsigned block_log_of(const char *prog, unsigned long long size)
{
	unsigned lg;

	for (lg = WLZ_BLOCK_LOG_MIN; lg <= WLZ_BLOCK_LOG_MAX; lg++)
		if (size == 1ull << lg)
			return lg;
	bad_usage(prog, "block size must be a power of two from 64K to 64M");
	return 0;
}

/* Parse a whole-argument number: the value after '=' or an env var. */
static int whole_uint(const char *s, unsigned long long *v)
{
	return read_uint(&s, v) && *s == '\0';
}

static void read_env(struct prefs *p)
{
	const char *s;
	unsigned long long v;

	s = getenv("WAVELZ_CLEVEL");
	if (s && *s) {
		if (whole_uint(s, &v) && v >= WLZ_LEVEL_MIN &&
		    v <= WLZ_LEVEL_MAX)
			p->level = (int)v;
		else
			DISPLAYLEVEL(2, PROGRAM ": ignoring WAVELZ_CLEVEL=%s: "
				     "not a level %d..%d\n", s,
				     WLZ_LEVEL_MIN, WLZ_LEVEL_MAX);
	}
	s = getenv("WAVELZ_NBTHREADS");
	if (s && *s) {
		if (whole_uint(s, &v) && v <= 4096)
			p->threads = (int)v;
		else
			DISPLAYLEVEL(2, PROGRAM ": ignoring WAVELZ_NBTHREADS="
				     "%s: not a thread count\n", s);
	}
}

/* Long options; those taking a value use "--name=VALUE". */
static void long_option(struct prefs *p, const char *prog, const char *arg)
{
	const char *val = strchr(arg, '=');
	size_t len = val ? (size_t)(val - arg) : strlen(arg);
	unsigned long long v;

#define IS(name) (len == sizeof(name) - 1 && !memcmp(arg, name, len))
	if (val) {
		val++;
		if (IS("--block-size")) {
			const char *s = val;

			if (!read_size(&s, &v) || *s)
				bad_usage(prog, "bad size '%s'", val);
			p->block_log = block_log_of(prog, v);
		} else if (IS("--symbol")) {
			if (!whole_uint(val, &v) || (v != 1 && v != 2 && v != 4))
				bad_usage(prog, "bad symbol size '%s' (1, 2 or 4)", val);
			p->symbol = (unsigned)v;
		} else if (IS("--depth")) {
			p->depth_given = 1;
			if (!strcmp(val, "unlimited"))
				p->depth = WLZ_DEPTH_UNLIMITED;
			else if (whole_uint(val, &v) && v <= INT32_MAX)
				p->depth = (int)v;
			else
				bad_usage(prog, "bad depth '%s'", val);
		} else if (IS("--threads")) {
			if (!whole_uint(val, &v) || v > 4096)
				bad_usage(prog, "bad thread count '%s'", val);
			p->threads = (int)v;
		} else if (IS("--parallel")) {
			if (!whole_uint(val, &v) || v < 1 || v > WLZ_PARALLEL_MAX)
				bad_usage(prog, "bad parallel block count '%s' (1..%d)", val, WLZ_PARALLEL_MAX);
			p->parallel = (int)v;
		} else if (IS("--long")) {
			if (!whole_uint(val, &v) || v < WLZ_BLOCK_LOG_MIN || v > WLZ_WINDOW_LOG_ENC_MAX)
				bad_usage(prog, "bad window log '%s' (%d..%d)", val, WLZ_BLOCK_LOG_MIN,
					  WLZ_WINDOW_LOG_ENC_MAX);
			p->window_log = (unsigned)v;
		} else if (IS("--window")) {
			const char *sz = val;
			if (!read_size(&sz, &v) || *sz || v < 1)
				bad_usage(prog, "bad size '%s'", val);
			unsigned lg = 0;
			while (((unsigned long long)1 << lg) < v)
				lg++;
			if (lg < WLZ_BLOCK_LOG_MIN || lg > WLZ_WINDOW_LOG_ENC_MAX)
				bad_usage(prog, "window %s outside 64K..2G", val);
			p->window_log = lg;
		} else if (IS("--streams")) {
			if (!strcmp(val, "huf"))
				p->streams = WLZ_STREAMS_HUF;
			else if (!strcmp(val, "any"))
				p->streams = WLZ_STREAMS_ANY;
			else if (!strcmp(val, "zstd"))
				p->streams = WLZ_STREAMS_ZSTD;
			else
				bad_usage(prog, "bad stream codecs '%s' (huf, any or zstd)", val);
		} else if (IS("--memory")) {
			const char *sz = val;
			if (!read_size(&sz, &v) || *sz || v < 1)
				bad_usage(prog, "bad size '%s'", val);
			p->memory = v;
		} else if (IS("--gpu")) {
			/* N or N,M,... */
			const char *q = val;
			p->gpu = 1;
			p->ngpu = 0;
			for (;;) {
				char num[16];
				size_t k = strcspn(q, ",");
				if (k == 0 || k >= sizeof num || p->ngpu == WLZ_CLI_MAX_GPUS)
					bad_usage(prog, "bad GPU list '%s'", val);
				memcpy(num, q, k);
				num[k] = 0;
				if (!whole_uint(num, &v) || v > 1023)
					bad_usage(prog, "bad GPU number '%s'", num);
				p->gpus[p->ngpu++] = (int)v;
				if (!q[k])
					break;
				q += k + 1;
			}
		} else if (IS("--flatten")) {
			if (strcmp(val, "full") != 0)
				bad_usage(prog, "bad flattening '%s' (only 'full')", val);
			p->flatten = 2;
		} else {
			bad_usage(prog, "unknown option '%s'", arg);
		}
		return;
	}
	if (IS("--long"))
		p->window_log = WLZ_WINDOW_LOG_ENC_MAX;
	else if (IS("--compress"))
		p->op = OP_COMPRESS;
	else if (IS("--decompress") || IS("--uncompress"))
		p->op = OP_DECOMPRESS;
	else if (IS("--test"))
		p->op = OP_TEST;
	else if (IS("--list"))
		p->op = OP_LIST;
	else if (IS("--stdout"))
		p->to_stdout = 1;
	else if (IS("--force"))
		p->force = 1;
	else if (IS("--recursive"))
		p->recursive = 1;
	else if (IS("--keep"))
		p->remove_src = 0;
	else if (IS("--rm"))
		p->remove_src = 1;
	else if (IS("--verbose"))
		g_verbosity++;
	else if (IS("--quiet"))
		g_verbosity--;
	else if (IS("--progress"))
		p->progress = 1;
	else if (IS("--no-progress"))
		p->progress = 0;
	else if (IS("--no-flatten"))
		p->flatten = 0;
	else if (IS("--gpu"))
		p->gpu = 1, p->ngpu = 0; /* every visible GPU */
	else if (IS("--flatten"))
		p->flatten = 1;
	else if (IS("--help")) {
		usage(stdout, prog);
		exit(0);
	} else if (IS("--version")) {
		version();
		exit(0);
	} else if (IS("--block-size") || IS("--depth") || IS("--threads") || IS("--parallel"))
		bad_usage(prog, "option '%s' needs a value: %s=VALUE", arg,
			  arg);
	else
		bad_usage(prog, "unknown option '%s'", arg);
#undef IS
}

/* Short options, combinable as in -dc, -kf or -19T4.  Returns how many
 * following arguments were consumed (for -o FILE). */
static int short_options(struct prefs *p, const char *prog, const char *arg,
			 const char *next)
{
	const char *s = arg + 1;
	unsigned long long v;

	while (*s) {
		if (isdigit((unsigned char)*s)) {
			if (!read_uint(&s, &v))
				bad_usage(prog, "bad level in '%s'", arg);
			set_level(prog, v);
			p->level = (int)v;
			continue;
		}
		switch (*s++) {
		case 'z': p->op = OP_COMPRESS; break;
		case 'd': p->op = OP_DECOMPRESS; break;
		case 't': p->op = OP_TEST; break;
		case 'l': p->op = OP_LIST; break;
		case 'c': p->to_stdout = 1; break;
		case 'k': p->remove_src = 0; break;
		case 'f': p->force = 1; break;
		case 'r': p->recursive = 1; break;
		case 'v': g_verbosity++; break;
		case 'q': g_verbosity--; break;
		case 'h': case 'H':
			usage(stdout, prog);
			exit(0);
		case 'V':
			version();
			exit(0);
		case 'T':
			if (!read_uint(&s, &v) || v > 4096)
				bad_usage(prog, "-T needs a thread count, "
					  "as in -T4");
			p->threads = (int)v;
			break;
		case 'B':
			if (!read_size(&s, &v))
				bad_usage(prog, "-B needs a size, as in -B4M");
			p->block_log = block_log_of(prog, v);
			break;
		case 'o':
			/* The rest of the argument, or the next one. */
			p->to_stdout = 0;
			if (*s) {
				p->out_name = s;
				return 0;
			}
			if (!next)
				bad_usage(prog, "-o needs a file name");
			p->out_name = next;
			return 1;
		default:
			bad_usage(prog, "unknown option '-%c'", s[-1]);
		}
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* -r's choice of files under a directory, by name. */
static int has_suffix(const char *name)
{
	const size_t n = strlen(name), s = strlen(SUFFIX);
	return n > s && !strcmp(name + n - s, SUFFIX);
}

static int lacks_suffix(const char *name)
{
	return !has_suffix(name);
}

int main(int argc, char **argv)
{
	const char *prog = argc > 0 ? base_name(argv[0]) : PROGRAM;
	const char **files;
	size_t nfiles = 0, i;
	struct prefs p;
	struct job job;
	wlz_options opt;
	wlz_error e;
	int verbosity_asked, has_stdout = 0, has_stdin = 0;
	int ret = 0, options_done = 0;

	memset(&p, 0, sizeof(p));
	p.op = OP_COMPRESS;
	p.level = WLZ_LEVEL_DEFAULT;
	p.threads = 0;
	p.block_log = WLZ_BLOCK_LOG_DEFAULT;
	p.depth = WLZ_DEPTH_UNLIMITED;
	p.flatten = 1;  /* the library's default: priced flattening */
	p.parallel = WLZ_PARALLEL_AUTO;
	p.progress = -1;
	p.gpu = -1;
	if (!strcmp(prog, "unwavelz"))
		p.op = OP_DECOMPRESS;
	if (!strcmp(prog, "wavelzcat")) {
		p.op = OP_DECOMPRESS;
		p.to_stdout = 1;
	}
	read_env(&p);

	files = calloc((size_t)argc + 1, sizeof(*files));
	if (!files) {
		DISPLAYLEVEL(1, PROGRAM ": %s\n", strerror(ENOMEM));
		return 1;
	}
	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i];

		if (options_done || a[0] != '-' || a[1] == '\0')
			files[nfiles++] = a;
		else if (!strcmp(a, "--"))
			options_done = 1;
		else if (a[1] == '-')
			long_option(&p, prog, a);
		else
			i += (size_t)short_options(&p, prog, a,
					i + 1 < (size_t)argc ? argv[i + 1]
							     : NULL);
	}
	fio_list expanded = { 0 };
	if (p.recursive) {
		int (*keep)(const char *) = p.op == OP_COMPRESS ? lacks_suffix : has_suffix;
		for (i = 0; i < nfiles; i++) {
			int err = fio_list_add(&expanded, files[i], 1, keep);
			if (err) {
				DISPLAYLEVEL(1, PROGRAM ": %s: %s\n", files[i], strerror(err));
				return 1;
			}
		}
		free(files);
		files = (const char **)expanded.path;
		nfiles = expanded.n;
		if (nfiles == 0) {
			DISPLAYLEVEL(2, PROGRAM ": no files to %s\n", p.op == OP_COMPRESS ? "compress" : "read");
			fio_list_free(&expanded);
			return 0;
		}
	} else if (nfiles == 0)
		files[nfiles++] = FIO_STDIO_NAME;

	if (p.out_name && nfiles > 1 &&
	    (p.op == OP_COMPRESS || p.op == OP_DECOMPRESS))
		bad_usage(prog, "-o takes a single input file");
	for (i = 0; i < nfiles; i++)
		if (!strcmp(files[i], FIO_STDIO_NAME))
			has_stdin = 1;
	if (p.op == OP_COMPRESS || p.op == OP_DECOMPRESS) {
		has_stdout = p.to_stdout ||
			     (p.out_name && !strcmp(p.out_name, "-")) ||
			     (has_stdin && !p.out_name);
	}

	/* Like zstd: results go unannounced when stdout carries the data,
	 * unless -v asked for them (where nobody watches stderr, only the
	 * progress line is left out: job.progress_ok). */
	verbosity_asked = g_verbosity;
	if (g_verbosity == 2 && has_stdout)
		g_verbosity = 1;

	if (has_stdin && !p.force && isatty(STDIN_FILENO)) {
		DISPLAYLEVEL(1, PROGRAM ": stdin is a terminal; refusing to "
			     "read %s data from it (use -f)\n",
			     p.op == OP_COMPRESS ? "input" : "compressed");
		return 1;
	}
	if (p.op == OP_COMPRESS && has_stdout && !p.force &&
	    isatty(STDOUT_FILENO)) {
		DISPLAYLEVEL(1, PROGRAM ": stdout is a terminal; refusing to "
			     "write compressed data to it (use -f)\n");
		return 1;
	}
	if (p.remove_src && (has_stdout || p.op == OP_TEST ||
			     p.op == OP_LIST)) {
		DISPLAYLEVEL(3, PROGRAM ": note: --rm is ignored %s\n",
			     has_stdout ? "when writing to stdout"
					: "without an output file");
		if (has_stdout)
			p.remove_src = 0;
	}

#ifndef WLZ_HAVE_GPU
	if (p.gpu >= 0) {
		DISPLAYLEVEL(1, PROGRAM ": --gpu: this wavelz was built without CUDA\n");
		return 1;
	}
#endif
	if (p.gpu >= 0 && p.op == OP_LIST) {
		DISPLAYLEVEL(1, PROGRAM ": --gpu compresses and decodes (-d, -t), it does not list\n");
		return 1;
	}
	if (p.symbol && (p.gpu < 0 || p.op != OP_COMPRESS)) {
		DISPLAYLEVEL(1, PROGRAM ": --symbol is for compression on the GPU (--gpu)\n");
		return 1;
	}

	fio_init();
	memset(&job, 0, sizeof(job));
	job.p = &p;
	job.progress_ok = p.progress == 1 ||
		(p.progress == -1 && verbosity_asked >= 2 &&
		 isatty(STDERR_FILENO));

	wlz_options_init(&opt);
	opt.level = p.level;
	opt.threads = p.threads;
	opt.block_log = p.block_log;
	opt.depth = p.depth;
	opt.flatten = p.flatten;
	opt.parallel = p.parallel;
	opt.window_log = p.window_log;
	opt.streams = p.streams;
	opt.progress = progress_update;
	opt.progress_opaque = &job.prog;

	switch (p.op) {
	case OP_COMPRESS:
		e = wlz_options_check(&opt);
		if (e != WLZ_OK) {
			DISPLAYLEVEL(1, PROGRAM ": bad options: %s\n",
				     wlz_error_name(e));
			return 1;
		}
#ifdef WLZ_HAVE_GPU
		if (p.gpu >= 0) {
			const int dev = p.ngpu ? p.gpus[0] : 0;
			job.gcc = wlz_gcctx_create(dev);
			if (!job.gcc) {
				DISPLAYLEVEL(1, PROGRAM ": no GPU %d (%d visible)\n", dev, wlz_gpu_count());
				return 1;
			}
		}
#endif
		job.cctx = wlz_cctx_create(&opt);
		if (!job.cctx) {
			DISPLAYLEVEL(1, PROGRAM ": cannot create a compression "
				     "context: %s\n", strerror(ENOMEM));
			return 1;
		}
		/* (input read and archive written while the blocks before
		 * are parsed, as zstd's CLI does its I/O beside its workers) */
		wlz_cctx_set_io_thread(job.cctx, 1);
		for (i = 0; i < nfiles; i++)
			ret |= compress_file(&job, files[i]);
		if (nfiles > 1 && job.files_ok > 1) {
			char a[16], b[16];

			DISPLAYLEVEL(2, "%u files compressed : %.2f%%   "
				     "(%s => %s)\n", job.files_ok,
				     (double)job.total_out * 100.0 /
				     (double)(job.total_in ? job.total_in : 1),
				     human_size(a, sizeof(a), job.total_in),
				     human_size(b, sizeof(b), job.total_out));
		}
		break;
	case OP_DECOMPRESS:
	case OP_TEST:
		job.dctx = wlz_dctx_create(p.threads);
		if (!job.dctx) {
			DISPLAYLEVEL(1, PROGRAM ": cannot create a "
				     "decompression context: %s\n",
				     strerror(ENOMEM));
			return 1;
		}
		wlz_dctx_set_progress(job.dctx, progress_update, &job.prog);
		wlz_dctx_set_memory_limit(job.dctx, p.memory);
		/* (the output written while the next blocks decode, as zstd's
		 * CLI writes from a thread of its own) */
		wlz_dctx_set_write_thread(job.dctx, p.op == OP_DECOMPRESS);
#ifdef WLZ_HAVE_GPU
		if (p.gpu >= 0) {
			/* --gpu: every visible GPU; --gpu=0,1: those */
			const int seen = wlz_gpu_count();
			if (!p.ngpu)
				for (p.ngpu = 0; p.ngpu < seen && p.ngpu < WLZ_CLI_MAX_GPUS; p.ngpu++)
					p.gpus[p.ngpu] = p.ngpu;
			if (!p.ngpu) {
				DISPLAYLEVEL(1, PROGRAM ": --gpu: no GPU visible\n");
				return 1;
			}
			/* (one file starts on one GPU: each context starts CUDA
			 * on its device, a cost paid only for batches and for
			 * archives large enough to split, decode_split) */
			const int want = batchable(files, nfiles, &p) ? p.ngpu : 1;
			for (job.ngctx = 0; job.ngctx < want; job.ngctx++) {
				wlz_gdctx *g = wlz_gdctx_create(p.gpus[job.ngctx]);
				if (!g) {
					DISPLAYLEVEL(1, PROGRAM ": no GPU %d (%d visible)\n", p.gpus[job.ngctx], seen);
					for (int k = 0; k < job.ngctx; k++)
						wlz_gdctx_free(job.gctxs[k]);
					return 1;
				}
				wlz_gdctx_set_memory_limit(g, p.memory);
				job.gctxs[job.ngctx] = g;
			}
			job.gctx = job.gctxs[0];
		}
		/* (many files: batches on the GPUs; to stdout, one at a
		 * time, in order) */
		if (p.gpu >= 0 && batchable(files, nfiles, &p))
			ret |= decode_batch_gpu(&job, files, nfiles);
		else
#endif
		for (i = 0; i < nfiles; i++)
			ret |= p.op == OP_TEST ? test_file(&job, files[i])
					       : decompress_file(&job, files[i]);
		if (nfiles > 1 && job.files_ok > 1)
			DISPLAYLEVEL(2, "%u files %s\n", job.files_ok,
				     p.op == OP_TEST ? "tested OK"
						     : "decompressed");
		break;
	case OP_LIST: {
		struct list_totals t;

		memset(&t, 0, sizeof(t));
		list_header();
		for (i = 0; i < nfiles; i++)
			ret |= list_file(files[i], &t);
		if (t.files > 1)
			list_footer(&t);
		break;
	}
	}

	wlz_cctx_free(job.cctx);
	wlz_dctx_free(job.dctx);
#ifdef WLZ_HAVE_GPU
	for (int k = 0; k < job.ngctx; k++)
		wlz_gdctx_free(job.gctxs[k]);
	wlz_gcctx_free(job.gcc);
#endif
	if (p.recursive)
		fio_list_free(&expanded);
	else
		free(files);
	/* Data written to stdout must really have reached it. */
	if (fflush(stdout) != 0) {
		DISPLAYLEVEL(1, PROGRAM ": stdout: %s\n", strerror(errno));
		ret = 1;
	}
	return ret ? 1 : 0;
}
