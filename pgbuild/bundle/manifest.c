/*
 * manifest.c - opening a bundle (its manifest, every file's sha256) and
 * `pgbuild bundle show`; see bundle.h.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/sha256.h"
#include "wrapper/policy/policy.h"

/* A path inside the bundle: relative, no "..", no empty component. */
static int inside(const char *rel)
{
	const char *p = rel;
	if (!*rel || *rel == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 2 && !strncmp(p, "..", 2)) || (n == 1 && *p == '.'))
			return 0;
		p += n + (p[n] == '/');
	}
	return 1;
}

/* See bundle.h. */
struct json_value *bundle_open(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, POLICY_BUNDLE_MANIFEST);
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *m = NULL;
	const struct json_value *files;
	int ok = 0;

	if (sfs_read(AT_FDCWD, path, SFS_IN_MANIFEST, 0, &text, &err) < 0) {
		error("%s is no profile bundle: %s (expected a directory pgbuild bundle create wrote)",
		      dir, err.buf);
		goto out;
	}
	if (!(m = json_parse(text.buf, text.len, &err))) {
		error("%s: %s", path, err.buf);
		goto out;
	}
	if (m->type != JSON_OBJECT || !json_get_str(m, "kind") ||
	    strcmp(json_get_str(m, "kind"), BUNDLE_KIND) || json_get_num(m, "version", 0) != 1) {
		error("%s: expected \"kind\": \"%s\" and \"version\": 1", path, BUNDLE_KIND);
		goto out;
	}
	files = json_get(m, "files");
	if (!files || files->type != JSON_OBJECT) {
		error("%s: expected a \"files\" object (path: sha256)", path);
		goto out;
	}
	for (size_t i = 0; i < files->u.list.nr; i++) {
		const char *rel = files->u.list.keys[i];
		const struct json_value *want = files->u.list.items[i];
		char hex[SHA256_HEX_SIZE], *f;
		int r;
		if (!inside(rel) || want->type != JSON_STRING) {
			error("%s: files: expected a relative path inside the bundle and its sha256, got \"%s\"",
			      path, rel);
			goto out;
		}
		f = xasprintf("%s/%s", dir, rel);
		r = bolt_file_sha256(f, hex);
		if (r == 0 && strcmp(hex, want->u.str.s))
			error("%s: its sha256 is %.16s..., the manifest says %.16s...: the bundle was "
			      "changed after it was made", f, hex, want->u.str.s);
		free(f);
		if (r < 0 || strcmp(hex, want->u.str.s))
			goto out;
	}
	ok = 1;
out:
	if (!ok) {
		json_free(m);
		m = NULL;
	}
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
	return m;
}

static const char *str(const struct json_value *o, const char *key)
{
	const char *s = json_get_str(o, key);
	return s ? s : "?";
}

/* See bundle.h. */
int bundle_show(const char *dir)
{
	struct json_value *m = bundle_open(dir);
	const struct json_value *src, *pgo, *bolt, *units;

	if (!m)
		return PGBUILD_EXIT_ERROR;
	src = json_get(m, "source");
	pgo = json_get(m, "pgo");
	bolt = json_get(m, "bolt");
	units = json_get(pgo, "units");
	printf("bundle %s (made %s)\n", dir, str(m, "created"));
	if (json_get_str(src, "spec"))
		printf("  source: %s (PostgreSQL %s, package %s)\n", str(src, "spec"),
		       str(src, "version"), str(src, "pkg_version"));
	else
		printf("  source: %s\n", json_get_str(src, "dir") ? json_get_str(src, "dir")
							 : "not recorded (made from a build directory)");
	printf("  policy: %s/%s\n", dir, str(m, "policy"));
	if (pgo && pgo->type == JSON_OBJECT) {
		const struct json_value *t = json_get(pgo, "trained_on");
		size_t nf = 0;
		for (size_t i = 0; i < json_len(units); i++)
			nf += json_len(json_get(json_at(units, i), "functions"));
		printf("  PGO: %zu units, %zu functions with counts, weight %.0f", json_len(units), nf,
		       json_get_num(pgo, "weight", 0));
		if (json_get_str(t, "workloads"))
			printf("; trained on %s, %g s each, %g clients (%s)", str(t, "workloads"),
			       json_get_num(t, "duration", 0), json_get_num(t, "clients", 0),
			       str(t, "trained"));
		printf("\n");
	} else {
		printf("  PGO: none\n");
	}
	if (bolt && bolt->type == JSON_OBJECT) {
		const struct json_value *t = json_get(bolt, "trained_on");
		printf("  BOLT: %s/%s", dir, str(bolt, "profile"));
		if (t && t->type == JSON_OBJECT)
			printf(", trained on %s (binary sha256 %.16s...)", str(t, "workloads"),
			       str(t, "input_sha256"));
		printf("\n");
	} else {
		printf("  BOLT: none\n");
	}
	json_free(m);
	return PGBUILD_EXIT_OK;
}
