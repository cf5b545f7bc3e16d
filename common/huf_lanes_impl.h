/*
 * huf_lanes_impl.h - the fast lane loop, included once per instruction
 * set with HUF_RUN_GROUP naming the function (huf_dec.c: baseline;
 * huf_dec_bmi2.c: BMI2).
 */
#include "common/huf_lanes.h"

/* One step: PER_READ codes of each lane of the group, from one 64-bit read
 * per lane.  Each round of lookups goes across the lanes (not one lane's
 * five codes after another's), so that eight independent chains stand
 * side by side in the instruction stream and the core overlaps their
 * latencies without a deep window.  Bit positions count from the
 * segment's start, so one pointer serves all lanes. */
#ifndef HUF_LINKAGE
#define HUF_LINKAGE
#endif

#define G WLZ_HUF_GROUP

/* ONE: the body has one table (t stays 0 and is not kept).  Q: the lanes
 * lie Q symbols apart (a whole segment: Q = 2^seg_log / 32), so that one
 * pointer and constant offsets store them all; 0: a pointer a lane.  With
 * a pointer and a table a lane, eight lanes need more registers than
 * x86-64 has, and the spills' reloads cost about as much as the
 * lookups. */
static inline __attribute__((always_inline)) void huf_group(const uint32_t *tab, wlz_huf_lstate *L,
							  const uint8_t *base, const uint8_t *lim, const int ONE,
							  const size_t Q)
{
	for (size_t it; (it = wlz_huf_safe_steps(L, lim)) != 0;) {
		uint64_t pos[G];
		unsigned t[G];
		uint8_t *o[G], *o0 = L[0].o;
#pragma GCC unroll 8
		for (unsigned i = 0; i < G; i++) {
			pos[i] = L[i].pos + 8 * (uint64_t)(L[i].p - base);
			t[i] = ONE ? 0 : L[i].t;
			o[i] = L[i].o;
		}
		for (size_t j = 0; j < it; j++) {
			uint64_t v[G];
			/* A marker bit above the codes: the bits consumed are then
			 * its distance from the top, one count for the step. */
#pragma GCC unroll 8
			for (unsigned i = 0; i < G; i++)
				v[i] = wlz_rd64(base + (pos[i] >> 3)) >> (pos[i] & 7) | 1ull << 63;
#pragma GCC unroll 5
			for (unsigned u = 0; u < WLZ_HUF_PER_READ; u++) {
#pragma GCC unroll 8
				for (unsigned i = 0; i < G; i++) {
					const uint32_t e = tab[(ONE ? 0 : t[i]) + (v[i] & (WLZ_HUF_TAB_SIZE - 1))];
					if (Q)
						o0[i * Q + u] = (uint8_t)e;
					else
						o[i][u] = (uint8_t)e;
					v[i] >>= e >> 8 & 63;
					if (!ONE)
						t[i] = e >> 16;
				}
			}
#pragma GCC unroll 8
			for (unsigned i = 0; i < G; i++) {
				pos[i] += (uint64_t)__builtin_clzll(v[i]);
				if (!Q)
					o[i] += WLZ_HUF_PER_READ;
			}
			o0 += WLZ_HUF_PER_READ;
		}
#pragma GCC unroll 8
		for (unsigned i = 0; i < G; i++) {
			L[i].pos = pos[i] - 8 * (uint64_t)(L[i].p - base);
			L[i].t = t[i];
			L[i].o = Q ? o0 + i * Q : o[i];
		}
	}
}

static inline __attribute__((always_inline)) void huf_group_q(const uint32_t *tab, wlz_huf_lstate *L,
							    const uint8_t *base, const uint8_t *lim, const int ONE)
{
	size_t q = (size_t)(L[1].o - L[0].o);
	for (unsigned i = 2; i < G; i++)
		if ((size_t)(L[i].o - L[0].o) != i * q)
			q = 0;
	/* (the encoder's segments: 2^15 symbols; 2^14 for inputs under
	 * 128 MiB, 2^16 at the levels that put size first) */
	if (q == 2048)
		huf_group(tab, L, base, lim, ONE, 2048);
	else if (q == 1024)
		huf_group(tab, L, base, lim, ONE, 1024);
	else if (q == 512)
		huf_group(tab, L, base, lim, ONE, 512);
	else
		huf_group(tab, L, base, lim, ONE, 0);
}

HUF_LINKAGE void HUF_RUN_GROUP(const uint32_t *tab, wlz_huf_lstate *L, const uint8_t *base, const uint8_t *lim,
			       unsigned ntables)
{
	if (ntables == 1)
		huf_group_q(tab, L, base, lim, 1);
	else
		huf_group_q(tab, L, base, lim, 0);
}

#undef G
#undef HUF_LINKAGE
