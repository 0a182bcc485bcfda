/*
 * source.c - find, fetch and unpack PostgreSQL source trees; see source.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/pgbuild.h"
#include "pgbuild/build/source.h"

#define STAMP ".pgopt-unpacked"   /* written last: the tree is complete */
#define STAMP_KIND "upstream"     /* Debian trees: unpacked without Debian's patches */

const char *build_source_cache_dir(void)
{
	static char *dir;
	const struct passwd *pw;
	const char *e;

	if (dir)
		return dir;
	if ((e = getenv("PGOPT_CACHE_DIR")) && *e)
		dir = xstrdup(e);
	else if (geteuid() == 0)
		dir = xstrdup("/var/cache/pgoptcc");
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		dir = xasprintf("%s/pgoptcc", e);
	else if ((e = getenv("HOME")) && *e)
		dir = xasprintf("%s/.cache/pgoptcc", e);
	else if ((pw = getpwuid(geteuid())) && pw->pw_dir && *pw->pw_dir)
		dir = xasprintf("%s/.cache/pgoptcc", pw->pw_dir);
	else   /* never a name in /tmp another user could make first */
		die(PGBUILD_EXIT_ERROR, "no cache directory: HOME is not set and uid %ld has no home "
		    "directory (set PGOPT_CACHE_DIR)", (long)geteuid());
	if (mkdir_p(dir) < 0)
		die(PGBUILD_EXIT_ERROR, "no usable cache directory (set PGOPT_CACHE_DIR)");
	return dir;
}

char *build_source_version_of(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/configure", dir);
	char *v = NULL, *p;

	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &sb, NULL) >= 0 &&
	    (p = strstr(sb.buf, "\nPACKAGE_VERSION='"))) {
		p += strlen("\nPACKAGE_VERSION='");
		v = xstrndup(p, strcspn(p, "'\n"));
	}
	strbuf_release(&sb);
	free(path);
	return v;
}

static int rm_rf(const char *path)
{
	if (remove_tree(path) < 0)
		return error("cannot remove \"%s\": %s", path, strerror(errno));
	return 0;
}

/* Hold an exclusive lock on <cache>/src.lock; returns the fd. */
static int lock_cache(void)
{
	char *path = xasprintf("%s/src.lock", build_source_cache_dir());
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		die(PGBUILD_EXIT_ERROR, "cannot open \"%s\": %s", path, strerror(errno));
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			die(PGBUILD_EXIT_ERROR, "cannot lock \"%s\": %s", path, strerror(errno));
	free(path);
	return fd;
}

static int write_stamp(const char *dir, const char *content)
{
	char *path = xasprintf("%s/%s", dir, STAMP);
	char *text = xasprintf("%s\n", content);
	int r = write_file_atomic(path, text, strlen(text));
	free(text);
	free(path);
	return r;
}

/* Content of dir's stamp (first line), malloced, or NULL when absent. */
static char *read_stamp(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/%s", dir, STAMP);
	char *r = NULL;
	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &sb, NULL) >= 0) {
		strbuf_trim(&sb);
		r = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
	free(path);
	return r;
}

/* Fill src from an unpacked tree. */
static int set_tree(struct build_source *src, const char *dir)
{
	char real[PATH_MAX];
	char *p;

	if (!realpath(dir, real))
		return error("source directory \"%s\": %s", dir, strerror(errno));
	p = xasprintf("%s/configure", real);
	if (!path_exists(p)) {
		free(p);
		return error("\"%s\" is not a PostgreSQL source tree (no configure script)", real);
	}
	free(p);
	p = xasprintf("%s/config.status", real);
	if (path_exists(p)) {
		free(p);
		return error("source tree \"%s\" was configured in place (config.status exists); "
			     "pgbuild builds out of tree: run \"make distclean\" there or use a clean copy", real);
	}
	free(p);
	src->dir = xstrdup(real);
	src->version = build_source_version_of(real);
	if (!src->version)
		return error("cannot read PACKAGE_VERSION from \"%s/configure\"", real);
	return 0;
}

/* The one subdirectory of dir holding a configure script, malloced. */
static char *find_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char *p;
		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s/configure", dir, de->d_name);
		if (path_exists(p) && !found)
			found = xasprintf("%s/%s", dir, de->d_name);
		free(p);
	}
	closedir(d);
	return found;
}

