/*
 * html.c - the HTML report: one file, inline CSS and SVG, no script and no
 * network (a Content-Security-Policy meta tag forbids any fetch); see html.h.
 *
 * Plots are drawn with the SVG helper of svg.h.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/verdict.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/report/html.h"
#include "pgbuild/report/svg.h"
#include "wrapper/common/json.h"
#include "wrapper/common/xalloc.h"

#define COLOR_A "#1f77b4"
#define COLOR_B "#e6550d"

/* ---------------- data helpers ---------------- */

/* A run's per-second throughput from the bench JSON "timeline". */
static size_t run_timeline(const struct gate_run *r, double **xs, double **ys)
{
	struct json_value *v;
	const struct json_value *tl;
	size_t n = 0;
	double prev_t = 0, elapsed;
	*xs = *ys = NULL;
	if (!r->json)
		return 0;
	v = json_parse(r->json, strlen(r->json), NULL);
	tl = json_get(v, "timeline");
	/* a last bucket that only holds the run's final instants is not a rate */
	elapsed = json_get_num(v, "elapsed_s", INFINITY);
	if (json_len(tl)) {
		*xs = xcalloc(json_len(tl), sizeof(double));
		*ys = xcalloc(json_len(tl), sizeof(double));
	}
	for (size_t i = 0; i < json_len(tl); i++) {
		const struct json_value *e = json_at(tl, i);
		double t = (double)i + 1, y = NAN;
		if (e->type == JSON_NUMBER) {
			y = e->u.number;
		} else if (e->type == JSON_OBJECT) {
			t = json_get_num(e, "t", json_get_num(e, "second",
					 json_get_num(e, "time", json_get_num(e, "s", t))));
			y = json_get_num(e, "tps", NAN);
			if (!isfinite(y)) {
				/* pgbuild bench: transactions per interval of t seconds */
				double dt = t - prev_t;
				y = json_get_num(e, "transactions", NAN);
				if (dt > 0)
					y /= dt;
			}
			prev_t = t;
		}
		if (!isfinite(y) || t > elapsed + 0.5)
			continue;
		(*xs)[n] = t;
		(*ys)[n] = y;
		n++;
	}
	json_free(v);
	return n;
}

static int usable(const struct gate_run *r)
{
	return r && r->exit == 0 && isfinite(r->tps) && r->tps > 0;
}

/* Per-pair ratio of metric (tps when lat < 0) in pair order. */
static size_t pair_ratios(const struct gate_workload *w, int lat, double *out, int *pairs)
{
	int maxp = -1;
	size_t n = 0;
	for (size_t i = 0; i < w->nr_runs; i++)
		if (w->runs[i].pair > maxp)
			maxp = w->runs[i].pair;
	for (int p = 0; p <= maxp; p++) {
		const struct gate_run *a = NULL, *b = NULL;
		for (size_t i = 0; i < w->nr_runs; i++)
			if (w->runs[i].pair == p) {
				if (w->runs[i].build == 'A')
					a = &w->runs[i];
				else
					b = &w->runs[i];
			}
		if (!usable(a) || !usable(b))
			continue;
		out[n] = lat < 0 ? b->tps / a->tps : b->lat[lat] / a->lat[lat];
		pairs[n] = p + 1;
		n++;
	}
	return n;
}

/* ---------------- sections ---------------- */

static void plot_timeline(struct strbuf *o, const struct gate_workload *w)
{
	struct plot p;
	double xmax = 0, ymin = INFINITY, ymax = -INFINITY;
	size_t any = 0;
	const char *labels[] = { "A baseline", "B candidate" }, *colors[] = { COLOR_A, COLOR_B };
	char title[160];

	for (size_t i = 0; i < w->nr_runs; i++) {
		double *xs, *ys;
		size_t n = run_timeline(&w->runs[i], &xs, &ys);
		for (size_t k = 0; k < n; k++) {
			xmax = xs[k] > xmax ? xs[k] : xmax;
			ymin = ys[k] < ymin ? ys[k] : ymin;
			ymax = ys[k] > ymax ? ys[k] : ymax;
		}
		any += n;
		free(xs);
		free(ys);
	}
	snprintf(title, sizeof(title), "%s: throughput over time, every run", w->name);
	if (!any) {
		strbuf_addstr(o, "<p class=\"note\">No per-second timeline in the bench results.</p>\n");
		return;
	}
	plot_init(&p, o, 560, 260);
	p.x0 = 0;
	p.x1 = xmax;
	p.y0 = ymin;
	p.y1 = ymax;
	plot_pad_range(&p.y0, &p.y1, 0.05);
	if (p.y0 < 0)
		p.y0 = 0;
	plot_begin(&p, title, "second of the run", "tps", 1);
	for (size_t i = 0; i < w->nr_runs; i++) {
		double *xs, *ys;
		size_t n = run_timeline(&w->runs[i], &xs, &ys);
		plot_polyline(&p, xs, ys, n, w->runs[i].build == 'A' ? COLOR_A : COLOR_B, 1.5, 0.7);
		free(xs);
		free(ys);
	}
	plot_legend(&p, 2, labels, colors);
	plot_end(&p);
}

