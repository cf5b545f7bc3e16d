/*
 * fileio.h - whole-file input and crash-safe output for the wavelz CLI.
 *
 * Inputs are loaded entirely into memory (mapped when they are regular
 * files).  Outputs to a named file go to a temporary file beside it that is
 * renamed over the destination only once everything has been written, so a
 * failure or a signal never leaves a partial file behind.
 */
#ifndef WAVELZ_FILEIO_H
#define WAVELZ_FILEIO_H

#include <stddef.h>
#include <time.h>
#include <sys/types.h>

/* The file name that stands for stdin or stdout. */
#define FIO_STDIO_NAME "-"

/* Error codes beyond errno values (which are all positive). */
#define FIO_ERR_SAME_FILE (-1)  /* the output would replace the input */
#define FIO_ERR_IS_DIR    (-2)  /* a directory where a file is needed */
#define FIO_ERR_TOO_LARGE (-3)  /* the file does not fit in memory */

typedef struct fio_input {
	const unsigned char *data;
	size_t size;
	int is_stdin;
	int is_regular;         /* a regular file: its stat fields below hold */
	mode_t mode;
	dev_t dev;
	ino_t ino;
	struct timespec atime;
	struct timespec mtime;
	int read_errno;         /* errno of fio_read's failure (it may run on
				   another thread, whose errno is its own) */
	/* private */
	void *map_;             /* mapping to munmap, or NULL */
	size_t map_len_;
	void *buf_;             /* heap buffer to free, or NULL */
	int fd_;                /* fio_open_stream: the descriptor */
	int own_fd_;            /* ... which fio_close_stream closes */
	unsigned long long size_; /* fio_open_stream: a regular file's size */
	int eof_;
	unsigned long long nread_; /* bytes fio_read gave */
} fio_input;

typedef struct fio_output {
	int fd;                 /* -1 when closed */
	int is_stdout;
	int is_direct;          /* writing straight into a device or FIFO */
	char *path;             /* final name; NULL for stdout */
	char *tmp_path;         /* temporary name while writing, else NULL */
} fio_output;

/* Call once before any other function: catches SIGINT, SIGTERM and SIGHUP
 * so that an interrupted run removes its temporary file. */
void fio_init(void);

/* A buffer for a whole decoded file, released with free(): aligned and
 * marked for huge pages, to spare a page fault per 4 KiB on first touch. */
void *fio_alloc_large(size_t n);

/* A message for a code returned by the functions below. */
const char *fio_strerror(int err);

/* Load path ("-" = stdin) whole.  Returns 0 or an error code. */
int fio_load(fio_input *in, const char *path);
void fio_unload(fio_input *in);

/* Open path ("-" = stdin) to be read in pieces with fio_read, filling the
 * same stat fields as fio_load; *size gets a regular file's size, else
 * UINT64_MAX.  Returns 0 or an error code. */
int fio_open_stream(fio_input *in, const char *path, unsigned long long *size);
/* Up to cap bytes; 0 at the end, (size_t)-1 on error (errno set). */
size_t fio_read(fio_input *in, void *buf, size_t cap);
/* Up to cap bytes at offset off of a regular file opened so (several
 * threads may read at once): 0 at or past its end, (size_t)-1 on error
 * (read_errno set).  Counts nothing in nread_. */
size_t fio_pread(fio_input *in, void *buf, size_t cap, unsigned long long off);
void fio_close_stream(fio_input *in);

/* A list of paths that owns its strings. */
typedef struct fio_list {
	char **path;
	size_t n, cap;
} fio_list;

/* Appends path, or with recursive set and path a directory, the regular
 * files under it (not through symbolic links), each directory's entries
 * in name order.  Under a directory, keep(name) picks the files (NULL:
 * all).  Returns 0, or an errno value naming the first failure (the list
 * holds what was found before it). */
int fio_list_add(fio_list *l, const char *path, int recursive, int (*keep)(const char *name));
void fio_list_free(fio_list *l);

/* Would writing path replace a regular file (or a dangling link)? */
int fio_exists(const char *path);

/* Prepare to write path (NULL = stdout).  Without force an existing regular
 * file is EEXIST; in may be NULL, else writing over it is refused.  Existing
 * devices and FIFOs are written directly.  Returns 0 or an error code; on
 * error nothing is left to clean up. */
int fio_open(fio_output *out, const char *path, int force,
	     const fio_input *in);

/* Append n bytes (n may exceed 2 GiB). */
int fio_write(fio_output *out, const void *buf, size_t n);

/* The same for a fresh output, with positioned writes from up to threads
 * threads into a regular file (plain fio_write for stdout and devices). */
int fio_write_parallel(fio_output *out, const void *buf, size_t n, int threads);

/* Finish: copy in's permission bits and times (in may be NULL), close, and
 * move the temporary file into place.  On error the temporary file is gone
 * and the destination untouched. */
int fio_commit(fio_output *out, const fio_input *in, int force);

/* Give up: close and remove the temporary file.  Safe after fio_commit or
 * a failed fio_open. */
void fio_abort(fio_output *out);

#endif /* WAVELZ_FILEIO_H */
