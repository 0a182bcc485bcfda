/*
 * gate/verdict.c - the verdict every deciding command reads; see
 * verdict.h for the rule.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/verdict.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/textfile.h"
#include "wrapper/common/xalloc.h"

const struct gate_verdict_desc gate_verdicts[] = {
	{ "faster", "FASTER",
	  "every threshold is a claim of improvement, and every one was shown", PGBUILD_EXIT_OK },
	{ "not slower", "NOT SLOWER",
	  "passed; some threshold asked only \"not slower\" (a bound), and every bound's "
	  "interval lies wholly on its good side; any claims among the thresholds were shown "
	  "too, but the word claims no overall speedup", PGBUILD_EXIT_OK },
	{ "not shown slower", "NOT SHOWN SLOWER",
	  "passed, but a bound's interval reaches both sides of it, or a bound on "
	  "instructions or cycles was decided at the repeat resolution (no statistic): the "
	  "runs do not show it slower, nor that it is not", PGBUILD_EXIT_OK },
	{ "not shown faster", "NOT SHOWN FASTER",
	  "a claimed improvement was not reached (it may still be there, smaller)",
	  PGBUILD_EXIT_FAIL },
	{ "slower", "SLOWER", "significantly worse than the baseline on a bound",
	  PGBUILD_EXIT_FAIL },
	{ "failed", "FAILED",
	  "the candidate failed its regression suite or a correctness check", PGBUILD_EXIT_FAIL },
	{ "undecided", "UNDECIDED",
	  "the interval neither reaches nor rules out a claim (more pairs, or a smaller "
	  "claim), or a claim on instructions or cycles has no layout floor, or a bound on "
	  "them is missed only at the repeat resolution (--noise none), which relinking "
	  "alone can move",
	  PGBUILD_EXIT_UNDECIDED },
	{ "error", "COULD NOT MEASURE", "the runs could not be made or judged",
	  PGBUILD_EXIT_ERROR },
	{ NULL, NULL, NULL, 0 },
};

void gate_verdicts_help(FILE *fp)
{
	for (const struct gate_verdict_desc *d = gate_verdicts; d->word; d++) {
		fprintf(fp, "  %s (exit %d)\n", d->headline, d->exit);
		text_wrap(fp, 80, 6, 6, d->meaning);
	}
}

/* The first bound of g that failed, described, or 0. */
static int failed_bound(const struct gate *g, struct strbuf *why)
{
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		if (r->status != GATE_FAIL || gate_is_claim(r->th))
			continue;
		strbuf_addf(why, "%s is significantly worse than the baseline on %s: %s (%s)",
			    gate_kind_name(r->th->kind), r->workload, r->th->text,
			    r->message ? r->message : "its interval lies on the wrong side");
		return 1;
	}
	return 0;
}

/* Is every threshold of g a claim of improvement, and did each pass?
 * A gate that also asked only "not slower" somewhere is "not slower". */
static int claims_shown(const struct gate *g)
{
	for (size_t i = 0; i < g->nr_res; i++)
		if (!gate_is_claim(g->res[i].th) || g->res[i].status != GATE_PASS)
			return 0;
	return g->nr_res > 0;
}

/* Does every bound of g (a threshold that asks "not slower than X") that
 * passed have its whole interval on its good side, so that "not slower"
 * is shown and not merely "not shown slower"?  The interval the bound was
 * decided on (dlo, dhi: at the family's level, gate.h). */
static int bounds_shown(const struct gate *g)
{
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		if (gate_is_claim(r->th))
			continue;
		if (r->no_statistic)
			return 0;       /* the repeat resolution shows nothing */
		if (r->th->kind == GATE_LATENCY ? !(r->dhi <= r->th->value) :
		    !(r->dlo >= r->th->value))
			return 0;
	}
	return 1;
}

void gate_verdict_of(const struct gate *g, struct gate_verdict *v)
{
	struct strbuf why = STRBUF_INIT;

	gate_verdict_clear(v);
	v->status = g->verdict;
	v->ruled_out = 1;
	v->unmeasured = 0;
	if (g->regress == REGRESS_FAILED) {
		v->broken = 1;
		strbuf_addstr(&why, "the candidate failed its regression suite");
	}
	for (size_t k = 0; k < g->nr_wl && !why.len; k++)
		if (g->wl[k].correctness_failed) {
			v->broken = 1;
			strbuf_addf(&why, "a correctness check of workload %s failed on the candidate",
				    g->wl[k].name);
		}
	if (!why.len && (g->stopped || g->verdict == GATE_ERROR)) {
		v->unmeasured = 1;
		strbuf_addstr(&why, g->verdict_reason ? g->verdict_reason :
			      "the gate could not decide");
	}
	if (!why.len)
		v->slower = failed_bound(g, &why);
	if (!why.len) {
		v->ruled_out = 0;
		strbuf_addstr(&why, g->verdict_reason ? g->verdict_reason : "");
	}
	v->claims_shown = !v->ruled_out && claims_shown(g);
	v->bounds_shown = !v->ruled_out && bounds_shown(g);
	v->why = strbuf_detach(&why, NULL);
}

