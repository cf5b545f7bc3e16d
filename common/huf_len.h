/*
 * huf_len.h - code lengths for codec 2's tables (SPEC.md 5.2): Huffman's,
 * limited to WLZ_HUF_LEN_MAX bits, complete.  Shared by the CPU encoder
 * (huf_enc.c) and the GPU compressor (gpu_compress/gc_core.h), whose
 * kernels call it on the device, so it is plain C that nvcc also reads.
 */
#ifndef WLZ_HUF_LEN_H
#define WLZ_HUF_LEN_H

#include <stdint.h>

#ifdef __CUDACC__
#define WLZ_HUF_LEN_FN __host__ __device__ static inline
#else
#define WLZ_HUF_LEN_FN static inline
#endif

#define WLZ_HUF_LEN_MAX 10

/* Huffman's lengths, over the limit clamped, of the k >= 2 leaves whose
 * keys (count << 8 | index, unique) are sorted: len[index].  The nodes
 * merged are made in order of weight, so two queues give the lightest
 * pair in constant time. */
WLZ_HUF_LEN_FN void wlz_huf_tree_lengths(const uint64_t *key, unsigned k, uint8_t *len)
{
	uint64_t w[511];
	uint16_t parent[511];
	uint8_t depth[511];
	for (unsigned i = 0; i < k; i++)
		w[i] = key[i] >> 8;
	unsigned leaf = 0, node = k;
	const unsigned root = 2 * k - 2;
	for (unsigned nn = k; nn <= root; nn++) {
		w[nn] = 0;
		for (int t = 0; t < 2; t++) {
			const unsigned x = leaf < k && (node >= nn || w[leaf] <= w[node]) ? leaf++ : node++;
			parent[x] = (uint16_t)nn;
			w[nn] += w[x];
		}
	}
	depth[root] = 0;
	for (unsigned x = root; x-- > 0;)
		depth[x] = (uint8_t)(depth[parent[x]] + 1);
	for (unsigned i = 0; i < k; i++)
		len[key[i] & 0xFF] = (uint8_t)(depth[i] > WLZ_HUF_LEN_MAX ? WLZ_HUF_LEN_MAX : depth[i]);
}

/* Lengths len[0..k) of the k >= 2 symbols with counts c[0..k) (in the
 * caller's order, which breaks ties): Huffman's, then lengths over the
 * limit clamped and the Kraft sum repaired.  Returns 0 if the sum could
 * not be made exactly complete (not seen; the caller stores raw). */
WLZ_HUF_LEN_FN int wlz_huf_code_lengths(const uint32_t *c, unsigned k, uint8_t *len)
{
	enum { MB = WLZ_HUF_LEN_MAX };
	/* Leaves sorted by weight (index below it: keys are unique, so the
	 * order is the same each run).  Shell sort: k <= 256, once a table,
	 * and no qsort on a GPU; insertion sort alone took k^2 / 4 moves. */
	uint64_t key[256];
	for (unsigned i = 0; i < k; i++)
		key[i] = (uint64_t)c[i] << 8 | i;
	const unsigned gaps[5] = {57, 23, 10, 4, 1};
	for (unsigned gi = 0; gi < 5; gi++) {
		const unsigned h = gaps[gi];
		for (unsigned i = h; i < k; i++) {
			const uint64_t x = key[i];
			unsigned j = i;
			for (; j >= h && key[j - h] > x; j -= h)
				key[j] = key[j - h];
			key[j] = x;
		}
	}
	wlz_huf_tree_lengths(key, k, len);
	uint32_t kraft = 0;
	for (unsigned i = 0; i < k; i++)
		kraft += 1u << (MB - len[i]);
	/* Over-full: lengthen the rarest of the longest codes below MB. */
	while (kraft > (1u << MB)) {
		unsigned best = k;
		for (unsigned i = 0; i < k; i++)
			if (len[i] < MB && (best == k || len[i] > len[best] ||
					    (len[i] == len[best] && c[i] < c[best])))
				best = i;
		if (best == k)
			return 0;
		kraft -= 1u << (MB - len[best] - 1);
		len[best]++;
	}
	/* Room left: shorten the commonest codes that fit. */
	for (int again = 1; again && kraft < (1u << MB);) {
		again = 0;
		unsigned best = k;
		for (unsigned i = 0; i < k; i++)
			if (len[i] > 1 && kraft + (1u << (MB - len[i])) <= (1u << MB) &&
			    (best == k || c[i] > c[best]))
				best = i;
		if (best < k) {
			kraft += 1u << (MB - len[best]);
			len[best]--;
			again = 1;
		}
	}
	return kraft == (1u << MB);
}

#endif
