/*
 * inspect.c - token statistics and dependency levels of an archive,
 * recomputed from the decoded tokens alone (SPEC.md, section 6.1), so they
 * check what the encoder recorded rather than repeat it.
 */
#include <stdlib.h>
#include "cpu_decoder/block_decode.h"

#define FAR_DISTANCE ((uint64_t)16 << 20)

WLZ_EXPORT wlz_error wlz_get_stats(const void *src, size_t src_size, wlz_stats *st)
{
	wlz_detail_clear();
	if (!src || !st)
		return WLZ_ERR_PARAM;
	const uint8_t *arc = src;
	wlz_header h;
	WLZ_TRY(wlz_archive_validate(arc, src_size, &h));
	memset(st, 0, sizeof(*st));
	if (h.content_size > SIZE_MAX)
		return WLZ_ERR_NOMEM;
	/* map[q]: 0 literal, k + 1 written by a level-k match (255 saturates) */
	uint8_t *map = calloc(h.content_size ? (size_t)h.content_size : 1, 1);
	wlz_bdec *bd = wlz_bdec_create();
	if (!map || !bd) {
		free(map);
		wlz_bdec_free(bd);
		return WLZ_ERR_NOMEM;
	}
	wlz_error err = WLZ_OK;
	uint64_t level_sum = 0;
	const uint64_t bs = (uint64_t)1 << h.block_log;
	for (uint64_t b = 0; b < h.block_count && err == WLZ_OK; b++) {
		wlz_block_entry e;
		wlz_entry_read(arc + WLZ_HEADER_SIZE + b * WLZ_INDEX_ENTRY_SIZE, &e);
		uint64_t bstart = b * bs;
		uint64_t bend = b + 1 == h.block_count ? h.content_size : bstart + bs;
		const wlz_dtoken *tok;
		err = wlz_bdec_tokens(bd, arc, &e, bstart, bend, &tok);
		if (err != WLZ_OK) {
			wlz_detail_block(b);
			break;
		}
		uint64_t pos = bstart, chained = 0;
		unsigned bmax = 0;
		for (size_t k = 0; k < e.token_count; k++) {
			const wlz_dtoken *t = &tok[k];
			pos += t->lit;
			/* Bytes this token writes itself add no level. */
			uint64_t end = t->src + t->mlen < pos ? t->src + t->mlen : pos;
			unsigned lvl = 0;
			int own = 0;  /* reads bytes an earlier match of this block wrote */
			for (uint64_t q = t->src; q < end; q++) {
				if (map[q] > lvl)
					lvl = map[q];
				own |= q >= bstart && map[q] != 0;
			}
			chained += own;
			memset(map + pos, lvl + 1 > 255 ? 255 : (int)lvl + 1, t->mlen);
			st->level_hist[lvl > 255 ? 255 : lvl]++;
			level_sum += lvl;
			if (lvl > bmax)
				bmax = lvl;
			st->match_bytes += t->mlen;
			st->cross_block += t->src < bstart;
			st->far += pos - t->src > FAR_DISTANCE;
			pos += t->mlen;
		}
		st->tokens += e.token_count;
		if (bmax > st->max_level)
			st->max_level = bmax;
		if (bmax > e.max_level)
			st->index_understated++;
		st->chained += chained;
		st->chained_misstated += (chained < WLZ_CHAINED_MAX ? chained : WLZ_CHAINED_MAX) != e.chained;
	}
	st->literal_bytes = h.content_size - st->match_bytes;
	st->mean_level = st->tokens ? (double)level_sum / (double)st->tokens : 0;
	free(map);
	wlz_bdec_free(bd);
	return err;
}
