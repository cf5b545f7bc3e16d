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
	wlz_member m;
	WLZ_TRY(wlz_member_parse(arc, src_size, 0, &m));
	memset(st, 0, sizeof(*st));
	if (m.content_size > SIZE_MAX) {
		wlz_member_free(&m);
		return WLZ_ERR_NOMEM;
	}
	/* map[q]: 0 literal, k + 1 written by a level-k match (255 saturates) */
	uint8_t *map = calloc(m.content_size ? (size_t)m.content_size : 1, 1);
	wlz_bdec *bd = wlz_bdec_create();
	if (!map || !bd) {
		free(map);
		wlz_bdec_free(bd);
		wlz_member_free(&m);
		return WLZ_ERR_NOMEM;
	}
	wlz_bdec_set_window(bd, (uint64_t)1 << m.h.window_log);
	wlz_error err = WLZ_OK;
	uint64_t level_sum = 0;
	const uint64_t bs = (uint64_t)1 << m.h.block_log;
	for (uint64_t b = 0; b < m.nblocks && err == WLZ_OK; b++) {
		const wlz_block_entry e = m.blocks[b];
		uint64_t bstart = b * bs;
		uint64_t bend = bstart + e.length;
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
			int own;  /* reads bytes an earlier match of this block wrote */
			const unsigned lvl = wlz_token_level(map, bstart, t->src, pos, t->mlen, &own);
			chained += (uint64_t)own;
			memset(map + pos, wlz_map_value(lvl), t->mlen);
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
	st->literal_bytes = m.content_size - st->match_bytes;
	st->mean_level = st->tokens ? (double)level_sum / (double)st->tokens : 0;
	free(map);
	wlz_bdec_free(bd);
	wlz_member_free(&m);
	return err;
}

WLZ_EXPORT wlz_error wlz_get_info(const void *src, size_t src_size, wlz_info *info)
{
	wlz_detail_clear();
	if (!src || !info)
		return WLZ_ERR_PARAM;
	wlz_member m;
	WLZ_TRY(wlz_member_parse(src, src_size, 0, &m));
	memset(info, 0, sizeof(*info));
	info->format_version = m.h.version;
	info->window_log = m.h.window_log;
	info->level = m.h.level;
	info->depth = m.h.depth == WLZ_DEPTH_NONE ? WLZ_DEPTH_UNLIMITED : (int)m.h.depth;
	info->block_log = m.h.block_log;
	info->content_size = m.content_size;
	info->archive_size = m.size;
	info->block_count = m.nblocks;
	info->content_checksum = m.digest;
	for (uint64_t b = 0; b < m.nblocks; b++) {
		info->token_count += m.blocks[b].token_count;
		if (m.blocks[b].max_level > info->max_level)
			info->max_level = m.blocks[b].max_level;
	}
	wlz_member_free(&m);
	return WLZ_OK;
}