static void plot_runs(struct strbuf *o, const struct gate_workload *w)
{
	struct plot p;
	double ymin = INFINITY, ymax = -INFINITY;
	const char *labels[] = { "A baseline", "B candidate" }, *colors[] = { COLOR_A, COLOR_B };
	char title[160], tip[96];
	for (size_t i = 0; i < w->nr_runs; i++)
		if (usable(&w->runs[i])) {
			ymin = w->runs[i].tps < ymin ? w->runs[i].tps : ymin;
			ymax = w->runs[i].tps > ymax ? w->runs[i].tps : ymax;
		}
	if (!isfinite(ymin))
		return;
	snprintf(title, sizeof(title), "%s: throughput of each run, in execution order", w->name);
	plot_init(&p, o, 560, 260);
	p.x0 = 0.5;
	p.x1 = (double)w->nr_runs + 0.5;
	p.y0 = ymin;
	p.y1 = ymax;
	plot_pad_range(&p.y0, &p.y1, 0.1);
	plot_begin(&p, title, "run", "tps", 1);
	for (size_t i = 0; i < w->nr_runs; i++) {
		const struct gate_run *r = &w->runs[i];
		snprintf(tip, sizeof(tip), "pair %d, %c: %.0f tps", r->pair + 1, r->build, r->tps);
		if (usable(r))
			plot_point(&p, (double)i + 1, r->tps, r->build == 'A' ? COLOR_A : COLOR_B, tip);
	}
	plot_legend(&p, 2, labels, colors);
	plot_end(&p);
}

static void plot_latency(struct strbuf *o, const struct gate_workload *w)
{
	/* the percentile curve: p50 p90 p99 p99.9 max (indices into gate_lat_keys) */
	static const int keys[] = { 1, 2, 3, 4, 5 };
	static const char *names[] = { "p50", "p90", "p99", "p99.9", "max" };
	double xs[5], ya[5], yb[5], ymax = 0, ymin = INFINITY;
	const char *labels[] = { "A baseline", "B candidate" }, *colors[] = { COLOR_A, COLOR_B };
	struct plot p;
	char title[160];
	int any = 0;

	for (int i = 0; i < 5; i++) {
		xs[i] = i;
		ya[i] = w->lat_a_median[keys[i]];
		yb[i] = w->lat_b_median[keys[i]];
		if (isfinite(ya[i]) && ya[i] > ymax)
			ymax = ya[i];
		if (isfinite(yb[i]) && yb[i] > ymax)
			ymax = yb[i];
		if (isfinite(ya[i]) && ya[i] > 0 && ya[i] < ymin)
			ymin = ya[i];
		if (isfinite(yb[i]) && yb[i] > 0 && yb[i] < ymin)
			ymin = yb[i];
		any |= isfinite(ya[i]) || isfinite(yb[i]);
	}
	if (!any)
		return;
	snprintf(title, sizeof(title), "%s: latency distribution (median over pairs)", w->name);
	plot_init(&p, o, 560, 260);
	p.x0 = -0.3;
	p.x1 = 4.3;
	if (!isfinite(ymin) || !(ymax > 0))
		return;
	/* log scale: p50 and max differ by orders of magnitude */
	p.logy = 1;
	p.y0 = pow(10, floor(log10(ymin)));
	p.y1 = pow(10, ceil(log10(ymax * 1.0001)));
	/* a latency near DBL_MAX (a corrupt result) has no decade to draw */
	if (!isfinite(p.y1) || !(p.y0 > 0))
		return;
	plot_begin(&p, title, "percentile", "latency ms (log scale)", 0);
	for (int i = 0; i < 5; i++)
		strbuf_addf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
			    plot_x(&p, i), p.h - p.mb + 14, names[i]);
	/* every run, faint */
	for (size_t r = 0; r < w->nr_runs; r++) {
		double y[5];
		if (!usable(&w->runs[r]))
			continue;
		for (int i = 0; i < 5; i++)
			y[i] = w->runs[r].lat[keys[i]];
		plot_polyline(&p, xs, y, 5, w->runs[r].build == 'A' ? COLOR_A : COLOR_B, 1, 0.15);
	}
	plot_polyline(&p, xs, ya, 5, COLOR_A, 2.5, 1);
	plot_polyline(&p, xs, yb, 5, COLOR_B, 2.5, 1);
	for (int i = 0; i < 5; i++) {
		char tip[64];
		snprintf(tip, sizeof(tip), "A %s %.3f ms", names[i], ya[i]);
		plot_point(&p, xs[i], ya[i], COLOR_A, tip);
		snprintf(tip, sizeof(tip), "B %s %.3f ms", names[i], yb[i]);
		plot_point(&p, xs[i], yb[i], COLOR_B, tip);
	}
	plot_legend(&p, 2, labels, colors);
	plot_end(&p);
}

