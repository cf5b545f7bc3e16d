/*
 * fileio.c - whole-file input and crash-safe output for the wavelz CLI.
 *
 * Output to a named file goes to ".NAME.tmpXXXXXX" in the same directory
 * and is renamed into place once complete; the signal handler removes that
 * file if we are interrupted, so no partial output ever carries the final
 * name.  All writes funnel through fio_write() so that the write path can
 * later change (e.g. to parallel positioned writes) in one place.
 */
/* realpath() is an XSI function. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE  /* madvise advice values */
#endif

#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Linux caps one read()/write() at about 2 GiB; stay well below. */
#define IO_CHUNK ((size_t)1 << 30)

static mode_t g_umask;

/* --------------------------------------------------- signal-time cleanup */

/*
 * The handler may only look at a volatile sig_atomic_t, so the path is
 * published before the flag is raised (with a fence so the compiler keeps
 * that order) and the flag is lowered before the path is released.
 */
static volatile sig_atomic_t g_tmp_live;
static const char *g_tmp_name;

static void on_signal(int sig)
{
	if (g_tmp_live)
		unlink(g_tmp_name);
	/* SA_RESETHAND restored the default action: die of the same signal
	 * so that the parent sees how we ended. */
	raise(sig);
}

/* The mapped input, for on_bus (one input is mapped at a time). */
static const char *volatile g_map_lo;
static volatile size_t g_map_len;

/* Inputs are mapped: if one shrinks while we read it (another program
 * truncates it), the pages past its new end raise SIGBUS.  That is the
 * input's fault, not a crash: say so, clean up, fail.  A SIGBUS elsewhere
 * is a bug: clean up and let it take its default course (a core dump). */
static void on_bus(int sig, siginfo_t *si, void *ctx)
{
	static const char msg[] = "wavelz: an input file shrank while it was being read\n";
	const char *a = si ? (const char *)si->si_addr : NULL, *lo = g_map_lo;
	ssize_t ignored;

	(void)ctx;
	if (g_tmp_live)
		unlink(g_tmp_name);
	if (lo && a >= lo && (size_t)(a - lo) < g_map_len) {
		ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)ignored;
		_exit(1);
	}
	signal(sig, SIG_DFL);  /* the faulting access repeats, and dumps core */
}

static void track_tmp(const char *name)
{
	g_tmp_name = name;
	atomic_signal_fence(memory_order_seq_cst);
	g_tmp_live = 1;
}

static void untrack_tmp(void)
{
	g_tmp_live = 0;
	atomic_signal_fence(memory_order_seq_cst);
}

static const int g_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Creating and renaming the temporary file happen with these signals held
 * so that the file and its tracking change together. */
