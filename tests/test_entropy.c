/*
 * test_entropy.c - stream codec 2 (common/ent.c, common/huf_*.c): round
 * trips over sizes around the lane and segment edges, over flat, skewed,
 * Markov, two-symbol and one-symbol data, one part and two; every
 * truncation is refused and byte flips are refused or, where one still
 * decodes, stay in bounds (ASan watches in the sanitizer build).  A flip
 * that decodes is caught later by the block's checksum; here at least 90%
 * must be noticed by the codec's own rules or change the output.
 */
#include "testutil.h"
#include "common/ent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLAT, SKEWED, MARKOV, TWO, ONE, MIXED, NKIND };

static void fill(tu_rng *r, int kind, uint8_t *b, size_t n)
{
	uint8_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		const uint64_t v = tu_rng_next(r);
		switch (kind) {
		case FLAT: b[i] = (uint8_t)v; break;
		case SKEWED: b[i] = (uint8_t)(__builtin_ctzll(v | 1ull << 40) * 3); break;
		/* Each symbol mostly one of four that follow its predecessor:
		 * order 0 sees 64 symbols, the previous byte picks among 4. */
		case MARKOV: b[i] = prev = (uint8_t)(((prev * 4u + (v & 3) + ((v >> 2 & 15) == 0)) & 63) + 32); break;
		case TWO: b[i] = "AC"[v & 1]; break;
		case ONE: b[i] = 'x'; break;
		default: b[i] = (v & 7) ? 'A' + (uint8_t)(v >> 8 & 3) : (uint8_t)(v >> 16); break;
		}
	}
}

