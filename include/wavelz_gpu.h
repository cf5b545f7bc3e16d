/*
 * wavelz_gpu.h - decoding wavelz archives on a GPU (CUDA).
 *
 * Built only where the CUDA toolkit was found (the library wlz_gpu);
 * wavelz.h alone never needs it.  Every stage runs on the GPU: the stream
 * codec, token parsing, literals and matches, and the XXH3-64 of every
 * block's payload and content, checked against the archive.  The archive's
 * headers and index are read on the host (of an archive in device memory,
 * only those bytes come back, found from its footer; a damaged one is
 * copied back whole, so that its verdict is the same), and every rule of SPEC.md section 7 is
 * checked as the CPU decoder checks it; on an error the output is
 * unspecified and the call says which rule failed (wlz_error_detail()).
 *
 * Archives whose streams are zstd-coded (--streams=zstd) cannot be decoded
 * on a GPU: WLZ_ERR_GPU, with that said in the detail.
 *
 * A call decodes its blocks in pieces, in order, on one output; stored
 * bytes go up and content comes down while the piece before or after
 * decodes.  Decoding to the host, an archive whose content does not fit
 * in GPU memory is decoded with only its window (2^window_log bytes, at
 * most the memory limit) kept on the GPU beside the piece; decoding to
 * device memory, the content and about twice a piece's size must fit.
 */
#ifndef WAVELZ_GPU_H
#define WAVELZ_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "wavelz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GPUs visible to this process (0 when none, or no driver). */
int wlz_gpu_count(void);

/* A GPU decoding context: its device, buffers (kept and grown from call to
 * call) and a stream of its own.  NULL when the device does not exist. */
typedef struct wlz_gdctx wlz_gdctx;
wlz_gdctx *wlz_gdctx_create(int device);
void wlz_gdctx_free(wlz_gdctx *g);

/* Members whose window is over bytes are refused (WLZ_ERR_WINDOW), as by
 * the CPU decoder (wlz_dctx_set_memory_limit), so that both accept the
 * same archives; 0 restores WLZ_MEMORY_LIMIT_DEFAULT. */
void wlz_gdctx_set_memory_limit(wlz_gdctx *g, uint64_t bytes);

/* The most GPU memory a call may take, in bytes (0: what is free when it
 * starts).  Calls that would need more decode in smaller pieces, or fail
 * with WLZ_ERR_NOMEM. */
void wlz_gdctx_set_gpu_memory(wlz_gdctx *g, uint64_t bytes);

/* Content bytes a piece (0: chosen: a quarter of the content, 32 to 256
 * MiB, where content comes down to the host; else pieces of 4 GiB, fewer
 * bytes where GPU memory is short).  Pieces hold whole blocks. */
void wlz_gdctx_set_piece_size(wlz_gdctx *g, uint64_t bytes);

/* Host to host: src (host memory) decoded into dst (host memory).  dst
 * from wlz_gpu_host_alloc (pinned) is written by DMA, at full speed; any
 * other host memory works, more slowly.  dst NULL: every check, no copy
 * back (a test).  *dst_size receives the content's size.  Synchronous. */
wlz_error wlz_gpu_decompress(wlz_gdctx *g, void *dst, size_t dst_cap, const void *src, size_t src_size,
			     size_t *dst_size);

/* Host to a write function: the content of src (host memory) handed to wr
 * in order, piece by piece, each only after every check of it held (a
 * piece ends where a block ends), from pinned memory; any size of content,
 * in bounded GPU memory.  On an error, what was written stays written.
 * *content_size (may be NULL) receives the bytes written.  Synchronous. */
wlz_error wlz_gpu_decompress_stream(wlz_gdctx *g, const void *src, size_t src_size, wlz_write_fn wr, void *opaque,
				    uint64_t *content_size);

/* Asynchronous forms, on the caller's stream (a cudaStream_t; NULL is the
 * context's own, which first waits for the work queued before the call on
 * the legacy default stream, as a plain cudaMemcpy of the source): d_dst is device memory; src is host memory (_h2d), or
 * device memory (_d2d).  They return once every stage is queued, or with
 * an error found before (a bad header, index, size; the work queued
 * before it is then finished); the GPU's verdict (checksums, streams,
 * tokens) comes from wlz_gdctx_wait, which waits for the stream.  Source
 * memory must stay valid until then, and a context takes no new call
 * before its verdict was taken (WLZ_ERR_PARAM). */
wlz_error wlz_gpu_decompress_h2d(wlz_gdctx *g, void *d_dst, size_t dst_cap, const void *src, size_t src_size,
				 size_t *dst_size, void *stream);
wlz_error wlz_gpu_decompress_d2d(wlz_gdctx *g, void *d_dst, size_t dst_cap, const void *d_src, size_t src_size,
				 size_t *dst_size, void *stream);
