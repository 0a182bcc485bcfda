/*
 * render.c - the waterfall of a finished optimize (its optimize.json) as a
 * terminal table and as one self-contained HTML page (inline CSS and SVG,
 * no script, like report/html.c); see optimize.h.
 *
 * Per workload, one row per stage: whether the stage trained on it
 * (in-sample) or not (held-out), for each metric its total against stock
 * and, in parentheses, what the stage added over the build it stacks on;
 * tps and server CPU with their intervals.  Then the cycles gain of every
 * stage on its held-out and in-sample workloads side by side (what
 * decided), then the builds
 * (state, what each stacks on, postgres text size, build time) and the
 * reason of every dropped or skipped stage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/clock.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/report/svg.h"

static const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* A JSON string's text, "" for anything else. */
static const char *str_or_empty(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->u.str.s : "";
}

/* Column titles of the metrics, by enum optimize_metric. */
static const char *const metric_titles[OM_NR] = {
	"cycles estimate", "instructions", "I1 misses", "tps", "server CPU/tx",
};

int optimize_doc_check(const struct json_value *doc, struct strbuf *err)
{
	const char *kind = json_get_str(doc, "kind");
	if (!kind || strcmp(kind, "pgbuild-optimize")) {
		strbuf_addstr(err, "not a pgbuild optimize result (its \"kind\" is not "
			      "\"pgbuild-optimize\")");
		return -1;
	}
	if (!json_get(doc, "stages") || json_get(doc, "stages")->type != JSON_ARRAY) {
		strbuf_addstr(err, "no \"stages\" array");
		return -1;
	}
	return 0;
}

/* The figure of metric k of workload wl in stage st (NULL: none). */
static const struct json_value *stage_figure(const struct json_value *st, const char *wl,
					     enum optimize_metric k)
{
	const struct json_value *wls = json_get(st, "workloads");
	for (size_t i = 0; i < json_len(wls); i++) {
		const char *n = json_get_str(json_at(wls, i), "name");
		if (n && !strcmp(n, wl))
			return json_get(json_at(wls, i), optimize_metric_names[k]);
	}
	return NULL;
}

/* "1.0251 (+2.51%)" or "1.0893 [0.9108, 1.3412] (+8.93%)", "-" when none. */
static void figure_text(struct strbuf *sb, const struct json_value *f, int intervals)
{
	double t = json_get_num(f, "total", NAN), a = json_get_num(f, "added", NAN);
	double lo = json_get_num(f, "lo", NAN), hi = json_get_num(f, "hi", NAN);
	if (!isfinite(t)) {
		strbuf_addstr(sb, "-");
		return;
	}
	strbuf_addf(sb, "%.4f", t);
	if (intervals && isfinite(lo) && isfinite(hi))
		strbuf_addf(sb, " [%.3f, %.3f]", lo, hi);
	if (isfinite(a))
		strbuf_addf(sb, " (%+.2f%%)", (a - 1) * 100);
	if (json_get_str(f, "gate") && !strcmp(json_get_str(f, "gate"), "undecided"))
		strbuf_addstr(sb, " undecided");
}

/* The role of workload wl in stage st: "held-out", "trained" (its profile
 * ran it), "chosen" (its policy was chosen on it); "in-sample" or "-" in a
 * document older than the roles (or than --train). */
static const char *stage_sample(const struct json_value *st, const char *wl)
{
	const struct json_value *wls = json_get(st, "workloads");
	for (size_t i = 0; i < json_len(wls); i++) {
		const char *n = json_get_str(json_at(wls, i), "name");
		const char *role = json_get_str(json_at(wls, i), "role");
		const char *sm = json_get_str(json_at(wls, i), "sample");
		if (n && !strcmp(n, wl))
			return role ? role : sm ? sm : "-";
	}
	return "-";
}