static void plot_ratios(struct strbuf *o, const struct gate *g, const struct gate_workload *w)
{
	double *r = xcalloc(w->nr_runs + 1, sizeof(double));
	int *pairs = xcalloc(w->nr_runs + 1, sizeof(int));
	size_t n = pair_ratios(w, -1, r, pairs);
	double lo = 1, hi = 1;
	struct plot p;
	struct stats_ratio iv;
	int band;
	char title[160], tip[64], lab[64];

	if (!n)
		goto out;
	/* the interval the verdict reads (--pairs auto: the sequence, drawn
	 * only once bounded on both sides) */
	gate_ratio_of(g, w, GATE_TPS, &iv);
	band = iv.ok && isfinite(iv.lo) && isfinite(iv.hi) && iv.lo > 0;
	for (size_t i = 0; i < n; i++) {
		lo = r[i] < lo ? r[i] : lo;
		hi = r[i] > hi ? r[i] : hi;
	}
	if (band) {
		lo = iv.lo < lo ? iv.lo : lo;
		hi = iv.hi > hi ? iv.hi : hi;
	}
	for (size_t i = 0; i < g->th.nr; i++) {
		const struct gate_threshold *t = &g->th.v[i];
		if (t->kind == GATE_TPS && (!t->workload || !strcmp(t->workload, w->name))) {
			lo = t->value < lo ? t->value : lo;
			hi = t->value > hi ? t->value : hi;
		}
	}
	snprintf(title, sizeof(title), "%s: throughput ratio B/A per pair, %.0f%% interval",
		 w->name, g->conf * 100);
	plot_init(&p, o, 560, 260);
	p.x0 = 0.5;
	p.x1 = (double)pairs[n - 1] + 0.5;
	p.y0 = lo;
	p.y1 = hi;
	plot_pad_range(&p.y0, &p.y1, 0.1);
	plot_begin(&p, title, "pair", "B/A", 1);
	if (band) {
		plot_band(&p, iv.lo, iv.hi, COLOR_B);
		snprintf(lab, sizeof(lab), "estimate %.4f", w->tps.estimate);
		plot_hline(&p, w->tps.estimate, "est", lab, 2);
	}
	plot_hline(&p, 1.0, "one", "no change", 1);
	for (size_t i = 0; i < g->th.nr; i++) {
		const struct gate_threshold *t = &g->th.v[i];
		if (t->kind == GATE_TPS && (!t->workload || !strcmp(t->workload, w->name)) && t->value != 1) {
			snprintf(lab, sizeof(lab), "threshold %g", t->value);
			plot_hline(&p, t->value, "thr", lab, 0);
		}
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(tip, sizeof(tip), "pair %d: %.4f", pairs[i], r[i]);
		plot_point(&p, pairs[i], r[i], "#333", tip);
	}
	plot_end(&p);
out:
	free(r);
	free(pairs);
}

static void cell_num(struct strbuf *o, double v, const char *fmt)
{
	strbuf_addstr(o, "<td class=\"n\">");
	if (isfinite(v))
		strbuf_addf(o, fmt, v);
	else
		strbuf_addstr(o, "&ndash;");
	strbuf_addstr(o, "</td>");
}

static void cell_text(struct strbuf *o, const char *s, const char *cls)
{
	if (cls)
		strbuf_addf(o, "<td class=\"%s\">", cls);
	else
		strbuf_addstr(o, "<td>");
	strbuf_addstr_html(o, s);
	strbuf_addstr(o, "</td>");
}

/* <h2>Title</h2>: a metric's title, capitalised. */
static void heading(struct strbuf *o, const char *title)
{
	strbuf_addf(o, "<h2>%c%s</h2>\n", toupper((unsigned char)title[0]), title + 1);
}

/* The cycles estimate and its parts: A, B and A/B per workload. */
static void section_cycles(struct strbuf *o, const struct gate *g)
{
	const struct metric_desc *m = metrics_of(METRIC_CYCLES);
	if (!gate_any_cycles(g))
		return;
	heading(o, m->title);
	strbuf_addstr(o, "<p class=\"note\">The server in single-user mode under callgrind; ");
	strbuf_addstr_html(o, m->method);
	strbuf_addch(o, '.');
	strbuf_addstr(o, "</p>\n<table><tr><th>workload</th><th>per transaction</th><th>A</th>"
		      "<th>B</th><th>A/B</th></tr>\n");
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		double va[GATE_CYCLES_ROWS], vb[GATE_CYCLES_ROWS];
		if (w->cycles == INSTR_NOT_MEASURED)
			continue;
		gate_cycles_rows(w, va, vb);
		if (w->cycles != INSTR_OK) {
			strbuf_addstr(o, "<tr>");
			cell_text(o, w->name, NULL);
			strbuf_addstr(o, "<td colspan=\"4\" class=\"fail\">unavailable: ");
			strbuf_addstr_html(o, w->cycles_note ? w->cycles_note : "?");
			strbuf_addstr(o, "</td></tr>\n");
			continue;
		}
		for (size_t k = 0; k < m->nrows; k++) {
			const char *f = va[k] < 100 ? "%.2f" : "%.0f";
			strbuf_addstr(o, k == m->decides ? "<tr class=\"total\">" : "<tr>");
			cell_text(o, k ? "" : w->name, NULL);
			cell_text(o, m->rows[k].label, NULL);
			cell_num(o, va[k], f);
			cell_num(o, vb[k], f);
			cell_num(o, vb[k] > 0 ? va[k] / vb[k] : NAN, "%.4f");
			strbuf_addstr(o, "</tr>\n");
		}
	}
	strbuf_addstr(o, "</table>\n");
}

