/*
 * fuzz_index.c - libFuzzer target: the parsers of headers, block headers,
 * index and footer alone (wlz_get_info, wlz_get_content_size,
 * wlz_get_stats), on arbitrary bytes.  They must agree: wlz_get_content_size
 * accepts the bytes exactly when wlz_get_info accepts every member in turn
 * (each one's archive_size says where the next starts) and returns the sum
 * of their content sizes.
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
	/* A member holds its header, an 80-byte header and a 16-byte index
	 * entry per block, the rest of the index and the footer. */
	if (a == WLZ_OK && (info.archive_size > size || info.block_count > size / 96 ||
			    32 + 96 * info.block_count + 40 + 24 > info.archive_size))
		abort();
	/* Walk the members with get_info. */
	uint64_t sum = 0;
	size_t at = 0;
	int walk_ok = 1;
	while (at < size) {
		wlz_info m;
		if (wlz_get_info(data + at, size - at, &m) != WLZ_OK || m.archive_size == 0 ||
		    m.archive_size > size - at) {
			walk_ok = 0;
			break;
		}
		sum += m.content_size;
		at += (size_t)m.archive_size;
	}
	if (size == 0)
		walk_ok = 0;
	if ((b == WLZ_OK) != walk_ok || (b == WLZ_OK && n != sum))
		abort();
	if (b == WLZ_OK && a != WLZ_OK)
		abort();
	wlz_stats st;
	if (wlz_get_stats(data, size, &st) == WLZ_OK && a != WLZ_OK)
		abort();  /* stats only of archives that validate */
	return 0;
}
