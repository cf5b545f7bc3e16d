/*
 * exec.cu - GPU token execution by waves (SPEC.md section 6.1).
 *
 * Every content byte has a map value: 0 once a literal wrote it, w + 1
 * once a match of wave w did (254 from wave 253 on: still final, and a
 * wave that late takes every final byte), PENDING before.  Literals are copied first
 * (and their bytes marked 0).  Wave w then copies every match not yet
 * copied whose source bytes before its own start all have map values of
 * at most w, and only after the wave are its bytes marked w + 1, so that
 * no match of wave w reads another's output.  A thread a token; this
 * first version checks each source byte's map value in every wave.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/exec.h"

#define PENDING 0xFFu
#define LATE 254u                  /* map value of waves 253 and on */

/* A block's tail: the literals after its last token. */
__global__ void tail_kernel(const wlz_gpu_pblock *__restrict__ blk, const uint8_t *__restrict__ st,
			    uint8_t *__restrict__ out, uint8_t *__restrict__ map, const wlz_gpu_token *__restrict__ tok)
{
	const wlz_gpu_pblock B = blk[blockIdx.x];
	uint64_t end = B.bstart;
	if (B.ntok) {
		const wlz_gpu_token &t = tok[B.tok_off + B.ntok - 1];
		end = t.pos + t.lit + t.mlen;
	}
	const uint64_t tail = B.bstart + B.length - end;
	const uint8_t *lit = st + B.s_off[1] + B.rsize[1] - tail;
	for (uint64_t i = threadIdx.x; i < tail; i += blockDim.x) {
		out[end + i] = lit[i];
		map[end + i] = 0;
	}
}

__global__ void lit_kernel(const wlz_gpu_token *__restrict__ tok, size_t ntok, const uint8_t *__restrict__ st,
			   uint8_t *__restrict__ out, uint8_t *__restrict__ map, uint32_t *__restrict__ done)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= ntok)
		return;
	const wlz_gpu_token t = tok[i];
	for (uint32_t j = 0; j < t.lit; j++) {
		out[t.pos + j] = st[t.lp + j];
		map[t.pos + j] = 0;
	}
	done[i] = 0;
}

/* Wave w: copy the matches whose sources are final; count the rest.  A
 * warp takes its 32 tokens one after another, its lanes checking and
 * copying 32 neighbouring bytes at a time (a thread walking its own
 * token's bytes touched a different line with every byte).  A match that
 * overlaps its own output repeats its first dist bytes, which lie before
 * it: byte j is source byte j % dist. */
__global__ void wave_kernel(const wlz_gpu_token *__restrict__ tok, size_t ntok, uint8_t *__restrict__ out,
			    const uint8_t *__restrict__ map, uint32_t *__restrict__ done, uint32_t w,
			    uint32_t *__restrict__ count)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned lane = threadIdx.x & 31;
	const size_t base = i - lane;
	uint32_t todo = __ballot_sync(0xffffffffu, i < ntok && !done[i]);
	uint32_t left = 0, copied = 0;
	while (todo) {
		const unsigned b = __ffs(todo) - 1;
		todo &= todo - 1;
		const wlz_gpu_token t = tok[base + b];
		const uint64_t dst = t.pos + t.lit, dist = dst - t.src;
		const uint64_t own = dist < t.mlen ? dist : t.mlen;
		bool wait = false;
		for (uint64_t j = lane; j < own && !wait; j += 32) {
			const unsigned m = map[t.src + j];
			wait = m == PENDING || m > w;
		}
		if (__any_sync(0xffffffffu, wait)) {
			left++;
			continue;
		}
		for (uint64_t j = lane; j < t.mlen; j += 32)
			out[dst + j] = out[t.src + (j < own ? j : j % dist)];
		if (lane == 0)
			done[base + b] = w + 1;
		copied++;
	}
	if (lane == 0 && (left || copied)) {
		atomicAdd(&count[0], left);
		atomicAdd(&count[1], copied);
	}
}

/* After wave w: the bytes its matches wrote become final at w + 1. */
__global__ void mark_kernel(const wlz_gpu_token *__restrict__ tok, size_t ntok, uint8_t *__restrict__ map,
			    const uint32_t *__restrict__ done, uint32_t w)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= ntok || done[i] != w + 1)
		return;
	const wlz_gpu_token t = tok[i];
	const uint8_t v = (uint8_t)(w + 1 < LATE ? w + 1 : LATE);
	for (uint32_t j = 0; j < t.mlen; j++)
		map[t.pos + t.lit + j] = v;
}

extern "C" int wlz_gpu_exec(const wlz_gpu_pblock *d_blk, size_t n, const wlz_gpu_token *d_tok, size_t ntok,
			    const uint8_t *d_streams, uint8_t *d_out, uint64_t size, uint8_t *d_map, uint32_t *d_done,
			    uint32_t *d_count, unsigned first_batch, unsigned max_waves, unsigned *waves, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	const unsigned T = 256, G = (unsigned)((ntok + T - 1) / T);
	*waves = 0;
	if (cudaMemsetAsync(d_map, PENDING, size, st) != cudaSuccess)
		return 1;
	if (ntok)
		lit_kernel<<<G, T, 0, st>>>(d_tok, ntok, d_streams, d_out, d_map, d_done);
	if (n)
		tail_kernel<<<(unsigned)n, T, 0, st>>>(d_blk, d_streams, d_out, d_map, d_tok);
	/* Waves in batches of `batch`, the counts read after each batch (the
	 * first batch as long as the blocks' stated depth needs): a wave
	 * with nothing left to copy costs a scan of the done flags only. */
	unsigned batch = first_batch ? first_batch : 1;
	for (unsigned w = 0; ntok;) {
		if (w >= max_waves)
			return 2;
		if (cudaMemsetAsync(d_count, 0, 4 * sizeof(uint32_t), st) != cudaSuccess)
			return 1;
		for (unsigned k = 0; k < batch; k++, w++) {
			wave_kernel<<<G, T, 0, st>>>(d_tok, ntok, d_out, d_map, d_done, w, d_count + 2 * (k + 1 == batch));
			mark_kernel<<<G, T, 0, st>>>(d_tok, ntok, d_map, d_done, w);
		}
		uint32_t c[4];
		if (cudaMemcpyAsync(c, d_count, sizeof c, cudaMemcpyDeviceToHost, st) != cudaSuccess ||
		    cudaStreamSynchronize(st) != cudaSuccess)
			return 1;
		*waves = w;
		/* c[2]: left after the batch's last wave; c[3]: copied in it. */
		if (c[2] == 0)
			break;
		if (c[3] == 0)
			return 2;  /* nothing copied: nothing ever will be */
		batch = 8;
	}
	return cudaGetLastError() != cudaSuccess;
}
