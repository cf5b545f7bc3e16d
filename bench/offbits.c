/*
 * offbits.c - what the off stream would cost with exact extra bits (issue
 * 13, point 3: where level 19's gap to zstd -19 goes).
 *
 * Today an explicit offset x (SPEC.md, section 6) is a head byte (k and
 * the top 5 bits) and k whole low bytes.  The alternative measured here
 * is zstd's shape: a code, the bit length of x, entropy-coded, then the
 * bits of x below its leading one, stored raw.  For each archive written
 * with zstd streams (wavelz --streams=zstd), block by block:
 *   - today: heads and low bytes each coded by codec 2's huf parts (up to
 *     16 tables, as the encoder does; raw where that is smaller);
 *   - exact: the codes coded the same way, plus the extra bits, packed.
 * Prints, per archive, both totals and their difference as a share of the
 * archive.
 *
 * usage: offbits ARCHIVE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "fileio.h"
#include "common/huf.h"
#include "format/format.h"

/* Coded size of a part as the encoder would store it: huf or raw. */
static size_t part_size(const uint8_t *p, size_t n, uint8_t *scratch, size_t cap)
{
	if (n == 0)
		return 0;
	size_t k = 0;
	for (size_t i = 1; i < n && !k; i++)
		k = p[i] != p[0];
	if (!k)
		return 1;
	const size_t c = n > 64 ? wlz_huf_encode(p, n, WLZ_HUF_SEG_DEFAULT, WLZ_HUF_MAX_TABLES, scratch, cap, NULL) : 0;
	return c && c < n ? c : n;
}

static unsigned bitlen(uint64_t x)
{
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: offbits ARCHIVE...\n");
		return 2;
	}
	printf("archive,archive_bytes,offsets,today_bytes,exact_codes_bytes,exact_extra_bytes,exact_bytes,"
	       "saving_pct_of_archive\n");
	for (int i = 1; i < argc; i++) {
		fio_input fin;
		if (fio_load(&fin, argv[i])) {
			fprintf(stderr, "offbits: cannot read %s\n", argv[i]);
			return 2;
		}
		size_t noff = 0, today = 0, codes_b = 0;
		uint64_t extra_bits = 0;
		for (uint64_t at = 0; at < fin.size;) {
			wlz_member m;
			if (wlz_member_parse(fin.data, fin.size, at, &m) != WLZ_OK) {
				fprintf(stderr, "offbits: %s is not a valid archive\n", argv[i]);
				return 2;
			}
			for (uint64_t b = 0; b < m.nblocks; b++) {
				const wlz_block_entry *e = &m.blocks[b];
				const uint8_t *s = fin.data + e->data_offset;
				uint8_t *raw[WLZ_NSTREAMS];
				for (int k = 0; k < WLZ_NSTREAMS; k++) {
					raw[k] = malloc(e->rsize[k] + 8);
					if (e->codec[k] == WLZ_CODEC_RAW)
						memcpy(raw[k], s, e->rsize[k]);
					else if (e->codec[k] != WLZ_CODEC_ZSTD ||
						 ZSTD_decompress(raw[k], e->rsize[k], s, e->csize[k]) != e->rsize[k]) {
						fprintf(stderr, "offbits: write the archive with --streams=zstd\n");
						return 2;
					}
					s += e->csize[k];
				}
				size_t nh = 0;
				for (uint32_t t = 0; t < e->rsize[WLZ_S_CMD]; t++)
					nh += !(raw[WLZ_S_CMD][t] & 16);
				const uint8_t *heads = raw[WLZ_S_OFF], *lw = heads + nh;
				uint8_t *codes = malloc(nh + 1);
				for (size_t j = 0; j < nh; j++) {
					const unsigned h = heads[j], k = h >> 5;
					uint64_t x = (uint64_t)(h & 31) << (8 * k);
					for (unsigned q = 0; q < k; q++)
						x |= (uint64_t)lw[q] << (8 * q);
					lw += k;
					const unsigned c = bitlen(x);
					codes[j] = (uint8_t)c;
					extra_bits += c > 1 ? c - 1 : 0;
				}
				const size_t cap = 2 * e->rsize[WLZ_S_OFF] + 4096;
				uint8_t *scratch = malloc(cap);
				today += part_size(heads, nh, scratch, cap) +
					 part_size(heads + nh, e->rsize[WLZ_S_OFF] - nh, scratch, cap);
				codes_b += part_size(codes, nh, scratch, cap);
				noff += nh;
				free(scratch);
				free(codes);
				for (int k = 0; k < WLZ_NSTREAMS; k++)
					free(raw[k]);
			}
			at += m.size;
			wlz_member_free(&m);
		}
		const size_t extra_b = (size_t)((extra_bits + 7) / 8), exact = codes_b + extra_b;
		printf("%s,%zu,%zu,%zu,%zu,%zu,%zu,%.2f\n", argv[i], fin.size, noff, today, codes_b, extra_b, exact,
		       100.0 * ((double)today - (double)exact) / (double)fin.size);
		fio_unload(&fin);
	}
	return 0;
}
