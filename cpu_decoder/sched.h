/*
 * sched.h - block scheduling for the parallel decoder.
 *
 * Threads take blocks in order; each block publishes how far its output is
 * final after every chunk of tokens, and a match whose source lies in an
 * unfinished block waits for exactly the bytes it reads (the default,
 * "wait").  Sources always lie earlier in the output, so the earliest
 * unfinished block never waits on a later one: no deadlock.  The encoder
 * keeps references into the few blocks before a block behind the point
 * those blocks have likely reached (SPEC section 8), so waits are rare.
 *
 * The other design, "defer" (WAVELZ_SCHED=defer, kept to measure it), puts
 * such a match off instead: pass 1 writes every literal and every match
 * whose sources are final, marks the put-off output pending, and pass 2
 * runs the put-off matches in order.  Marks of a block:
 *   prefix - bytes [0, prefix) of the block are final;
 *   p1     - pass 1 has passed [0, p1): those bytes are final unless a
 *            pending bit (one per 64-byte granule) covers them.
 * (Under "wait" nothing is pending and p1 = prefix.)  Measured on the GPU
 * host's 16 cores, "defer" was slower at every thread count: one put-off
 * match makes every later match of its block that reads its bytes wait
 * for pass 2, and about half the matches ended up there (bench/RESULTS.md).
 */
#ifndef WLZ_SCHED_H
#define WLZ_SCHED_H

#include <sched.h>
#include <stdatomic.h>
#include "common/wlz_internal.h"

#define WLZ_GRAIN_LOG 6  /* pending bits: one per 64 output bytes */

/* One cache line per block: marks are written by one thread and read by
 * many; a line shared with a neighbour's marks would bounce between the
 * two writers on every publish. */
typedef struct wlz_mark {
	_Alignas(64) _Atomic uint64_t prefix;
	_Atomic uint64_t p1;
} wlz_mark;

typedef struct wlz_sched {
	wlz_mark *mark;
	_Atomic uint64_t *bits;  /* slots x words: pending bits of blocks in flight */
	uint64_t slots, words;   /* block b uses slot b % slots */
	_Alignas(64) _Atomic uint64_t next;      /* next block to take */
	_Alignas(64) _Atomic uint64_t frontier;  /* blocks [0, frontier) are complete */
	_Alignas(64) _Atomic int err;            /* first error; all threads stop */
	unsigned block_log;
	int defer;                               /* put unready matches off (else wait) */
	uint64_t first;                          /* blocks before it are final; marks start there */
	uint64_t nb, size;                       /* end of the run: blocks, content bytes */
} wlz_sched;

/* What a thread returns when it stopped because another failed; the first
 * error, in err, is the one reported. */
#define WLZ_ERR_ABORTED WLZ_ERR_INTERNAL

static inline void wlz_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static inline wlz_mark *wlz_sched_mark(wlz_sched *sc, uint64_t b)
{
	return &sc->mark[b - sc->first];
}

static inline uint64_t wlz_sched_blen(const wlz_sched *sc, uint64_t b)
{
	return b + 1 == sc->nb ? sc->size - (b << sc->block_log) : (uint64_t)1 << sc->block_log;
}

static inline _Atomic uint64_t *wlz_sched_slot(wlz_sched *sc, uint64_t b)
{
	return sc->bits + (b % sc->slots) * sc->words;
}

/* Bytes below this are final everywhere (complete blocks), at most bstart. */
static inline uint64_t wlz_sched_final(wlz_sched *sc, uint64_t bstart)
{
	uint64_t f = atomic_load_explicit(&sc->frontier, memory_order_acquire) << sc->block_log;
	return f < bstart ? f : bstart;
}

/* Any pending bit over block-relative bytes [lo, hi) of a slot. */
static inline int wlz_sched_pending(_Atomic uint64_t *bits, uint64_t lo, uint64_t hi)
{
	uint64_t g0 = lo >> WLZ_GRAIN_LOG, g1 = (hi - 1) >> WLZ_GRAIN_LOG;
	for (uint64_t w = g0 >> 6; w <= g1 >> 6; w++) {
		uint64_t m = atomic_load_explicit(&bits[w], memory_order_relaxed);
		if (w == g0 >> 6)
			m &= ~(uint64_t)0 << (g0 & 63);
		if (w == g1 >> 6 && (g1 & 63) != 63)
			m &= ((uint64_t)1 << ((g1 & 63) + 1)) - 1;
		if (m)
			return 1;
	}
	return 0;
}

static inline void wlz_sched_set_pending(_Atomic uint64_t *bits, uint64_t lo, uint64_t hi)
{
	/* The block's own thread is the only writer: no read-modify-write. */
	for (uint64_t g = lo >> WLZ_GRAIN_LOG; g <= (hi - 1) >> WLZ_GRAIN_LOG; g++) {
		uint64_t w = atomic_load_explicit(&bits[g >> 6], memory_order_relaxed);
		atomic_store_explicit(&bits[g >> 6], w | (uint64_t)1 << (g & 63), memory_order_relaxed);
	}
}

/* A reader's memory of the prefixes it has seen: prefixes only grow, so an
 * old value is still a valid bound, and most checks need no load of a line
 * its owner keeps writing. */
#define WLZ_SEEN 16
typedef struct wlz_seen {
	uint64_t block[WLZ_SEEN], prefix[WLZ_SEEN];
} wlz_seen;

static inline void wlz_seen_init(wlz_seen *sn)
{
	for (int i = 0; i < WLZ_SEEN; i++) {
		sn->block[i] = UINT64_MAX;
		sn->prefix[i] = 0;
	}
}

/* Are out[lo..hi) (before the reader's own block) final? */
static inline int wlz_sched_ready(wlz_sched *sc, wlz_seen *sn, uint64_t lo, uint64_t hi)
{
	const unsigned bl = sc->block_log;
	for (uint64_t b = (lo >> bl) > sc->first ? lo >> bl : sc->first; b << bl < hi; b++) {
		const uint64_t base = b << bl;
		uint64_t l = lo > base ? lo - base : 0;
		uint64_t h = (hi < base + ((uint64_t)1 << bl) ? hi : base + ((uint64_t)1 << bl)) - base;
		const unsigned slot = (unsigned)(b % WLZ_SEEN);
		if (sn->block[slot] == b && h <= sn->prefix[slot])
			continue;
		uint64_t pre = atomic_load_explicit(&wlz_sched_mark(sc, b)->prefix, memory_order_acquire);
		sn->block[slot] = b;
		sn->prefix[slot] = pre;
		if (h <= pre)
			continue;
		/* p1 is stored after the pending bits it covers: acquire, then bits. */
		if (atomic_load_explicit(&wlz_sched_mark(sc, b)->p1, memory_order_acquire) < h)
			return 0;
		if (wlz_sched_pending(wlz_sched_slot(sc, b), l > pre ? l : pre, h))
			return 0;
	}
	return 1;
}

/* Waits until out[lo..hi) is final.  Nonzero: another thread failed. */
static inline int wlz_sched_wait(wlz_sched *sc, wlz_seen *sn, uint64_t lo, uint64_t hi)
{
	for (unsigned spins = 0; !wlz_sched_ready(sc, sn, lo, hi); spins++) {
		if (atomic_load_explicit(&sc->err, memory_order_relaxed))
			return 1;
		if (spins < 256)
			wlz_cpu_relax();
		else
			sched_yield();
	}
	return 0;
}

#endif
