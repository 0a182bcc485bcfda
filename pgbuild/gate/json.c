/*
 * json.c - the gate result as JSON (`pgbuild gate --json`) and back
 * (`pgbuild report --gate-result`, junit).  Every run's numbers are kept, with the
 * bench's own JSON document embedded under "bench", so the report can plot
 * timelines and a later reader can redo the analysis; the reader does exactly
 * that (re-analyses and re-decides), which keeps one source of truth.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/error.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/sequential.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/metric/metrics.h"
#include "wrapper/common/json.h"
#include "wrapper/common/xalloc.h"

static const char *regress_name(enum regress_state s)
{
	return s == REGRESS_PASSED ? "passed" : s == REGRESS_FAILED ? "failed" : "not run";
}

static const char *instr_name(enum instr_state s)
{
	return s == INSTR_OK ? "ok" : s == INSTR_UNAVAILABLE ? "unavailable" : "not measured";
}

/* The table's names of what the document holds (metric/metrics.h). */
#define TPS_KEY metrics_of(METRIC_TPS)->name
#define LAT_KEY metrics_figure(METRIC_TPS, METRIC_TPS_LATENCY)->json_key
#define CPU_FIG metrics_figure(METRIC_TPS, METRIC_TPS_CPU)

static const struct metric_desc *desc_of(enum gate_kind kind)
{
	return metrics_of(gate_kind_metric(kind));
}

static void write_ratio(struct json_writer *jw, const struct stats_ratio *r)
{
	json_object_begin(jw);
	json_key(jw, "pairs"); json_int(jw, (int64_t)r->n);
	json_key(jw, "median"); json_double(jw, r->median);
	json_key(jw, "estimate"); json_double(jw, r->estimate);
	json_key(jw, "ci_low"); json_double(jw, r->ok ? r->lo : NAN);
	json_key(jw, "ci_high"); json_double(jw, r->ok ? r->hi : NAN);
	json_key(jw, "confidence"); json_double(jw, r->conf);
	json_key(jw, "p_value"); json_double(jw, r->p_two_sided);
	json_key(jw, "spread_pct"); json_double(jw, r->spread_pct);
	json_key(jw, "noise_floor_pct"); json_double(jw, r->noise_floor_pct);
	json_object_end(jw);
}

/* The figures of one build's cycles measurement: the metric's rows. */
static void write_cycles_tx(struct json_writer *jw, const struct cycles_tx *t, int ok)
{
	const struct metric_desc *m = metrics_of(METRIC_CYCLES);
	double v[CYCLES_ROWS];
	cycles_tx_values(t, v);
	json_object_begin(jw);
	for (size_t k = 0; k < m->nrows; k++) {
		json_key(jw, m->rows[k].json_key);
		json_double(jw, ok ? v[k] : NAN);
	}
	json_object_end(jw);
}

/*
 * A deterministic metric's "resolution" (the relative half-width it is
 * decided at: noise/floor.h's rule; null without a floor, when its
 * thresholds are undecided), "resolution_source" (where it came from, or
 * why there is none), "resolution_z" (the normal quantile it was built
 * at, which the family correction rescales; null: no statistic, the same
 * at every level), "resolution_df" (its SDs' degrees of freedom, the t
 * quantiles it is rescaled by; absent: GATE_RESOLUTION_DF) and
 * "repeat_resolution".
 */
static void write_resolution(struct json_writer *jw, const struct gate_workload *w,
			     enum gate_kind kind)
{
	const char *source;
	double r = gate_resolution_of(w, kind, &source);
	const struct gate_resolution *rr = kind == GATE_CYCLES ? &w->cycles_res : &w->instr_res;
	json_key(jw, "resolution"); json_double(jw, r);
	json_key(jw, "resolution_source"); json_string(jw, source);
	json_key(jw, "resolution_z"); json_double(jw, rr->z > 0 ? rr->z : NAN);
	json_key(jw, "resolution_df"); json_double(jw, rr->z > 0 ? rr->df : NAN);
	json_key(jw, "repeat_resolution"); json_double(jw, desc_of(kind)->resolution);
}

