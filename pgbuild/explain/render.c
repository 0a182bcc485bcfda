/*
 * explain/render.c - an explain document for people: the terminal table
 * (100 columns: the sums, then per row its costs and the decisions behind
 * it) and the HTML section (a sorted bar chart of the rows' changes and
 * the table of their decisions); see explain.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/policy/policy.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/pgbuild.h"

#define WIDTH 100

static double num(const struct json_value *o, const char *key)
{
	return json_get_num(o, key, NAN);
}

static double side_num(const struct json_value *row, const char *side, const char *part,
		       const char *key)
{
	return num(json_get(json_get(row, side), part), key);
}

static const char *side_str(const struct json_value *row, const char *side, const char *key)
{
	return json_get_str(json_get(row, side), key);
}

/* text wrapped at WIDTH columns (text_wrap, wrapper/common/textfile.h). */
static void wrap(FILE *fp, int first, int indent, const char *text)
{
	text_wrap(fp, WIDTH, first, indent, text);
}

static void fmt(char *buf, size_t n, double v, const char *f)
{
	if (isfinite(v))
		snprintf(buf, n, f, v);
	else
		snprintf(buf, n, "-");
}

/* The lines of the sums: totals, reconciliation, coverage, noise. */
static void text_sums(const struct json_value *doc, FILE *fp)
{
	const struct json_value *t = json_get(doc, "totals"), *sm = json_get(doc, "summary");
	const struct json_value *cov = json_get(doc, "coverage"), *nz = json_get(doc, "noise");
	const struct json_value *rec = json_get(doc, "reconciled");
	double a = num(json_get(t, "a"), "estimate"), b = num(json_get(t, "b"), "estimate");
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "estimate per transaction A %.0f, B %.0f: change %+.0f (%+.2f%%), A/B %.4f "
		    "(%.0f and %.0f statements differenced)", a, b, b - a, a > 0 ? 100 * (b / a - 1) : 0,
		    b > 0 ? a / b : NAN, num(doc, "statements"), 10 * num(doc, "statements"));
	wrap(fp, 2, 4, sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "the rows add up to the measured totals (the callgrind files' summaries, the gate's "
		    "figures): A %.0f of %.0f, "
		    "B %.0f of %.0f: %s", a, num(json_get(sm, "a"), "estimate"), b,
		    num(json_get(sm, "b"), "estimate"), rec && rec->type == JSON_BOOL &&
		    rec->u.boolean ? "reconciled at the 0.1% resolution" : "NOT reconciled");
	wrap(fp, 2, 4, sb.buf);
	strbuf_reset(&sb);
	if (isfinite(num(cov, "top10_share")))
		strbuf_addf(&sb, "the top 10 rows explain %.1f%% of the change, the top 50 %.1f%% "
			    "(%.0f outside them); %.0f rows, |change| summed over them %.0f",
			    100 * num(cov, "top10_share"), 100 * num(cov, "top50_share"),
			    num(cov, "rest_change"), num(cov, "rows"), num(cov, "gross_change"));
	else  /* no total change (an A/A run): no share of it */
		strbuf_addf(&sb, "the total did not change: no share to explain; %.0f rows, |change| "
			    "summed over them %.0f", num(cov, "rows"), num(cov, "gross_change"));
	wrap(fp, 2, 4, sb.buf);
	strbuf_reset(&sb);
	if (json_get(nz, "measured") && json_get(nz, "measured")->u.boolean) {
		double in = num(nz, "in_noise_share");
		strbuf_addf(&sb, "inside the per-function layout spread (%s): %.0f rows, %.1f%% of the "
			    "change%s", json_get_str(nz, "source") ? json_get_str(nz, "source") : "given",
			    num(nz, "rows_in_noise"), 100 * in,
			    isfinite(in) && fabs(1 - in) < 0.05 ? ": the gain is all in the layout spread" : "");
	} else {
		strbuf_addf(&sb, "per-function layout spread: not measured (--noise FILE); the repeat "
			    "floor of the total is about %s", json_get_str(nz, "repeat_floor"));
	}
	wrap(fp, 2, 4, sb.buf);
	strbuf_release(&sb);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* " (policy FILE:LINE ...)" with each policy file's base name (full
 * paths: basenames 0). */
static void policy_lines(struct strbuf *sb, const char *rules, int basenames)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, rules);
	strbuf_addstr(sb, " (policy");
	for (size_t i = 0; i < w.nr; i++) {
		const char *slash = basenames ? strrchr(w.v[i], '/') : NULL;
		strbuf_addf(sb, " %s", slash ? slash + 1 : w.v[i]);
	}
	strbuf_addch(sb, ')');
	strvec_clear(&w);
}

