/*
 * test-gate-verdict.c - the one verdict every deciding command reads
 * (pgbuild/gate/verdict.h) and optimize's use of it: a candidate is ruled
 * out by a failed suite, a failed correctness check or a significantly
 * slower bound whatever else it measured, not by a claim it did not show;
 * the words a table shows; a gate document read back through gate_load
 * (the bounded reader) gives the same verdict; optimize drops a stage its
 * gate rules out even with the best cycles estimate (a real gate document
 * of tests/pg's coscup LTO build, tests/unit/data/optimize-gate-lto.json,
 * with one correctness failure of the candidate planted); the best build
 * across compilers is chosen on the workloads held out for both, by more
 * than the resolution.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/report/report.h"

#include "tests/unit/fixture.h"
#include "tests/unit/gate-synth.h"

/* The verdict of a synthetic gate: thresholds expr, n pairs at speed. */
static void verdict_of(const char *expr, double speed, double noise,
		       void (*plant)(struct gate *g), struct gate_verdict *v)
{
	struct gate g;
	synth_gate(&g, expr);
	synth_rng = 42;
	synth_pairs(&g, "select-only", 9, speed, noise, 1);
	if (plant)
		plant(&g);
	gate_analyse(&g);
	gate_decide(&g);
	gate_verdict_of(&g, v);
	gate_clear(&g);
}

static void plant_correctness(struct gate *g)
{
	for (size_t i = 0; i < g->wl[0].nr_runs; i++)
		if (g->wl[0].runs[i].build == 'B') {
			g->wl[0].runs[i].exit = 1;
			return;
		}
}

static void plant_regress(struct gate *g)
{
	g->regress = REGRESS_FAILED;
}

static void test_rule(void **state)
{
	struct gate_verdict v = GATE_VERDICT_INIT;
	(void)state;

	/* a claim shown: faster */
	verdict_of("select-only>=1.05", 1.15, 0.01, NULL, &v);
	assert_int_equal(v.status, GATE_PASS);
	assert_false(v.ruled_out);
	assert_true(v.claims_shown);
	assert_string_equal(gate_verdict_word(&v), "faster");

	/* a claim and a bound, both met: not slower (the bound asked no more) */
	verdict_of("select-only>=1.05,select-only>=1.00", 1.15, 0.01, NULL, &v);
	assert_int_equal(v.status, GATE_PASS);
	assert_string_equal(gate_verdict_word(&v), "not slower");

	/* only a bound, met: not slower, never "faster" */
	verdict_of("select-only>=1.00", 1.15, 0.01, NULL, &v);
	assert_int_equal(v.status, GATE_PASS);
	assert_false(v.claims_shown);
	assert_string_equal(gate_verdict_word(&v), "not slower");

	/* a bound met only because its interval reaches both sides (an A/A
	 * gate, 10% noise): the gate passes, but no loss is excluded: "not
	 * shown slower", never "not slower" */
	verdict_of("select-only>=1.00", 1.00, 0.10, NULL, &v);
	assert_int_equal(v.status, GATE_PASS);
	assert_false(v.ruled_out);
	assert_false(v.bounds_shown);
	assert_string_equal(gate_verdict_word(&v), "not shown slower");
	assert_string_equal(gate_verdict_headline(&v), "NOT SHOWN SLOWER");

	/* a claim missed: a fail that rules nothing out */
	verdict_of("select-only>=1.05", 1.00, 0.01, NULL, &v);
	assert_int_equal(v.status, GATE_FAIL);
	assert_false(v.ruled_out);
	assert_string_equal(gate_verdict_word(&v), "not shown faster");

	/* a bound failed: significantly slower, ruled out, named */
	verdict_of("select-only>=1.00", 0.90, 0.01, NULL, &v);
	assert_true(v.ruled_out);
	assert_non_null(strstr(v.why, "significantly worse"));
	assert_non_null(strstr(v.why, "select-only"));
	assert_string_equal(gate_verdict_word(&v), "slower");

	/* a clear win with a failed correctness check or suite: ruled out */
	verdict_of("select-only>=1.05", 1.30, 0.01, plant_correctness, &v);
	assert_true(v.ruled_out);
	assert_false(v.claims_shown);
	assert_non_null(strstr(v.why, "correctness check of workload select-only"));
	assert_string_equal(gate_verdict_word(&v), "failed");
	verdict_of("select-only>=1.05", 1.30, 0.01, plant_regress, &v);
	assert_true(v.ruled_out);
	assert_non_null(strstr(v.why, "regression suite"));
	gate_verdict_clear(&v);
}

