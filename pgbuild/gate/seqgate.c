/*
 * seqgate.c - the thresholds of `pgbuild gate --pairs auto`: each tps,
 * latency and server CPU threshold decided on the confidence sequence of
 * its per-pair log ratios (sequential.h), by the rule of every threshold:
 * it passes only when the lower end reaches the value (latency: the upper
 * end) and the estimate does too, fails when the upper end is below it,
 * and is undecided otherwise; a sequence that ended inconsistent is
 * undecided for good ("not significant", with both intervals).  The
 * level is the family's (gate_seq_conf: Bonferroni over the gate run's
 * tests, gate.h); the sequence shown (gate_ratio_of) is at --confidence.
 */
#include <math.h>
#include <stdlib.h>

#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/sequential.h"
#include "wrapper/common/xalloc.h"

/* The run of build b in pair p, or NULL. */
static const struct gate_run *pair_run(const struct gate_workload *w, int p, char b)
{
	for (size_t i = 0; i < w->nr_runs; i++)
		if (w->runs[i].pair == p && w->runs[i].build == b)
			return &w->runs[i];
	return NULL;
}

/* The figure of run r a threshold of kind t reads. */
static double run_value(const struct gate_run *r, const struct gate_threshold *t)
{
	if (!r || r->exit != 0 || !(r->tps > 0))
		return NAN;
	if (t->kind == GATE_LATENCY)
		return r->lat[t->lat];
	return t->kind == GATE_SERVER_CPU ? r->server_cpu_us : r->tps;
}

/* ln(B/A) per pair (server CPU: ln(A/B), > 0 when B is cheaper); pairs
 * without both numbers are NAN, which the sequence skips.  *n: pairs. */
static double *log_ratios(const struct gate_workload *w, const struct gate_threshold *t,
			  size_t *n)
{
	int max_pair = -1;
	double *d;
	for (size_t i = 0; i < w->nr_runs; i++)
		if (w->runs[i].pair > max_pair)
			max_pair = w->runs[i].pair;
	*n = (size_t)(max_pair + 1);
	d = xcalloc(*n + 1, sizeof(double));
	for (int p = 0; p <= max_pair; p++) {
		double a = run_value(pair_run(w, p, 'A'), t), b = run_value(pair_run(w, p, 'B'), t);
		d[p] = a > 0 && b > 0 ? log(b / a) : NAN;
		if (t->kind == GATE_SERVER_CPU)
			d[p] = -d[p];
	}
	return d;
}

static const char *what_of(const struct gate_threshold *t)
{
	if (t->kind == GATE_LATENCY)
		return "latency";
	return t->kind == GATE_SERVER_CPU ? "server CPU per transaction A/B" : "throughput B/A";
}


/* "[0.9812, inf]" */
static void add_interval(struct strbuf *sb, double lo, double hi)
{
	strbuf_addch(sb, '[');
	if (isfinite(lo))
		strbuf_addf(sb, "%.4f", lo);
	else
		strbuf_addstr(sb, "0");
	strbuf_addstr(sb, ", ");
	if (isfinite(hi))
		strbuf_addf(sb, "%.4f", hi);
	else
		strbuf_addstr(sb, "inf");
	strbuf_addch(sb, ']');
}

/* "throughput B/A 1.0123, 95% confidence sequence [0.98, 1.04] after 12
 * pairs: undecided: ..." (conf: the sequence's) */
