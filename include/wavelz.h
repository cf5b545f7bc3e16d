/*
 * wavelz.h - the public interface of libwavelz.
 *
 * wavelz is an LZ77 archive format built for parallel decoding: the output is
 * cut into independent blocks whose matches name absolute positions in the
 * decoded output, so any block can be decoded once its source bytes exist.
 * SPEC.md describes the bytes; this header is the only one users include.
 *
 * Conventions
 *  - Every function returns a wlz_error; WLZ_OK (zero) is success and
 *    wlz_error_name() names the others.  Sizes come back through pointers.
 *  - Contexts are opaque, made by *_create and released by *_free (which
 *    accept NULL).  A context may be reused for any number of calls but must
 *    not be used by two threads at once; distinct contexts are independent.
 *  - The library never keeps pointers to caller buffers past a call.
 */
#ifndef WAVELZ_H
#define WAVELZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WLZ_VERSION_MAJOR 0
#define WLZ_VERSION_MINOR 1
#define WLZ_VERSION_PATCH 0
#define WLZ_VERSION_STRING "0.1.0"

/* The archive format version this library writes (and the newest it reads). */
#define WLZ_FORMAT_VERSION 5

#define WLZ_LEVEL_MIN 1
#define WLZ_LEVEL_MAX 19
#define WLZ_LEVEL_DEFAULT 3

/* Block sizes are powers of two, 64 KiB .. 64 MiB; 1 MiB by default. */
#define WLZ_BLOCK_LOG_MIN 16
#define WLZ_BLOCK_LOG_MAX 26
#define WLZ_BLOCK_LOG_DEFAULT 20

/* Windows: no match reaches back more than 2^window_log bytes.  The format
 * allows up to 2^40; this encoder writes at most 2^31 (--long=31). */
#define WLZ_WINDOW_LOG_MAX 40
#define WLZ_WINDOW_LOG_ENC_MAX 31
/* Streaming decoders refuse windows over their memory limit; this is the
 * default limit (2 GiB: every window the encoder picks by itself). */
#define WLZ_MEMORY_LIMIT_DEFAULT ((uint64_t)1 << 31)

/* Depth limit: -1 means unlimited. */
#define WLZ_DEPTH_UNLIMITED (-1)

/* Blocks that decode at once without waiting on each other: no match reads
 * the parallel - 1 blocks before its own.  1 allows every earlier block
 * (and drops the diagonal rule, SPEC.md section 8).  WLZ_PARALLEL_AUTO, the
 * default, is WLZ_PARALLEL_DEFAULT below level WLZ_LEVEL_SIZE_FIRST and 1
 * from it on: those levels ask for the smallest archive, which then decodes
 * in block order on the CPU (on GPUs by dependency levels as any other). */
#define WLZ_PARALLEL_MAX 1024
#define WLZ_PARALLEL_DEFAULT 16
#define WLZ_PARALLEL_AUTO 0
#define WLZ_LEVEL_SIZE_FIRST 17

typedef enum wlz_error {
	WLZ_OK = 0,
	WLZ_ERR_PARAM,          /* NULL pointer, out-of-range option */
	WLZ_ERR_NOMEM,          /* an allocation failed */
	WLZ_ERR_DST_TOO_SMALL,  /* the destination cannot hold the result */
	WLZ_ERR_SRC_TOO_LARGE,  /* input beyond what the format can describe */
	WLZ_ERR_TRUNCATED,      /* the archive ends early */
	WLZ_ERR_BAD_MAGIC,      /* not a wavelz archive */
	WLZ_ERR_BAD_VERSION,    /* a format version this library cannot read */
	WLZ_ERR_BAD_HEADER,     /* header fields out of range or inconsistent */
	WLZ_ERR_BAD_INDEX,      /* the block index is inconsistent */
	WLZ_ERR_BAD_STREAM,     /* a stream fails to decode (entropy stage) */
	WLZ_ERR_BAD_TOKEN,      /* a token breaks a rule: bounds, stream lengths */
	WLZ_ERR_CHECKSUM,       /* decoded bytes do not match their XXH3-64 */
	WLZ_ERR_THREAD,         /* a worker thread could not be started */
	WLZ_ERR_WINDOW,         /* the archive's window exceeds the memory limit */
	WLZ_ERR_READ,           /* the read callback failed */
	WLZ_ERR_WRITE,          /* the write callback failed (or asked to stop) */
	WLZ_ERR_INTERNAL,       /* a bug: please report it */
	WLZ_ERR_GPU,            /* no such GPU, a CUDA failure, or an archive a GPU cannot decode */
	WLZ_ERR_COUNT_          /* number of codes; not an error */
} wlz_error;

/* A static, human-readable name for an error code; never NULL. */
const char *wlz_error_name(wlz_error err);

/* What exactly the last failing call made on this thread found, such as
 * "block 3: token 17: match source before the start of the output"; "" when
 * it gave no detail.  Decoding and inspecting functions fill it in (errors
 * found by worker threads included); it stays valid until this thread's
 * next call into the library. */
