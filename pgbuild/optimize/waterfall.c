/*
 * waterfall.c - what each optimize stage measured (from its gate JSON),
 * what it added over the build it stacks on, and the keep/drop decision
 * on the cycles estimate of the workloads it was not trained on (its
 * resolution: optimize_resolution, the one place); see optimize.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/optimize/optimize.h"
#include "wrapper/common/xalloc.h"

const char *const optimize_metric_names[OM_NR] = {
	"cycles", "instructions", "i1_misses", "tps", "server_cpu_us",
};

/* A figure of a per-transaction cost: lower is faster, total = stock/build. */
static void cost_figure(struct optimize_figure *f, double stock, double build)
{
	f->stock = stock;
	f->build = build;
	f->total = stock > 0 && build > 0 ? stock / build : NAN;
	f->lo = f->hi = NAN;
}

/* A figure of the paired runs: the medians and the gate's ratio with its
 * interval (tps B/A, server CPU A/B: both a speedup). */
static void paired_figure(struct optimize_figure *f, double stock, double build,
			  const struct stats_ratio *r)
{
	f->stock = stock;
	f->build = build;
	f->total = r->estimate;
	f->lo = r->ok ? r->lo : NAN;
	f->hi = r->ok ? r->hi : NAN;
}

/* The five figures of one gate workload of g (tps and server CPU on the
 * interval the verdict reads: --pairs auto's confidence sequence). */
static void fill_workload(struct optimize_wl *o, const struct gate *g, const struct gate_workload *w,
			  size_t stages)
{
	int cyc = w->cycles == INSTR_OK;
	double conf = 1 - (1 - g->conf) / (double)(stages ? stages : 1);
	const char *src;
	struct stats_ratio r;

	for (int k = 0; k < OM_NR; k++)
		cost_figure(&o->f[k], NAN, NAN);
	if (cyc) {
		cost_figure(&o->f[OM_CYCLES], w->cyc_a.estimate, w->cyc_b.estimate);
		cost_figure(&o->f[OM_I1], w->cyc_a.i1mr, w->cyc_b.i1mr);
	}
	/* instructions from their own measurement, else the cycles run's Ir */
	if (w->instr == INSTR_OK)
		cost_figure(&o->f[OM_INSTRUCTIONS], w->instr_a, w->instr_b);
	else if (cyc)
		cost_figure(&o->f[OM_INSTRUCTIONS], w->cyc_a.ir, w->cyc_b.ir);
	/* the resolution the gate decided at (stock's layout floor, if any),
	 * at the run's Bonferroni level over its stages */
	o->f[OM_CYCLES].floor = cyc ? gate_resolution_at(g, w, GATE_CYCLES, conf, &src) : 0;
	o->f[OM_INSTRUCTIONS].floor = w->instr == INSTR_OK ?
				      gate_resolution_at(g, w, GATE_INSTRUCTIONS, conf, &src) : 0;
	o->f[OM_CYCLES].veto_floor = cyc ? w->cycles_res.value : 0;
	o->f[OM_INSTRUCTIONS].veto_floor = w->instr == INSTR_OK ? w->instr_res.value : 0;
	/* a statistic only when built from a floor at some z (gate.h): the
	 * repeat resolution (--noise none) shows no gain */
	o->f[OM_CYCLES].statistic = cyc && w->cycles_res.z > 0 && w->cycles_res.value > 0;
	o->f[OM_INSTRUCTIONS].statistic = w->instr == INSTR_OK && w->instr_res.z > 0 &&
					  w->instr_res.value > 0;
	if (w->valid_pairs > 0) {
		gate_ratio_of(g, w, GATE_TPS, &r);
		paired_figure(&o->f[OM_TPS], w->tps_a_median, w->tps_b_median, &r);
	}
	if (w->cpu.n > 0) {
		gate_ratio_of(g, w, GATE_SERVER_CPU, &r);
		paired_figure(&o->f[OM_CPU], w->cpu_a_median, w->cpu_b_median, &r);
	}
}

size_t optimize_family(unsigned stages)
{
	size_t k = (size_t)__builtin_popcount(stages & ~(1u << OS_STOCK));
	return k ? k : 1;
}