int gate_load(const char *path, struct gate *g, struct gate_verdict *v, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	gate_verdict_clear(v);
	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &text, err) < 0)
		goto out;
	if (gate_read_json(g, text.buf, text.len, err) < 0) {
		strbuf_addf(err, " (in %s)", path);
		goto out;
	}
	gate_verdict_of(g, v);
	rc = 0;
out:
	if (rc < 0)
		v->why = xasprintf("no gate result: %s", err->len ? err->buf : path);
	strbuf_release(&text);
	return rc;
}

const char *gate_verdict_word(const struct gate_verdict *v)
{
	if (v->broken)
		return "failed";
	if (v->unmeasured || v->status == GATE_ERROR)
		return "error";
	if (v->slower)
		return "slower";
	if (v->status == GATE_UNDECIDED)
		return "undecided";
	if (v->status == GATE_FAIL)
		return "not shown faster";
	return v->claims_shown ? "faster" : v->bounds_shown ? "not slower" : "not shown slower";
}

int gate_verdict_say(const char *path, FILE *fp)
{
	struct gate g;
	struct gate_verdict v = GATE_VERDICT_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc;

	gate_load(path, &g, &v, &err);
	fprintf(fp, "verdict: %s: %s\n", gate_verdict_word(&v), v.why ? v.why : "");
	rc = gate_exit_code(v.status);
	gate_clear(&g);
	gate_verdict_clear(&v);
	strbuf_release(&err);
	return rc;
}

const char *gate_verdict_headline(const struct gate_verdict *v)
{
	const char *w = gate_verdict_word(v);
	for (const struct gate_verdict_desc *d = gate_verdicts; d->word; d++)
		if (!strcmp(d->word, w))
			return d->headline;
	return "COULD NOT MEASURE";
}

void gate_verdict_clear(struct gate_verdict *v)
{
	free(v->why);
	v->why = NULL;
	v->status = GATE_ERROR;
	v->ruled_out = 1;
	v->broken = v->slower = 0;
	v->unmeasured = 1;
	v->claims_shown = v->bounds_shown = 0;
}

int gate_speedup(const struct gate *g, const char *wl, enum gate_kind kind, double *est,
		 double *lo, double *hi, const char **note)
{
	const struct gate_workload *w = NULL;
	struct stats_ratio ratio;
	const struct stats_ratio *r = NULL;

	*est = *lo = *hi = NAN;
	if (note)
		*note = NULL;
	for (size_t i = 0; i < g->nr_wl && !w; i++)
		if (!strcmp(g->wl[i].name, wl))
			w = &g->wl[i];
	if (!w)
		return -1;
	if (kind == GATE_TPS || kind == GATE_SERVER_CPU) {
		/* the interval the verdict is decided on (--pairs auto: the
		 * confidence sequence) */
		gate_ratio_of(g, w, kind, &ratio);
		r = &ratio;
	}
	if (r) {
		*est = r->estimate;
		*lo = r->ok ? r->lo : NAN;
		*hi = r->ok ? r->hi : NAN;
	} else if (kind == GATE_INSTRUCTIONS || kind == GATE_CYCLES) {
		int cyc = kind == GATE_CYCLES;
		double a = cyc ? w->cyc_a.estimate : w->instr_a, b = cyc ? w->cyc_b.estimate : w->instr_b;
		if ((cyc ? w->cycles : w->instr) == INSTR_OK && a > 0 && b > 0)
			*est = *lo = *hi = a / b;
		else if (note)
			*note = cyc ? w->cycles_note : w->instr_note;
	}
	return isfinite(*est) ? 0 : -1;
}

/* A speed ratio with its interval (tps B/A, server CPU A/B: > 1 better):
 * faster / slower when the whole interval says so. */
static void find_ratio(struct strbuf *out, const char *what, const char *better,
		       const char *worse, const struct stats_ratio *r, double conf, size_t m)
{
	strbuf_addf(out, "%s ", what);
	/* an end may be infinite: a confidence sequence unbounded on that side */
	if (!r->ok || isnan(r->lo) || isnan(r->hi)) {
		if (m > 1)
			strbuf_addf(out, "%.3f (no interval at %.4g%%, the level of %zu findings: "
				    "%zu pairs are too few)", r->estimate, conf * 100, m, r->n);
		else
			strbuf_addf(out, "%.3f (no interval: %zu pairs are too few)", r->estimate,
				    r->n);
		return;
	}
	if (r->lo > 1)
		strbuf_addf(out, "%s", better);
	else if (r->hi < 1)
		strbuf_addf(out, "%s", worse);
	else
		strbuf_addstr(out, "no significant difference");
	strbuf_addf(out, ", %.3f [%.3f, %.3f]", r->estimate, r->lo, r->hi);
	if (m > 1)      /* the findings' level (gate_findings_conf) */
		strbuf_addf(out, " (at %.4g%%: %zu findings)", conf * 100, m);
}

