/*
 * dir.c - directories.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wrapper/common/dir.h"
#include "wrapper/common/error.h"
#include "wrapper/common/xalloc.h"

int mkdir_p(const char *path)
{
	struct stat st;
	char *p;
	int e = 0;

	if (!*path) {
		error("cannot create a directory with an empty name");
		errno = ENOENT;
		return -1;
	}
	p = xstrdup(path);

	for (char *s = p + 1; ; s++) {
		char c = *s;
		if (c != '/' && c)
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			e = errno;
			error("cannot create directory \"%s\": %s", p, strerror(e));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	if (!e && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		e = ENOTDIR;
		error("cannot create directory \"%s\": %s", path, strerror(e));
	}
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}
