/*
 * numgen.c - typed numeric arrays for the GPU compressor's --symbol rows
 * (issue 17): smooth fields and quantization codes, as simulations and
 * lossy scientific compressors write them.
 *
 *   numgen KIND N SEED > file      N elements of KIND:
 *     i16-field   a 2-D field (sums of waves over a 1024-wide grid) in int16
 *     f32-field   the same field as float32, rounded to 1/64
 *     i16-quant   quantization codes: int16, Laplace-distributed about 0
 *     f32-quant   the codes' values as float32 (code * 0.01)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double field(uint64_t i)
{
	const double x = (double)(i % 1024) / 1024.0, y = (double)(i / 1024) / 1024.0;
	return 900.0 * sin(6.1 * x + 1.3 * y) + 400.0 * cos(17.0 * y - 3.0 * x) + 120.0 * sin(41.0 * x * y);
}

static int laplace(uint64_t *s)
{
	const double u = ((double)(rng(s) >> 11) + 0.5) / 9007199254740992.0;
	const double v = -3.0 * log(u);
	return (rng(s) & 1) ? (int)v : -(int)v;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: numgen i16-field|f32-field|i16-quant|f32-quant N SEED\n");
		return 2;
	}
	const char *k = argv[1];
	const uint64_t n = strtoull(argv[2], NULL, 10);
	uint64_t s = strtoull(argv[3], NULL, 10);
	for (uint64_t i = 0; i < n; i++) {
		if (!strcmp(k, "i16-field")) {
			const int16_t v = (int16_t)lrint(field(i) + (double)(rng(&s) % 3) - 1.0);
			fwrite(&v, 2, 1, stdout);
		} else if (!strcmp(k, "f32-field")) {
			const float v = (float)(nearbyint(field(i) * 64.0) / 64.0);
			fwrite(&v, 4, 1, stdout);
		} else if (!strcmp(k, "i16-quant")) {
			const int16_t v = (int16_t)laplace(&s);
			fwrite(&v, 2, 1, stdout);
		} else if (!strcmp(k, "f32-quant")) {
			const float v = (float)laplace(&s) * 0.01f;
			fwrite(&v, 4, 1, stdout);
		} else {
			fprintf(stderr, "numgen: unknown kind %s\n", k);
			return 2;
		}
	}
	return fflush(stdout) ? 1 : 0;
}
