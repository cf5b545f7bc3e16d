/*
 * fqgen.c - a FASTQ of any size made from real reads, for bench/ (issue 13):
 * records drawn at random with replacement from a FASTQ file, about 1% of
 * their bases changed at random, names renumbered.  Repeated copies of one
 * file would turn into nothing under a large window; resampled reads with
 * fresh errors behave like a deeper sequencing run of the same library.
 *
 *   fqgen READS.fastq BYTES [SEED] > out.fastq
 *
 * Output stops at the first whole record at or past BYTES.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
	const char *name, *seq, *plus, *qual;  /* lines without their '\n' */
	uint32_t nlen, slen, plen, qlen;
} rec;

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: fast, and every seed gives a full-quality stream */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static char *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 24, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		if (!buf)
			break;
		size_t k = fread(buf + len, 1, cap - len, f);
		if (k == 0)
			break;
		len += k;
	}
	fclose(f);
	*n = len;
	return buf;
}

/* The line at *p (ending before '\n' or end), *p moved past it. */
static const char *line(const char **p, const char *end, uint32_t *len)
{
	const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));
	if (!e)
		e = end;
	*len = (uint32_t)(e - s);
	*p = e < end ? e + 1 : end;
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fqgen READS.fastq BYTES [SEED]\n");
		return 2;
	}
	size_t n;
	char *data = load(argv[1], &n);
	if (!data) {
		perror(argv[1]);
		return 1;
	}
	const unsigned long long want = strtoull(argv[2], NULL, 0);
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	size_t cap = 1 << 20, nr = 0;
	rec *r = malloc(cap * sizeof(*r));
	for (const char *p = data, *end = data + n; p < end && r;) {
		if (nr == cap)
			r = realloc(r, (cap *= 2) * sizeof(*r));
		if (!r)
			break;
		rec *x = &r[nr];
		x->name = line(&p, end, &x->nlen);
		x->seq = line(&p, end, &x->slen);
		x->plus = line(&p, end, &x->plen);
		x->qual = line(&p, end, &x->qlen);
		if (x->nlen && x->name[0] == '@' && x->slen == x->qlen)
			nr++;
	}
	if (!r || nr == 0) {
		fprintf(stderr, "fqgen: no FASTQ records in %s\n", argv[1]);
		return 1;
	}
	static char out[1 << 20];
	size_t at = 0;
	unsigned long long written = 0, id = 0;
	static const char bases[4] = { 'A', 'C', 'G', 'T' };
	while (written < want) {
		const rec *x = &r[rng_next(&seed) % nr];
		if (at + x->nlen + x->slen + x->plen + x->qlen + 64 > sizeof(out)) {
			if (fwrite(out, 1, at, stdout) != at)
				return 1;
			written += at;
			at = 0;
			continue;
		}
		/* The name up to its first space or '.', renumbered. */
		uint32_t keep = 0;
		while (keep < x->nlen && x->name[keep] != ' ' && x->name[keep] != '.')
			keep++;
		memcpy(out + at, x->name, keep);
		at += keep;
		at += (size_t)sprintf(out + at, ".%llu\n", ++id);
		memcpy(out + at, x->seq, x->slen);
		for (uint32_t i = 0; i < x->slen; i++) {
			uint64_t v = rng_next(&seed);
			if (v % 100 == 0)
				out[at + i] = bases[(v >> 32) & 3];
		}
		at += x->slen;
		out[at++] = '\n';
		out[at++] = '+';
		out[at++] = '\n';
		memcpy(out + at, x->qual, x->qlen);
		at += x->qlen;
		out[at++] = '\n';
	}
	if (at && fwrite(out, 1, at, stdout) != at)
		return 1;
	free(r);
	free(data);
	return fflush(stdout) != 0;
}
