p='/work/main/encoder/compress.c'
s=open(p).read()
# globals
s=s.replace('#define WLZ_ROUND_BLOCKS 32\n','''#define WLZ_ROUND_BLOCKS 32
#include <time.h>
typedef struct { double t0, t1; int th, type; unsigned long long q, k; } trc_ev;
static trc_ev trc[1 << 16];
static _Atomic unsigned trc_n;
static double trc_now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }
static void trc_add(int th, int type, unsigned long long q, unsigned long long k, double t0, double t1)
{
	unsigned i = atomic_fetch_add(&trc_n, 1);
	if (i < (1u << 16)) trc[i] = (trc_ev){t0, t1, th, type, q, k};
}
''',1)
old='''		pthread_mutex_unlock(&en->mu);
		const wlz_error err = run_task(en, w, t, R, k);'''
new='''		pthread_mutex_unlock(&en->mu);
		const double tt0 = trc_now();
		const wlz_error err = run_task(en, w, t, R, k);
		trc_add(pa->id, t, R->abs0, k, tt0, trc_now());'''
assert old in s; s=s.replace(old,new,1)
# coordinator: write_round and read_piece
old='''			wlz_error err = atomic_load(&en->err) == WLZ_OK ? write_round(en, R) : WLZ_OK;'''
new='''			const double tw0 = trc_now();
			wlz_error err = atomic_load(&en->err) == WLZ_OK ? write_round(en, R) : WLZ_OK;
			trc_add(-1, 10, R->abs0, 0, tw0, trc_now());'''
assert old in s; s=s.replace(old,new,1)
old='''			const wlz_error err = read_piece(en, want);
			if (err != WLZ_OK)
				set_err(en, err);'''
new='''			const double tr0 = trc_now();
			const wlz_error err = read_piece(en, want);
			trc_add(-1, 11, 0, en->fill, tr0, trc_now());
			if (err != WLZ_OK)
				set_err(en, err);'''
assert old in s; s=s.replace(old,new,1)
# levels in run_levels: block_levels
old='''				wlz_error err = atomic_load(&bk->ready) == 1 && atomic_load(&en->err) == WLZ_OK
						? block_levels(en, bk) : WLZ_OK;'''
new='''				const double tl0 = trc_now();
				wlz_error err = atomic_load(&bk->ready) == 1 && atomic_load(&en->err) == WLZ_OK
						? block_levels(en, bk) : WLZ_OK;
				trc_add(-2, 12, bk->abs_block, 0, tl0, trc_now());'''
assert old in s; s=s.replace(old,new,1)
# far init + start + end dump in wlz_compress_stream: find "err = compress_rounds(en, &o, size_hint);"
old='''		if (err == WLZ_OK)
			err = compress_rounds(en, &o, size_hint);'''
new='''		const double tc0 = trc_now();
		if (err == WLZ_OK)
			err = compress_rounds(en, &o, size_hint);
		trc_add(-1, 13, 0, 0, tc0, trc_now());
		if (getenv("WLZ_TRACE")) {
			FILE *tf = fopen(getenv("WLZ_TRACE"), "w");
			unsigned nn = atomic_load(&trc_n);
			for (unsigned i = 0; tf && i < nn && i < (1u << 16); i++)
				fprintf(tf, "%d %d %llu %llu %.6f %.6f\\n", trc[i].th, trc[i].type, trc[i].q, trc[i].k, trc[i].t0 - tc0, trc[i].t1 - tc0);
			if (tf) fclose(tf);
		}'''
assert old in s; s=s.replace(old,new,1)
open(p,'w').write(s)
