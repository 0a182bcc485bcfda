/*
 * gate/expr.c - the pure part of the gate: per-pair analysis and the
 * verdict on the threshold expressions threshold.c parses, with the
 * family correction over one gate run's tests (Holm's step-down; see
 * gate.h for the rules).  Nothing here runs a process or touches a file,
 * so unit tests drive it with synthetic runs (test-gate.c,
 * test-gate-family.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/metric/metrics.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "pgbuild/gate/gate.h"
#include "wrapper/common/xalloc.h"

const char *const gate_lat_keys[GATE_NLAT] = { "avg", "p50", "p90", "p99", "p999", "max" };

int gate_lat_index(const char *key)
{
	for (int i = 0; i < GATE_NLAT; i++)
		if (!strcmp(gate_lat_keys[i], key))
			return i;
	return -1;
}

const char *gate_status_name(enum gate_status s)
{
	return s == GATE_PASS ? "pass" : s == GATE_FAIL ? "fail" :
	       s == GATE_UNDECIDED ? "undecided" : "error";
}

int gate_exit_code(enum gate_status verdict)
{
	return verdict == GATE_PASS ? 0 : verdict == GATE_FAIL ? 1 :
	       verdict == GATE_UNDECIDED ? PGBUILD_EXIT_UNDECIDED : 2;
}

/* ---------------- measurements ---------------- */

