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

HUF_LINKAGE void HUF_RUN_GROUP(const uint32_t *tab, wlz_huf_lstate *L, const uint8_t *base, const uint8_t *lim)
{
	for (size_t it; (it = wlz_huf_safe_steps(L, lim)) != 0;) {
		uint64_t pos[G];
		unsigned t[G];
		uint8_t *o[G];
#pragma GCC unroll 8
		for (unsigned i = 0; i < G; i++) {
			pos[i] = L[i].pos + 8 * (uint64_t)(L[i].p - base);
			t[i] = L[i].t;
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
					const uint32_t e = tab[t[i] + (v[i] & (WLZ_HUF_TAB_SIZE - 1))];
					o[i][u] = (uint8_t)e;
					v[i] >>= e >> 8 & 63;
					t[i] = e >> 16;
				}
			}
#pragma GCC unroll 8
			for (unsigned i = 0; i < G; i++) {
				pos[i] += (uint64_t)__builtin_clzll(v[i]);
				o[i] += WLZ_HUF_PER_READ;
			}
		}
#pragma GCC unroll 8
		for (unsigned i = 0; i < G; i++) {
			L[i].pos = pos[i] - 8 * (uint64_t)(L[i].p - base);
			L[i].t = t[i];
			L[i].o = o[i];
		}
	}
}

#undef G
#undef HUF_LINKAGE
