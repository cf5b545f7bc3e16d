/*
 * gc_code.cuh - codec 2's tables for a part, one CTA a part: the steps of
 * gc_part_code (gc_core.h) and of the clustering (common/huf_cluster.h)
 * spread over the CTA's threads.  Every float is computed by one thread
 * in the CPU's order (and the file is built without fused multiply-add),
 * and every sum of counts is an integer, so the tables equal the
 * reference's; the test compares the archives byte for byte.
 */
#ifndef WLZ_GC_CODE_CUH
#define WLZ_GC_CODE_CUH

#define GC_CODE_THREADS 256
/* cost rows padded to an odd stride: the 16 groups' entries for one
 * symbol fall in 16 banks */
#define GC_CSTRIDE 257

struct gc_code_smem {
	uint64_t tot[WLZ_HUF_NCTX];
	uint64_t ht[GC_TMAX], ht0[GC_TMAX];
	uint64_t bits[GC_TMAX + 1];
	uint32_t all[256];
	float cost[GC_TMAX][GC_CSTRIDE];
	union {
		uint32_t h[GC_TMAX][256];               /* groups' counts */
		float x[WLZ_HUF_NCTX * GC_TMAX];        /* contexts' costs under each group */
	} u;
	uint8_t lc[GC_TMAX][256];
	/* padded to whole 16-byte words: the compiler reads act four at a
	 * time, and a read past its end would touch grp, which other threads
	 * write meanwhile (racecheck reported it; the bytes went unused) */
	unsigned act[(WLZ_HUF_NCTX + 3) & ~3u];
	uint8_t grp[WLZ_HUF_NCTX];
	uint8_t used[256];
	unsigned na, nu, tc;
};

/* Each group's counts over the used symbols (h[g][j]) and totals (ht),
 * from the contexts placed (0xFF: not yet); the counts from the CTA's
 * copy (cc: a row of nr a context) where it was made. */
__device__ void gc_cta_group_counts(gc_code_smem &s, const uint32_t (*cnt)[256], const uint32_t *cc, unsigned nr,
				    unsigned T)
{
	const unsigned t = threadIdx.x;
	if (t < s.nu) {
		for (unsigned g = 0; g < T; g++)
			s.u.h[g][t] = 0;
		const unsigned x = s.used[t];
		for (unsigned i = 0; i < s.na; i++) {
			const unsigned c = s.act[i], g = s.grp[c];
			if (g != 0xFF)
				s.u.h[g][t] += cc ? cc[i * nr + t] : __ldg(&cnt[c][x]);
		}
	}
	if (t < T) {
		uint64_t v = 0;
		for (unsigned i = 0; i < s.na; i++)
			if (s.grp[s.act[i]] == t)
				v += s.tot[s.act[i]];
		s.ht[t] = v;
	}
	__syncthreads();
}

/* wlz_huf_cluster on a CTA: the same seeds, passes and groups.  Costs
 * within a pass come from the groups as they stood at its start, so the
 * contexts of a pass are placed independently; the groups' counts after
 * it are sums, whatever the order of the moves. */
