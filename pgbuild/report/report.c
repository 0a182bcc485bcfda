/*
 * report.c - a gate result, the compile log and the two binaries
 * summarised for people (`pgbuild report`): a terminal summary, --json,
 * and --html (html.c), from what load.c read; see report.h.
 *
 * Per-function changes come from the binaries themselves: function symbol
 * sizes (.symtab, else .dynsym: postgres exports its functions for
 * extensions) of A's and B's postgres, read with libelf, plus the inlining
 * counts of `pgbuild inspect --json` where the plugin left records (a
 * baseline built without a policy has none, so its count shows as "-").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/verdict.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/gate/sequential.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/report/html.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/report/report.h"

/* ---------------- gate summary ---------------- */

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, n, fmt, v);
	else
		snprintf(buf, n, "-");
}

/* Server CPU per transaction of the tps runs, next to them. */
static void report_server_cpu(const struct gate *g, FILE *fp)
{
	char s1[32], s2[32], s3[32], s4[64], s5[32];
	struct stats_ratio iv;
	int any = 0;
	for (size_t i = 0; i < g->nr_wl; i++)
		any |= g->wl[i].cpu.n > 0;
	if (!any)
		return;
	fprintf(fp, "\n  server CPU per transaction (user+system of the postmaster and its children "
		"over the timed run; A/B > 1: B cheaper)\n");
	fprintf(fp, "  %-12s %5s %12s %12s %8s %-19s %6s\n", "workload", "pairs", "A us/tx",
		"B us/tx", "A/B HL", "interval", "noise");
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		if (!w->nr_runs)
			continue;
		fmt_num(s1, sizeof(s1), w->cpu_a_median, "%.2f");
		fmt_num(s2, sizeof(s2), w->cpu_b_median, "%.2f");
		fmt_num(s3, sizeof(s3), w->cpu.estimate, "%.4f");
		/* the interval the verdict reads (--pairs auto: the sequence) */
		gate_ratio_of(g, w, GATE_SERVER_CPU, &iv);
		if (iv.ok)
			snprintf(s4, sizeof(s4), "[%.4f, %.4f]", iv.lo, iv.hi);
		else
			snprintf(s4, sizeof(s4), w->cpu.n ? "(too few pairs)" : "(not measured)");
		fmt_num(s5, sizeof(s5), w->cpu.noise_floor_pct, "%.1f%%");
		fprintf(fp, "  %-12s %5zu %12s %12s %8s %-19s %6s\n", w->name, w->cpu.n, s1, s2, s3,
			s4, s5);
	}
}

/*
 * The simulation next to the machine: per workload measured both ways, the
 * cycles estimate's A/B beside the server CPU's A/B and its interval.
 */
static void report_agreement(const struct gate *g, FILE *fp)
{
	int head = 0;
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		double est;
		struct stats_ratio cpu;
		enum gate_agree a = gate_agreement(g, w, &est, &cpu);
		if (a == GATE_AGREE_NA)
			continue;
		if (!head++)
			fprintf(fp, "\n  the simulation next to the machine (A/B > 1: B cheaper; they agree "
				"when the estimate is inside the server CPU's interval)\n"
				"  %-12s %10s %10s %-19s %s\n", "workload", "estimate", "server CPU",
				"interval", "");
		fprintf(fp, "  %-12s %10.4f %10.4f [%.4f, %.4f] %s\n", w->name, est, cpu.estimate,
			cpu.lo, cpu.hi, gate_agree_names[a]);
	}
}

/* The resolution a deterministic metric's A/B is decided at (observed x
 * (1 +- it)) and where it came from, the layout floors' rule or the
 * repeat one: "+-" under the A/B column of the cycles table (table), else
 * after the name; without a floor "not decided" and why. */