/* Where each workload's estimate changed: the gate's explain sections. */
static void section_explain(struct strbuf *o, const struct gate *g)
{
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		struct json_value *doc;
		if (!w->explain_json)
			continue;
		doc = json_parse(w->explain_json, strlen(w->explain_json), NULL);
		if (doc && explain_doc_check(doc, NULL) == 0)
			explain_render_html(doc, EXPLAIN_KEEP_ROWS, o);
		json_free(doc);
	}
}

/*
 * Every threshold's ratio with its interval, one row each, against 1 and
 * the threshold: the plot a reader wants first.  The x axis is the
 * speedup (> 1 better; latency thresholds as B/A, < 1 better, are drawn
 * as A/B so that right is better everywhere).
 */
static void plot_thresholds(struct strbuf *o, const struct gate *g)
{
	const int w = 1000, row = 26, ml = 330, mr = 30, mt = 34, mb = 34;
	size_t n = 0;
	double lo = 1, hi = 1;
	int h;

	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		int flip = r->th->kind == GATE_LATENCY;
		double a = flip ? 1 / r->hi : r->lo, b = flip ? 1 / r->lo : r->hi;
		double t = flip ? 1 / r->th->value : r->th->value;
		if (!isfinite(r->observed))
			continue;
		n++;
		if (isfinite(a) && a > 0)
			lo = fmin(lo, a);
		if (isfinite(b))
			hi = fmax(hi, b);
		lo = fmin(lo, t);
		hi = fmax(hi, t);
	}
	if (!n)
		return;
	plot_pad_range(&lo, &hi, 0.08);
	h = mt + mb + row * (int)n;
#define FX(x) (ml + ((x) - lo) / (hi - lo) * (w - ml - mr))
	strbuf_addf(o, "<svg class=\"forest\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		    "role=\"img\"><text class=\"pt\" x=\"4\" y=\"18\">each threshold: the "
		    "ratio (right is better) with its %.0f%% interval or resolution; | the "
		    "threshold, dashed 1 (no change)</text>\n", w, h, w, h, g->conf * 100);
	strbuf_addf(o, "<line class=\"one\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
		    FX(1.0), mt - 6, FX(1.0), h - mb + 4);
	for (int k = 0; k <= 4; k++) {
		double x = lo + (hi - lo) * k / 4;
		strbuf_addf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
			    "%.3f</text>\n", FX(x), h - mb + 20, x);
	}
	n = 0;
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		int flip = r->th->kind == GATE_LATENCY, y = mt + row * (int)n + row / 2;
		double e = flip ? 1 / r->observed : r->observed;
		double a = flip ? 1 / r->hi : r->lo, b = flip ? 1 / r->lo : r->hi;
		double t = flip ? 1 / r->th->value : r->th->value;
		const char *cls = r->status == GATE_PASS ? "pass" : r->status == GATE_FAIL ? "fail" :
				  "error";
		if (!isfinite(r->observed))
			continue;
		n++;
		strbuf_addf(o, "<text class=\"lab\" x=\"4\" y=\"%d\">", y + 4);
		strbuf_addstr_html(o, r->workload);
		strbuf_addstr(o, ": ");
		strbuf_addstr_html(o, r->th->text);
		strbuf_addf(o, " <tspan class=\"%s\">%s</tspan></text>\n", cls,
			    gate_status_name(r->status));
		if (isfinite(a) && isfinite(b) && a > 0)
			strbuf_addf(o, "<line class=\"ci\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				    "y2=\"%d\"/>\n", FX(fmax(a, lo)), y, FX(fmin(b, hi)), y);
		strbuf_addf(o, "<circle class=\"est\" cx=\"%.1f\" cy=\"%d\" r=\"4\"><title>%.4f "
			    "[%.4f, %.4f]</title></circle>\n", FX(e), y, e, a, b);
		strbuf_addf(o, "<line class=\"thr\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			    "y2=\"%d\"/>\n", FX(t), y - 9, FX(t), y + 9);
	}
