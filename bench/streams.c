/*
 * streams.c - the stream codec study (issue 14): the real cmd, lit, len and
 * off streams of archives, coded by each candidate layout beside the zstd
 * frames the archives hold.
 *
 * For each archive written with zstd streams (wavelz --streams=zstd):
 * every block's streams are decoded (the off stream split into its heads
 * and low bytes), then per stream kind:
 *   - bytes: decoded; as stored (zstd or raw, as the encoder chose); coded
 *     by codec 2's huf parts with one table, up to 8 and up to 16, at each
 *     segment size (raw where that is smaller);
 *   - one-core decode MB/s of each and of zstd on the stored frames, best
 *     of -r runs;
 *   - bounds that no codec of whole-bit codes reaches (seg_log 0, no
 *     decode figure), without the cost of sending the model: each piece's
 *     empirical entropy of order 0 ("h0"), of order 1 given the byte
 *     before ("h1"), and given the table codec 2 (up to 16 tables) codes
 *     each symbol in ("hc": what a fractional-bit coder, rANS or FSE, with
 *     codec 2's own contexts could approach).
 *
 * usage: streams [-r 5] ARCHIVE...
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#include "fileio.h"
#include "common/huf.h"
#include "format/format.h"

enum { NC = 3 };
enum { K_CMD, K_LIT, K_LEN, K_OFFH, K_OFFL, NK };
static const char *kname[NK] = {"cmd", "lit", "len", "off-heads", "off-lows"};

typedef struct piece {
	uint8_t *raw;
	size_t n;
	const uint8_t *zsrc;    /* the stored zstd frames of the whole stream (off: both parts) */
	size_t zsize;
	int zkind;              /* this piece carries the stored size and zstd timing */
	size_t zn;              /* the bytes the stored frames decode to */
} piece;

typedef struct plist {
	piece *p;
	size_t n, cap;
} plist;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void add(plist *l, piece pc)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->p = realloc(l->p, l->cap * sizeof(piece));
		if (!l->p)
			exit(2);
	}
	l->p[l->n++] = pc;
}

/* The archive's streams by kind. */
static void collect(const uint8_t *arc, size_t size, plist kinds[NK], size_t *content)
{
	for (uint64_t at = 0; at < size;) {
		wlz_member m;
		if (wlz_member_parse(arc, size, at, &m) != WLZ_OK) {
			fprintf(stderr, "streams: not a valid archive\n");
			exit(2);
		}
		*content += m.content_size;
		for (uint64_t b = 0; b < m.nblocks; b++) {
			const wlz_block_entry *e = &m.blocks[b];
			const uint8_t *s = arc + e->data_offset;
			uint8_t *raw[WLZ_NSTREAMS];
			for (int k = 0; k < WLZ_NSTREAMS; k++) {
				raw[k] = malloc(e->rsize[k] + 1);
				if (e->codec[k] == WLZ_CODEC_RAW)
					memcpy(raw[k], s, e->rsize[k]);
				else if (ZSTD_decompress(raw[k], e->rsize[k], s, e->csize[k]) != e->rsize[k])
					exit(3);
				static const int kind_of[WLZ_NSTREAMS] = {K_CMD, K_LIT, K_LEN, K_OFFH};
				piece pc = {raw[k], e->rsize[k], s, e->csize[k], e->codec[k] == WLZ_CODEC_ZSTD, e->rsize[k]};
				if (k == WLZ_S_OFF) {
					size_t h = 0;
					for (uint32_t t = 0; t < e->rsize[WLZ_S_CMD]; t++)
						h += !(raw[WLZ_S_CMD][t] & 16);
					pc.n = h;
					add(&kinds[K_OFFH], pc);
					piece lo = {raw[k] + h, e->rsize[k] - h, s, 0, 0, 0};
					add(&kinds[K_OFFL], lo);
				} else {
					add(&kinds[kind_of[k]], pc);
				}
				s += e->csize[k];
			}
		}
		at += m.size;
		wlz_member_free(&m);
	}
}

typedef size_t (*enc_fn)(const uint8_t *, size_t, unsigned, uint8_t *, size_t);
typedef wlz_error (*dec_fn)(const uint8_t *, size_t, uint8_t *, size_t);

static wlz_huf_tables htab;

/* The huf part coder with one table or up to 16; a stream of one symbol
 * is a 2-byte run, as in the others. */