/* The same verdict from the gate's document, read back by gate_load. */
static void test_load(void **state)
{
	struct gate g, back;
	struct gate_verdict v = GATE_VERDICT_INIT, w = GATE_VERDICT_INIT;
	struct strbuf doc = STRBUF_INIT, err = STRBUF_INIT;
	char path[] = "/tmp/pgopt-verdict.XXXXXX";
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	synth_gate(&g, "select-only>=1.00");
	synth_rng = 7;
	synth_pairs(&g, "select-only", 9, 0.85, 0.01, 1);
	gate_analyse(&g);
	gate_decide(&g);
	gate_verdict_of(&g, &v);
	gate_write_json(&g, &doc, "/a", "/b", NULL);
	assert_int_equal(write_file_atomic(path, doc.buf, doc.len), 0);
	assert_int_equal(gate_load(path, &back, &w, &err), 0);
	assert_int_equal(w.ruled_out, v.ruled_out);
	assert_int_equal(w.status, v.status);
	assert_string_equal(w.why, v.why);
	gate_clear(&back);
	gate_clear(&g);

	/* an unreadable document rules the candidate out, and says why */
	unlink(path);
	assert_int_equal(gate_load(path, &back, &w, &err), -1);
	assert_true(w.ruled_out);
	assert_non_null(strstr(w.why, "no gate result"));
	gate_clear(&back);
	gate_verdict_clear(&v);
	gate_verdict_clear(&w);
	strbuf_release(&doc);
	strbuf_release(&err);
}

/* optimize: a real gate of an LTO build against stock, its candidate
 * given one failed correctness check: the estimate alone would keep it. */
static void test_optimize_drops_ruled_out(void **state)
{
	struct gate g;
	struct gate_verdict v = GATE_VERDICT_INIT;
	struct optimize_measure m;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	char *text = fixture("optimize-gate-lto.json");
	(void)state;

	memset(&g, 0, sizeof(g));
	assert_int_equal(gate_read_json(&g, text, strlen(text), &err), 0);
	gate_verdict_of(&g, &v);
	optimize_measure_of(&m, &g, 1);
	/* the fixture is at the repeat resolution (no statistic, on which
	 * nothing is kept: test-optimize.c); read as at a floor of its width */
	m.wl[0].f[OM_CYCLES].statistic = 1;
	assert_false(v.ruled_out);
	assert_int_equal(optimize_keep(&v, &m, NULL, "stock", NULL, &why), 1);

	for (size_t i = 0; i < g.wl[0].nr_runs; i++)
		if (g.wl[0].runs[i].build == 'B') {
			g.wl[0].runs[i].exit = 1;
			break;
		}
	gate_analyse(&g);
	gate_decide(&g);
	gate_verdict_of(&g, &v);
	assert_true(v.ruled_out);
	strbuf_reset(&why);
	assert_int_equal(optimize_keep(&v, &m, NULL, "stock", NULL, &why), 0);
	assert_non_null(strstr(why.buf, "the gate rules it out"));
	assert_non_null(strstr(why.buf, "correctness"));
	optimize_measure_clear(&m);
	gate_verdict_clear(&v);
	gate_clear(&g);
	free(text);
	strbuf_release(&err);
	strbuf_release(&why);
}