/* Is f one of the flags of pgbuild pgo's profile mode (PGOPT_PROFILE,
 * policy.h) or of a bundle (PGOPT_BUNDLE: the same use flags), which no
 * policy may hold? */
static int profile_flag(const char *f)
{
	static const char *const modes[] = {
		POLICY_PROFILE_GENERATE, POLICY_PROFILE_LINK, POLICY_PROFILE_USE,
	};
	struct strvec w = STRVEC_INIT;
	int yes = 0;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]) && !yes; m++) {
		strvec_split(&w, modes[m]);
		for (size_t i = 0; i < w.nr && !yes; i++)
			yes = !strcmp(w.v[i], f);
		strvec_clear(&w);
	}
	return yes;
}

void explain_flags_text(struct strbuf *sb, const char *flags, const char *rules, int basenames)
{
	struct strvec w = STRVEC_INIT;
	struct strbuf pol = STRBUF_INIT, prof = STRBUF_INIT;
	strvec_split(&w, flags ? flags : "");
	for (size_t i = 0; i < w.nr; i++) {
		struct strbuf *to = profile_flag(w.v[i]) ? &prof : &pol;
		strbuf_addf(to, "%s%s", to->len ? " " : "", w.v[i]);
	}
	if (pol.len || !prof.len)
		strbuf_addf(sb, "%s%s", pol.len ? "+ " : "", pol.len ? pol.buf : "no flags added");
	if (rules && *rules)
		policy_lines(sb, rules, basenames);
	if (prof.len)
		strbuf_addf(sb, "%s+ %s (the profile: pgbuild pgo's PGOPT_PROFILE, or a bundle's PGOPT_BUNDLE)",
			    pol.len || (rules && *rules) ? ", " : "", prof.buf);
	strvec_clear(&w);
	strbuf_release(&pol);
	strbuf_release(&prof);
}

/* A row's decisions: one-sided inlining, absorbed callees, unit and flags. */
static void text_decisions(const struct json_value *row, FILE *fp)
{
	const struct json_value *sites = json_get(row, "inlined_one_side");
	const struct json_value *abs = json_get(row, "absorbed");
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_len(sites) && i < 3; i++) {
		const struct json_value *st = json_at(sites, i);
		const char *in = json_get_str(st, "inlined_in"), *cf = json_get_str(st, "callee_file");
		strbuf_reset(&sb);
		strbuf_addf(&sb, "inlined in %s only: %s%s%s%s; %s calls it %.2f/tx (%.0f inclusive): %s", in,
			    json_get_str(st, "callee"), cf ? " (" : "", cf ? cf : "",
			    cf ? (json_get(st, "cross_file")->u.boolean ? ", another file)" : ")") : "",
			    !strcmp(in, "A") ? "B" : "A", num(st, "calls_other"), num(st, "cost_other"),
			    json_get_str(st, "other"));
		wrap(fp, 6, 8, sb.buf);
	}
	if (json_len(sites) > 3)
		fprintf(fp, "      ... %zu more callees inlined on one side only (--json)\n",
			json_len(sites) - 3);
	strbuf_reset(&sb);
	for (size_t i = 0; i < json_len(abs) && i < 3; i++) {
		const struct json_value *a = json_at(abs, i);
		strbuf_addf(&sb, "%s%s %+.0f in %s", i ? ", " : "absorbed (cost moved in): ",
			    json_get_str(a, "callee"), num(a, "estimate"), json_get_str(a, "side"));
	}
	if (sb.len)
		wrap(fp, 6, 8, sb.buf);
	strbuf_reset(&sb);
	for (size_t i = 0; i < json_len(json_get(row, "callers")) && i < 3; i++) {
		const struct json_value *c = json_at(json_get(row, "callers"), i);
		strbuf_addf(&sb, "%s%s %.2f/tx in A (%.0f inclusive), %.2f/tx in B (%.0f)",
			    i ? "; " : "called from (largest changes): ", json_get_str(c, "caller"),
			    num(c, "calls_a"), num(c, "inclusive_a"), num(c, "calls_b"),
			    num(c, "inclusive_b"));
	}
	if (sb.len)
		wrap(fp, 6, 8, sb.buf);
	strbuf_reset(&sb);
	if (json_get_str(row, "tu"))
		strbuf_addf(&sb, "unit %s:", json_get_str(row, "tu"));
	for (int s = 0; s < 2; s++) {
		const char *side = s ? "b" : "a", *f = side_str(row, side, "flags");
		const char *rl = side_str(row, side, "rules"), *sec = side_str(row, side, "section");
		const char *bolt = side_str(row, side, "bolt");
		size_t before = sb.len;
		if (!s && same_str(f, side_str(row, "b", "flags")) &&
		    same_str(rl, side_str(row, "b", "rules")) && (f || rl)) {
			/* both builds' unit got the same flags: say it once */
			strbuf_addstr(&sb, " A and B ");
			explain_flags_text(&sb, f, rl, 1);
			strbuf_addch(&sb, ';');
			before = sb.len;
		} else if (s && same_str(side_str(row, "a", "flags"), f) &&
			   same_str(side_str(row, "a", "rules"), rl)) {
			/* said above */
		} else if (f || rl) {
			strbuf_addf(&sb, " %s ", s ? "B" : "A");
			explain_flags_text(&sb, f, rl, 1);
		}
		if (sec && strcmp(sec, ".text"))
			strbuf_addf(&sb, "%s section %s", sb.len > before ? "," : s ? " B" : " A", sec);
		if (bolt)
			strbuf_addf(&sb, "%s BOLT %s", sb.len > before ? "," : s ? " B" : " A", bolt);
		if (sb.len > before && !s)
			strbuf_addch(&sb, ';');
	}
	if (sb.len)
		wrap(fp, 6, 8, sb.buf);
	strbuf_release(&sb);
}

