/*
 * gpu_parse_ref.c - the CPU's tokens for bench/gpu_parse.cu, from C (the
 * block decoder's header is C11 only).
 */
#include <stdlib.h>
#include "bench/gpu_parse_ref.h"
#include "cpu_decoder/block_decode.h"

int wlz_bench_ref_tokens(const uint8_t *arc, const wlz_block_entry *e, uint64_t bstart, wlz_gpu_token *out)
{
	static _Thread_local wlz_bdec *bd;
	if (!bd && !(bd = wlz_bdec_create()))
		return 0;
	const wlz_dtoken *tk;
	if (wlz_bdec_tokens(bd, arc, e, bstart, bstart + e->length, &tk) != WLZ_OK)
		return 0;
	for (uint32_t i = 0; i < e->token_count; i++)
		out[i] = (wlz_gpu_token){.lit = tk[i].lit, .mlen = tk[i].mlen, .src = tk[i].src};
	return 1;
}
