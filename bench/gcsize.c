/*
 * gcsize.c - archive sizes of the GPU compressor's steps run by its CPU
 * reference (no GPU needed), to tune the parse where there is no GPU.
 *
 *   gcsize FILE [DEPTH]     sizes at S = 1, 2 and 4
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpu_compress/gc_host.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gcsize FILE [DEPTH]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	const size_t n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *in = malloc(n + 1);
	if (!in || fread(in, 1, n, f) != n) {
		fprintf(stderr, "gcsize: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(f);
	const size_t cap = wlz_gpu_compress_bound(n);
	unsigned char *out = malloc(cap);
	for (unsigned s = 1; s <= 4; s *= 2) {
		wlz_gpu_copts o;
		wlz_gpu_copts_init(&o);
		o.symbol = s;
		if (argc > 2)
			o.depth = atoi(argv[2]);
		size_t an = 0;
		const clock_t t = clock();
		const wlz_error e = wlz_gc_ref_compress(&o, out, cap, in, n, &an);
		if (e) {
			fprintf(stderr, "gcsize: %s\n", wlz_error_name(e));
			return 1;
		}
		printf("%s S=%u depth %d: %zu -> %zu (%.2f%%) %.1f s\n", argv[1], s, o.depth, n, an, 100.0 * an / n,
		       (double)(clock() - t) / CLOCKS_PER_SEC);
	}
	return 0;
}