/* Read it back: null with a source is no floor (undecided, again);
 * absent, or null without a source, is the repeat one (a result of before
 * the floor); -1 with err when it is not a resolution (a hand-edited
 * result must not decide). */
static int read_resolution(const struct json_value *in, struct gate_workload *w,
			   enum gate_kind kind, double conf, struct strbuf *err)
{
	const struct json_value *v = json_get(in, "resolution");
	const char *source = json_get_str(in, "resolution_source");
	if (v && v->type == JSON_NULL && source) {
		gate_set_resolution(w, kind, NAN, source);
		return 0;
	}
	if (!v || v->type == JSON_NULL)
		return 0;
	if (v->type != JSON_NUMBER || !(v->u.number > 0 && v->u.number < 1)) {
		strbuf_addf(err, "workload \"%.100s\": %s \"resolution\" must be a number "
			    "above 0 and below 1", w->name, desc_of(kind)->name);
		return -1;
	}
	if (!source && v->u.number == desc_of(kind)->resolution)
		return 0;       /* a result of before the floor: the repeat one */
	gate_set_resolution(w, kind, v->u.number, source ? source : "as read back (no source)");
	/* null: no statistic, the same at every level; absent (a result of
	 * before the family correction): a layout floor's was built at the
	 * gate's confidence (noise_floor_z_at's quantile of (1 + conf) / 2),
	 * so report decides it again as the gate did; any other the same
	 * at every level */
	if (!json_get(in, "resolution_z") && source && !strncmp(source, "layout floor:", 13))
		gate_set_resolution_z(w, kind, stats_norm_quantile((1 + conf) / 2), 0);
	else
		gate_set_resolution_z(w, kind, json_get_num(in, "resolution_z", 0),
				      json_get_num(in, "resolution_df", 0));
	return 0;
}

/* The cycles estimate's A/B next to the server CPU's (gate_agreement). */
static void write_agreement(struct json_writer *jw, const struct gate *g,
			    const struct gate_workload *w)
{
	double est;
	struct stats_ratio cpu;
	enum gate_agree a = gate_agreement(g, w, &est, &cpu);
	json_key(jw, "estimate_vs_server_cpu");
	json_object_begin(jw);
	json_key(jw, "estimate"); json_double(jw, est);
	json_key(jw, "server_cpu"); json_double(jw, a == GATE_AGREE_NA ? NAN : cpu.estimate);
	json_key(jw, "server_cpu_low"); json_double(jw, a == GATE_AGREE_NA ? NAN : cpu.lo);
	json_key(jw, "server_cpu_high"); json_double(jw, a == GATE_AGREE_NA ? NAN : cpu.hi);
	/* true, false (the estimate outside), null (not both measured, or
	 * not tested: the interval too wide to contradict it) */
	json_key(jw, "agree");
	if (a == GATE_AGREE_NA || a == GATE_AGREE_UNTESTED)
		json_null(jw);
	else
		json_bool(jw, a == GATE_AGREE_YES);
	json_key(jw, "verdict"); json_string(jw, gate_agree_names[a]);
	/* the widest server CPU half-width that could test it (gate.h) */
	json_key(jw, "half_width_needed"); json_double(jw, gate_agree_needed(est));
	json_object_end(jw);
}

/* text as it is (a JSON document), or null. */
static void write_raw_or_null(struct json_writer *jw, const char *text)
{
	if (text)
		json_raw(jw, text);
	else
		json_null(jw);
}

/* "cycles": state, A, B, A/B of each figure, how it was measured; then
 * "explain". */
