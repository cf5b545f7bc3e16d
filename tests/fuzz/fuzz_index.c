/*
 * fuzz_index.c - libFuzzer target: the header and block-index parser alone
 * (wlz_get_info, wlz_get_content_size, wlz_get_stats), on arbitrary bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include "wavelz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wlz_info info;
	uint64_t n;
	wlz_error a = wlz_get_info(data, size, &info);
	wlz_error b = wlz_get_content_size(data, size, &n);
	if (a == WLZ_OK && (b != WLZ_OK || n != info.content_size || info.archive_size != size))
		abort();
	if (a == WLZ_OK && info.block_count > size / 80)
		abort();  /* the index must fit in the archive */
	wlz_stats st;
	if (wlz_get_stats(data, size, &st) == WLZ_OK && a != WLZ_OK)
		abort();  /* stats only of archives that validate */
	return 0;
}