#undef FX
	strbuf_addstr(o, "</svg>\n");
}

/* The settings object of the gate as rows (not raw JSON). */
static void settings_rows(struct strbuf *o, const char *settings_json)
{
	struct json_value *v = json_parse(settings_json, strlen(settings_json), NULL);
	if (!v || v->type != JSON_OBJECT) {
		json_free(v);
		return;
	}
	for (size_t i = 0; i < v->u.list.nr; i++) {
		const struct json_value *x = v->u.list.items[i];
		char *text = x->type == JSON_STRING ? xstrdup(x->u.str.s) : gate_json_text(x);
		strbuf_addstr(o, "<tr><th>");
		strbuf_addstr_html(o, v->u.list.keys[i]);
		strbuf_addstr(o, "</th><td>");
		strbuf_addstr_html(o, text);
		strbuf_addstr(o, "</td></tr>");
		free(text);
	}
	json_free(v);
}

/* An interval's cell: "[lo, hi]", or empty when there is none. */
static void cell_interval(struct strbuf *o, int ok, double lo, double hi)
{
	char ci[64] = "";

	if (ok)
		snprintf(ci, sizeof(ci), "[%.4f, %.4f]", lo, hi);
	cell_text(o, ci, "n");
}

/* The first screen: the verdict, why, the findings, the thresholds plotted. */
static void section_gate_verdict(struct strbuf *o, const struct gate *g)
{
	struct gate_verdict v = GATE_VERDICT_INIT;
	struct strbuf f = STRBUF_INIT;
	const char *word;

	gate_verdict_of(g, &v);
	gate_findings(g, &f);
	word = gate_verdict_word(&v);
	strbuf_addf(o, "<div class=\"verdict %s\">%s</div>\n<p class=\"why\">",
		    v.ruled_out ? (v.unmeasured ? "error" : "fail") :
		    !strcmp(word, "faster") ? "pass" : !strcmp(word, "undecided") ? "undecided" :
		    "neutral", gate_verdict_headline(&v));
	strbuf_addstr_html(o, v.why);
	strbuf_addstr(o, "</p>\n<ul class=\"findings\">\n");
	for (const char *l = f.buf; *l;) {
		size_t len = strcspn(l, "\n");
		char *line = xstrndup(l, len);
		strbuf_addstr(o, "<li>");
		strbuf_addstr_html(o, line);
		strbuf_addstr(o, "</li>\n");
		free(line);
		l += len + (l[len] ? 1 : 0);
	}
	strbuf_addstr(o, "</ul>\n");
	plot_thresholds(o, g);
	gate_verdict_clear(&v);
	strbuf_release(&f);
}

/* The builds compared and the gate's settings, folded. */
static void section_gate_builds(struct strbuf *o, const struct report_data *rd)
{
	const struct gate *g = &rd->gate;

	strbuf_addstr(o, "<details><summary>Builds and settings</summary>\n"
		      "<table class=\"kv\"><tr><th>A (baseline)</th><td>");
	strbuf_addstr_html(o, rd->baseline);
	strbuf_addstr(o, "</td></tr><tr><th>B (candidate)</th><td>");
	strbuf_addstr_html(o, rd->candidate);
	strbuf_addstr(o, "</td></tr><tr><th>interval</th><td>");
	strbuf_addstr_html(o, stats_method_name(g->method));
	strbuf_addf(o, ", %.0f%%", g->conf * 100);
	{
		struct strbuf lv = STRBUF_INIT;
		report_levels_note(g, &lv);
		strbuf_addstr_html(o, lv.buf);
		strbuf_release(&lv);
	}
	strbuf_addf(o, "</td></tr><tr><th>regression suite</th><td>%s",
		    g->regress == REGRESS_PASSED ? "passed" : g->regress == REGRESS_FAILED ?
		    "<b class=\"fail\">FAILED</b>" : "not run");
	if (g->regress_note) {
		strbuf_addstr(o, " &ndash; ");
		strbuf_addstr_html(o, g->regress_note);
	}
	strbuf_addstr(o, "</td></tr>");
	if (rd->settings_json)
		settings_rows(o, rd->settings_json);
	strbuf_addstr(o, "</table>\n</details>\n");
}

/* Every threshold's result, a row each. */
static void section_gate_thresholds(struct strbuf *o, const struct gate *g)
{
	strbuf_addstr(o, "<details open><summary>Thresholds</summary>\n<table><tr><th>status</th><th>threshold</th>"
		      "<th>workload</th><th>observed</th><th>interval</th><th>why</th></tr>\n");
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		strbuf_addstr(o, "<tr>");
		cell_text(o, gate_status_name(r->status), gate_status_name(r->status));
		cell_text(o, r->th->text, NULL);
		cell_text(o, r->workload, NULL);
		cell_num(o, r->observed, "%.4f");
		cell_interval(o, isfinite(r->lo), r->lo, r->hi);
		cell_text(o, r->message, NULL);
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</table>\n</details>\n");
}

