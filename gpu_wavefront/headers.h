/*
 * headers.h - the bytes of device-resident archives that the host's plan
 * reads (header, index, footer, block headers, stream and part headers),
 * fetched into host images of the archives without copying the payloads,
 * which the GPU reads where they lie.
 *
 * The fetch follows the structure from the end, as the footer gives it.
 * The plan (plan.c) then parses the image as usual and checks that the
 * members it finds are the ones fetched (wlz_gpu_layout): where they are,
 * every byte it read was fetched, and the streams' headers it reads later
 * lie where the fetch computed them from the same bytes.  Where the
 * structure cannot be followed, or the check fails, the caller copies the
 * whole archive instead, so a damaged archive gets the same verdict
 * either way.
 */
#ifndef WLZ_GPU_HEADERS_H
#define WLZ_GPU_HEADERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A member as the fetch found it: where it starts, its size, its blocks. */
typedef struct wlz_gpu_lmember {
	uint64_t start, size, nblocks, ioff;
} wlz_gpu_lmember;

/* An archive's members, in order. */
typedef struct wlz_gpu_layout {
	const wlz_gpu_lmember *m;
	size_t nm;
} wlz_gpu_layout;

/* An archive in device memory (d, size bytes) and its host image h (size
 * bytes; only the fetched bytes are written).  ok: out, whether its
 * structure was followed. */
typedef struct wlz_gpu_harc {
	const uint8_t *d;
	size_t size;
	uint8_t *h;
	int ok;
} wlz_gpu_harc;

/* A range to copy from an archive (src, device memory) to its image (dst,
 * host memory). */
typedef struct wlz_gpu_hrange {
	const uint8_t *src;
	uint8_t *dst;
	uint64_t len;
} wlz_gpu_hrange;

/* Copies a round's n ranges; 0 on success.  On a GPU: ranges.h; a test
 * may pass memcpy's. */
typedef int (*wlz_gpu_copy_fn)(void *opaque, const wlz_gpu_hrange *r, size_t n);

typedef struct wlz_gpu_headers wlz_gpu_headers;

wlz_gpu_headers *wlz_gpu_headers_create(void);
void wlz_gpu_headers_free(wlz_gpu_headers *x);

/* Fetches the structure of the n archives a into their images, in a few
 * rounds of copy.  Returns 0, or -1 when a copy or memory failed (a[i].ok
 * then says nothing). */
int wlz_gpu_headers_fetch(wlz_gpu_headers *x, wlz_gpu_harc *a, size_t n, wlz_gpu_copy_fn copy, void *opaque);

/* Archive i's members, as the last fetch found them (ok archives only). */
wlz_gpu_layout wlz_gpu_headers_layout(const wlz_gpu_headers *x, size_t i);

#ifdef __cplusplus
}
#endif

#endif
