/*
 * installdirs.c - where an installed program finds its support files; see
 * installdirs.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wrapper/common/installdirs.h"
#include "installdirs-gen.h"
#include "wrapper/common/xalloc.h"

/* The compiled-in path from BINDIR, and the build tree's (a default install). */
static const struct {
	const char *installed; /* from BINDIR, as the Makefile computed it */
	const char *build;     /* from $(O)/bin in the build tree */
} installdirs_rel[] = {
	[INSTALLDIR_PKGLIB] = { PGOPT_BIN_TO_PKGLIB, "../lib/pgoptcc" },
	[INSTALLDIR_PKGDATA] = { PGOPT_BIN_TO_PKGDATA, "../share/pgoptcc" },
};

/* bindir/rel, canonical, when it is a directory; else NULL */
static char *installdirs_try(const char *bindir, const char *rel)
{
	char *p = xasprintf("%s/%s", bindir, rel), real[PATH_MAX];
	struct stat st;
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(p, real)) {
		free(p);
		return NULL;
	}
	free(p);
	return xstrdup(real);
}

char *installdir_find(const char *exe, enum installdir which)
{
	const char *slash = strrchr(exe, '/');
	char *bindir = xstrndup(exe, slash ? (size_t)(slash - exe) : 0), *dir;

	dir = installdirs_try(bindir, installdirs_rel[which].installed);
	if (!dir && strcmp(installdirs_rel[which].installed, installdirs_rel[which].build))
		dir = installdirs_try(bindir, installdirs_rel[which].build);
	if (!dir)
		dir = xasprintf("%s/%s", bindir, installdirs_rel[which].installed);
	free(bindir);
	return dir;
}