static void write_cycles(struct json_writer *jw, const struct gate_workload *w)
{
	int ok = w->cycles == INSTR_OK;
	struct cycles_tx r = { 0 };
	if (ok) {
		r.ir = w->cyc_a.ir / w->cyc_b.ir;
		r.i1mr = w->cyc_b.i1mr > 0 ? w->cyc_a.i1mr / w->cyc_b.i1mr : NAN;
		r.l1m = w->cyc_b.l1m > 0 ? w->cyc_a.l1m / w->cyc_b.l1m : NAN;
		r.llm = w->cyc_b.llm > 0 ? w->cyc_a.llm / w->cyc_b.llm : NAN;
		r.bm = w->cyc_b.bm > 0 ? w->cyc_a.bm / w->cyc_b.bm : NAN;
		r.estimate = w->cyc_a.estimate / w->cyc_b.estimate;
	}
	json_key(jw, metrics_of(METRIC_CYCLES)->name);
	json_object_begin(jw);
	json_key(jw, "state"); json_string(jw, instr_name(w->cycles));
	json_key(jw, "a"); write_cycles_tx(jw, &w->cyc_a, ok);
	json_key(jw, "b"); write_cycles_tx(jw, &w->cyc_b, ok);
	json_key(jw, "ratio_a_over_b"); write_cycles_tx(jw, &r, ok);
	json_key(jw, "speedup"); json_double(jw, ok ? r.estimate : NAN);
	write_resolution(jw, w, GATE_CYCLES);
	json_key(jw, "note"); json_string(jw, w->cycles_note);
	json_key(jw, "simulation"); json_string(jw, metrics_of(METRIC_CYCLES)->method);
	json_key(jw, "callgrind"); write_raw_or_null(jw, w->cycles_callgrind);
	json_object_end(jw);
	json_key(jw, "explain"); write_raw_or_null(jw, w->explain_json);
}

/* Read back what write_cycles_tx wrote. */
static void read_cycles_tx(const struct json_value *o, struct cycles_tx *t)
{
	const struct metric_desc *m = metrics_of(METRIC_CYCLES);
	double v[CYCLES_ROWS];
	for (size_t k = 0; k < m->nrows; k++)
		v[k] = json_get_num(o, m->rows[k].json_key, NAN);
	cycles_tx_set(t, v);
}

/* "family": the tests of this gate run and how they were corrected
 * together (gate.h); each result says its own level. */
static void write_family(struct json_writer *jw, const struct gate *g)
{
	size_t m = gate_family_size(g);
	json_key(jw, "family");
	json_object_begin(jw);
	json_key(jw, "tests"); json_int(jw, (int64_t)m);
	json_key(jw, "correction");
	json_string(jw, m <= 1 || g->uncorrected ? "none" : g->sequential ?
		    "Bonferroni: every test at 1 - (1 - confidence) / tests" :
		    "Holm step-down: the k-th smallest one-sided p-value at alpha / (tests - k + 1), "
		    "alpha = (1 - confidence) / 2, until the first that is not shown");
	/* the fewest pairs with which its first step can decide anything */
	json_key(jw, "min_pairs");
	json_int(jw, (int64_t)(g->sequential ? seq_min_pairs(1 - gate_seq_conf(g)) :
			       gate_family_min_pairs(g)));
	json_object_end(jw);
}

/* "sequential": how --pairs auto decided, or null with a fixed --pairs. */
static void write_sequential(struct json_writer *jw, const struct gate *g)
{
	json_key(jw, "sequential");
	if (!g->sequential) {
		json_null(jw);
		return;
	}
	json_object_begin(jw);
	json_key(jw, "method"); json_string(jw, SEQ_METHOD);
	json_key(jw, "rho"); json_double(jw, SEQ_RHO);
	json_key(jw, "sign_test_share"); json_double(jw, SEQ_SIGN_SHARE);
	json_key(jw, "budget_s"); json_double(jw, g->budget);
	json_key(jw, "stopped"); json_string(jw, g->seq_stop);
	/* the fewest pairs at which it can be bounded (sequential.h), at the
	 * family's level */
	json_key(jw, "min_pairs"); json_int(jw, (int64_t)seq_min_pairs(1 - gate_seq_conf(g)));
	json_key(jw, "rule"); json_string(jw, "pass when the lower end of the confidence "
			"sequence reaches the value (latency: the upper end) and the estimate does "
			"too, fail when the upper end is below it, else undecided (exit 3); a pair "
			"whose interval misses the running one ends it inconsistent (undecided)");
	json_object_end(jw);
}

