/*
 * sched.h - block scheduling for the parallel decoder.
 *
 * Threads take blocks in order; each block publishes how far its output is
 * final after every chunk of tokens, and a match whose source lies in an
 * unfinished block waits for exactly the bytes it reads.  Sources always lie earlier in the output, so the earliest
 * unfinished block never waits on a later one: no deadlock.  The encoder
 * keeps references into the few blocks before a block behind the point
 * those blocks have likely reached (SPEC section 8), so waits are rare.
 *
 * An earlier design put such a match off to a second pass instead of
 * waiting; it measured slower at every thread count on the GPU host
 * (bench/RESULTS.md, "Scheduling designs") and was removed.
 */
#ifndef WLZ_SCHED_H
#define WLZ_SCHED_H

#include <sched.h>
#include <stdatomic.h>
#include "common/wlz_internal.h"

/* One cache line per block: marks are written by one thread and read by
 * many; a line shared with a neighbour's marks would bounce between the
 * two writers on every publish. */
typedef struct wlz_mark {
	_Alignas(64) _Atomic uint64_t prefix;   /* bytes [0, prefix) of the block are final */
} wlz_mark;

typedef struct wlz_sched {
	wlz_mark *mark;
	_Alignas(64) _Atomic uint64_t next;      /* next block to take */
	_Alignas(64) _Atomic uint64_t frontier;  /* blocks [0, frontier) are complete */
	_Alignas(64) _Atomic int err;            /* first error; all threads stop */
	unsigned block_log;
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

/* Bytes below this are final everywhere (complete blocks), at most bstart. */
static inline uint64_t wlz_sched_final(wlz_sched *sc, uint64_t bstart)
{
	uint64_t f = atomic_load_explicit(&sc->frontier, memory_order_acquire) << sc->block_log;
	return f < bstart ? f : bstart;
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
		uint64_t h = (hi < base + ((uint64_t)1 << bl) ? hi : base + ((uint64_t)1 << bl)) - base;
		const unsigned slot = (unsigned)(b % WLZ_SEEN);
		if (sn->block[slot] == b && h <= sn->prefix[slot])
			continue;
		uint64_t pre = atomic_load_explicit(&wlz_sched_mark(sc, b)->prefix, memory_order_acquire);
		sn->block[slot] = b;
		sn->prefix[slot] = pre;
		if (h > pre)
			return 0;
	}
	return 1;
}

/* A waiter's step: spin a while, then give the core up. */
static inline void wlz_backoff(unsigned spins)
{
	if (spins < 256)
		wlz_cpu_relax();
	else
		sched_yield();
}

/* Waits until out[lo..hi) is final.  Nonzero: another thread failed. */
static inline int wlz_sched_wait(wlz_sched *sc, wlz_seen *sn, uint64_t lo, uint64_t hi)
{
	for (unsigned spins = 0; !wlz_sched_ready(sc, sn, lo, hi); spins++) {
		if (atomic_load_explicit(&sc->err, memory_order_relaxed))
			return 1;
		wlz_backoff(spins);
	}
	return 0;
}

#endif
