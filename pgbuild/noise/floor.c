/*
 * floor.c - a layout noise floor read back (PREFIX/pgopt-noise.json, as
 * noise.c writes it) and the resolution it gives a deterministic metric;
 * see floor.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/error.h"
#include "wrapper/common/json.h"
#include "wrapper/common/xalloc.h"

static int is_sha256(const char *s)
{
	if (!s || strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/*
 * The SD fraction of workloads.W.M (sd_pct / 100) into *out; NAN when the
 * metric is absent.  -1 with err when it is there but not an object with
 * a number sd_pct >= 0.
 */
static int read_metric(const struct noise_floor *f, const char *wname,
		       const struct json_value *wv, const char *m, double *out,
		       struct strbuf *err)
{
	const struct json_value *mv = json_get(wv, m), *sd;
	*out = NAN;
	if (!mv)
		return 0;
	sd = json_get(mv, "sd_pct");
	if (mv->type != JSON_OBJECT || !sd || sd->type != JSON_NUMBER ||
	    !(sd->u.number >= 0 && isfinite(sd->u.number))) {
		strbuf_addf(err, "%s: workloads.%s.%s: expected an object with \"sd_pct\", "
			    "a number >= 0 (the SD in percent of the mean)", f->file, wname, m);
		return -1;
	}
	*out = sd->u.number / 100;
	return 0;
}

/* "workloads": an object of objects, each with its metrics. */
static int read_workloads(struct noise_floor *f, const struct json_value *root,
			  struct strbuf *err)
{
	const struct json_value *wls = json_get(root, "workloads");
	if (!wls || wls->type != JSON_OBJECT) {
		strbuf_addf(err, "%s: expected \"workloads\", an object of workloads "
			    "(as `pgbuild noise` writes it)", f->file);
		return -1;
	}
	f->wl = xcalloc(wls->u.list.nr ? wls->u.list.nr : 1, sizeof(*f->wl));
	for (size_t i = 0; i < wls->u.list.nr; i++) {
		const struct json_value *wv = wls->u.list.items[i];
		const char *name = wls->u.list.keys[i];
		struct noise_floor_wl *w = &f->wl[f->nr++];
		w->name = xstrdup(name);
		if (wv->type != JSON_OBJECT) {
			strbuf_addf(err, "%s: workloads.%s: expected an object of metrics", f->file,
				    name);
			return -1;
		}
		if (read_metric(f, name, wv, noise_metric_name(NOISE_INSTR), &w->instr_sd, err) < 0 ||
		    read_metric(f, name, wv, noise_metric_name(NOISE_CYC_EST), &w->cycles_sd,
				err) < 0)
			return -1;
	}
	return 0;
}

static int parse_floor(struct noise_floor *f, const struct json_value *root, struct strbuf *err)
{
	const struct json_value *v;
	const char *sha;

	if (root->type != JSON_OBJECT) {
		strbuf_addf(err, "%s: expected a JSON object (a `pgbuild noise` document)", f->file);
		return -1;
	}
	sha = json_get_str(root, "postgres_sha256");
	if (!is_sha256(sha)) {
		strbuf_addf(err, "%s: expected \"postgres_sha256\", 64 lower-case hex digits "
			    "(the sha256 of the postgres it was measured on)", f->file);
		return -1;
	}
	memcpy(f->sha256, sha, 65);
	v = json_get(root, "variants");
	if (!v || v->type != JSON_ARRAY || v->u.list.nr < 2) {
		strbuf_addf(err, "%s: expected \"variants\", an array of at least 2 variants "
			    "(an SD needs two)", f->file);
		return -1;
	}
	f->variants = (int)v->u.list.nr;
	return read_workloads(f, root, err);
}

int noise_floor_load(struct noise_floor *f, const char *file, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, perr = STRBUF_INIT;
	struct json_value *root;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	f->file = xstrdup(file);
	if (sfs_read(AT_FDCWD, file, SFS_IN_JSON, 0, &text, err) < 0)
		goto out;
	root = json_parse(text.buf, text.len, &perr);
	if (!root) {
		strbuf_addf(err, "%s: not JSON: %s", file, perr.buf);
		goto out;
	}
	rc = parse_floor(f, root, err);
	json_free(root);
out:
	if (rc < 0)
		noise_floor_release(f);
	strbuf_release(&text);
	strbuf_release(&perr);
	return rc;
}

void noise_floor_release(struct noise_floor *f)
{
	for (size_t i = 0; i < f->nr; i++)
		free(f->wl[i].name);
	free(f->wl);
	free(f->file);
	memset(f, 0, sizeof(*f));
}

int noise_floor_matches(const struct noise_floor *f, const char *postgres, struct strbuf *err)
{
	char hex[65];
	if (bolt_file_sha256(postgres, hex) < 0) {
		strbuf_addf(err, "cannot hash %s", postgres);
		return -1;
	}
	if (!strcmp(hex, f->sha256))
		return 1;
	strbuf_addf(err, "%s was measured on another postgres (sha256 %.12s...), not %s "
		    "(sha256 %.12s...)", f->file, f->sha256, postgres, hex);
	return 0;
}

int noise_floor_sd(const struct noise_floor *f, const char *workload, unsigned metric,
		   double *sd, struct strbuf *err)
{
	for (size_t i = 0; i < f->nr; i++) {
		if (strcmp(f->wl[i].name, workload))
			continue;
		*sd = metric == METRIC_CYCLES ? f->wl[i].cycles_sd : f->wl[i].instr_sd;
		if (isnan(*sd)) {
			strbuf_addf(err, "%s has no %s figure of %s", f->file, workload,
				    metrics_of(metric)->figure);
			return -1;
		}
		return 0;
	}
	strbuf_addf(err, "%s has no workload %s", f->file, workload);
	return -1;
}