/* key: an object of two strings. */
static void write_two(struct json_writer *jw, const char *key, const char *k1, const char *v1,
		      const char *k2, const char *v2)
{
	json_key(jw, key);
	json_object_begin(jw);
	json_key(jw, k1); json_string(jw, v1);
	json_key(jw, k2); json_string(jw, v2);
	json_object_end(jw);
}

/* What was compared and how the gate decides: the builds, the settings,
 * the interval, the family, the thresholds, and the state of the counter,
 * the noise floor and the regression suite. */
static void write_head(struct json_writer *jw, const struct gate *g, const char *baseline,
		       const char *candidate, const char *extra_settings_json)
{
	json_key(jw, "kind"); json_string(jw, "pgbuild-gate");
	json_key(jw, "version"); json_int(jw, 1);
	json_key(jw, "baseline"); json_string(jw, baseline);
	json_key(jw, "candidate"); json_string(jw, candidate);
	json_key(jw, "settings"); write_raw_or_null(jw, extra_settings_json);
	json_key(jw, "ci"); json_string(jw, g->method == STATS_CI_BOOTSTRAP ? "bootstrap" : "hl");
	json_key(jw, "method"); json_string(jw, stats_method_name(g->method));
	json_key(jw, "confidence"); json_double(jw, g->conf);
	json_key(jw, "min_pairs"); json_int(jw, (int64_t)g->min_pairs);
	write_family(jw, g);
	write_sequential(jw, g);
	/* the seed of the pairs' order (gate_pair_b_first); null: none */
	json_key(jw, "pair_order_seed");
	if (g->order_seed >= 0)
		json_int(jw, g->order_seed);
	else
		json_null(jw);
	json_key(jw, "thresholds");
	json_array_begin(jw);
	for (size_t i = 0; i < g->th.nr; i++)
		json_string(jw, g->th.v[i].text);
	json_array_end(jw);
	write_two(jw, "instructions_counter", "counter", g->counter, "choice", g->counter_note);
	write_two(jw, "noise_floor", "state", g->noise_state, "note", g->noise_note);
	write_two(jw, "regress", "state", regress_name(g->regress), "note", g->regress_note);
}

/* A figure's medians of A and B and their ratio (under ratio_key), in
 * the object open. */
static void write_medians(struct json_writer *jw, double a, double b, const char *ratio_key,
			  const struct stats_ratio *r)
{
	json_key(jw, "a_median"); json_double(jw, a);
	json_key(jw, "b_median"); json_double(jw, b);
	json_key(jw, ratio_key); write_ratio(jw, r);
}

/* The latency figures: each percentile's medians and ratio. */
static void write_latency(struct json_writer *jw, const struct gate_workload *w)
{
	json_key(jw, LAT_KEY);
	json_object_begin(jw);
	for (int k = 0; k < GATE_NLAT; k++) {
		json_key(jw, gate_lat_keys[k]);
		json_object_begin(jw);
		write_medians(jw, w->lat_a_median[k], w->lat_b_median[k], "ratio", &w->lat[k]);
		json_object_end(jw);
	}
	json_object_end(jw);
}

/* The instructions measured on A and B, and how. */
static void write_instructions(struct json_writer *jw, const struct gate *g,
			       const struct gate_workload *w)
{
	int ok = w->instr == INSTR_OK;

	json_key(jw, metrics_of(METRIC_INSTR)->name);
	json_object_begin(jw);
	json_key(jw, "state"); json_string(jw, instr_name(w->instr));
	json_key(jw, "a"); json_double(jw, ok ? w->instr_a : NAN);
	json_key(jw, "b"); json_double(jw, ok ? w->instr_b : NAN);
	json_key(jw, "speedup");
	json_double(jw, ok && w->instr_b > 0 ? w->instr_a / w->instr_b : NAN);
	write_resolution(jw, w, GATE_INSTRUCTIONS);
	json_key(jw, "note"); json_string(jw, w->instr_note);
	json_key(jw, "counter"); json_string(jw, w->instr == INSTR_NOT_MEASURED ? NULL : g->counter);
	json_key(jw, "proxy"); json_string(jw, metrics_of(METRIC_INSTR)->method);
	json_object_end(jw);
}