static void hold_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(g_signals) / sizeof(g_signals[0]); i++)
		sigaddset(&set, g_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void fio_init(void)
{
	struct sigaction sa, old;
	size_t i;

	/* umask cannot be read without being set. */
	g_umask = umask(0);
	umask(g_umask);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(g_signals) / sizeof(g_signals[0]); i++) {
		/* A signal ignored by our parent (nohup, background jobs)
		 * stays ignored. */
		if (sigaction(g_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(g_signals[i], &sa, NULL);
	}
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
	/* Past a file size limit, let write() fail with EFBIG so that the
	 * temporary file is cleaned up, rather than dying of SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
}

const char *fio_strerror(int err)
{
	switch (err) {
	case FIO_ERR_SAME_FILE:
		return "input and output are the same file";
	case FIO_ERR_IS_DIR:
		return "is a directory";
	case FIO_ERR_TOO_LARGE:
		return "file too large for this system's memory";
	default:
		return strerror(err);
	}
}

/* ------------------------------------------------------------------ input */

static int read_fd(fio_input *in, int fd, size_t hint)
{
	size_t cap = hint ? hint + 1 : (size_t)1 << 16; /* +1: see EOF */
	size_t len = 0;
	unsigned char *buf = malloc(cap);

	if (!buf)
		return ENOMEM;
	for (;;) {
		size_t want;
		ssize_t got;

		if (len == cap) {
			unsigned char *bigger;

			if (cap > SIZE_MAX / 2) {
				free(buf);
				return FIO_ERR_TOO_LARGE;
			}
			bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		want = cap - len < IO_CHUNK ? cap - len : IO_CHUNK;
		got = read(fd, buf + len, want);
		if (got < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			free(buf);
			return err;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	in->buf_ = buf;
	in->data = buf;
	in->size = len;
	return 0;
}

static int map_fd(fio_input *in, int fd, off_t size)
{
	void *p;

	if ((uintmax_t)size > SIZE_MAX)
		return FIO_ERR_TOO_LARGE;
	p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)    /* some file systems cannot map */
		return read_fd(in, fd, (size_t)size);
	posix_madvise(p, (size_t)size, POSIX_MADV_WILLNEED);
	in->map_ = p;
	g_map_len = (size_t)size;
	g_map_lo = p;
	in->map_len_ = (size_t)size;
	in->data = p;
	in->size = (size_t)size;
	return 0;
}

/* A regular file's fields of in, from its stat. */
static void take_stat(fio_input *in, const struct stat *st)
{
	in->is_regular = 1;
	in->mode = st->st_mode;
	in->dev = st->st_dev;
	in->ino = st->st_ino;
	in->atime = st->st_atim;
	in->mtime = st->st_mtim;
}

/* Opens path for reading ("-" = stdin) into *fd, after clearing in. */
static int open_input(fio_input *in, const char *path, int *fd)
{
	memset(in, 0, sizeof(*in));
	if (strcmp(path, FIO_STDIO_NAME) == 0) {
		in->is_stdin = 1;
		*fd = STDIN_FILENO;
		return 0;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? errno : 0;
}

int fio_load(fio_input *in, const char *path)
{
	struct stat st;
	int fd, err;

	err = open_input(in, path, &fd);
	if (err)
		return err;
	if (fstat(fd, &st) != 0) {
		err = errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = FIO_ERR_IS_DIR;
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		take_stat(in, &st);
		/* A size of 0 may be a lie (/proc): read those.  Stdin may
		 * have been partly consumed: map only from its start. */
		if (st.st_size > 0 &&
		    (!in->is_stdin || lseek(fd, 0, SEEK_CUR) == 0)) {
			err = map_fd(in, fd, st.st_size);
			goto out;
		}
	}
	err = read_fd(in, fd, 0);
out:
	if (!in->is_stdin)
		close(fd);
	if (!err && !in->data)
		in->data = (const unsigned char *)"";
	return err;
}

void fio_unload(fio_input *in)
{
	if (in->map_ && g_map_lo == (const char *)in->map_)
		g_map_lo = NULL;
	if (in->map_)
		munmap(in->map_, in->map_len_);
	free(in->buf_);
	memset(in, 0, sizeof(*in));
}

/* ----------------------------------------------------------------- output */

int fio_exists(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return S_ISREG(st.st_mode);
	return lstat(path, &st) == 0;   /* a dangling link */
}

/* ".BASE.tmpXXXXXX" beside path, or a shorter ".wavelz.tmpXXXXXX" when the
 * long form would exceed the file name limit. */
static char *tmp_template(const char *path, int short_form)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = short_form ? "wavelz" : path + dir_len;
	size_t base_len = strlen(base);
	static const char tail[] = ".tmpXXXXXX";
	char *t = malloc(dir_len + 1 + base_len + sizeof(tail));

	if (!t)
		return NULL;
	memcpy(t, path, dir_len);
	t[dir_len] = '.';
	memcpy(t + dir_len + 1, base, base_len);
	memcpy(t + dir_len + 1 + base_len, tail, sizeof(tail));
	return t;
}

static int make_tmp(fio_output *out)
{
	int short_form;

	for (short_form = 0; short_form < 2; short_form++) {
		sigset_t old;
		int err;

		out->tmp_path = tmp_template(out->path, short_form);
		if (!out->tmp_path)
			return ENOMEM;
		hold_signals(&old);
		out->fd = mkstemp(out->tmp_path);
		err = errno;
		if (out->fd >= 0)
			track_tmp(out->tmp_path);
		release_signals(&old);
		if (out->fd >= 0)
			return 0;
		free(out->tmp_path);
		out->tmp_path = NULL;
		if (err != ENAMETOOLONG)
			return err;
	}
	return ENAMETOOLONG;
}

static void reset_output(fio_output *out)
{
	free(out->path);
	free(out->tmp_path);
	memset(out, 0, sizeof(*out));
	out->fd = -1;
}

int fio_open(fio_output *out, const char *path, int force,
	     const fio_input *in)
{
	struct stat st, lst;
	int err;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!path) {
		out->fd = STDOUT_FILENO;
		out->is_stdout = 1;
		return 0;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return FIO_ERR_IS_DIR;
		if (in && in->is_regular && st.st_dev == in->dev &&
		    st.st_ino == in->ino)
			return FIO_ERR_SAME_FILE;
		if (!S_ISREG(st.st_mode)) {
			/* A device or FIFO (/dev/null, /dev/stdout to a pipe)
			 * is a stream, not a file to replace. */
			out->fd = open(path, O_WRONLY | O_CLOEXEC);
			if (out->fd < 0)
				return errno;
			out->is_direct = 1;
			return 0;
		}
		if (!force)
			return EEXIST;
	} else if (lstat(path, &lst) == 0 && !force) {
		return EEXIST;  /* a dangling link */
	}
	/* The finished file is renamed over path itself: a symbolic link
	 * there (to a regular file, or dangling) is replaced by the output,
	 * and the file it named is left untouched.  Writing through the link
	 * would let whoever planted it pick which file gets overwritten. */
	out->path = strdup(path);
	if (!out->path) {
		err = errno ? errno : ENOMEM;
		reset_output(out);
		return err;
	}
	err = make_tmp(out);
	if (err)
		reset_output(out);
	return err;
}

int fio_write(fio_output *out, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n > 0) {
		size_t want = n < IO_CHUNK ? n : IO_CHUNK;
		ssize_t put = write(out->fd, p, want);

		if (put < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (put == 0)
			return EIO;
		p += put;
		n -= (size_t)put;
	}
	return 0;
}

/* One thread's share of fio_write_parallel: positioned writes of a slice. */
typedef struct pw_slice {
	int fd;
	const unsigned char *p;
	size_t n;
	off_t at;
	int err;
} pw_slice;

static void *pw_run(void *arg)
{
	pw_slice *s = arg;
	while (s->n > 0) {
		size_t want = s->n < IO_CHUNK ? s->n : IO_CHUNK;
		ssize_t put = pwrite(s->fd, s->p, want, s->at);
		if (put < 0) {
			if (errno == EINTR)
				continue;
			s->err = errno;
			return NULL;
		}
		if (put == 0) {
			s->err = EIO;
			return NULL;
		}
		s->p += put;
		s->n -= (size_t)put;
		s->at += put;
	}
	return NULL;
}

int fio_write_parallel(fio_output *out, const void *buf, size_t n, int threads)
{
	/* Positioned writes need a regular file written from its start; slices
	 * under 8 MiB are not worth a thread. */
	if (out->is_stdout || out->is_direct || threads < 2 || n < ((size_t)16 << 20))
		return fio_write(out, buf, n);
	if ((size_t)threads > n >> 23)
		threads = (int)(n >> 23);
	if (threads > 64)
		threads = 64;
	pw_slice sl[64];
	pthread_t tid[64];
	size_t per = (n / (size_t)threads + 4095) & ~(size_t)4095;
	int started = 0, err = 0;
	for (int t = 0; t < threads; t++) {
		size_t lo = per * (size_t)t, hi = lo + per < n ? lo + per : n;
		sl[t] = (pw_slice){ out->fd, (const unsigned char *)buf + lo, lo < hi ? hi - lo : 0, (off_t)lo, 0 };
	}
	for (int t = 1; t < threads; t++, started++)
		if (pthread_create(&tid[t], NULL, pw_run, &sl[t]))
			break;
	for (int t = 1 + started; t < threads; t++)
		pw_run(&sl[t]);  /* no thread to be had: do it here */
	pw_run(&sl[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < threads && !err; t++)
		err = sl[t].err;
	if (!err && lseek(out->fd, (off_t)n, SEEK_SET) < 0)
		err = errno;
	return err;
}

/* Move the finished temporary file into place.  Without force, link()
 * refuses atomically if a file appeared at path meanwhile; where hard links
 * are not supported, fall back to a check and rename(). */
static int install(const char *tmp, const char *path, int force)
{
	if (!force) {
		if (link(tmp, path) == 0) {
			unlink(tmp);
			return 0;
		}
		if (errno == EEXIST)
			return EEXIST;
		if (fio_exists(path))
			return EEXIST;
	}
	if (rename(tmp, path) != 0)
		return errno;
	return 0;
}

int fio_commit(fio_output *out, const fio_input *in, int force)
{
	sigset_t old;
	int err = 0;

	if (out->is_stdout) {
		out->fd = -1;
		out->is_stdout = 0;
		return 0;
	}
	if (out->is_direct) {
		if (close(out->fd) != 0)
			err = errno;
		reset_output(out);
		return err;
	}

	/* Like zstd: the output gets the input's permissions and times;
	 * failures here (odd file systems) are not worth an error. */
	if (in && in->is_regular && !in->is_stdin) {
		struct timespec times[2];

		times[0] = in->atime;
		times[1] = in->mtime;
		(void)fchmod(out->fd, in->mode & 0777);
		(void)futimens(out->fd, times);
	} else {
		(void)fchmod(out->fd, 0666 & ~g_umask);
	}
	/* close() can report delayed write errors (NFS, quotas). */
	if (close(out->fd) != 0) {
		err = errno;
		out->fd = -1;
		fio_abort(out);
		return err;
	}
	out->fd = -1;

	hold_signals(&old);
	err = install(out->tmp_path, out->path, force);
	if (err)
		unlink(out->tmp_path);
	untrack_tmp();
	release_signals(&old);
	reset_output(out);
	return err;
}

void fio_abort(fio_output *out)
{
	if (out->is_stdout) {
		out->fd = -1;
		out->is_stdout = 0;
		return;
	}
	if (out->fd >= 0)
		close(out->fd);
	if (out->tmp_path) {
		sigset_t old;

		hold_signals(&old);
		unlink(out->tmp_path);
		untrack_tmp();
		release_signals(&old);
	}
	reset_output(out);
}

void *fio_alloc_large(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	void *p = NULL;
	if (n < huge)
		return malloc(n ? n : 1);
	if (posix_memalign(&p, huge, n) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, n & ~(huge - 1), MADV_HUGEPAGE);  /* advice only: errors do not matter */
#endif
	return p;
}

/* ---------------------------------------------------------------- streams */

int fio_open_stream(fio_input *in, const char *path, unsigned long long *size)
{
	struct stat st;
	int fd;

	*size = ~0ull;
	int err = open_input(in, path, &fd);
	if (err)
		return err;
	in->own_fd_ = !in->is_stdin;
	err = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? FIO_ERR_IS_DIR : 0;
	if (err) {
		if (in->own_fd_)
			close(fd);
		return err;
	}
	in->fd_ = fd;
	if (S_ISREG(st.st_mode)) {
		take_stat(in, &st);
		/* A size of 0 may be a lie (/proc); stdin may be partly read. */
		if (st.st_size > 0 && !in->is_stdin)
			*size = (unsigned long long)st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	}
	in->size_ = *size;
	in->data = (const unsigned char *)"";
	return 0;
}

size_t fio_read(fio_input *in, void *buf, size_t cap)
{
	size_t have = 0;
	while (have < cap && !in->eof_) {
		size_t want = cap - have > ((size_t)1 << 30) ? (size_t)1 << 30 : cap - have;
		ssize_t k = read(in->fd_, (char *)buf + have, want);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			in->read_errno = errno;
			return (size_t)-1;
		}
		if (k == 0)
			in->eof_ = 1;
		have += (size_t)k;
		/* A pipe gives what it has: return it rather than wait. */
		if (!in->is_regular)
			break;
	}
	in->nread_ += have;
	return have;
}

size_t fio_pread(fio_input *in, void *buf, size_t cap, unsigned long long off)
{
	size_t have = 0;
	while (have < cap) {
		size_t want = cap - have > ((size_t)1 << 30) ? (size_t)1 << 30 : cap - have;
		ssize_t k = pread(in->fd_, (char *)buf + have, want, (off_t)(off + have));
		if (k < 0) {
			if (errno == EINTR)
				continue;
			/* (the first failure's: other threads may fail too) */
			int none = 0;
			__atomic_compare_exchange_n(&in->read_errno, &none, errno, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			return (size_t)-1;
		}
		if (k == 0)
			break;
		have += (size_t)k;
	}
	return have;
}

void fio_close_stream(fio_input *in)
{
	if (in->own_fd_)
		close(in->fd_);
	memset(in, 0, sizeof(*in));
}

/* ------------------------------------------------------------------ lists */

static int list_push(fio_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **p = realloc(l->path, cap * sizeof(*p));
		if (!p)
			return ENOMEM;
		l->path = p;
		l->cap = cap;
	}
	l->path[l->n] = strdup(path);
	if (!l->path[l->n])
		return ENOMEM;
	l->n++;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files under dir, depth first, each directory in name order. */
static int list_dir(fio_list *l, const char *dir, int (*keep)(const char *name))
{
	DIR *d = opendir(dir);
	if (!d)
		return errno;
	fio_list names = { 0 };
	int err = 0;
	struct dirent *e;
	while (!err && (errno = 0, e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			err = list_push(&names, e->d_name);
	if (!err && errno)
		err = errno;
	closedir(d);
	if (names.n)
		qsort(names.path, names.n, sizeof(*names.path), name_cmp);
	const size_t dl = strlen(dir);
	for (size_t i = 0; !err && i < names.n; i++) {
		char *full = malloc(dl + strlen(names.path[i]) + 2);
		if (!full) {
			err = ENOMEM;
			break;
		}
		sprintf(full, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names.path[i]);
		struct stat st;
		if (lstat(full, &st) != 0)
			err = errno;
		else if (S_ISDIR(st.st_mode))
			err = list_dir(l, full, keep);
		else if (S_ISREG(st.st_mode) && (!keep || keep(names.path[i])))
			err = list_push(l, full);
		free(full);  /* (links, devices and the like are left alone) */
	}
	fio_list_free(&names);
	return err;
}

int fio_list_add(fio_list *l, const char *path, int recursive, int (*keep)(const char *name))
{
	struct stat st;
	if (recursive && strcmp(path, FIO_STDIO_NAME) && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return list_dir(l, path, keep);
	return list_push(l, path);
}

void fio_list_free(fio_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->path[i]);
	free(l->path);
	memset(l, 0, sizeof(*l));
}
