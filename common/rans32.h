/*
 * rans32.h - order-0 rANS in 32 interleaved lanes, for SIMD cores and GPUs.
 *
 * A stream is cut into segments of 2^seg_log symbols; symbol j of a segment
 * belongs to lane j mod 32.  Each lane keeps a 32-bit state; probabilities
 * have 12 bits and states renormalise 16 bits at a time, the words of all
 * lanes interleaved in the order a decoder in lock step reads them.
 * Layout (SPEC.md, section 5):
 *   u8 kind (0 coded, 1 one symbol repeated: u8 symbol follows, nothing more)
 *   u8 seg_log (12..20)
 *   32-byte bitmap of the symbols present, then u16 frequency of each, in
 *     symbol order (1..4096, summing to 4096)
 *   u32 coded size of each segment
 *   segments: 32 u32 initial states, then u16 words
 */
#ifndef WLZ_RANS32_H
#define WLZ_RANS32_H

#include "common/ent_table.h"

#define WLZ_RANS_PROB_BITS 12
#define WLZ_RANS_L (1u << 16)

/* Codes src[0..n) into dst; returns the size, or 0 if it does not fit. */
size_t wlz_rans32_encode(const uint8_t *src, size_t n, unsigned seg_log, uint8_t *dst, size_t cap);

/* Decodes exactly n symbols; an error unless every field, every word count
 * and every final state is as the encoder leaves them. */
wlz_error wlz_rans32_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t n);

/* The decode table of a stream: per 12-bit slot, symbol | (freq - 1) << 8 |
 * (slot - cum) << 20.  Parses the header into tab; *hdr is where the segment
 * list starts. */
wlz_error wlz_rans32_table(const uint8_t *src, size_t csize, uint32_t tab[1 << WLZ_RANS_PROB_BITS],
			   unsigned *seg_log, size_t *hdr);

#endif
