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

char *tu_name(const char *source, const char *cwd, const char *root)
{
	char *abs, *res = NULL, *dir, *r;
	const char *rel;

	abs = source[0] == '/' ? tu_normalize(source)
			       : (r = xasprintf("%s/%s", cwd, source), dir = tu_normalize(r),
				  free(r), dir);
	if (root) {
		char *nroot = tu_normalize(root);
		char real[PATH_MAX];
		if ((rel = below(abs, nroot)))
			res = xstrdup(rel);
		else if (realpath(root, real) && (rel = below(abs, real)))
			res = xstrdup(rel);
		free(nroot);
		if (res) {
			free(abs);
			return res;
		}
	}
	/* the source tree: nearest `configure` above the source */
	dir = xstrdup(abs);
	*strrchr(dir, '/') = '\0';
	r = find_up(*dir ? dir : "/", "configure");
	free(dir);
	if (r && (rel = below(abs, r)))
		res = xstrdup(rel);
	free(r);
	if (!res) {
		/* a file of a VPATH build tree */
		r = find_up(cwd, "src/Makefile.global");
		if (r && (rel = below(abs, r)))
			res = xstrdup(rel);
		free(r);
	}
	if (!res)
		res = tu_normalize(source);
	free(abs);
	return res;
}
