/*
 * explain/html.c - the explain document as an HTML section (the report's
 * page and `pgbuild explain --html`): the sums in a paragraph, a sorted
 * bar chart of the rows' changes (inline SVG: cheaper in B to the left in
 * green, dearer to the right in red) and a table of the rows with the
 * decisions behind each; no script.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/explain.h"
#include "pgbuild/pgbuild.h"

static double num(const struct json_value *o, const char *key)
{
	return json_get_num(o, key, NAN);
}

void explain_html_css(struct strbuf *o)
{
	strbuf_addstr(o, "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;"
		      "max-width:1200px}h1{font-size:22px}h2{font-size:17px;margin-top:28px;"
		      "border-bottom:1px solid #ddd}table{border-collapse:collapse;margin:8px 0}"
		      "td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}"
		      "th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}"
		      ".mono{font-family:monospace;font-size:12px}.note{color:#555}"
		      "svg{border:1px solid #eee}svg .lab{font-size:11px;fill:#222}"
		      "svg .axis{stroke:#888}");
}

static void cell(struct strbuf *o, const char *s, int mono)
{
	strbuf_addstr(o, mono ? "<td class=\"mono\">" : "<td>");
	strbuf_addstr_html(o, s ? s : "");
	strbuf_addstr(o, "</td>");
}

static void cell_num(struct strbuf *o, double v, const char *f)
{
	strbuf_addstr(o, "<td class=\"n\">");
	if (isfinite(v))
		strbuf_addf(o, f, v);
	else
		strbuf_addstr(o, "&ndash;");
	strbuf_addstr(o, "</td>");
}

/* The sums: totals, reconciliation, coverage, noise. */
static void html_sums(const struct json_value *doc, struct strbuf *o)
{
	const struct json_value *t = json_get(doc, "totals"), *cov = json_get(doc, "coverage");
	const struct json_value *nz = json_get(doc, "noise"), *rec = json_get(doc, "reconciled");
	double a = num(json_get(t, "a"), "estimate"), b = num(json_get(t, "b"), "estimate");
	int measured = json_get(nz, "measured") && json_get(nz, "measured")->u.boolean;

	strbuf_addf(o, "<p>Cycles estimate per transaction A %.0f, B %.0f: change %+.0f (%+.2f%%), "
		    "A/B %.4f; %.0f and %.0f statements differenced. The rows add up to the measured "
		    "totals: %s. ", a, b, b - a,
		    a > 0 ? 100 * (b / a - 1) : 0.0, b > 0 ? a / b : NAN, num(doc, "statements"),
		    10 * num(doc, "statements"), rec && rec->type == JSON_BOOL && rec->u.boolean ?
		    "reconciled at the 0.1% resolution" : "<b>not reconciled</b>");
	if (isfinite(num(cov, "top10_share")))
		strbuf_addf(o, "The top 10 rows explain %.1f%% of the change, the top 50 %.1f%%; ",
			    100 * num(cov, "top10_share"), 100 * num(cov, "top50_share"));
	else  /* no total change (an A/A run): no share of it */
		strbuf_addstr(o, "The total did not change: no share to explain; ");
	strbuf_addf(o, "%.0f rows, |change| summed %.0f.</p>\n", num(cov, "rows"),
		    num(cov, "gross_change"));
	if (measured)
		strbuf_addf(o, "<p>Inside the per-function layout spread: %.0f rows, %.1f%% of the "
			    "change.</p>\n", num(nz, "rows_in_noise"), 100 * num(nz, "in_noise_share"));
	else
		strbuf_addf(o, "<p class=\"note\">The per-function layout spread is not measured "
			    "(<code>--noise FILE</code>); the repeat floor of the total is about %s.</p>\n",
			    json_get_str(nz, "repeat_floor") ? json_get_str(nz, "repeat_floor") : "?");
}

/* Horizontal bars of the first rows' changes around a zero axis. */
static void html_bars(const struct json_value *rv, size_t rows, struct strbuf *o)
{
	size_t n = json_len(rv) < rows ? json_len(rv) : rows;
	double max = 0;
	for (size_t i = 0; i < n; i++)
		if (!(fabs(num(json_at(rv, i), "change")) >= 0.05))
			n = i; /* the rest did not change */
	const int w = 900, label = 260, h = 16, mid = label + (w - label) / 2;
	for (size_t i = 0; i < n; i++)
		if (fabs(num(json_at(rv, i), "change")) > max)
			max = fabs(num(json_at(rv, i), "change"));
	if (!n || !(max > 0))
		return;
	strbuf_addf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\" "
		    "role=\"img\" aria-label=\"change of the estimate per function\">\n", w,
		    n * h + 24);
	for (size_t i = 0; i < n; i++) {
		const struct json_value *row = json_at(rv, i);
		double c = num(row, "change"), len = fabs(c) / max * ((w - label) / 2 - 50);
		double x = c < 0 ? mid - len : mid;
		double y = 4 + (double)i * h;
		strbuf_addf(o, "<text class=\"lab\" x=\"4\" y=\"%.0f\">", y + 11);
		strbuf_addstr_html(o, json_get_str(row, "function"));
		strbuf_addf(o, "</text><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
			    "fill=\"%s\"><title>", x, y, len > 0.5 ? len : 0.5, h - 4,
			    c < 0 ? "#1a7f37" : "#c62828");
		strbuf_addstr_html(o, json_get_str(row, "function"));
		strbuf_addf(o, ": %+.1f</title></rect><text class=\"lab\" x=\"%.1f\" y=\"%.0f\" "
			    "text-anchor=\"%s\">%+.1f</text>\n", c, c < 0 ? x - 3 : x + len + 3, y + 11,
			    c < 0 ? "end" : "start", c);
	}
	strbuf_addf(o, "<line class=\"axis\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%zu\"/>"
		    "<text class=\"lab\" x=\"%d\" y=\"%zu\">cheaper in B</text>"
		    "<text class=\"lab\" x=\"%d\" y=\"%zu\">dearer in B</text></svg>\n",
		    mid, mid, n * h + 8, mid - 90, n * h + 20, mid + 10, n * h + 20);
}