/* A short, stable hash for cache keys (FNV-1a, 64 bit). */
static unsigned long long fnv1a(const char *s, unsigned long long h)
{
	if (!h)
		h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* Length of s's tarball extension (".tar.gz" ...), 0 when it has none. */
static size_t tar_ext_len(const char *s)
{
	static const char *const ext[] = { ".tar.gz", ".tar.bz2", ".tar.xz",
					   ".tar.zst", ".tgz", ".tar", NULL };
	size_t n = strlen(s);
	for (const char *const *e = ext; *e; e++) {
		size_t m = strlen(*e);
		if (n > m && !strcmp(s + n - m, *e))
			return m;
	}
	return 0;
}

static int from_tarball(struct build_source *src, const char *file, int quiet)
{
	char real[PATH_MAX];
	struct stat st;
	char *key, *base, *dest, *tree = NULL, *stamp;
	const char *slash;
	int lock, r = -1;

	if (!realpath(file, real) || stat(real, &st) < 0)
		return error("source tarball \"%s\": %s", file, strerror(errno));
	key = xasprintf("%s:%lld:%lld", real, (long long)st.st_size,
			(long long)st.st_mtime);
	slash = strrchr(real, '/');
	base = xstrdup(slash ? slash + 1 : real);
	base[strlen(base) - tar_ext_len(base)] = '\0';
	dest = xasprintf("%s/tarball/%s-%012llx", build_source_cache_dir(), base,
			 fnv1a(key, 0) & 0xffffffffffffULL);
	free(key);
	lock = lock_cache();
	stamp = read_stamp(dest);
	if (stamp) {
		tree = xasprintf("%s/%s", dest, stamp);
	} else {
		struct child_process cp = CHILD_PROCESS_INIT;
		if (path_exists(dest) && rm_rf(dest) < 0)
			goto out;
		if (mkdir_p(dest) < 0)
			goto out;
		if (!quiet)
			fprintf(stderr, "pgbuild: unpacking %s into %s\n", real, dest);
		strvec_pushl(&cp.args, "tar", "-xf", real, "-C", dest, NULL);
		r = run_command(&cp);
		child_process_clear(&cp);
		if (r != 0) {
			r = error("cannot unpack \"%s\" (tar exited with %d)", real, r);
			goto out;
		}
		r = -1;
		tree = find_tree(dest);
		if (!tree) {
			error("tarball \"%s\" holds no directory with a configure script", real);
			goto out;
		}
		if (write_stamp(dest, strrchr(tree, '/') + 1) < 0)
			goto out;
	}
	r = set_tree(src, tree);
out:
	close(lock);
	free(stamp);
	free(tree);
	free(dest);
	free(base);
	return r;
}

/* "1:15.18-0+deb12u1" -> "15.18" (no epoch, no Debian revision) */
static char *upstream_version(const char *v)
{
	const char *colon = strchr(v, ':');
	char *u = xstrdup(colon ? colon + 1 : v);
	char *dash = strrchr(u, '-');
	if (dash)
		*dash = '\0';
	return u;
}

/* dpkg --compare-versions a gt b */
static int version_gt(const char *a, const char *b)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;
	strvec_pushl(&cp.args, "dpkg", "--compare-versions", a, "gt", b, NULL);
	cp.no_stdout = cp.no_stderr = 1;
	r = run_command(&cp);
	child_process_clear(&cp);
	return r == 0;
}

/* Versions of pkg's source package that apt knows, newest first. */
static void list_versions(const char *pkg, struct strvec *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;

	strvec_pushl(&cp.args, "apt-cache", "showsrc", pkg, NULL);
	cp.no_stderr = 1;
	if (capture_command(&cp, &sb, 0) == 0) {
		for (line = strtok_r(sb.buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "Version: ", 9) || strvec_find(out, line + 9) >= 0)
				continue;
			strvec_push(out, line + 9);
		}
	}
	/* insertion sort, newest first (a handful of versions) */
	for (size_t i = 1; i < out->nr; i++)
		for (size_t j = i; j > 0 && version_gt(out->v[j], out->v[j - 1]); j--) {
			char *t = out->v[j];
			out->v[j] = out->v[j - 1];
			out->v[j - 1] = t;
		}
	child_process_clear(&cp);
	strbuf_release(&sb);
}