static void report_resolution(const struct gate_workload *w, enum gate_kind kind, int table,
			      FILE *fp)
{
	const char *source, *label = "A/B decided at";
	char pm[32];
	double r = gate_resolution_of(w, kind, &source);
	/* no layout floor: not decided at all (gate.h), and why */
	if (isnan(r)) {
		label = "A/B not decided";
		snprintf(pm, sizeof(pm), "-");
	} else {
		snprintf(pm, sizeof(pm), "+-%.2f%%", r * 100);
	}
	if (table)
		fprintf(fp, "  %-12s %-22s %12s %12s %8s  %s\n", "", label, "", "", pm, source);
	else
		fprintf(fp, "  %-12s %s %s: %s\n", "", label, pm, source);
}

/* The cycles estimate and its parts, A, B and A/B per workload. */
static void report_cycles(const struct gate *g, FILE *fp)
{
	const struct metric_desc *m = metrics_of(METRIC_CYCLES);
	if (!gate_any_cycles(g))
		return;
	fprintf(fp, "\n  %s - %s\n", m->title, m->method);
	fprintf(fp, "  %-12s %-22s %12s %12s %8s\n", "workload", "per transaction", "A", "B", "A/B");
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		double va[GATE_CYCLES_ROWS], vb[GATE_CYCLES_ROWS];
		if (w->cycles == INSTR_NOT_MEASURED)
			continue;
		gate_cycles_rows(w, va, vb);
		if (w->cycles != INSTR_OK) {
			fprintf(fp, "  %-12s unavailable: %s\n", w->name,
				w->cycles_note ? w->cycles_note : "?");
			continue;
		}
		for (size_t k = 0; k < m->nrows; k++) {
			char sa[32], sb[32], sr[32];
			const char *f = va[k] < 100 ? "%.2f" : "%.0f";
			fmt_num(sa, sizeof(sa), va[k], f);
			fmt_num(sb, sizeof(sb), vb[k], f);
			fmt_num(sr, sizeof(sr), vb[k] > 0 ? va[k] / vb[k] : NAN, "%.4f");
			fprintf(fp, "  %-12s %-22s %12s %12s %8s\n", k ? "" : w->name, m->rows[k].label,
				sa, sb, sr);
		}
		report_resolution(w, GATE_CYCLES, 1, fp);
		fprintf(fp, "  %-12s (%s)\n", "", w->cycles_note ? w->cycles_note : "");
	}
}

/* Where each workload's estimate changed: the gate's explain sections. */
static void report_explain(const struct gate *g, FILE *fp)
{
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		struct strbuf why = STRBUF_INIT;
		struct json_value *doc;
		if (!w->explain_json)
			continue;
		doc = json_parse(w->explain_json, strlen(w->explain_json), &why);
		if (doc && explain_doc_check(doc, &why) == 0) {
			fputc('\n', fp);
			explain_render_text(doc, EXPLAIN_SECTION_ROWS, fp);
			fprintf(fp, "  (the top %d rows; all of them: pgbuild explain --gate-result GATE.json, "
				"with the gate's --workdir)\n", EXPLAIN_SECTION_ROWS);
		} else {
			fprintf(fp, "\n  explain %s: unreadable section: %s\n", w->name, why.buf);
		}
		json_free(doc);
		strbuf_release(&why);
	}
}

void report_levels_note(const struct gate *g, struct strbuf *sb)
{
	if (gate_findings_conf(g) > g->conf * (1 + 1e-12))
		strbuf_addf(sb, " each, in the tables below; the findings above at %.4g%%, the "
			    "level of their family of %zu figures", gate_findings_conf(g) * 100,
			    gate_findings_size(g));
}