wlz_error wlz_gdctx_wait(wlz_gdctx *g);
/* One archive on several GPUs at once, host to host: each member's blocks
 * in groups dealt to the ng GPUs of g in turn, every GPU reading the
 * others' bytes over peer access, so that a large archive decodes faster
 * than on one (bench/RESULTS.md).  Each GPU holds its share of a
 * member's content, the member's stored bytes and a token table for the
 * whole member, so a member must fit in one GPU's memory with room to
 * spare (WLZ_ERR_NOMEM
 * otherwise; the CLI then decodes it on one GPU, in pieces); every GPU must
 * reach every other's (WLZ_ERR_GPU otherwise).  Checks and output as
 * wlz_gpu_decompress (dst NULL: checks only); ng = 1 is that call.
 * Synchronous.  Each GPU copies its groups into dst, each as soon as it
 * is final where the blocks are of one size (side by side with the
 * decode where dst is pinned; such a member goes in up to 8 pieces, each
 * decoded while the one before goes back); on an error dst's contents
 * are unspecified.  Each context keeps the device memory
 * its GPU's share took (a slot a piece), for the next split, until it is
 * freed.  Checked on small
 * archives (tests/gpu_api), also as a
 * process's first GPU work (the case that once stalled:
 * bench/host/issue16-split.md); the CLI uses it where
 * WAVELZ_GPU_SPLIT_MIN asks (it writes nothing before the whole archive
 * is decoded, so one GPU writing as it decodes measured faster).  A
 * member with no depth limit (blocks' max_level over 32) decodes on the
 * first GPU alone: one GPU resolves its sources first, the split does
 * not, and one GPU measured faster on such archives.  At
 * most WLZ_GPU_SPLIT_MAX GPUs.  It turns peer access on once a process:
 * a caller must not reset those devices or turn it off between splits. */
#define WLZ_GPU_SPLIT_MAX 8
wlz_error wlz_gpu_decompress_split(wlz_gdctx *const *g, int ng, void *dst, size_t dst_cap, const void *src,
				   size_t src_size, size_t *out_size);


/* The context's GPU memory in bytes (0 if unknown): a decode needs about
 * three times the content. */
uint64_t wlz_gdctx_memory(wlz_gdctx *g);

/* Many archives as one job: small ones share launches, so a batch fills
 * the GPU as one large archive does.  Each item is judged alone: a bad
 * archive gets its error (err, detail) and the others decode.  Content
 * goes to wr (in order within each archive, piece by piece, each only
 * after its checks held; on an error what was written stays written), or
 * else to each item's d_dst (device memory, dst_cap bytes) or h_dst (host
 * memory, dst_cap bytes, written by DMA as pieces decode: pinned memory
 * from wlz_gpu_host_alloc at full speed; a bad item's buffer then holds
 * unspecified bytes), one kind for the whole batch, or nowhere (check
 * only).  Returns WLZ_OK when every item decoded, else the first bad
 * item's error.  Synchronous. */
typedef struct wlz_gpu_item {
	const void *src;         /* the archive: host memory, or device memory with WLZ_GPU_SRC_DEVICE */
	size_t src_size;
	void *d_dst;             /* (optional) device memory for its content */
	void *h_dst;             /* (optional, not with d_dst in the same batch) host memory for it */
	size_t dst_cap;          /* d_dst's or h_dst's bytes */
	int gpu;                 /* _multi: the context (index) to decode it, or -1: any; out: the one that did */
	uint64_t content_size;   /* out */
	wlz_error err;           /* out */
	char detail[WLZ_DETAIL_MAX]; /* out: what failed */
} wlz_gpu_item;
typedef int (*wlz_gpu_item_write_fn)(void *opaque, size_t item, const void *buf, size_t n);
#define WLZ_GPU_SRC_DEVICE 1u     /* items' src are device memory */
#define WLZ_GPU_STOP_ON_ERROR 2u  /* stop at the first bad archive */
wlz_error wlz_gpu_decompress_batch(wlz_gdctx *g, wlz_gpu_item *items, size_t n, unsigned flags,
				   wlz_gpu_item_write_fn wr, void *opaque);

/* The same on ng GPUs (one context each): items with gpu -1 spread over
 * them by stored bytes (largest first, to the least loaded), each GPU's
 * share decoded as one batch on a host thread of its own, at once.  wr is
 * then called from those threads, for different items at the same time.
 * An item's src (with WLZ_GPU_SRC_DEVICE) and d_dst must be on its GPU:
 * give it that gpu. */
wlz_error wlz_gpu_decompress_batch_multi(wlz_gdctx *const *g, int ng, wlz_gpu_item *items, size_t n,
					 unsigned flags, wlz_gpu_item_write_fn wr, void *opaque);