static int from_debian(struct build_source *src, const char *what, int quiet)
{
	struct strvec versions = STRVEC_INIT;
	char *pkg = xstrdup(what), *eq = strchr(pkg, '=');
	char *ddir = xasprintf("%s/debian", build_source_cache_dir());
	struct strbuf log = STRBUF_INIT;
	int lock, r = -1;

	if (eq) {
		*eq = '\0';
		strvec_push(&versions, eq + 1);
	}
	if (!*pkg) {
		free(pkg);
		free(ddir);
		return error("--src debian: needs a package name, e.g. debian:postgresql-15");
	}
	if (mkdir_p(ddir) < 0)
		goto out;
	lock = lock_cache();
	if (!versions.nr)
		list_versions(pkg, &versions);

	/* Pass 1: a version already unpacked wins (no network). */
	for (size_t i = 0; i < versions.nr; i++) {
		char *up = upstream_version(versions.v[i]);
		char *tree = xasprintf("%s/%s-%s", ddir, pkg, up);
		char *stamp = read_stamp(tree);
		char *want = xasprintf("%s %s", versions.v[i], STAMP_KIND);
		int hit = stamp && !strcmp(stamp, want);
		free(want);
		free(stamp);
		free(up);
		if (hit) {
			r = set_tree(src, tree);
			if (!r)
				src->pkg_version = xstrdup(versions.v[i]);
			free(tree);
			goto unlock;
		}
		free(tree);
	}
	if (!versions.nr) {
		error("apt-cache showsrc %s lists no versions (is a deb-src source configured? "
		      "\"make deps\" adds one)", pkg);
		goto unlock;
	}

	/* Pass 2: download and unpack, newest first, until one works. */
	for (size_t i = 0; i < versions.nr; i++) {
		char *up = upstream_version(versions.v[i]);
		const char *colon = strchr(versions.v[i], ':');
		char *tree = xasprintf("%s/%s-%s", ddir, pkg, up);
		char *dsc = xasprintf("%s/%s_%s.dsc", ddir, pkg,
				      colon ? colon + 1 : versions.v[i]);
		int code;

		free(up);
		if (path_exists(tree) && rm_rf(tree) < 0)
			goto next;
		if (!quiet)
			fprintf(stderr, "pgbuild: fetching %s=%s into %s\n", pkg,
				versions.v[i], ddir);
		{
			struct child_process cp = CHILD_PROCESS_INIT;
			strvec_pushl(&cp.args, "apt-get", "source", "-q", "--download-only", NULL);
			strvec_pushf(&cp.args, "%s=%s", pkg, versions.v[i]);
			cp.dir = ddir;
			strbuf_reset(&log);
			code = capture_command(&cp, &log, 1);
			child_process_clear(&cp);
		}
		if (code == 0 && path_exists(dsc)) {
			/* Upstream source only: Debian's patches hard-wire
			 * pkglibdir to /usr/lib/postgresql/N/lib, so `make
			 * install` would overwrite the system's PostgreSQL. */
			struct child_process cp = CHILD_PROCESS_INIT;
			strvec_pushl(&cp.args, "dpkg-source", "--skip-patches", "-x", dsc, tree, NULL);
			cp.dir = ddir;
			strbuf_reset(&log);
			code = capture_command(&cp, &log, 1);
			child_process_clear(&cp);
		} else if (code == 0) {
			code = -1;
		}
		if (code == 0 && path_exists(tree)) {
			char *stamp = xasprintf("%s %s", versions.v[i], STAMP_KIND);
			if (write_stamp(tree, stamp) == 0 && (r = set_tree(src, tree)) == 0)
				src->pkg_version = xstrdup(versions.v[i]);
			free(stamp);
			free(tree);
			free(dsc);
			goto unlock;
		}
		if (!quiet)
			fprintf(stderr, "pgbuild: %s=%s did not download or unpack (exit %d)%s\n",
				pkg, versions.v[i], code,
				i + 1 < versions.nr ? "; trying the next version" : "");
next:
		free(tree);
		free(dsc);
	}
	strbuf_rtrim(&log);
	error("none of the %zu listed versions of %s could be fetched; apt-get said: %s",
	      versions.nr, pkg, log.len > 400 ? log.buf + log.len - 400 : log.buf);
unlock:
	close(lock);
out:
	strbuf_release(&log);
	strvec_clear(&versions);
	free(ddir);
	free(pkg);
	return r;
}


int build_source_resolve(const char *spec, struct build_source *src, int quiet)
{
	struct stat st;
	int r;

	if (!spec || !*spec)
		spec = BUILD_SOURCE_DEFAULT;
	memset(src, 0, sizeof(*src));
	src->spec = xstrdup(spec);
	if (!strncmp(spec, "debian:", 7))
		r = from_debian(src, spec + 7, quiet);
	else if (stat(spec, &st) < 0)
		r = error("--src \"%s\": %s", spec, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		r = set_tree(src, spec);
	else if (tar_ext_len(spec))
		r = from_tarball(src, spec, quiet);
	else
		r = error("--src \"%s\" is neither a directory, a tarball (.tar, .tar.gz, "
			  ".tgz, .tar.bz2, .tar.xz) nor debian:PACKAGE", spec);
	if (r < 0)
		build_source_release(src);
	return r;
}

void build_source_release(struct build_source *src)
{
	free(src->spec);
	free(src->dir);
	free(src->version);
	free(src->pkg_version);
	memset(src, 0, sizeof(*src));
}