struct gate_workload *gate_workload_get(struct gate *g, const char *name, int create)
{
	struct gate_workload *w;
	for (size_t i = 0; i < g->nr_wl; i++)
		if (!strcmp(g->wl[i].name, name))
			return &g->wl[i];
	if (!create)
		return NULL;
	ALLOC_GROW(g->wl, g->nr_wl + 1, g->alloc_wl);
	w = &g->wl[g->nr_wl++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup(name);
	return w;
}

struct gate_run *gate_workload_add_run(struct gate_workload *w)
{
	struct gate_run *r;
	ALLOC_GROW(w->runs, w->nr_runs + 1, w->alloc_runs);
	r = &w->runs[w->nr_runs++];
	memset(r, 0, sizeof(*r));
	r->tps = NAN;
	r->server_cpu_us = NAN;
	for (int i = 0; i < GATE_NLAT; i++)
		r->lat[i] = NAN;
	return r;
}

static int run_usable(const struct gate_run *r)
{
	return r && r->exit == 0 && isfinite(r->tps) && r->tps > 0;
}

/* The highest pair number of w's runs, -1 without runs. */
static int last_pair(const struct gate_workload *w)
{
	int max_pair = -1;
	for (size_t i = 0; i < w->nr_runs; i++)
		if (w->runs[i].pair > max_pair)
			max_pair = w->runs[i].pair;
	return max_pair;
}

/*
 * The pairs a ratio of kind reads, as stats_ratio_ci's a and b (room for
 * last_pair() + 1 each): throughput and latency lat, B/A, over the pairs
 * whose two runs are usable; server CPU per transaction, A/B (so a is B's
 * figure, b A's), over those of them with both figures.  The one place a
 * ratio's pairs are taken, at whatever level they are analysed.  Returns
 * how many.
 */
static size_t ratio_pairs(const struct gate_workload *w, enum gate_kind kind, int lat,
			  double *a, double *b)
{
	int max_pair = last_pair(w);
	size_t n = 0;

	for (int p = 0; p <= max_pair; p++) {
		const struct gate_run *ra = NULL, *rb = NULL;
		for (size_t i = 0; i < w->nr_runs; i++) {
			if (w->runs[i].pair != p)
				continue;
			if (w->runs[i].build == 'A')
				ra = &w->runs[i];
			else
				rb = &w->runs[i];
		}
		if (!run_usable(ra) || !run_usable(rb))
			continue;
		if (kind == GATE_SERVER_CPU) {
			if (!(ra->server_cpu_us > 0 && rb->server_cpu_us > 0 &&
			      isfinite(ra->server_cpu_us) && isfinite(rb->server_cpu_us)))
				continue;
			a[n] = rb->server_cpu_us;
			b[n++] = ra->server_cpu_us;
		} else if (kind == GATE_LATENCY) {
			a[n] = ra->lat[lat];
			b[n++] = rb->lat[lat];
		} else {
			a[n] = ra->tps;
			b[n++] = rb->tps;
		}
	}
	return n;
}

/* The ratio of kind (and latency lat) of w at confidence conf, into out;
 * returns the pairs it is over. */
static size_t ratio_at(const struct gate *g, const struct gate_workload *w, enum gate_kind kind,
		       int lat, double conf, struct stats_ratio *out)
{
	size_t room = (size_t)last_pair(w) + 2, n;
	double *a = xcalloc(room, sizeof(double)), *b = xcalloc(room, sizeof(double));

	n = ratio_pairs(w, kind, lat, a, b);
	stats_ratio_ci(a, b, n, g->method, conf, out);
	free(a);
	free(b);
	return n;
}

static void analyse_workload(struct gate *g, struct gate_workload *w)
{
	size_t room = (size_t)last_pair(w) + 2, n, nc, na = 0, nb = 0;
	double *x = xcalloc(room, sizeof(double)), *y = xcalloc(room, sizeof(double));
	double *all_a = xcalloc(w->nr_runs + 1, sizeof(double));
	double *all_b = xcalloc(w->nr_runs + 1, sizeof(double));

	w->valid_pairs = 0;
	w->correctness_failed = 0;
	w->run_errors = 0;
	for (size_t i = 0; i < w->nr_runs; i++) {
		const struct gate_run *r = &w->runs[i];
		if (r->exit == 1 && r->build == 'B')
			w->correctness_failed = 1;
		else if (!run_usable(r))
			w->run_errors++;
	}
	/* A/B: B's figures as a, A's as b (ratio_pairs); > 1 = B cheaper */
	nc = ratio_pairs(w, GATE_SERVER_CPU, 0, x, y);
	stats_ratio_ci(x, y, nc, g->method, g->conf, &w->cpu);
	w->cpu_a_median = stats_median(y, nc);
	w->cpu_b_median = stats_median(x, nc);
	for (int k = 0; k < GATE_NLAT; k++) {
		n = ratio_pairs(w, GATE_LATENCY, k, x, y);
		stats_ratio_ci(x, y, n, g->method, g->conf, &w->lat[k]);
		w->lat_a_median[k] = stats_median(x, n);
		w->lat_b_median[k] = stats_median(y, n);
	}
	n = ratio_pairs(w, GATE_TPS, 0, x, y);
	w->valid_pairs = n;
	stats_ratio_ci(x, y, n, g->method, g->conf, &w->tps);

	/* per-build medians over every usable run */
	for (size_t i = 0; i < w->nr_runs; i++) {
		if (!run_usable(&w->runs[i]))
			continue;
		if (w->runs[i].build == 'A')
			all_a[na++] = w->runs[i].tps;
		else
			all_b[nb++] = w->runs[i].tps;
	}
	w->tps_a_median = stats_median(all_a, na);
	w->tps_b_median = stats_median(all_b, nb);

	free(x);
	free(y);
	free(all_a);
	free(all_b);
}

void gate_analyse(struct gate *g)
{
	for (size_t i = 0; i < g->nr_wl; i++)
		analyse_workload(g, &g->wl[i]);
}

/* ---------------- decisions ---------------- */

static struct gate_result *add_result(struct gate *g, const struct gate_threshold *t,
				      const char *workload)
{
	struct gate_result *r;
	ALLOC_GROW(g->res, g->nr_res + 1, g->alloc_res);
	r = &g->res[g->nr_res++];
	memset(r, 0, sizeof(*r));
	r->th = t;
	r->workload = workload;
	r->observed = r->lo = r->hi = r->resolution = NAN;
	r->p_value = r->alpha = r->alpha_adjusted = r->conf_adjusted = r->dlo = r->dhi = NAN;
	return r;
}

/*
 * The one decision rule of every threshold (gate.h): the metric's interval
 * [lo, hi] against the threshold.  A claim passes only when the whole
 * interval lies on its good side (speed: lo >= X; latency: hi <= X), so a
 * claim above what was observed never passes; a bound fails only when the
 * whole interval lies on its bad side.
 */
static enum gate_status interval_verdict(const struct gate_threshold *t, double lo, double hi)
{
	int lower_better = t->kind == GATE_LATENCY;
	if (gate_is_claim(t))
		return (lower_better ? hi <= t->value : lo >= t->value) ? GATE_PASS : GATE_FAIL;
	return (lower_better ? lo > t->value : hi < t->value) ? GATE_FAIL : GATE_PASS;
}

/*
 * A deterministic metric's ratio (instructions, the cycles estimate: A/B,
 * one number per build) decided by interval_verdict on its relative
 * interval [observed x (1 - r), observed x (1 + r)], r the resolution
 * (noise/floor.h's rule): a relative error, so a 1.2x ratio is as wide as
 * 1.0x in percent.  No floor (r NAN): undecided.  A claim at a resolution
 * that is no statistic (statistic 0: the repeat one, --noise none or a
 * default) is undecided too: relinking alone moves the cycles estimate by
 * 0.3-0.7%, far beyond the repeat resolution, so a no-change candidate
 * would pass a claim of 1% 15-43% of the time.  A bound there passes
 * when its interval reaches its good side (a floor would only widen the
 * interval: it passes with one too), but it is never shown (no_statistic:
 * "not shown slower", verdict.c), and a loss beyond the repeat resolution
 * is undecided, not a failure: it may be no more than relinking moves the
 * binary, which only a layout floor tells.  Fills observed, lo, hi and
 * status.
 */
static void decide_point(struct gate_result *res, double observed, double resolution,
			 const char *source, int statistic)
{
	res->observed = observed;
	res->resolution = resolution;
	res->resolution_source = source;
	if (isnan(resolution) || (!statistic && gate_is_claim(res->th))) {
		res->lo = res->hi = NAN;
		res->status = GATE_UNDECIDED;
		return;
	}
	res->lo = observed * (1 - resolution);
	res->hi = observed * (1 + resolution);
	res->status = interval_verdict(res->th, res->lo, res->hi);
	res->no_statistic = !statistic;
	if (!statistic && res->status == GATE_FAIL)
		res->status = GATE_UNDECIDED;
}

/* Why a bound missed at the repeat resolution is undecided (decide_point). */
static const char bound_no_floor[] =
	"worse only beyond the repeat resolution, which is no statistic: relinking "
	"alone moves the binary by more (the cycles estimate 0.3-0.7%), so whether it "
	"is slower needs a layout floor (`pgbuild noise`, or --noise-variants in "
	"run/optimize)";

/* How a deterministic decision reads: "1.0492, lower end 1.0387 < 1.05 (...,
 * at the 1% resolution: layout floor: ...)", or undecided without a floor. */
static void describe_point(struct strbuf *sb, const struct gate_result *res)
{
	int claim = gate_is_claim(res->th);
	if (res->status == GATE_UNDECIDED && !claim && !isnan(res->lo)) {
		strbuf_addf(sb, "%.4f, upper end %.4f < %g at the %.2g%% resolution (%s): "
			    "undecided, %s", res->observed, res->hi, res->th->value,
			    res->resolution * 100, res->resolution_source, bound_no_floor);
		return;
	}
	if (res->status == GATE_UNDECIDED && !isnan(res->resolution)) {
		strbuf_addf(sb, "%.4f: undecided against %g: a claim needs a layout floor "
			    "(`pgbuild noise`, or --noise-variants in run/optimize); the repeat "
			    "resolution (%s) can only check a bound", res->observed,
			    res->th->value, res->resolution_source);
		return;
	}
	if (res->status == GATE_UNDECIDED) {
		strbuf_addf(sb, "%.4f: undecided against %g: %s", res->observed, res->th->value,
			    res->resolution_source);
		return;
	}
	strbuf_addf(sb, "%.4f, %s end %.4f %s %g (%s, at the %.2g%% resolution, relative: %s)",
		    res->observed, claim ? "lower" : "upper", claim ? res->lo : res->hi,
		    res->status == GATE_PASS ? ">=" : "<", res->th->value,
		    claim ? "a claim passes when its lower end reaches it" :
		    "a bound fails when its upper end is below it", res->resolution * 100,
		    res->resolution_source);
}

double gate_resolution_of(const struct gate_workload *w, enum gate_kind kind,
			  const char **source)
{
	const struct gate_resolution *r = kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res;
	if ((r->value > 0 || isnan(r->value)) && r->source) {
		*source = r->source;
		return r->value;
	}
	*source = metrics_of(gate_kind_metric(kind))->resolution_text;
	return metrics_of(gate_kind_metric(kind))->resolution;
}

void gate_set_resolution(struct gate_workload *w, enum gate_kind kind, double value,
			 const char *source)
{
	struct gate_resolution *r = kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res;
	free(r->source);
	r->value = source && (value > 0 || isnan(value)) ? value : 0;
	r->source = r->value != 0 ? xstrdup(source) : NULL;
	r->z = 0;
}

void gate_set_resolution_z(struct gate_workload *w, enum gate_kind kind, double z, double df)
{
	struct gate_resolution *r = kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res;
	r->z = z > 0 && isfinite(z) && r->value > 0 ? z : 0;
	r->df = !(r->z > 0) ? 0 : df > 0 && isfinite(df) ? df : GATE_RESOLUTION_DF;
}

/* Is w's resolution of kind a statistic (a layout floor's, built at
 * some z), so its thresholds are tests of the family?  Not the repeat
 * one (--noise none, a library default: z 0), nor none (NAN). */
static int resolution_statistic(const struct gate_workload *w, enum gate_kind kind)
{
	const struct gate_resolution *rr = kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res;
	return rr->z > 0 && rr->value > 0;
}

/* What a deterministic decision at a resolution that is no statistic
 * adds to its message. */
static void describe_no_statistic(struct strbuf *sb, const struct gate_result *res,
				  const struct gate_workload *w, enum gate_kind kind)
{
	if (res->status != GATE_UNDECIDED && !resolution_statistic(w, kind))
		strbuf_addstr(sb, "; decided at the repeat resolution: no statistic, so no test "
			      "of the family, not corrected, and not shown (\"not shown slower\" "
			      "at best)");
}

/*
 * The resolution of w's deterministic kind at confidence conf, when the
 * family correction decides at another level than the gate's (conf !=
 * g->conf): r x t_df((1 + conf) / 2) / t_df(Phi(z)), z the quantile it
 * was built at and df its SDs' degrees of freedom (Student's t: the SD
 * is a sample SD of df + 1 variants, so the normal ratio z(conf) / z
 * widened too little at a smaller level), never below the repeat
 * resolution.  For the rule's max(repeat, z x s) that is exact below z
 * and conservative above it (the repeat part scaled too).  A resolution
 * that is no statistic (z 0: --noise none, a default) is the same at
 * every level; so is NAN (no floor).
 */
static double resolution_at(const struct gate *g, const struct gate_workload *w,
			    enum gate_kind kind, double conf, const char **source)
{
	const struct gate_resolution *rr = kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res;
	double r = gate_resolution_of(w, kind, source);
	double repeat = metrics_of(gate_kind_metric(kind))->resolution;

