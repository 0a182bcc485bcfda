/*
 * tune/output.c - what `pgbuild tune` reports: the step table on stdout
 * and the --json document (and --dry-run's plan); see tuner.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/pgbuild.h"
#include "pgbuild/tune/tuner.h"

/* ---------------- output ---------------- */

/* The lines before the table: what is searched, the resolution a verdict
 * allows for, the bundle, the candidates refused; then the column heads. */
static void print_head(const struct tuner *tu, FILE *fp)
{
	const struct tune_engine *t = &tu->t;

	fprintf(fp, "pgbuild tune: %s, metric %s, scope %s, %zu candidates\n",
		tu->o.workload, tu->o.metric, tu->o.scope, t->flags.nr);
	if (tu->o.resolution_source)
		fprintf(fp, "  resolution %.2g%% (%s): a drop is kept unless ratio + resolution "
			"is below 1 - tolerance, an add needs ratio - resolution above 1\n",
			t->p.resolution * 100, tu->o.resolution_source);
	if (tu->o.bundle)
		fprintf(fp, "  on the profile bundle %s: every set is its policy plus the set's flags, "
			"built with its PGO profile (no training per set); \"stock\" is the bundle's "
			"own build; a set whose build uses less than %g%% of the profile's weight is "
			"refused\n", tu->o.bundle, tu->o.min_applies);
	for (size_t i = 0; i < tu->refused.nr; i++)
		fprintf(fp, "  refused: %s\n", tu->refused.v[i]);
	fprintf(fp, "%-4s %-6s %-28s %-8s %-26s %-12s %8s %8s\n", "step", "phase", "flag", "outcome",
		"ratio [interval]", "verdict", "build", "total");
}

/* Step i's row: its flag (or set, "stock" when empty), the outcome, ratio
 * and interval, verdict, build and total time; a comparison made at an
 * earlier step says which (no new work), a failed one its note. */
static void print_step(const struct tune_engine *t, size_t i, FILE *fp)
{
	const struct tune_step *s = &t->steps[i];
	const struct tune_record *r = s->record >= 0 ? &t->records[s->record] : NULL;
	char ratio[64] = "-", flag[64], b1[32], b2[32];
	size_t same = 0;

	if (s->flag >= 0)
		snprintf(flag, sizeof(flag), "%s", t->flags.v[s->flag]);
	else {
		char *txt = tune_set_text(t, s->cand);
		snprintf(flag, sizeof(flag), "%s", *txt ? txt : "stock");
		free(txt);
	}
	if (r && isfinite(r->e.ratio))
		snprintf(ratio, sizeof(ratio), "%.4f [%.4f, %.4f]", r->e.ratio, r->e.lo, r->e.hi);
	for (size_t k = 0; k < i && !same; k++)
		if (s->record >= 0 && t->steps[k].record == s->record)
			same = k + 1;
	if (same) {
		/* the same comparison again (e.g. final = start): no new work */
		fprintf(fp, "%-4zu %-6s %-28s %-8s %-26s %-12s %8s %8s  (as step %zu)\n", i + 1,
			tune_phase_name(s->phase), flag, tune_outcome_name(r->e.outcome), ratio,
			tune_verdict_name(s->verdict), "-", "-", same);
		return;
	}
	fprintf(fp, "%-4zu %-6s %-28s %-8s %-26s %-12s %8s %8s%s\n", i + 1,
		tune_phase_name(s->phase), flag,
		r ? tune_outcome_name(r->e.outcome) : "-", ratio,
		tune_verdict_name(s->verdict),
		r && r->e.builds ? fmt_duration(r->e.build_seconds, 0, b1, sizeof(b1)) : "cached",
		r ? fmt_duration(r->e.seconds, 0, b2, sizeof(b2)) : "-",
		s->cached ? "  (from state)" : "");
	if (r && r->e.note && r->e.outcome != TUNE_OK)
		fprintf(fp, "     %s\n", r->e.note);
}

/* The best set, and its final comparison with stock (in-sample). */
static void print_best(const struct tuner *tu, FILE *fp)
{
	const struct tune_engine *t = &tu->t;
	char *best = tune_set_text(t, t->best);

	fprintf(fp, "best: %s\n", *best ? best : "stock (no flag paid off)");
	free(best);
	if (t->final_record >= 0 && t->best) {
		const struct tune_record *r = &t->records[t->final_record];
		if (r->e.outcome == TUNE_OK)
			fprintf(fp, "vs stock: %.4f [%.4f, %.4f] (%s, %s; in-sample: the search "
				"trained on it)\n", r->e.ratio, r->e.lo, r->e.hi, tu->o.metric,
				tu->o.workload);
	}
}

/* The best set against stock on each held-out workload, then all of them
 * together (or that they were not judged). */
