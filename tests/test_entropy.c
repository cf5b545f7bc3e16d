/*
 * test_entropy.c - the two interleaved stream coders under study (rans32,
 * huf32): round trips over sizes around the lane and segment edges and over
 * skewed, flat, two-symbol and one-symbol data; every truncation and many
 * byte flips are rejected or, where a flip still decodes, never read or
 * write out of bounds (run under ASan in the sanitizer build).  A flip that
 * decodes is caught later by the block's checksum; here at least 90% must
 * be noticed by the coders' own rules or change the output.
 */
#include "testutil.h"
#include "common/huf32.h"
#include "common/rans32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef size_t (*enc_fn)(const uint8_t *, size_t, unsigned, uint8_t *, size_t);
typedef wlz_error (*dec_fn)(const uint8_t *, size_t, uint8_t *, size_t);

static void fill(tu_rng *r, int kind, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint64_t v = tu_rng_next(r);
		switch (kind) {
		case 0: b[i] = (uint8_t)v; break;                              /* flat */
		case 1: b[i] = (uint8_t)(__builtin_ctzll(v | 1ull << 40) * 3); break; /* skewed */
		case 2: b[i] = "AC"[v & 1]; break;                              /* two symbols */
		case 3: b[i] = 'x'; break;                                      /* one */
		default: b[i] = (v & 7) ? 'A' + (uint8_t)(v >> 8 & 3) : (uint8_t)(v >> 16); break;
		}
	}
}

int main(void)
{
	static const size_t sizes[] = {1, 2, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 8191, 8192, 8193, 70000};
	enc_fn enc[2] = {wlz_rans32_encode, wlz_huf32_encode};
	dec_fn dec[2] = {wlz_rans32_decode, wlz_huf32_decode};
	static const char *name[2] = {"rans32", "huf32"};
	tu_rng r;
	tu_rng_seed(&r, tu_seed(14));
	const size_t maxn = 70000, cap = maxn * 2 + 4096;
	uint8_t *src = tu_xmalloc(maxn), *cod = tu_xmalloc(cap), *bad = tu_xmalloc(cap), *out = tu_xmalloc(maxn + 64);
	long trips = 0, flips = 0, caught = 0;
	for (int c = 0; c < 2; c++)
		for (int kind = 0; kind < 5; kind++)
			for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
				const size_t n = sizes[i];
				const unsigned seg_log = 12;
				fill(&r, kind, src, n);
				const size_t cs = enc[c](src, n, seg_log, cod, cap);
				TU_CHECK(cs > 0, "%s encode n=%zu kind=%d", name[c], n, kind);
				if (!cs)
					continue;
				memset(out, 0xA5, n);
				TU_CHECK(dec[c](cod, cs, out, n) == WLZ_OK && !memcmp(out, src, n),
					 "%s round trip n=%zu kind=%d", name[c], n, kind);
				trips++;
				if (kind == 1 && n > 4096)
					TU_CHECK(cs < n / 2, "%s: skewed data should shrink (%zu of %zu)", name[c], cs, n);
				/* Too small a destination is refused, not overrun. */
				TU_CHECK(enc[c](src, n, seg_log, cod, cs - 1) == 0 || cs == 1,
					 "%s encode into %zu bytes", name[c], cs - 1);
				enc[c](src, n, seg_log, cod, cap);
				/* Every truncation fails (a one-symbol stream is 2 bytes). */
				for (size_t t = 0; t < cs; t += 1 + cs / 97)
					TU_CHECK(dec[c](cod, t, out, n) != WLZ_OK, "%s truncated to %zu of %zu",
						 name[c], t, cs);
				/* Flips: rejected, or decoded in bounds (ASan watches). */
				for (int f = 0; f < 40 && cs > 2; f++) {
					memcpy(bad, cod, cs);
					bad[tu_rng_below(&r, cs)] ^= (uint8_t)(1 + tu_rng_below(&r, 255));
					flips++;
					if (dec[c](bad, cs, out, n) != WLZ_OK || memcmp(out, src, n))
						caught++;
				}
				/* A count one short: refused, or (where the dropped
				 * symbol's bits are all padding-like zeros) the same
				 * prefix, never other bytes; a run stream has no count. */
				if (cs > 2 && n > 1)
					TU_CHECK(dec[c](cod, cs, out, n - 1) != WLZ_OK || !memcmp(out, src, n - 1),
						 "%s decoded %zu symbols as %zu, differently", name[c], n, n - 1);
			}
	printf("test_entropy: %ld round trips, %ld flips, %ld changed the result or were refused\n", trips,
	       flips, caught);
	TU_CHECK(caught > flips * 9 / 10, "too few flips noticed: %ld of %ld", caught, flips);
	free(src);
	free(cod);
	free(bad);
	free(out);
	return tu_finish("test_entropy");
}