__device__ unsigned gc_cta_cluster(gc_code_smem &s, const uint32_t (*cnt)[256], uint32_t *scratch, size_t scratch_bytes,
				   unsigned T)
{
	const unsigned t = threadIdx.x;
	if (t == 0) {
		unsigned na = 0, nu = 0;
		for (unsigned c = 0; c < WLZ_HUF_NCTX; c++)
			if (s.tot[c])
				s.act[na++] = c;
		/* a symbol is present in some active context iff counted at all */
		for (unsigned x = 0; x < 256; x++)
			if (s.all[x])
				s.used[nu++] = (uint8_t)x;
		s.na = na, s.nu = nu;
	}
	__syncthreads();
	const unsigned na = s.na, nu = s.nu, nr = (nu + 7) & ~7u;
	/* the active counts copied once where they fit (the passes read them
	 * again and again) */
	const uint32_t *cc = NULL;
	if (na > T && (size_t)na * nr * sizeof(uint32_t) <= scratch_bytes) {
		for (unsigned i = t / 32; i < na; i += blockDim.x / 32) {
			const uint32_t *row = cnt[s.act[i]];
			for (unsigned j = t % 32; j < nr; j += 32)
				scratch[i * nr + j] = j < nu ? __ldg(&row[s.used[j]]) : 0;
		}
		cc = scratch;
		__syncthreads();
	}
	if (na <= T) {
		for (unsigned i = t; i < na; i += blockDim.x)
			s.grp[s.act[i]] = (uint8_t)i;
	} else {
		/* seeds: the T most frequent, ties to the lower context, as the
		 * CPU's picks one by one: seed g is the context of rank g */
		for (unsigned i = t; i < na; i += blockDim.x) {
			const unsigned c = s.act[i];
			unsigned r = 0;
			for (unsigned j = 0; j < na; j++) {
				const unsigned d = s.act[j];
				r += s.tot[d] > s.tot[c] || (s.tot[d] == s.tot[c] && d < c);
			}
			s.grp[c] = r < T ? (uint8_t)r : 0xFF;
		}
		__syncthreads();
		gc_cta_group_counts(s, cnt, cc, nr, T);
		enum { ITER = 6 };
		for (unsigned it = 0; it < ITER; it++) {
			if (t < T)
				s.ht0[t] = s.ht[t];
			for (unsigned e = t; e < T * nr; e += blockDim.x) {
				const unsigned g = e / nr, j = e % nr;
				const float lt = s.ht[g] ? wlz_huf_fast_log2(s.ht[g]) : 0;
				s.cost[g][j] = j < nu ? wlz_huf_sym_cost(lt, s.u.h[g][j]) : 0;
			}
			__syncthreads();
			/* (the counts are dead until the pass ends: their space
			 * takes the contexts' costs) */
			for (unsigned e = t; e < na * T; e += blockDim.x) {
				const unsigned i = e / T, g = e % T;
				if (!s.ht0[g])
					continue;
				float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
				if (cc) {
					/* (padding counts are 0, as the global path's) */
					const uint32_t *row = cc + i * nr;
					for (unsigned j = 0; j < nr; j += 8)
#pragma unroll
						for (unsigned l = 0; l < 8; l++)
							acc[l] += (float)row[j + l] * s.cost[g][j + l];
				} else {
					const uint32_t *row = cnt[s.act[i]];
					for (unsigned j = 0; j < nr; j += 8)
#pragma unroll
						for (unsigned l = 0; l < 8; l++)
							acc[l] += (j + l < nu ? (float)__ldg(&row[s.used[j + l]]) : 0.0f) *
								  s.cost[g][j + l];
				}
				s.u.x[i * T + g] = wlz_huf_sum8(acc);
			}
			__syncthreads();
			unsigned moved = 0;
			for (unsigned i = t; i < na; i += blockDim.x) {
				const unsigned c = s.act[i];
				const unsigned bg = wlz_huf_pick(&s.u.x[i * T], s.ht0, T);
				moved += s.grp[c] != bg;
				s.grp[c] = (uint8_t)bg;
			}
			/* settled: another pass would give the same groups */
			if (!__syncthreads_or(moved != 0))
				break;
			gc_cta_group_counts(s, cnt, cc, nr, T);
		}
	}
	__syncthreads();
	if (t == 0)
		s.tc = wlz_huf_renumber(s.tot, s.act, na, s.grp);
	__syncthreads();
	return s.tc;
}

/* A warp's scratch for one table. */
struct gc_table_smem {
	uint64_t key[256];   /* (count, index), sorted */
	uint32_t c[256];     /* counts of the symbols present, by index */
	uint32_t iw[256];    /* Huffman's tree: inner nodes' weights, */
	uint16_t par[512];   /* every node's parent, */
	uint8_t idep[256];   /* inner nodes' depths */
	uint8_t sym[256];    /* the symbols present */
	uint8_t len[256];    /* their lengths */
};

/* wlz_huf_tree_lengths on one lane, its arrays in the warp's shared
 * scratch (as a thread's stack they missed the L1 and stalled the CTA):
 * the same tree and lengths.  Node x < k is leaf x (w.key's order), node
 * k + i inner node i; weights fit 32 bits, as a part holds at most 2^22
 * symbols. */