/* One run of a pair: its figures and the bench's own document. */
static void write_run(struct json_writer *jw, const struct gate_run *r)
{
	char b[2] = { r->build, 0 };

	json_object_begin(jw);
	json_key(jw, "pair"); json_int(jw, r->pair);
	json_key(jw, "build"); json_string(jw, b);
	json_key(jw, "exit"); json_int(jw, r->exit);
	json_key(jw, TPS_KEY); json_double(jw, r->tps);
	json_key(jw, CPU_FIG->json_key); json_double(jw, r->server_cpu_us);
	json_key(jw, LAT_KEY);
	json_object_begin(jw);
	for (int l = 0; l < GATE_NLAT; l++) {
		json_key(jw, gate_lat_keys[l]);
		json_double(jw, r->lat[l]);
	}
	json_object_end(jw);
	json_key(jw, "bench"); write_raw_or_null(jw, r->json);
	json_object_end(jw);
}

/* One workload: every figure, then every run. */
static void write_workload(struct json_writer *jw, const struct gate *g,
			   const struct gate_workload *w)
{
	json_object_begin(jw);
	json_key(jw, "name"); json_string(jw, w->name);
	json_key(jw, "valid_pairs"); json_int(jw, (int64_t)w->valid_pairs);
	json_key(jw, "run_errors"); json_int(jw, w->run_errors);
	json_key(jw, "correctness_failed"); json_bool(jw, w->correctness_failed);
	json_key(jw, TPS_KEY);
	json_object_begin(jw);
	write_medians(jw, w->tps_a_median, w->tps_b_median, "ratio", &w->tps);
	json_object_end(jw);
	write_latency(jw, w);
	write_instructions(jw, g, w);
	write_cycles(jw, w);
	json_key(jw, CPU_FIG->json_key);
	json_object_begin(jw);
	write_medians(jw, w->cpu_a_median, w->cpu_b_median, "ratio_a_over_b", &w->cpu);
	json_key(jw, "method"); json_string(jw, CPU_FIG->method);
	json_object_end(jw);
	write_agreement(jw, g, w);
	json_key(jw, "runs");
	json_array_begin(jw);
	for (size_t k = 0; k < w->nr_runs; k++)
		write_run(jw, &w->runs[k]);
	json_array_end(jw);
	json_object_end(jw);
}

/* One threshold's result on one workload, with its family correction. */
static void write_result(struct json_writer *jw, const struct gate_result *r)
{
	json_object_begin(jw);
	json_key(jw, "threshold"); json_string(jw, r->th->text);
	json_key(jw, "workload"); json_string(jw, r->workload);
	json_key(jw, "status"); json_string(jw, gate_status_name(r->status));
	json_key(jw, "observed"); json_double(jw, r->observed);
	json_key(jw, "ci_low"); json_double(jw, r->lo);
	json_key(jw, "ci_high"); json_double(jw, r->hi);
	json_key(jw, "limit"); json_double(jw, r->th->value);
	json_key(jw, "resolution"); json_double(jw, r->resolution);
	json_key(jw, "resolution_source"); json_string(jw, r->resolution_source);
	/* the family correction (gate.h): null where it is no test */
	json_key(jw, "family"); json_int(jw, (int64_t)r->family);
	json_key(jw, "holm_step");
	if (r->step)
		json_int(jw, (int64_t)r->step);
	else
		json_null(jw);
	json_key(jw, "p_value"); json_double(jw, r->p_value);
	json_key(jw, "alpha"); json_double(jw, r->alpha);
	json_key(jw, "alpha_adjusted"); json_double(jw, r->alpha_adjusted);
	json_key(jw, "confidence_adjusted"); json_double(jw, r->conf_adjusted);
	json_key(jw, "decision_low"); json_double(jw, r->family ? r->dlo : NAN);
	json_key(jw, "decision_high"); json_double(jw, r->family ? r->dhi : NAN);
	json_key(jw, "message"); json_string(jw, r->message);
	json_object_end(jw);
}

