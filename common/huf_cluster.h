/*
 * huf_cluster.h - codec 2's tables (SPEC.md 5.2): one table's code lengths
 * from counts, and the clustering of a stream's 257 contexts (the previous
 * symbol, or a lane's start) into at most 16 tables.  Shared by the CPU
 * encoder (huf_enc.c) and the GPU compressor (gpu_compress/), whose kernels
 * call it on the device: plain C that nvcc also reads.
 */
#ifndef WLZ_HUF_CLUSTER_H
#define WLZ_HUF_CLUSTER_H

#include <stdint.h>
#include <string.h>

#include "common/huf_len.h"

#define WLZ_HUF_NCTX 257        /* previous symbol 0..255, 256 = a lane's start */
#define WLZ_HUF_START 256
#define WLZ_HUF_CLUSTER_MAX 16  /* tables at most (SPEC.md 5.2) */
#define WLZ_HUF_CLUSTER_ITER 6  /* k-means passes at most (wlz_huf_cluster) */

/* The clustering's scratch (large for a GPU thread's stack): each active
 * context's counts as floats and its cost under each group, and per group
 * its costs and counts. */
typedef struct wlz_huf_cluster_work {
	float dense[WLZ_HUF_NCTX * 256];
	float x[WLZ_HUF_NCTX][WLZ_HUF_CLUSTER_MAX];
	float cost[WLZ_HUF_CLUSTER_MAX][256];
	uint64_t h[WLZ_HUF_CLUSTER_MAX][256];
} wlz_huf_cluster_work;

WLZ_HUF_LEN_FN unsigned wlz_huf_highbit(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return 63u - (unsigned)__clzll((long long)(x | 1));
#else
	return 63u - (unsigned)__builtin_clzll(x | 1);
#endif
}

/* One table: lengths of the symbols 0..255 from counts h (0: no code; a
 * table of one symbol gets length 1 and codes it in no bits).  Returns
 * the bits its symbols take. */
WLZ_HUF_LEN_FN uint64_t wlz_huf_build_table(const uint32_t h[256], uint8_t len[256])
{
	uint32_t c[256];
	uint8_t l[256], s[256];
	unsigned k = 0;
	for (unsigned i = 0; i < 256; i++) {
		len[i] = 0;
		if (h[i])
			c[k] = h[i], s[k++] = (uint8_t)i;
	}
	if (k == 1) {
		len[s[0]] = 1;
		return 0;
	}
	(void)wlz_huf_code_lengths(c, k, l);  /* complete for every count seen; the tests decode */
	uint64_t bits = 0;
	for (unsigned i = 0; i < k; i++)
		len[s[i]] = l[i], bits += (uint64_t)c[i] * l[i];
	return bits;
}

/* log2(x) for x >= 1 to within 0.0011: the exponent, and a cubic on the
 * mantissa (least squares, exact at both ends).  The clustering calls it
 * thousands of times a stream, where libm's log2f stood out in profiles. */
WLZ_HUF_LEN_FN float wlz_huf_fast_log2(uint64_t x)
{
	const unsigned e = wlz_huf_highbit(x);
	const uint64_t m = e > 23 ? x >> (e - 23) : x << (23 - e);
	const float f = (float)(m & 0x7FFFFF) * (1.0f / 8388608.0f);
	return (float)e + f * (1.4208645f + f * (-0.5772507f + f * 0.1563861f));
}

/* The cost in bits of a symbol seen h times in a group of ht symbols
 * (lt = log2(ht)): over-long codes cost the longest, absent symbols one
 * more. */
WLZ_HUF_LEN_FN float wlz_huf_sym_cost(float lt, uint64_t h)
{
	const float b = h ? lt - wlz_huf_fast_log2(h) : WLZ_HUF_LEN_MAX + 1;
	return b < WLZ_HUF_LEN_MAX ? b : (h ? WLZ_HUF_LEN_MAX : WLZ_HUF_LEN_MAX + 1);
}

/* A dot product's eight partial sums added in a fixed order (the GPU's
 * clustering must round as the CPU's does). */
