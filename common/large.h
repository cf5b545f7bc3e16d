/*
 * large.h - zeroed allocations in 2 MiB pages where the kernel allows
 * (large.c); free with the size that was asked for.
 */
#ifndef WLZ_LARGE_H
#define WLZ_LARGE_H

#include <stddef.h>
#include <stdint.h>

void *wlz_large_alloc(size_t n);
void wlz_large_free(void *p, size_t n);
/* Faults in bytes [p, p + n) of a zeroed allocation, writable, as a
 * first write would, without writing them; returns 0 where the kernel
 * cannot (the caller then writes its zeros itself). */
int wlz_large_prefault(void *p, size_t n);
/* Gives the whole pages inside [p, p + n) back to the kernel (a large
 * allocation's, or a malloc'd buffer's that is scratch): they read as
 * zeros when next touched.  madvise's zapping holds the address space's
 * lock only for reading, so threads give theirs back at once, where
 * munmap and free, which take it for writing, go one at a time. */
void wlz_release_pages(void *p, size_t n);

#endif