/* The verdict in the words the terminal and README use (lower case),
 * then "verdict" as it was: pass/fail, as programs read it; the reason,
 * the exit code, and whether the gate decided. */
static void write_verdict(struct json_writer *jw, const struct gate *g)
{
	struct gate_verdict v = GATE_VERDICT_INIT;

	gate_verdict_of(g, &v);
	json_key(jw, "verdict_word"); json_string(jw, gate_verdict_word(&v));
	gate_verdict_clear(&v);
	json_key(jw, "verdict");
	json_string(jw, g->interrupted ? "interrupted" : gate_status_name(g->verdict));
	json_key(jw, "reason"); json_string(jw, g->verdict_reason);
	json_key(jw, "exit");
	json_int(jw, g->interrupted ? 128 + g->interrupted : gate_exit_code(g->verdict));
	if (g->interrupted) {
		json_key(jw, "signal"); json_int(jw, g->interrupted);
	}
	json_key(jw, "decided"); json_bool(jw, !g->stopped);
}

void gate_write_json(const struct gate *g, struct strbuf *out,
		     const char *baseline, const char *candidate,
		     const char *extra_settings_json)
{
	struct json_writer jw;

	json_writer_init(&jw, out);
	json_object_begin(&jw);
	write_head(&jw, g, baseline, candidate, extra_settings_json);
	json_key(&jw, "workloads");
	json_array_begin(&jw);
	for (size_t i = 0; i < g->nr_wl; i++)
		write_workload(&jw, g, &g->wl[i]);
	json_array_end(&jw);
	json_key(&jw, "results");
	json_array_begin(&jw);
	for (size_t i = 0; i < g->nr_res; i++)
		write_result(&jw, &g->res[i]);
	json_array_end(&jw);
	write_verdict(&jw, g);
	json_object_end(&jw);
	strbuf_addch(out, '\n');
}

char *gate_json_text(const struct json_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	json_writer_init(&jw, &sb);
	json_value_write(&jw, v);
	return strbuf_detach(&sb, NULL);
}

static double num_or_nan(const struct json_value *obj, const char *key)
{
	const struct json_value *v = json_get(obj, key);
	return v && v->type == JSON_NUMBER ? v->u.number : NAN;
}

/*
 * An integer member within [lo, hi]; def when absent.  -1 (with err) when it
 * is there but not such a number: a hand-edited or corrupt result must not
 * drive the analysis (it allocates up to the largest pair number).
 */
static int get_int(const struct json_value *obj, const char *key, long lo, long hi, long def,
		   long *out, const char *where, struct strbuf *err)
{
	const struct json_value *v = json_get(obj, key);
	if (!v) {
		*out = def;
		return 0;
	}
	if (v->type != JSON_NUMBER || !(v->u.number >= lo && v->u.number <= hi) ||
	    v->u.number != (double)(long)v->u.number) {
		strbuf_addf(err, "%s\"%s\" must be an integer from %ld to %ld", where, key, lo, hi);
		return -1;
	}
	*out = (long)v->u.number;
	return 0;
}

/* A copy of the string member key of obj, or NULL when it has none. */
static char *dup_str(const struct json_value *obj, const char *key)
{
	const char *s = json_get_str(obj, key);
	return s ? xstrdup(s) : NULL;
}

/* A metric's "state" as written by instr_name (anything else: not measured). */
static enum instr_state instr_state_of(const struct json_value *in)
{
	const char *s = json_get_str(in, "state");
	return s && !strcmp(s, "ok") ? INSTR_OK :
	       s && !strcmp(s, "unavailable") ? INSTR_UNAVAILABLE : INSTR_NOT_MEASURED;
}