WLZ_HUF_LEN_FN float wlz_huf_sum8(const float acc[8])
{
	return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* The group for a context whose cost under group g is x[g] (groups empty
 * at the pass's start, ht0[g] == 0, skipped, the first too: an empty
 * group's costs are not a distribution; ties to the first). */
WLZ_HUF_LEN_FN unsigned wlz_huf_pick(const float *x, const uint64_t *ht0, unsigned T)
{
	float best = 0;
	unsigned bg = T;
	for (unsigned g = 0; g < T; g++) {
		if (!ht0[g])
			continue;
		if (bg == T || x[g] < best)
			best = x[g], bg = g;
	}
	return bg == T ? 0 : bg;
}

/* Dense group numbers, the start's group first (na active contexts act). */
WLZ_HUF_LEN_FN unsigned wlz_huf_renumber(const uint64_t *tot, const unsigned *act, unsigned na, uint8_t *grp)
{
	uint8_t ren[WLZ_HUF_CLUSTER_MAX];
	for (unsigned g = 0; g < WLZ_HUF_CLUSTER_MAX; g++)
		ren[g] = 0xFF;
	unsigned ng = 0;
	if (tot[WLZ_HUF_START])
		ren[grp[WLZ_HUF_START]] = (uint8_t)ng++;
	for (unsigned i = 0; i < na; i++)
		if (ren[grp[act[i]]] == 0xFF)
			ren[grp[act[i]]] = (uint8_t)ng++;
	for (unsigned i = 0; i < na; i++)
		grp[act[i]] = ren[grp[act[i]]];
	return ng;
}

/* Adds (add = 1) or removes (0) context counts cc over the nu symbols
 * used to a group's. */
WLZ_HUF_LEN_FN void wlz_huf_move_counts(uint64_t *h, uint64_t *ht, const uint32_t *cc, const uint8_t *used, unsigned nu,
			uint64_t tot, int add)
{
	for (unsigned j = 0; j < nu; j++)
		h[j] = add ? h[j] + cc[used[j]] : h[j] - cc[used[j]];
	*ht = add ? *ht + tot : *ht - tot;
}

/* Clusters the active contexts into at most T groups (k-means on the cost
 * of coding a context's symbols with a group's distribution, at most
 * iters passes); grp[c] is the group of context c, the start's group is
 * 0, groups are dense.  all[x]: symbol x's count over the active contexts
 * (NULL: found here).  Returns the number of groups. */
WLZ_HUF_LEN_FN unsigned wlz_huf_cluster_all(const uint32_t (*cnt)[256], const uint64_t *tot, const uint32_t *all,
					    unsigned T, unsigned iters, uint8_t *grp, wlz_huf_cluster_work *w)
{
	unsigned act[WLZ_HUF_NCTX], na = 0;
	for (unsigned c = 0; c < WLZ_HUF_NCTX; c++)
		if (tot[c])
			act[na++] = c;
	if (na <= T) {
		for (unsigned i = 0; i < na; i++)
			grp[act[i]] = (uint8_t)i;
	} else {
		/* Seeds: the T most frequent contexts. */
		uint8_t seed[WLZ_HUF_NCTX] = {0};
		for (unsigned g = 0; g < T; g++) {
			unsigned best = WLZ_HUF_NCTX;
			for (unsigned i = 0; i < na; i++)
				if (!seed[act[i]] && (best == WLZ_HUF_NCTX || tot[act[i]] > tot[best]))
					best = act[i];
			seed[best] = 1;
			grp[best] = (uint8_t)g;
		}
		for (unsigned i = 0; i < na; i++)
			if (!seed[act[i]])
				grp[act[i]] = 0xFF;
		/* The symbols present, and each context's counts over them in
		 * rows of a multiple of 8 (zero-padded): a context's cost under
		 * a group is then a dense dot product, 8 lanes at a time. */
		uint8_t used[256];
		uint32_t any[256] = {0};
		unsigned nu = 0;
		if (!all) {
			for (unsigned i = 0; i < na; i++)
				for (unsigned x = 0; x < 256; x++)
					any[x] |= cnt[act[i]][x];
			all = any;
		}
		for (unsigned x = 0; x < 256; x++)
			if (all[x])
				used[nu++] = (uint8_t)x;
		const unsigned nr = (nu + 7) & ~7u;
		float *dense = w->dense;
		for (unsigned i = 0; i < na; i++) {
			float *row = dense + (size_t)i * nr;
			for (unsigned j = 0; j < nu; j++)
				row[j] = (float)cnt[act[i]][used[j]];
			for (unsigned j = nu; j < nr; j++)
				row[j] = 0;
		}
		float(*cost)[256] = w->cost;
		/* Groups whose contexts changed: only their costs change, and
		 * only a context's costs under them (fresh) are computed again. */
		uint8_t dirty[WLZ_HUF_CLUSTER_MAX], fresh[WLZ_HUF_CLUSTER_MAX];
		memset(dirty, 1, sizeof(dirty));
		/* Each group's counts, kept up to date as contexts move. */
		uint64_t(*h)[256] = w->h, ht[WLZ_HUF_CLUSTER_MAX] = {0};
		memset(w->h, 0, sizeof(w->h));
		for (unsigned i = 0; i < na; i++) {
			const unsigned c = act[i], g = grp[c];
			if (g == 0xFF)
				continue;
			for (unsigned j = 0; j < nu; j++)
				h[g][j] += cnt[c][used[j]];
			ht[g] += tot[c];
		}
		for (unsigned it = 0; it < iters; it++) {
			/* (the pass below sees the groups as they stood) */
			uint64_t ht0[WLZ_HUF_CLUSTER_MAX];
			memcpy(ht0, ht, sizeof(ht0));
			for (unsigned g = 0; g < T; g++) {
				if (!dirty[g])
					continue;
				const float lt = ht[g] ? wlz_huf_fast_log2(ht[g]) : 0;
				for (unsigned j = 0; j < nu; j++)
					cost[g][j] = wlz_huf_sym_cost(lt, h[g][j]);
				for (unsigned j = nu; j < nr; j++)
					cost[g][j] = 0;
			}
			unsigned moved = 0;
			memcpy(fresh, dirty, sizeof(fresh));
			memset(dirty, 0, sizeof(dirty));
			for (unsigned i = 0; i < na; i++) {
				const unsigned c = act[i];
				const float *row = dense + (size_t)i * nr;
				float *x = w->x[i];
				for (unsigned g = 0; g < T; g++) {
					if (!ht0[g] || !fresh[g])
						continue;
					float acc[8] = {0};
					for (unsigned j = 0; j < nr; j += 8)
						for (unsigned l = 0; l < 8; l++)
							acc[l] += row[j + l] * cost[g][j + l];
					x[g] = wlz_huf_sum8(acc);
				}
				const unsigned bg = wlz_huf_pick(x, ht0, T);
				if (grp[c] != bg) {
					moved++;
					dirty[bg] = 1;
					if (grp[c] != 0xFF) {
						dirty[grp[c]] = 1;
						wlz_huf_move_counts(h[grp[c]], &ht[grp[c]], cnt[c], used, nu, tot[c], 0);
					}
					wlz_huf_move_counts(h[bg], &ht[bg], cnt[c], used, nu, tot[c], 1);
				}
				grp[c] = (uint8_t)bg;
			}
			/* Settled: another round would give the same groups. */
			if (!moved)
				break;
		}
	}
	return wlz_huf_renumber(tot, act, na, grp);
}

/* The same, the symbols' counts found here. */
WLZ_HUF_LEN_FN unsigned wlz_huf_cluster_iter(const uint32_t (*cnt)[256], const uint64_t *tot, unsigned T,
					     unsigned iters, uint8_t *grp, wlz_huf_cluster_work *w)
{
	return wlz_huf_cluster_all(cnt, tot, NULL, T, iters, grp, w);
}

/* The same with WLZ_HUF_CLUSTER_ITER passes at most. */
WLZ_HUF_LEN_FN unsigned wlz_huf_cluster(const uint32_t (*cnt)[256], const uint64_t *tot, unsigned T, uint8_t *grp,
					wlz_huf_cluster_work *w)
{
	return wlz_huf_cluster_iter(cnt, tot, T, WLZ_HUF_CLUSTER_ITER, grp, w);
}

#endif