static size_t huf_enc(const uint8_t *src, size_t n, unsigned seg, uint8_t *dst, size_t cap, unsigned T)
{
	size_t k = 0;
	for (size_t i = 1; i < n && !k; i++)
		k = src[i] != src[0];
	if (!k) {
		dst[0] = 0xFF;
		dst[1] = src[0];
		return 2;
	}
	return wlz_huf_encode(src, n, seg, T, dst, cap, NULL);
}
static size_t huf1_enc(const uint8_t *s, size_t n, unsigned g, uint8_t *d, size_t c) { return huf_enc(s, n, g, d, c, 1); }
static size_t huf8_enc(const uint8_t *s, size_t n, unsigned g, uint8_t *d, size_t c) { return huf_enc(s, n, g, d, c, 8); }
static size_t hufc_enc(const uint8_t *s, size_t n, unsigned g, uint8_t *d, size_t c) { return huf_enc(s, n, g, d, c, 16); }
static wlz_error huf_dec(const uint8_t *src, size_t cs, uint8_t *dst, size_t n)
{
	if (cs == 2 && src[0] == 0xFF) {
		memset(dst, src[1], n);
		return WLZ_OK;
	}
	return wlz_huf_decode(src, cs, dst, n, &htab);
}

/* Bytes of the symbols counted in cnt[256] (tot in all) coded at their
 * empirical entropy. */
static double row_bytes(const uint32_t *cnt, uint64_t tot)
{
	double bits = 0;
	for (unsigned x = 0; x < 256 && tot; x++)
		if (cnt[x])
			bits -= cnt[x] * log2((double)cnt[x] / (double)tot);
	return bits / 8;
}

/* Bytes of n symbols at src coded at their empirical entropy: order 0,
 * or (order1) given the symbol before (the first given 0). */
static double entropy_bytes(const uint8_t *src, size_t n, int order1)
{
	static uint32_t cnt[256][256];
	static uint32_t tot[256];
	memset(cnt, 0, sizeof cnt);
	memset(tot, 0, sizeof tot);
	unsigned prev = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned c = order1 ? prev : 0;
		cnt[c][src[i]]++;
		tot[c]++;
		prev = src[i];
	}
	double bytes = 0;
	for (unsigned c = 0; c < 256; c++)
		bytes += row_bytes(cnt[c], tot[c]);
	return bytes;
}

/* The "hc" bound of n symbols at src: coded as huf-16 above, then each
 * symbol at the empirical entropy of the table it is coded in (a lane
 * starts in table 0; SPEC.md 5.2); n where huf-16 stores it raw. */
static double context_bytes(const uint8_t *src, size_t n, unsigned seg_log)
{
	const size_t cap = n + n / 8 + 4096;
	uint8_t *buf = malloc(cap);
	const size_t c = hufc_enc(src, n, seg_log, buf, cap);
	static uint32_t cnt[WLZ_HUF_MAX_TABLES][256];
	static wlz_huf_codes hc;
	double bytes = (double)n;
	if (c == 2 && buf[0] == 0xFF)
		bytes = 0;  /* (one byte repeated) */
	else if (c && c < n && wlz_huf_read_codes(buf, c, &hc) == WLZ_OK) {
		memset(cnt, 0, sizeof cnt);
		const size_t S = (size_t)1 << hc.seg_log;
		for (size_t g = 0; g < n; g += S) {
			const size_t m = n - g < S ? n - g : S, q = (m + 31) / 32;
			unsigned t = 0;
			for (size_t k = 0; k < m; k++) {
				if (k % q == 0)
					t = 0;
				cnt[t][src[g + k]]++;
				/* (the entry of the table it was coded in: a table
				 * without a code for it holds no next either) */
				t = hc.code[t * 256 + src[g + k]] >> 4;
			}
		}
		bytes = 0;
		for (unsigned t = 0; t < hc.ntables; t++) {
			uint64_t tot = 0;
			for (unsigned x = 0; x < 256; x++)
				tot += cnt[t][x];
			bytes += row_bytes(cnt[t], tot);
		}
	}
	free(buf);
	return bytes;
}

