/*
 * wlztool.c - a helper for the CLI tests, so that they need nothing beyond
 * a POSIX shell and check the CLI's archives through the library rather than
 * through the CLI's own output.
 *
 *   wlztool gen KIND SIZE SEED   write SIZE bytes of a testutil data kind
 *                                (random zeros repeats text fastq skewed)
 *   wlztool info FILE            wlz_get_info() as key=value lines; exit 1
 *                                if FILE is not a valid archive
 *   wlztool flip FILE POS MASK   xor the byte at POS with MASK, in place
 */
#include "testutil.h"
#include "wavelz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f) {
		perror(path);
		return NULL;
	}
	do {
		if (n == cap) {
			unsigned char *p = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*size = n;
	return buf;
}

static int gen(const char *kind_name, const char *size, const char *seed)
{
	size_t n = (size_t)strtoull(size, NULL, 0);
	int kind = -1;
	uint8_t *buf;

	for (int k = 0; k < TU_KIND_COUNT; k++)
		if (strcmp(kind_name, tu_kind_name(k)) == 0)
			kind = k;
	if (kind < 0) {
		fprintf(stderr, "wlztool: unknown kind %s\n", kind_name);
		return 2;
	}
	buf = tu_xmalloc(n);
	tu_fill(kind, buf, n, strtoull(seed, NULL, 0));
	if (fwrite(buf, 1, n, stdout) != n || fflush(stdout) != 0) {
		free(buf);
		return 1;
	}
	free(buf);
	return 0;
}

static int info(const char *path)
{
	size_t n = 0;
	unsigned char *buf = slurp(path, &n);
	wlz_info in;
	wlz_error e;

	if (!buf)
		return 1;
	e = wlz_get_info(buf, n, &in);
	free(buf);
	if (e != WLZ_OK) {
		fprintf(stderr, "%s: %s\n", path, wlz_error_name(e));
		return 1;
	}
	printf("format_version=%u\nlevel=%u\ndepth=%d\nblock_log=%u\ncontent_size=%llu\n"
	       "archive_size=%llu\nblock_count=%llu\ntoken_count=%llu\nmax_level=%u\n",
	       in.format_version, in.level, in.depth, in.block_log,
	       (unsigned long long)in.content_size, (unsigned long long)in.archive_size,
	       (unsigned long long)in.block_count, (unsigned long long)in.token_count,
	       in.max_level);
	return 0;
}

static int flip(const char *path, const char *pos_s, const char *mask_s)
{
	long pos = strtol(pos_s, NULL, 0);
	int mask = (int)strtol(mask_s, NULL, 0), c;
	FILE *f = fopen(path, "r+b");

	if (!f) {
		perror(path);
		return 1;
	}
	if (pos < 0 || fseek(f, pos, SEEK_SET) != 0 || (c = fgetc(f)) == EOF ||
	    fseek(f, pos, SEEK_SET) != 0 || fputc(c ^ mask, f) == EOF) {
		fprintf(stderr, "wlztool: cannot flip %s at %ld\n", path, pos);
		fclose(f);
		return 1;
	}
	return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "gen") == 0)
		return gen(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "info") == 0)
		return info(argv[2]);
	if (argc == 5 && strcmp(argv[1], "flip") == 0)
		return flip(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: wlztool gen KIND SIZE SEED | info FILE | flip FILE POS MASK\n");
	return 2;
}
