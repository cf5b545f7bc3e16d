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

#endif