	if (conf == g->conf || !(rr->z > 0) || !(r > 0))
		return r;
	return fmax(repeat, r * stats_t_quantile((1 + conf) / 2, rr->df) /
		    stats_t_quantile(0.5 * erfc(-rr->z / M_SQRT2), rr->df));
}

/*
 * A ratio with an interval (throughput, latency: B/A; server CPU: A/B, as
 * dir says) over pairs valid pairs.  At a level the family correction
 * asks for (r's confidence not the gate's), too few pairs for an interval
 * there is no error (there is one at the gate's level) but no test
 * either: undecided (exit 3), never a pass, so a bound is not "not
 * slower" where nothing could have shown it slower (cmd/gate.c and
 * preflight_pairs refuse such --pairs before the first build).
 */
static void decide_ratio(struct gate *g, struct gate_result *res, size_t pairs,
			 const struct stats_ratio *r, const char *what, const char *dir,
			 double conf)
{
	const struct gate_threshold *t = res->th;
	int lower_better = t->kind == GATE_LATENCY;
	int claim = gate_is_claim(t);
	const char *rel = lower_better ? "<=" : ">=";

	if (pairs >= g->min_pairs && !r->ok && conf != g->conf) {
		res->observed = r->estimate;
		res->lo = 0;
		res->hi = INFINITY;
		res->status = GATE_UNDECIDED;
		res->message = xasprintf("%s %s %.4f: %zu pairs give no %.4g%% interval, so the "
					 "%s is untested (undecided; %zu pairs needed)", what, dir,
					 r->estimate, pairs, conf * 100, claim ? "claim" : "bound",
					 gate_pairs_needed(conf, 1));
		return;
	}
	if (pairs < g->min_pairs || !r->ok) {
		res->status = GATE_ERROR;
		res->observed = r->n ? r->estimate : NAN;
		res->message = xasprintf("%s: only %zu valid pair%s (%zu needed for a %.0f%% interval)",
					 what, pairs, pairs == 1 ? "" : "s",
					 g->min_pairs, g->conf * 100);
		return;
	}
	res->observed = r->estimate;
	res->lo = r->lo;
	res->hi = r->hi;

	if (claim) {
		/*
		 * One-sided test against the threshold itself: the whole interval
		 * must lie on the good side of X, so "B/A >= 1.05" passes only
		 * when the lower end is >= 1.05 (a latency claim: upper end <= X).
		 */
		int reaches = lower_better ? r->estimate <= t->value : r->estimate >= t->value;
		double end = lower_better ? r->hi : r->lo;
		res->status = interval_verdict(t, r->lo, r->hi);
		if (res->status == GATE_PASS) {
			res->message = xasprintf("%s %s %.4f [%.4f, %.4f]: the %s end %.4f %s %g at "
						 "%.1f%% confidence", what, dir, r->estimate, r->lo, r->hi,
						 lower_better ? "upper" : "lower", end, rel, t->value,
						 r->conf * 100);
		} else if (!reaches) {
			res->message = xasprintf("%s %s %.4f [%.4f, %.4f] misses %s %g", what, dir,
						 r->estimate, r->lo, r->hi, rel, t->value);
		} else {
			res->message = xasprintf("%s %s %.4f reaches %s %g but not with %.1f%% confidence: "
						 "the %s end of its interval [%.4f, %.4f] does not (noise "
						 "floor %.1f%%; more pairs or a quieter machine needed)", what, dir,
						 r->estimate, rel, t->value, r->conf * 100,
						 lower_better ? "upper" : "lower", r->lo, r->hi,
						 r->noise_floor_pct);
		}
	} else {
		int breach;
		res->status = interval_verdict(t, r->lo, r->hi);
		breach = res->status == GATE_FAIL;
		/* a bound that claims no gain: it fails only on a significant loss */
		res->message = xasprintf("%s %s %.4f [%.4f, %.4f]: %ssignificantly %s %g", what, dir,
					 r->estimate, r->lo, r->hi, breach ? "" : "not ",
					 lower_better ? "above" : "below", t->value);
	}
}

int gate_any_cycles(const struct gate *g)
{
	for (size_t i = 0; i < g->nr_wl; i++)
		if (g->wl[i].cycles != INSTR_NOT_MEASURED)
			return 1;
	return 0;
}

void gate_cycles_rows(const struct gate_workload *w, double *a, double *b)
{
	cycles_tx_values(&w->cyc_a, a);
	cycles_tx_values(&w->cyc_b, b);
}

/* "instructions 92230/91538/1.0076, I1 misses ..." of A and B. */
void gate_cycles_describe(const struct gate_workload *w, struct strbuf *sb)
{
	const struct metric_desc *m = metrics_of(METRIC_CYCLES);
	double va[GATE_CYCLES_ROWS], vb[GATE_CYCLES_ROWS];
	gate_cycles_rows(w, va, vb);
	strbuf_addstr(sb, "per transaction A/B/ratio A/B: ");
	for (size_t i = 0; i < m->nrows; i++)
		strbuf_addf(sb, "%s%s %.*f/%.*f/%.4f", i ? ", " : "", m->rows[i].label,
			    va[i] < 100 ? 2 : 0, va[i], vb[i] < 100 ? 2 : 0, vb[i],
			    vb[i] > 0 ? va[i] / vb[i] : NAN);
}

/* The cycles estimate: one number per build, compared at its resolution
 * (gate_resolution_of: CYCLES_RESOLUTION, or the layout floor's) at conf
 * (resolution_at). */
static void decide_cycles(const struct gate *g, struct gate_result *res,
			  const struct gate_workload *w, double conf)
{
	struct strbuf sb = STRBUF_INIT;
	const char *source;
	double res_value;
	if (w->cycles != INSTR_OK || !(w->cyc_a.estimate > 0 && w->cyc_b.estimate > 0)) {
		res->status = GATE_ERROR;
		res->message = xasprintf("%s %s%s%s", metrics_of(METRIC_CYCLES)->label,
					 w->cycles == INSTR_NOT_MEASURED ? "was not measured" : "unavailable",
					 w->cycles_note ? ": " : "", w->cycles_note ? w->cycles_note : "");
		return;
	}
	res_value = resolution_at(g, w, GATE_CYCLES, conf, &source);
	decide_point(res, w->cyc_a.estimate / w->cyc_b.estimate, res_value, source,
		     resolution_statistic(w, GATE_CYCLES));
	strbuf_addf(&sb, "%s %s %.0f/%.0f = ", metrics_of(METRIC_CYCLES)->title,
		    metrics_of(METRIC_CYCLES)->ratio, w->cyc_a.estimate, w->cyc_b.estimate);
	describe_point(&sb, res);
	describe_no_statistic(&sb, res, w, GATE_CYCLES);
	strbuf_addstr(&sb, "; ");
	gate_cycles_describe(w, &sb);
	strbuf_addf(&sb, "; %s", metrics_of(METRIC_CYCLES)->method);
	res->message = strbuf_detach(&sb, NULL);
}

/* Instructions per transaction A/B, compared at their resolution
 * (GATE_INSTR_RESOLUTION, or the layout floor's) at conf (resolution_at). */
static void decide_instructions(const struct gate *g, struct gate_result *res,
				const struct gate_workload *w, double conf)
{
	struct strbuf sb = STRBUF_INIT;
	const char *source;
	double res_value;
	if (w->instr != INSTR_OK || !(w->instr_a > 0 && w->instr_b > 0)) {
		res->status = GATE_ERROR;
		res->message = xasprintf("%s %s%s%s", metrics_of(METRIC_INSTR)->title,
					 w->instr == INSTR_NOT_MEASURED ? "were not measured" : "unavailable",
					 w->instr_note ? ": " : "", w->instr_note ? w->instr_note : "");
		return;
	}
	res_value = resolution_at(g, w, GATE_INSTRUCTIONS, conf, &source);
	decide_point(res, w->instr_a / w->instr_b, res_value, source,
		     resolution_statistic(w, GATE_INSTRUCTIONS));
	strbuf_addf(&sb, "%s %s %.0f/%.0f = ", metrics_of(METRIC_INSTR)->title,
		    metrics_of(METRIC_INSTR)->ratio, w->instr_a, w->instr_b);
	describe_point(&sb, res);
	describe_no_statistic(&sb, res, w, GATE_INSTRUCTIONS);
	res->message = strbuf_detach(&sb, NULL);
}

/*
 * Decide res on w at confidence conf: the gate's own (g->conf: the
 * figures computed by gate_analyse) or a level the family correction
 * asks for (the ratio taken again at it, the resolution rescaled).
 */
static void decide_one(struct gate *g, struct gate_result *res, const struct gate_workload *w,
		       double conf)
{
	const struct gate_threshold *t = res->th;
	struct stats_ratio at;
	const struct stats_ratio *r;
	size_t pairs;

	if (!w) {
		res->status = GATE_ERROR;
		res->message = xasprintf("workload \"%s\" was not measured", res->workload);
		return;
	}
	if (g->sequential && (t->kind == GATE_TPS || t->kind == GATE_LATENCY ||
			      t->kind == GATE_SERVER_CPU)) {
		gate_decide_sequential(g, res, w, conf);
		return;
	}
	if (t->kind == GATE_CYCLES) {
		decide_cycles(g, res, w, conf);
		return;
	}
	if (t->kind == GATE_INSTRUCTIONS) {
		decide_instructions(g, res, w, conf);
		return;
	}
	/* the ratio kinds: analysed at the gate's level, else again at conf */
	r = t->kind == GATE_TPS ? &w->tps : t->kind == GATE_LATENCY ? &w->lat[t->lat] : &w->cpu;
	pairs = t->kind == GATE_SERVER_CPU ? w->cpu.n : w->valid_pairs;
	if (conf != g->conf) {
		pairs = ratio_at(g, w, t->kind, t->lat, conf, &at);
		r = &at;
	}
	if (t->kind == GATE_TPS) {
		decide_ratio(g, res, pairs, r, gate_kind_name(GATE_TPS),
			     metrics_of(METRIC_TPS)->ratio, conf);
	} else if (t->kind == GATE_LATENCY) {
		char what[32];
		snprintf(what, sizeof(what), "%s latency", gate_lat_keys[t->lat]);
		decide_ratio(g, res, pairs, r, what,
			     metrics_figure(METRIC_TPS, METRIC_TPS_LATENCY)->ratio, conf);
	} else {
		const struct metric_figure *f = metrics_figure(METRIC_TPS, METRIC_TPS_CPU);
		char what[64];
		snprintf(what, sizeof(what), "%s per transaction", f->name);
		decide_ratio(g, res, pairs, r, what, f->ratio, conf);
	}
}

/*
 * A run that errored (bench exit 2: clients aborted, as a crashed backend
 * gives) or produced no number makes the whole gate "could not measure",
 * even when enough pairs are left for an interval: a crash of either build
 * must never pass, nor be outvoted by the runs that survived.  Appends the
 * reason, naming the runs, to why; nothing when every run gave a number.
 */
static void describe_run_errors(struct gate *g, struct strbuf *why)
{
	size_t listed = 0, total = 0;
	struct strbuf list = STRBUF_INIT;
	for (size_t k = 0; k < g->nr_wl; k++) {
		const struct gate_workload *w = &g->wl[k];
		if (!w->run_errors)     /* counted by gate_analyse() */
			continue;
		total += w->run_errors;
		for (size_t i = 0; i < w->nr_runs && listed < 6; i++) {
			const struct gate_run *r = &w->runs[i];
			/* a correctness failure of B is a FAIL, decided before */
			if (run_usable(r) || (r->exit == 1 && r->build == 'B'))
				continue;
			if (listed++)
				strbuf_addstr(&list, ", ");
			strbuf_addf(&list, "%s pair %d %c (", w->name, r->pair + 1, r->build);
			if (r->exit)
				strbuf_addf(&list, "exit %d)", r->exit);
			else
				strbuf_addstr(&list, "no number)");
		}
	}
	if (total) {
		strbuf_addf(why, "%zu benchmark run%s failed: %s%s", total, total == 1 ? "" : "s",
			    list.buf, total > listed ? ", ..." : "");
		g->verdict = GATE_ERROR;
	}
	strbuf_release(&list);
}

/*
 * Why the gate is undecided, from its first undecided result: a
 * deterministic threshold without a layout floor, a confidence sequence
 * that ended inconsistent, or the --pairs auto budget.
 */
static void describe_undecided(const struct gate *g, struct strbuf *why)
{
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		if (r->status != GATE_UNDECIDED)
			continue;
		if (r->th->kind == GATE_INSTRUCTIONS || r->th->kind == GATE_CYCLES) {
			strbuf_addf(why, "undecided: %s on %s: %s", r->th->text, r->workload,
				    !gate_is_claim(r->th) && !isnan(r->lo) ? bound_no_floor :
				    r->resolution_source ? r->resolution_source : "no layout floor");
			return;
		}
		if (!g->sequential) {
			strbuf_addf(why, "undecided: %s on %s: %s", r->th->text, r->workload,
				    r->message ? r->message : "no interval at its level");
			return;
		}
		if (r->seq_inconsistent) {
			strbuf_addf(why, "undecided: %s on %s: not significant, the confidence "
				    "sequence is inconsistent (%s)", r->th->text, r->workload,
				    r->message ? r->message : "");
			return;
		}
	}
	strbuf_addf(why, "undecided: the budget ended with a threshold inside the "
		    "confidence sequence (%s)", g->seq_stop ? g->seq_stop : "stopped");
}

