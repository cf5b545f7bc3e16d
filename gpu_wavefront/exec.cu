/*
 * exec.cu - GPU token execution by waves (SPEC.md section 6.1).
 *
 * Every content byte has a map value: 0 once a literal wrote it, w + 1
 * once a match of wave w did (254 from wave 253 on: still final, and a
 * wave that late takes every final byte), PENDING before.  Literals are
 * copied first (and their bytes marked 0).  Wave w then copies every
 * match still pending whose source bytes before its own start all have
 * map values of at most w, and only after the wave are its bytes marked
 * w + 1, so that no match of wave w reads another's output.  Each wave
 * scans the list of pending tokens the one before left, and checks each
 * one's source bytes again: what this first version costs.
 */
#include <cuda_runtime.h>
#include "gpu_wavefront/exec.h"

#define PENDING 0xFFu
#define LATE 254u                  /* map value of waves 253 and on */
/* Thread blocks of a wave an SM (its warps loop over the pending tokens):
 * fewer measured slower, even where late waves have few tokens left. */
#define WAVE_BLOCKS_PER_SM 16

/* A block's tail: the literals after its last token (map NULL: none). */
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
		if (map)
			map[end + i] = 0;
	}
}

extern "C" int wlz_gpu_tails(const wlz_gpu_pblock *d_blk, size_t n, const wlz_gpu_token *d_tok,
			     const uint8_t *d_streams, uint8_t *d_out, void *stream)
{
	if (n)
		tail_kernel<<<(unsigned)n, 256, 0, (cudaStream_t)stream>>>(d_blk, d_streams, d_out, NULL, d_tok);
	return cudaGetLastError() != cudaSuccess;
}

__global__ void lit_kernel(const wlz_gpu_token *__restrict__ tok, size_t ntok, const uint8_t *__restrict__ st,
			   uint8_t *__restrict__ out, uint8_t *__restrict__ map, uint32_t *__restrict__ pend)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= ntok)
		return;
	const wlz_gpu_token t = tok[i];
	for (uint32_t j = 0; j < t.lit; j++) {
		out[t.pos + j] = st[t.lp + j];
		map[t.pos + j] = 0;
	}
	pend[i] = (uint32_t)i;
}

/* The work area: the pending tokens in two lists (a wave reads one and
 * writes the other), the tokens a wave copied, and counters. */
enum { C_IN0, C_IN1, C_COPIED, C_LAST, C_WAVE, C_USED, NCOUNT };

/* Appends x (where want) to list at counter *n, a warp at a time. */
__device__ __forceinline__ void push(uint32_t *list, uint32_t *n, bool want, uint32_t x, unsigned lane)
{
	const uint32_t m = __ballot_sync(0xffffffffu, want);
	if (!m)
		return;
	uint32_t at = 0;
	if (lane == 0)
		at = atomicAdd(n, (uint32_t)__popc(m));
	at = __shfl_sync(0xffffffffu, at, 0);
	if (want)
		list[at + __popc(m & ((1u << lane) - 1))] = x;
}

/* Wave w: the pending tokens of list in (*nin of them) whose sources are
 * final are copied (and listed in copied), the others listed in out.  A
 * warp takes 32 tokens one after another, its lanes checking and copying
 * 32 neighbouring bytes at a time (a thread walking its own token's bytes
 * touched a different line with every byte).  A match that overlaps its
 * own output repeats its first dist bytes, which lie before it: byte j is
 * source byte j % dist. */
__global__ void wave_kernel(const wlz_gpu_token *__restrict__ tok, uint8_t *__restrict__ out,
			    const uint8_t *__restrict__ map, uint32_t *__restrict__ lists, uint32_t ntok,
			    uint32_t *__restrict__ copied, uint32_t *cnt)
{
	const unsigned lane = threadIdx.x & 31;
	/* The wave and the list it reads: device values, so that the same
	 * launches serve every wave (a CUDA graph replayed). */
	const uint32_t w = cnt[C_WAVE], r = w & 1;
	const uint32_t *in = lists + (size_t)r * ntok;
	uint32_t *outl = lists + (size_t)(r ^ 1) * ntok, *nout = cnt + (r ^ 1), *ncopied = cnt + C_COPIED;
	const uint32_t n = cnt[r];
	const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	for (size_t base = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32; base < n; base += warps * 32) {
		const bool have = base + lane < n;
		const uint32_t mine = have ? in[base + lane] : 0;
		uint32_t todo = __ballot_sync(0xffffffffu, have), wait_mask = 0;
		while (todo) {
			const unsigned b = __ffs(todo) - 1;
			todo &= todo - 1;
			const wlz_gpu_token t = tok[__shfl_sync(0xffffffffu, mine, b)];
			const uint64_t dst = t.pos + t.lit, dist = dst - t.src;
			const uint64_t own = dist < t.mlen ? dist : t.mlen;
			bool wait = false;
			for (uint64_t j = lane; j < own && !wait; j += 32) {
				const unsigned m = map[t.src + j];
				wait = m == PENDING || m > w;
			}
			if (__any_sync(0xffffffffu, wait)) {
				wait_mask |= 1u << b;
				continue;
			}
			for (uint64_t j = lane; j < t.mlen; j += 32)
				out[dst + j] = out[t.src + (j < own ? j : j % dist)];
		}
		const bool waits = have && (wait_mask >> lane & 1);
		push(outl, nout, waits, mine, lane);
		push(copied, ncopied, have && !waits, mine, lane);
	}
}