int main(void)
{
	static const size_t sizes[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 4095, 4096, 4097, 8191, 8192, 8193, 70000};
	tu_rng r;
	tu_rng_seed(&r, tu_seed(14));
	const size_t maxn = 70000, cap = wlz_ent_bound(maxn) + wlz_huf_bound(maxn, WLZ_HUF_SEG_MIN);
	uint8_t *src = tu_xmalloc(maxn), *cod = tu_xmalloc(cap), *bad = tu_xmalloc(cap), *out = tu_xmalloc(maxn + 64);
	wlz_huf_tables *ht = tu_xmalloc(sizeof(*ht));
	long trips = 0, flips = 0, caught = 0;

	/* The huf coder itself: segments of 2^12, one table and sixteen. */
	for (unsigned T = 1; T <= WLZ_HUF_MAX_TABLES; T += 15)
		for (int kind = 0; kind < NKIND; kind++)
			for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
				const size_t n = sizes[i];
				fill(&r, kind, src, n);
				const size_t cs = wlz_huf_encode(src, n, WLZ_HUF_SEG_MIN, T, cod, cap, NULL);
				int distinct = 0;
				for (size_t j = 1; j < n && !distinct; j++)
					distinct = src[j] != src[0];
				if (!distinct) {
					TU_CHECK(cs == 0, "huf coded a one-symbol input (n=%zu)", n);
					continue;
				}
				TU_CHECK(cs > 0, "huf encode n=%zu kind=%d T=%u", n, kind, T);
				if (!cs)
					continue;
				memset(out, 0xA5, n);
				TU_CHECK(wlz_huf_decode(cod, cs, out, n, ht) == WLZ_OK && !memcmp(out, src, n),
					 "huf round trip n=%zu kind=%d T=%u", n, kind, T);
				trips++;
				TU_CHECK(wlz_huf_encode(src, n, WLZ_HUF_SEG_MIN, T, cod, cs - 1, NULL) == 0,
					 "huf encode into %zu bytes", cs - 1);
				wlz_huf_encode(src, n, WLZ_HUF_SEG_MIN, T, cod, cap, NULL);
				for (size_t t = 0; t < cs; t += 1 + cs / 97)
					TU_CHECK(wlz_huf_decode(cod, t, out, n, ht) != WLZ_OK, "huf truncated to %zu of %zu", t,
						 cs);
				for (int f = 0; f < 40; f++) {
					memcpy(bad, cod, cs);
					bad[tu_rng_below(&r, cs)] ^= (uint8_t)(1 + tu_rng_below(&r, 255));
					flips++;
					if (wlz_huf_decode(bad, cs, out, n, ht) != WLZ_OK || memcmp(out, src, n))
						caught++;
				}
				/* A count one short: refused, or (where the dropped symbol's
				 * code is all zeros, like padding) the same prefix. */
				if (n > 1)
					TU_CHECK(wlz_huf_decode(cod, cs, out, n - 1, ht) != WLZ_OK ||
							 !memcmp(out, src, n - 1),
						 "huf decoded %zu symbols as %zu, differently", n, n - 1);
			}

	/* Whole segments of 2^14, 2^15 and 2^16 symbols, whose lanes the
	 * decoder stores through one pointer (512, 1024 and 2048 apart), a
	 * last segment whose lanes are just as far apart but for a short
	 * lane 31, and one that is not; one table and sixteen. */
	for (unsigned seg = 14; seg <= 16; seg++)
		for (unsigned T = 1; T <= WLZ_HUF_MAX_TABLES; T += 15) {
			const size_t S = (size_t)1 << seg;
			const size_t ns[] = {S, S - 5, S + S / 2 + 3, 2 * S + 1, S + 4000};
			for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
				const size_t n = ns[i];
				if (n > maxn)
					continue;
				fill(&r, T == 1 ? SKEWED : MARKOV, src, n);
				const size_t cs = wlz_huf_encode(src, n, seg, T, cod, cap, NULL);
				TU_CHECK(cs > 0, "huf encode n=%zu seg=%u T=%u", n, seg, T);
				if (!cs)
					continue;
				memset(out, 0xA5, n + 64);
				TU_CHECK(wlz_huf_decode(cod, cs, out, n, ht) == WLZ_OK && !memcmp(out, src, n),
					 "huf round trip n=%zu seg=%u T=%u", n, seg, T);
				for (size_t k = n; k < n + 64; k++)
					TU_CHECK(out[k] == 0xA5, "huf decode wrote past %zu symbols (n=%zu seg=%u)", n, n, seg);
				trips++;
			}
		}

	/* Tables chosen by the previous symbol pay where it predicts. */
	fill(&r, MARKOV, src, maxn);
	const size_t c1 = wlz_huf_encode(src, maxn, 16, 1, cod, cap, NULL);
	const size_t c16 = wlz_huf_encode(src, maxn, 16, 16, cod, cap, NULL);
	TU_CHECK(c1 && c16 && c16 < c1 * 3 / 4, "context tables should pay on Markov data: %zu vs %zu", c16, c1);
	TU_CHECK(cod[1] > 1, "Markov data coded with %u table(s)", cod[1]);

	/* Codec 2 streams: one part, or two cut anywhere. */
	for (int kind = 0; kind < NKIND; kind++)
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			const size_t n = sizes[i];
			fill(&r, kind, src, n);
			if (kind == SKEWED && n > 100)
				memset(src + n / 2, 'z', n / 4);  /* a run part */
			const size_t cut = tu_rng_below(&r, n + 1);
			const size_t cs = wlz_ent_encode(src, n, &cut, 1, 16, WLZ_HUF_SEG_DEFAULT, 2048, WLZ_HUF_CLUSTER_ITER, cod, cap,
							 NULL);
			TU_CHECK(cs > 0, "ent encode n=%zu kind=%d", n, kind);
			if (!cs)
				continue;
			memset(out, 0xA5, n);
			TU_CHECK(wlz_ent_decode(cod, cs, out, n, ht) == WLZ_OK && !memcmp(out, src, n),
				 "ent round trip n=%zu kind=%d cut=%zu", n, kind, cut);
			trips++;
			for (size_t t = 0; t < cs; t += 1 + cs / 97)
				TU_CHECK(wlz_ent_decode(cod, t, out, n, ht) != WLZ_OK, "ent truncated to %zu of %zu", t, cs);
			TU_CHECK(wlz_ent_decode(cod, cs, out, n + 1, ht) != WLZ_OK, "ent decoded to one byte more");
			if (kind == ONE)
				TU_CHECK(cs <= 12, "two runs should take a few bytes, not %zu", cs);
		}
	printf("test_entropy: %ld round trips, %ld flips, %ld changed the result or were refused\n", trips,
	       flips, caught);
	TU_CHECK(caught > flips * 9 / 10, "too few flips noticed: %ld of %ld", caught, flips);
	free(src);
	free(cod);
	free(bad);
	free(out);
	free(ht);
	return tu_finish("test_entropy");
}