static char *describe(double conf, const struct gate_threshold *t,
		      const struct gate_result *res, const struct seq_cs *cs,
		      enum seq_decision dec, int short_of_estimate)
{
	struct strbuf sb = STRBUF_INIT;
	size_t least = seq_min_pairs(1 - conf);
	if (t->kind == GATE_LATENCY)
		strbuf_addf(&sb, "%s latency B/A", gate_lat_keys[t->lat]);
	else
		strbuf_addstr(&sb, what_of(t));
	strbuf_addf(&sb, " %.4f, %.4g%% confidence sequence ", res->observed, conf * 100);
	add_interval(&sb, res->lo, res->hi);
	strbuf_addf(&sb, " after %zu pair%s: ", cs->n, cs->n == 1 ? "" : "s");
	if (dec == SEQ_INCONSISTENT) {
		strbuf_addf(&sb, "not significant: inconsistent, the interval of pair %zu ", cs->at);
		if (cs->at_lo > cs->at_hi)
			strbuf_addstr(&sb, "is empty");
		else
			add_interval(&sb, exp(cs->at_lo), exp(cs->at_hi));
		strbuf_addstr(&sb, " and does not overlap the sequence before it (the pairs break "
			      "its assumption: a drift or a change during the run?); the sequence "
			      "ended there");
	} else if (dec == SEQ_PASS) {
		strbuf_addf(&sb, "the whole sequence meets %g", t->value);
	} else if (dec == SEQ_FAIL) {
		strbuf_addf(&sb, "the whole sequence misses %g", t->value);
	} else if (short_of_estimate) {
		strbuf_addf(&sb, "undecided, the sequence meets %g but the estimate does not "
			    "(a claim above what was observed never passes)", t->value);
	} else {
		strbuf_addf(&sb, "undecided, the sequence still contains %g", t->value);
		if (cs->n < least)
			strbuf_addf(&sb, " (it is unbounded before %zu pairs)", least);
	}
	return strbuf_detach(&sb, NULL);
}

void gate_decide_sequential(const struct gate *g, struct gate_result *res,
			    const struct gate_workload *w, double conf)
{
	const struct gate_threshold *t = res->th;
	int lower_better = t->kind == GATE_LATENCY, short_of_estimate = 0;
	struct seq_cs cs;
	size_t n;
	double *d = log_ratios(w, t, &n);
	enum seq_decision dec;

	seq_cs_compute(d, n, 1 - conf, SEQ_RHO, &cs);
	free(d);
	res->observed = exp(cs.mean);
	res->lo = exp(cs.lo);
	res->hi = exp(cs.hi);
	dec = seq_decide(&cs, log(t->value), lower_better);
	/* the rule of every claim: never above what was observed */
	if (dec == SEQ_PASS && !(lower_better ? cs.mean <= log(t->value) :
				 cs.mean >= log(t->value))) {
		dec = SEQ_CONTINUE;
		short_of_estimate = 1;
	}
	res->seq_inconsistent = dec == SEQ_INCONSISTENT;
	res->status = dec == SEQ_PASS ? GATE_PASS : dec == SEQ_FAIL ? GATE_FAIL : GATE_UNDECIDED;
	res->message = describe(conf, t, res, &cs, dec, short_of_estimate);
}

void gate_ratio_of(const struct gate *g, const struct gate_workload *w, enum gate_kind kind,
		   struct stats_ratio *out)
{
	const struct stats_ratio *fixed = kind == GATE_SERVER_CPU ? &w->cpu : &w->tps;

	*out = *fixed;
	if (g->sequential)
		gate_seq_ratio(w, kind, g->conf, out);
}

void gate_seq_ratio(const struct gate_workload *w, enum gate_kind kind, double conf,
		    struct stats_ratio *out)
{
	struct gate_threshold t = { .kind = kind == GATE_SERVER_CPU ? GATE_SERVER_CPU : GATE_TPS };
	struct seq_cs cs;
	size_t n;
	double *d;

	d = log_ratios(w, &t, &n);
	if (seq_cs_compute(d, n, 1 - conf, SEQ_RHO, &cs) == 0 && cs.n) {
		out->n = cs.n;
		out->estimate = exp(cs.mean);
		out->lo = cs.inconsistent ? 0 : exp(cs.lo);
		out->hi = cs.inconsistent ? INFINITY : exp(cs.hi);
		out->conf = conf;
		out->ok = 1;
	} else {
		out->ok = 0;
		out->lo = out->hi = NAN;
	}
	free(d);
}

int gate_any_undecided(const struct gate *g)
{
	for (size_t i = 0; i < g->nr_res; i++)
		if (g->res[i].status == GATE_UNDECIDED)
			return 1;
	return 0;
}
