/*
 * test_farfind.c - the far finder's anchors (encoder/farfind.c): the SIMD
 * scan lists exactly the portable scan's anchors, for every hash length
 * and rate the levels use, over random, low-entropy and repetitive bytes
 * and ranges that start and end anywhere; anchors sit where a repeat of
 * their hashed bytes puts them too, and come about once per `rate`.
 */
#include "testutil.h"
#include "encoder/farfind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	const uint64_t seed = tu_seed(0x5eedfa5);
	tu_rng r;
	tu_rng_seed(&r, seed);
	enum { N = 1 << 17, PAD = 64 };
	uint8_t *buf = tu_xmalloc(N + PAD);
	wlz_anchor *a = tu_xmalloc(sizeof(*a) * N), *b = tu_xmalloc(sizeof(*b) * N);
	static const unsigned lens[] = {8, 12, 16};
	static const unsigned rates[] = {1, 2, 4, 16, 64, 1024};
	long lists = 0, anchors = 0;
	for (int kind = 0; kind < 3; kind++) {
		/* random bytes; DNA-like (4 letters); a 1 KiB pattern repeated */
		for (size_t i = 0; i < N + PAD; i++) {
			const uint64_t v = tu_rng_next(&r);
			buf[i] = kind == 0 ? (uint8_t)v : kind == 1 ? (uint8_t)"ACGT"[v & 3] : buf[i % 1024];
			if (kind == 2 && i < 1024)
				buf[i] = (uint8_t)v;
		}
		for (unsigned li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
			for (unsigned ri = 0; ri < sizeof(rates) / sizeof(rates[0]); ri++) {
				wlz_far f;
				TU_CHECK(wlz_far_init(&f, 10, lens[li], rates[ri], (uint64_t)1 << 20) == WLZ_OK, "init");
				wlz_far_zero(&f, 0, 1);
				for (int t = 0; t < 24; t++) {
					uint64_t from = t < 4 ? (uint64_t)t : tu_rng_below(&r, N / 2);
					uint64_t to = t % 3 == 0 ? N : from + tu_rng_below(&r, N - from);
					const size_t na = wlz_far_anchors_with(&f, buf, from, to, a, 0);
					const size_t nb = wlz_far_anchors_with(&f, buf, from, to, b, 1);
					int same = na == nb;
					for (size_t i = 0; same && i < na; i++)
						same = a[i].pos == b[i].pos && a[i].bucket == b[i].bucket;
					TU_CHECK(same, "kind %d len %u rate %u [%llu, %llu): %zu anchors portable, %zu SIMD",
						 kind, lens[li], rates[ri], (unsigned long long)from,
						 (unsigned long long)to, na, nb);
					lists++;
					anchors += (long)na;
					if (kind == 0 && to - from >= N / 2 && rates[ri] >= 4) {
						/* about one in `rate` (a power of two up to 2^(len - 1)) */
						const unsigned eff = rates[ri] < 1u << (lens[li] - 1) ? rates[ri] : 1u << (lens[li] - 1);
						const double want = (double)(to - from) / eff;
						TU_CHECK(na > want / 2 && na < want * 2, "rate %u: %zu anchors in %llu bytes",
							 rates[ri], na, (unsigned long long)(to - from));
					}
					if (kind == 2 && to - from > 4096) {
						/* a repeat has its anchors at the same places */
						size_t k = 0;
						while (k < na && a[k].pos + from < 1024)
							k++;
						for (size_t i = 0; i < na && a[i].pos + from + 1024 + lens[li] <= to; i++) {
							const uint64_t want = a[i].pos + 1024;
							while (k < na && a[k].pos < want)
								k++;
							TU_CHECK(k < na && a[k].pos == want && a[k].bucket == a[i].bucket,
								 "anchor at %llu not repeated 1024 later",
								 (unsigned long long)(a[i].pos + from));
						}
					}
				}
				wlz_far_destroy(&f);
			}
	}
	printf("test_farfind: seed %llu, %ld lists, %ld anchors, SIMD and portable alike\n",
	       (unsigned long long)seed, lists, anchors);
	free(buf);
	free(a);
	free(b);
	return tu_finish("test_farfind");
}