int main(int argc, char **argv)
{
	int reps = 5, i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = atoi(argv[++i]);
	}
	static const unsigned segs[] = {14, 16};
	enc_fn enc[NC] = {huf1_enc, huf8_enc, hufc_enc};
	dec_fn dec[NC] = {huf_dec, huf_dec, huf_dec};
	static const char *cname[NC] = {"huf-1", "huf-8", "huf-16"};
	printf("file,stream,decoded,stored,stored_pct,coder,seg_log,coded,coded_pct,vs_stored_pct,dec_mbs,zstd_dec_mbs\n");
	for (; i < argc; i++) {
		size_t content = 0;
		fio_input fin;
		if (fio_load(&fin, argv[i])) {
			fprintf(stderr, "streams: cannot read %s\n", argv[i]);
			return 2;
		}
		const uint8_t *arc = fin.data;
		const size_t asize = fin.size;
		plist kinds[NK] = {{0}};
		collect(arc, asize, kinds, &content);
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		for (int k = 0; k < NK; k++) {
			plist *l = &kinds[k];
			size_t dn = 0, stored = 0, maxn = 0;
			for (size_t j = 0; j < l->n; j++) {
				dn += l->p[j].n;
				stored += k == K_OFFL ? 0 : l->p[j].zsize;
				maxn = l->p[j].n > maxn ? l->p[j].n : maxn;
			}
			/* zstd decode of the stored frames (off: both parts at once,
			 * timed with the heads) */
			double zbest = 1e30;
			uint8_t *tmp = malloc(maxn * 2 + (1 << 20));
			if (k != K_OFFL) {
				for (int r = 0; r < reps; r++) {
					double t0 = now();
					for (size_t j = 0; j < l->n; j++) {
						const piece *pc = &l->p[j];
						if (!pc->zkind)
							continue;
						ZSTD_decompress(tmp, maxn * 2 + (1 << 20), pc->zsrc, pc->zsize);
					}
					double t = now() - t0;
					zbest = t < zbest ? t : zbest;
				}
			}
			size_t zn = 0;
			for (size_t j = 0; j < l->n; j++)
				zn += l->p[j].zkind ? l->p[j].zn : 0;
			for (int c = 0; c < NC; c++) {
				for (unsigned si = 0; si < sizeof(segs) / sizeof(segs[0]); si++) {
					size_t coded = 0, cap = maxn + maxn / 8 + 4096;
					uint8_t **cb = malloc(l->n * sizeof(*cb));
					size_t *cs = malloc(l->n * sizeof(*cs));
					for (size_t j = 0; j < l->n; j++) {
						cb[j] = malloc(cap);
						cs[j] = l->p[j].n ? enc[c](l->p[j].raw, l->p[j].n, segs[si], cb[j], cap) : 0;
						if (l->p[j].n && !cs[j])
							exit(4);
						coded += cs[j] < l->p[j].n ? cs[j] : l->p[j].n;
					}
					double best = 1e30;
					for (int r = 0; r < reps; r++) {
						double t0 = now();
						for (size_t j = 0; j < l->n; j++)
							if (cs[j] && dec[c](cb[j], cs[j], tmp, l->p[j].n) != WLZ_OK)
								exit(5);
						double t = now() - t0;
						best = t < best ? t : best;
					}
					for (size_t j = 0; j < l->n; j++)
						if (cs[j] && (dec[c](cb[j], cs[j], tmp, l->p[j].n) != WLZ_OK ||
							      memcmp(tmp, l->p[j].raw, l->p[j].n))) {
							fprintf(stderr, "streams: %s does not round-trip\n", cname[c]);
							exit(6);
						}
					printf("%s,%s,%zu,%zu,%.2f,%s,%u,%zu,%.2f,%.2f,%.0f,%.0f\n", base, kname[k], dn, stored,
					       100.0 * stored / (double)content, cname[c], segs[si], coded,
					       100.0 * coded / (double)content,
					       k == K_OFFL ? 0.0 : 100.0 * ((double)coded / (double)stored - 1),
					       dn / best / 1e6, k == K_OFFL ? 0.0 : zn / zbest / 1e6);
					for (size_t j = 0; j < l->n; j++)
						free(cb[j]);
					free(cb);
					free(cs);
				}
			}
			for (int o = 0; o < 3; o++) {
				static const char *const hname[3] = {"h0", "h1", "hc"};
				double h = 0;
				for (size_t j = 0; j < l->n; j++)
					h += o < 2 ? entropy_bytes(l->p[j].raw, l->p[j].n, o)
						   : l->p[j].n ? context_bytes(l->p[j].raw, l->p[j].n, 14) : 0;
				printf("%s,%s,%zu,%zu,%.2f,%s,0,%.0f,%.2f,%.2f,0,0\n", base, kname[k], dn, stored,
				       100.0 * stored / (double)content, hname[o], h, 100.0 * h / (double)content,
				       k == K_OFFL ? 0.0 : 100.0 * (h / (double)stored - 1));
			}
			free(tmp);
		}
		printf("%s,total,%zu,%zu,%.2f\n", base, content, asize, 100.0 * asize / (double)content);
		fio_unload(&fin);
	}
	return 0;
}
