/*
 * testutil.c - see testutil.h.
 */
#include "wavelz.h"
#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

long tu_failures;

void tu_rng_seed(tu_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t tu_rng_next(tu_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t tu_rng_below(tu_rng *r, uint64_t n)
{
	return n ? tu_rng_next(r) % n : 0;
}

void tu_rng_fill(tu_rng *r, uint8_t *buf, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t v = tu_rng_next(r);
		memcpy(buf + i, &v, 8);
	}
	if (i < n) {
		uint64_t v = tu_rng_next(r);
		memcpy(buf + i, &v, n - i);
	}
}

const char *tu_kind_name(int kind)
{
	static const char *const names[TU_KIND_COUNT] = {
		"random", "zeros", "repeats", "text", "fastq", "skewed"
	};
	return kind >= 0 && kind < TU_KIND_COUNT ? names[kind] : "?";
}

/* Appends s to buf at *pos, clipped at n: generators write whole records
 * and the last one is cut wherever the size ends. */
static void put(uint8_t *buf, size_t n, size_t *pos, const char *s, size_t len)
{
	if (*pos >= n)
		return;
	if (len > n - *pos)
		len = n - *pos;
	memcpy(buf + *pos, s, len);
	*pos += len;
}

static void fill_text(tu_rng *r, uint8_t *buf, size_t n)
{
	static const char *const words[] = {
		"the", "of", "and", "to", "in", "a", "is", "that", "for", "it",
		"as", "was", "with", "be", "by", "on", "not", "he", "this", "are",
		"or", "his", "from", "at", "which", "but", "have", "an", "had",
		"they", "you", "were", "their", "one", "all", "we", "can", "her",
		"has", "there", "been", "if", "more", "when", "will", "would",
		"who", "so", "no", "compression", "dictionary", "archive",
		"parallel", "decoder", "sequence", "literal", "window", "block",
		"reference", "entropy", "quality", "genome", "meaning", "obsolete"
	};
	const size_t nwords = sizeof words / sizeof words[0];
	size_t pos = 0, col = 0, in_sentence = 0;
	while (pos < n) {
		const char *w = words[tu_rng_below(r, nwords)];
		char tmp[32];
		size_t len = strlen(w);
		memcpy(tmp, w, len);
		if (in_sentence == 0)
			tmp[0] = (char)(tmp[0] - 'a' + 'A');
		in_sentence++;
		if (in_sentence > 4 + tu_rng_below(r, 12)) {
			tmp[len++] = '.';
			in_sentence = 0;
		} else if (tu_rng_below(r, 12) == 0) {
			tmp[len++] = ',';
		}
		col += len + 1;
		tmp[len++] = col > 72 ? '\n' : ' ';
		if (col > 72)
			col = 0;
		put(buf, n, &pos, tmp, len);
	}
}

static void fill_fastq(tu_rng *r, uint8_t *buf, size_t n)
{
	static const char acgt[4] = { 'A', 'C', 'G', 'T' };
	unsigned x = 1000, y = 1000, id = 0;
	size_t pos = 0;
	while (pos < n) {
		char line[256];
		int len;
		unsigned rl = 100 + (unsigned)tu_rng_below(r, 3) * 25; /* 100, 125, 150 */
		x += 1 + (unsigned)tu_rng_below(r, 50);
		y = 1000 + (unsigned)tu_rng_below(r, 30000);
		len = snprintf(line, sizeof line, "@SIM:1:FCX%03u:1:%u:%u:%u 1:N:0:ATCACG\n",
			       (id / 5000) % 1000, 1101 + id / 20000, x, y);
		id++;
		put(buf, n, &pos, line, (size_t)len);
		for (unsigned i = 0; i < rl; i++) {
			/* Rare N calls, as in real reads. */
			line[i] = tu_rng_below(r, 500) ? acgt[tu_rng_next(r) & 3] : 'N';
		}
		line[rl] = '\n';
		put(buf, n, &pos, line, rl + 1);
		put(buf, n, &pos, "+\n", 2);
		/* Qualities drift and repeat: runs, a decline towards the end. */
		char q = 'I';
		for (unsigned i = 0; i < rl; i++) {
			uint64_t v = tu_rng_below(r, 8);
			if (v == 0)
				q = (char)('A' + tu_rng_below(r, 10));
			else if (v == 1 && q > '#')
				q = (char)(q - 1);
			if (i > rl - rl / 5 && tu_rng_below(r, 4) == 0 && q > '#')
				q = (char)(q - 2);
			line[i] = q;
		}
		line[rl] = '\n';
		put(buf, n, &pos, line, rl + 1);
	}
}

void tu_fill(int kind, uint8_t *buf, size_t n, uint64_t seed)
{
	tu_rng r;
	tu_rng_seed(&r, seed * 0x100000001B3ull + (uint64_t)kind);
	switch (kind) {
	case TU_RANDOM:
		tu_rng_fill(&r, buf, n);
		break;
	case TU_ZEROS:
		memset(buf, 0, n);
		break;
	case TU_REPEATS: {
		enum { CHUNK = 10240 };
		uint8_t chunk[CHUNK];
		tu_rng_fill(&r, chunk, CHUNK);
		for (size_t i = 0; i < n; i += CHUNK)
			memcpy(buf + i, chunk, n - i < CHUNK ? n - i : CHUNK);
		break;
	}
	case TU_TEXT:
		fill_text(&r, buf, n);
		break;
	case TU_FASTQ:
		fill_fastq(&r, buf, n);
		break;
	case TU_SKEWED:
		for (size_t i = 0; i < n; i++) {
			uint64_t v = tu_rng_next(&r);
			unsigned z = 0;
			while (z < 25 && !(v & 1)) { /* geometric: ~2 bits a byte */
				v >>= 1;
				z++;
			}
			buf[i] = (uint8_t)((v & 0xF00) == 0xF00 ? (v >> 32) : 'a' + z);
		}
		break;
	default:
		memset(buf, 0xEE, n);
		break;
	}
}

uint64_t tu_seed(uint64_t dflt)
{
	const char *s = getenv("WLZ_TEST_SEED");
	uint64_t seed = s && *s ? strtoull(s, NULL, 0) : dflt;
	printf("seed %llu (set WLZ_TEST_SEED to replay)\n", (unsigned long long)seed);
	return seed;
}

void tu_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	/* Keep the log readable when one bug fails thousands of checks. */
	if (tu_failures++ < 60) {
		va_list ap;
		fprintf(stderr, "FAIL %s:%d: %s: ", file, line, expr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	} else if (tu_failures == 61) {
		fprintf(stderr, "(further failures not shown)\n");
	}
	fflush(stderr);
}

int tu_finish(const char *name)
{
	if (tu_failures) {
		printf("%s: %ld check(s) FAILED\n", name, tu_failures);
		return EXIT_FAILURE;
	}
	printf("%s: all checks passed\n", name);
	return EXIT_SUCCESS;
}

void *tu_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory (%zu bytes)\n", n);
		exit(EXIT_FAILURE);
	}
	return p;
}