/* After wave w: the bytes its matches wrote become final at w + 1. */
__global__ void mark_kernel(const wlz_gpu_token *__restrict__ tok, uint8_t *__restrict__ map,
			    const uint32_t *__restrict__ copied, const uint32_t *cnt)
{
	const unsigned lane = threadIdx.x & 31;
	const uint32_t n = cnt[C_COPIED], w = cnt[C_WAVE];
	const uint8_t v = (uint8_t)(w + 1 < LATE ? w + 1 : LATE);
	const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	for (size_t k = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; k < n; k += warps) {
		const wlz_gpu_token t = tok[copied[k]];
		for (uint64_t j = lane; j < t.mlen; j += 32)
			map[t.pos + t.lit + j] = v;
	}
}

/* Between waves: the list just read becomes the next one written. */
__global__ void step_kernel(uint32_t *cnt)
{
	cnt[C_LAST] = cnt[C_COPIED];
	if (cnt[C_COPIED])
		cnt[C_USED] = cnt[C_WAVE] + 1;
	cnt[C_COPIED] = 0;
	cnt[cnt[C_WAVE] & 1] = 0;
	cnt[C_WAVE]++;
}

extern "C" size_t wlz_gpu_exec_work(size_t ntok) { return (3 * ntok + 8) * sizeof(uint32_t); }

extern "C" int wlz_gpu_exec(const wlz_gpu_pblock *d_blk, size_t n, const wlz_gpu_token *d_tok, size_t ntok,
			    const uint8_t *d_streams, uint8_t *d_out, uint64_t size, uint8_t *d_map, uint32_t *d_work,
			    unsigned max_waves, unsigned *waves, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	const unsigned T = 256, G = (unsigned)((ntok + T - 1) / T);
	uint32_t *copied = d_work + 2 * ntok, *cnt = d_work + 3 * ntok;
	*waves = 0;
	const uint32_t init[NCOUNT] = {(uint32_t)ntok, 0, 0, 0, 0, 0};
	if (cudaMemsetAsync(d_map, PENDING, size, st) != cudaSuccess ||
	    cudaMemcpyAsync(cnt, init, sizeof init, cudaMemcpyHostToDevice, st) != cudaSuccess)
		return 1;
	if (ntok)
		lit_kernel<<<G, T, 0, st>>>(d_tok, ntok, d_streams, d_out, d_map, d_work);
	if (n)
		tail_kernel<<<(unsigned)n, T, 0, st>>>(d_blk, d_streams, d_out, d_map, d_tok);
	/* Waves in batches of BATCH, captured once as a CUDA graph and
	 * replayed, the counts read after each replay; each wave scans only
	 * the tokens still pending, and a wave with none left costs three
	 * near-empty launches. */
	int dev, nsm;
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
		return 1;
	const unsigned most = (unsigned)nsm * WAVE_BLOCKS_PER_SM, WG = G < most ? (G ? G : 1) : most;
	enum { BATCH = 8 };
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	int rc = 0;
	if (ntok) {
		/* Captured on a stream of its own (the caller's may be the
		 * legacy default stream, which cannot capture). */
		cudaStream_t cs;
		if (cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking) != cudaSuccess)
			return 1;
		if (cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
			cudaStreamDestroy(cs);
			return 1;
		}
		for (unsigned k = 0; k < BATCH; k++) {
			wave_kernel<<<WG, T, 0, cs>>>(d_tok, d_out, d_map, d_work, (uint32_t)ntok, copied, cnt);
			mark_kernel<<<WG, T, 0, cs>>>(d_tok, d_map, copied, cnt);
			step_kernel<<<1, 1, 0, cs>>>(cnt);
		}
		if (cudaStreamEndCapture(cs, &graph) != cudaSuccess ||
		    cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)
			rc = 1;
		cudaStreamDestroy(cs);
	}
	for (unsigned w = 0; ntok && !rc; w += BATCH) {
		if (w >= max_waves) {
			rc = 2;
			break;
		}
		uint32_t c[NCOUNT];
		if (cudaGraphLaunch(exec, st) != cudaSuccess ||
		    cudaMemcpyAsync(c, cnt, sizeof c, cudaMemcpyDeviceToHost, st) != cudaSuccess ||
		    cudaStreamSynchronize(st) != cudaSuccess) {
			rc = 1;
			break;
		}
		*waves = c[C_USED];
		if (c[c[C_WAVE] & 1] == 0)
			break;
		if (c[C_LAST] == 0)
			rc = 2;  /* nothing copied: nothing ever will be */
	}
	if (exec)
		cudaGraphExecDestroy(exec);
	if (graph)
		cudaGraphDestroy(graph);
	if (rc)
		return rc;
	return cudaGetLastError() != cudaSuccess;
}
