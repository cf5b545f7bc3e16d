/*
 * huf32.h - order-0 Huffman in 32 interleaved lanes, for SIMD cores and GPUs.
 *
 * A stream is cut into segments of 2^seg_log symbols; symbol j of a segment
 * belongs to lane j mod 32.  Codes have at most 11 bits and are read least
 * significant bit first.  Each lane decodes two symbols per round; before a
 * round a lane with symbols left in it and fewer than 32 bits buffered reads
 * the next 32-bit word, the words of all lanes interleaved in that order.
 * Layout:
 *   u8 kind (0 coded, 1 one symbol repeated: u8 symbol follows, nothing more)
 *   u8 seg_log (12..20)
 *   32-byte bitmap of the symbols present, then their code lengths (1..11),
 *     4 bits each, low nibble first, in symbol order; the code is complete
 *   u32 coded size of each segment
 *   segments: u32 words
 */
#ifndef WLZ_HUF32_H
#define WLZ_HUF32_H

#include "common/ent_table.h"

#define WLZ_HUF_MAX_BITS 11

size_t wlz_huf32_encode(const uint8_t *src, size_t n, unsigned seg_log, uint8_t *dst, size_t cap);
wlz_error wlz_huf32_decode(const uint8_t *src, size_t csize, uint8_t *dst, size_t n);

/* The decode table: per 11-bit window, symbol | length << 8. */
wlz_error wlz_huf32_table(const uint8_t *src, size_t csize, uint16_t tab[1 << WLZ_HUF_MAX_BITS],
			  unsigned *seg_log, size_t *hdr);

#endif
