/*
 * source.h - find, fetch and unpack the PostgreSQL source tree a build uses.
 *
 * A source is named by one string (pgbuild build --src SRC):
 *
 *   DIR                 an unpacked source tree (must hold `configure` and must
 *                       not have been configured in place: builds are VPATH)
 *   FILE.tar[.gz|.bz2|.xz]  a release tarball, unpacked once into the cache
 *   debian:PACKAGE      Debian's source package (default debian:postgresql-15):
 *                       `apt-get source PACKAGE=VERSION` for each version that
 *                       `apt-cache showsrc` lists, newest first, until one
 *                       downloads (the newest listed is often a security
 *                       update whose files the mirror does not serve); the
 *                       unpacked tree is reused by every later build.
 *                       Unpacked with `dpkg-source --skip-patches`: Debian's
 *                       patches hard-wire pkglibdir to /usr/lib/postgresql/N,
 *                       so `make install` into any prefix would overwrite the
 *                       system's PostgreSQL modules.  The tree is upstream's.
 *
 * The cache directory is $PGOPT_CACHE_DIR, else /var/cache/pgoptcc for root,
 * else $XDG_CACHE_HOME/pgoptcc, else ~/.cache/pgoptcc.  Fetching and
 * unpacking hold an flock on <cache>/src.lock, so parallel builds wait for
 * one download instead of racing.
 */
#ifndef PGBUILD_SOURCE_H
#define PGBUILD_SOURCE_H

#define BUILD_SOURCE_DEFAULT "debian:postgresql-15"

struct build_source {
	char *spec;      /* what was asked for, as given */
	char *dir;       /* absolute path of the unpacked tree (has configure) */
	char *version;   /* PACKAGE_VERSION from configure, e.g. "15.18" */
	char *pkg_version; /* Debian version ("15.18-0+deb12u1") or NULL */
};

#define BUILD_SOURCE_INIT { NULL, NULL, NULL, NULL }

/* The cache directory (created on first use); never NULL. */
const char *build_source_cache_dir(void);

/*
 * Resolve spec (NULL = BUILD_SOURCE_DEFAULT) into an unpacked tree, fetching and
 * unpacking when needed.  Progress goes to stderr unless quiet.  Returns 0,
 * or -1 after printing an error.
 */
int build_source_resolve(const char *spec, struct build_source *src, int quiet);
void build_source_release(struct build_source *src);

/* PACKAGE_VERSION of the configure script in dir, malloced, or NULL. */
char *build_source_version_of(const char *dir);

#endif