/*
 * The head: that it is a gate result, its method, confidence, pairs,
 * order seed, sequential budget and thresholds.  0, or -1 with err.
 */
static int read_head(struct gate *g, const struct json_value *root, struct strbuf *err)
{
	const struct json_value *th, *sq;
	const char *s = json_get_str(root, "kind");
	double sd;
	long num;

	if (!s || strcmp(s, "pgbuild-gate")) {
		strbuf_addstr(err, "not a pgbuild gate result (no \"kind\":\"pgbuild-gate\")");
		return -1;
	}
	s = json_get_str(root, "ci");
	g->method = s && !strcmp(s, "bootstrap") ? STATS_CI_BOOTSTRAP : STATS_CI_HL;
	g->conf = json_get_num(root, "confidence", 0.95);
	if (!(g->conf >= 0.5 && g->conf < 1)) {
		strbuf_addstr(err, "\"confidence\" must be a level from 0.5 to below 1");
		return -1;
	}
	if (get_int(root, "min_pairs", 1, 1000, 6, &num, "", err) < 0)
		return -1;
	g->min_pairs = (size_t)num;
	sd = json_get_num(root, "pair_order_seed", -1);
	g->order_seed = sd >= 0 && sd <= (double)GATE_SEED_MAX ? (int64_t)sd : -1;
	sq = json_get(root, "sequential");
	if (sq && sq->type == JSON_OBJECT) {
		g->sequential = 1;
		g->budget = json_get_num(sq, "budget_s", 0);
		g->seq_stop = dup_str(sq, "stopped");
	}
	th = json_get(root, "thresholds");
	for (size_t i = 0; i < json_len(th); i++) {
		const struct json_value *t = json_at(th, i);
		if (t->type != JSON_STRING)
			continue;
		if (gate_expr_parse(&g->th, t->u.str.s, err) < 0)
			return -1;
	}
	return 0;
}

/* The notes beside the measurements: the instructions counter, the noise
 * floor and the regression suite's state. */
static void read_notes(struct gate *g, const struct json_value *root)
{
	const struct json_value *ic = json_get(root, "instructions_counter");
	const struct json_value *nf = json_get(root, "noise_floor");
	const struct json_value *reg = json_get(root, "regress");
	const char *s;

	g->counter = dup_str(ic, "counter");
	g->counter_note = dup_str(ic, "choice");
	g->noise_state = dup_str(nf, "state");
	g->noise_note = dup_str(nf, "note");
	s = json_get_str(reg, "state");
	g->regress = s && !strcmp(s, "passed") ? REGRESS_PASSED :
		     s && !strcmp(s, "failed") ? REGRESS_FAILED : REGRESS_NOT_RUN;
	g->regress_note = dup_str(reg, "note");
}

/* A workload's instructions and cycles estimate: their states, A and B,
 * notes and resolutions, the callgrind and explain documents.  0, or -1
 * with err. */
static int read_metrics(const struct gate *g, const struct json_value *wv,
			struct gate_workload *w, struct strbuf *err)
{
	const struct json_value *in = json_get(wv, metrics_of(METRIC_INSTR)->name);

	w->instr = instr_state_of(in);
	w->instr_a = num_or_nan(in, "a");
	w->instr_b = num_or_nan(in, "b");
	w->instr_note = dup_str(in, "note");
	if (read_resolution(in, w, GATE_INSTRUCTIONS, g->conf, err) < 0)
		return -1;
	in = json_get(wv, metrics_of(METRIC_CYCLES)->name);
	w->cycles = instr_state_of(in);
	read_cycles_tx(json_get(in, "a"), &w->cyc_a);
	read_cycles_tx(json_get(in, "b"), &w->cyc_b);
	w->cycles_note = dup_str(in, "note");
	if (read_resolution(in, w, GATE_CYCLES, g->conf, err) < 0)
		return -1;
	if (json_get(in, "callgrind") && json_get(in, "callgrind")->type == JSON_OBJECT)
		w->cycles_callgrind = gate_json_text(json_get(in, "callgrind"));
	if (json_get(wv, "explain") && json_get(wv, "explain")->type == JSON_OBJECT)
		w->explain_json = gate_json_text(json_get(wv, "explain"));
	return 0;
}