/* "1.0251 (+2.51%) on 1", "-" when none: a stage's gain on one side. */
static void gain_text(struct strbuf *sb, const struct json_value *st, const char *side)
{
	const struct json_value *g = json_get(json_get(st, "gain"), side);
	double t = json_get_num(g, "total", NAN), a = json_get_num(g, "added", NAN);
	double n = json_get_num(g, "workloads", 0);
	if (!isfinite(t)) {
		strbuf_addstr(sb, "-");
		return;
	}
	strbuf_addf(sb, "%.4f", t);
	if (isfinite(a))
		strbuf_addf(sb, " (%+.2f%%)", (a - 1) * 100);
	strbuf_addf(sb, " on %.0f", n);
}

/* The training and held-out sets, as one line of text (empty for a
 * document older than --train). */
static void sets_text(const struct json_value *doc, struct strbuf *sb)
{
	const struct json_value *t = json_get(doc, "train"), *h = json_get(doc, "held_out");
	if (!t) {
		strbuf_addstr(sb, "in-sample: recorded before --train, when pgo and bolt trained "
			      "on every workload shown");
		return;
	}
	strbuf_addstr(sb, "pgo, tuned and bolt trained on ");
	for (size_t i = 0; i < json_len(t); i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", str_or_empty(json_at(t, i)));
	strbuf_addstr(sb, "; held out: ");
	for (size_t i = 0; i < json_len(h); i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", str_or_empty(json_at(h, i)));
	if (!json_len(h))
		strbuf_addstr(sb, "none (judged in-sample)");
	strbuf_addf(sb, ".  Keep rule: %s.", str_or(json_get_str(doc, "keep_rule"), "?"));
	{
		/* the floor the resolutions came from (documents before it: none) */
		const struct json_value *f = json_get(doc, "noise_floor");
		if (f)
			strbuf_addf(sb, "  Layout floor of stock: %s (%s).",
				    str_or(json_get_str(f, "state"), "?"),
				    str_or(json_get_str(f, "note"), "-"));
	}
}

/* The workloads of the document, in order. */
static const struct json_value *doc_workloads(const struct json_value *doc)
{
	return json_get(doc, "workloads");
}


/* One workload's waterfall, terminal. */
static void text_workload(const struct json_value *doc, const char *wl, FILE *fp)
{
	const struct json_value *stages = json_get(doc, "stages");
	struct strbuf sb = STRBUF_INIT;

	fprintf(fp, "\n%s: speedup over stock (what the stage added over the build it "
		"stacks on)\n", wl);
	fprintf(fp, "  %-6s %-8s %-9s", "stage", "state", "sample");
	for (int k = 0; k < OM_NR; k++)
		fprintf(fp, " %-*s", k >= OM_TPS ? 32 : 18, metric_titles[k]);
	fputc('\n', fp);
	for (size_t i = 0; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		const char *state = str_or(json_get_str(st, "state"), "?");
		if (!strcmp(state, "skipped") || !strcmp(state, "not-run"))
			continue;
		fprintf(fp, "  %-6s %-8s %-9s", str_or(json_get_str(st, "name"), "?"), state,
			stage_sample(st, wl));
		for (int k = 0; k < OM_NR; k++) {
			strbuf_reset(&sb);
			figure_text(&sb, stage_figure(st, wl, (enum optimize_metric)k), 1);
			fprintf(fp, " %-*s", k >= OM_TPS ? 32 : 18, sb.buf);
		}
		fputc('\n', fp);
	}
	strbuf_release(&sb);
}

/* Every stage's cycles gain held-out and in-sample, side by side. */
static void text_samples(const struct json_value *doc, FILE *fp)
{
	const struct json_value *stages = json_get(doc, "stages");
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	if (!json_get(doc, "train"))
		return;
	fprintf(fp, "\ncycles estimate, geometric mean over workloads: speedup over stock "
		"(added over the build it stacks on) on N workloads\n");
	fprintf(fp, "  %-6s %-8s %-10s %-26s %-26s\n", "stage", "state", "decided on",
		"held-out", "in-sample");
	for (size_t i = 1; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		const char *state = str_or(json_get_str(st, "state"), "?");
		if (!strcmp(state, "skipped") || !strcmp(state, "not-run"))
			continue;
		strbuf_reset(&a);
		strbuf_reset(&b);
		gain_text(&a, st, "held_out");
		gain_text(&b, st, "in_sample");
		fprintf(fp, "  %-6s %-8s %-10s %-26s %-26s\n", str_or(json_get_str(st, "name"), "?"),
			state, str_or(json_get_str(st, "decided_on"), "-"), a.buf, b.buf);
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

/* One stage and workload's cycles estimate next to its server CPU. */
struct agree_row {
	const char *stage, *wl;
	double est, cpu, lo, hi;  /* speedups over stock; [lo, hi] the CPU's interval */
	enum gate_agree verdict;  /* gate_agree_ratio, the gate's rule */
};

/*
 * The simulation next to the machine: every shown stage's cycles estimate
 * on each workload against its server CPU per transaction's interval, both
 * speedups over stock; pairs missing either are left out.  The rows (free
 * them) and their number; *agree: how many agree.
 */
static struct agree_row *agreement_rows(const struct json_value *doc, size_t *nr, size_t *agree)
{
	const struct json_value *stages = json_get(doc, "stages");
	const struct json_value *wls = doc_workloads(doc);
	struct agree_row *rows = xcalloc(json_len(stages) * json_len(wls) + 1, sizeof(*rows));

	*nr = *agree = 0;
	for (size_t i = 1; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		const char *state = str_or(json_get_str(st, "state"), "?");
		if (!strcmp(state, "skipped") || !strcmp(state, "not-run"))
			continue;
		for (size_t w = 0; w < json_len(wls); w++) {
			struct agree_row *r = &rows[*nr];
			const struct json_value *c, *cpu;
			if (json_at(wls, w)->type != JSON_STRING)
				continue;
			r->stage = str_or(json_get_str(st, "name"), "?");
			r->wl = json_at(wls, w)->u.str.s;
			c = stage_figure(st, r->wl, OM_CYCLES);
			cpu = stage_figure(st, r->wl, OM_CPU);
			r->est = json_get_num(c, "total", NAN);
			r->cpu = json_get_num(cpu, "total", NAN);
			r->lo = json_get_num(cpu, "lo", NAN);
			r->hi = json_get_num(cpu, "hi", NAN);
			/* JSON has no infinity: an unbounded end (a confidence
			 * sequence that cannot decide yet) is null beside a
			 * finite one, and tests nothing ("not tested") */
			if (isnan(r->hi) && isfinite(r->lo) && isfinite(r->cpu))
				r->hi = INFINITY;
			r->verdict = gate_agree_ratio(r->est, r->lo, r->hi);
			if (r->verdict == GATE_AGREE_NA)
				continue;
			*agree += r->verdict == GATE_AGREE_YES;
			(*nr)++;
		}
	}
	return rows;
}

/* The agreement table, terminal. */
static void text_agreement(const struct json_value *doc, FILE *fp)
{
	size_t nr, agree;
	struct agree_row *rows = agreement_rows(doc, &nr, &agree);

	if (nr)
		fprintf(fp, "\nthe simulation next to the machine: cycles estimate and server "
			"CPU/tx, speedups over stock\n  %-6s %-12s %-9s %-26s %s\n", "stage",
			"workload", "estimate", "server CPU/tx [95%]", "verdict");
	for (size_t i = 0; i < nr; i++) {
		char cpu[64];
		snprintf(cpu, sizeof(cpu), "%.4f [%.3f, %.3f]", rows[i].cpu, rows[i].lo, rows[i].hi);
		fprintf(fp, "  %-6s %-12s %-9.4f %-26s %s\n", rows[i].stage, rows[i].wl,
			rows[i].est, cpu, gate_agree_names[rows[i].verdict]);
	}
	if (nr)
		fprintf(fp, "  agree on %zu of %zu (agree: the estimate inside the server CPU's "
			"interval, narrow enough to contradict it: gate/agree.c)\n", agree, nr);
	free(rows);
}

/* "gcc", "clang" and the version of a compiler's --version line (NULL:
 * "-"), into buf. */
static const char *compiler_short(const char *line, char *buf, size_t n)
{
	const char *v = line ? strstr(line, "version ") : NULL;
	const char *name = !line ? NULL : strstr(line, "clang version") ? "clang" : "gcc";
	if (!line)
		return "-";
	if (!v) {  /* gcc (Debian 12.2.0-14+deb12u1) 12.2.0: the last word */
		v = strrchr(line, ' ');
		v = v ? v + 1 : line;
	} else {
		v += 8;
	}
	snprintf(buf, n, "%s %.*s", name, (int)strcspn(v, " -"), v);
	return buf;
}

/* The builds: state, stacks on, compiler, text size, build time, reason. */
static void text_builds(const struct json_value *doc, FILE *fp)
{
	const struct json_value *stages = json_get(doc, "stages");
	fprintf(fp, "\n  %-9s %-8s %-9s %-12s %12s %9s  %s\n", "stage", "state", "stacks on",
		"compiler", "text bytes", "build", "reason / prefix");
	for (size_t i = 0; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		double text = json_get_num(st, "text_size", NAN);
		double secs = json_get_num(st, "build_secs", NAN);
		char el[32] = "-", tx[32] = "-", cc[64];
		if (isfinite(secs))
			fmt_duration(secs, 0, el, sizeof(el));
		if (isfinite(text))
			snprintf(tx, sizeof(tx), "%.0f", text);
		fprintf(fp, "  %-9s %-8s %-9s %-12s %12s %9s  %s\n",
			str_or(json_get_str(st, "name"), "?"), str_or(json_get_str(st, "state"), "?"),
			str_or(json_get_str(st, "stacks_on"), "-"),
			compiler_short(json_get_str(st, "compiler"), cc, sizeof(cc)), tx, el,
			str_or(json_get_str(st, "reason"), str_or(json_get_str(st, "prefix"), "")));
	}
}

/* The explain sections of stage st's gate (its JSON at the stage's
 * gate_json), parsed; NULL when there is none. */
static struct json_value *stage_gate(const struct json_value *st)
{
	const char *path = json_get_str(st, "gate_json");
	struct strbuf sb = STRBUF_INIT;
	struct json_value *g = NULL;
	if (path && sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &sb, NULL) >= 0)
		g = json_parse(sb.buf, sb.len, NULL);
	strbuf_release(&sb);
	return g;
}

/* Where each measured stage's estimate differs from stock: the top rows
 * of its gate's explain section, per workload (text, or HTML when out). */
static void stage_explains(const struct json_value *doc, size_t rows, FILE *fp,
			   struct strbuf *out)
{
	const struct json_value *stages = json_get(doc, "stages");
	for (size_t i = 0; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		struct json_value *g;
		const char *name = str_or(json_get_str(st, "name"), "?");
		if (!strcmp(name, "stock") || !(g = stage_gate(st)))
			continue;
		for (size_t k = 0; k < json_len(json_get(g, "workloads")); k++) {
			const struct json_value *ex = json_get(json_at(json_get(g, "workloads"), k),
							       "explain");
			if (!ex || explain_doc_check(ex, NULL) < 0)
				continue;
			if (fp) {
				fprintf(fp, "\nstage %s against stock: ", name);
				explain_render_text(ex, rows, fp);
			} else {
				strbuf_addstr(out, "<h2>Stage ");
				strbuf_addstr_html(out, name);
				strbuf_addstr(out, " against stock</h2>\n");
				explain_render_html(ex, rows, out);
			}
		}
		json_free(g);
	}
}

/* What the stages were decided at, one phrase (static): the repeat
 * resolution at least, each stage its workloads' resolution (their layout
 * floor's at the level of the run's family of stages, stage_family). */
static const char *resolution_phrase(const struct json_value *doc)
{
	static char buf[384];
	double k = json_get_num(doc, "stage_family", NAN);
	if (isnan(k)) {
		snprintf(buf, sizeof(buf), "each stage's own resolution (at least the %.1f%% "
			 "repeat one; its layout floor's at its gate's level: a document from "
			 "before the stages were one family)",
			 json_get_num(doc, "resolution", metrics_of(METRIC_CYCLES)->resolution) * 100);
		return buf;
	}
	if (json_get_num(doc, "stage_family_asked", k) < k) {
		snprintf(buf, sizeof(buf), "each stage's own resolution (at least the %.1f%% "
			 "repeat one; its layout floor's at 1 - (1 - confidence) / %.0f: the "
			 "%.0f candidate stages every run of this workdir asked for, this one "
			 "%.0f; stages chosen after a verdict never loosen its level)",
			 json_get_num(doc, "resolution", metrics_of(METRIC_CYCLES)->resolution) * 100,
			 k, k, json_get_num(doc, "stage_family_asked", k));
		return buf;
	}
	snprintf(buf, sizeof(buf), "each stage's own resolution (at least the %.1f%% repeat "
		 "one; its layout floor's at 1 - (1 - confidence) / %.0f, the run's %.0f "
		 "candidate stage%s)",
		 json_get_num(doc, "resolution", metrics_of(METRIC_CYCLES)->resolution) * 100,
		 k, k, k == 1 ? "" : "s");
	return buf;
}

void optimize_render_text(const struct json_value *doc, FILE *fp)
{
	const struct json_value *wls = doc_workloads(doc);
	const char *best = json_get_str(doc, "best"), *inst = json_get_str(doc, "installed");

	fprintf(fp, "pgbuild optimize: deciding metric: %s per transaction, "
		"at %s\n  (%s)\n", metrics_of(METRIC_CYCLES)->figure, resolution_phrase(doc),
		str_or(json_get_str(doc, "cycles_note"), metrics_of(METRIC_CYCLES)->method));
	{
		struct strbuf sb = STRBUF_INIT;
		sets_text(doc, &sb);
		if (sb.len)
			fprintf(fp, "  %s\n", sb.buf);
		strbuf_release(&sb);
	}
	for (size_t i = 0; i < json_len(wls); i++)
		if (json_at(wls, i)->type == JSON_STRING)
			text_workload(doc, json_at(wls, i)->u.str.s, fp);
	text_samples(doc, fp);
	text_agreement(doc, fp);
	text_builds(doc, fp);
	stage_explains(doc, 5, fp, NULL);
	fprintf(fp, "\nbest: %s", str_or(best, "none"));
	if (inst)
		fprintf(fp, ", installed at %s\n", inst);
	else
		fprintf(fp, " (%s)\n", str_or(json_get_str(doc, "verdict"), "nothing installed"));
}

/* ---------------- HTML ---------------- */

#define HTML_CSS \
	"body{font-family:sans-serif;margin:2em;color:#222}" \
	"table{border-collapse:collapse;margin:1em 0}" \
	"td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}" \
	"td:first-child,th:first-child,td.l{text-align:left}" \
	".dropped{color:#999}.kept{font-weight:bold}.note{color:#555;font-size:90%}"

/* One workload's table. */
static void html_workload(const struct json_value *doc, const char *wl, struct strbuf *out)
{
	const struct json_value *stages = json_get(doc, "stages");
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(out, "<h2>");
	strbuf_addstr_html(out, wl);
	strbuf_addstr(out, "</h2>\n<table><tr><th>stage</th><th>state</th><th>sample</th>");
	for (int k = 0; k < OM_NR; k++)
		strbuf_addf(out, "<th>%s</th>", metric_titles[k]);
	strbuf_addstr(out, "</tr>\n");
	for (size_t i = 0; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		const char *state = str_or(json_get_str(st, "state"), "?");
		if (!strcmp(state, "skipped") || !strcmp(state, "not-run"))
			continue;
		strbuf_addf(out, "<tr class=\"%s\"><td>", !strcmp(state, "dropped") ? "dropped" :
			    !strcmp(state, "kept") ? "kept" : "base");
		strbuf_addstr_html(out, str_or(json_get_str(st, "name"), "?"));
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, state);
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, stage_sample(st, wl));
		strbuf_addstr(out, "</td>");
		for (int k = 0; k < OM_NR; k++) {
			strbuf_reset(&sb);
			figure_text(&sb, stage_figure(st, wl, (enum optimize_metric)k), 1);
			strbuf_addstr(out, "<td>");
			strbuf_addstr_html(out, sb.buf);
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
	strbuf_release(&sb);
}

/* The cycles waterfall of one workload as SVG: per measured stage a bar
 * from the total of the build it stacks on to its own (green kept, grey
 * dropped), on a scale from the smallest to the largest total. */
static void html_svg(const struct json_value *doc, const char *wl, struct strbuf *out)
{
	const struct json_value *stages = json_get(doc, "stages");
	double lo = 1, hi = 1, y = 20;
	const int w = 560, left = 70, right = 90;

	for (size_t i = 0; i < json_len(stages); i++) {
		double t = json_get_num(stage_figure(json_at(stages, i), wl, OM_CYCLES), "total", NAN);
		if (isfinite(t)) {
			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
	}
	lo -= 0.01;
	hi += 0.01;
	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\">",
		    w, 30 + 24 * json_len(stages));
	for (size_t i = 0; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		const struct json_value *f = stage_figure(st, wl, OM_CYCLES);
		double t = json_get_num(f, "total", NAN), a = json_get_num(f, "added", NAN);
		double from = isfinite(a) && a > 0 ? t / a : 1.0, x0, x1;
		const char *state = str_or(json_get_str(st, "state"), "");
		if (!isfinite(t))
			continue;
		x0 = left + (from - lo) / (hi - lo) * (w - left - right);
		x1 = left + (t - lo) / (hi - lo) * (w - left - right);
		strbuf_addf(out, "<text x=\"4\" y=\"%.0f\" font-size=\"12\">", y + 12);
		strbuf_addstr_html(out, str_or(json_get_str(st, "name"), "?"));
		strbuf_addf(out, "</text><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"16\" "
			    "fill=\"%s\"/><text x=\"%.1f\" y=\"%.0f\" font-size=\"12\">%.4fx</text>",
			    x0 < x1 ? x0 : x1, y, fabs(x1 - x0) < 1 ? 1 : fabs(x1 - x0),
			    !strcmp(state, "dropped") ? "#bbb" : "#2ca02c",
			    (x0 > x1 ? x0 : x1) + 4, y + 12, t);
		y += 24;
	}
	strbuf_addstr(out, "</svg>\n");
}

/* The held-out and in-sample gains of the page. */
static void html_samples(const struct json_value *doc, struct strbuf *out)
{
	const struct json_value *stages = json_get(doc, "stages");
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(out, "<h2>held-out and in-sample</h2>\n<p class=\"note\">");
	sets_text(doc, &sb);
	strbuf_addstr_html(out, sb.buf);
	if (!json_get(doc, "train")) {
		strbuf_addstr(out, "</p>\n");
		strbuf_release(&sb);
		return;
	}
	strbuf_addstr(out, " Cycles estimate, geometric mean over workloads: speedup over "
		      "stock (added over the build it stacks on) on N workloads.</p>\n"
		      "<table><tr><th>stage</th><th>state</th><th>decided on</th>"
		      "<th>held-out</th><th>in-sample</th></tr>\n");
	for (size_t i = 1; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		const char *state = str_or(json_get_str(st, "state"), "?");
		if (!strcmp(state, "skipped") || !strcmp(state, "not-run"))
			continue;
		strbuf_addstr(out, "<tr><td>");
		strbuf_addstr_html(out, str_or(json_get_str(st, "name"), "?"));
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, state);
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, str_or(json_get_str(st, "decided_on"), "-"));
		for (int h = 0; h < 2; h++) {
			strbuf_reset(&sb);
			gain_text(&sb, st, h ? "in_sample" : "held_out");
			strbuf_addstr(out, "</td><td>");
			strbuf_addstr_html(out, sb.buf);
		}
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
	strbuf_release(&sb);
}

/* The agreement table, on the page. */
static void html_agreement(const struct json_value *doc, struct strbuf *out)
{
	size_t nr, agree;
	struct agree_row *rows = agreement_rows(doc, &nr, &agree);

	if (nr)
		strbuf_addstr(out, "<h2>the simulation next to the machine</h2>\n<table><tr>"
			      "<th>stage</th><th>workload</th><th>cycles estimate</th>"
			      "<th>server CPU/tx [95%]</th><th>verdict</th></tr>\n");
	for (size_t i = 0; i < nr; i++) {
		strbuf_addstr(out, "<tr><td>");
		strbuf_addstr_html(out, rows[i].stage);
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, rows[i].wl);
		strbuf_addf(out, "</td><td>%.4f</td><td>%.4f [%.3f, %.3f]</td><td class=\"l\">%s"
			    "</td></tr>\n", rows[i].est, rows[i].cpu, rows[i].lo, rows[i].hi,
			    gate_agree_names[rows[i].verdict]);
	}
	if (nr)
		strbuf_addf(out, "</table>\n<p class=\"note\">Speedups over stock. Agree on %zu "
			    "of %zu: the cycles estimate inside the server CPU's interval, narrow "
			    "enough to contradict it (else not tested).</p>\n",
			    agree, nr);
	free(rows);
}

/* The builds table of the page. */
static void html_builds(const struct json_value *doc, struct strbuf *out)
{
	const struct json_value *stages = json_get(doc, "stages");
	strbuf_addstr(out, "<h2>builds</h2>\n<table><tr><th>stage</th><th>state</th>"
		      "<th>stacks on</th><th>compiler</th><th>postgres text bytes</th>"
		      "<th>build time</th>"
		      "<th>reason / prefix</th></tr>\n");
	for (size_t i = 0; i < json_len(stages); i++) {
		const struct json_value *st = json_at(stages, i);
		double text = json_get_num(st, "text_size", NAN);
		double secs = json_get_num(st, "build_secs", NAN);
		char el[32] = "-";
		if (isfinite(secs))
			fmt_duration(secs, 0, el, sizeof(el));
		strbuf_addstr(out, "<tr><td>");
		strbuf_addstr_html(out, str_or(json_get_str(st, "name"), "?"));
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, str_or(json_get_str(st, "state"), "?"));
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, str_or(json_get_str(st, "stacks_on"), "-"));
		strbuf_addstr(out, "</td><td class=\"l\">");
		strbuf_addstr_html(out, str_or(json_get_str(st, "compiler"), "-"));
		if (isfinite(text))
			strbuf_addf(out, "</td><td>%.0f", text);
		else
			strbuf_addstr(out, "</td><td>-");
		strbuf_addf(out, "</td><td>%s</td><td class=\"l\">", el);
		strbuf_addstr_html(out, str_or(json_get_str(st, "reason"),
					str_or(json_get_str(st, "prefix"), "")));
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
}