#define WLZ_DETAIL_MAX 192
const char *wlz_error_detail(void);

/* Called from the calling thread as work completes; done <= total bytes. */
typedef void (*wlz_progress_fn)(void *opaque, uint64_t done, uint64_t total);

/*
 * Options.  Call wlz_options_init() first, then change fields; the first
 * field is the struct's own size so that later versions can grow it.
 */
typedef struct wlz_options {
	size_t struct_size;     /* set by wlz_options_init */
	int level;              /* 1..19; higher is slower and smaller */
	int threads;            /* worker threads; 0 = every online core */
	unsigned block_log;     /* log2 of the block size, 16..26 */
	int depth;              /* dependency depth limit; -1 = unlimited */
	int flatten;            /* chain flattening inside blocks: 0 off, 1 priced
				   (default), 2 full (no chains left; lazy parse) */
	int parallel;           /* 1..WLZ_PARALLEL_MAX: no match reads the
				   parallel - 1 blocks before its own (16:
				   threads decoding neighbouring blocks do
				   not wait on or read from each other; the
				   default, WLZ_PARALLEL_AUTO, is 16 below
				   level 17 and 1 from it on); an
				   input whose size is known uses 1 under 16
				   blocks (its matches may read the blocks
				   just before their own), then at most
				   N - 15 for N blocks, or N / 16 + 1 at
				   levels 10 and up */
	unsigned window_log;    /* 0: the level's default, cut to the input's
				   size when known; else block_log..31 */
	wlz_progress_fn progress;
	void *progress_opaque;
	int streams;            /* stream codecs (SPEC.md, section 5):
				   WLZ_STREAMS_HUF (default) raw or codec 2,
				   which both the CPU and GPU decoders read;
				   WLZ_STREAMS_ANY the smallest of raw, codec 2
				   and zstd; WLZ_STREAMS_ZSTD raw or zstd */
} wlz_options;

enum { WLZ_STREAMS_HUF = 0, WLZ_STREAMS_ANY = 1, WLZ_STREAMS_ZSTD = 2 };

void wlz_options_init(wlz_options *opt);

/* ---------------------------------------------------------------- compress */

typedef struct wlz_cctx wlz_cctx;

/* opt may be NULL for defaults.  Returns NULL when out of memory or when an
 * option is out of range (use wlz_options_check to tell which). */
wlz_cctx *wlz_cctx_create(const wlz_options *opt);
void wlz_cctx_free(wlz_cctx *cctx);

/* WLZ_OK if every option is in range. */
wlz_error wlz_options_check(const wlz_options *opt);

/* The largest archive that compressing src_size bytes can produce, for any
 * options; 0 if src_size is beyond what the format can describe. */
size_t wlz_compress_bound(uint64_t src_size);

/* Compress src[0..src_size) into dst as one archive; *dst_size receives its
 * size. */
wlz_error wlz_compress(wlz_cctx *cctx, void *dst, size_t dst_capacity,
		       const void *src, size_t src_size, size_t *dst_size);

/* Streaming I/O.  A read function fills buf with up to cap bytes and
 * returns how many, 0 at the end of input, or (size_t)-1 on error.  A write
 * function takes all n bytes and returns 0, or nonzero to stop the call
 * (which then returns WLZ_ERR_WRITE). */
typedef size_t (*wlz_read_fn)(void *opaque, void *buf, size_t cap);
typedef int (*wlz_write_fn)(void *opaque, const void *buf, size_t n);

/* Compress everything rd gives into one archive written through wr, in
 * memory set by the options (wlz_compress_memory), whatever the input's
 * size.  size_hint is the input's size if known, else UINT64_MAX; a known
 * size is stored in the header and must then be exact. */
wlz_error wlz_compress_stream(wlz_cctx *cctx, wlz_read_fn rd, void *rd_opaque,
			      wlz_write_fn wr, void *wr_opaque, uint64_t size_hint);

/* Reads up to cap bytes of the input at offset off into buf: returns how
 * many, 0 at or past its end, or (size_t)-1 on error.  It may be called
 * from several threads at once, for different offsets. */
typedef size_t (*wlz_pread_fn)(void *opaque, void *buf, size_t cap, uint64_t off);

/* As wlz_compress_stream, for an input of a known size that can be read at
 * any offset (a regular file, memory): the worker threads read it, a piece
 * each, so that the first blocks start before a reader would have read
 * them.  The archive is the same as wlz_compress_stream's. */
wlz_error wlz_compress_pread(wlz_cctx *cctx, wlz_pread_fn rd, void *rd_opaque, uint64_t size,
			     wlz_write_fn wr, void *wr_opaque);

/* Kept for compatibility; it changes nothing now:
 * wlz_compress_stream always calls its read and write functions, and
 * reports progress, from the caller's thread, one call at a time and in
 * order, while worker threads parse the blocks (the next blocks' input is
 * read, and finished ones written, in no worker's time).
 * wlz_compress_pread (and wlz_compress) calls its write function so, and
 * its read function from any thread. */
