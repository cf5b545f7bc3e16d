/*
 * flow.h - GPU token execution in one persistent pass (SPEC.md section
 * 6.1): every token runs once, waiting only on the chunks of tokens that
 * wrote the bytes it reads.
 */
#ifndef WLZ_GPU_FLOW_H
#define WLZ_GPU_FLOW_H

#include "gpu_wavefront/parse.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of work area wlz_gpu_flow needs for ntok tokens and size bytes. */
size_t wlz_gpu_flow_work(size_t ntok, uint64_t size);

/* Words of wlz_gpu_flow's d_fail. */
#define WLZ_GPU_FLOW_FAIL 8

/* Writes the content of n blocks into d_out (size bytes): every token's
 * literals and match, from wlz_gpu_parse's tokens (ntok of them) and the
 * decoded streams, and the blocks' tails (max_lit: the largest literal
 * stream among them, rsize[1]).  A block with d_bad[b] nonzero (the
 * parse's flags) is not written, and its tokens are made empty first, so
 * that the others decode (their sources checked by the parse: a block
 * reading one that was not written gets wrong bytes, which its checksum
 * then finds).  d_fail[0] becomes nonzero if the pass gave up, a token
 * having waited far too long (a defect: the lowest pending token can
 * always run); d_fail[1..5] then name it (token, first and last token
 * waited on, that one's state, its waits inside its chunk).  Asynchronous
 * on stream; returns nonzero on a CUDA error.  d_streams and every
 * block's s_off must be 16-byte aligned, with 16 readable bytes after each
 * stream, as wlz_gpu_pblock_next lays them out: the literal kernel loads
 * the literal stream 16 bytes at a time.  rounds and window: the
 * resolution below.  d_ops (2 ntok entries; NULL: none), with rounds:
 * tokens are also cut once where their source runs past the edge of the
 * match output it starts in, each piece resolved on its own, and the pass
 * runs over the pieces in d_ops (d_work then sized by
 * wlz_gpu_flow_work(2 ntok, size)). */
int wlz_gpu_flow(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_lit, wlz_gpu_token *d_tok, size_t ntok,
		 const uint8_t *d_streams, uint8_t *d_out, uint64_t size, void *d_work, const uint32_t *d_bad,
		 uint32_t *d_fail, unsigned rounds, uint64_t window, wlz_gpu_token *d_ops, void *stream);

/* Before the pass, rounds rounds of resolving the tokens' sources through
 * the matches that wrote them (0: none; at least 2^rounds - 1 links a
 * token; a round after the first looks only at the tokens the round
 * before moved), never further back than window (the least of the
 * blocks' windows); the tokens' src fields are rewritten with them.  The
 * bytes each token copies do not change, but the chains the pass waits on
 * shorten: worth it where the blocks' levels are high (an archive with no
 * depth limit), and the rounds for such a piece: */
#define WLZ_GPU_FLOW_RESOLVE_LEVEL 32
#define WLZ_GPU_FLOW_RESOLVE_ROUNDS 8
unsigned wlz_gpu_flow_resolve_for(unsigned max_level);

/* Whether to cut tokens (d_ops) in a piece of ntok tokens and bytes bytes
 * of content whose blocks' highest level is max_level: where it resolves,
 * and its tokens are long.  Cutting shortens the chains the pass waits on
 * but costs every token a pass of its own (the cut, the expansion, the
 * pieces' index), so it pays where chains, not tokens, bound the pass
 * (bench/host/issue15-flow.md). */
#define WLZ_GPU_FLOW_CUT_BYTES 24
int wlz_gpu_flow_cut_for(unsigned max_level, uint64_t bytes, uint64_t ntok);

/* One member split over GPUs by blocks (bench/gpu_split.cu): every GPU
 * decodes the streams, tokens and literals of its own blocks, and runs the
 * pass over its own tokens, reading other GPUs' bytes and polling their
 * tokens' states over peer access.  The output, tok, gidx and state are
 * one range of addresses every GPU reads (the output at the member's
 * positions, tok at the blocks' tok_off).  A token's state is published
 * at the GPU's scope for its own GPU, and once its chunk is done at system
 * scope into every other GPU's memory, where they poll it.  A GPU's tokens are nr ranges of consecutive tokens, in
 * member order (groups of blocks dealt to the GPUs in turn keep their
 * fronts close, so that few sources lie in bytes another GPU has yet to
 * write).  The range arrays are in device memory. */