double noise_floor_repeat(unsigned metric)
{
	return metrics_of(metric)->resolution;
}

double noise_floor_resolution(const struct noise_floor *f, const char *workload,
			      unsigned metric, char **source)
{
	double repeat = noise_floor_repeat(metric), sd, floor;
	struct strbuf why = STRBUF_INIT;

	if (!f) {
		*source = xasprintf("repeat %g%%", repeat * 100);
		return repeat;
	}
	if (noise_floor_sd(f, workload, metric, &sd, &why) < 0) {
		*source = xasprintf("repeat %g%% (%s)", repeat * 100, why.buf);
		strbuf_release(&why);
		return repeat;
	}
	floor = NOISE_FLOOR_SDS * sd;
	if (floor > repeat) {
		*source = xasprintf("layout floor: %d x SD %.3f%% over %d variants, %s",
				    NOISE_FLOOR_SDS, sd * 100, f->variants, f->file);
		return floor;
	}
	*source = xasprintf("repeat %g%% (above the layout floor: %d x SD %.3f%% over %d "
			    "variants, %s)", repeat * 100, NOISE_FLOOR_SDS, sd * 100, f->variants,
			    f->file);
	return repeat;
}

const char *noise_floor_state_name(enum noise_floor_state s)
{
	static const char *const names[] = { "used", "none", "absent", "mismatch" };
	return names[s];
}

/* Load file and hold it to prefix's postgres: the state, or -1 after the
 * error (a named file of another binary is one). */
static int load_checked(struct noise_floor *f, const char *file, const char *prefix,
			int named, char **note)
{
	struct strbuf err = STRBUF_INIT;
	char *pg = xasprintf("%s/bin/postgres", prefix);
	int m, rc = -1;

	if (noise_floor_load(f, file, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	m = noise_floor_matches(f, pg, &err);
	if (m < 0 || (m == 0 && named)) {
		error("--noise %s: %s", file, err.buf);
		noise_floor_release(f);
		goto out;
	}
	if (m == 0) {
		*note = xasprintf("no layout floor: %s; the repeat resolution is used", err.buf);
		noise_floor_release(f);
		rc = NOISE_FLOOR_MISMATCH;
		goto out;
	}
	*note = xasprintf("layout floor %s (%d variants of %s)", file, f->variants, pg);
	rc = NOISE_FLOOR_USED;
out:
	free(pg);
	strbuf_release(&err);
	return rc;
}

int noise_floor_find(struct noise_floor *f, const char *spec, const char *prefix, char **note)
{
	char *file;
	int rc;

	memset(f, 0, sizeof(*f));
	*note = NULL;
	if (spec && !strcmp(spec, "none")) {
		*note = xstrdup("no layout floor (--noise none): the repeat resolution is used");
		return NOISE_FLOOR_NONE;
	}
	if (spec)
		return load_checked(f, spec, prefix, 1, note);
	file = xasprintf("%s/%s", prefix, NOISE_FLOOR_FILE);
	if (access(file, F_OK) != 0) {
		*note = xasprintf("no layout floor (no %s; `pgbuild noise --prefix %s` measures "
				  "one): the repeat resolution is used", file, prefix);
		free(file);
		return NOISE_FLOOR_ABSENT;
	}
	rc = load_checked(f, file, prefix, 0, note);
	free(file);
	return rc;
}

int noise_floor_prefix(const char *prefix, const char *workload, unsigned metric,
		       double *resolution, char **source)
{
	struct noise_floor f;
	char *note;
	int st = noise_floor_find(&f, NULL, prefix, &note);

	if (st < 0)
		return -1;
	if (st == NOISE_FLOOR_MISMATCH)
		fprintf(stderr, "%s: note: %s\n", error_program(), note);
	*resolution = noise_floor_resolution(st == NOISE_FLOOR_USED ? &f : NULL, workload,
					     metric, source);
	if (st == NOISE_FLOOR_USED)
		noise_floor_release(&f);
	free(note);
	return 0;
}

int noise_floor_covers(const struct noise_floor *f, const struct strvec *workloads,
		       unsigned metrics, int min_variants, struct strbuf *err)
{
	static const unsigned each[] = { METRIC_INSTR, METRIC_CYCLES };
	double sd;

	if (f->variants < min_variants) {
		strbuf_addf(err, "%s is over %d variants, not %d", f->file, f->variants,
			    min_variants);
		return 0;
	}
	for (size_t i = 0; i < workloads->nr; i++)
		for (size_t m = 0; m < sizeof(each) / sizeof(each[0]); m++)
			if ((metrics & each[m]) &&
			    noise_floor_sd(f, workloads->v[i], each[m], &sd, err) < 0)
				return 0;
	return 1;
}

int noise_floor_check_given(const char *spec, const char *prefix, const char *baseline,
			    const char *measures)
{
	struct noise_floor f;
	char *note = NULL;
	int st;

	if (!spec || !strcmp(spec, "none"))
		return 0;
	if (!prefix)
		return cli_usage_error("--noise %s needs --baseline: a floor is of one postgres, "
				       "and %s is built by this run (leave --noise out: %s)", spec,
				       baseline, measures);
	st = noise_floor_find(&f, spec, prefix, &note);
	if (st == NOISE_FLOOR_USED)
		noise_floor_release(&f);
	free(note);
	return st < 0 ? PGBUILD_EXIT_ERROR : 0;
}
