/*
 * wlztool.c - a helper for the CLI tests, so that they need nothing beyond
 * a POSIX shell and check the CLI's archives through the library rather than
 * through the CLI's own output.
 *
 *   wlztool gen KIND SIZE SEED   write SIZE bytes of a testutil data kind
 *                                (random zeros repeats text fastq skewed)
 *   wlztool info FILE            wlz_get_info() of the first member as
 *                                key=value lines, then members= and
 *                                total_content_size= over every member
 *                                (wlz_get_content_size); exit 1 if FILE is
 *                                not a valid archive (any member)
 *   wlztool blocks FILE          one line per block of every member, found
 *                                by walking the block headers: member,
 *                                block, header offset, payload offset,
 *                                payload size, content length; exit 1 if
 *                                the walk fails or disagrees with the index
 *   wlztool flip FILE POS MASK   xor the byte at POS with MASK, in place
 *   wlztool forge FILE OUT SEED N
 *                                FILE with N bytes of its first member's
 *                                block payloads xored with random masks
 *                                and each damaged block's payload and
 *                                header checksums computed again, to OUT:
 *                                damage that reaches the entropy decoder
 *                                and the token parser (a CPU's or a GPU's)
 *                                and must be refused by their rules or by
 *                                the content checksum
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
	uint64_t total = 0, members = 0;
	e = wlz_get_info(buf, n, &in);
	if (e == WLZ_OK)
		e = wlz_get_content_size(buf, n, &total);
	/* Count the members: each one's get_info says where the next starts. */
	for (size_t at = 0; e == WLZ_OK && at < n; members++) {
		wlz_info m;
		e = wlz_get_info(buf + at, n - at, &m);
		if (e == WLZ_OK && m.archive_size == 0)
			e = WLZ_ERR_INTERNAL;
		at += (size_t)m.archive_size;
	}
	if (e != WLZ_OK) {
		fprintf(stderr, "%s: %s: %s\n", path, wlz_error_name(e), wlz_error_detail());
		free(buf);
		return 1;
	}
	free(buf);
	printf("format_version=%u\nlevel=%u\ndepth=%d\nblock_log=%u\nwindow_log=%u\ncontent_size=%llu\n"
	       "archive_size=%llu\nblock_count=%llu\ntoken_count=%llu\nmax_level=%u\n"
	       "content_checksum=%016llx\nmembers=%llu\ntotal_content_size=%llu\n",
	       in.format_version, in.level, in.depth, in.block_log, in.window_log,
	       (unsigned long long)in.content_size, (unsigned long long)in.archive_size,
	       (unsigned long long)in.block_count, (unsigned long long)in.token_count,
	       in.max_level, (unsigned long long)in.content_checksum, (unsigned long long)members,
	       (unsigned long long)total);
	return 0;
}

static int blocks(const char *path)
{
	size_t n = 0, at = 0;
	unsigned char *buf = slurp(path, &n);
	int rc = 0;

	if (!buf)
		return 1;
	for (unsigned long member = 0; at < n && rc == 0; member++) {
		size_t index_at = 0, start = 0, end;
		long nb = tu_walk_blocks(buf, n, at, NULL, 0, &index_at);
		tu_block *b = NULL;
		size_t *heads = NULL;
		if (nb < 0 || n - index_at < 16) {
			fprintf(stderr, "%s: member %lu: the block headers do not lead to an index\n", path, member);
			rc = 1;
			break;
		}
		end = index_at + TU_INDEX_FIXED + TU_INDEX_ENTRY * (size_t)tu_rd64(buf + index_at + 8) + TU_FOOTER_SIZE;
		b = tu_xmalloc(((size_t)nb + 1) * sizeof *b);
		heads = tu_xmalloc(((size_t)nb + 1) * sizeof *heads);
		tu_walk_blocks(buf, n, at, b, (size_t)nb, NULL);
		if (end > n || end < index_at || tu_index_blocks(buf, end, &start, heads, (size_t)nb) != nb ||
		    start != at) {
			fprintf(stderr, "%s: member %lu: the index and footer do not match the blocks\n", path, member);
			rc = 1;
		}
		for (long k = 0; rc == 0 && k < nb; k++) {
			if (heads[k] != b[k].head) {
				fprintf(stderr, "%s: member %lu block %ld: at %zu, the index says %zu\n", path, member,
					k, b[k].head, heads[k]);
				rc = 1;
				break;
			}
			printf("%lu %ld %zu %zu %zu %u\n", member, k, b[k].head, b[k].payload, b[k].psize,
			       b[k].length);
		}
		free(b);
		free(heads);
		at = end;
	}
	free(buf);
	return rc;
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

static int forge(const char *path, const char *out, const char *seed_s, const char *n_s)
{
	size_t n = 0, index_at = 0;
	unsigned char *buf = slurp(path, &n);
	const unsigned long flips = strtoul(n_s, NULL, 0);
	long nb;

	if (!buf)
		return 1;
	nb = tu_walk_blocks(buf, n, 0, NULL, 0, &index_at);
	if (nb <= 0) {
		fprintf(stderr, "wlztool: %s: no block to damage\n", path);
		free(buf);
		return 1;
	}
	tu_block *b = tu_xmalloc((size_t)nb * sizeof *b);
	unsigned char *hit = tu_xmalloc((size_t)nb);
	size_t total = 0;
	tu_walk_blocks(buf, n, 0, b, (size_t)nb, NULL);
	for (long k = 0; k < nb; k++)
		total += b[k].psize;
	memset(hit, 0, (size_t)nb);
	tu_rng r;
	tu_rng_seed(&r, strtoull(seed_s, NULL, 0));
	/* Positions uniform over all payload bytes, so big blocks take most. */
	for (unsigned long i = 0; total && i < flips; i++) {
		size_t x = (size_t)tu_rng_below(&r, total);
		long k = 0;
		while (x >= b[k].psize)
			x -= b[k++].psize;
		buf[b[k].payload + x] ^= (unsigned char)(1 + tu_rng_below(&r, 255));
		hit[k] = 1;
	}
	for (long k = 0; k < nb; k++)
		if (hit[k]) {
			tu_wr64(buf + b[k].head + 64, tu_xxh3(buf + b[k].payload, b[k].psize));
			tu_fix_bhead(buf + b[k].head);
		}
	FILE *f = fopen(out, "wb");
	int rc = !f || fwrite(buf, 1, n, f) != n;
	if (f && fclose(f) != 0)
		rc = 1;
	if (rc)
		fprintf(stderr, "wlztool: cannot write %s\n", out);
	free(hit);
	free(b);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "gen") == 0)
		return gen(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "info") == 0)
		return info(argv[2]);
	if (argc == 3 && strcmp(argv[1], "blocks") == 0)
		return blocks(argv[2]);
	if (argc == 5 && strcmp(argv[1], "flip") == 0)
		return flip(argv[2], argv[3], argv[4]);
	if (argc == 6 && strcmp(argv[1], "forge") == 0)
		return forge(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr, "usage: wlztool gen KIND SIZE SEED | info FILE | blocks FILE | flip FILE POS MASK | "
		"forge FILE OUT SEED N\n");
	return 2;
}
