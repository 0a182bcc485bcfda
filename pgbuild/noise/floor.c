/*
 * floor.c - layout noise floors read back (PREFIX/pgopt-noise.json, as
 * noise.c writes them), the floors of a comparison's two builds, and the
 * one rule that gives a deterministic metric its resolution; see floor.h.
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

/* ---------------- the rule ---------------- */

double noise_floor_sd_bound(double sd, int variants)
{
	return sd * stats_sd_upper_factor(variants - 1, NOISE_FLOOR_BOUND);
}

double noise_floor_z(void)
{
	return stats_norm_quantile(1 - NOISE_FLOOR_FALSE_KEEP);
}

double noise_floor_z_at(double conf)
{
	return stats_norm_quantile((1 + conf) / 2);
}

/* The rule at z. */
static double rule_at(double z, double repeat, double sd_a, int n_a, double sd_b, int n_b)
{
	double ua = noise_floor_sd_bound(sd_a, n_a), ub = noise_floor_sd_bound(sd_b, n_b);
	double r = z * sqrt(ua * ua + ub * ub);
	return r > repeat ? r : repeat;
}

double noise_floor_rule(double repeat, double sd_a, int n_a, double sd_b, int n_b)
{
	return rule_at(noise_floor_z(), repeat, sd_a, n_a, sd_b, n_b);
}

/* ---------------- the floors of one comparison ---------------- */

const char *noise_floor_state_name(enum noise_floor_state s)
{
	static const char *const names[] = { "used", "none", "absent", "mismatch",
					     "too few variants" };
	return names[s];
}

/* A matching floor with fewer than the minimum: "FILE is over 2 variants;
 * a floor needs at least 5 ...". */
static void too_few(struct strbuf *sb, const struct noise_floor *f)
{
	strbuf_addf(sb, "%s is over %d variant%s; a floor needs at least %d (the %.0f%% bound of an "
		    "SD over %d is %.1f times it)", f->file, f->variants, f->variants == 1 ? "" : "s",
		    NOISE_FLOOR_MIN_VARIANTS, NOISE_FLOOR_BOUND * 100, f->variants,
		    stats_sd_upper_factor(f->variants - 1, NOISE_FLOOR_BOUND));
}

/*
 * Load file and hold it to prefix's postgres and the minimum: the state,
 * or -1 after the error (a named file of another binary, or over too few
 * variants, is one).  *why: what the note says when it is not used.
 */