void optimize_measure_of(struct optimize_measure *m, const struct gate *g, size_t stages)
{
	memset(m, 0, sizeof(*m));
	m->wl = xcalloc(g->nr_wl ? g->nr_wl : 1, sizeof(*m->wl));
	for (size_t i = 0; i < g->nr_wl; i++) {
		m->wl[i].name = xstrdup(g->wl[i].name);
		fill_workload(&m->wl[i], g, &g->wl[i], stages);
		for (size_t k = 0; k < g->nr_res; k++)
			if (g->res[k].th->kind == GATE_TPS && g->res[k].status == GATE_UNDECIDED &&
			    !strcmp(g->res[k].workload, g->wl[i].name))
				m->wl[i].f[OM_TPS].undecided = 1;
	}
	m->nr = g->nr_wl;
}

int optimize_measure_read(struct optimize_measure *m, const char *text, size_t len,
			  struct strbuf *err)
{
	struct gate g;

	memset(m, 0, sizeof(*m));
	memset(&g, 0, sizeof(g));
	if (gate_read_json(&g, text, len, err) < 0) {
		gate_clear(&g);
		return -1;
	}
	optimize_measure_of(m, &g, 1);
	gate_clear(&g);
	return 0;
}

void optimize_measure_clear(struct optimize_measure *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->wl[i].name);
	free(m->wl);
	memset(m, 0, sizeof(*m));
}

const struct optimize_figure *optimize_measure_get(const struct optimize_measure *m,
						   const char *wl, enum optimize_metric k)
{
	for (size_t i = 0; m && i < m->nr; i++)
		if (!strcmp(m->wl[i].name, wl))
			return &m->wl[i].f[k];
	return NULL;
}

double optimize_added(const struct optimize_figure *f, const struct optimize_figure *parent)
{
	double base = parent ? parent->total : 1.0;
	if (!f || !isfinite(f->total) || !isfinite(base) || base <= 0)
		return NAN;
	return f->total / base;
}

/* optimize_resolution of f's floor (veto: its veto_floor). */
static double resolution_of(const struct optimize_figure *f, enum optimize_metric k, int veto)
{
	/* the figures that are a deterministic metric of metric/metrics.h */
	static const unsigned metric_of[OM_NR] = {
		[OM_CYCLES] = METRIC_CYCLES, [OM_INSTRUCTIONS] = METRIC_INSTR,
	};
	const struct metric_desc *d = metrics_of(metric_of[k]);
	double repeat, floor = f ? (veto ? f->veto_floor : f->floor) : 0;
	if (!d || !(d->resolution > 0))
		return NAN;
	repeat = d->resolution;
	/* what the stage's gate decided at (noise/floor.h's rule on stock's
	 * floor and the stage's stand-in, or the repeat one with --noise
	 * none); a gate without a floor decided nothing: infinite, so nothing
	 * is kept on it (optimize_floor stops the run before that can happen) */
	if (isnan(floor))
		return INFINITY;
	return floor > repeat ? floor : repeat;
}

double optimize_resolution(const struct optimize_measure *m, const char *workload,
			   enum optimize_metric k)
{
	return resolution_of(optimize_measure_get(m, workload, k), k, 0);
}

double optimize_veto_resolution(const struct optimize_measure *m, const char *workload,
				enum optimize_metric k)
{
	return resolution_of(optimize_measure_get(m, workload, k), k, 1);
}

int optimize_held_out(const struct strvec *trained_on, const char *workload)
{
	for (size_t i = 0; trained_on && i < trained_on->nr; i++)
		if (!strcmp(trained_on->v[i], workload))
			return 0;
	return 1;
}

/* Does s measure a workload it was not trained on? */
static int has_held_out(const struct optimize_measure *s, const struct strvec *trained_on)
{
	for (size_t i = 0; i < s->nr; i++)
		if (optimize_held_out(trained_on, s->wl[i].name))
			return 1;
	return 0;
}

/* "no layout floor: ..." of workload wl (evidence: "held-out",
 * "in-sample"), whose cycles estimate was decided at a resolution that is
 * no statistic. */
static void no_floor(struct strbuf *reason, const char *wl, const char *evidence, double added,
		     const char *parent_name, double res)
{
	strbuf_addf(reason, "%s (%s): no layout floor: the cycles estimate (%.4fx of %s) was "
		    "decided at the repeat resolution (%.1f%%, --noise none), which cannot show "
		    "a gain (relinking alone moves it 0.3-0.7%%; stock's floor, `pgbuild noise` "
		    "or --noise-variants, can)", wl, evidence, added, parent_name, res * 100);
}

