/*
 * chainsim.c - a model, on the CPU, of the rounds the GPU pass takes
 * (gpu_wavefront/flow.cu, step 2), from an archive's tokens; and of the
 * rounds it would take with chains resolved inside a chunk (issue 15).
 *
 *   chainsim ARCHIVE...
 *
 * Tokens in member order are cut into chunks of 32, as the pass cuts
 * them.  A token waits for an earlier token of its chunk whose match wrote
 * a byte it reads (literal bytes are final before the pass starts); its
 * round is one more than the last round it waits for, and a chunk takes as
 * many rounds as its latest token.  Waits on earlier chunks are left out:
 * the model counts the rounds a chunk's own chains force.
 *
 * Resolved: a token whose source lies wholly inside one earlier token's
 * match output, where neither match overlaps itself, reads that match's
 * source at the same offset instead, and so on back; it then waits only
 * for the tokens that wrote its new source.
 *
 * The same jumps through any earlier match (not only the chunk's), with
 * each token's dependency level computed from its sources as they are and
 * as resolved: how far the chains a GPU waits on would shrink.
 *
 * And about as the GPU resolves them (gpu_wavefront/flow.cu,
 * resolve_kernel, 8 rounds in place): JUMP_ROUNDS rounds of pointer
 * jumping, each from the round before's sources, bounded by the window,
 * its longest chain and its moved sources checked against the content.
 *
 * And as far as any resolution could go: every plain copy's bytes read
 * from their origins (a literal or a match overlapping itself), its
 * source cut into as many pieces as that takes:
 * the longest chain left (chain_split, in waves: one more than a level)
 * and the pieces it takes.
 *
 * Prints a CSV row per archive: chunks, tokens, tokens waiting inside
 * their chunk, rounds now and resolved (in all and a chunk); then the
 * tokens of level 0 and the mean and highest level, now and resolved, and
 * the longest chain of matches reading matches (the level uncapped);
 * then how far back (in chunks) the latest match each token reads from
 * lies: none (literal bytes only), its own chunk, 1, 2, 3 to 8, 9 to 64,
 * further; then the GPU's resolution's figures; then chain_split,
 * split_pieces and the bytes of matches overlapping themselves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_decoder/block_decode.h"
#include "format/format.h"
#include "fileio.h"

#define CH 32
#define JUMP_ROUNDS 12

typedef struct tk {
	uint64_t dst, mlen, src;
} tk;

/* Whether t's match overlaps its own output: its bytes then repeat with
 * the period of its distance, and its source cannot move. */
static int overlaps(const tk *t)
{
	return t->dst - t->src < t->mlen;
}

/* Whether [a, b) lies wholly inside j's match output, j a plain copy: j's
 * source then holds the same bytes at the same offset. */
static int holds(const tk *j, uint64_t a, uint64_t b)
{
	return a >= j->dst && b <= j->dst + j->mlen && !overlaps(j);
}

/* The source range [*a, *b) of token t. */
static void source(const tk *t, uint64_t *a, uint64_t *b)
{
	const uint64_t dist = t->dst - t->src, own = dist < t->mlen ? dist : t->mlen;
	*a = t->src;
	*b = t->src + own;
}

/* Rounds of the chunk c[0..n): each token's round from the tokens before it
 * whose match output [dst, dst + mlen) meets its source; resolve: jump
 * through single containing matches first.  Counts tokens that wait. */