/* Run k (from 0) of workload name: its pair, build, exit, tps, server CPU,
 * latencies and the bench's own document.  0, or -1 with err. */
static int read_run(struct gate_workload *w, const char *name, size_t k,
		    const struct json_value *rv, struct strbuf *err)
{
	const struct json_value *lat, *bench;
	struct gate_run *r = gate_workload_add_run(w);
	const char *b = json_get_str(rv, "build");
	char where[160];
	long num;

	snprintf(where, sizeof(where), "workload \"%.100s\" run %zu: ", name, k + 1);
	/* gate --pairs is at most 1000 */
	if (get_int(rv, "pair", 0, 999, 0, &num, where, err) < 0)
		return -1;
	r->pair = (int)num;
	r->build = b && *b == 'B' ? 'B' : 'A';
	if (get_int(rv, "exit", 0, 255, 2, &num, where, err) < 0)
		return -1;
	r->exit = (int)num;
	r->tps = num_or_nan(rv, TPS_KEY);
	r->server_cpu_us = num_or_nan(rv, CPU_FIG->json_key);
	lat = json_get(rv, LAT_KEY);
	for (int l = 0; l < GATE_NLAT; l++)
		r->lat[l] = num_or_nan(lat, gate_lat_keys[l]);
	bench = json_get(rv, "bench");
	if (bench && bench->type == JSON_OBJECT)
		r->json = gate_json_text(bench);
	return 0;
}

/* One element of "workloads" (one without a name is skipped; a name seen
 * before is an error): its metrics and runs.  0, or -1 with err. */
static int read_workload(struct gate *g, const struct json_value *wv, struct strbuf *err)
{
	const char *name = json_get_str(wv, "name");
	const struct json_value *runs;
	struct gate_workload *w;

	if (!name)
		return 0;
	if (gate_workload_get(g, name, 0)) {
		strbuf_addf(err, "workload \"%s\" appears twice", name);
		return -1;
	}
	w = gate_workload_get(g, name, 1);
	if (read_metrics(g, wv, w, err) < 0)
		return -1;
	runs = json_get(wv, "runs");
	for (size_t k = 0; k < json_len(runs); k++)
		if (read_run(w, name, k, json_at(runs, k), err) < 0)
			return -1;
	return 0;
}

/* The decision: a gate that stopped before deciding (interrupted, or an
 * error with "decided": false) keeps its reason and decides nothing; any
 * other is analysed and decided again from its runs. */
static void read_decision(struct gate *g, const struct json_value *root)
{
	const char *s = json_get_str(root, "verdict");
	const struct json_value *decided = json_get(root, "decided");

	if (s && (!strcmp(s, "interrupted") ||
		  (!strcmp(s, "error") && decided && decided->type == JSON_BOOL &&
		   !decided->u.boolean))) {
		const char *why = json_get_str(root, "reason");
		gate_stop(g, why ? why : "the gate stopped before deciding",
			  !strcmp(s, "interrupted") ? (int)json_get_num(root, "signal", 2) : 0);
	} else {
		gate_analyse(g);
		gate_decide(g);
	}
}

int gate_read_json(struct gate *g, const char *text, size_t len, struct strbuf *err)
{
	struct json_value *root = json_parse(text, len, err);
	const struct json_value *wls;
	int rc = -1;

	if (!root)
		return -1;
	if (read_head(g, root, err) < 0)
		goto out;
	read_notes(g, root);
	wls = json_get(root, "workloads");
	for (size_t i = 0; i < json_len(wls); i++)
		if (read_workload(g, json_at(wls, i), err) < 0)
			goto out;
	read_decision(g, root);
	rc = 0;
out:
	json_free(root);
	return rc;
}
