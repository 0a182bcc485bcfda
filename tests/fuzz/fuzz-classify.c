/*
 * fuzz-classify.c - libFuzzer harness for @file expansion (wrapper/common/respfile.c)
 * and the argv classifier (wrapper/classify.c).
 *
 * The input is split at NUL bytes into arguments.  The first segment is also
 * the content of a response file, FILE, which "@FILE" arguments name: the
 * harness writes it to a memfd kept at descriptor 200 and replaces every
 * argument "@@" by "@/proc/self/fd/200"; the file's own text may name that
 * path too, so the input can include itself (nesting and repetition limits).  The expanded vector goes through classify_args().
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wrapper/classify.h"
#include "wrapper/common/respfile.h"

static int memfd = -1;
static char selfarg[64];

/*
 * gcc and pgoptcc read an @FILE whatever it is, so "@/dev/stdin" or
 * "@/proc/self/fd/2" (a pipe) waits for input like gcc does: not a finding.
 * Inputs naming /dev, /sys or /proc other than our own file are skipped;
 * the harness runs in an empty directory so relative names find nothing.
 */
static int harmless(const uint8_t *data, size_t size)
{
	static const char *const bad[] = { "/dev", "/sys", "/proc", "/run" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const uint8_t *p = data, *end = data + size;
		size_t n = strlen(bad[i]);
		while ((p = memmem(p, (size_t)(end - p), bad[i], n)) != NULL) {
			static const char ok[] = "/proc/self/fd/200";
			if (strcmp(bad[i], "/proc") ||
			    (size_t)(end - p) < sizeof(ok) - 1 || memcmp(p, ok, sizeof(ok) - 1) ||
			    ((size_t)(end - p) > sizeof(ok) - 1 && isdigit(p[sizeof(ok) - 1])))
				return 0;
			p += n;
		}
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec in = STRVEC_INIT, out = STRVEC_INIT, words = STRVEC_INIT;
	struct classification c;
	const char *p = (const char *)data, *end = p + size;
	size_t first;

	if (!harmless(data, size))
		return 0;
	if (memfd < 0) {
		char dir[] = "/tmp/fuzz-classify.XXXXXX";
		int fd = memfd_create("fuzz-respfile", 0);
		if (!mkdtemp(dir) || chdir(dir) < 0 || rmdir(dir) < 0)
			abort();
		if (fd < 0 || dup2(fd, 200) != 200)
			abort();
		close(fd);
		memfd = 200;
		snprintf(selfarg, sizeof(selfarg), "@/proc/self/fd/%d", memfd);
	}
	first = strnlen(p, size);
	if (ftruncate(memfd, 0) < 0 || pwrite(memfd, p, first, 0) != (ssize_t)first)
		abort();

	strvec_push(&in, "gcc");
	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		char *arg = strndup(p, n);
		strvec_push(&in, strcmp(arg, "@@") ? arg : selfarg);
		free(arg);
		p += n + 1;
	}
	respfile_split((const char *)data, first, &words);
	if (respfile_expand((int)in.nr - 1, (const char *const *)in.v + 1, &out) >= 0) {
		strvec_insert(&out, 0, "gcc");
		classify_args((int)out.nr, (const char *const *)out.v, &c);
		if (c.kind != KIND_COMPILE && c.kind != KIND_LINK && c.kind != KIND_PASSTHROUGH)
			abort();
		if (!classify_reason_name(c.reason) || !classify_kind_name(c.kind))
			abort();
		if (c.kind == KIND_COMPILE && !c.source)
			abort();
	}
	classify_args((int)words.nr, (const char *const *)words.v, &c);
	strvec_clear(&in);
	strvec_clear(&out);
	strvec_clear(&words);
	return 0;
}
