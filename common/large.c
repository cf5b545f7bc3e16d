/*
 * large.c - zeroed allocations for the encoder's big buffers (input
 * window, level map, far table), in 2 MiB pages where the kernel allows.
 *
 * The far matcher reads these at random, far apart: in 4 KiB pages such a
 * read also misses the TLB, and a thread faulting pages in slows the
 * others down (bench/host/issue13-speed.md).
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "common/large.h"

#define LARGE_PAGE ((size_t)2 << 20)

/* AddressSanitizer sees overruns of malloc'd buffers only: keep them there. */
#if defined(__SANITIZE_ADDRESS__)
#define WLZ_LARGE_MMAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WLZ_LARGE_MMAP 0
#endif
#endif
#ifndef WLZ_LARGE_MMAP
#define WLZ_LARGE_MMAP 1
#endif

static size_t span_of(size_t n)
{
	return (n + LARGE_PAGE - 1) & ~(LARGE_PAGE - 1);
}

void *wlz_large_alloc(size_t n)
{
	if (n < LARGE_PAGE || !WLZ_LARGE_MMAP)
		return calloc(1, n ? n : 1);
	const size_t span = span_of(n);
	/* Map a page more than needed, then trim both ends to a 2 MiB
	 * boundary (the kernel places large pages only at one). */
	uint8_t *raw = mmap(NULL, span + LARGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uint8_t *p = (uint8_t *)(((uintptr_t)raw + LARGE_PAGE - 1) & ~(uintptr_t)(LARGE_PAGE - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + LARGE_PAGE > p)
		munmap(p + span, (size_t)(raw + LARGE_PAGE - p));
#ifdef MADV_HUGEPAGE
	madvise(p, span, MADV_HUGEPAGE);  /* advice: refused, it costs nothing */
#endif
	return p;
}

void wlz_large_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n < LARGE_PAGE || !WLZ_LARGE_MMAP)
		free(p);
	else
		munmap(p, span_of(n));
}

int wlz_large_prefault(void *p, size_t n)
{
#if defined(MADV_POPULATE_WRITE)
	if (!WLZ_LARGE_MMAP || !n)
		return !n;
	/* (from the start of p's page: a page already in is left as it is) */
	const long ps = sysconf(_SC_PAGESIZE);
	if (ps <= 0)
		return 0;
	const uintptr_t a = (uintptr_t)p & ~(uintptr_t)(ps - 1);
	return madvise((void *)a, n + ((uintptr_t)p - a), MADV_POPULATE_WRITE) == 0;
#else
	(void)p;
	(void)n;
	return 0;
#endif
}

void wlz_release_pages(void *p, size_t n)
{
#if defined(MADV_DONTNEED)
	const long ps = sysconf(_SC_PAGESIZE);
	if (!WLZ_LARGE_MMAP || !p || ps <= 0)
		return;
	/* (whole pages inside [p, p + n) only: a malloc'd buffer's
	 * neighbours, and its allocator's header, keep theirs) */
	const uintptr_t a = ((uintptr_t)p + (uintptr_t)ps - 1) & ~(uintptr_t)(ps - 1);
	const uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(ps - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
#else
	(void)p;
	(void)n;
#endif
}