void report_gate_terminal(const struct gate *g, const char *baseline,
			  const char *candidate, FILE *fp)
{
	int p99 = gate_lat_index("p99");
	int any_instr = 0, any_runs = 0;
	char ci_head[48];
	char s1[32], s2[32], s3[32], s4[64], s5[32], s6[32], s7[32], s8[32], s9[32];
	struct stats_ratio iv;

	{
		/* what was found first: the verdict in words, one sentence per
		 * workload, the suite (gate/verdict.h) */
		struct gate_verdict v = GATE_VERDICT_INIT;
		struct strbuf f = STRBUF_INIT;
		gate_verdict_of(g, &v);
		gate_findings(g, &f);
		fprintf(fp, "gate: %s - %s\n", gate_verdict_headline(&v), v.why);
		for (const char *l = f.buf; *l;) {
			size_t n = strcspn(l, "\n");
			fprintf(fp, "  %.*s\n", (int)n, l);
			l += n + (l[n] ? 1 : 0);
		}
		gate_verdict_clear(&v);
		strbuf_release(&f);
	}
	if (baseline || candidate)
		fprintf(fp, "  A (baseline)  %s\n  B (candidate) %s\n",
			baseline ? baseline : "?", candidate ? candidate : "?");
	{
		struct strbuf lv = STRBUF_INIT;
		report_levels_note(g, &lv);
		fprintf(fp, "  interval: %s, %g%%%s\n", stats_method_name(g->method),
			g->conf * 100, lv.buf);
		strbuf_release(&lv);
	}
	if (g->sequential)
		fprintf(fp, "  --pairs auto: %s; %s\n", SEQ_METHOD,
			g->seq_stop ? g->seq_stop : "no pairs");
	fputc('\n', fp);
	snprintf(ci_head, sizeof(ci_head), "%g%% CI", g->conf * 100);
	for (size_t i = 0; i < g->nr_wl; i++)
		any_runs |= g->wl[i].nr_runs > 0;
	if (any_runs)
		fprintf(fp, "  %-12s %5s %10s %10s %8s %8s %-19s %8s %8s %7s %6s\n", "workload", "pairs",
			"tps A", "tps B", "median", "B/A HL", ci_head, "p99 A ms", "p99 B ms", "p99 B/A",
			"noise");
	for (size_t i = 0; i < g->nr_wl; i++) {
		const struct gate_workload *w = &g->wl[i];
		size_t pairs = 0;
		for (size_t k = 0; k < w->nr_runs; k++)
			if ((size_t)w->runs[k].pair + 1 > pairs)
				pairs = (size_t)w->runs[k].pair + 1;
		any_instr |= w->instr != INSTR_NOT_MEASURED;
		if (!w->nr_runs)
			continue;
		fmt_num(s1, sizeof(s1), w->tps_a_median, "%.0f");
		fmt_num(s2, sizeof(s2), w->tps_b_median, "%.0f");
		fmt_num(s9, sizeof(s9), w->tps.median, "%.4f");
		fmt_num(s3, sizeof(s3), w->tps.estimate, "%.4f");
		/* the interval the verdict reads (--pairs auto: the sequence) */
		gate_ratio_of(g, w, GATE_TPS, &iv);
		if (iv.ok)
			snprintf(s4, sizeof(s4), "[%.4f, %.4f]", iv.lo, iv.hi);
		else
			snprintf(s4, sizeof(s4), "(too few pairs)");
		fmt_num(s5, sizeof(s5), w->lat_a_median[p99], "%.3f");
		fmt_num(s6, sizeof(s6), w->lat_b_median[p99], "%.3f");
		fmt_num(s7, sizeof(s7), w->lat[p99].estimate, "%.4f");
		fmt_num(s8, sizeof(s8), w->tps.noise_floor_pct, "%.1f%%");
		fprintf(fp, "  %-12s %2zu/%-2zu %10s %10s %8s %8s %-19s %8s %8s %7s %6s%s\n", w->name,
			w->valid_pairs, pairs, s1, s2, s9, s3, s4, s5, s6, s7, s8,
			w->correctness_failed ? "  CORRECTNESS FAILED" : "");
	}
	if (any_runs)
		fprintf(fp, "  (median: of the per-pair ratios B/A; B/A HL: %s estimate, which the %s "
			"interval is about)\n", g->method == STATS_CI_BOOTSTRAP ? "bootstrap median" :
			"Hodges-Lehmann", ci_head);
	report_server_cpu(g, fp);
	if (any_instr) {
		fprintf(fp, "\n  %s (counted by %s; a proxy: it does not see "
			"cache or memory effects)\n", metrics_of(METRIC_INSTR)->title,
			!g->counter ? "callgrind" : !strcmp(g->counter, "perf") ?
			"perf stat, hardware counters" : g->counter);
		if (g->counter_note)
			fprintf(fp, "  counter: %s\n", g->counter_note);
		for (size_t i = 0; i < g->nr_wl; i++) {
			const struct gate_workload *w = &g->wl[i];
			if (w->instr == INSTR_OK) {
				fprintf(fp, "  %-12s A %.0f  B %.0f  A/B %.4f  (%s)\n", w->name, w->instr_a,
					w->instr_b, w->instr_a / w->instr_b, w->instr_note ? w->instr_note : "");
				report_resolution(w, GATE_INSTRUCTIONS, 0, fp);
			} else if (w->instr == INSTR_UNAVAILABLE)
				fprintf(fp, "  %-12s unavailable: %s\n", w->name,
					w->instr_note ? w->instr_note : "?");
		}
	}
	report_cycles(g, fp);
	report_agreement(g, fp);
	report_explain(g, fp);
	if (g->noise_note)
		fprintf(fp, "\n  resolution of %s: %s\n", metrics_list(metrics_deterministic()),
			g->noise_note);
	fprintf(fp, "\n  regression suite: %s%s%s\n",
		g->regress == REGRESS_PASSED ? "passed" : g->regress == REGRESS_FAILED ? "FAILED" : "not run",
		g->regress_note ? " - " : "", g->regress_note ? g->regress_note : "");
	fprintf(fp, "  thresholds:\n");
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		fprintf(fp, "    %-5s %-26s %-12s %s\n", r->status == GATE_PASS ? "pass" :
			r->status == GATE_FAIL ? "FAIL" : r->status == GATE_UNDECIDED ? "UNDEC" :
			"ERROR", r->th->text, r->workload,
			r->message ? r->message : "");
	}
}