static void print_held(const struct tuner *tu, FILE *fp)
{
	for (size_t i = 0; i < tu->nr_held; i++) {
		const struct tune_held *h = &tu->held[i];
		fprintf(fp, "held out %s: ", h->workload);
		if (isfinite(h->e.ratio))
			fprintf(fp, "%.4f [%.4f, %.4f]", h->e.ratio, h->e.lo, h->e.hi);
		else
			fputs("-", fp);
		if (h->resolution > 0)
			fprintf(fp, " +- %.2g%%", h->resolution * 100);
		else if (isnan(h->resolution))
			fputs(" (no layout floor)", fp);
		fprintf(fp, " (%s, never measured by the search): %s\n", tu->o.metric, h->verdict);
		if (h->e.outcome != TUNE_OK && h->e.note)
			fprintf(fp, "     %s\n", h->e.note);
	}
	if (!tu->nr_held && tu->o.held_out.nr && tu->t.best)
		fprintf(fp, "held out: not judged\n");
	else if (tu->nr_held)
		fprintf(fp, "held out, all together: %s\n", tuner_held_overall(tu->held, tu->nr_held));
}

/* The totals: builds, evaluation and wall time, why the search stopped,
 * and the policy written (out_path, or NULL). */
static void print_totals(const struct tuner *tu, FILE *fp, const char *out_path)
{
	const struct tune_engine *t = &tu->t;
	char b1[32], b2[32];

	fprintf(fp, "builds: %d; evaluation time %s (this run: %d new evaluations, %s wall); stop: %s\n",
		t->builds, fmt_duration(t->seconds, 0, b1, sizeof(b1)), t->new_evaluations,
		fmt_duration(clock_seconds() - tu->t0, 0, b2, sizeof(b2)), t->stop_reason);
	if (out_path)
		fprintf(fp, "policy: %s\n", out_path);
}

void tuner_print_report(struct tuner *tu, FILE *fp, const char *out_path)
{
	print_head(tu, fp);
	for (size_t i = 0; i < tu->t.nr_steps; i++)
		print_step(&tu->t, i, fp);
	print_best(tu, fp);
	print_held(tu, fp);
	print_totals(tu, fp, out_path);
}

/* The flags of set s, an array. */
static void set_json_flags(const struct tune_engine *t, tune_set s, struct json_writer *jw)
{
	json_array_begin(jw);
	for (size_t i = 0; i < t->flags.nr; i++)
		if (s & ((tune_set)1 << i))
			json_string(jw, t->flags.v[i]);
	json_array_end(jw);
}

/* A ratio under key, and its interval as "ci_low" and "ci_high". */
static void write_ratio(struct json_writer *jw, const char *key, double ratio, double lo,
			double hi)
{
	json_key(jw, key); json_double(jw, ratio);
	json_key(jw, "ci_low"); json_double(jw, lo);
	json_key(jw, "ci_high"); json_double(jw, hi);
}

/* A document begun with json_writer_init on sb: closed, then written to
 * path as write_result writes (sb released).  0, or -1 after the error. */
static int write_document(struct json_writer *jw, struct strbuf *sb, const char *path)
{
	int rc;

	json_object_end(jw);
	strbuf_addch(sb, '\n');
	rc = write_result(path, sb->buf, sb->len);
	strbuf_release(sb);
	return rc;
}

/* What the search was asked: the workload, metric, scope, its
 * parameters, and the candidates kept and refused. */
static void write_search(struct json_writer *jw, const struct tuner *tu)
{
	const struct tune_engine *t = &tu->t;

	json_key(jw, "workload"); json_string(jw, tu->o.workload);
	json_key(jw, "train"); json_string(jw, tu->o.workload);
	json_key(jw, "metric"); json_string(jw, tu->o.metric);
	json_key(jw, "scope"); json_string(jw, tu->o.scope);
	json_key(jw, "bundle"); json_string(jw, tu->o.bundle);
	if (tu->o.bundle) {
		json_key(jw, "min_applies"); json_double(jw, tu->o.min_applies);
	}
	json_key(jw, "tolerance"); json_double(jw, t->p.tolerance);
	json_key(jw, "min_gain"); json_double(jw, t->p.min_gain);
	json_key(jw, "resolution");
	if (tu->o.resolution_source)
		json_double(jw, t->p.resolution);
	else
		json_null(jw);
	json_key(jw, "resolution_source"); json_string(jw, tu->o.resolution_source);
	json_key(jw, "noise_floor"); json_string(jw, tu->o.noise_note);
	json_key(jw, "candidates"); set_json_flags(t, ~(tune_set)0, jw);
	json_key(jw, "refused"); json_strvec(jw, &tu->refused);
}

/* Step i of the search: the sets compared, the verdict, the evaluation. */
static void write_step(struct json_writer *jw, const struct tune_engine *t, size_t i)
{
	const struct tune_step *s = &t->steps[i];
	const struct tune_record *r = s->record >= 0 ? &t->records[s->record] : NULL;

	json_object_begin(jw);
	json_key(jw, "step"); json_int(jw, (int64_t)i + 1);
	json_key(jw, "phase"); json_string(jw, tune_phase_name(s->phase));
	json_key(jw, "flag"); json_string(jw, s->flag >= 0 ? t->flags.v[s->flag] : NULL);
	json_key(jw, "cand"); set_json_flags(t, s->cand, jw);
	json_key(jw, "ref"); set_json_flags(t, s->ref, jw);
	json_key(jw, "verdict"); json_string(jw, tune_verdict_name(s->verdict));
	json_key(jw, "cached"); json_bool(jw, s->cached);
	json_key(jw, "outcome"); json_string(jw, r ? tune_outcome_name(r->e.outcome) : NULL);
	write_ratio(jw, "ratio", r ? r->e.ratio : NAN, r ? r->e.lo : NAN, r ? r->e.hi : NAN);
	json_key(jw, "builds"); json_int(jw, r ? r->e.builds : 0);
	json_key(jw, "build_seconds"); json_double(jw, r ? r->e.build_seconds : NAN);
	json_key(jw, "seconds"); json_double(jw, r ? r->e.seconds : NAN);
	json_key(jw, "note"); json_string(jw, r ? r->e.note : NULL);
	json_object_end(jw);
}

