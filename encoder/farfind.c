/*
 * farfind.c - the sparse long-distance table: sizing, anchors, insertion.
 */
#include <stdlib.h>
#include "common/large.h"
#include "encoder/farfind.h"

unsigned wlz_far_log_for(uint64_t window, unsigned rate)
{
	uint64_t want = window / rate;
	unsigned lg = 10;
	/* (at most 2^30 ways: 4 GiB) */
	while (((uint64_t)WLZ_FAR_WAYS << (lg + 1)) <= ((uint64_t)1 << 30) && ((uint64_t)WLZ_FAR_WAYS << lg) < want)
		lg++;
	return lg;
}

uint64_t wlz_far_memory(unsigned log)
{
	return ((uint64_t)WLZ_FAR_WAYS << log) * sizeof(uint32_t);
}

wlz_error wlz_far_init(wlz_far *f, unsigned log, unsigned hash_len, unsigned rate, uint64_t window)
{
	memset(f, 0, sizeof(*f));
	/* Faulted in here, not as threads first touch it: a page first read
	 * maps the shared zero page, and the first write then replaces it,
	 * which interrupts every core running a thread of ours to flush its
	 * TLB. */
	f->slot = wlz_large_alloc(wlz_far_memory(log));
	if (!f->slot)
		return WLZ_ERR_NOMEM;
	memset(f->slot, 0, wlz_far_memory(log));
	f->log = log;
	f->hash_len = hash_len;
	/* Distances up to the window need its log2 + 1 bits (modulo that,
	 * an entry older than the window may alias a nearer position; every
	 * candidate is checked against the bytes).  The bits left, up to the
	 * 5 an anchor has room for, hold the tag. */
	unsigned wl = 0;
	while (wl < 63 && ((uint64_t)2 << wl) <= window)
		wl++;
	f->pos_bits = wl + 1 < 32 ? wl + 1 : 32;
	f->tag_bits = 32 - f->pos_bits < 5 ? 32 - f->pos_bits : 5;
	f->pos_mask = f->pos_bits == 32 ? 0xFFFFFFFFu : ((uint32_t)1 << f->pos_bits) - 1;
	/* Bit j of the rolling hash depends on the last j + 1 bytes only, so
	 * bits below hash_len select by the hashed bytes alone. */
	unsigned r = 0;
	while ((2u << r) <= rate && r + 1 < hash_len)
		r++;
	f->amask = (((uint64_t)1 << r) - 1) << (hash_len - r);
	uint64_t x = 0x243F6A8885A308D3ull;  /* (any fixed seed: the table only has to be the same each run) */
	for (unsigned b = 0; b < 256; b++) {
		/* splitmix64 */
		x += 0x9E3779B97F4A7C15ull;
		uint64_t z = x;
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		f->gear[b] = z ^ (z >> 31);
	}
	return WLZ_OK;
}

void wlz_far_destroy(wlz_far *f)
{
	wlz_large_free(f->slot, wlz_far_memory(f->log));
	f->slot = NULL;
}

size_t wlz_far_anchors(const wlz_far *f, const uint8_t *src, uint64_t from, uint64_t to, wlz_anchor *out)
{
	if (to <= from)
		return 0;
	const unsigned hl = f->hash_len;
	const uint64_t m = f->amask;
	uint64_t h = 0;
	/* After byte q the hash covers the window that ends there. */
	for (unsigned i = 0; i + 1 < hl; i++)
		h = (h << 1) + f->gear[src[from + i]];
	const uint8_t *s = src + hl - 1;
	size_t n = 0;
	if (__builtin_popcountll(m) >= 4) {
		/* Sparse (one in 16 or fewer): a branch, rarely taken, once
		 * every four positions. */
		const uint64_t *g = f->gear;
		uint64_t p = from;
		for (; p + 4 <= to; p += 4) {
			const uint64_t h0 = (h << 1) + g[s[p]], h1 = (h0 << 1) + g[s[p + 1]];
			const uint64_t h2 = (h1 << 1) + g[s[p + 2]], h3 = (h2 << 1) + g[s[p + 3]];
			h = h3;
			/* (the product of the four is 0 just where one is: each
			 * nonzero one has under 16 trailing zeros, mask bits lying
			 * below hash_len <= 16, so the product never wraps to 0) */
			if ((h0 & m) * (h1 & m) * (h2 & m) * (h3 & m) != 0)
				continue;
			if (!(h0 & m))
				out[n++].pos = (uint32_t)(p - from);
			if (!(h1 & m))
				out[n++].pos = (uint32_t)(p + 1 - from);
			if (!(h2 & m))
				out[n++].pos = (uint32_t)(p + 2 - from);
			if (!(h3 & m))
				out[n++].pos = (uint32_t)(p + 3 - from);
		}
		for (; p < to; p++) {
			h = (h << 1) + g[s[p]];
			if (!(h & m))
				out[n++].pos = (uint32_t)(p - from);
		}
	} else {
		/* Branch-free (an anchor every few positions would
		 * mispredict): out has room for every position. */
		for (uint64_t p = from; p < to; p++) {
			h = (h << 1) + f->gear[s[p]];
			out[n].pos = (uint32_t)(p - from);
			n += (h & m) == 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i].bucket = wlz_far_bucket_of(f, wlz_far_hash64(f, src + from + out[i].pos));
	return n;
}

void wlz_far_insert(wlz_far *f, const wlz_anchor *a, size_t n, uint64_t block_abs, unsigned part,
		    unsigned nparts)
{
	for (size_t i = 0; i < n; i++) {
		/* The table is far larger than the caches: fetch ahead. */
		if (i + 16 < n && wlz_far_part(f, a[i + 16].bucket, nparts) == part)
			__builtin_prefetch(f->slot + (size_t)wlz_anchor_index(a[i + 16].bucket) * WLZ_FAR_WAYS, 1);
		const uint32_t b = wlz_anchor_index(a[i].bucket);
		if (wlz_far_part(f, a[i].bucket, nparts) != part)
			continue;
		uint32_t *w = f->slot + (size_t)b * WLZ_FAR_WAYS;
		for (int k = WLZ_FAR_WAYS - 1; k > 0; k--)
			w[k] = w[k - 1];
		w[0] = ((uint32_t)(block_abs + a[i].pos + 1) & f->pos_mask) | wlz_anchor_tag(f, a[i].bucket);
	}
}
