/*
 * check.c - `pgbuild bundle check`: how much of a bundle's PGO profile a
 * build used, from its compile log and GCC's verdicts; see bundle.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/policy/policy.h"

void bundle_compile_release(struct bundle_compile *c)
{
	free(c->tu);
	free(c->object);
	free(c->dir);
	free(c->profile);
	strvec_clear(&c->refused);
	strvec_clear(&c->moved);
	strvec_clear(&c->missing);
}

void bundle_weigh_release(struct bundle_weigh *w)
{
	free(w->units);
	memset(w, 0, sizeof(*w));
}

/* The object's file name without its suffix ("x" of "/b/src/x.o"). */
static size_t stem(const char *path, const char **start)
{
	const char *b = strrchr(path, '/'), *dot;
	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	*start = b;
	return dot ? (size_t)(dot - b) : strlen(b);
}

static int same_stem(const char *a, const char *b)
{
	const char *sa, *sb;
	size_t na = stem(a, &sa), nb = stem(b, &sb);
	return na == nb && !memcmp(sa, sb, na);
}

/* See bundle.h. */
int bundle_weigh(const struct json_value *manifest, const struct bundle_compile *c, size_t n,
		 int (*same_dir)(const char *a, const char *b), const char *dir,
		 struct bundle_weigh *w, struct strbuf *err)
{
	const struct json_value *units = json_get(json_get(manifest, "pgo"), "units");

	memset(w, 0, sizeof(*w));
	if (!units || units->type != JSON_ARRAY) {
		strbuf_addstr(err, "the bundle has no PGO profile (its manifest's \"pgo\" is null)");
		return -1;
	}
	w->nr = json_len(units);
	w->units = xcalloc(w->nr ? w->nr : 1, sizeof(*w->units));
	for (size_t i = 0; i < n; i++)
		if (c[i].dir && !same_dir(c[i].dir, dir))
			w->foreign++;
	for (size_t i = 0; i < w->nr; i++) {
		const struct json_value *u = json_at(units, i);
		const struct json_value *fns = json_get(u, "functions");
		const char *profile = json_get_str(u, "profile");
		struct bundle_unit_use *uu = &w->units[i];
		const struct bundle_compile *plain = NULL;

		uu->tu = json_get_str(u, "tu");
		uu->object = json_get_str(u, "object");
		uu->weight = json_get_num(u, "weight", 0);
		uu->state = "not built";
		for (size_t j = 0; j < n && profile; j++) {
			if (c[j].profile && !strcmp(c[j].profile, profile) && c[j].dir &&
			    same_dir(c[j].dir, dir)) {
				uu->compile = &c[j];
				break;
			}
			if (!plain && uu->tu && uu->object && c[j].tu && !strcmp(c[j].tu, uu->tu) &&
			    same_stem(c[j].object, uu->object))
				plain = &c[j];
		}
		w->weight += uu->weight;
		if (!uu->compile) {
			uu->lost = uu->weight;
			if (plain)
				uu->state = "without its profile";
			continue;
		}
		uu->state = "used";
		w->compiled++;
		w->refused += uu->compile->refused.nr;
		w->moved += uu->compile->moved.nr;
		w->missing += uu->compile->missing.nr;
		for (size_t k = 0; k < uu->compile->refused.nr; k++)
			uu->lost += json_get_num(fns, uu->compile->refused.v[k], 0);
		/* "not found in profile data": a new function weighs nothing,
		 * but one the training ran is there under another id (GCC's id
		 * of a static function hashes its source file's path as the
		 * compile names it): its weight is lost */
		for (size_t k = 0; k < uu->compile->missing.nr; k++) {
			double m = json_get_num(fns, uu->compile->missing.v[k], 0);
			uu->lost += m;
			if (m > 0)
				w->not_found++;
		}
		if (uu->lost > uu->weight)
			uu->lost = uu->weight;
	}
	w->used = w->weight;
	for (size_t i = 0; i < w->nr; i++)
		w->used -= w->units[i].lost;
	return 0;
}

/* ---------------- reading the compile log ---------------- */

