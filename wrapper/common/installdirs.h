/*
 * installdirs.h - where an installed pgoptcc or pgbuild finds its support
 * files: the plugin and the masquerade links in LIBDIR/pgoptcc, the data
 * files its defaults name in DATADIR/pgoptcc.
 *
 * The Makefile compiles in the paths from BINDIR to those directories,
 * relative (a moved tree keeps working; see the Makefile's install
 * layout).  The build tree has the layout of a default install
 * (bin/, lib/pgoptcc/, share/pgoptcc/), so a program built for another
 * LIBDIR or DATADIR still runs from build/: when the compiled-in directory
 * does not exist, the default layout's is taken if that one does.
 */
#ifndef PGOPT_INSTALLDIRS_H
#define PGOPT_INSTALLDIRS_H

/* Which directory. */
enum installdir {
	INSTALLDIR_PKGLIB,  /* LIBDIR/pgoptcc: pgopt.so, masq/ */
	INSTALLDIR_PKGDATA, /* DATADIR/pgoptcc: tune-candidates.txt, examples/ */
};

/*
 * The directory for the executable at exe (an absolute path without
 * symbolic links, e.g. realpath of /proc/self/exe): canonical when it
 * exists, else the compiled-in place as written (for error messages).
 * Malloced.
 */
char *installdir_find(const char *exe, enum installdir which);

#endif
