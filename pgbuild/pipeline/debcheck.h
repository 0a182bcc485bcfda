/*
 * debcheck.h - two checks of `pgbuild deb` on the packages it built (its
 * compare and modules stages; deb.h):
 *
 * compare  The packages against the archive's of the same names and
 *          version: fetched with `apt-get download NAME=VERSION` into
 *          WORKDIR/archive (kept for a rerun), or the .debs of --archive
 *          DIR, extracted into WORKDIR/archive/root; every ELF file of
 *          ours against the archive's (build/pkgcompare.h: needed
 *          libraries, symbols left undefined that nothing defines,
 *          exports; any failure names the file), and each package's
 *          Installed-Size and .deb size against the archive's.  The
 *          -dbgsym packages are left out (the archive's are in another
 *          archive, debian-debug).  Written to WORKDIR/compare.json.
 *
 * modules  Every module of the packaged server loads and every extension
 *          it ships is created, with JIT forced on every query: a private
 *          server (cluster.h) from the packaged install, with
 *          DEBCHECK_JIT's settings; `LOAD` of each PKGLIBDIR/NAME.so in a
 *          session of its own ("could not load library" fails it; an
 *          error of the module's own initialization, sepgsql's "must be
 *          loaded via shared_preload_libraries", is a note); `CREATE
 *          EXTENSION ... CASCADE` of each SHAREDIR/extension/NAME.control
 *          in a database of its own; when PKGLIBDIR has the JIT provider
 *          (llvmjit.so), pg_jit_available() and a query EXPLAIN ANALYZE
 *          shows JIT-compiled; a crash in the server's log fails it.
 *          PKGLIBDIR and SHAREDIR are what the packaged pg_config says
 *          (its paths relative to where it is).
 *
 * Both write their report to log (the stage's) and their failures to
 * stderr, and end the log with one line: "compare: OK: ..." or
 * "compare: FAILED: ...".  Exit codes: 0 passed, 1 failed, 2 could not
 * run.
 */
#ifndef PGBUILD_DEBCHECK_H
#define PGBUILD_DEBCHECK_H

#include <stdio.h>

struct strbuf;

/* The server settings that JIT-compile every query, NULL-terminated (the
 * regress stage's --set, the modules stage's server). */
extern const char *const debcheck_jit[];

/* compare: workdir's .debs (extracted in WORKDIR/root) against the
 * archive's (archive: a directory of them, or NULL: apt-get download). */
int debcheck_compare(const char *workdir, const char *archive, FILE *log);

/* The .debs (nr paths) extracted into root, made afresh, as data: each
 * alone into a directory of its own (ROOT.x, 0700: tar keeps one
 * archive's members below it), every entry there made root's without a
 * set-id bit or others' write (what a package says of owners and modes is
 * not taken as root), then merged into root without following any link:
 * a directory that is a link or a file in root, a path two packages ship
 * (dpkg refuses it too), a device or FIFO are refused.  On any error root
 * is removed: nothing half-made stays.  The one extraction of pgbuild deb
 * (its packages into WORKDIR/root and dbg, the archive's into
 * WORKDIR/archive/root).  0, or -1 with one sentence in err. */
int debcheck_extract(const char *const *debs, size_t nr, const char *root, struct strbuf *err);

/* Is package name installed at version, as shipped (dpkg-query's status
 * and version, dpkg --verify's silence)?  0, or -1 with why in err. */
int debcheck_installed(const char *name, const char *version, struct strbuf *err);

/* The gate's default baseline for the packaged server at server
 * (WORKDIR/root/usr/lib/postgresql/N): the distribution's build of the
 * same package and version, never another.  With compared (the compare
 * stage ran) the archive's, extracted in WORKDIR/archive/root, when the
 * archive had that package at that version; else the installed
 * /usr/lib/postgresql/N when dpkg-query says its package is installed at
 * that version and dpkg --verify finds nothing changed.  Its prefix
 * (malloced), what it is in what (for people) and in ident (for the gate
 * stage's key: the package, its version and, the archive's, its .deb's
 * sha256); NULL with why and the fix in err. */
char *debcheck_baseline(const char *workdir, const char *archive, const char *server,
			int compared, struct strbuf *what, struct strbuf *ident,
			struct strbuf *err);

/* modules: the packaged server at server (WORKDIR/root/usr/lib/postgresql/N). */
int debcheck_modules(const char *server, FILE *log);

#endif