uint64_t tu_xxh3(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

double tu_now(void)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t tu_block_count(uint64_t n, unsigned block_log)
{
	return (size_t)((n + (((uint64_t)1 << block_log) - 1)) >> block_log);
}

size_t tu_gap(int parallel, size_t nb, int level)
{
	if (parallel == WLZ_PARALLEL_AUTO)
		parallel = level >= WLZ_LEVEL_SIZE_FIRST ? 1 : WLZ_PARALLEL_DEFAULT;
	const size_t full = (size_t)parallel - 1, g = nb < 16 ? 0 : level >= 10 ? nb / 16 : nb - 16;
	return g < full ? g : full;
}

uint32_t tu_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t tu_rd64(const uint8_t *p)
{
	return (uint64_t)tu_rd32(p) | (uint64_t)tu_rd32(p + 4) << 32;
}

void tu_wr32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

void tu_wr64(uint8_t *p, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

long tu_walk_blocks(const uint8_t *arc, size_t size, size_t at, tu_block *out, size_t max,
		    size_t *index_at)
{
	size_t pos;
	long n = 0;
	if (at > size || size - at < TU_HEADER_SIZE)
		return -1;
	pos = at + TU_HEADER_SIZE;
	for (;;) {
		uint32_t tag;
		uint64_t psize = 0;
		if (size - pos < 4)
			return -1;
		tag = tu_rd32(arc + pos);
		if (tag == TU_INDEX_TAG)
			break;
		if (tag != TU_BLOCK_TAG || size - pos < TU_BHEAD_SIZE)
			return -1;
		for (int s = 0; s < 4; s++)
			psize += tu_rd32(arc + pos + 20 + 8 * s);
		if (psize > size - pos - TU_BHEAD_SIZE)
			return -1;
		if (out && (size_t)n < max) {
			out[n].head = pos;
			out[n].payload = pos + TU_BHEAD_SIZE;
			out[n].psize = (size_t)psize;
			out[n].length = tu_rd32(arc + pos + 4);
		}
		pos += TU_BHEAD_SIZE + (size_t)psize;
		n++;
	}
	if (index_at)
		*index_at = pos;
	return n;
}

long tu_index_blocks(const uint8_t *arc, size_t end, size_t *start, size_t *heads, size_t max)
{
	const uint8_t *f;
	uint64_t ioff, msize, n;
	size_t s, idx;
	if (end < TU_HEADER_SIZE + TU_INDEX_FIXED + TU_FOOTER_SIZE)
		return -1;
	f = arc + end - TU_FOOTER_SIZE;
	if (tu_rd64(f + 16) != TU_END_MAGIC)
		return -1;
	ioff = tu_rd64(f);
	msize = tu_rd64(f + 8);
	if (msize > end || msize < TU_HEADER_SIZE + TU_INDEX_FIXED + TU_FOOTER_SIZE ||
	    ioff < TU_HEADER_SIZE || ioff > msize - TU_FOOTER_SIZE - TU_INDEX_FIXED)
		return -1;
	s = end - (size_t)msize;
	idx = s + (size_t)ioff;
	if (tu_rd32(arc + idx) != TU_INDEX_TAG)
		return -1;
	n = tu_rd64(arc + idx + 8);
	if (n > (msize - ioff - TU_FOOTER_SIZE - TU_INDEX_FIXED) / TU_INDEX_ENTRY ||
	    ioff + TU_INDEX_FIXED + TU_INDEX_ENTRY * n + TU_FOOTER_SIZE != msize)
		return -1;
	for (uint64_t b = 0; b < n && b < max; b++)
		heads[b] = s + (size_t)tu_rd64(arc + idx + 16 + TU_INDEX_ENTRY * b);
	if (start)
		*start = s;
	return (long)n;
}

void tu_fix_header(uint8_t *hdr)
{
	tu_wr64(hdr + 24, tu_xxh3(hdr, 24));
}

void tu_fix_bhead(uint8_t *bh)
{
	tu_wr64(bh + 72, tu_xxh3(bh, 72));
}

void tu_fix_index(uint8_t *idx, uint64_t n)
{
	tu_wr64(idx + 32 + 16 * n, tu_xxh3(idx, (size_t)(32 + 16 * n)));
}

size_t tu_mem_read(void *opaque, void *buf, size_t cap)
{
	tu_memrd *r = opaque;
	size_t k = r->pc.mul ? 1 + (size_t)((r->at * r->pc.mul) >> r->pc.shift) % r->pc.max : r->pc.max;
	if (k > cap)
		k = cap;
	if (k > r->n - r->at)
		k = r->n - r->at;
	memcpy(buf, r->p + r->at, k);
	r->at += k;
	return k;
}

int tu_cmp_write(void *opaque, const void *buf, size_t n)
{
	tu_cmpwr *w = opaque;
	if (n > w->n - w->at || memcmp(buf, w->want + w->at, n) != 0)
		w->differ = 1;
	else
		w->at += n;
	return w->keep_going ? 0 : w->differ;
}
