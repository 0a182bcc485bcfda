/*
 * self.c - where the running pgbuild is installed: its own path (stages
 * run pgbuild again), pgoptcc next to it, and the support files in
 * <bindir>/../lib/pgoptcc; see pgbuild.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild.h"

static char self_path[PATH_MAX];
static char *lib_dir;
static char *pgoptcc_path;

const char *pgbuild_self(void)
{
	return self_path;
}

const char *pgbuild_libdir(void)
{
	return lib_dir;
}

const char *pgbuild_pgoptcc(void)
{
	return pgoptcc_path;
}

/* bindir/pgbuild -> bindir/pgoptcc and bindir/../lib/pgoptcc */
void pgbuild_find_self(void)
{
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	char *bindir, *slash;
	if (n <= 0)
		die(PGBUILD_EXIT_ERROR, "cannot read /proc/self/exe");
	self_path[n] = '\0';
	bindir = xstrdup(self_path);
	slash = strrchr(bindir, '/');
	*slash = '\0';
	pgoptcc_path = xasprintf("%s/pgoptcc", bindir);
	slash = strrchr(bindir, '/');
	if (slash)
		*slash = '\0';
	lib_dir = xasprintf("%s/lib/pgoptcc", bindir);
	free(bindir);
}

