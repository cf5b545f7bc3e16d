/*
 * gpu_checksum.cu - XXH3-64 of decoded blocks on the GPU (issue 15's
 * verification on the device), checked and timed.
 *
 *   gpu_checksum ARCHIVE [reps]
 *
 * Checks gpu_wavefront/xxh3.cu two ways, and fails (exit 1) on any
 * difference:
 *   - every length from 0 to 2200 and a few past 1 MiB, of random bytes,
 *     against libxxhash's XXH3_64bits (every path of the hash);
 *   - every block of ARCHIVE, decoded on the CPU, against the content
 *     checksum its block header states.
 * Then times the hash of all the archive's blocks in one launch
 * (kernel-only: decoded bytes in GPU memory), beside one CPU thread.
 */
#include <string.h>
#include <time.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
extern "C" {
#include "format/format.h"
#include "gpu_wavefront/xxh3.h"
#include "wavelz.h"
}
#include "bench/gpu_util.h"

/* Buffers (8-byte aligned offsets into one host buffer) in GPU memory. */
struct dev_bufs {
	uint8_t *buf;
	uint64_t *off, *len, *hash, *scr;
	size_t n;

	dev_bufs(const std::vector<uint8_t> &b, const std::vector<uint64_t> &o, const std::vector<uint64_t> &l)
	{
		n = o.size();
		CK(cudaMalloc(&buf, b.size() + 16));
		CK(cudaMalloc(&scr, wlz_gpu_xxh3_scratch(b.size())));
		CK(cudaMalloc(&off, n * 8));
		CK(cudaMalloc(&len, n * 8));
		CK(cudaMalloc(&hash, n * 8));
		CK(cudaMemcpy(buf, b.data(), b.size(), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(off, o.data(), n * 8, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(len, l.data(), n * 8, cudaMemcpyHostToDevice));
	}
	~dev_bufs()
	{
		cudaFree(buf), cudaFree(scr), cudaFree(off), cudaFree(len), cudaFree(hash);
	}
	void run() const
	{
		if (wlz_gpu_xxh3(buf, off, len, hash, n, scr, 0))
			exit(2);
	}
	/* The digests that differ from want (the first few named). */
	size_t check(const std::vector<uint64_t> &l, const std::vector<uint64_t> &want) const
	{
		run();
		std::vector<uint64_t> got(n);
		CK(cudaMemcpy(got.data(), hash, n * 8, cudaMemcpyDeviceToHost));
		size_t bad = 0;
		for (size_t i = 0; i < n; i++)
			if (got[i] != want[i] && bad++ < 5)
				fprintf(stderr, "gpu_checksum: %zu bytes: %016llx, want %016llx\n", (size_t)l[i],
					(unsigned long long)got[i], (unsigned long long)want[i]);
		return bad;
	}
};

int main(int argc, char **argv)
{
	int reps;
	std::vector<uint8_t> arc = bench_open(argc, argv, "gpu_checksum", 20, &reps);
	/* Every path of the hash, on random bytes. */
	std::vector<uint8_t> buf;
	std::vector<uint64_t> off, len, want;
	uint64_t x = 88172645463325252ull;
	std::vector<uint64_t> lens;
	for (uint64_t l = 0; l <= 2200; l++)
		lens.push_back(l);
	for (uint64_t l : {1048575ull, 1048576ull, 1048577ull, 1048576ull + 1000, 3000000ull})
		lens.push_back(l);
	for (uint64_t l : lens) {
		const size_t o = (buf.size() + 7) & ~(size_t)7;
		buf.resize(o + l);
		for (uint64_t i = 0; i < l; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[o + i] = (uint8_t)x;
		}
		off.push_back(o);
		len.push_back(l);
		want.push_back(XXH3_64bits(buf.data() + o, l));
	}
	const size_t bad_syn = dev_bufs(buf, off, len).check(len, want);

	/* The archive's blocks, decoded on the CPU. */
	std::vector<uint64_t> boff, blen, bsum;
	uint64_t total = 0;
	each_block(arc, "gpu_checksum", [&](const wlz_block_entry *e, uint64_t) {
		blen.push_back(e->length);
		bsum.push_back(e->checksum);
		total += e->length;
	});
	std::vector<uint8_t> out(total + 16);
	wlz_dctx *dc = wlz_dctx_create(0);
	size_t got = 0;
	if (!dc || wlz_decompress(dc, out.data(), out.size(), arc.data(), arc.size(), &got) != WLZ_OK ||
	    got != total) {
		fprintf(stderr, "gpu_checksum: the CPU does not decode the archive\n");
		return 2;
	}
	wlz_dctx_free(dc);
	/* Blocks at 8-byte aligned places (a member's blocks after the first
	 * member need not be). */
	std::vector<uint8_t> ablk;
	uint64_t src = 0;
	for (size_t i = 0; i < blen.size(); i++) {
		const size_t o = (ablk.size() + 7) & ~(size_t)7;
		ablk.resize(o + blen[i]);
		memcpy(ablk.data() + o, out.data() + src, blen[i]);
		boff.push_back(o);
		src += blen[i];
	}
	const dev_bufs d(ablk, boff, blen);
	const size_t bad_blk = d.check(blen, bsum);
	/* Time: every block in one call. */
	const size_t n = boff.size();
	double best, med;
	timed(reps, [&] { d.run(); }, &best, &med);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t sink = 0;
	for (size_t i = 0; i < n; i++)
		sink ^= XXH3_64bits(ablk.data() + boff[i], blen[i]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const double cpu_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	printf("file,blocks,bytes,gpu_gbps_best,gpu_gbps_median,cpu1_gbps,synthetic_bad,block_bad,what\n");
	printf("%s,%zu,%llu,%.1f,%.1f,%.2f,%zu,%zu,kernel-only (both phases)%s\n", name, n,
	       (unsigned long long)total, total / best / 1e6, total / med / 1e6, total / cpu_s / 1e9, bad_syn,
	       bad_blk, sink == 1 ? " " : "");
	return bad_syn || bad_blk;
}
