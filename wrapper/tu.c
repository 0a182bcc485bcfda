/*
 * tu.c - translation unit names; see tu.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/tu.h"
#include "wrapper/common/xalloc.h"

char *tu_normalize(const char *path)
{
	struct strbuf out = STRBUF_INIT;
	size_t *marks = NULL, nmarks = 0, amarks = 0;
	const char *p = path;
	int abs = path[0] == '/';

	if (abs)
		strbuf_addch(&out, '/');
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.' && abs && !nmarks)) {
			/* skip: empty, ".", or ".." at the root */
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && nmarks &&
			   strcmp(out.buf + marks[nmarks - 1], "..")) {
			size_t m = marks[--nmarks];
			strbuf_setlen(&out, m > (size_t)abs ? m - 1 : (size_t)abs);
		} else {
			if (out.len > (size_t)abs)
				strbuf_addch(&out, '/');
			ALLOC_GROW(marks, nmarks + 1, amarks);
			marks[nmarks++] = out.len;
			strbuf_add(&out, p, n);
		}
		if (!e)
			break;
		p = e + 1;
	}
	free(marks);
	if (!out.len)
		strbuf_addch(&out, '.');
	return strbuf_detach(&out, NULL);
}

static int exists_in(const char *dir, const char *name)
{
	struct stat st;
	char *p = xasprintf("%s/%s", dir, name);
	int r = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return r;
}

/* If path is below dir, return the part after "dir/". */
static const char *below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path + 1;
	if (!strncmp(path, dir, n) && path[n] == '/')
		return path + n + 1;
	return NULL;
}

/* Walk up from dir (inclusive) for a directory holding name. */
static char *find_up(const char *dir, const char *name)
{
	char *d = xstrdup(dir);
	for (;;) {
		char *slash;
		if (exists_in(d, name))
			return d;
		slash = strrchr(d, '/');
		if (!slash || slash == d) {
			free(d);
			return NULL;
		}
		*slash = '\0';
	}
}

/* The absolute, normalised form of source (relative to cwd). */
static char *absolute(const char *source, const char *cwd)
{
	char *joined, *res;

	if (source[0] == '/')
		return tu_normalize(source);
	joined = xasprintf("%s/%s", cwd, source);
	res = tu_normalize(joined);
	free(joined);
	return res;
}

/* The name of abs below an explicit root (as given, then resolved), or NULL. */
static char *below_root(const char *abs, const char *root)
{
	char *nroot = tu_normalize(root), *res = NULL;
	char real[PATH_MAX];
	const char *rel;

	if ((rel = below(abs, nroot)))
		res = xstrdup(rel);
	else if (realpath(root, real) && (rel = below(abs, real)))
		res = xstrdup(rel);
	free(nroot);
	return res;
}

/*
 * The top of the build tree above dir: the nearest directory where
 * configure ran (config.status), or the top of a PostgreSQL build tree
 * (src/Makefile.global).
 */
static char *build_top(const char *dir)
{
	static const char *const marks[] = { "config.status", "src/Makefile.global" };
	char *best = NULL;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		char *d = find_up(dir, marks[i]);
		if (d && (!best || strlen(d) > strlen(best))) {
			free(best);
			best = d;
		} else {
			free(d);
		}
	}
	return best;
}

/*
 * Of the source tree's top (the nearest `configure` above the file) and
 * the build tree's top above it, the deeper one names the file: a file in
 * a build tree inside the source tree (Debian's build/) is named from the
 * build tree, a file of the source tree from the source tree.
 */
static char *below_tops(const char *abs)
{
	char *dir = xstrdup(abs), *src, *bld, *top, *res = NULL;
	const char *rel;

	*strrchr(dir, '/') = '\0';
	if (!*dir) {
		free(dir);
		dir = xstrdup("/");
	}
	src = find_up(dir, "configure");
	bld = build_top(dir);
	top = !bld || (src && strlen(src) >= strlen(bld)) ? src : bld;
	if (top && (rel = below(abs, top)))
		res = xstrdup(rel);
	free(dir);
	free(src);
	free(bld);
	return res;
}

char *tu_name(const char *source, const char *cwd, const char *root)
{
	char *abs = absolute(source, cwd), *res = NULL;

	if (root)
		res = below_root(abs, root);
	if (!res)
		res = below_tops(abs);
	if (!res)
		res = tu_normalize(source);
	free(abs);
	return res;
}
