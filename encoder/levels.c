/*
 * levels.c - dependency levels of a block's tokens.
 *
 * A block gets its levels once every block it may read has its own
 * (compress.c schedules them: blocks further apart than the gap rule's get
 * theirs at the same time, on different threads).  Under a
 * depth limit the parser cuts every candidate at bytes of too high a level,
 * so the limit holds by construction; a token over it is a bug.
 */
#include "encoder/levels.h"
#include "format/format.h"

/* map[pos, pos + n) = v, n mostly short: one 16-byte store where the
 * block has room for it (the bytes past n are the next token's, written
 * before anything reads them: a level reads only bytes before its token),
 * memset otherwise. */
static inline void fill(uint8_t *map, uint64_t pos, uint8_t v, uint64_t n, uint64_t bend)
{
	if (n <= 16 && pos + 16 <= bend) {
		uint8_t b[16];
		memset(b, v, 16);
		memcpy(map + pos, b, 16);
	} else
		memset(map + pos, v, n);
}

#if defined(__SSE2__)
/* The level of a match whose source lies in its own block and reads at
 * most 16 bytes before its own output (n of them): the largest of the
 * map's bytes [src, src + n), one load masked to its first n bytes.  The
 * load stays inside the block: the next block's map may be being written
 * by another thread. */
static inline unsigned own_level16(const uint8_t *map, uint64_t src, uint64_t n)
{
	static const uint8_t lead[32] = {
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	};
	return wlz_max_u8x16(_mm_and_si128(_mm_loadu_si128((const __m128i *)(map + src)),
					   _mm_loadu_si128((const __m128i *)(lead + 16 - n))));
}
#endif

unsigned wlz_levels_block(uint8_t *map, uint64_t bstart, uint64_t bend, const wlz_token *tok, size_t ntok,
			  int depth, uint32_t *chained, wlz_error *err)
{
	uint64_t pos = bstart;
	unsigned maxl = 0;
	uint32_t nch = 0;  /* (counted here: *chained might alias the map) */
	*err = WLZ_OK;
	/* Far sources' map bytes miss the caches: fetch them some tokens
	 * ahead (token ka, one a token), so that the misses overlap. */
	enum { AHEAD = 16 };
	size_t ka = 0;
	uint64_t pa = bstart;
	for (; ka < ntok && ka < AHEAD; ka++) {
		pa += tok[ka].lit;
		__builtin_prefetch(map + pa - tok[ka].dist);
		pa += tok[ka].mlen;
	}
	for (size_t k = 0; k < ntok; k++) {
		if (ka < ntok) {
			pa += tok[ka].lit;
			__builtin_prefetch(map + pa - tok[ka].dist);
			pa += tok[ka].mlen;
			ka++;
		}
		fill(map, pos, 0, tok[k].lit, bend);
		pos += tok[k].lit;
		const uint64_t src = pos - tok[k].dist, n = tok[k].dist < tok[k].mlen ? tok[k].dist : tok[k].mlen;
		unsigned lv;
#if defined(__SSE2__)
		/* (most tokens: wlz_token_level's rule, in one load) */
		if (src >= bstart && n <= 16 && src + 16 <= bend) {
			lv = own_level16(map, src, n);
			nch += lv != 0;
		} else
#endif
		{
			int own;
			lv = wlz_token_level(map, bstart, src, pos, tok[k].mlen, &own);
			nch += (uint32_t)own;
		}
		if (depth >= 0 && lv > (unsigned)depth)
			*err = WLZ_ERR_INTERNAL;
		fill(map, pos, wlz_map_value(lv), tok[k].mlen, bend);
		maxl = lv > maxl ? lv : maxl;
		pos += tok[k].mlen;
	}
	memset(map + pos, 0, bend - pos);
	*chained += nch;
	return maxl > 255 ? 255 : maxl;
}