static unsigned rounds(const tk *c, unsigned n, int resolve, unsigned *waiting)
{
	unsigned r[CH], most = 0;
	for (unsigned k = 0; k < n; k++) {
		uint64_t a, b;
		source(&c[k], &a, &b);
		for (int hops = 0; resolve && !overlaps(&c[k]) && hops < CH; hops++) {
			unsigned hit = 0, j1 = 0;
			for (unsigned j = 0; j < k; j++)
				if (a < c[j].dst + c[j].mlen && c[j].dst < b)
					hit++, j1 = j;
			if (hit != 1)
				break;
			const tk *j = &c[j1];
			if (!holds(j, a, b))
				break;
			a = j->src + (a - j->dst);
			b = j->src + (b - j->dst);
		}
		unsigned rk = 1, w = 0;
		for (unsigned j = 0; j < k; j++)
			if (a < c[j].dst + c[j].mlen && c[j].dst < b) {
				w = 1;
				rk = r[j] + 1 > rk ? r[j] + 1 : rk;
			}
		*waiting += w;
		r[k] = rk;
		most = rk > most ? rk : most;
	}
	return most;
}

/* The last of n records (stride bytes apart, each starting with its
 * match output's first position) that starts at or before p. */
static int64_t last_starting(const void *base, size_t stride, uint64_t n, uint64_t p)
{
	int64_t lo = -1, hi = (int64_t)n;
	while (hi - lo > 1) {
		const int64_t m = (lo + hi) / 2;
		uint64_t d;
		memcpy(&d, (const char *)base + (size_t)m * stride, sizeof d);
		if (d <= p)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

/* The last token of t[0..n) whose match output starts at or before p. */
static int64_t at_or_before(const tk *t, uint64_t n, uint64_t p)
{
	return last_starting(t, sizeof *t, n, p);
}

/* What the resolved sources hold, checked against the content: moved
 * sources, those whose bytes differ from the token's output, and those
 * further back than the window. */
typedef struct check {
	const uint8_t *content; /* the member's */
	uint64_t window, moved, differ, past;
} check;

/* Levels of a member's n tokens: a token's is one more than the highest
 * of the matches whose output its source meets (0 if none), saturating at
 * 255 as the format's do, and uncapped for the longest chain.  resolve 1:
 * sources jumped first, as rounds() does, through any earlier match;
 * resolve 2: as the GPU would (below). */
static void levels(const tk *t, uint64_t n, int resolve, uint64_t *zero, double *mean, unsigned *top,
		   uint32_t *chain, uint64_t back[7], check *ck, uint8_t *out)
{
	/* (levels uncapped: the longest chain of matches reading matches) */
	uint32_t *lv = malloc((n ? n : 1) * sizeof *lv), longest = 0;
	uint64_t z = 0, sum = 0;
	unsigned hi = 0;
	/* resolve 2: about as the GPU does (flow.cu's resolve_kernel, which
	 * runs 8 rounds in place): JUMP_ROUNDS rounds of pointer jumping, each
	 * from the round before's sources, each token's source moved
	 * into the source as resolved so far of the match that wrote it,
	 * never further back than the window */
	uint64_t *rs = NULL;
	if (resolve == 2) {
		uint64_t *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
		for (uint64_t k = 0; k < n; k++)
			x[k] = t[k].src;
		for (int r = 0; r < JUMP_ROUNDS; r++) {
			for (uint64_t k = 0; k < n; k++) {
				const uint64_t a = x[k];
				y[k] = a;
				if (overlaps(&t[k]))
					continue;
				const int64_t j = at_or_before(t, k, a);
				if (j < 0 || !holds(&t[j], a, a + t[k].mlen))
					continue;
				const uint64_t m = x[j] + (a - t[j].dst);
				if (!ck || t[k].dst - m <= ck->window)
					y[k] = m;
			}
			uint64_t *w = x;
			x = y, y = w;
		}
		free(y);
		rs = x;
	}
	for (uint64_t k = 0; k < n; k++) {
		uint64_t a, b;
		source(&t[k], &a, &b);
		if (rs) {
			b = rs[k] + (b - a);
			a = rs[k];
		}
		for (int hops = 0; resolve == 1 && !overlaps(&t[k]) && hops < 64; hops++) {
			const int64_t j = at_or_before(t, k, a);
			if (j < 0 || !holds(&t[j], a, b))
				break;
			a = t[j].src + (a - t[j].dst);
			b = t[j].src + (b - t[j].dst);
		}
		if (ck && a != t[k].src) {
			ck->moved++;
			ck->differ += memcmp(ck->content + a, ck->content + t[k].dst, t[k].mlen) != 0;
			ck->past += t[k].dst - a > ck->window;
		}
		uint32_t l = 0;
		int64_t latest = -1;
		for (int64_t j = at_or_before(t, k, b - 1); j >= 0 && t[j].dst + t[j].mlen > a; j--) {
			if (t[j].dst < b) {
				const uint32_t x = lv[j] + 1u;
				l = x > l ? x : l;
				latest = j > latest ? j : latest;
			}
		}
		if (back) {
			const uint64_t d = latest < 0 ? 0 : k / CH - (uint64_t)latest / CH;
			back[latest < 0 ? 0 : d == 0 ? 1 : d == 1 ? 2 : d == 2 ? 3 : d <= 8 ? 4 : d <= 64 ? 5 : 6]++;
		}
		lv[k] = l;
		longest = l > longest ? l : longest;
		l = l > 255 ? 255 : l; /* (the format's level saturates) */
		if (out)
			out[k] = (uint8_t)l;
		z += l == 0;
		sum += l;
		hi = l > hi ? l : hi;
	}
	*zero = z;
	*mean = n ? (double)sum / (double)n : 0;
	*top = hi;
	*chain = longest;
	free(lv);
	free(rs);
}

/* What a stream of every token's level would cost (CHAINSIM_LEVELS=1, to
 * stderr): order-0 entropy, and given the token before's level, in bits a
 * token and bytes in all (a bound for a coder of either order, tables
 * not counted). */
static void level_entropy(const char *name, const uint8_t *lv, uint64_t n)
{
	static uint64_t c1[256][256];
	uint64_t c0[256] = {0};
	memset(c1, 0, sizeof c1);
	for (uint64_t k = 0; k < n; k++) {
		c0[lv[k]]++;
		c1[k ? lv[k - 1] : 0][lv[k]]++;
	}
	double h0 = 0, h1 = 0;
	for (unsigned a = 0; a < 256; a++) {
		if (c0[a])
			h0 -= (double)c0[a] * log2((double)c0[a] / (double)n);
		uint64_t row = 0;
		for (unsigned b = 0; b < 256; b++)
			row += c1[a][b];
		for (unsigned b = 0; b < 256 && row; b++)
			if (c1[a][b])
				h1 -= (double)c1[a][b] * log2((double)c1[a][b] / (double)row);
	}
	fprintf(stderr, "%s: %llu tokens, levels: order 0 %.3f bits a token (%.0f bytes), order 1 %.3f (%.0f bytes)\n",
		name, (unsigned long long)n, n ? h0 / (double)n : 0, h0 / 8, n ? h1 / (double)n : 0, h1 / 8);
}

/* The longest chain if every source were resolved byte by byte: a plain
 * copy's output takes the origin of its source bytes, so only matches
 * overlapping themselves (and literals) start links.  A byte's value is
 * the wave after which it is final (0: a literal's, or before the
 * member); a match runs in the wave after its latest source byte's, and a
 * match overlapping itself makes its bytes final then.  What a GPU could
 * reach by cutting a token whose source spans several matches into
 * pieces, each resolved on its own (the window not checked; a byte's
 * value saturates at 65535; 0 where memory runs out). */
static uint32_t chain_split(const tk *t, uint64_t n, uint64_t size)
{
	uint16_t *ol = calloc(size ? size : 1, sizeof *ol);
	uint32_t longest = 0;
	if (!ol)
		return 0;
	for (uint64_t k = 0; k < n; k++) {
		const uint64_t dist = t[k].dst - t[k].src, own = dist < t[k].mlen ? dist : t[k].mlen;
		uint32_t x = 0;
		for (uint64_t i = 0; i < own; i++)
			x = ol[t[k].src + i] > x ? ol[t[k].src + i] : x;
		const uint16_t mine = x + 1 > UINT16_MAX ? UINT16_MAX : (uint16_t)(x + 1);
		for (uint64_t i = 0; i < t[k].mlen; i++)
			ol[t[k].dst + i] = own < t[k].mlen ? mine : ol[t[k].src + i];
		longest = x + 1 > longest ? x + 1 : longest;
	}
	free(ol);
	return longest;
}

/* The longest chain (in waves) when each token's source hops through the
 * single plain copy that holds it, as the GPU's resolution does (hops
 * unbounded, the window not checked), and a token may also be cut, up to
 * P pieces, where its source runs past the edge of the copy or literal
 * stretch it starts in, each piece then hopping on its own.  *nops: the
 * pieces in all.  The pieces of earlier tokens are what later ones hop
 * through, as pass-ready copies would be. */
typedef struct op {
	uint64_t dst, len, src;
	uint32_t wave;
	int plain;
} op;

static int64_t op_at_or_before(const op *o, uint64_t n, uint64_t p)
{
	return last_starting(o, sizeof *o, n, p);
}

static uint32_t chain_cut(const tk *t, uint64_t n, unsigned P, uint64_t *nops)
{
	uint64_t cap = 2 * n + 16, no = 0;
	op *o = malloc(cap * sizeof *o);
	uint32_t longest = 0;
	if (!o)
		return 0;
	for (uint64_t k = 0; k < n; k++) {
		const uint64_t dist = t[k].dst - t[k].src;
		const int plain = dist >= t[k].mlen;
		/* (pieces of this token, in order: destination, length, source) */
		uint64_t pd[64], pl[64], ps[64];
		unsigned np = 1, cuts = P ? P - 1 : 0;
		pd[0] = t[k].dst, pl[0] = t[k].mlen, ps[0] = t[k].src;
		for (unsigned i = 0; plain && i < np; i++) {
			for (int hops = 0; hops < 100000; hops++) {
				const uint64_t a = ps[i], m = pl[i];
				const int64_t j = op_at_or_before(o, no, a);
				const int inside = j >= 0 && a < o[j].dst + o[j].len;
				uint64_t edge = inside ? o[j].dst + o[j].len : (uint64_t)j + 1 < no ? o[j + 1].dst : UINT64_MAX;
				if (a + m <= edge) {
					if (!inside || !o[j].plain)
						break;
					ps[i] = o[j].src + (a - o[j].dst);
					continue;
				}
				if (!cuts || np == 64)
					break;
				/* cut at the edge: piece i up to it, a new piece after */
				const uint64_t c = edge - a;
				for (unsigned q = np; q > i + 1; q--)
					pd[q] = pd[q - 1], pl[q] = pl[q - 1], ps[q] = ps[q - 1];
				pd[i + 1] = pd[i] + c, pl[i + 1] = m - c, ps[i + 1] = a + c;
				pl[i] = c;
				np++, cuts--;
			}
		}
		for (unsigned i = 0; i < np; i++) {
			/* its own output is no source of a match overlapping itself */
			const uint64_t a = ps[i], e = plain ? ps[i] + pl[i] : t[k].dst;
			uint32_t w = 0;
			for (int64_t j = op_at_or_before(o, no, a); j < (int64_t)no && (j < 0 || o[j].dst < e); j++)
				if (j >= 0 && o[j].dst + o[j].len > a && o[j].len)
					w = o[j].wave + 1 > w ? o[j].wave + 1 : w;
			if (no == cap) {
				cap *= 2;
				op *b = realloc(o, cap * sizeof *o);
				if (!b) {
					free(o);
					return 0;
				}
				o = b;
			}
			o[no++] = (op){pd[i], pl[i], ps[i], w, plain};
			longest = w + 1 > longest ? w + 1 : longest;
		}
	}
	free(o);
	*nops = no;
	return longest;
}

/* Pieces of the plain copies' output when every byte is read from its
 * origin (a literal, a match overlapping itself, or a byte before the
 * member): maximal runs whose origins are consecutive.  That many copies
 * would write every plain match's bytes straight from where they began;
 * *self counts the bytes of matches overlapping themselves. */
static uint64_t split_pieces(const tk *t, uint64_t n, uint64_t size, uint64_t *self)
{
	uint64_t *org = malloc((size ? size : 1) * sizeof *org), pieces = 0, sb = 0;
	if (!org)
		return 0;
	for (uint64_t p = 0; p < size; p++)
		org[p] = p;
	for (uint64_t k = 0; k < n; k++) {
		const uint64_t dist = t[k].dst - t[k].src;
		if (dist < t[k].mlen) {
			sb += t[k].mlen;
			continue;
		}
		for (uint64_t i = 0; i < t[k].mlen; i++) {
			const uint64_t o = org[t[k].src + i];
			pieces += i == 0 || o != org[t[k].dst + i - 1] + 1;
			org[t[k].dst + i] = o;
		}
	}
	free(org);
	*self = sb;
	return pieces;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: chainsim ARCHIVE...\n");
		return 2;
	}
	printf("file,chunks,tokens,waiting_now,waiting_resolved,rounds_now,rounds_resolved,now_a_chunk,resolved_a_chunk,"
	       "level0_now,level0_resolved,mean_level_now,mean_level_resolved,top_now,top_resolved,chain_now,chain_resolved,"
	       "reads_none,reads_own_chunk,back_1,back_2,back_3_8,back_9_64,back_further,"
	       "moved,moved_bytes_differ,moved_past_window,chain_jumped,jumped_bytes_differ,chain_split,split_pieces,self_overlap_bytes\n");
	wlz_bdec *bd = wlz_bdec_create();
	wlz_dctx *dc = wlz_dctx_create(0);
	for (int f = 1; f < argc; f++) {
		fio_input in;
		const int err = fio_load(&in, argv[f]);
		if (err || !bd) {
			fprintf(stderr, "chainsim: %s: %s\n", argv[f], err ? fio_strerror(err) : "out of memory");
			return 1;
		}
		const uint8_t *arc = in.data;
		const size_t n = in.size;
		/* The content, to check the resolved sources against. */
		uint64_t csize = 0;
		size_t got = 0;
		uint8_t *content = NULL;
		if (!dc || wlz_get_content_size(arc, n, &csize) != WLZ_OK || !(content = malloc(csize ? csize : 1)) ||
		    wlz_decompress(dc, content, csize, arc, n, &got) != WLZ_OK) {
			fprintf(stderr, "chainsim: %s does not decode\n", argv[f]);
			return 1;
		}
		uint64_t cbase = 0;
		check ck = {0};
		uint64_t chunks = 0, ntok = 0, r0 = 0, r1 = 0, z0 = 0, z1 = 0;
		double s0 = 0, s1 = 0;
		unsigned t0 = 0, t1 = 0;
		uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
		uint64_t np = 0, nself = 0;
		uint64_t d2 = 0;
		uint64_t back[7] = {0};
		unsigned w0 = 0, w1 = 0;
		tk c[CH];
		unsigned nc = 0;
		for (uint64_t at = 0; at < n;) {
			wlz_member m;
			if (wlz_member_parse(arc, n, at, &m) != WLZ_OK) {
				fprintf(stderr, "chainsim: %s is not a valid archive\n", argv[f]);
				return 1;
			}
			ck.window = (uint64_t)1 << m.h.window_log;
			uint64_t bstart = 0, mt = 0, cap = 0;
			tk *all = NULL;
			for (uint64_t b = 0; b < m.nblocks; b++) {
				const wlz_block_entry *e = &m.blocks[b];
				const wlz_dtoken *t;
				if (wlz_bdec_tokens(bd, arc, e, bstart, bstart + e->length, &t) != WLZ_OK) {
					fprintf(stderr, "chainsim: block %llu of %s does not parse\n",
						(unsigned long long)b, argv[f]);
					return 1;
				}
				uint64_t pos = bstart;
				for (uint32_t i = 0; i < e->token_count; i++) {
					pos += t[i].lit;
					c[nc++] = (tk){pos, t[i].mlen, t[i].src};
					if (mt == cap) {
						cap = cap ? 2 * cap : 1 << 16;
						all = realloc(all, cap * sizeof *all);
						if (!all)
							return 1;
					}
					all[mt++] = c[nc - 1];
					pos += t[i].mlen;
					if (nc == CH) {
						r0 += rounds(c, nc, 0, &w0);
						r1 += rounds(c, nc, 1, &w1);
						chunks++;
						nc = 0;
					}
				}
				ntok += e->token_count;
				bstart += e->length;
			}
			at = m.offset + m.size;
			wlz_member_free(&m);
			uint64_t z;
			double mean;
			unsigned top;
			uint32_t ch;
			uint8_t *lvout = getenv("CHAINSIM_LEVELS") ? malloc(mt ? mt : 1) : NULL;
			levels(all, mt, 0, &z, &mean, &top, &ch, back, NULL, lvout);
			if (lvout) {
				level_entropy(argv[f], lvout, mt);
				free(lvout);
			}
			z0 += z, s0 += mean * (double)mt, t0 = top > t0 ? top : t0, c0 = ch > c0 ? ch : c0;
			ck.content = content + cbase;
			levels(all, mt, 1, &z, &mean, &top, &ch, NULL, &ck, NULL);
			z1 += z, s1 += mean * (double)mt, t1 = top > t1 ? top : t1, c1 = ch > c1 ? ch : c1;
			{
				check k2 = ck;
				k2.moved = k2.differ = k2.past = 0;
				levels(all, mt, 2, &z, &mean, &top, &ch, NULL, &k2, NULL);
				c2 = ch > c2 ? ch : c2;
				d2 += k2.differ;
			}
			{
				const uint32_t cs = chain_split(all, mt, bstart);
				c3 = cs > c3 ? cs : c3;
				uint64_t sb = 0;
				np += split_pieces(all, mt, bstart, &sb);
				nself += sb;
				if (getenv("CHAINSIM_CUT"))
					for (unsigned P = 1; P <= 64; P *= 2) {
						uint64_t nops = 0;
						const uint32_t cc = chain_cut(all, mt, P, &nops);
						fprintf(stderr, "%s: cut into up to %u pieces: longest chain %u waves, %llu pieces\n",
							argv[f], P, cc, (unsigned long long)nops);
					}

			}
			cbase += bstart;
			free(all);
			if (nc) {
				r0 += rounds(c, nc, 0, &w0);
				r1 += rounds(c, nc, 1, &w1);
				chunks++;
				nc = 0;
			}
		}
		printf("%s,%llu,%llu,%u,%u,%llu,%llu,%.2f,%.2f,%llu,%llu,%.2f,%.2f,%u,%u,%u,%u", argv[f],
		       (unsigned long long)chunks, (unsigned long long)ntok, w0, w1, (unsigned long long)r0,
		       (unsigned long long)r1, chunks ? (double)r0 / chunks : 0.0, chunks ? (double)r1 / chunks : 0.0,
		       (unsigned long long)z0, (unsigned long long)z1, ntok ? s0 / (double)ntok : 0.0,
		       ntok ? s1 / (double)ntok : 0.0, t0, t1, c0, c1);
		for (int i = 0; i < 7; i++)
			printf(",%llu", (unsigned long long)back[i]);
		printf(",%llu,%llu,%llu,%u,%llu,%u,%llu,%llu\n", (unsigned long long)ck.moved,
		       (unsigned long long)ck.differ, (unsigned long long)ck.past, c2, (unsigned long long)d2, c3,
		       (unsigned long long)np, (unsigned long long)nself);
		free(content);
		fio_unload(&in);
	}
	wlz_bdec_free(bd);
	wlz_dctx_free(dc);
	return 0;
}