/* ---------------- the family (gate.h) ---------------- */

/* w of g by name (NULL: not measured). */
static const struct gate_workload *find_workload(const struct gate *g, const char *name)
{
	for (size_t i = 0; i < g->nr_wl; i++)
		if (!strcmp(g->wl[i].name, name))
			return &g->wl[i];
	return NULL;
}

/* Is threshold t on workload w (NULL: not measured) a test of the
 * family, one that can decide at some level?  Not without a layout floor,
 * nor at a resolution that is no statistic (the repeat one: --noise none;
 * decided as it is, at every level), nor on a workload not measured:
 * known before the data. */
static int in_family(const struct gate_threshold *t, const struct gate_workload *w)
{
	if (!w)
		return 0;
	if (t->kind == GATE_INSTRUCTIONS || t->kind == GATE_CYCLES)
		return resolution_statistic(w, t->kind);
	return 1;
}

size_t gate_family_size(const struct gate *g)
{
	size_t m = 0;
	/* the results gate_decide makes, in its order */
	for (size_t i = 0; i < g->th.nr; i++) {
		const struct gate_threshold *t = &g->th.v[i];
		if (t->workload) {
			m += (size_t)in_family(t, find_workload(g, t->workload));
			continue;
		}
		for (size_t k = 0; k < g->nr_wl; k++)
			m += (size_t)in_family(t, &g->wl[k]);
	}
	return m;
}