/* How the context's last call went. */
typedef struct wlz_gpu_stats {
	uint64_t pieces;    /* launch sequences, each a run of whole blocks */
	uint64_t resident;  /* bytes of content kept on the GPU at once: all of it, or a slab */
	uint64_t moves;     /* times the window was moved to the slab's front */
	uint64_t gpu_bytes; /* device memory the context holds */
	double host_check_s; /* host seconds reading and checking headers and index */
	double host_queue_s; /* host seconds planning and queueing the pieces */
	double host_wait_s;  /* of those, waiting for pieces prepared and for the GPU */
	double gpu_s;        /* the decoding stream's span, first piece to last (0 if unknown;
			      * read after the call's verdict) */
	double host_finish_s; /* (batch calls) host seconds after the last piece was queued:
			       * waiting for the GPU, verdicts, content to the items' buffers */
	uint64_t host_copies; /* device-resident archives copied whole to the host to read their
			       * headers (only those whose structure could not be followed from
			       * their footers: damaged ones) */
} wlz_gpu_stats;
void wlz_gdctx_stats(const wlz_gdctx *g, wlz_gpu_stats *s);

/* ---------------------------------------------------------- compression
 *
 * The GPU compressor (gpu_compress/) writes the same format with an LZSS
 * front end made for a GPU: a dense near finder per block, a sparse far
 * finder over the whole input, a greedy parse per 4 KiB chunk, dependency
 * levels under a depth limit, and codec 2 streams, every stage on the GPU.
 * Its archives are larger than the CPU encoder's (SPEC.md section 8) and
 * decode on both decoders.  Output is byte-identical to the CPU reference
 * of the same steps (wlz_gc_ref_compress, tests only).  An input over
 * 2 GiB is written as members of up to 2 GiB each. */
typedef struct wlz_gpu_copts {
	unsigned block_log;  /* 16..22 (default 20: 1 MiB blocks) */
	int depth;           /* dependency depth limit 0..200 (default 10) */
	unsigned symbol;     /* 1, 2 or 4 (default 1): matches start, end and
			      * reach back on whole S-byte elements (int16,
			      * int32, float arrays) */
} wlz_gpu_copts;
void wlz_gpu_copts_init(wlz_gpu_copts *o);

/* A GPU compression context: device, buffers (kept and grown from call to
 * call) and a stream.  NULL when the device does not exist. */
typedef struct wlz_gcctx wlz_gcctx;
wlz_gcctx *wlz_gcctx_create(int device);
void wlz_gcctx_free(wlz_gcctx *g);

/* The largest archive an input of n bytes gives. */
size_t wlz_gpu_compress_bound(uint64_t n);

/* Host to host: src (host memory) compressed into dst (host memory, of at
 * least wlz_gpu_compress_bound(src_size) bytes for certain success).
 * Synchronous. */
wlz_error wlz_gpu_compress(wlz_gcctx *g, const wlz_gpu_copts *o, void *dst, size_t dst_cap, const void *src,
			   size_t src_size, size_t *dst_size);

/* Device to device, asynchronous on the caller's stream (a cudaStream_t;
 * NULL: the context's own, which first waits for the work queued before
 * the call on the legacy default stream): d_src and d_dst are device memory; the call
 * returns once every stage is queued, and *dst_size (host memory) is
 * valid after wlz_gcctx_wait.  The input must stay valid until then.
 * d_src on a 16-byte boundary is read in place; elsewhere it is first
 * copied to one (device memory of its size more, and the copy's time). */
wlz_error wlz_gpu_compress_d2d(wlz_gcctx *g, const wlz_gpu_copts *o, void *d_dst, size_t dst_cap,
			       const void *d_src, size_t src_size, size_t *dst_size, void *stream);
wlz_error wlz_gcctx_wait(wlz_gcctx *g);

/* Many buffers, each compressed to an archive of its own (a member):
 * host to host, or with WLZ_GPU_SRC_DEVICE | WLZ_GPU_DST_DEVICE device to
 * device (each at most 2 GiB; dst_cap at least wlz_gpu_compress_bound).
 * Each item is judged alone (err, dst_size) unless WLZ_GPU_STOP_ON_ERROR;
 * returns WLZ_OK when all were compressed, else the first error.  The
 * items go one after another: small buffers do not share launches yet.
 * Synchronous. */
typedef struct wlz_gpu_citem {
	const void *src;
	size_t src_size;
	void *dst;
	size_t dst_cap;
	size_t dst_size;     /* out */
	wlz_error err;       /* out */
} wlz_gpu_citem;
#define WLZ_GPU_DST_DEVICE 4u  /* items' dst are device memory */
wlz_error wlz_gpu_compress_batch(wlz_gcctx *g, const wlz_gpu_copts *o, wlz_gpu_citem *items, size_t n,
				 unsigned flags);

/* Seconds of the context's last call per stage, on the GPU (read after
 * the call's wait): tables (near and far), find (each position's best
 * match), parse, levels, streams (token streams), entropy (codec 2),
 * finish (checksums, index and assembly). */
typedef struct wlz_gpu_cstats {
	double tables_s, find_s, parse_s, levels_s, streams_s, entropy_s, finish_s;
} wlz_gpu_cstats;
void wlz_gcctx_stats(const wlz_gcctx *g, wlz_gpu_cstats *s);

/* Pinned host memory (for wlz_gpu_decompress's dst and src: transfers at
 * full speed); NULL when it cannot be had. */
void *wlz_gpu_host_alloc(size_t size);
void wlz_gpu_host_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