#define WLZ_GPU_FLOW_PEERS 7
typedef struct wlz_gpu_flow_split {
	wlz_gpu_token *tok;      /* every token of the member */
	uint64_t ntok;
	const uint32_t *rfirst;  /* nr: each range's first token */
	const uint32_t *rtok;    /* nr + 1: this GPU's tokens before each range (rtok[nr]: all of them) */
	const uint32_t *rchunk;  /* nr + 1: its chunks (32 tokens, a range's last one short) before each */
	uint32_t nr;
	uint64_t count, nchunk;  /* rtok[nr] and rchunk[nr] */
	/* In this GPU's memory, ntok words each but gidx
	 * (wlz_gpu_flow_granules(size)): the granule table, every GPU's
	 * granules; its own tokens' states; the other GPUs' tokens' states,
	 * which they write here once a chunk is done. */
	uint32_t *gidx, *state, *rstate;
	/* In this GPU's memory, ntok / 32 + 1 words: a bit a token, set
	 * where it is this GPU's (written by step 1). */
	uint32_t *own;
	/* In this GPU's memory, ntok words of 64 bits: every token's
	 * position (each GPU writes its own tokens' into every GPU's: step
	 * 1); and the other GPUs' tpos. */
	uint64_t *tpos, *peer_tpos[WLZ_GPU_FLOW_PEERS];
	/* A diagnostic (bench/gpu_split.cu), NULL in the library: 4
	 * counters the pass adds to (chunks run, and stalled polls of a warp
	 * whose first waiting lane waits on another GPU's token, on one of
	 * this GPU's earlier chunks, on a token of its own chunk). */
	unsigned long long *stats;
	/* A diagnostic (bench/gpu_split.cu), NULL in the library: 5
	 * cudaEvent_t of this GPU that step 1 records: at its start, after
	 * the scrub and ownership, after the literals, after the index, and
	 * after the copy to the other GPUs (on side, beside the literals). */
	void *prep_ev;
	/* The other GPUs' gidx and rstate, where this one writes its own
	 * (the granules by step 1's copy, the states by the pass). */
	uint32_t *peer_gidx[WLZ_GPU_FLOW_PEERS], *peer_rstate[WLZ_GPU_FLOW_PEERS];
	unsigned npeers;
	/* A done token's rstate in this call: rstate is zeroed once, and each
	 * call has a new epoch (so that no GPU clears another's words). */
	uint32_t epoch;
	uint32_t *ticket;        /* one word, this GPU's */
	/* Publication a group at a time (where gflag is set): blocks are
	 * dealt to the GPUs in groups of 2^gshift output bytes (no shorter
	 * than a block), group k to GPU k % ngpus, range r of this GPU being
	 * group r * ngpus + gpu.  tok then holds this GPU's own tokens only
	 * (at their member indices), and a source in another GPU's group is
	 * waited on by that group's flag alone, so that no table is copied
	 * between GPUs and the pass reads no other GPU's token.  gflag (this
	 * GPU's memory, a word a group): a group of another GPU is done once
	 * its word holds epoch (every group must have tokens: a group
	 * without would never be published); peer_gflag: the other GPUs'
	 * gflag, where the pass's last chunk of a range publishes it after one
	 * fence at system scope (and in gflag, for the copy of the group to
	 * the host); gcount (nr words, zeroed by step 1): this
	 * GPU's chunks done a range; t0: bytes before it are final (the
	 * library's split gives 0, so that another GPU's are waited on).
	 * NULL: every chunk's states published as above.  gbase (a multiple
	 * of ngpus): the first group of a piece of the member, whose tokens
	 * alone the call holds (numbered from the piece's first): range r is
	 * then group gbase + r * ngpus + gpu, and this GPU's bytes before the
	 * piece are final (its earlier pieces' passes, on its stream before). */
	uint32_t *gflag, *peer_gflag[WLZ_GPU_FLOW_PEERS], *gcount;
	uint32_t gshift, gpu, ngpus, gbase;
	uint64_t t0;
} wlz_gpu_flow_split;

size_t wlz_gpu_flow_granules(uint64_t size);

/* Step 1 on one GPU (its n blocks d_blk, their streams d_streams): the
 * granules and states of its tokens, then literals, while the tables are
 * copied into the other GPUs' on side (a second stream of this GPU, or
 * NULL: all on stream); it is all done when stream gets there.  Without
 * group publication it reads the token after each of its ranges: every
 * GPU's parse must be done. */
int wlz_gpu_flow_split_prep(const wlz_gpu_pblock *d_blk, size_t n, uint32_t max_lit, const wlz_gpu_flow_split *sp,
			    const uint8_t *d_streams, uint8_t *d_out, uint64_t size, const uint32_t *d_bad,
			    uint32_t *d_fail, void *stream, void *side);
/* Step 2: the pass over this GPU's tokens.  Step 1 must be done on every
 * GPU before it starts on any. */
int wlz_gpu_flow_split_run(const wlz_gpu_flow_split *sp, uint8_t *d_out, uint32_t *d_fail, void *stream);

#ifdef __cplusplus
}
#endif

#endif