double gate_seq_conf(const struct gate *g)
{
	size_t m = g->uncorrected ? 1 : gate_family_size(g);
	return m > 1 ? 1 - (1 - g->conf) / (double)m : g->conf;
}

size_t gate_findings_size(const struct gate *g)
{
	size_t m = 0;
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		m += w->valid_pairs > 0;
		m += w->valid_pairs > 0 && w->cpu.n > 0;
		m += w->cycles == INSTR_OK && resolution_statistic(w, GATE_CYCLES);
		m += w->instr == INSTR_OK && resolution_statistic(w, GATE_INSTRUCTIONS);
	}
	return m;
}

double gate_findings_conf(const struct gate *g)
{
	size_t m = g->uncorrected ? 1 : gate_findings_size(g);
	return m > 1 ? 1 - (1 - g->conf) / (double)m : g->conf;
}

void gate_ratio_found(const struct gate *g, const struct gate_workload *w, enum gate_kind kind,
		      struct stats_ratio *out)
{
	double conf = gate_findings_conf(g);

	if (conf == g->conf) {
		gate_ratio_of(g, w, kind, out);
		return;
	}
	if (g->sequential) {
		*out = kind == GATE_SERVER_CPU ? w->cpu : w->tps;
		gate_seq_ratio(w, kind, conf, out);
		return;
	}
	ratio_at(g, w, kind, -1, conf, out);
}

