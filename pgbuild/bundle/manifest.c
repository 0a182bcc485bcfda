/*
 * manifest.c - opening a bundle (every file checked against its manifest:
 * wrapper/common/bundle-verify.h; the paths the manifest names besides)
 * and `pgbuild bundle show`; see bundle.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bundle/bundle.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/policy/bundle-policy.h"

/* A path the manifest gives besides its file list (what: its key, for
 * the message) must be one of its files.  0, or -1 after the error. */
static int names_member(const struct bundle_verified *bv, const char *what,
			const struct json_value *v)
{
	if (!v || v->type == JSON_NULL)
		return 0;
	if (v->type == JSON_STRING && bundle_verified_find(bv, v->u.str.s))
		return 0;
	if (v->type == JSON_STRING)
		return error("%s/%s: %s names \"%s\", which is not one of the files it lists",
			     bv->dir, BUNDLE_MANIFEST_NAME, what, v->u.str.s);
	return error("%s/%s: %s: expected the path of one of its files", bv->dir,
		     BUNDLE_MANIFEST_NAME, what);
}

/* See bundle.h. */
int bundle_open_files(const char *dir, struct bundle_verified *bv)
{
	struct strbuf err = STRBUF_INIT;
	const struct json_value *units;
	int rc = bundle_verify(dir, bv, &err);

	if (rc < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	rc = names_member(bv, "policy", json_get(bv->manifest, "policy"));
	if (rc == 0)
		rc = names_member(bv, "bolt.profile",
				  json_get(json_get(bv->manifest, "bolt"), "profile"));
	units = json_get(json_get(bv->manifest, "pgo"), "units");
	for (size_t i = 0; rc == 0 && i < json_len(units); i++)
		rc = names_member(bv, "pgo.units[].profile", json_get(json_at(units, i), "profile"));
	if (rc == 0 && policy_bundle_check(bv, &err) < 0)
		rc = error("%s", err.buf);
	strbuf_release(&err);
	if (rc < 0)
		bundle_verified_release(bv);
	return rc;
}

/* See bundle.h. */
struct json_value *bundle_open(const char *dir)
{
	struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
	struct json_value *m;

	if (bundle_open_files(dir, &bv) < 0)
		return NULL;
	m = bv.manifest;
	bv.manifest = NULL;
	bundle_verified_release(&bv);
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