struct collect {
	struct bundle_compile *v;
	size_t nr, alloc;
};

static void strings(struct strvec *to, const struct json_value *arr)
{
	for (size_t i = 0; i < json_len(arr); i++) {
		const struct json_value *s = json_at(arr, i);
		if (s->type == JSON_STRING)
			strvec_push(to, s->u.str.s);
	}
}

static int collect_one(const struct json_value *rec, long line, void *data)
{
	struct collect *k = data;
	const struct json_value *b = json_get(rec, "bundle");
	char *obj;
	size_t i;

	(void)line;
	if (!buildlog_is_compile(rec) || !json_get_str(rec, "tu") ||
	    !(obj = buildlog_output_path(rec)))
		return 0;
	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->v[i].object, obj))
			break;
	if (i == k->nr) {
		if (k->nr == k->alloc) {
			k->alloc = k->alloc ? 2 * k->alloc : 256;
			k->v = xrealloc(k->v, k->alloc * sizeof(*k->v));
		}
		k->nr++;
	} else {
		bundle_compile_release(&k->v[i]);   /* a later compile decides */
	}
	memset(&k->v[i], 0, sizeof(k->v[i]));
	strvec_init(&k->v[i].refused);
	strvec_init(&k->v[i].moved);
	strvec_init(&k->v[i].missing);
	k->v[i].object = obj;
	k->v[i].tu = xstrdup(json_get_str(rec, "tu"));
	if (b && b->type == JSON_OBJECT && json_get_str(b, "profile")) {
		k->v[i].dir = xstrdup(json_get_str(b, "dir") ? json_get_str(b, "dir") : "");
		k->v[i].profile = xstrdup(json_get_str(b, "profile"));
		strings(&k->v[i].refused, json_get(b, "mismatched"));
		strings(&k->v[i].moved, json_get(b, "moved"));
		strings(&k->v[i].missing, json_get(b, "missing"));
	}
	return 0;
}

static int same_real(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	if (!strcmp(a, b))
		return 1;
	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* ---------------- the report ---------------- */

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 100.0;
}

static int by_lost(const void *a, const void *b)
{
	const struct bundle_unit_use *x = *(const struct bundle_unit_use *const *)a;
	const struct bundle_unit_use *y = *(const struct bundle_unit_use *const *)b;
	return (x->lost < y->lost) - (x->lost > y->lost);
}

static void print_summary(const struct bundle_check_opts *o, const struct bundle_weigh *w,
			  double share, int pass)
{
	const struct bundle_unit_use **lost = xcalloc(w->nr + 1, sizeof(*lost));
	size_t nl = 0;

	printf("bundle check: %s applied %.1f%% of the PGO profile's weight (threshold %.0f%%): %s\n",
	       o->log, share, o->min_applies, pass ? "pass" : "FAIL");
	printf("  units: %zu of %zu compiled with their profile", w->compiled, w->nr);
	if (w->foreign)
		printf("; %zu compiles used another bundle", w->foreign);
	printf("\n  functions: %zu refused by GCC (control flow changed since training), "
	       "%zu moved (profile kept), %zu not in the profile", w->refused, w->moved, w->missing);
	if (w->not_found)
		printf(" (%zu of them ran in the training: GCC looked them up under another id, "
		       "as it does for a static function whose source path differs from the "
		       "training's)", w->not_found);
	printf("\n");
	for (size_t i = 0; i < w->nr; i++)
		if (w->units[i].lost > 0)
			lost[nl++] = &w->units[i];
	qsort(lost, nl, sizeof(*lost), by_lost);
	if (nl)
		printf("  where the weight was lost (largest first):\n");
	for (size_t i = 0; i < nl && i < 10; i++) {
		const struct bundle_unit_use *u = lost[i];
		printf("    %5.1f%%  %s: ", pct(u->lost, w->weight), u->tu);
		if (!u->compile) {
			printf("%s\n", u->state);
			continue;
		}
		if (u->compile->refused.nr) {
			printf("GCC refused");
			for (size_t k = 0; k < u->compile->refused.nr && k < 5; k++)
				printf("%s %s", k ? "," : "", u->compile->refused.v[k]);
			if (u->compile->refused.nr > 5)
				printf(", ... (%zu)", u->compile->refused.nr);
		}
		if (u->compile->missing.nr)
			printf("%snot found: %zu functions", u->compile->refused.nr ? "; " : "",
			       u->compile->missing.nr);
		printf("\n");
	}
	if (nl > 10)
		printf("    ... %zu more units lost weight\n", nl - 10);
	free(lost);
}