double gate_resolution_at(const struct gate *g, const struct gate_workload *w,
			  enum gate_kind kind, double conf, const char **source)
{
	return resolution_at(g, w, kind, conf, source);
}

size_t gate_pairs_needed(double conf, size_t m)
{
	size_t n = 1;
	if (m < 1)
		m = 1;
	while (ldexp(1.0, -(int)n) > (1 - conf) / 2 / (double)m + 1e-12)
		n++;
	return n < GATE_MIN_PAIRS ? GATE_MIN_PAIRS : n;
}

size_t gate_family_bound(const struct gate_thresholds *th, const struct strvec *workloads,
			 int noise_none)
{
	size_t m = 0, measured = workloads ? workloads->nr : 0;

	/* the workloads measured: those given and every one a threshold
	 * names (the gate measures both), else the default one */
	for (size_t i = 0; i < th->nr; i++) {
		int seen = 0;
		if (!th->v[i].workload)
			continue;
		for (size_t k = 0; workloads && k < workloads->nr && !seen; k++)
			seen = !strcmp(workloads->v[k], th->v[i].workload);
		for (size_t k = 0; k < i && !seen; k++)
			seen = th->v[k].workload && !strcmp(th->v[k].workload, th->v[i].workload);
		measured += !seen;
	}
	for (size_t i = 0; i < th->nr; i++) {
		const struct gate_threshold *t = &th->v[i];
		if (noise_none && (t->kind == GATE_INSTRUCTIONS || t->kind == GATE_CYCLES))
			continue;       /* the repeat resolution: no statistic */
		if (t->workload)
			m++;
		else
			m += measured ? measured : 1;
	}
	return m;
}