/* Workload i of s against parent: 1 faster by more than the resolution,
 * else 0 with the reason.  On a resolution that is no statistic (the
 * repeat one: --noise none) nothing is faster: no evidence. */
static int decide_workload(const struct optimize_measure *s, size_t i,
			   const struct optimize_measure *parent, const char *parent_name,
			   const char *sample, struct strbuf *reason)
{
	const char *wl = s->wl[i].name;
	const struct optimize_figure *f = &s->wl[i].f[OM_CYCLES];
	const struct optimize_figure *p = parent ? optimize_measure_get(parent, wl, OM_CYCLES) : NULL;
	double res = optimize_resolution(s, wl, OM_CYCLES), added;

	if (!isfinite(f->total)) {
		strbuf_addf(reason, "%s: no cycles estimate (the deciding metric)", wl);
		return 0;
	}
	if (parent && (!p || !isfinite(p->total))) {
		strbuf_addf(reason, "%s: %s has no cycles estimate to compare with", wl, parent_name);
		return 0;
	}
	added = optimize_added(f, p);
	if (sample && !f->statistic) {
		no_floor(reason, wl, sample, added, parent_name, res);
		return 0;
	}
	/* the gate's relative interval (gate/expr.c decide_point): beyond 1
	 * when added x (1 - res) > 1 */
	if (sample && added * (1 - res) <= 1.0) {
		strbuf_addf(reason, "%s (%s): cycles estimate %.4fx of stock, %.4fx of %s "
			    "(not faster than %s at the resolution, %.1f%%)", wl, sample, f->total,
			    added, parent_name, parent_name, res * 100);
		return 0;
	}
	return 1;
}

/*
 * The suite rule on the held-out workloads (see OPTIMIZE_KEEP_RULE): no
 * workload significantly slower than parent (added below 1 - its
 * resolution), and the geometric mean of what the stage added beyond the
 * mean of their resolutions.  The mean of the resolutions, not the
 * resolution of a mean of independent workloads: the layout noise of one
 * relink moves every workload of a build together, so the workloads'
 * noises are not independent, and with them perfectly correlated the mean
 * moves as much as one workload does (tests/unit/test-optimize.c
 * simulates both).  1 kept, 0 with the reason.
 */
static int decide_suite(const struct optimize_measure *s, const struct optimize_measure *parent,
			const char *parent_name, const struct strvec *in_sample,
			struct strbuf *reason)
{
	double logsum = 0, ressum = 0, gm, rm;
	size_t n = 0, last = 0;

	for (size_t i = 0; i < s->nr; i++)
		if (optimize_held_out(in_sample, s->wl[i].name)) {
			n++;
			last = i;
		}
	if (n == 1)
		/* one workload: the rule is that workload's, beyond its resolution */
		return decide_workload(s, last, parent, parent_name, "held-out", reason);
	n = 0;
	for (size_t i = 0; i < s->nr; i++) {
		const char *wl = s->wl[i].name;
		const struct optimize_figure *p = parent ?
			optimize_measure_get(parent, wl, OM_CYCLES) : NULL;
		double res = optimize_resolution(s, wl, OM_CYCLES);
		double veto = optimize_veto_resolution(s, wl, OM_CYCLES);
		double added = optimize_added(&s->wl[i].f[OM_CYCLES], p);
		if (!optimize_held_out(in_sample, wl))
			continue;
		if (!isfinite(res) || !isfinite(added)) {
			strbuf_addf(reason, "%s (held-out): no cycles estimate decided at a layout "
				    "floor", wl);
			return 0;
		}
		if (!s->wl[i].f[OM_CYCLES].statistic) {
			no_floor(reason, wl, "held-out", added, parent_name, res);
			return 0;
		}
		/* a guard against harm: at the gate's own level, never
		 * widened by the stages' family */
		if (added * (1 + veto) < 1.0) {
			strbuf_addf(reason, "%s (held-out): cycles estimate %.4fx of %s, significantly "
				    "slower (beyond the %.2f%% resolution)", wl, added, parent_name,
				    veto * 100);
			return 0;
		}
		logsum += log(added);
		ressum += res;
		n++;
	}
	gm = exp(logsum / (double)n);
	rm = ressum / (double)n;
	if (gm * (1 - rm) <= 1.0) {
		strbuf_addf(reason, "held out: cycles estimate %.4fx of %s as the geometric mean of "
			    "%zu workload%s, not beyond their mean resolution %.2f%%", gm, parent_name,
			    n, n == 1 ? "" : "s", rm * 100);
		return 0;
	}
	return 1;
}

