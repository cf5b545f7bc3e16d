/*
 * huf_lanes.h - the lane state of the CPU Huffman decoder (huf_dec.c) and
 * its fast loop, which is built once per instruction set
 * (huf_lanes_impl.h) and picked at run time.
 */
#ifndef WLZ_HUF_LANES_H
#define WLZ_HUF_LANES_H

#include "common/huf.h"

#define WLZ_HUF_GROUP 8        /* lanes run side by side */
#define WLZ_HUF_PER_READ 5     /* codes per 64-bit read: 5 * 10 <= 57 bits */

typedef struct wlz_huf_lstate {
	const uint8_t *p;           /* the lane's first byte */
	size_t size;                /* its bytes */
	uint64_t pos;               /* bits read */
	unsigned t;                 /* current table, as an entry offset */
	uint8_t *o, *end;           /* next symbol, end of the lane's symbols */
} wlz_huf_lstate;

/* Steps every lane of a group can take with 64-bit reads inside lim and
 * writes inside its own symbols. */
static inline size_t wlz_huf_safe_steps(const wlz_huf_lstate *L, const uint8_t *lim)
{
	size_t it = SIZE_MAX;
	for (unsigned i = 0; i < WLZ_HUF_GROUP; i++) {
		const size_t room = (size_t)(lim - L[i].p);
		/* (in bits: a position a few bits past the last byte that can
		 * start a read must stop too, or the bound below wraps) */
		if (room < 8 || L[i].pos > 8 * (uint64_t)(room - 8))
			return 0;
		/* A step reads at most PER_READ * MAX_BITS bits. */
		const size_t r = (8 * (room - 8) - L[i].pos) / (WLZ_HUF_PER_READ * WLZ_HUF_MAX_BITS) + 1;
		const size_t s = (size_t)(L[i].end - L[i].o) / WLZ_HUF_PER_READ;
		it = r < it ? r : it;
		it = s < it ? s : it;
	}
	return it;
}

/* Decodes a group of WLZ_HUF_GROUP lanes of one segment (whose bytes start
 * at base) while every read stays in lim; the body has ntables tables. */
void wlz_huf_run_group_bmi2(const uint32_t *tab, wlz_huf_lstate *L, const uint8_t *base, const uint8_t *lim,
			    unsigned ntables);

#endif