size_t gate_family_min_pairs(const struct gate *g)
{
	size_t m = g->uncorrected ? 1 : gate_family_size(g), n;
	if (m <= 1)
		return g->min_pairs;
	n = gate_pairs_needed(g->conf, m);
	return n > g->min_pairs ? n : g->min_pairs;
}

/* Does r show what it tests: a claim passed, a bound failed (shown worse)? */
static int shown(const struct gate_result *r)
{
	return gate_is_claim(r->th) ? r->status == GATE_PASS : r->status == GATE_FAIL;
}

/* Would res, decided on w at confidence conf, show it?  res untouched. */
static int shown_at(struct gate *g, const struct gate_result *res, const struct gate_workload *w,
		    double conf)
{
	struct gate_result at = *res;
	int yes;
	at.message = NULL;
	decide_one(g, &at, w, conf);
	yes = shown(&at);
	free(at.message);
	return yes;
}

/* The p-value's search stops at this level: a result that shows at
 * every level (a resolution that is no statistic) has it. */
#define P_VALUE_FLOOR 1e-15

/*
 * res's one-sided p-value when it is at most alpha, i.e. when res shows
 * at the gate's own level (its status: decided there): the smallest level
 * a at which the rule, decided on its interval at confidence 1 - 2a, shows
 * it (for the Hodges-Lehmann interval the signed-rank test's p: exact up
 * to STATS_EXACT_MAX pairs, its normal approximation above; for the
 * bootstrap the level this search finds),
 * whatever the method and the metric, so the order Holm takes is the order
 * its decisions take.  By bisection on log a, the rule being monotone in
 * a; P_VALUE_FLOOR when it shows at every level.  NAN above alpha: no
 * level of the family (each at most alpha) decides it, so its place among
 * the others does not matter and it is not searched.
 */
static double p_value_of(struct gate *g, const struct gate_result *res,
			 const struct gate_workload *w)
{
	double lo = log(P_VALUE_FLOOR), hi = log((1 - g->conf) / 2);
	if (!shown(res))
		return NAN;
	if (shown_at(g, res, w, 1 - 2 * P_VALUE_FLOOR))
		return P_VALUE_FLOOR;
	for (int i = 0; i < 40; i++) {
		double mid = (lo + hi) / 2;
		if (shown_at(g, res, w, 1 - 2 * exp(mid)))
			hi = mid;
		else
			lo = mid;
	}
	return exp(hi);
}

/*
 * Decide res again at conf, the level the family gives it: its status,
 * the interval it was decided on (dlo, dhi) and the message from there;
 * the interval shown (lo, hi: at the gate's level) stays.  A result in
 * error at the gate's level stays so.
 */
static void decide_adjusted(struct gate *g, struct gate_result *res,
			    const struct gate_workload *w, double conf, double alpha_adjusted,
			    const char *how)
{
	struct gate_result at = *res;

	res->alpha_adjusted = alpha_adjusted;
	res->conf_adjusted = conf;
	if (res->status == GATE_ERROR)
		return;
	at.message = NULL;
	decide_one(g, &at, w, conf);
	res->status = at.status;
	res->dlo = at.lo;
	res->dhi = at.hi;
	res->seq_inconsistent = at.seq_inconsistent;
	free(res->message);
	res->message = xasprintf("%s; %s: decided at %.4g%%, the %.4g%% interval alone "
				 "[%.4f, %.4f]", at.message ? at.message : "", how, conf * 100,
				 g->conf * 100, res->lo, res->hi);
	free(at.message);
}

/* Holm's order: by p-value, ties in the results' order. */
struct family_rank {
	double p;
	size_t i;
};

