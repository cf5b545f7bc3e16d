/*
 * streams.h - opening a block's streams (streams.c).
 */
#ifndef WLZ_CPU_STREAMS_H
#define WLZ_CPU_STREAMS_H

#include "format/format.h"

/* Readable bytes after every opened stream: the token loop reads 8 bytes
 * at a time, and up to 31 bytes past a literal run, without checking for
 * the stream's end first. */
#define WLZ_STREAM_SLACK 32

typedef struct wlz_sopen wlz_sopen;

wlz_sopen *wlz_sopen_create(void);
void wlz_sopen_free(wlz_sopen *so);

/* Checks the payload checksum of the block described by e (payload at
 * arc + e->data_offset) and makes its streams readable at st[], each with
 * WLZ_STREAM_SLACK bytes after it; raw streams are used in place when the
 * payload is followed by that many readable bytes (a member that passed
 * wlz_member_parse is).  Valid until the next call on so. */
wlz_error wlz_sopen_block(wlz_sopen *so, const uint8_t *arc, const wlz_block_entry *e,
			  const uint8_t *st[WLZ_NSTREAMS]);

#endif