int optimize_decide(const struct optimize_measure *s, const struct optimize_measure *parent,
		    const char *parent_name, const struct strvec *trained_on,
		    struct strbuf *reason)
{
	int held = has_held_out(s, trained_on);

	if (!s->nr) {
		strbuf_addstr(reason, "its gate measured no workload");
		return 0;
	}
	/* every workload needs an estimate; the in-sample ones decide, each
	 * on its own, only when nothing was held out */
	for (size_t i = 0; i < s->nr; i++)
		if (!decide_workload(s, i, parent, parent_name, held ? NULL : "in-sample", reason))
			return 0;
	return held ? decide_suite(s, parent, parent_name, trained_on, reason) : 1;
}

int optimize_keep(const struct gate_verdict *v, const struct optimize_measure *s,
		  const struct optimize_measure *parent, const char *parent_name,
		  const struct strvec *in_sample, struct strbuf *reason)
{
	if (v->ruled_out) {
		strbuf_addf(reason, "the gate rules it out: %s", v->why ? v->why : "no verdict");
		return 0;
	}
	return optimize_decide(s, parent, parent_name, in_sample, reason);
}

const char *optimize_evidence(const struct optimize_measure *s, const struct strvec *trained_on)
{
	return has_held_out(s, trained_on) ? "held-out" : "in-sample";
}

void optimize_gain(const struct optimize_measure *s, const struct optimize_measure *parent,
		   const struct strvec *trained_on, int held_out, struct optimize_gain *g)
{
	double lt = 0, la = 0;
	size_t na = 0;

	g->n = 0;
	for (size_t i = 0; i < s->nr; i++) {
		const struct optimize_figure *f = &s->wl[i].f[OM_CYCLES];
		double a;
		if (optimize_held_out(trained_on, s->wl[i].name) != held_out || !isfinite(f->total) ||
		    f->total <= 0)
			continue;
		lt += log(f->total);
		g->n++;
		a = optimize_added(f, parent ? optimize_measure_get(parent, s->wl[i].name,
								    OM_CYCLES) : NULL);
		if (isfinite(a) && a > 0) {
			la += log(a);
			na++;
		}
	}
	g->total = g->n ? exp(lt / g->n) : NAN;
	g->added = na ? exp(la / na) : NAN;
}

double optimize_score(const struct optimize_measure *m)
{
	double sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < m->nr; i++) {
		double t = m->wl[i].f[OM_CYCLES].total;
		if (isfinite(t) && t > 0) {
			sum += log(t);
			n++;
		}
	}
	return n ? exp(sum / n) : NAN;
}

int optimize_beats(const struct optimize_measure *a, const struct strvec *a_in,
		   const struct optimize_measure *b, const struct strvec *b_in,
		   struct strbuf *why)
{
	double sum = 0, res = 0, ratio;
	size_t n = 0;

	for (size_t i = 0; i < a->nr; i++) {
		const char *wl = a->wl[i].name;
		const struct optimize_figure *fa = &a->wl[i].f[OM_CYCLES];
		const struct optimize_figure *fb = optimize_measure_get(b, wl, OM_CYCLES);
		double ra, rb;
		if (!optimize_held_out(a_in, wl) || !optimize_held_out(b_in, wl) || !fb ||
		    !isfinite(fa->total) || !isfinite(fb->total) || fa->total <= 0 || fb->total <= 0)
			continue;
		sum += log(fa->total / fb->total);
		n++;
		ra = optimize_resolution(a, wl, OM_CYCLES);
		rb = optimize_resolution(b, wl, OM_CYCLES);
		res = fmax(res, fmax(isfinite(ra) ? ra : 0, isfinite(rb) ? rb : 0));
	}
	if (!n) {
		strbuf_addstr(why, "no workload is held out for both builds");
		return 0;
	}
	ratio = exp(sum / (double)n);
	strbuf_addf(why, "%.4fx on %zu workload%s held out for both (resolution %.2f%%)", ratio, n,
		    n == 1 ? "" : "s", res * 100);
	return ratio * (1 - res) > 1.0;
}
