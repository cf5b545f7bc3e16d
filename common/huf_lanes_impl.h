/*
 * huf_lanes_impl.h - the fast lane loop, included once per instruction
 * set with HUF_RUN_GROUP naming the function (huf_dec.c: baseline;
 * huf_dec_bmi2.c: BMI2).
 */
#include "common/huf_lanes.h"

/* One step of lane i: PER_READ symbols from one 64-bit read.  State in
 * locals (not the lane array) so that the four chains stay in registers. */
#define HUF_STEP(i)                                                                               \
	do {                                                                                      \
		/* A marker bit above the codes: the bits consumed are then its   \
		 * distance from the top, one count for the step. */             \
		uint64_t v = wlz_rd64(p##i + (pos##i >> 3)) >> (pos##i & 7) | 1ull << 63;        \
		for (unsigned u = 0; u < WLZ_HUF_PER_READ; u++) {                                 \
			const uint32_t e = tab[t##i + (v & (WLZ_HUF_TAB_SIZE - 1))];               \
			o##i[u] = (uint8_t)(e >> 8);                                              \
			v >>= e & 63;                                                             \
			t##i = e >> 16;                                                           \
		}                                                                                 \
		pos##i += (uint64_t)__builtin_clzll(v);                                           \
		o##i += WLZ_HUF_PER_READ;                                                         \
	} while (0)

#ifndef HUF_LINKAGE
#define HUF_LINKAGE
#endif

HUF_LINKAGE void HUF_RUN_GROUP(const uint32_t *tab, wlz_huf_lstate *L, const uint8_t *lim)
{
	for (size_t it; (it = wlz_huf_safe_steps(L, lim)) != 0;) {
		const uint8_t *p0 = L[0].p, *p1 = L[1].p, *p2 = L[2].p, *p3 = L[3].p;
		uint64_t pos0 = L[0].pos, pos1 = L[1].pos, pos2 = L[2].pos, pos3 = L[3].pos;
		unsigned t0 = L[0].t, t1 = L[1].t, t2 = L[2].t, t3 = L[3].t;
		uint8_t *o0 = L[0].o, *o1 = L[1].o, *o2 = L[2].o, *o3 = L[3].o;
		for (size_t j = 0; j < it; j++) {
			HUF_STEP(0);
			HUF_STEP(1);
			HUF_STEP(2);
			HUF_STEP(3);
		}
		L[0].pos = pos0, L[1].pos = pos1, L[2].pos = pos2, L[3].pos = pos3;
		L[0].t = t0, L[1].t = t1, L[2].t = t2, L[3].t = t3;
		L[0].o = o0, L[1].o = o1, L[2].o = o2, L[3].o = o3;
		for (unsigned i = 0; i < WLZ_HUF_GROUP; i++)
			L[i].left -= it * WLZ_HUF_PER_READ;
	}
}

#undef HUF_STEP
#undef HUF_LINKAGE