void wlz_cctx_set_io_thread(wlz_cctx *cctx, int on);

/* Peak memory, in bytes, of compressing with these options on threads
 * threads (0 = all cores), whatever the input's size. */
uint64_t wlz_compress_memory(const wlz_options *opt);

/* -------------------------------------------------------------- decompress */

typedef struct wlz_dctx wlz_dctx;

/* threads: 0 = every online core.  Returns NULL when out of memory. */
wlz_dctx *wlz_dctx_create(int threads);
void wlz_dctx_free(wlz_dctx *dctx);
void wlz_dctx_set_progress(wlz_dctx *dctx, wlz_progress_fn fn, void *opaque);

/* Decode a whole archive in memory: one or more members back to back,
 * their contents concatenated.  Every block checksum and the content
 * checksums are verified; on any error the contents of dst are
 * unspecified. */
wlz_error wlz_decompress(wlz_dctx *dctx, void *dst, size_t dst_capacity,
			 const void *src, size_t src_size, size_t *dst_size);

/* Nonzero: wlz_decompress_stream calls its write function from a thread
 * of its own, one call at a time and in order, while it decodes the next
 * blocks (the write's copy and the output file's pages then cost no
 * decoding time).  Default 0: from the caller's thread. */
void wlz_dctx_set_write_thread(wlz_dctx *dctx, int on);

/* fn(opaque, k, archive_bytes, content_bytes) after each member k (from
 * 0) that wlz_decompress_stream has decoded and judged whole (its content
 * written, its index and footer checked): concatenated archives' members
 * one by one.  NULL: none. */
typedef void (*wlz_member_fn)(void *opaque, unsigned member, uint64_t archive_bytes, uint64_t content_bytes);
void wlz_dctx_set_member_fn(wlz_dctx *dctx, wlz_member_fn fn, void *opaque);

/* The largest window a streaming decode accepts (0 = the default,
 * WLZ_MEMORY_LIMIT_DEFAULT); decoding memory is about the window plus the
 * blocks in flight. */
void wlz_dctx_set_memory_limit(wlz_dctx *dctx, uint64_t bytes);

/* Decode the archive rd gives, front to back, writing the content through
 * wr: memory is the window and the blocks in flight, whatever the size.
 * Only blocks whose checksums held are written; on an error what was
 * written before it stays written (the caller removes a partial file).
 * *content_size (may be NULL) receives the bytes written. */
wlz_error wlz_decompress_stream(wlz_dctx *dctx, wlz_read_fn rd, void *rd_opaque,
				wlz_write_fn wr, void *wr_opaque, uint64_t *content_size);

/* ---------------------------------------------------------------- inspect */

typedef struct wlz_info {
	unsigned format_version;
	unsigned window_log;        /* matches reach back at most 2^window_log */
	unsigned level;             /* level the archive was written at */
	int depth;                  /* depth limit recorded, -1 = unlimited */
	unsigned block_log;
	uint64_t content_size;      /* decoded size in bytes */
	uint64_t archive_size;      /* size of the member in bytes */
	uint64_t block_count;
	uint64_t content_checksum;  /* XXH3-64 of the blocks' content checksums */
	uint64_t token_count;       /* sequences over all blocks */
	unsigned max_level;         /* highest dependency level recorded */
} wlz_info;

/* Validate the headers, index and footer of the archive member at the
 * start of src (not the streams) and describe it; info->archive_size says
 * where the next member, if any, starts.  Needs the member in memory. */
wlz_error wlz_get_info(const void *src, size_t src_size, wlz_info *info);

/* Token statistics of an archive, with every token's dependency level
 * recomputed from its decoded tokens (not read from the index). */
typedef struct wlz_stats {
	uint64_t tokens;             /* every token is one match */
	uint64_t literal_bytes;
	uint64_t match_bytes;
	uint64_t cross_block;        /* matches whose source starts before their block */
	uint64_t far;                /* matches reaching back more than 16 MiB */
	unsigned max_level;          /* recomputed; 255 = 255 or more */
	double mean_level;
	uint64_t level_hist[256];    /* tokens per level, [255] = 255 or more */
	uint64_t index_understated;  /* blocks whose recorded max_level is too low */
	uint64_t chained;            /* matches reading bytes a match of their own block wrote */
	uint64_t chained_misstated;  /* blocks whose recorded chained count is wrong */
} wlz_stats;

/* Decodes the streams of every block of the first member (not the content)
 * and fills *st.  Needs memory of the content size.  Verifies payload
 * checksums. */
wlz_error wlz_get_stats(const void *src, size_t src_size, wlz_stats *st);

/* The total content size of an archive in memory (every member), to size an
 * output buffer before decoding. */
#define WLZ_HEADER_SIZE 32
wlz_error wlz_get_content_size(const void *src, size_t src_size,
			       uint64_t *content_size);

#ifdef __cplusplus
}
#endif
#endif /* WAVELZ_H */
