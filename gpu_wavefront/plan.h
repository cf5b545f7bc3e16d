/*
 * plan.h - the host's plan of a GPU decode call: the members of its
 * archives (headers and index checked), their blocks in order, and those
 * cut into pieces.  A piece is decoded by one launch sequence; pieces run
 * in order on one output, so a piece's matches read the pieces before it
 * as final bytes.  Pieces let the transfers overlap the decoding, and an
 * archive larger than GPU memory be decoded with only its window
 * resident.
 */
#ifndef WLZ_GPU_PLAN_H
#define WLZ_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "format/format.h"

/* A member of the call. */
typedef struct wlz_gpu_cmember {
	wlz_member m;
	const uint8_t *harc;   /* its archive, on the host */
	const uint8_t *dsrc;   /* the same on the device, or NULL */
	uint32_t archive;      /* which archive of the call (the caller's number) */
	uint64_t hpos;         /* its content's first byte in the caller's output */
	uint64_t dpos;         /* in the device's output: 16-byte aligned */
} wlz_gpu_cmember;

/* A block of the call: member m's block b. */
typedef struct wlz_gpu_cblock {
	uint64_t m, b;
	uint64_t run;          /* its stored bytes' run (wlz_gpu_call_cut) */
} wlz_gpu_cblock;

/* Stored bytes [a0, a1) of archive harc, copied to slot offset slot of
 * the piece's device copy (16-byte aligned). */
typedef struct wlz_gpu_run {
	const uint8_t *harc, *dsrc;
	uint64_t a0, a1, slot;
} wlz_gpu_run;

typedef struct wlz_gpu_piece {
	uint64_t f0, nb;       /* blocks [f0, f0 + nb) of the call */
	uint64_t r0, nr;       /* runs [r0, r0 + nr) */
	uint64_t d0, d1;       /* its content in the device's output */
	uint64_t h0, h1;       /* in the caller's output */
	uint64_t arc;          /* slot bytes of its runs */
	uint64_t sbytes, ntok, nscr, pack; /* decoded streams, tokens, parse scratch words, aligned payloads */
	uint32_t max_lit, max_tok;
	unsigned max_level;     /* the highest dependency level of its blocks (255: unlimited) */
	uint64_t stat;         /* its verdict words' offset */
} wlz_gpu_piece;

/* Verdict words of a piece before its per-block words (the parse's nb + 1
 * flags, then nb flags of the other checks). */
#define WLZ_GPU_VERDICT_HEAD 12

typedef struct wlz_gpu_call {
	wlz_gpu_cmember *mem;
	size_t nm, mem_cap;
	wlz_gpu_cblock *blk;
	size_t nblk, blk_cap;
	wlz_gpu_piece *pc;
	size_t np, pc_cap;
	wlz_gpu_run *run;
	size_t nrun, run_cap;
	uint32_t narchives;
	uint64_t total;        /* content bytes, the caller's layout */
	uint64_t dtotal;       /* the device's layout */
	uint64_t wmax;         /* the largest window */
	uint64_t words;        /* verdict words of every piece */
	int same;              /* both layouts are one (every member starts 8-byte aligned) */
	int quiet_archives;    /* errors do not name the archive (a batch's items carry their own) */
	/* the most of any piece */
	uint64_t max_arc, max_sbytes, max_ntok, max_nscr, max_pack, max_nb, max_content;
	uint32_t max_lit, max_tok;
} wlz_gpu_call;

/* *p (an array of *cap elements of unit bytes) with room for need; 0
 * when memory runs out. */
int wlz_gpu_grow(void **p, size_t *cap, size_t need, size_t unit);

/* Empties the call (its arrays kept for the next). */
void wlz_gpu_call_clear(wlz_gpu_call *c);
void wlz_gpu_call_free(wlz_gpu_call *c);

/* Appends every member of the archive harc (size bytes, host memory; its
 * copy in device memory at dsrc, or NULL), numbered id: headers and index
 * checked, windows over memory_limit refused (WLZ_ERR_WINDOW), zstd-coded
 * streams refused (WLZ_ERR_GPU); on an error the call is as it was.  Its
 * content follows the call's content so far (the caller's layout); in the
 * device's, each member starts 16-byte aligned. */
wlz_error wlz_gpu_call_add(wlz_gpu_call *c, const uint8_t *harc, const uint8_t *dsrc, size_t size,
			   uint64_t memory_limit, uint32_t id);

/* The same for an image holding only what headers.c fetched: the members
 * must be those of expect (where they start, their sizes and block
 * counts), or the call is as it was and the caller copies the archive
 * whole. */
struct wlz_gpu_layout;
wlz_error wlz_gpu_call_add_checked(wlz_gpu_call *c, const uint8_t *harc, const uint8_t *dsrc, size_t size,
				   uint64_t memory_limit, uint32_t id, const struct wlz_gpu_layout *expect);

/* Cuts the call's blocks into pieces of about piece bytes of content (at
 * least one block each), and sets the most of any piece. */
wlz_error wlz_gpu_call_cut(wlz_gpu_call *c, uint64_t piece);

/* The same with pieces that grow from first bytes, each twice the last,
 * up to piece: the GPU starts on a small piece while the host prepares
 * the larger ones. */
wlz_error wlz_gpu_call_cut_ramp(wlz_gpu_call *c, uint64_t first, uint64_t piece);

/* Names block f of the call in an error ("block 3", "member 1: block 3",
 * "archive 2: block 0"). */
const char *wlz_gpu_call_name(const wlz_gpu_call *c, uint64_t f, char *buf, size_t cap);

/* The split (split.c): a member published a group at a time goes in
 * pieces of whole rounds of groups (a round: one group a GPU), each
 * decoded after the one before on every GPU's stream, so that the first
 * groups go back while the later ones are still going up or decoding.  A
 * piece for every WLZ_GPU_SPLIT_ROUNDS rounds, WLZ_GPU_SPLIT_PIECES at
 * most (want, where nonzero: that many, at most one a round); one piece
 * where the groups are not published (pub 0).  Where there are rounds
 * enough, the first piece is a quarter of the later ones and the second a
 * half, so that the links start sooner (bench/host/issue16-split.md).
 * Piece k is groups pg[k] to pg[k + 1] - 1 (pg[0] = 0, each a multiple of
 * ng but the last, ngroups); returns the number of pieces. */
#define WLZ_GPU_SPLIT_PIECES 8
#define WLZ_GPU_SPLIT_ROUNDS 16
uint64_t wlz_gpu_split_cut(uint64_t ngroups, int ng, int pub, uint64_t want, uint64_t *pg);

/* log2 of a group's bytes where member m's groups of group blocks (a power
 * of two) can be published whole (flow.h): blocks of one power-of-two
 * size, none longer, and tokens in every group; else 0. */
uint32_t wlz_gpu_split_shift(const wlz_member *m, uint64_t group);

#endif