void optimize_render_html(const struct json_value *doc, struct strbuf *out)
{
	const struct json_value *wls = doc_workloads(doc);
	const char *best = json_get_str(doc, "best"), *inst = json_get_str(doc, "installed");

	strbuf_addstr(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src 'unsafe-inline'; img-src data:\">"
		      "<title>pgbuild optimize</title><style>" HTML_CSS "</style></head><body>\n"
		      "<h1>pgbuild optimize: the waterfall</h1>\n<p>Deciding metric: ");
	strbuf_addstr_html(out, metrics_of(METRIC_CYCLES)->figure);
	strbuf_addstr(out, " per transaction (");
	strbuf_addstr_html(out, str_or(json_get_str(doc, "cycles_note"),
				       metrics_of(METRIC_CYCLES)->method));
	strbuf_addstr(out, "), at ");
	strbuf_addstr_html(out, resolution_phrase(doc));
	strbuf_addstr(out, ". Each cell: speedup over stock; in parentheses what the stage "
		      "added over the build it stacks on.</p>\n");
	for (size_t i = 0; i < json_len(wls); i++) {
		if (json_at(wls, i)->type != JSON_STRING)
			continue;
		html_workload(doc, json_at(wls, i)->u.str.s, out);
		html_svg(doc, json_at(wls, i)->u.str.s, out);
	}
	html_samples(doc, out);
	html_agreement(doc, out);
	html_builds(doc, out);
	stage_explains(doc, 20, NULL, out);
	strbuf_addstr(out, "<p class=\"kept\">best: ");
	strbuf_addstr_html(out, str_or(best, "none"));
	if (inst) {
		strbuf_addstr(out, ", installed at ");
		strbuf_addstr_html(out, inst);
	} else {
		strbuf_addstr(out, " (");
		strbuf_addstr_html(out, str_or(json_get_str(doc, "verdict"), "nothing installed"));
		strbuf_addstr(out, ")");
	}
	strbuf_addstr(out, "</p>\n</body></html>\n");
}