/* A measure of two workloads with the given cycles speedups over stock. */
static void measure2(struct optimize_measure *m, double a, double b)
{
	memset(m, 0, sizeof(*m));
	m->nr = 2;
	m->wl = xcalloc(2, sizeof(*m->wl));
	m->wl[0].name = xstrdup("select-only");
	m->wl[1].name = xstrdup("agg");
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < OM_NR; k++) {
			m->wl[w].f[k].total = m->wl[w].f[k].lo = m->wl[w].f[k].hi = NAN;
			m->wl[w].f[k].floor = 0;
		}
	m->wl[0].f[OM_CYCLES].total = a;
	m->wl[1].f[OM_CYCLES].total = b;
	m->wl[0].f[OM_CYCLES].floor = m->wl[1].f[OM_CYCLES].floor = 0.005;
}

static void test_best_across_compilers(void **state)
{
	struct optimize_measure gcc, clang;
	struct strvec trained = STRVEC_INIT;
	struct strbuf why = STRBUF_INIT;
	(void)state;

	/* clang far ahead on select-only, which it trained on, level on agg:
	 * a geometric mean over both would call it best; held out, it is not */
	measure2(&gcc, 1.10, 1.10);
	measure2(&clang, 1.40, 1.102);
	strvec_push(&trained, "select-only");
	assert_true(optimize_score(&clang) > optimize_score(&gcc));
	assert_int_equal(optimize_beats(&clang, &trained, &gcc, NULL, &why), 0);
	assert_non_null(strstr(why.buf, "1 workload held out for both"));
	/* ahead on agg too, beyond the 0.5% resolution: the new best */
	optimize_measure_clear(&clang);
	measure2(&clang, 1.40, 1.12);
	strbuf_reset(&why);
	assert_int_equal(optimize_beats(&clang, &trained, &gcc, NULL, &why), 1);
	/* nothing held out for both: no change of the best build */
	strvec_push(&trained, "agg");
	strbuf_reset(&why);
	assert_int_equal(optimize_beats(&clang, &trained, &gcc, NULL, &why), 0);
	assert_non_null(strstr(why.buf, "no workload is held out for both"));
	optimize_measure_clear(&gcc);
	optimize_measure_clear(&clang);
	strvec_clear(&trained);
	strbuf_release(&why);
}

/*
 * --pairs auto: 8 pairs 5% faster at 1% noise.  The fixed-sample interval
 * of those pairs excludes 1, but pairs added until an interval says
 * something make that interval invalid; the confidence sequence the
 * verdict reads is unbounded before 10 pairs, so the gate is undecided.
 * The findings, the speedup tune and sensitivity read, and optimize's tps
 * figure must say what the verdict says: no significant difference, a
 * lower end below 1 (they read the fixed interval and said "faster").
 */
static void test_sequential_figures(void **state)
{
	struct gate g;
	struct gate_verdict v = GATE_VERDICT_INIT;
	struct strbuf f = STRBUF_INIT;
	struct optimize_measure m;
	double est, lo, hi;
	(void)state;

	synth_gate(&g, "select-only>=1.02");
	synth_rng = 42;
	synth_pairs(&g, "select-only", 8, 1.05, 0.01, 1);
	g.sequential = 1;
	gate_analyse(&g);
	assert_true(g.wl[0].tps.ok && g.wl[0].tps.lo > 1);   /* the fixed interval */
	gate_decide(&g);
	gate_verdict_of(&g, &v);
	assert_int_equal(v.status, GATE_UNDECIDED);
	gate_findings(&g, &f);
	assert_null(strstr(f.buf, "tps faster"));
	assert_non_null(strstr(f.buf, "tps no significant difference"));
	assert_int_equal(gate_speedup(&g, "select-only", GATE_TPS, &est, &lo, &hi, NULL), 0);
	assert_true(est > 1.03 && lo < 1 && hi > 1);
	optimize_measure_of(&m, &g, 1);
	assert_true(optimize_measure_get(&m, "select-only", OM_TPS)->lo < 1);
	optimize_measure_clear(&m);
	/* the report's table shows the sequence, not the fixed interval */
	{
		char fixed[64], *text = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&text, &len);
		assert_non_null(fp);
		snprintf(fixed, sizeof(fixed), "[%.4f, %.4f]", g.wl[0].tps.lo, g.wl[0].tps.hi);
		report_gate_terminal(&g, NULL, NULL, fp);
		fclose(fp);
		assert_null(strstr(text, fixed));
		assert_non_null(strstr(text, "[0.0000, inf]"));
		free(text);
	}
	/* the same pairs in a fixed-pairs gate: decided on the fixed interval */
	g.sequential = 0;
	strbuf_reset(&f);
	gate_findings(&g, &f);
	assert_non_null(strstr(f.buf, "tps faster"));
	strbuf_release(&f);
	gate_verdict_clear(&v);
	gate_clear(&g);
}