/* ---------------- terminal ---------------- */

#define TERM_ROWS 15
/* A flag set of at most this many units lists each one on its line. */
#define TERM_SET_UNITS 3

/* text wrapped at 100 columns (text_wrap): the first line indented by
 * first, the others by indent. */
static void wrap_line(FILE *fp, int first, int indent, const char *text)
{
	text_wrap(fp, 100, first, indent, text);
}

/* A set's units from `from`, up to max of them, comma-separated. */
static void unit_list(const struct report_data *rd, const struct report_flagset *set,
		      size_t from, size_t to, size_t max, struct strbuf *sb)
{
	for (size_t j = from; j < to && j < from + max; j++)
		strbuf_addf(sb, "%s%s", j > from ? ", " : "", rd->tus[set->units[j]].tu);
	if (to - from > max)
		strbuf_addf(sb, " and %zu more", to - from - max);
}

/* Per-file flags, one line per flag set (a small set: one per unit). */
static void terminal_flags(const struct report_data *rd, FILE *fp)
{
	struct report_flagset *sets;
	size_t n = report_flagsets(rd, &sets);
	struct strbuf sb = STRBUF_INIT;
	fprintf(fp, "per-file flags: %zu of %zu translation units changed by the policy, in %zu "
		"flag set%s\n", rd->nr_tus, rd->tus_total, n, n == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++) {
		const struct report_flagset *set = &sets[k];
		strbuf_reset(&sb);
		if (set->n <= TERM_SET_UNITS) {
			for (size_t j = 0; j < set->n; j++) {
				const struct report_tu *t = &rd->tus[set->units[j]];
				fprintf(fp, "  %-48s %s%s%s%s%s\n", t->tu, *t->added ? "+ " : "", t->added,
					*t->removed ? "  - " : "", t->removed,
					report_tu_is_hot(rd, t->tu) ? "  (hot list)" : "");
			}
			continue;
		}
		strbuf_addf(&sb, "%zu units: %s%s%s%s", set->n, *set->added ? "+ " : "", set->added,
			    *set->removed ? " - " : "", set->removed);
		for (size_t r = 0; r < set->rules.nr && r < 3; r++)
			strbuf_addf(&sb, "%s%s", r ? ", " : " (policy ", set->rules.v[r]);
		if (set->rules.nr)
			strbuf_addf(&sb, "%s)", set->rules.nr > 3 ? ", ..." : "");
		wrap_line(fp, 2, 6, sb.buf);
		if (set->nhot) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "hot list (its functions are marked in): ");
			unit_list(rd, set, 0, set->nhot, 8, &sb);
			wrap_line(fp, 4, 6, sb.buf);
		}
		strbuf_reset(&sb);
		strbuf_addstr(&sb, set->nhot ? "others: " : "");
		unit_list(rd, set, set->nhot, set->n, 4, &sb);
		if (set->n - set->nhot > 4)
			strbuf_addstr(&sb, " (--html and --json list them all)");
		wrap_line(fp, 4, 6, sb.buf);
	}
	fputc('\n', fp);
	strbuf_release(&sb);
	report_flagsets_free(sets, n);
}