/* The decisions of a row, as lines of one cell. */
static void html_decisions(const struct json_value *row, struct strbuf *o)
{
	const struct json_value *sites = json_get(row, "inlined_one_side");
	const struct json_value *abs = json_get(row, "absorbed");
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(o, "<td>");
	for (size_t i = 0; i < json_len(sites) && i < 5; i++) {
		const struct json_value *st = json_at(sites, i);
		const char *in = json_get_str(st, "inlined_in"), *cf = json_get_str(st, "callee_file");
		strbuf_reset(&sb);
		strbuf_addf(&sb, "inlined in %s only: %s%s%s%s; %s %.2f calls/tx, %.0f: %s", in,
			    json_get_str(st, "callee"), cf ? " (" : "", cf ? cf : "", cf ? ")" : "",
			    !strcmp(in, "A") ? "B" : "A", num(st, "calls_other"), num(st, "cost_other"),
			    json_get_str(st, "other"));
		strbuf_addstr_html(o, sb.buf);
		strbuf_addstr(o, "<br>");
	}
	for (size_t i = 0; i < json_len(abs) && i < 5; i++) {
		const struct json_value *a = json_at(abs, i);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "absorbed %s: %+.0f in %s", json_get_str(a, "callee"),
			    num(a, "estimate"), json_get_str(a, "side"));
		strbuf_addstr_html(o, sb.buf);
		strbuf_addstr(o, "<br>");
	}
	for (size_t i = 0; i < json_len(json_get(row, "callers")) && i < 5; i++) {
		const struct json_value *c = json_at(json_get(row, "callers"), i);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "called from %s: %.2f/tx in A (%.0f), %.2f/tx in B (%.0f)",
			    json_get_str(c, "caller"), num(c, "calls_a"), num(c, "inclusive_a"),
			    num(c, "calls_b"), num(c, "inclusive_b"));
		strbuf_addstr_html(o, sb.buf);
		strbuf_addstr(o, "<br>");
	}
	for (int s = 0; s < 2; s++) {
		const struct json_value *side = json_get(row, s ? "b" : "a");
		const char *f = json_get_str(side, "flags"), *rl = json_get_str(side, "rules");
		const char *sec = json_get_str(side, "section"), *bolt = json_get_str(side, "bolt");
		strbuf_reset(&sb);
		if (f || rl) {
			strbuf_addf(&sb, "%s: ", s ? "B" : "A");
			explain_flags_text(&sb, f, rl, 0);
			strbuf_addch(&sb, ' ');
		}
		if (sec && strcmp(sec, ".text"))
			strbuf_addf(&sb, "section %s ", sec);
		if (bolt)
			strbuf_addf(&sb, "BOLT %s", bolt);
		if (sb.len) {
			strbuf_addstr_html(o, sb.buf);
			strbuf_addstr(o, "<br>");
		}
	}
	strbuf_addstr(o, "</td>");
	strbuf_release(&sb);
}

void explain_render_html(const struct json_value *doc, size_t rows, struct strbuf *o)
{
	const struct json_value *rv = json_get(doc, "rows");
	const char *wl = json_get_str(doc, "workload");
	strbuf_addstr(o, "<h2>Where the cycles estimate changed");
	if (wl) {
		strbuf_addstr(o, ": ");
		strbuf_addstr_html(o, wl);
	}
	strbuf_addstr(o, "</h2>\n");
	html_sums(doc, o);
	html_bars(rv, rows, o);
	strbuf_addstr(o, "<table><tr><th>#</th><th>function</th><th>unit</th><th>A self</th>"
		      "<th>B self</th><th>change</th><th>share</th><th>size A</th><th>size B</th>"
		      "<th>the decisions behind it</th></tr>\n");
	for (size_t i = 0; i < json_len(rv) && i < rows; i++) {
		const struct json_value *row = json_at(rv, i);
		if (!(fabs(num(row, "change")) >= 0.05))
			break;
		strbuf_addstr(o, "<tr>");
		cell_num(o, num(row, "rank"), "%.0f");
		cell(o, json_get_str(row, "function"), 1);
		cell(o, json_get_str(row, "tu"), 1);
		cell_num(o, num(json_get(json_get(row, "a"), "self"), "estimate"), "%.1f");
		cell_num(o, num(json_get(json_get(row, "b"), "self"), "estimate"), "%.1f");
		cell_num(o, num(row, "change"), "%+.1f");
		cell_num(o, 100 * num(row, "share"), "%.1f%%");
		cell_num(o, num(json_get(row, "a"), "size"), "%.0f");
		cell_num(o, num(json_get(row, "b"), "size"), "%.0f");
		html_decisions(row, o);
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</table>\n<p class=\"note\">");
	strbuf_addstr_html(o, CYCLES_SIMULATION);
	strbuf_addstr(o, ". Costs are self (exclusive) per transaction; a callee one side inlined "
		      "is counted in its callers on the other side too (absorbed).</p>\n");
}