/* One workload's row of the figures table. */
static void section_gate_row(struct strbuf *o, const struct gate *g,
			     const struct gate_workload *w)
{
	int p99 = gate_lat_index("p99");
	struct stats_ratio iv;

	strbuf_addstr(o, "<tr>");
	cell_text(o, w->name, NULL);
	cell_num(o, (double)w->valid_pairs, "%.0f");
	cell_num(o, w->tps_a_median, "%.0f");
	cell_num(o, w->tps_b_median, "%.0f");
	cell_num(o, w->tps.median, "%.4f");
	cell_num(o, w->tps.estimate, "%.4f");
	/* the interval the verdict reads (--pairs auto: the sequence) */
	gate_ratio_of(g, w, GATE_TPS, &iv);
	cell_interval(o, iv.ok, iv.lo, iv.hi);
	cell_num(o, w->tps.p_two_sided, "%.3g");
	cell_num(o, w->tps.noise_floor_pct, "%.1f%%");
	cell_num(o, w->lat_a_median[p99], "%.3f");
	cell_num(o, w->lat_b_median[p99], "%.3f");
	cell_num(o, w->lat[p99].estimate, "%.4f");
	cell_num(o, w->cpu_a_median, "%.2f");
	cell_num(o, w->cpu_b_median, "%.2f");
	cell_num(o, w->cpu.estimate, "%.4f");
	gate_ratio_of(g, w, GATE_SERVER_CPU, &iv);
	cell_interval(o, iv.ok, iv.lo, iv.hi);
	cell_text(o, w->correctness_failed ? "FAILED" : "ok", w->correctness_failed ? "fail" : "pass");
	strbuf_addstr(o, "</tr>\n");
}

/* Every figure of the paired runs, a row per workload that ran, folded;
 * then each such workload's runs plotted. */
static void section_gate_workloads(struct strbuf *o, const struct gate *g)
{
	strbuf_addstr(o, "<details><summary>Workloads: every figure of the paired runs</summary>\n"
		      "<div class=\"wide\"><table><tr><th>workload</th><th>valid pairs</th>"
		      "<th>tps A</th><th>tps B</th><th title=\"median of the per-pair ratios\">median "
		      "B/A</th><th title=\"the interval's point estimate\">B/A estimate</th>"
		      "<th>interval</th><th>p-value</th>"
		      "<th>noise floor</th><th>p99 A ms</th><th>p99 B ms</th><th>p99 B/A</th>"
		      "<th title=\"user+system CPU of the server's processes per transaction\">"
		      "server CPU A &micro;s/tx</th><th>server CPU B &micro;s/tx</th>"
		      "<th title=\"&gt; 1: B cheaper\">server CPU A/B</th><th>interval</th>"
		      "<th>correctness</th></tr>\n");
	for (size_t i = 0; i < g->nr_wl; i++)
		if (g->wl[i].nr_runs)
			section_gate_row(o, g, &g->wl[i]);
	strbuf_addstr(o, "</table></div>\n</details>\n");

	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		if (!w->nr_runs)
			continue;
		strbuf_addstr(o, "<h2>");
		strbuf_addstr_html(o, w->name);
		strbuf_addstr(o, "</h2>\n<div class=\"plots\">\n");
		plot_ratios(o, g, w);
		plot_timeline(o, w);
		plot_latency(o, w);
		plot_runs(o, w);
		strbuf_addstr(o, "</div>\n");
	}
}

/* The instructions of A and B per workload, when any were counted. */
static void section_gate_instructions(struct strbuf *o, const struct gate *g)
{
	int any = 0;

	for (size_t i = 0; i < g->nr_wl; i++)
		any |= g->wl[i].instr != INSTR_NOT_MEASURED;
	if (!any)
		return;
	heading(o, metrics_of(METRIC_INSTR)->title);
	strbuf_addstr(o, "<p class=\"note\">Counted by ");
	strbuf_addstr_html(o, !g->counter ? "callgrind" : !strcmp(g->counter, "perf") ?
		    "perf stat (hardware counters)" : g->counter);
	strbuf_addstr(o, " on the server in single-user mode");
	if (g->counter_note) {
		strbuf_addstr(o, " (");
		strbuf_addstr_html(o, g->counter_note);
		strbuf_addstr(o, ")");
	}
	strbuf_addstr(o, ". Instructions are a proxy: "
		      "deterministic, but blind to cache misses, branch mispredictions and "
		      "memory stalls.</p>\n<table><tr><th>workload</th><th>A</th><th>B</th>"
		      "<th>speedup A/B</th><th>how</th></tr>\n");
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		if (w->instr == INSTR_NOT_MEASURED)
			continue;
		strbuf_addstr(o, "<tr>");
		cell_text(o, w->name, NULL);
		if (w->instr == INSTR_OK) {
			cell_num(o, w->instr_a, "%.0f");
			cell_num(o, w->instr_b, "%.0f");
			cell_num(o, w->instr_a / w->instr_b, "%.4f");
		} else {
			strbuf_addstr(o, "<td colspan=\"3\" class=\"fail\">unavailable</td>");
		}
		cell_text(o, w->instr_note ? w->instr_note : "", NULL);
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</table>\n");
}

