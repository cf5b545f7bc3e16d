/*
 * replay.c - the regression driver: feeds every file of the given
 * directories (or files) to a fuzz target's LLVMFuzzerTestOneInput once,
 * without libFuzzer, so the saved corpus and every past finding run under
 * ctest with any compiler.  A target reports a failure by aborting.
 *
 * usage: replay DIR_OR_FILE...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long ran;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			uint8_t *b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: out of memory\n");
		return 1;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	ran++;
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	int bad = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
		bad |= run_path(sub);
	}
	closedir(d);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= run_path(argv[i]);
	printf("replay: %ld inputs, none failed\n", ran);
	return bad || ran == 0;
}