void report_terminal(const struct report_data *rd, FILE *fp)
{
	if (rd->have_gate) {
		report_gate_terminal(&rd->gate, rd->baseline, rd->candidate, fp);
		fputc('\n', fp);
	}
	if (rd->have_log)
		terminal_flags(rd, fp);
	if (rd->have_inspect && (!rd->fns_a || !rd->fns_b)) {
		/* one side only: nothing to compare, and no "A 0" */
		fprintf(fp, "functions: %s %zu; %s none (no function symbols, or not given): "
			"nothing to compare\n", rd->fns_a ? "A" : "B", rd->fns_a ? rd->fns_a : rd->fns_b,
			rd->fns_a ? "B has" : "A has");
	} else if (rd->have_inspect) {
		char a[32], b[32], ia[16], ib[16];
		fprintf(fp, "functions: A %zu, B %zu; summed function size A %.0f, B %.0f bytes (%+.1f%%)\n",
			rd->fns_a, rd->fns_b, rd->text_a, rd->text_b,
			rd->text_a > 0 ? 100 * (rd->text_b / rd->text_a - 1) : 0.0);
		if (!rd->recs_a && rd->recs_b)
			fprintf(fp, "  biggest size changes (bytes); inl B: inlined calls in B alone, "
				"not a change (the baseline has no plugin record):\n");
		else if (rd->recs_a && !rd->recs_b)
			fprintf(fp, "  biggest size changes (bytes); inl A: inlined calls in A alone "
				"(the candidate has no plugin record):\n");
		else
			fprintf(fp, "  biggest changes (size in bytes, inlined callees):\n");
		fprintf(fp, "  (one row per source function: LTO renames, clones and cold parts "
			"matched; a function\n  inlined into one caller on one side counted in "
			"that caller)\n");
		fprintf(fp, "  %-40s %9s %9s %8s %6s %6s\n", "function", "size A", "size B", "change",
			"inl A", "inl B");
		for (size_t i = 0; i < rd->nr_fns && i < TERM_ROWS; i++) {
			const struct report_fn *f = &rd->fns[i];
			fmt_num(a, sizeof(a), f->size_a, "%.0f");
			fmt_num(b, sizeof(b), f->size_b, "%.0f");
			fmt_num(ia, sizeof(ia), f->inl_a, "%.0f");
			fmt_num(ib, sizeof(ib), f->inl_b, "%.0f");
			fprintf(fp, "  %-40.40s %9s %9s %+8.0f %6s %6s\n", f->name, a, b,
				(isfinite(f->size_b) ? f->size_b : 0) - (isfinite(f->size_a) ? f->size_a : 0),
				ia, ib);
			if (f->note)
				wrap_line(fp, 6, 8, f->note);
		}
	}
}