/* A per-transaction cost, A and B (a deterministic metric): the change of
 * B against A, beyond the resolution at the findings' level
 * (gate_resolution_at) or within it.  The repeat resolution without a
 * floor under it (--noise none) is no statistic and has no level: a
 * change beyond it is not called a finding (relinking alone moves more),
 * as a claim at it is undecided. */
static void find_cost(struct strbuf *out, const char *what, const char *less,
		      const char *more, double a, double b, const struct gate *g,
		      const struct gate_workload *w, enum gate_kind kind, size_t m)
{
	const char *src;
	double conf = gate_findings_conf(g);
	double res = gate_resolution_at(g, w, kind, conf, &src), change = b / a - 1;
	const char *what_res = !src ? "resolution" :
			       !strncmp(src, "layout floor", 12) ? "layout floor" :
			       strstr(src, "above the layout floor") ?
			       "repeat resolution (the layout floor is smaller)" :
			       "repeat resolution (no layout floor: --noise none)";

	strbuf_addf(out, "%s %.1f%% %s, ", what, fabs(change) * 100, change < 0 ? less : more);
	if (isnan(res)) {
		/* no layout floor: nothing is decided at the repeat resolution */
		strbuf_addstr(out, "not resolved: no layout floor");
		return;
	}
	if (!((kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res)->z > 0)) {
		strbuf_addf(out, "%s the %.2g%% %s", fabs(change) > res ? "beyond" : "within",
			    res * 100, what_res);
		if (fabs(change) > res)
			strbuf_addstr(out, ", which is no statistic: whether that is more than "
				      "relinking alone moves it, a layout floor says");
		return;
	}
	strbuf_addf(out, "%s the %.2g%% %s", fabs(change) > res ? "beyond" : "within",
		    res * 100, what_res);
	if (m > 1 && conf != g->conf)   /* rescaled to the findings' level */
		strbuf_addf(out, " (at %.4g%%: %zu findings)", conf * 100, m);
}

void gate_findings(const struct gate *g, struct strbuf *out)
{
	size_t m = g->uncorrected ? 1 : gate_findings_size(g);
	double conf = gate_findings_conf(g);

	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		size_t start = out->len;
		struct stats_ratio r;
		strbuf_addf(out, "%s: ", w->name);
		if (w->valid_pairs) {
			/* the interval at the findings' level
			 * (gate_ratio_found): with --pairs auto the
			 * confidence sequence, not the fixed interval */
			gate_ratio_found(g, w, GATE_TPS, &r);
			find_ratio(out, "tps", "faster", "slower", &r, conf, m);
			if (w->cpu.n) {
				strbuf_addstr(out, "; ");
				gate_ratio_found(g, w, GATE_SERVER_CPU, &r);
				find_ratio(out, "server CPU per transaction", "lower", "higher", &r,
					   conf, m);
			}
		}
		if (w->cycles == INSTR_OK && w->cyc_a.estimate > 0 && w->cyc_b.estimate > 0) {
			strbuf_addstr(out, out->len > start + strlen(w->name) + 2 ? "; " : "");
			find_cost(out, "cycles estimate", "lower", "higher", w->cyc_a.estimate,
				  w->cyc_b.estimate, g, w, GATE_CYCLES, m);
		}
		if (w->instr == INSTR_OK && w->instr_a > 0 && w->instr_b > 0) {
			strbuf_addstr(out, out->len > start + strlen(w->name) + 2 ? "; " : "");
			find_cost(out, "instructions", "fewer", "more", w->instr_a, w->instr_b, g, w,
				  GATE_INSTRUCTIONS, m);
		}
		if (w->correctness_failed)
			strbuf_addstr(out, "; a correctness check FAILED on the candidate");
		if (out->len == start + strlen(w->name) + 2)
			strbuf_addstr(out, "nothing measured");
		strbuf_addch(out, '\n');
	}
	if (g->regress == REGRESS_NOT_RUN)
		strbuf_addstr(out, "regression suite: not run\n");
	else
		strbuf_addf(out, "%s\n", g->regress_note ? g->regress_note :
			    g->regress == REGRESS_PASSED ? "regression suite passed" :
			    "regression suite FAILED");
}