/* The gate's section: what was found first, then the builds, the
 * thresholds, the workloads and the deterministic metrics. */
static void section_gate(struct strbuf *o, const struct report_data *rd)
{
	const struct gate *g = &rd->gate;

	section_gate_verdict(o, g);
	section_gate_builds(o, rd);
	section_gate_thresholds(o, g);
	section_gate_workloads(o, g);
	strbuf_addstr(o, "<details><summary>Instructions, the cycles estimate and where it "
		      "changed</summary>\n");
	section_gate_instructions(o, g);
	section_cycles(o, g);
	section_explain(o, g);
	strbuf_addstr(o, "</details>\n");
}

/* The flag sets, then every unit in their order (hot ones marked). */
static void section_tus(struct strbuf *o, const struct report_data *rd)
{
	struct report_flagset *sets;
	size_t n = report_flagsets(rd, &sets);
	strbuf_addf(o, "<h2>Translation units and their flags</h2>\n<p>%zu of %zu translation "
		    "units compiled with changed flags (from the compile log), in %zu flag set%s.</p>\n",
		    rd->nr_tus, rd->tus_total, n, n == 1 ? "" : "s");
	if (!rd->nr_tus) {
		report_flagsets_free(sets, n);
		return;
	}
	strbuf_addstr(o, "<table><tr><th>units</th><th>of them with hot-listed functions</th>"
		      "<th>added</th><th>removed</th><th>policy rules</th></tr>\n");
	for (size_t k = 0; k < n; k++) {
		struct strbuf rules = STRBUF_INIT;
		for (size_t r = 0; r < sets[k].rules.nr; r++)
			strbuf_addf(&rules, "%s%s", r ? " " : "", sets[k].rules.v[r]);
		strbuf_addstr(o, "<tr>");
		cell_num(o, (double)sets[k].n, "%.0f");
		cell_num(o, (double)sets[k].nhot, "%.0f");
		cell_text(o, sets[k].added, "mono");
		cell_text(o, sets[k].removed, "mono");
		cell_text(o, rules.buf, "mono");
		strbuf_addstr(o, "</tr>\n");
		strbuf_release(&rules);
	}
	strbuf_addstr(o, "</table>\n<table><tr><th>translation unit</th><th>added</th>"
		      "<th>removed</th><th>policy rules</th><th>hot list</th></tr>\n");
	for (size_t k = 0; k < n; k++) {
		for (size_t j = 0; j < sets[k].n; j++) {
			const struct report_tu *t = &rd->tus[sets[k].units[j]];
			strbuf_addstr(o, "<tr>");
			cell_text(o, t->tu, "mono");
			cell_text(o, t->added, "mono");
			cell_text(o, t->removed, "mono");
			cell_text(o, t->rules, "mono");
			cell_text(o, report_tu_is_hot(rd, t->tu) ? "marks functions" : "", NULL);
			strbuf_addstr(o, "</tr>\n");
		}
	}
	strbuf_addstr(o, "</table>\n");
	report_flagsets_free(sets, n);
}

#define HTML_FN_ROWS 50

