/*
 * waterfall.c - what each optimize stage measured (from its gate JSON),
 * what it added over the build it stacks on, and the keep/drop decision
 * on the cycles estimate; see optimize.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/gate.h"
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

/* The five figures of one gate workload. */
static void fill_workload(struct optimize_wl *o, const struct gate_workload *w)
{
	int cyc = w->cycles == INSTR_OK;

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
	if (w->valid_pairs > 0)
		paired_figure(&o->f[OM_TPS], w->tps_a_median, w->tps_b_median, &w->tps);
	if (w->cpu.n > 0)
		paired_figure(&o->f[OM_CPU], w->cpu_a_median, w->cpu_b_median, &w->cpu);
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
	m->wl = xcalloc(g.nr_wl ? g.nr_wl : 1, sizeof(*m->wl));
	for (size_t i = 0; i < g.nr_wl; i++) {
		m->wl[i].name = xstrdup(g.wl[i].name);
		fill_workload(&m->wl[i], &g.wl[i]);
	}
	m->nr = g.nr_wl;
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

int optimize_decide(const struct optimize_measure *s, const struct optimize_measure *parent,
		    const char *parent_name, struct strbuf *reason)
{
	if (!s->nr) {
		strbuf_addstr(reason, "its gate measured no workload");
		return 0;
	}
	for (size_t i = 0; i < s->nr; i++) {
		const struct optimize_figure *f = &s->wl[i].f[OM_CYCLES];
		const struct optimize_figure *p =
			parent ? optimize_measure_get(parent, s->wl[i].name, OM_CYCLES) : NULL;
		double added;

		if (!isfinite(f->total)) {
			strbuf_addf(reason, "%s: no cycles estimate (the deciding metric)",
				    s->wl[i].name);
			return 0;
		}
		if (parent && (!p || !isfinite(p->total))) {
			strbuf_addf(reason, "%s: %s has no cycles estimate to compare with",
				    s->wl[i].name, parent_name);
			return 0;
		}
		added = optimize_added(f, p);
		if (added <= 1.0 + CYCLES_RESOLUTION) {
			strbuf_addf(reason, "%s: cycles estimate %.4fx of stock, %.4fx of %s "
				    "(not faster than %s at the gate's resolution, %.1f%%)",
				    s->wl[i].name, f->total, added, parent_name, parent_name,
				    CYCLES_RESOLUTION * 100);
			return 0;
		}
	}
	return 1;
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
