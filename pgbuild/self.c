/*
 * pgbuild/self.c - where the running pgbuild is installed: its own path
 * (stages run pgbuild again), pgoptcc next to it, and the support files in
 * LIBDIR/pgoptcc and DATADIR/pgoptcc (installdirs.h); see pgbuild.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/common/installdirs.h"
#include "pgbuild/pgbuild.h"

static char self_path[PATH_MAX];
static char *lib_dir;
static char *data_dir;
static char *pgoptcc_path;

const char *pgbuild_self(void)
{
	return self_path;
}

const char *pgbuild_libdir(void)
{
	return lib_dir;
}

const char *pgbuild_datadir(void)
{
	return data_dir;
}

const char *pgbuild_pgoptcc(void)
{
	return pgoptcc_path;
}

/* bindir/pgbuild -> bindir/pgoptcc, LIBDIR/pgoptcc and DATADIR/pgoptcc */
void pgbuild_find_self(void)
{
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	char *slash;
	if (n <= 0)
		die(PGBUILD_EXIT_ERROR, "cannot read /proc/self/exe");
	self_path[n] = '\0';
	slash = strrchr(self_path, '/');
	pgoptcc_path = xasprintf("%.*s/pgoptcc", (int)(slash - self_path), self_path);
	lib_dir = installdir_find(self_path, INSTALLDIR_PKGLIB);
	data_dir = installdir_find(self_path, INSTALLDIR_PKGDATA);
}