static void section_functions(struct strbuf *o, const struct report_data *rd)
{
	if (!rd->fns_a || !rd->fns_b) {
		strbuf_addf(o, "<h2>Functions</h2>\n<p>%s: %zu functions; %s none (no function "
			    "symbols, or not given): nothing to compare.</p>\n",
			    rd->fns_a ? "A" : "B", rd->fns_a ? rd->fns_a : rd->fns_b,
			    rd->fns_a ? "B has" : "A has");
		return;
	}
	strbuf_addf(o, "<h2>Top per-function changes</h2>\n<p>Functions: A %zu, B %zu; summed "
		    "function size A %.0f, B %.0f bytes (%+.1f%%). Sizes from the binaries' symbol "
		    "tables; inlined callees from the plugin's records (&ndash; where a build has "
		    "none). %zu functions changed; the %d biggest changes:</p>\n",
		    rd->fns_a, rd->fns_b, rd->text_a, rd->text_b,
		    rd->text_a > 0 ? 100 * (rd->text_b / rd->text_a - 1) : 0.0, rd->nr_fns,
		    HTML_FN_ROWS);
	if (rd->recs_a != rd->recs_b && (!rd->recs_a || !rd->recs_b))
		strbuf_addf(o, "<p class=\"note\">The %s has no plugin record (built without the "
			    "plugin): the inlined calls shown are the %s's alone, not inlining "
			    "changes; functions are ranked by size change only.</p>\n",
			    rd->recs_a ? "candidate" : "baseline", rd->recs_a ? "baseline" : "candidate");
	if (!rd->nr_fns)
		return;
	strbuf_addstr(o, "<p class=\"note\">One row per source function: LTO renames "
		      "(.lto_priv), clones (.isra, .constprop, .part) and cold parts are matched; a "
		      "function one side inlined into a single caller is counted in that caller.</p>\n");
	strbuf_addstr(o, "<table><tr><th>function</th><th>translation unit</th><th>size A</th>"
		      "<th>size B</th><th>change</th><th>inlined A</th><th>inlined B</th>"
		      "<th>matched</th></tr>\n");
	for (size_t i = 0; i < rd->nr_fns && i < HTML_FN_ROWS; i++) {
		const struct report_fn *f = &rd->fns[i];
		double d = (isfinite(f->size_b) ? f->size_b : 0) - (isfinite(f->size_a) ? f->size_a : 0);
		strbuf_addstr(o, "<tr>");
		cell_text(o, f->name, "mono");
		cell_text(o, f->tu ? f->tu : "", "mono");
		cell_num(o, f->size_a, "%.0f");
		cell_num(o, f->size_b, "%.0f");
		cell_num(o, d, "%+.0f");
		cell_num(o, f->inl_a, "%.0f");
		cell_num(o, f->inl_b, "%.0f");
		cell_text(o, f->note ? f->note : "", "mono");
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</table>\n");
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}"
	"h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;"
	"text-align:left;vertical-align:top}th{background:#f4f4f4}td.n{text-align:right;"
	"font-variant-numeric:tabular-nums}.mono{font-family:monospace;font-size:12px}"
	".pass{color:#1a7f37}.fail{color:#c62828;font-weight:bold}.error{color:#b26a00;"
	"font-weight:bold}.verdict{display:inline-block;font-size:26px;font-weight:bold;"
	"padding:6px 18px;border-radius:6px;color:#fff}.verdict.pass{background:#1a7f37;color:#fff}"
	".verdict.fail{background:#c62828;color:#fff}.verdict.error{background:#b26a00;color:#fff}"
	".verdict.undecided{background:#555;color:#fff}"
	".note{color:#555}.plots{display:flex;flex-wrap:wrap;gap:12px}svg{border:1px solid #eee}"
	"svg .pt{font-size:13px;font-weight:bold}svg .tick{font-size:11px;fill:#444}"
	"svg .lab{font-size:12px;fill:#222}svg .grid{stroke:#eee}svg .axis{stroke:#888}"
	"svg .one{stroke:#444;stroke-dasharray:4 3}svg .est{stroke:#e6550d;stroke-width:2}"
	"svg .thr{stroke:#c62828;stroke-dasharray:2 2}table.kv th{width:140px}"
	/* the first screen: the verdict, the findings, the thresholds' plot */
	".verdict.neutral{background:#3b5b8c;color:#fff}p.why{font-size:16px;margin:8px 0}"
	"ul.findings{font-size:15px;padding-left:20px}ul.findings li{margin:4px 0}"
	"svg.forest .ci{stroke:#e6550d;stroke-width:3}svg.forest .est{fill:#222}"
	"svg.forest .thr{stroke:#c62828;stroke-width:2;stroke-dasharray:none}"
	"svg.forest .pass{fill:#1a7f37}svg.forest .fail{fill:#c62828}svg.forest .error{fill:#b26a00}"
	/* nothing wider than the window: wide tables scroll in place */
	"table{display:block;max-width:100%;overflow-x:auto}details{margin:10px 0}"
	"summary{font-size:17px;font-weight:bold;cursor:pointer;border-bottom:1px solid #ddd}";

void html_write(const struct report_data *rd, struct strbuf *o)
{
	strbuf_addstr(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src 'unsafe-inline'\">\n<title>pgbuild report");
	if (rd->have_gate)
		strbuf_addf(o, ": %s", gate_status_name(rd->gate.verdict));
	strbuf_addf(o, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>pgbuild report</h1>\n", css);
	if (rd->have_gate)
		section_gate(o, rd);
	/* long tables collapsed: the first screen is the verdict */
	if (rd->have_log) {
		strbuf_addstr(o, "<details><summary>Translation units and their flags</summary>\n");
		section_tus(o, rd);
		strbuf_addstr(o, "</details>\n");
	}
	if (rd->have_inspect) {
		strbuf_addstr(o, "<details><summary>Per-function changes</summary>\n");
		section_functions(o, rd);
		strbuf_addstr(o, "</details>\n");
	}
	if (!rd->have_gate && !rd->have_log && !rd->have_inspect)
		strbuf_addstr(o, "<p>Nothing to report.</p>\n");
	strbuf_addstr(o, "<p class=\"note\">Generated by pgbuild (pgoptcc) " PGOPT_VERSION
		      ". Throughput ratios are B/A per interleaved pair; instructions, where shown, "
		      "are a proxy.</p>\n</body>\n</html>\n");
}