static int write_json(const struct bundle_check_opts *o, const struct bundle_weigh *w,
		      double share, int pass)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	int rc;

	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgopt-bundle-check");
	json_key(&jw, "bundle"); json_string(&jw, o->dir);
	json_key(&jw, "log"); json_string(&jw, o->log);
	json_key(&jw, "weight"); json_double(&jw, w->weight);
	json_key(&jw, "used"); json_double(&jw, w->used);
	json_key(&jw, "percent"); json_double(&jw, share);
	json_key(&jw, "min_applies"); json_double(&jw, o->min_applies);
	json_key(&jw, "pass"); json_bool(&jw, pass);
	json_key(&jw, "units_compiled"); json_int(&jw, (int64_t)w->compiled);
	json_key(&jw, "functions_refused"); json_int(&jw, (int64_t)w->refused);
	json_key(&jw, "functions_moved"); json_int(&jw, (int64_t)w->moved);
	json_key(&jw, "functions_missing"); json_int(&jw, (int64_t)w->missing);
	json_key(&jw, "functions_not_found"); json_int(&jw, (int64_t)w->not_found);
	json_key(&jw, "foreign_compiles"); json_int(&jw, (int64_t)w->foreign);
	json_key(&jw, "units");
	json_array_begin(&jw);
	for (size_t i = 0; i < w->nr; i++) {
		const struct bundle_unit_use *u = &w->units[i];
		json_object_begin(&jw);
		json_key(&jw, "tu"); json_string(&jw, u->tu);
		json_key(&jw, "object"); json_string(&jw, u->object);
		json_key(&jw, "state"); json_string(&jw, u->state);
		json_key(&jw, "weight"); json_double(&jw, u->weight);
		json_key(&jw, "lost"); json_double(&jw, u->lost);
		json_key(&jw, "refused");
		if (u->compile)
			json_strvec(&jw, &u->compile->refused);
		else
			json_null(&jw);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	rc = write_result(o->json, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}

/* See bundle.h. */
int bundle_check(const struct bundle_check_opts *o)
{
	struct json_value *m = bundle_open(o->dir);
	struct collect k = { NULL, 0, 0 };
	struct bundle_weigh w;
	struct strbuf err = STRBUF_INIT;
	char *log;
	double share;
	int pass, rc = PGBUILD_EXIT_ERROR;

	if (!m)
		return rc;
	log = xasprintf("%s/%s", o->log, BUILDLOG_COMPILE);
	if (buildlog_each(log, 1, collect_one, &k, &err) < 0) {
		error("the compile log: %s", err.buf);
		goto out;
	}
	if (bundle_weigh(m, k.v, k.nr, same_real, o->dir, &w, &err) < 0) {
		error("%s: %s", o->dir, err.buf);
		goto out;
	}
	share = pct(w.used, w.weight);
	pass = share >= o->min_applies;
	if (!o->quiet)
		print_summary(o, &w, share, pass);
	rc = pass ? PGBUILD_EXIT_OK : PGBUILD_EXIT_FAIL;
	fflush(stdout);  /* the summary before the error, in a build log */
	if (!pass)
		error("the build used %.1f%% of the bundle's PGO profile, below the %.0f%% it must "
		      "(--min-applies): the source changed since the training; train again",
		      share, o->min_applies);
	if (o->json && write_json(o, &w, share, pass) < 0)
		rc = PGBUILD_EXIT_ERROR;
	bundle_weigh_release(&w);
out:
	for (size_t i = 0; i < k.nr; i++)
		bundle_compile_release(&k.v[i]);
	free(k.v);
	free(log);
	strbuf_release(&err);
	json_free(m);
	return rc;
}