__device__ void gc_tree_lengths(gc_table_smem &w, unsigned k)
{
	unsigned leaf = 0, node = k;
	const unsigned root = 2 * k - 2;
	for (unsigned nn = k; nn <= root; nn++) {
		uint32_t sum = 0;
		for (int t = 0; t < 2; t++) {
			const bool lf = leaf < k && (node >= nn || (w.key[leaf] >> 8) <= w.iw[node - k]);
			const unsigned x = lf ? leaf++ : node++;
			w.par[x] = (uint16_t)nn;
			sum += x < k ? (uint32_t)(w.key[x] >> 8) : w.iw[x - k];
		}
		w.iw[nn - k] = sum;
	}
	w.idep[root - k] = 0;
	for (unsigned x = root; x-- > k;)
		w.idep[x - k] = (uint8_t)(w.idep[w.par[x] - k] + 1);
	for (unsigned i = 0; i < k; i++) {
		const unsigned d = w.idep[w.par[i] - k] + 1u;
		w.len[w.key[i] & 0xFF] = (uint8_t)(d > WLZ_HUF_LEN_MAX ? WLZ_HUF_LEN_MAX : d);
	}
}

__device__ __forceinline__ uint64_t warp_max64(uint64_t v)
{
	for (unsigned o = 16; o; o /= 2) {
		const uint64_t w = __shfl_xor_sync(0xFFFFFFFFu, v, o);
		v = w > v ? w : v;
	}
	return v;
}

/* wlz_huf_build_table on a warp, the same lengths: the sort by ranks,
 * Huffman's merge on one lane (it is linear), the Kraft repairs' searches
 * (quadratic on one thread) as reductions; a lane holds the symbols of
 * index lane + 32 j.  Returns the bits, on every lane. */
__device__ uint64_t gc_warp_build_table(const uint32_t *h, uint8_t *len, gc_table_smem &w)
{
	enum { MB = WLZ_HUF_LEN_MAX };
	const unsigned lane = threadIdx.x % 32;
	unsigned k = 0;
	for (unsigned j = 0; j < 8; j++) {
		const unsigned x = j * 32 + lane;
		const uint32_t v = h[x];
		len[x] = 0;
		const unsigned m = __ballot_sync(0xFFFFFFFFu, v != 0);
		if (v) {
			const unsigned i = k + __popc(m & ((1u << lane) - 1));
			w.c[i] = v, w.sym[i] = (uint8_t)x;
		}
		k += __popc(m);
	}
	__syncwarp();
	if (k == 1) {
		if (lane == 0)
			len[w.sym[0]] = 1;
		__syncwarp();
		return 0;
	}
	/* keys are unique: a key's rank is its place */
	for (unsigned i = lane; i < k; i += 32) {
		const uint64_t x = (uint64_t)w.c[i] << 8 | i;
		unsigned r = 0;
		for (unsigned m = 0; m < k; m++)
			r += ((uint64_t)w.c[m] << 8 | m) < x;
		w.key[r] = x;
	}
	__syncwarp();
	if (lane == 0)
		gc_tree_lengths(w, k);
	__syncwarp();
	uint32_t c[8];
	unsigned l[8];
	uint32_t kraft = 0;
	for (unsigned j = 0; j < 8; j++) {
		const unsigned i = j * 32 + lane;
		c[j] = i < k ? w.c[i] : 0;
		l[j] = i < k ? w.len[i] : 0;
		kraft += i < k ? 1u << (MB - l[j]) : 0;
	}
	for (unsigned o = 16; o; o /= 2)
		kraft += __shfl_xor_sync(0xFFFFFFFFu, kraft, o);
	/* over-full: lengthen the rarest of the longest codes below MB (the
	 * first such index on ties) */
	while (kraft > (1u << MB)) {
		uint64_t b = 0;
		for (unsigned j = 0; j < 8; j++) {
			const unsigned i = j * 32 + lane;
			if (i < k && l[j] < MB) {
				const uint64_t x = (uint64_t)l[j] << 48 | (uint64_t)(0xFFFFFFFFu - c[j]) << 8 | (255 - i);
				b = x > b ? x : b;
			}
		}
		b = warp_max64(b);
		if (!b)
			break;
		const unsigned bi = 255 - (unsigned)(b & 0xFF), bl = (unsigned)(b >> 48);
		if (bi % 32 == lane)
			l[bi / 32]++;
		kraft -= 1u << (MB - bl - 1);
	}
	/* room left: shorten the commonest codes that fit */
	while (kraft < (1u << MB)) {
		uint64_t b = 0;
		for (unsigned j = 0; j < 8; j++) {
			const unsigned i = j * 32 + lane;
			if (i < k && l[j] > 1 && kraft + (1u << (MB - l[j])) <= (1u << MB)) {
				const uint64_t x = (uint64_t)c[j] << 8 | (255 - i);
				b = x > b ? x : b;
			}
		}
		b = warp_max64(b);
		if (!b)
			break;
		const unsigned bi = 255 - (unsigned)(b & 0xFF);
		unsigned bl = 0;
		for (unsigned j = 0; j < 8; j++)
			if (bi == j * 32 + lane)
				bl = l[j]--;
		bl = __shfl_sync(0xFFFFFFFFu, bl, bi % 32);
		kraft += 1u << (MB - bl);
	}
	uint64_t bits = 0;
	for (unsigned j = 0; j < 8; j++) {
		const unsigned i = j * 32 + lane;
		if (i < k) {
			len[w.sym[i]] = (uint8_t)l[j];
			bits += (uint64_t)c[j] * l[j];
		}
	}
	for (unsigned o = 16; o; o /= 2)
		bits += __shfl_xor_sync(0xFFFFFFFFu, bits, o);
	__syncwarp();
	return bits;
}