static int load_checked(struct noise_floor *f, const char *file, const char *prefix,
			int named, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT;
	char *pg = xasprintf("%s/bin/postgres", prefix);
	int m, rc = -1;

	if (noise_floor_load(f, file, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	m = noise_floor_matches(f, pg, &err);
	if (m > 0 && f->variants < NOISE_FLOOR_MIN_VARIANTS) {
		too_few(&err, f);
		m = -2;
	}
	if (m == -1 || (m <= 0 && named)) {
		error("--noise %s: %s", file, err.buf);
		noise_floor_release(f);
		goto out;
	}
	if (m <= 0) {
		strbuf_addstr(why, err.buf);
		noise_floor_release(f);
		rc = m == 0 ? NOISE_FLOOR_MISMATCH : NOISE_FLOOR_FEW;
		goto out;
	}
	rc = NOISE_FLOOR_USED;
out:
	free(pg);
	strbuf_release(&err);
	return rc;
}

/* The candidate's own floor into f->b when it is one of its postgres with
 * enough variants; what was found goes to note.  -1: a malformed file. */
static int find_candidate(struct noise_floors *f, const char *candidate, struct strbuf *note)
{
	struct strbuf why = STRBUF_INIT;
	char *file = xasprintf("%s/%s", candidate, NOISE_FLOOR_FILE);
	int st = 0;

	if (access(file, F_OK) != 0) {
		strbuf_addf(note, "; the candidate's side: a stand-in (no %s)", file);
	} else if ((st = load_checked(&f->b, file, candidate, 0, &why)) == NOISE_FLOOR_USED) {
		f->has_b = 1;
		strbuf_addf(note, "; the candidate's: %s (%d variants)", file, f->b.variants);
	} else if (st >= 0) {
		strbuf_addf(note, "; the candidate's side: a stand-in (%s)", why.buf);
	}
	free(file);
	strbuf_release(&why);
	return st < 0 ? -1 : 0;
}

int noise_floors_find(struct noise_floors *f, const char *spec, const char *baseline,
		      const char *candidate)
{
	struct strbuf note = STRBUF_INIT, why = STRBUF_INIT;
	char *file;
	int st;

	memset(f, 0, sizeof(*f));
	f->z = noise_floor_z();
	f->baseline = baseline ? xstrdup(baseline) : NULL;
	if (spec && !strcmp(spec, "none")) {
		f->state = NOISE_FLOOR_NONE;
		f->note = xstrdup("no layout floor (--noise none): the repeat resolution decides");
		return 0;
	}
	if (!baseline) {
		f->state = NOISE_FLOOR_ABSENT;
		f->note = xstrdup("no layout floor (no baseline prefix to read one of)");
		return 0;
	}
	file = spec ? xstrdup(spec) : xasprintf("%s/%s", baseline, NOISE_FLOOR_FILE);
	if (!spec && access(file, F_OK) != 0) {
		st = NOISE_FLOOR_ABSENT;
		strbuf_addf(&why, "no %s", file);
	} else {
		st = load_checked(&f->a, file, baseline, spec != NULL, &why);
	}
	free(file);
	if (st < 0)
		goto fail;
	f->state = st;
	if (st != NOISE_FLOOR_USED) {
		f->note = xasprintf("no layout floor: %s; `pgbuild noise --install %s` measures one "
				    "(--noise none: the repeat resolution decides)", why.buf, baseline);
		strbuf_release(&why);
		return 0;
	}
	strbuf_addf(&note, "layout floor %s (%d variants of %s/bin/postgres)", f->a.file,
		    f->a.variants, baseline);
	if (!candidate)
		strbuf_addstr(&note, "; the candidate's side: a stand-in");
	else if (find_candidate(f, candidate, &note) < 0)
		goto fail;
	f->note = strbuf_detach(&note, NULL);
	strbuf_release(&why);
	return 0;
fail:
	strbuf_release(&note);
	strbuf_release(&why);
	noise_floors_release(f);
	return -1;
}

void noise_floors_release(struct noise_floors *f)
{
	if (f->state == NOISE_FLOOR_USED)
		noise_floor_release(&f->a);
	if (f->has_b)
		noise_floor_release(&f->b);
	free(f->baseline);
	free(f->note);
	memset(f, 0, sizeof(*f));
}

/* "95% bound of SD 0.209% over 5 variants = 0.496%" */
static void describe_side(struct strbuf *sb, double sd, int n)
{
	strbuf_addf(sb, "%.0f%% bound of SD %.4g%% over %d variants = %.4g%%",
		    NOISE_FLOOR_BOUND * 100, sd * 100, n, noise_floor_sd_bound(sd, n) * 100);
}

/* The candidate's SD: its own floor's, else the stand-in (floor.h). */
static void side_b(const struct noise_floors *f, const char *workload, unsigned metric,
		   double sd_a, double *sd, int *n, struct strbuf *desc)
{
	struct strbuf err = STRBUF_INIT;
	if (f->has_b && noise_floor_sd(&f->b, workload, metric, sd, &err) == 0) {
		*n = f->b.variants;
		describe_side(desc, *sd, *n);
		strbuf_addf(desc, " (%s)", f->b.file);
		strbuf_release(&err);
		return;
	}
	if (!f->has_b)
		strbuf_addstr(&err, "the candidate has no floor of its own");
	/* the stand-in is bounded as an SD over NOISE_FLOOR_STANDIN_VARIANTS
	 * whatever the baseline's count: its margin is what covers a
	 * candidate noisier than the baseline (floor.h) */
	*sd = sd_a;
	*n = NOISE_FLOOR_STANDIN_VARIANTS;
	if (metric == METRIC_INSTR &&
	    noise_floor_sd_bound(NOISE_FLOOR_INSTR_STANDIN, NOISE_FLOOR_INSTR_STANDIN_VARIANTS) >
	    noise_floor_sd_bound(sd_a, f->a.variants)) {
		*sd = NOISE_FLOOR_INSTR_STANDIN;
		*n = NOISE_FLOOR_INSTR_STANDIN_VARIANTS;
		strbuf_addstr(desc, "a stand-in, an LTO build's ");
		describe_side(desc, *sd, *n);
	} else if (f->a.variants == *n) {
		strbuf_addstr(desc, "a stand-in, a");
	} else {
		strbuf_addstr(desc, "a stand-in, a's SD bounded over as few variants: ");
		describe_side(desc, *sd, *n);
	}
	strbuf_addf(desc, " (%s)", err.buf);
	strbuf_release(&err);
}

int noise_floors_variants(const struct noise_floors *f, const char *workload, unsigned metric)
{
	struct strbuf desc = STRBUF_INIT;
	double sd_a, sd_b;
	int n_b;
	if (f->state != NOISE_FLOOR_USED || noise_floor_sd(&f->a, workload, metric, &sd_a, &desc) < 0) {
		strbuf_release(&desc);
		return 0;
	}
	side_b(f, workload, metric, sd_a, &sd_b, &n_b, &desc);
	strbuf_release(&desc);
	return n_b < f->a.variants ? n_b : f->a.variants;
}

int noise_floors_resolution(const struct noise_floors *f, const char *workload,
			    unsigned metric, double *res, char **source)
{
	double repeat = noise_floor_repeat(metric), sd_a, sd_b, r;
	struct strbuf why = STRBUF_INIT, b = STRBUF_INIT, sb = STRBUF_INIT;
	int n_b;

	*res = NAN;
	if (f->state == NOISE_FLOOR_NONE) {
		*res = repeat;
		*source = xasprintf("repeat %g%% (--noise none: no layout floor)", repeat * 100);
		return 0;
	}
	if (f->state != NOISE_FLOOR_USED) {
		*source = xstrdup(f->note);
		return -1;
	}
	if (noise_floor_sd(&f->a, workload, metric, &sd_a, &why) < 0) {
		*source = xasprintf("no layout floor: %s; `pgbuild noise --install %s -W %s` measures "
				    "one (--noise none: the repeat resolution decides)", why.buf,
				    f->baseline, workload);
		strbuf_release(&why);
		return -1;
	}
	side_b(f, workload, metric, sd_a, &sd_b, &n_b, &b);
	r = rule_at(f->z > 0 ? f->z : noise_floor_z(), repeat, sd_a, f->a.variants, sd_b, n_b);
	strbuf_addf(&sb, "layout floor: %.2f x sqrt(a^2 + b^2), a = ",
		    f->z > 0 ? f->z : noise_floor_z());
	describe_side(&sb, sd_a, f->a.variants);
	strbuf_addf(&sb, " (%s), b = %s", f->a.file, b.buf);
	if (r > repeat) {
		*res = r;
		*source = strbuf_detach(&sb, NULL);
	} else {
		*res = repeat;
		*source = xasprintf("repeat %g%% (above the %s)", repeat * 100, sb.buf);
		strbuf_release(&sb);
	}
	strbuf_release(&b);
	return 1;
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
	struct strbuf why = STRBUF_INIT;
	int st;

	if (!spec || !strcmp(spec, "none"))
		return 0;
	if (!prefix)
		return cli_usage_error("--noise %s needs --baseline: a floor is of one postgres, "
				       "and %s is built by this run (leave --noise out: %s)", spec,
				       baseline, measures);
	st = load_checked(&f, spec, prefix, 1, &why);
	if (st == NOISE_FLOOR_USED)
		noise_floor_release(&f);
	strbuf_release(&why);
	return st < 0 ? PGBUILD_EXIT_ERROR : 0;
}
