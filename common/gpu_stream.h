/*
 * gpu_stream.h - the stream a GPU call of the decoder or the compressor
 * runs on (CUDA sources only).
 */
#ifndef WLZ_GPU_STREAM_H
#define WLZ_GPU_STREAM_H

#include <cuda_runtime_api.h>

/* *st becomes the caller's stream, or else own, which is then made to
 * wait for the legacy default stream: a plain cudaMemcpy of the caller's
 * source may still be in flight there (from pageable memory it returns
 * before its DMA ends), and own does not wait for it by itself.  legacy:
 * an event of the context's for that. */
static inline cudaError_t wlz_gpu_pick_stream(void *stream, cudaStream_t own, cudaEvent_t legacy, cudaStream_t *st)
{
	*st = stream ? (cudaStream_t)stream : own;
	if (stream)
		return cudaSuccess;
	const cudaError_t e = cudaEventRecord(legacy, cudaStreamLegacy);
	return e != cudaSuccess ? e : cudaStreamWaitEvent(own, legacy, 0);
}

#endif