static int cmp_rank(const void *pa, const void *pb)
{
	const struct family_rank *a = pa, *b = pb;
	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/*
 * The family correction of the results just decided at the gate's level
 * (gate.h): every test records m and its levels; with m > 1 (and not
 * g->uncorrected) the fixed-sample tests are decided by Holm's step-down
 * procedure on their p-values, the --pairs auto ones at 1 - (1 - conf) / m.
 */
static void decide_family(struct gate *g)
{
	size_t m = gate_family_size(g), nr = 0;
	int correct = m > 1 && !g->uncorrected, stopped = 0;
	struct family_rank *rank = xcalloc(g->nr_res + 1, sizeof(*rank));
	double level = NAN;

	for (size_t i = 0; i < g->nr_res; i++) {
		struct gate_result *r = &g->res[i];
		const struct gate_workload *w = find_workload(g, r->workload);
		int seq = g->sequential && r->th->kind != GATE_INSTRUCTIONS &&
			  r->th->kind != GATE_CYCLES;
		r->dlo = r->lo;
		r->dhi = r->hi;
		if (!in_family(r->th, w))
			continue;
		r->family = m;
		r->alpha = seq ? 1 - g->conf : (1 - g->conf) / 2;
		r->alpha_adjusted = r->alpha;
		r->conf_adjusted = g->conf;
		if (g->sequential) {
			/*
			 * Bonferroni, not Holm: a confidence sequence decides
			 * at one level, fixed before the first pair (the
			 * running intersection, where it ends inconsistent and
			 * seq_min_pairs all depend on it), and --pairs auto
			 * stops when every test is decided, so the level each
			 * test runs at must not depend on how the others came
			 * out.  Holm would need an anytime-valid p-value per
			 * test (the whole sequence recomputed at every level,
			 * after every pair) and gains little here: the
			 * sequences are conservative, and the budget, not the
			 * level, is what usually leaves a test undecided.
			 * Bonferroni holds under any stopping rule and any
			 * dependence between the workloads.
			 */
			if (correct) {
				char *how = xasprintf("Bonferroni over %zu tests", m);
				decide_adjusted(g, r, w, gate_seq_conf(g), r->alpha / (double)m, how);
				free(how);
			}
			continue;
		}
		r->p_value = p_value_of(g, r, w);
		rank[nr].p = isnan(r->p_value) ? 1 : r->p_value;
		rank[nr++].i = i;
	}
	if (nr == 1 || !correct)
		for (size_t k = 0; k < nr; k++)
			g->res[rank[k].i].step = nr == 1 ? 1 : 0;
	if (correct && !g->sequential) {
		qsort(rank, nr, sizeof(*rank), cmp_rank);
		for (size_t k = 0; k < nr; k++) {
			struct gate_result *r = &g->res[rank[k].i];
			char *how;
			/* the k-th smallest at alpha / (m - k + 1) until the
			 * first that is not shown; the rest at its level */
			if (!stopped)
				level = r->alpha / (double)(m - k);
			if (isnan(r->p_value))
				how = xasprintf("Holm step %zu of %zu (one-sided p above %.3g)", k + 1, m,
						r->alpha);
			else
				how = xasprintf("Holm step %zu of %zu (one-sided p %.2g)", k + 1, m,
						r->p_value);
			decide_adjusted(g, r, find_workload(g, r->workload), 1 - 2 * level, level, how);
			free(how);
			r->step = k + 1;
			stopped |= !shown(r);
		}
	}
	free(rank);
}

int gate_decide(struct gate *g)
{
	int any_fail = 0, any_error = 0;
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < g->nr_res; i++)
		free(g->res[i].message);
	g->nr_res = 0;

	for (size_t i = 0; i < g->th.nr; i++) {
		const struct gate_threshold *t = &g->th.v[i];
		if (t->workload) {
			struct gate_result *r = add_result(g, t, t->workload);
			decide_one(g, r, gate_workload_get(g, t->workload, 0), g->conf);
			continue;
		}
		for (size_t k = 0; k < g->nr_wl; k++)
			decide_one(g, add_result(g, t, g->wl[k].name), &g->wl[k], g->conf);
	}
	decide_family(g);
	for (size_t i = 0; i < g->nr_res; i++) {
		any_fail |= g->res[i].status == GATE_FAIL;
		any_error |= g->res[i].status == GATE_ERROR;
	}

	if (g->regress == REGRESS_FAILED) {
		g->verdict = GATE_FAIL;
		strbuf_addstr(&why, "the candidate failed its regression suite");
	} else {
		for (size_t k = 0; k < g->nr_wl; k++)
			if (g->wl[k].correctness_failed) {
				g->verdict = GATE_FAIL;
				strbuf_addf(&why, "a correctness check of workload %s failed on the candidate",
					    g->wl[k].name);
				break;
			}
	}
	if (!why.len)
		describe_run_errors(g, &why);
	if (!why.len) {
		if (!g->th.nr) {
			g->verdict = GATE_ERROR;
			strbuf_addstr(&why, "no thresholds to decide on");
		} else if (any_error) {
			g->verdict = GATE_ERROR;
			strbuf_addstr(&why, "could not measure everything the thresholds need");
		} else if (any_fail) {
			g->verdict = GATE_FAIL;
			strbuf_addstr(&why, "a threshold was missed");
		} else if (gate_any_undecided(g)) {
			g->verdict = GATE_UNDECIDED;
			describe_undecided(g, &why);
		} else {
			g->verdict = GATE_PASS;
			strbuf_addstr(&why, "every threshold met");
		}
	}
	free(g->verdict_reason);
	g->verdict_reason = strbuf_detach(&why, NULL);
	return gate_exit_code(g->verdict);
}

void gate_stop(struct gate *g, const char *reason, int sig)
{
	gate_analyse(g);
	for (size_t i = 0; i < g->nr_res; i++)
		free(g->res[i].message);
	g->nr_res = 0;
	g->verdict = GATE_ERROR;
	free(g->verdict_reason);
	g->verdict_reason = xstrdup(reason);
	g->interrupted = sig;
	g->stopped = 1;
}

void gate_clear(struct gate *g)
{
	for (size_t i = 0; i < g->nr_wl; i++) {
		struct gate_workload *w = &g->wl[i];
		for (size_t k = 0; k < w->nr_runs; k++)
			free(w->runs[k].json);
		free(w->runs);
		free(w->name);
		free(w->instr_note);
		free(w->cycles_note);
		free(w->cycles_callgrind);
		free(w->explain_json);
		free(w->instr_res.source);
		free(w->cycles_res.source);
	}
	free(g->wl);
	for (size_t i = 0; i < g->nr_res; i++)
		free(g->res[i].message);
	free(g->res);
	gate_thresholds_clear(&g->th);
	free(g->regress_note);
	free(g->verdict_reason);
	free(g->seq_stop);
	free(g->counter);
	free(g->counter_note);
	free(g->noise_state);
	free(g->noise_note);
	free(g->noise_file);
	memset(g, 0, sizeof(*g));
}