/* ---------------- outputs ---------------- */

int report_has_content(const struct report_data *rd)
{
	return rd->have_gate || (rd->have_log && rd->tus_total > 0) || rd->have_inspect;
}

/* "flag_sets": the changed units grouped by their flags, hot units first. */
static void write_flagsets(const struct report_data *rd, struct json_writer *jw)
{
	struct report_flagset *sets;
	size_t n = report_flagsets(rd, &sets);
	json_key(jw, "flag_sets");
	json_array_begin(jw);
	for (size_t k = 0; k < n; k++) {
		json_object_begin(jw);
		json_key(jw, "added"); json_string(jw, sets[k].added);
		json_key(jw, "removed"); json_string(jw, sets[k].removed);
		json_key(jw, "rules"); json_strvec(jw, &sets[k].rules);
		json_key(jw, "hot_units"); json_int(jw, (int64_t)sets[k].nhot);
		json_key(jw, "units");
		json_array_begin(jw);
		for (size_t j = 0; j < sets[k].n; j++)
			json_string(jw, rd->tus[sets[k].units[j]].tu);
		json_array_end(jw);
		json_object_end(jw);
	}
	json_array_end(jw);
	report_flagsets_free(sets, n);
}

void report_write_json(const struct report_data *rd, struct strbuf *out)
{
	struct json_writer jw;
	json_writer_init(&jw, out);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-report");
	json_key(&jw, "verdict");
	if (rd->have_gate)
		json_string(&jw, gate_status_name(rd->gate.verdict));
	else
		json_null(&jw);
	json_key(&jw, "verdict_word");  /* the words the terminal uses, lower case */
	if (rd->have_gate) {
		struct gate_verdict v = GATE_VERDICT_INIT;
		gate_verdict_of(&rd->gate, &v);
		json_string(&jw, gate_verdict_word(&v));
		gate_verdict_clear(&v);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "translation_units_total"); json_int(&jw, (int64_t)rd->tus_total);
	json_key(&jw, "translation_units");
	json_array_begin(&jw);
	for (size_t i = 0; i < rd->nr_tus; i++) {
		json_object_begin(&jw);
		json_key(&jw, "tu"); json_string(&jw, rd->tus[i].tu);
		json_key(&jw, "added"); json_string(&jw, rd->tus[i].added);
		json_key(&jw, "removed"); json_string(&jw, rd->tus[i].removed);
		json_key(&jw, "rules"); json_string(&jw, rd->tus[i].rules);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	write_flagsets(rd, &jw);
	json_key(&jw, "inlining_compared"); json_bool(&jw, rd->recs_a && rd->recs_b);
	json_key(&jw, "functions");
	json_array_begin(&jw);
	for (size_t i = 0; i < rd->nr_fns; i++) {
		const struct report_fn *f = &rd->fns[i];
		json_object_begin(&jw);
		json_key(&jw, "name"); json_string(&jw, f->name);
		json_key(&jw, "tu"); json_string(&jw, f->tu);
		json_key(&jw, "size_a"); json_double(&jw, f->size_a);
		json_key(&jw, "size_b"); json_double(&jw, f->size_b);
		json_key(&jw, "inlined_a"); json_double(&jw, f->inl_a);
		json_key(&jw, "inlined_b"); json_double(&jw, f->inl_b);
		json_key(&jw, "matched"); json_string(&jw, f->note);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_object_end(&jw);
	strbuf_addch(out, '\n');
}