/* gc_table_codes for tables 0 .. T - 1 of a part, a thread a symbol:
 * canonical codes by (length, symbol) as the reference gives them, each
 * symbol's rank among its length's from a warp match and the warps before
 * it.  (A thread a table left the rest of the CTA waiting at the barrier
 * after it: bench/host/issue17-r26.md.)  sc: 8 x 16 counts and 16 first
 * codes of scratch. */
__device__ void gc_cta_table_codes(gc_code *cd, unsigned T, uint32_t *sc)
{
	static_assert(GC_CODE_THREADS == 256 && GC_MAXBITS < 16, "a thread a symbol; a length in 4 bits");
	const unsigned t = threadIdx.x, lane = t % 32, w = t / 32;
	uint32_t(*cnt)[16] = (uint32_t(*)[16])sc;
	uint32_t *first = sc + 8 * 16;
	for (unsigned tb = 0; tb < T; tb++) {
		const unsigned L = cd->len[tb][t];
		if (lane < 16)
			cnt[w][lane] = 0;
		__syncwarp();
		const unsigned same = __match_any_sync(0xFFFFFFFFu, L);
		if (lane == (unsigned)__ffs(same) - 1)
			cnt[w][L] = __popc(same);
		const unsigned kt = (unsigned)__syncthreads_count(L != 0);
		if (t == 0) {
			uint32_t f = 0;
			for (unsigned b = 1; b <= GC_MAXBITS; b++) {
				uint32_t nl = 0;
				for (unsigned v = 0; v < 8; v++)
					nl += cnt[v][b];
				first[b] = f;
				f = (f + nl) << 1;
			}
		}
		__syncthreads();
		uint32_t r = __popc(same & ((1u << lane) - 1));
		for (unsigned v = 0; v < w; v++)
			r += cnt[v][L];
		cd->bits[tb][t] = (uint8_t)(kt == 1 ? 0 : L);
		cd->code[tb][t] = (uint16_t)(kt == 1 || L == 0 ? 0 : __brev(first[L] + r) >> (32 - L));
		__syncthreads();
	}
}

/* One CTA a part (parts u0 .. u0 + gridDim.x - 1, counts at index
 * u - u0): gc_part_code's result.  Its shared memory is as much as lets
 * two CTAs share an SM (each also takes 1 KB the driver keeps): after
 * the fixed part, the warps' table scratch, which the clustering first
 * uses for its copy of the active counts.  Where the copy does not fit,
 * every pass reads the counts from global memory, and that was most of
 * the kernel's time on FASTQ's literals (bench/host/issue17-r26.md). */
