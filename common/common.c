/*
 * common.c - error names, options, core count.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "common/wlz_internal.h"

static const char *const wlz_error_names[WLZ_ERR_COUNT_] = {
	[WLZ_OK] = "no error",
	[WLZ_ERR_PARAM] = "invalid parameter",
	[WLZ_ERR_NOMEM] = "out of memory",
	[WLZ_ERR_DST_TOO_SMALL] = "destination buffer too small",
	[WLZ_ERR_SRC_TOO_LARGE] = "input too large for the format",
	[WLZ_ERR_TRUNCATED] = "archive truncated",
	[WLZ_ERR_BAD_MAGIC] = "not a wavelz archive (bad magic)",
	[WLZ_ERR_BAD_VERSION] = "unsupported format version",
	[WLZ_ERR_BAD_HEADER] = "corrupt archive header",
	[WLZ_ERR_BAD_INDEX] = "corrupt block index",
	[WLZ_ERR_BAD_STREAM] = "corrupt block stream",
	[WLZ_ERR_BAD_TOKEN] = "corrupt tokens",
	[WLZ_ERR_CHECKSUM] = "checksum mismatch",
	[WLZ_ERR_THREAD] = "cannot start thread",
	[WLZ_ERR_WINDOW] = "window exceeds the memory limit",
	[WLZ_ERR_READ] = "read error",
	[WLZ_ERR_WRITE] = "write error",
	[WLZ_ERR_INTERNAL] = "internal error",
	[WLZ_ERR_GPU] = "GPU error",
};

WLZ_EXPORT const char *wlz_error_name(wlz_error err)
{
	if ((unsigned)err >= WLZ_ERR_COUNT_)
		return "unknown error code";
	return wlz_error_names[err];
}

/* What the last failing check of this thread's last call found. */
static _Thread_local char g_detail[WLZ_DETAIL_MAX];

wlz_error wlz_fail(wlz_error code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g_detail, sizeof(g_detail), fmt, ap);
	va_end(ap);
	return code;
}

void wlz_detail_clear(void)
{
	g_detail[0] = 0;
}

void wlz_detail_block(uint64_t block)
{
	if (!g_detail[0])
		return;  /* nothing to place (an allocation failed, say) */
	char pre[32];
	size_t n = (size_t)snprintf(pre, sizeof(pre), "block %llu: ", (unsigned long long)block);
	size_t len = strnlen(g_detail, sizeof(g_detail) - 1);
	if (n + len > sizeof(g_detail) - 1)
		len = sizeof(g_detail) - 1 - n;
	memmove(g_detail + n, g_detail, len);
	memcpy(g_detail, pre, n);
	g_detail[n + len] = 0;
}

void wlz_detail_set(const char *text)
{
	snprintf(g_detail, sizeof(g_detail), "%s", text);
}

WLZ_EXPORT const char *wlz_error_detail(void)
{
	return g_detail;
}

WLZ_EXPORT void wlz_options_init(wlz_options *opt)
{
	if (!opt)
		return;
	memset(opt, 0, sizeof(*opt));
	opt->struct_size = sizeof(*opt);
	opt->level = WLZ_LEVEL_DEFAULT;
	opt->threads = 0;
	opt->block_log = WLZ_BLOCK_LOG_DEFAULT;
	opt->depth = WLZ_DEPTH_UNLIMITED;
	opt->flatten = 1;  /* priced: SPEC.md, section 8 */
	opt->parallel = WLZ_PARALLEL_AUTO;
}

WLZ_EXPORT wlz_error wlz_options_check(const wlz_options *opt)
{
	if (!opt || opt->struct_size < sizeof(wlz_options))
		return WLZ_ERR_PARAM;
	if (opt->level < WLZ_LEVEL_MIN || opt->level > WLZ_LEVEL_MAX)
		return WLZ_ERR_PARAM;
	if (opt->threads < 0)
		return WLZ_ERR_PARAM;
	if (opt->block_log < WLZ_BLOCK_LOG_MIN || opt->block_log > WLZ_BLOCK_LOG_MAX)
		return WLZ_ERR_PARAM;
	if (opt->depth < WLZ_DEPTH_UNLIMITED || opt->depth > 254)
		return WLZ_ERR_PARAM;
	if (opt->flatten < 0 || opt->flatten > 2)
		return WLZ_ERR_PARAM;
	if (opt->parallel < WLZ_PARALLEL_AUTO || opt->parallel > WLZ_PARALLEL_MAX)
		return WLZ_ERR_PARAM;
	if (opt->streams < WLZ_STREAMS_HUF || opt->streams > WLZ_STREAMS_ZSTD)
		return WLZ_ERR_PARAM;
	if (opt->window_log && (opt->window_log < opt->block_log || opt->window_log > WLZ_WINDOW_LOG_ENC_MAX))
		return WLZ_ERR_PARAM;
	return WLZ_OK;
}

int wlz_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

int wlz_resolve_threads(int threads)
{
	if (threads <= 0)
		return wlz_cpu_count();
	return threads > 1024 ? 1024 : threads;
}

int wlz_grow(void **p, size_t *cap, size_t need, size_t unit)
{
	if (need <= *cap)
		return 1;
	void *q = realloc(*p, need * unit);
	if (!q)
		return 0;
	*p = q;
	*cap = need;
	return 1;
}
