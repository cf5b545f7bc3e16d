/*
 * huf_lanes_impl.h - the fast lane loop, included once per instruction
 * set with HUF_RUN_GROUP naming the function (huf_dec.c: baseline;
 * huf_dec_bmi2.c: BMI2).
 */
#include "common/huf_lanes.h"

/* One step of lane i: PER_READ symbols from one 64-bit read.  State in
 * locals (not the lane array) so that the chains stay in registers; eight
 * of them side by side hide the table lookups that miss L1. */
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

#if WLZ_HUF_GROUP != 8
#error "the loop below runs 8 lanes"
#endif

#ifndef HUF_LINKAGE
#define HUF_LINKAGE
#endif

#define HUF_LOAD(i)                                                                               \
	const uint8_t *p##i = L[i].p;                                                             \
	uint64_t pos##i = L[i].pos;                                                               \
	unsigned t##i = L[i].t;                                                                   \
	uint8_t *o##i = L[i].o
#define HUF_SAVE(i) (L[i].pos = pos##i, L[i].t = t##i, L[i].o = o##i)

HUF_LINKAGE void HUF_RUN_GROUP(const uint32_t *tab, wlz_huf_lstate *L, const uint8_t *lim)
{
	for (size_t it; (it = wlz_huf_safe_steps(L, lim)) != 0;) {
		HUF_LOAD(0);
		HUF_LOAD(1);
		HUF_LOAD(2);
		HUF_LOAD(3);
		HUF_LOAD(4);
		HUF_LOAD(5);
		HUF_LOAD(6);
		HUF_LOAD(7);
		for (size_t j = 0; j < it; j++) {
			HUF_STEP(0);
			HUF_STEP(1);
			HUF_STEP(2);
			HUF_STEP(3);
			HUF_STEP(4);
			HUF_STEP(5);
			HUF_STEP(6);
			HUF_STEP(7);
		}
		HUF_SAVE(0);
		HUF_SAVE(1);
		HUF_SAVE(2);
		HUF_SAVE(3);
		HUF_SAVE(4);
		HUF_SAVE(5);
		HUF_SAVE(6);
		HUF_SAVE(7);
		for (unsigned i = 0; i < WLZ_HUF_GROUP; i++)
			L[i].left -= it * WLZ_HUF_PER_READ;
	}
}

#undef HUF_LOAD
#undef HUF_SAVE
#undef HUF_STEP
#undef HUF_LINKAGE