/* "best": its flags, policy, id and prefix, and how it did against stock. */
static void write_best(struct json_writer *jw, struct tuner *tu, const char *out_path)
{
	const struct tune_engine *t = &tu->t;
	char *id = tune_set_id(t, t->best), *pfx = tuner_set_prefix(tu, t->best);

	json_key(jw, "best");
	json_object_begin(jw);
	json_key(jw, "flags"); set_json_flags(t, t->best, jw);
	json_key(jw, "policy"); json_string(jw, out_path);
	json_key(jw, "id"); json_string(jw, id);
	json_key(jw, "prefix"); json_string(jw, pfx);
	if (t->final_record >= 0 && t->best) {
		const struct tune_record *r = &t->records[t->final_record];
		write_ratio(jw, "vs_stock", r->e.ratio, r->e.lo, r->e.hi);
	} else {
		json_key(jw, "vs_stock"); json_double(jw, t->best ? NAN : 1.0);
	}
	json_object_end(jw);
	free(id);
	free(pfx);
}

/* The best set against stock on one held-out workload. */
static void write_held(struct json_writer *jw, const struct tune_held *h)
{
	json_object_begin(jw);
	json_key(jw, "workload"); json_string(jw, h->workload);
	write_ratio(jw, "vs_stock", h->e.ratio, h->e.lo, h->e.hi);
	json_key(jw, "resolution"); json_double(jw, h->resolution);
	json_key(jw, "verdict"); json_string(jw, h->verdict);
	json_key(jw, "seconds"); json_double(jw, h->e.seconds);
	json_key(jw, "note"); json_string(jw, h->e.note);
	json_object_end(jw);
}

int tuner_write_json(struct tuner *tu, const char *path, const char *out_path)
{
	struct tune_engine *t = &tu->t;
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;

	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-tune");
	json_key(&jw, "version"); json_int(&jw, 1);
	write_search(&jw, tu);
	json_key(&jw, "steps");
	json_array_begin(&jw);
	for (size_t i = 0; i < t->nr_steps; i++)
		write_step(&jw, t, i);
	json_array_end(&jw);
	write_best(&jw, tu, out_path);
	json_key(&jw, "held_out");
	json_array_begin(&jw);
	for (size_t i = 0; i < tu->nr_held; i++)
		write_held(&jw, &tu->held[i]);
	json_array_end(&jw);
	json_key(&jw, "held_out_verdict"); json_string(&jw, tuner_held_overall(tu->held, tu->nr_held));
	json_key(&jw, "builds"); json_int(&jw, t->builds);
	json_key(&jw, "evaluation_seconds"); json_double(&jw, t->seconds);
	json_key(&jw, "new_evaluations"); json_int(&jw, t->new_evaluations);
	json_key(&jw, "wall_seconds"); json_double(&jw, clock_seconds() - tu->t0);
	json_key(&jw, "stop_reason"); json_string(&jw, t->stop_reason);
	return write_document(&jw, &sb, path);
}

int tuner_write_plan_json(const struct tuner *tu, const char *path, const char *policy_text)
{
	const struct tune_engine *t = &tu->t;
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;

	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-tune-plan");
	json_key(&jw, "version"); json_int(&jw, 1);
	json_key(&jw, "train"); json_string(&jw, tu->o.workload);
	json_key(&jw, "held_out"); json_strvec(&jw, &tu->o.held_out);
	json_key(&jw, "metric"); json_string(&jw, tu->o.metric);
	json_key(&jw, "scope"); json_string(&jw, tu->o.scope);
	json_key(&jw, "bundle"); json_string(&jw, tu->o.bundle);
	json_key(&jw, "resolution");
	/* NAN: no floor, a run would refuse (resolution_source says why) */
	if (tu->o.resolution_source && !isnan(t->p.resolution))
		json_double(&jw, t->p.resolution);
	else
		json_null(&jw);
	json_key(&jw, "resolution_source"); json_string(&jw, tu->o.resolution_source);
	json_key(&jw, "candidates_file"); json_string(&jw, tu->o.candidates);
	json_key(&jw, "candidates"); json_strvec(&jw, &t->flags);
	json_key(&jw, "refused"); json_strvec(&jw, &tu->refused);
	json_key(&jw, "start_policy"); json_string(&jw, policy_text);
	return write_document(&jw, &sb, path);
}