#define GC_CODE_FIXED ((sizeof(gc_code_smem) + 7) / 8 * 8)
#define GC_CODE_SMEM (112u * 1024)
#define GC_CODE_SCRATCH (GC_CODE_SMEM - GC_CODE_FIXED)
static_assert(GC_CODE_SCRATCH >= GC_CODE_THREADS / 32 * sizeof(gc_table_smem), "each warp's table scratch fits");
__global__ void __launch_bounds__(GC_CODE_THREADS) k_code(gc_blk *blk, const uint32_t *hist, gc_code *code, uint64_t u0)
{
	extern __shared__ uint64_t smem[];
	gc_code_smem &s = *(gc_code_smem *)smem;
	gc_table_smem *ts = (gc_table_smem *)(smem + GC_CODE_FIXED / 8);
	const uint64_t u = u0 + blockIdx.x;
	gc_part *pt = &blk[u / GC_PARTS].part[u % GC_PARTS];
	gc_code *cd = &code[u];
	const uint32_t(*cnt)[256] = (const uint32_t(*)[256])(hist + (uint64_t)blockIdx.x * WLZ_HUF_NCTX * 256);
	const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32, nw = blockDim.x / 32;
	/* symbol totals, a thread a symbol; context totals, a warp a context */
	uint32_t a = 0;
	for (unsigned c = 0; c < WLZ_HUF_NCTX; c++)
		a += __ldg(&cnt[c][t]);
	s.all[t] = a;
	cd->next[t] = 0;
	for (unsigned c = warp; c < WLZ_HUF_NCTX; c += nw) {
		uint64_t v = 0;
		for (unsigned x = lane; x < 256; x += 32)
			v += __ldg(&cnt[c][x]);
		for (unsigned o = 16; o; o /= 2)
			v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
		if (lane == 0)
			s.tot[c] = v;
	}
	for (unsigned c = t; c < WLZ_HUF_NCTX; c += blockDim.x)
		s.grp[c] = 0;
	const unsigned k = (unsigned)__syncthreads_count(a != 0);
	const uint32_t n = pt->n;
	const unsigned kind = gc_part_kind(n, k);
	if (t == 0) {
		cd->T = 1;
		pt->k = (uint16_t)k;
		pt->kind = (uint8_t)kind;
	}
	if (kind != GC_HUF)
		return;
	const unsigned want = gc_part_want(n, k, u % GC_PARTS == 1);
	const unsigned tc = want > 1 ? gc_cta_cluster(s, cnt, (uint32_t *)ts, GC_CODE_SCRATCH, want) : 0;
	/* each group's counts over all symbols, then its table (a warp a
	 * table), the single table beside them */
	for (unsigned g = 0; g < tc; g++)
		s.u.h[g][t] = 0;
	for (unsigned c = 0; c < WLZ_HUF_NCTX && tc; c++)
		if (s.tot[c])
			s.u.h[s.grp[c]][t] += __ldg(&cnt[c][t]);
	__syncthreads();
	for (unsigned g = warp; g <= tc; g += nw) {
		const uint64_t b = g < tc ? gc_warp_build_table(s.u.h[g], s.lc[g], ts[warp])
					  : gc_warp_build_table(s.all, cd->len[0], ts[warp]);
		if (lane == 0)
			s.bits[g < tc ? g : GC_TMAX] = b;
	}
	__syncthreads();
	uint64_t bc = 0;
	for (unsigned g = 0; g < tc; g++)
		bc += s.bits[g];
	const unsigned T = gc_tables_win(s.bits[GC_TMAX], bc, k, tc) ? tc : 1;
	if (T > 1) {
		for (unsigned g = 0; g < T; g++)
			cd->len[g][t] = s.lc[g][t];
		cd->next[t] = s.grp[t];
	}
	__syncthreads();
	gc_cta_table_codes(cd, T, (uint32_t *)ts);
	if (t == 0) {
		cd->T = (uint8_t)T;
		pt->kind = GC_HUF;
	}
}

#endif
