/*
 * path.c - absolute file names; see path.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/error.h"
#include "wrapper/common/path.h"
#include "wrapper/common/xalloc.h"

char *path_absolute(const char *path)
{
	char cwd[PATH_MAX];
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	if (!strcmp(path, "."))
		return xstrdup(cwd);
	return xasprintf("%s/%s", cwd, path);
}

char *path_real_as(const char *what, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		if (what)
			error("%s %s: %s", what, path, strerror(errno));
		else
			error("\"%s\": %s", path, strerror(errno));
		return NULL;
	}
	return xstrdup(real);
}

char *path_real(const char *path)
{
	return path_real_as(NULL, path);
}

int path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}