/*
 * --pairs auto: the simulation next to the machine reads the server CPU's
 * confidence sequence, as the verdict does, not the fixed interval of
 * pairs added until it said something.  8 pairs 5% cheaper at 1% noise
 * with an estimate of 1.05: the fixed interval is narrow and holds it
 * ("agree"), the sequence is unbounded before 10 pairs ("not tested");
 * the JSON and the report name the sequence's interval.  Fails on the old
 * gate_agreement, which read w->cpu.
 */
static void test_sequential_agreement(void **state)
{
	struct gate g;
	struct gate_workload *w;
	struct stats_ratio cpu;
	struct strbuf js = STRBUF_INIT;
	double est;
	(void)state;

	synth_gate(&g, "cpu>=1.00");
	synth_rng = 7;
	synth_pairs(&g, "select-only", 8, 1.0, 0.01, 1);
	w = &g.wl[0];
	for (size_t i = 0; i < w->nr_runs; i++)
		w->runs[i].server_cpu_us = (w->runs[i].build == 'A' ? 42.0 : 40.0) *
					   exp(0.005 * synth_gauss());
	w->cycles = INSTR_OK;                   /* the estimate: 1.05 */
	w->cyc_a.estimate = 105000;
	w->cyc_b.estimate = 100000;
	gate_analyse(&g);
	assert_true(w->cpu.ok && w->cpu.lo < 1.05 && w->cpu.hi > 1.05 && w->cpu.lo > 1.02);
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_YES);
	g.sequential = 1;
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_UNTESTED);
	assert_true(cpu.ok && !isfinite(cpu.hi));
	gate_decide(&g);
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"agree\":null,\"verdict\":\"not tested"));
	strbuf_release(&js);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&text, &len);
		assert_non_null(fp);
		report_gate_terminal(&g, NULL, NULL, fp);
		fclose(fp);
		assert_non_null(strstr(text, "1.0500     1.0"));
		assert_non_null(strstr(text, "[0.0000, inf] not tested"));
		/* a cost beyond the repeat resolution is no finding: no level */
		if (!strstr(text, "cycles estimate 4.8% lower, beyond the 0.1% repeat resolution "
			    "(no layout floor: --noise none), which is no statistic: whether that "
			    "is more than relinking alone moves it, a layout floor says\n"))
			fail_msg("the repeat resolution's finding:\n%s", text);
		/* the tables' level and the findings' (the family's) both named */
		if (!strstr(text, "95% each, in the tables below; the findings above at 97.5%, "
			    "the level of their family of 2 figures"))
			fail_msg("the levels are not said:\n%s", text);
		free(text);
	}
	gate_clear(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_optimize_drops_ruled_out),
		cmocka_unit_test(test_best_across_compilers),
		cmocka_unit_test(test_sequential_figures),
		cmocka_unit_test(test_sequential_agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