void explain_render_text(const struct json_value *doc, size_t rows, FILE *fp)
{
	const struct json_value *rv = json_get(doc, "rows");
	const char *wl = json_get_str(doc, "workload");
	char s1[24], s2[24], s3[24], s4[24], s5[24], s6[40];

	fprintf(fp, "explain%s%s: where the cycles estimate changed (self cost per transaction, "
		"B - A)\n", wl ? " " : "", wl ? wl : "");
	text_sums(doc, fp);
	fprintf(fp, "\n  %3s %-32s %9s %9s %9s %6s %8s %13s\n", "#", "function", "A self", "B self",
		"change", "share", "instr", "size A>B");
	for (size_t i = 0; i < json_len(rv) && i < rows; i++) {
		const struct json_value *row = json_at(rv, i);
		const char *obj = json_get_str(row, "object");
		char name[64];
		if (!(fabs(num(row, "change")) >= 0.05)) {
			fprintf(fp, "  (the other %.0f rows changed by less than 0.05)\n",
				num(json_get(doc, "coverage"), "rows") - (double)i);
			break;
		}
		snprintf(name, sizeof(name), "%s%s%s%s", json_get_str(row, "function"),
			 obj && *obj ? " [" : "", obj && *obj ? obj : "", obj && *obj ? "]" : "");
		fmt(s1, sizeof(s1), side_num(row, "a", "self", "estimate"), "%.1f");
		fmt(s2, sizeof(s2), side_num(row, "b", "self", "estimate"), "%.1f");
		fmt(s3, sizeof(s3), num(row, "change"), "%+.1f");
		fmt(s4, sizeof(s4), 100 * num(row, "share"), "%.1f%%");
		fmt(s5, sizeof(s5), num(row, "change_instructions"), "%+.0f");
		snprintf(s6, sizeof(s6), "%s>%s",
			 isfinite(num(json_get(row, "a"), "size")) ? "" : "-",
			 isfinite(num(json_get(row, "b"), "size")) ? "" : "-");
		if (isfinite(num(json_get(row, "a"), "size")) || isfinite(num(json_get(row, "b"), "size"))) {
			char sa[16], sb2[16];
			fmt(sa, sizeof(sa), num(json_get(row, "a"), "size"), "%.0f");
			fmt(sb2, sizeof(sb2), num(json_get(row, "b"), "size"), "%.0f");
			snprintf(s6, sizeof(s6), "%s>%s", sa, sb2);
		}
		fprintf(fp, "  %3zu %-32.32s %9s %9s %9s %6s %8s %13s\n", i + 1, name, s1, s2, s3, s4,
			s5, s6);
		text_decisions(row, fp);
	}
	for (size_t i = 0; i < json_len(json_get(doc, "notes")); i++) {
		const struct json_value *n = json_at(json_get(doc, "notes"), i);
		if (n->type == JSON_STRING) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "note: %s", n->u.str.s);
			wrap(fp, 2, 4, sb.buf);
			strbuf_release(&sb);
		}
	}
	wrap(fp, 2, 4, "(" CYCLES_SIMULATION ")");
}
