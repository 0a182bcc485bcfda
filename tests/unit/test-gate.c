/*
 * test-gate.c - the gate's decisions on synthetic run data: threshold
 * expressions (a table of good and bad ones), clear win, clear loss, noise,
 * too few pairs, failed regression suite, failed correctness check,
 * instructions available or not, the A/A false-pass rate of the decision
 * rule, and the JSON round trip.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/gate/junit.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/xalloc.h"
#include "tests/unit/gate-synth.h"

/* ---- expressions ---- */

static void test_expr_good(void **state)
{
	struct gate_thresholds th = { 0 };
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(gate_expr_parse(&th, "select-only>=1.05, tpcb>=1.00,p99<=+10%", &err), 0);
	assert_int_equal(th.nr, 3);
	assert_string_equal(th.v[0].workload, "select-only");
	assert_int_equal(th.v[0].kind, GATE_TPS);
	assert_true(fabs(th.v[0].value - 1.05) < 1e-12);
	assert_string_equal(th.v[1].text, "tpcb>=1.00");
	assert_null(th.v[2].workload);
	assert_int_equal(th.v[2].kind, GATE_LATENCY);
	assert_int_equal(th.v[2].lat, gate_lat_index("p99"));
	assert_true(fabs(th.v[2].value - 1.10) < 1e-12);
	gate_thresholds_clear(&th);

	assert_int_equal(gate_expr_parse(&th, "tpcb>=-2%,tpcb.p999<=1.5,instructions>=1.03,"
					 "select1.instr>=+1%,tps>=1,p50 <= -5 %", &err), 0);
	assert_int_equal(th.nr, 6);
	assert_true(fabs(th.v[0].value - 0.98) < 1e-12);
	assert_string_equal(th.v[1].workload, "tpcb");
	assert_int_equal(th.v[1].lat, gate_lat_index("p999"));
	assert_int_equal(th.v[2].kind, GATE_INSTRUCTIONS);
	assert_null(th.v[2].workload);
	assert_string_equal(th.v[3].workload, "select1");
	assert_int_equal(th.v[3].kind, GATE_INSTRUCTIONS);
	assert_int_equal(th.v[4].kind, GATE_TPS);
	assert_null(th.v[4].workload);
	assert_true(fabs(th.v[5].value - 0.95) < 1e-12);
	assert_true(gate_is_claim(&th.v[5]));   /* p50 must drop 5% */
	assert_false(gate_is_claim(&th.v[0]));  /* tpcb may lose 2% */
	gate_thresholds_clear(&th);

	/* with its sign a change of 100% or more is unambiguous; without a
	 * sign, one below 100% still reads as a change */
	assert_int_equal(gate_expr_parse(&th, "tpcb>=+105%,select1>=5%,p99<=+100%", &err), 0);
	assert_true(fabs(th.v[0].value - 2.05) < 1e-12);
	assert_true(fabs(th.v[1].value - 1.05) < 1e-12);
	assert_true(fabs(th.v[2].value - 2.00) < 1e-12);
	gate_thresholds_clear(&th);

	/* decimal notation: a fraction without a leading digit, an exponent */
	assert_int_equal(gate_expr_parse(&th, "tps>=.95,tpcb>=105e-2,p99<=+.5%", &err), 0);
	assert_true(fabs(th.v[0].value - 0.95) < 1e-12);
	assert_true(fabs(th.v[1].value - 1.05) < 1e-12);
	assert_true(fabs(th.v[2].value - 1.005) < 1e-12);
	gate_thresholds_clear(&th);
	strbuf_release(&err);
}

static void test_expr_bad(void **state)
{
	static const struct { const char *expr, *msg; } bad[] = {
		{ "", "item 1 is empty" },
		{ "select-only>=1.05,", "item 2 is empty" },
		{ "select-only=1.05", "expected >= or <=" },
		{ "select-only>1.05", "expected >= or <=" },
		{ "select-only=>1.05", "expected >= or <=" },
		{ "select-only", "expected NAME>=VALUE" },
		{ "select-only>=", "missing value" },
		{ "select-only>=fast", "expected a ratio" },
		{ "select-only>=1.05x", "trailing characters" },
		{ "select-only>=+1.05", "needs %" },
		{ "select-only>=0", "greater than 0" },
		{ "p99>=1.1", "latency, bound it from above" },
		{ "tpcb<=1.1", "speed ratio, bound it from below" },
		{ "tpcb.p42<=1.1", "unknown metric \"p42\"" },
		{ "sel/ect>=1", "bad workload name" },
		{ "p99<=-100%", "-100%" },
		/* a ratio written in percent, or a change without its sign? */
		{ "select-only>=105%", "105% is ambiguous: as the ratio 1.05 write +5% or 1.05; "
				       "as 105% more write +105% or 2.05" },
		{ "tpcb>=100%", "as the ratio 1 write +0% or 1;" },
		{ "p99<=110%", "as the ratio 1.1 write +10% or 1.1; as 110% more write +110% or 2.1" },
		/* decimal only, as in every option */
		{ "select-only>=0x1.1", "value \"0x1.1\": expected a decimal number (no hex, inf or nan)" },
		{ "select-only>=0x10%", "expected a decimal number" },
		{ "tps>=inf", "value \"inf\": expected a ratio like 1.05" },
		{ "tps>=nan", "expected a ratio like 1.05" },
		{ "tps>=infinity", "expected a ratio like 1.05" },
		{ "tps>=++5%", "expected a ratio like 1.05" },
		{ "tps>=+-5%", "expected a ratio like 1.05" },
		{ "tps>=1e999", "out of range" },
		{ "tps>=1.05e", "trailing characters" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gate_thresholds th = { 0 };
		struct strbuf err = STRBUF_INIT;
		int rc = gate_expr_parse(&th, bad[i].expr, &err);
		if (rc != -1 || !strstr(err.buf, bad[i].msg)) {
			fprintf(stderr, "expr \"%s\": rc %d, message \"%s\", want \"%s\"\n",
				bad[i].expr, rc, err.buf, bad[i].msg);
			fail();
		}
		gate_thresholds_clear(&th);
		strbuf_release(&err);
	}
}

/* ---- synthetic runs: tests/unit/gate-synth.h ---- */

static int decide(struct gate *g)
{
	gate_analyse(g);
	return gate_decide(g);
}

static void test_clear_win(void **state)
{
	struct gate g;
	synth_gate(&g, "select-only>=1.05,p99<=+10%");
	synth_pairs(&g, "select-only", 9, 1.12, 0.02, 0.9);
	assert_int_equal(decide(&g), 0);
	assert_int_equal(g.verdict, GATE_PASS);
	assert_int_equal(g.nr_res, 2);
	assert_int_equal(g.res[0].status, GATE_PASS);
	assert_true(g.res[0].observed > 1.08 && g.res[0].lo > 1.05);
	assert_int_equal(g.res[1].status, GATE_PASS);
	assert_int_equal(g.wl[0].valid_pairs, 9);
	gate_clear(&g);
}

static void test_clear_loss(void **state)
{
	struct gate g;
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 0.90, 0.02, 1);
	assert_int_equal(decide(&g), 1);
	assert_int_equal(g.res[0].status, GATE_FAIL);
	assert_non_null(strstr(g.res[0].message, "misses"));
	gate_clear(&g);

	/* a bound: 10% slower is a significant breach of tpcb>=1.00 */
	synth_gate(&g, "tpcb>=1.00");
	synth_pairs(&g, "tpcb", 9, 0.90, 0.02, 1);
	assert_int_equal(decide(&g), 1);
	gate_clear(&g);

	/* p99 30% worse breaks p99<=+10% even when throughput is fine */
	synth_gate(&g, "select-only>=1.00,p99<=+10%");
	synth_pairs(&g, "select-only", 9, 1.0, 0.01, 1.3);
	assert_int_equal(decide(&g), 1);
	assert_int_equal(g.res[0].status, GATE_PASS);
	assert_int_equal(g.res[1].status, GATE_FAIL);
	gate_clear(&g);
}

static void test_noise(void **state)
{
	struct gate g;
	/* 6% better on average, but 15% noise: not significant -> fail, says why */
	synth_gate(&g, "select-only>=1.05");
	synth_rng = 1234567;
	synth_pairs(&g, "select-only", 9, 1.06, 0.15, 1);
	decide(&g);
	assert_int_equal(g.verdict, GATE_FAIL);
	assert_true(g.wl[0].tps.lo < 1.0);
	/* noise floor reported and large */
	assert_true(g.wl[0].tps.noise_floor_pct > 5);
	gate_clear(&g);

	/* a bound under noise is not a significant breach: pass */
	synth_gate(&g, "tpcb>=1.00");
	synth_rng = 1234567;
	synth_pairs(&g, "tpcb", 9, 0.99, 0.15, 1);
	assert_int_equal(decide(&g), 0);
	gate_clear(&g);
}

/*
 * A claim passes only with confidence against the threshold itself: an
 * interval that excludes 1 but not 1.05 does not pass ">= 1.05".
 */
static void test_claim_one_sided(void **state)
{
	struct gate g;
	synth_gate(&g, "select-only>=1.05");
	synth_rng = 777;
	synth_pairs(&g, "select-only", 9, 1.06, 0.02, 1);
	decide(&g);
	assert_true(g.wl[0].tps.estimate >= 1.05);
	assert_true(g.wl[0].tps.lo > 1.0 && g.wl[0].tps.lo < 1.05);
	assert_int_equal(g.verdict, GATE_FAIL);   /* the old rule passed this */
	assert_non_null(strstr(g.res[0].message, "reaches >= 1.05 but not with 96.1% confidence: "
			       "the lower end of its interval"));
	gate_clear(&g);

	/* the same data clears a claim it meets with confidence */
	synth_gate(&g, "select-only>=1.01");
	synth_rng = 777;
	synth_pairs(&g, "select-only", 9, 1.06, 0.02, 1);
	assert_int_equal(decide(&g), 0);
	assert_non_null(strstr(g.res[0].message, "the lower end"));
	assert_non_null(strstr(g.res[0].message, ">= 1.01 at 96.1% confidence"));
	gate_clear(&g);

	/* latency claims look at the upper end: p99 -8% is not confidently <= -5% */
	synth_gate(&g, "p99<=-5%");
	synth_rng = 777;
	synth_pairs(&g, "select-only", 9, 1.0, 0.01, 1);
	for (size_t i = 0; i < g.wl[0].nr_runs; i++) {
		static const double r99[9] = { 0.85, 0.99, 0.90, 0.97, 0.88, 1.0, 0.93, 0.96, 0.91 };
		struct gate_run *r = &g.wl[0].runs[i];
		r->lat[gate_lat_index("p99")] = r->build == 'A' ? 0.2 : 0.2 * r99[r->pair];
	}
	decide(&g);
	assert_true(g.wl[0].lat[gate_lat_index("p99")].estimate <= 0.95);
	assert_true(g.wl[0].lat[gate_lat_index("p99")].hi > 0.95);
	assert_int_equal(g.verdict, GATE_FAIL);
	assert_non_null(strstr(g.res[0].message, "the upper end of its interval"));
	gate_clear(&g);

	/* a bound is unchanged: 3% slower but not significantly below 1 passes */
	synth_gate(&g, "select-only>=1.00");
	synth_rng = 777;
	synth_pairs(&g, "select-only", 9, 0.99, 0.05, 1);
	decide(&g);
	assert_true(g.wl[0].tps.lo < 1.0 && g.wl[0].tps.hi > 1.0);
	assert_int_equal(g.verdict, GATE_PASS);
	assert_non_null(strstr(g.res[0].message, "not significantly below 1"));
	gate_clear(&g);
}

static void test_too_few_pairs(void **state)
{
	struct gate g;
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 5, 1.5, 0.01, 1);
	assert_int_equal(decide(&g), 2);
	assert_int_equal(g.verdict, GATE_ERROR);
	assert_int_equal(g.res[0].status, GATE_ERROR);
	assert_non_null(strstr(g.res[0].message, "only 5 valid pairs"));
	gate_clear(&g);

	/* 9 pairs measured, 4 of them broken (bench errors) -> 5 valid -> error */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.5, 0.01, 1);
	for (int i = 0; i < 4; i++)
		g.wl[0].runs[2 * i].exit = 2;
	assert_int_equal(decide(&g), 2);
	assert_int_equal(g.wl[0].valid_pairs, 5);
	assert_int_equal(g.wl[0].run_errors, 4);
	gate_clear(&g);

	/* a workload named by a threshold but never measured */
	synth_gate(&g, "tpcb>=1.0");
	synth_pairs(&g, "select-only", 9, 1.5, 0.01, 1);
	assert_int_equal(decide(&g), 2);
	assert_non_null(strstr(g.res[0].message, "not measured"));
	gate_clear(&g);
}

/* A run that errored never passes, however many valid pairs are left */
static void test_run_errors(void **state)
{
	struct gate g;
	struct gate_run *r;
	/* 9 pairs, a clear win, one candidate run exited 2 (a crashed backend) */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	r = &g.wl[0].runs[2 * 4 + 1];           /* pair 5, second run: B */
	assert_int_equal(r->build, 'B');
	r->exit = 2;
	r->tps = NAN;
	assert_int_equal(decide(&g), 2);
	assert_int_equal(g.verdict, GATE_ERROR);
	assert_int_equal(g.wl[0].valid_pairs, 8);
	assert_int_equal(g.res[0].status, GATE_PASS); /* the threshold alone would pass */
	assert_non_null(strstr(g.verdict_reason, "1 benchmark run failed: select-only pair 5 B (exit 2)"));
	gate_clear(&g);

	/* the audit's case: 3 of 9 candidate runs at exit 2 -> not PASS on 6/9 */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	for (int p = 0; p < 3; p++)
		g.wl[0].runs[2 * p + (p % 2 ? 0 : 1)].exit = 2;
	assert_int_equal(decide(&g), 2);
	assert_int_equal(g.wl[0].valid_pairs, 6);
	assert_non_null(strstr(g.verdict_reason, "3 benchmark runs failed: select-only pair 1 B "
			       "(exit 2), select-only pair 2 B (exit 2), select-only pair 3 B (exit 2)"));
	gate_clear(&g);

	/* more than six failed runs: six are named, the rest said to exist */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	for (int p = 0; p < 8; p++)
		g.wl[0].runs[2 * p].exit = 2;
	assert_int_equal(decide(&g), 2);
	assert_non_null(strstr(g.verdict_reason, "8 benchmark runs failed: "));
	assert_non_null(strstr(g.verdict_reason, "pair 6 "));
	assert_null(strstr(g.verdict_reason, "pair 7 "));
	assert_non_null(strstr(g.verdict_reason, ", ..."));
	gate_clear(&g);

	/* a baseline run that gave no number (exit 0, no tps) counts too */
	synth_gate(&g, "select-only>=1.00");
	synth_pairs(&g, "select-only", 9, 1.0, 0.01, 1);
	g.wl[0].runs[0].tps = NAN;
	assert_int_equal(decide(&g), 2);
	assert_non_null(strstr(g.verdict_reason, "select-only pair 1 A (no number)"));
	gate_clear(&g);

	/* a run with no completed transaction (bench's tps 0): errored, named */
	synth_gate(&g, "select-only>=1.00");
	synth_pairs(&g, "select-only", 9, 1.0, 0.01, 1);
	g.wl[0].runs[5].tps = 0;                /* pair 3, B */
	assert_int_equal(g.wl[0].runs[5].build, 'B');
	assert_int_equal(decide(&g), 2);
	assert_int_equal(g.verdict, GATE_ERROR);
	assert_int_equal(g.wl[0].valid_pairs, 8);
	assert_non_null(strstr(g.verdict_reason, "1 benchmark run failed: select-only pair 3 B (no number)"));
	gate_clear(&g);

	/* a missed threshold with an errored run: could not measure either */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 0.8, 0.01, 1);
	g.wl[0].runs[3].exit = 2;
	assert_int_equal(decide(&g), 2);
	gate_clear(&g);

	/* but a correctness failure of the candidate stays a FAIL */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	g.wl[0].runs[1].exit = 1;               /* pair 1 B */
	g.wl[0].runs[3].exit = 2;
	assert_int_equal(decide(&g), 1);
	assert_non_null(strstr(g.verdict_reason, "correctness"));
	gate_clear(&g);

	/* and so does a failed regression suite */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	g.wl[0].runs[3].exit = 2;
	g.regress = REGRESS_FAILED;
	assert_int_equal(decide(&g), 1);
	gate_clear(&g);
}

static void test_regress_and_correctness(void **state)
{
	struct gate g;
	/* a clear win with a failed regression suite never passes */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	g.regress = REGRESS_FAILED;
	assert_int_equal(decide(&g), 1);
	assert_non_null(strstr(g.verdict_reason, "regression suite"));
	gate_clear(&g);

	/* nor with one correctness failure of the candidate */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 9, 1.3, 0.01, 1);
	for (size_t i = 0; i < g.wl[0].nr_runs; i++)
		if (g.wl[0].runs[i].build == 'B') {
			g.wl[0].runs[i].exit = 1;
			break;
		}
	assert_int_equal(decide(&g), 1);
	assert_true(g.wl[0].correctness_failed);
	assert_non_null(strstr(g.verdict_reason, "correctness"));
	gate_clear(&g);

	/* correctness failure wins over could-not-measure */
	synth_gate(&g, "select-only>=1.05");
	synth_pairs(&g, "select-only", 3, 1.3, 0.01, 1);
	g.wl[0].runs[1].exit = 1;
	g.wl[0].runs[1].build = 'B';
	assert_int_equal(decide(&g), 1);
	gate_clear(&g);
}

static void fill_instr(struct gate *g, double a, double b);
static void set_cycles(struct gate_workload *w, double est_a, double est_b);

/* A statistical resolution r of kind on w, as a layout floor gives one
 * (built at z 1.96 over 5 variants): what a claim is decided at. */
static void floor_at(struct gate_workload *w, enum gate_kind kind, double r)
{
	gate_set_resolution(w, kind, r, "layout floor: 1.96 x sqrt(a^2 + b^2), a = ... (test)");
	gate_set_resolution_z(w, kind, 1.959964, 4);
}

/*
 * A claim on a deterministic metric at a resolution that is no statistic
 * (the repeat one: --noise none, a default; z 0) is undecided (exit 3),
 * saying it needs a layout floor: relinking alone moves the cycles
 * estimate 0.3-0.7%, so 1.0754 at the 0.1% repeat resolution shows no
 * gain.  A bound passes there but is not shown ("not shown slower",
 * however far its interval lies above 1), and a loss beyond the repeat
 * resolution (1.5%: within what relinking alone moves) is undecided, not
 * "significantly worse"; with a floor (z > 0) the same claim is decided,
 * and the same loss fails.
 */
static void test_claim_needs_floor(void **state)
{
	struct gate g;
	struct gate_workload *w;
	(void)state;
	synth_gate(&g, "select-only.cycles>=1.01,select-only.instructions>=1.001");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 151636, 141010);
	fill_instr(&g, 105000, 100000);
	assert_int_equal(decide(&g), 3);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.res[i].status, GATE_UNDECIDED);
		assert_non_null(strstr(g.res[i].message, "undecided against"));
		assert_non_null(strstr(g.res[i].message, "a claim needs a layout floor (`pgbuild "
				       "noise`, or --noise-variants in run/optimize); the repeat "
				       "resolution (repeat 0."));
		assert_non_null(strstr(g.res[i].message, ") can only check a bound"));
	}
	/* --noise none's source: the same */
	gate_set_resolution(w, GATE_CYCLES, CYCLES_RESOLUTION, "repeat 0.1% (--noise none: no "
			    "layout floor)");
	assert_int_equal(decide(&g), 3);
	assert_int_equal(g.res[0].status, GATE_UNDECIDED);
	/* with a floor: decided (1.0754 x 0.999 >= 1.01; 1.05 x 0.9999 >= 1.001) */
	floor_at(w, GATE_CYCLES, CYCLES_RESOLUTION);
	floor_at(w, GATE_INSTRUCTIONS, GATE_INSTR_RESOLUTION);
	assert_int_equal(decide(&g), 0);
	assert_int_equal(g.res[0].status, GATE_PASS);
	assert_int_equal(g.res[1].status, GATE_PASS);
	gate_clear(&g);

	/* bounds at the repeat resolution: a pass not shown, a loss undecided */
	synth_gate(&g, "cycles>=1.00,instructions>=1");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 952552, 953219);
	fill_instr(&g, 37276.04, 37276.7);
	assert_int_equal(decide(&g), 0);
	assert_non_null(strstr(g.res[0].message, "decided at the repeat resolution"));
	gate_clear(&g);
	synth_gate(&g, "cycles>=1.00");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 103000, 100000);
	assert_int_equal(decide(&g), 0);
	assert_int_equal(g.res[0].status, GATE_PASS);
	{
		struct gate_verdict v = GATE_VERDICT_INIT;
		gate_verdict_of(&g, &v);
		assert_string_equal(gate_verdict_word(&v), "not shown slower");
		gate_verdict_clear(&v);
	}
	gate_clear(&g);
	synth_gate(&g, "cycles>=1.00");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 98500, 100000);
	assert_int_equal(decide(&g), 3);
	assert_int_equal(g.res[0].status, GATE_UNDECIDED);
	assert_non_null(strstr(g.res[0].message, "0.9850, upper end 0.9860 < 1 at the 0.1% "
			       "resolution"));
	assert_non_null(strstr(g.res[0].message, "whether it is slower needs a layout floor"));
	assert_non_null(strstr(g.verdict_reason, "undecided: cycles>=1.00 on select-only: "
			       "worse only beyond the repeat resolution"));
	{
		struct gate_verdict v = GATE_VERDICT_INIT;
		gate_verdict_of(&g, &v);
		assert_int_equal(v.slower, 0);
		gate_verdict_clear(&v);
	}
	floor_at(w, GATE_CYCLES, CYCLES_RESOLUTION);
	assert_int_equal(decide(&g), 1);
	assert_int_equal(g.res[0].status, GATE_FAIL);
	gate_clear(&g);
}

/*
 * Each pair's order is a seeded coin flip (gate_pair_b_first), not the
 * parity of its index: the same seed gives the same order; over 20,000
 * pairs B runs first about half the time, consecutive pairs' orders agree
 * about half the time (parity: never, so drift correlated their ratios),
 * pair 0 is not always A first across seeds, workloads of one pair flip
 * on their own; the seed is recorded in the JSON and read back.
 */
static void test_pair_order(void **state)
{
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;
	struct gate g, h;
	size_t bfirst = 0, same = 0, first0 = 0, wl_differ = 0;
	const int n = 20000;
	(void)state;
	for (int p = 0; p < n; p++) {
		int b = gate_pair_b_first(12345, p, 0);
		assert_int_equal(b, gate_pair_b_first(12345, p, 0));
		bfirst += (size_t)b;
		if (p > 0)
			same += (size_t)(b == gate_pair_b_first(12345, p - 1, 0));
		wl_differ += (size_t)(b != gate_pair_b_first(12345, p, 1));
		first0 += (size_t)gate_pair_b_first((uint64_t)p, 0, 0);
	}
	print_message("B first %zu, consecutive alike %zu, pair 0 B first over seeds %zu, "
		      "workloads differ %zu, of %d\n", bfirst, same, first0, wl_differ, n);
	/* binomial(20000, 1/2): SD 71; 5 SDs */
	assert_true(bfirst > 9645 && bfirst < 10355);
	assert_true(same > 9645 && same < 10355);
	assert_true(first0 > 9645 && first0 < 10355);
	assert_true(wl_differ > 9645 && wl_differ < 10355);

	synth_gate(&g, "select-only>=1.00");
	synth_pairs(&g, "select-only", 9, 1.0, 0.01, 1);
	g.order_seed = GATE_SEED_MAX;
	decide(&g);
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"pair_order_seed\":9007199254740991,"));
	memset(&h, 0, sizeof(h));
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_true(h.order_seed == GATE_SEED_MAX);
	gate_clear(&h);
	gate_clear(&g);
	strbuf_release(&js);
	strbuf_release(&err);
}

static void test_instructions(void **state)
{
	struct gate g;
	struct gate_workload *w;
	synth_gate(&g, "select-only.instructions>=1.02");
	w = gate_workload_get(&g, "select-only", 1);
	w->instr = INSTR_OK;
	w->instr_a = 92057;
	w->instr_b = 89537;
	assert_int_equal(decide(&g), 3);        /* a claim: no floor, no decision */
	floor_at(w, GATE_INSTRUCTIONS, GATE_INSTR_RESOLUTION);
	assert_int_equal(decide(&g), 0);
	assert_true(fabs(g.res[0].observed - 92057.0 / 89537) < 1e-9);
	gate_clear(&g);

	/* repeat-run noise of 0.002% does not fail an A/A ">= 1" */
	synth_gate(&g, "instructions>=1");
	w = gate_workload_get(&g, "select-only", 1);
	w->instr = INSTR_OK;
	w->instr_a = 37276.04;
	w->instr_b = 37276.7;
	assert_int_equal(decide(&g), 0);
	gate_clear(&g);

	synth_gate(&g, "instructions>=1.03");
	w = gate_workload_get(&g, "select-only", 1);
	w->instr = INSTR_OK;
	w->instr_a = 92057;
	w->instr_b = 89537;
	floor_at(w, GATE_INSTRUCTIONS, GATE_INSTR_RESOLUTION);
	assert_int_equal(decide(&g), 1);
	gate_clear(&g);

	/* unavailable (SIGILL under valgrind) is "could not measure", never a number */
	synth_gate(&g, "instructions>=1.01");
	w = gate_workload_get(&g, "select-only", 1);
	w->instr = INSTR_UNAVAILABLE;
	w->instr_note = xstrdup("the server died of SIGILL under valgrind");
	assert_int_equal(decide(&g), 2);
	assert_true(isnan(g.res[0].observed));
	assert_non_null(strstr(g.res[0].message, "unavailable: the server died of SIGILL"));
	gate_clear(&g);
}

/* The cycles estimate: one number per build, 0.1% resolution; parts in the message. */
static void set_cycles(struct gate_workload *w, double est_a, double est_b)
{
	struct cycles_tx a = { 92230, 3205, 4550, 7.4, 1317, est_a };
	struct cycles_tx b = { 91538, 2249, 3611, 7.4, 1262, est_b };
	w->cycles = INSTR_OK;
	w->cyc_a = a;
	w->cyc_b = b;
}

static void test_cycles(void **state)
{
	struct gate g;
	struct gate_workload *w;
	(void)state;
	synth_gate(&g, "select-only.cycles>=1.05");
	assert_int_equal(g.th.v[0].kind, GATE_CYCLES);
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 151636, 141010);
	floor_at(w, GATE_CYCLES, CYCLES_RESOLUTION);
	assert_int_equal(decide(&g), 0);
	assert_true(fabs(g.res[0].observed - 151636.0 / 141010) < 1e-9);
	/* the resolution is a relative error: observed x (1 - 0.1%) */
	assert_true(fabs(g.res[0].lo - 151636.0 / 141010 * (1 - CYCLES_RESOLUTION)) < 1e-12);
	assert_true(fabs(g.res[0].hi - 151636.0 / 141010 * (1 + CYCLES_RESOLUTION)) < 1e-12);
	assert_non_null(strstr(g.res[0].message, "A/B 151636/141010 = 1.0754, lower end 1.0743 >= 1.05"));
	assert_non_null(strstr(g.res[0].message, "I1 misses 3205/2249/1.4251"));
	assert_non_null(strstr(g.res[0].message, "LL misses 7.40/7.40/1.0000"));
	assert_non_null(strstr(g.res[0].message, "a simulation"));
	gate_clear(&g);

	/* a claim's lower end must reach it: 1.0492 x (1 - 0.1%) misses >= 1.05 (test_one_rule) */
	synth_gate(&g, "cycles>=1.05");
	w = gate_workload_get(&g, "tpcb", 1);
	set_cycles(w, 104920, 100000);
	floor_at(w, GATE_CYCLES, CYCLES_RESOLUTION);
	assert_int_equal(decide(&g), 1);
	assert_non_null(strstr(g.res[0].message, "= 1.0492, lower end 1.0482 < 1.05"));
	assert_true(fabs(g.res[0].lo - 1.0492 * 0.999) < 1e-9 &&
		    fabs(g.res[0].hi - 1.0492 * 1.001) < 1e-9);
	gate_clear(&g);

	/* A/A within the measured spread (0.07%) passes the bound >= 1 */
	synth_gate(&g, "cycles>=1");
	w = gate_workload_get(&g, "tpcb", 1);
	set_cycles(w, 952552, 953219);
	assert_int_equal(decide(&g), 0);
	gate_clear(&g);

	/* unavailable is "could not measure", never a number */
	synth_gate(&g, "cycles>=1");
	w = gate_workload_get(&g, "select-only", 1);
	w->cycles = INSTR_UNAVAILABLE;
	w->cycles_note = xstrdup("the server died of SIGILL under valgrind");
	assert_int_equal(decide(&g), 2);
	assert_true(isnan(g.res[0].observed));
	assert_non_null(strstr(g.res[0].message, "cycles estimate unavailable: the server died of SIGILL"));
	gate_clear(&g);
}

/*
 * A workload's own resolution (the layout floors', gate_set_resolution):
 * a gain inside it does not pass a claim the repeat resolution passes; the
 * result carries it and its source, and the JSON read back decides the
 * same.  It is a relative error: at 1.2x a 0.53% floor is 0.53% of 1.2
 * (the old rule subtracted it from the ratio, where it acted as 0.44%).
 */
static void test_resolution_floor(void **state)
{
	const char *src = "layout floor: 1.96 x sqrt(a^2 + b^2), a = ..., /p/pgopt-noise.json";
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;
	struct gate g, h;
	struct gate_workload *w;
	const char *s;
	(void)state;

	/* 1.0060 x 0.999 = 1.00499 < 1.005; 1.0061 x 0.999 = 1.00509 >= 1.005 */
	synth_gate(&g, "cycles>=1.005");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 100610, 100000);
	/* a claim at the repeat resolution: undecided (test_claim_needs_floor) */
	assert_int_equal(decide(&g), 3);
	assert_true(g.res[0].resolution == CYCLES_RESOLUTION);
	assert_string_equal(g.res[0].resolution_source, "repeat 0.1%");
	/* a floor that comes out at the repeat 0.1% decides it */
	floor_at(w, GATE_CYCLES, CYCLES_RESOLUTION);
	assert_int_equal(decide(&g), 0);
	assert_non_null(strstr(g.res[0].message, "at the 0.1% resolution, relative: layout floor"));
	/* 1.18%: 1.0061 x (1 - 0.0118) = 0.9942 < 1.005 */
	gate_set_resolution(w, GATE_CYCLES, 0.0118, src);
	gate_set_resolution_z(w, GATE_CYCLES, 1.959964, 4);
	assert_true(gate_resolution_of(w, GATE_CYCLES, &s) == 0.0118);
	assert_string_equal(s, src);
	assert_int_equal(decide(&g), 1);
	assert_true(fabs(g.res[0].lo - 1.0061 * (1 - 0.0118)) < 1e-12);
	assert_true(g.res[0].resolution == 0.0118);
	assert_string_equal(g.res[0].resolution_source, src);
	assert_non_null(strstr(g.res[0].message, "lower end 0.9942 < 1.005"));
	assert_non_null(strstr(g.res[0].message, "at the 1.2% resolution, relative: layout floor: 1.96 x"));
	/* instructions keep theirs */
	assert_true(gate_resolution_of(w, GATE_INSTRUCTIONS, &s) == GATE_INSTR_RESOLUTION);
	assert_string_equal(s, "repeat 0.01%");

	/* written and read back: the same resolution, source and verdict */
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"resolution\":0.0118"));
	assert_non_null(strstr(js.buf, "\"resolution_source\":\"layout floor: 1.96 x"));
	assert_non_null(strstr(js.buf, "\"repeat_resolution\":0.001"));
	memset(&h, 0, sizeof(h));
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_int_equal(h.verdict, GATE_FAIL);
	assert_true(h.res[0].resolution == 0.0118);
	assert_string_equal(h.res[0].resolution_source, src);
	gate_clear(&h);
	strbuf_release(&js);

	/* back to the repeat resolution: the claim is undecided again */
	gate_set_resolution(w, GATE_CYCLES, 0, NULL);
	assert_int_equal(decide(&g), 3);
	gate_clear(&g);

	/* relative, not subtracted: 1.2 x (1 - 0.53%) = 1.19364 misses
	 * >= 1.1937, which 1.2 - 0.0053 = 1.1947 passed */
	synth_gate(&g, "cycles>=1.1937");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 120000, 100000);
	gate_set_resolution(w, GATE_CYCLES, 0.0053, src);
	gate_set_resolution_z(w, GATE_CYCLES, 1.959964, 4);
	assert_int_equal(decide(&g), 1);
	assert_true(fabs(g.res[0].lo - 1.2 * (1 - 0.0053)) < 1e-12);
	assert_true(fabs(g.res[0].hi - 1.2 * (1 + 0.0053)) < 1e-12);
	gate_clear(&g);

	/* a resolution that is not one is refused on reading */
	memset(&h, 0, sizeof(h));
	s = "{\"kind\":\"pgbuild-gate\",\"workloads\":[{\"name\":\"w\",\"cycles\":"
	    "{\"state\":\"ok\",\"resolution\":2}}]}";
	strbuf_reset(&err);
	assert_int_equal(gate_read_json(&h, s, strlen(s), &err), -1);
	assert_string_equal(err.buf, "workload \"w\": cycles \"resolution\" must be a number "
			    "above 0 and below 1");
	gate_clear(&h);
	strbuf_release(&err);
}

/*
 * No layout floor (gate_set_resolution NAN, as cmd/gate.c sets it without
 * one and without --noise none): the deterministic thresholds are
 * undecided, claim and bound alike, the gate exits 3 with the reason and
 * the command that measures one; the JSON read back is undecided again.
 * Fails on the old code, which decided at the repeat resolution.
 */
static void test_no_floor_undecided(void **state)
{
	const char *why = "no layout floor: no /b/pgopt-noise.json; `pgbuild noise --install /b` "
			  "measures one (--noise none: the repeat resolution decides)";
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;
	struct gate g, h;
	struct gate_workload *w;
	const char *s;
	(void)state;

	synth_gate(&g, "select-only.cycles>=1.05,select-only.instructions>=1");
	w = gate_workload_get(&g, "select-only", 1);
	set_cycles(w, 120000, 100000);
	w->instr = INSTR_OK;
	w->instr_a = 101000;
	w->instr_b = 100000;
	gate_set_resolution(w, GATE_CYCLES, NAN, why);
	gate_set_resolution(w, GATE_INSTRUCTIONS, NAN, why);
	assert_true(isnan(gate_resolution_of(w, GATE_CYCLES, &s)));
	assert_string_equal(s, why);
	assert_int_equal(decide(&g), PGBUILD_EXIT_UNDECIDED);
	assert_int_equal(g.verdict, GATE_UNDECIDED);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.res[i].status, GATE_UNDECIDED);
		assert_true(isnan(g.res[i].lo) && isnan(g.res[i].hi));
		assert_non_null(strstr(g.res[i].message, "undecided against "));
		assert_non_null(strstr(g.res[i].message, why));
	}
	assert_string_equal(g.verdict_reason, "undecided: select-only.cycles>=1.05 on select-only: "
			    "no layout floor: no /b/pgopt-noise.json; `pgbuild noise --install /b` "
			    "measures one (--noise none: the repeat resolution decides)");
	/* a failure elsewhere still fails the gate */
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"resolution\":null,\"resolution_source\":\"no layout floor"));
	memset(&h, 0, sizeof(h));
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_int_equal(h.verdict, GATE_UNDECIDED);
	assert_int_equal(h.res[0].status, GATE_UNDECIDED);
	gate_clear(&h);
	strbuf_release(&js);
	strbuf_release(&err);
	gate_clear(&g);
}

/*
 * One rule for every metric (gate.h): a claim passes only when the lower end
 * of the metric's interval reaches it (latency: the upper end), a bound fails
 * only when its upper end is below it (latency: the lower end above it).
 * Each metric at its edge, both ways: the edge is read from the analysed
 * interval (tps, latency, server CPU) or is observed -+ the resolution
 * (instructions, cycles), and a threshold 1e-5 on either side of it decides.
 */
static const uint64_t edge_seed = 0x9e3779b97f4a7c15ULL;

static void fill_tps(struct gate *g, double speed)
{
	synth_rng = edge_seed;
	synth_pairs(g, "select-only", 9, speed, 0.02, 1);
}
static void fill_tps_win(struct gate *g) { fill_tps(g, 1.10); }
static void fill_tps_loss(struct gate *g) { fill_tps(g, 0.90); }

/* B's p99 0.8x (claim) or 1.2x (bound) of A's, 2% noise */
static void fill_lat(struct gate *g, double ratio)
{
	struct gate_workload *w;
	int k = gate_lat_index("p99");
	synth_rng = edge_seed;
	synth_pairs(g, "select-only", 9, 1.0, 0.02, ratio);
	w = &g->wl[0];
	for (size_t i = 0; i < w->nr_runs; i++)
		if (w->runs[i].build == 'B')
			w->runs[i].lat[k] *= exp(0.02 * synth_gauss());
}
static void fill_lat_win(struct gate *g) { fill_lat(g, 0.8); }
static void fill_lat_loss(struct gate *g) { fill_lat(g, 1.2); }

/* server CPU per transaction A/B about 1.25 (claim) or 0.8 (bound) */
static void fill_cpu(struct gate *g, double b_us)
{
	struct gate_workload *w;
	fill_tps(g, 1.0);
	w = &g->wl[0];
	for (size_t i = 0; i < w->nr_runs; i++)
		w->runs[i].server_cpu_us = (w->runs[i].build == 'A' ? 40.0 : b_us) *
					   exp(0.01 * synth_gauss());
}
static void fill_cpu_win(struct gate *g) { fill_cpu(g, 32.0); }
static void fill_cpu_loss(struct gate *g) { fill_cpu(g, 50.0); }

static void fill_instr(struct gate *g, double a, double b)
{
	struct gate_workload *w = gate_workload_get(g, "select-only", 1);
	w->instr = INSTR_OK;
	w->instr_a = a;
	w->instr_b = b;
}
/* the deterministic ones at a floor of the repeat resolution's width (a
 * claim needs one: test_claim_needs_floor) */
static void fill_instr_floor(struct gate *g, double a, double b)
{
	fill_instr(g, a, b);
	floor_at(gate_workload_get(g, "select-only", 1), GATE_INSTRUCTIONS, GATE_INSTR_RESOLUTION);
}
static void fill_cycles_floor(struct gate *g, double a, double b)
{
	set_cycles(gate_workload_get(g, "select-only", 1), a, b);
	floor_at(gate_workload_get(g, "select-only", 1), GATE_CYCLES, CYCLES_RESOLUTION);
}
static void fill_instr_win(struct gate *g) { fill_instr_floor(g, 105000, 100000); }
static void fill_instr_loss(struct gate *g) { fill_instr_floor(g, 99000, 100000); }
static void fill_cycles_win(struct gate *g) { fill_cycles_floor(g, 104920, 100000); }
static void fill_cycles_loss(struct gate *g) { fill_cycles_floor(g, 98500, 100000); }

struct edge_case {
	const char *key;               /* the threshold's metric: "select-only>=", "p99<=" */
	void (*fill)(struct gate *g);  /* the measurements */
	int lower_better;              /* latency: the edge is the other end */
	int claim;                     /* claim (edge: lower end) or bound (upper end) */
};

/* The status of "KEY VALUE" on fill's data. */
static enum gate_status edge_status(const struct edge_case *c, double value, double *lo, double *hi)
{
	struct gate g;
	char text[64];
	enum gate_status st;
	snprintf(text, sizeof(text), "%s%.6f", c->key, value);
	synth_gate(&g, text);
	assert_int_equal(gate_is_claim(&g.th.v[0]), c->claim);
	c->fill(&g);
	decide(&g);
	assert_int_equal(g.nr_res, 1);
	st = g.res[0].status;
	*lo = g.res[0].lo;
	*hi = g.res[0].hi;
	gate_clear(&g);
	return st;
}

static void test_one_rule(void **state)
{
	static const struct edge_case cases[] = {
		{ "select-only>=", fill_tps_win, 0, 1 },
		{ "select-only>=", fill_tps_loss, 0, 0 },
		{ "p99<=", fill_lat_win, 1, 1 },
		{ "p99<=", fill_lat_loss, 1, 0 },
		{ "cpu>=", fill_cpu_win, 0, 1 },
		{ "cpu>=", fill_cpu_loss, 0, 0 },
		{ "instructions>=", fill_instr_win, 0, 1 },
		{ "instructions>=", fill_instr_loss, 0, 0 },
		{ "cycles>=", fill_cycles_win, 0, 1 },
		{ "cycles>=", fill_cycles_loss, 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct edge_case *c = &cases[i];
		double lo, hi, lo2, hi2, edge, good, bad;
		/* a first look (with a value of the right kind) finds the interval */
		edge_status(c, c->claim == c->lower_better ? 0.5 : 1.5, &lo, &hi);
		assert_true(isfinite(lo) && isfinite(hi) && lo < hi);
		/* speed: the claim's edge is the lower end, the bound's the upper */
		edge = c->claim != c->lower_better ? lo : hi;
		/* the good side of a speed threshold is below it, of a latency above */
		good = c->lower_better ? edge + 1e-5 : edge - 1e-5;
		bad = c->lower_better ? edge - 1e-5 : edge + 1e-5;
		print_message("%s (%s) interval [%.6f, %.6f]: edge %.6f\n", c->key,
			      c->claim ? "claim" : "bound", lo, hi, edge);
		assert_int_equal(edge_status(c, good, &lo2, &hi2), GATE_PASS);
		assert_true(lo2 == lo && hi2 == hi);
		assert_int_equal(edge_status(c, bad, &lo2, &hi2), GATE_FAIL);
	}
}

/* Server CPU per transaction: A/B per pair, the tps interval statistics. */
static void test_server_cpu(void **state)
{
	struct gate g;
	struct gate_workload *w;
	(void)state;
	synth_gate(&g, "cpu>=1.05,select-only.server-cpu>=1.00");
	assert_int_equal(g.th.v[0].kind, GATE_SERVER_CPU);
	assert_int_equal(g.th.v[1].kind, GATE_SERVER_CPU);
	synth_pairs(&g, "select-only", 9, 1.0, 0.02, 1.0);
	w = &g.wl[0];
	/* B needs 20% less server CPU per transaction, +-1% noise */
	for (size_t i = 0; i < w->nr_runs; i++)
		w->runs[i].server_cpu_us = (w->runs[i].build == 'A' ? 40.0 : 32.0) *
					   exp(0.01 * synth_gauss());
	assert_int_equal(decide(&g), 0);
	assert_int_equal(w->cpu.n, 9);
	assert_true(w->cpu.estimate > 1.2 && w->cpu.estimate < 1.3);
	assert_true(w->cpu_a_median > 38 && w->cpu_b_median < 34);
	assert_non_null(strstr(g.res[0].message, "server CPU per transaction A/B 1.2"));
	gate_clear(&g);

	/* runs without the figure (a remote server): too few pairs, an error */
	synth_gate(&g, "cpu>=1.00");
	synth_pairs(&g, "select-only", 9, 1.0, 0.02, 1.0);
	assert_int_equal(decide(&g), 2);
	assert_int_equal(g.wl[0].cpu.n, 0);
	assert_non_null(strstr(g.res[0].message, "server CPU per transaction: only 0 valid pairs"));
	gate_clear(&g);
}

/* The simulation next to the machine: the estimate's A/B inside the
 * server CPU's interval (and that interval narrow enough to have said
 * otherwise) or not, and NA unless both were measured. */
static void test_agreement(void **state)
{
	struct gate g;
	struct gate_workload *w;
	double est;
	struct stats_ratio cpu;
	(void)state;
	synth_gate(&g, "cpu>=1.00");
	synth_pairs(&g, "select-only", 9, 1.0, 0.02, 1.0);
	w = &g.wl[0];
	for (size_t i = 0; i < w->nr_runs; i++)
		w->runs[i].server_cpu_us = (w->runs[i].build == 'A' ? 40.0 : 32.0) *
					   exp(0.01 * synth_gauss());
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_NA); /* no estimate */
	assert_true(isnan(est));
	decide(&g);
	assert_true(w->cpu.ok && w->cpu.lo > 1.2 && w->cpu.hi < 1.3);
	set_cycles(w, 125000, 100000);          /* 1.25: inside a narrow interval */
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_YES);
	assert_true(fabs(est - 1.25) < 1e-12);
	set_cycles(w, 103000, 100000);          /* 1.03: claims less than measured */
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_UNDER);
	set_cycles(w, 150000, 100000);          /* 1.50: claims more */
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_OVER);
	assert_string_equal(gate_agree_names[GATE_AGREE_OVER], "estimate above the machine");
	w->cpu.ok = 0;                          /* no interval: not compared */
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_NA);
	gate_clear(&g);
	/* the same rule on figures already taken (optimize's stages): the
	 * interval's ends are inside, a missing figure is not compared */
	assert_int_equal(gate_agree_ratio(1.10, 1.08, 1.12), GATE_AGREE_YES);
	assert_int_equal(gate_agree_ratio(1.08, 1.08, 1.12), GATE_AGREE_YES);
	assert_int_equal(gate_agree_ratio(1.12, 1.08, 1.12), GATE_AGREE_YES);
	assert_int_equal(gate_agree_ratio(1.2001, 1.00, 1.20), GATE_AGREE_OVER);
	assert_int_equal(gate_agree_ratio(0.9999, 1.00, 1.20), GATE_AGREE_UNDER);
	assert_int_equal(gate_agree_ratio(NAN, 1.00, 1.20), GATE_AGREE_NA);
	assert_int_equal(gate_agree_ratio(1.10, NAN, 1.20), GATE_AGREE_NA);
	assert_int_equal(gate_agree_ratio(1.10, 1.00, NAN), GATE_AGREE_NA);
}

/*
 * Agreement that can fail: inside an interval too wide to contradict the
 * estimate is "not tested", never "agree" (the read's case: 1.05 inside a
 * server CPU interval of [0.83, 1.18] agreed).  The width needed: a log
 * half-width of at most half the estimate's distance from 1 (at least of
 * 2%), at its edge both ways.  Fails on the old rule, which said agree.
 */
static void test_agreement_untested(void **state)
{
	struct gate g;
	struct gate_workload *w;
	struct strbuf js = STRBUF_INIT;
	double est, need, lo, hi;
	struct stats_ratio cpu;
	(void)state;
	assert_int_equal(gate_agree_ratio(1.05, 0.83, 1.18), GATE_AGREE_UNTESTED);
	assert_int_equal(gate_agree_ratio(1.10, 1.00, 1.20), GATE_AGREE_UNTESTED);
	assert_string_equal(gate_agree_names[GATE_AGREE_UNTESTED],
			    "not tested (the machine's interval is too wide)");
	/* outside a wide interval is still a contradiction */
	assert_int_equal(gate_agree_ratio(1.25, 0.83, 1.18), GATE_AGREE_OVER);
	/* 1.10: half-width up to exp(ln(1.10) / 2) - 1 = 4.88% */
	need = gate_agree_needed(1.10);
	assert_true(fabs(need - (sqrt(1.10) - 1)) < 1e-12);
	lo = 1.10 / (1 + need);
	hi = 1.10 * (1 + need);
	assert_int_equal(gate_agree_ratio(1.10, lo * 1.0001, hi * 1.0001), GATE_AGREE_YES);
	assert_int_equal(gate_agree_ratio(1.10, lo * 0.999, hi * 1.001), GATE_AGREE_UNTESTED);
	/* such an interval holding the estimate excludes 1 */
	assert_true(lo > 1);
	/* an estimate of no change: within +-1% (half of 2%) */
	assert_true(fabs(gate_agree_needed(1.0) - (sqrt(1.02) - 1)) < 1e-12);
	assert_int_equal(gate_agree_ratio(1.0, 0.995, 1.005), GATE_AGREE_YES);
	assert_int_equal(gate_agree_ratio(1.0, 0.98, 1.02), GATE_AGREE_UNTESTED);
	assert_true(fabs(gate_agree_needed(0.9) - gate_agree_needed(1 / 0.9)) < 1e-12);

	/* through the gate: a wide server CPU interval (20% noise) */
	synth_gate(&g, "cpu>=1.00");
	synth_pairs(&g, "select-only", 9, 1.0, 0.02, 1.0);
	w = &g.wl[0];
	for (size_t i = 0; i < w->nr_runs; i++)
		w->runs[i].server_cpu_us = (w->runs[i].build == 'A' ? 40.0 : 38.0) *
					   exp(0.2 * synth_gauss());
	decide(&g);
	assert_true(w->cpu.ok);
	set_cycles(w, 105000, 100000);
	if (!(w->cpu.lo < 1.05 && w->cpu.hi > 1.05))
		fail_msg("the simulated interval [%f, %f] should hold 1.05", w->cpu.lo, w->cpu.hi);
	assert_int_equal(gate_agreement(&g, w, &est, &cpu), GATE_AGREE_UNTESTED);
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"agree\":null,\"verdict\":\"not tested (the machine's "
			       "interval is too wide)\",\"half_width_needed\":0.0246"));
	strbuf_release(&js);
	gate_clear(&g);
}

/*
 * --pairs auto through the gate (seqgate.c): 40 pairs at B/A 1.22, then
 * pairs at 1.00.  After 50 pairs the sequence still lies at [1.219, 1.221]
 * but the estimate is 1.17: tps>=1.20 is not passed (a claim above what
 * was observed never passes), undecided; after 60 the sequence has ended
 * inconsistent: undecided for good, "not significant", with both
 * intervals in the message and the reason.  The old code passed both.
 */
static void test_sequential_stale(void **state)
{
	struct gate g;
	struct gate_workload *w;
	(void)state;
	for (int n = 50; n <= 60; n += 10) {
		synth_gate(&g, "select-only>=1.20");
		g.sequential = 1;
		w = gate_workload_get(&g, "select-only", 1);
		for (int p = 0; p < n; p++) {
			double b = 1000 * (p < 40 ? 1.22 : 1.00) * (1 + 0.0005 * (p % 5 - 2));
			synth_run(w, p, 'A', 1000, 0.2, 0);
			synth_run(w, p, 'B', b, 0.2, 0);
		}
		assert_int_equal(decide(&g), PGBUILD_EXIT_UNDECIDED);
		assert_int_equal(g.res[0].status, GATE_UNDECIDED);
		if (n == 50) {
			assert_true(g.res[0].observed < 1.18 && g.res[0].lo > 1.2);
			assert_int_equal(g.res[0].seq_inconsistent, 0);
			assert_non_null(strstr(g.res[0].message, "the sequence meets 1.2 but the "
					       "estimate does not"));
		} else {
			assert_int_equal(g.res[0].seq_inconsistent, 1);
			assert_non_null(strstr(g.res[0].message, "not significant: inconsistent, the "
					       "interval of pair 52 ["));
			assert_non_null(strstr(g.verdict_reason, "undecided: select-only>=1.20 on "
					       "select-only: not significant, the confidence sequence "
					       "is inconsistent"));
		}
		gate_clear(&g);
	}
}

/* The --metric list and what each threshold needs. */
static void test_metric_list(void **state)
{
	struct gate g;
	struct strvec wl = STRVEC_INIT;
	unsigned m = 0;
	(void)state;
	assert_int_equal(cli_metrics_mask("tps,cycles", &m), 0);
	assert_int_equal(m, METRIC_TPS | METRIC_CYCLES);
	assert_string_equal(cli_metrics_text(m), "tps,cycles");
	m = 0;
	assert_int_equal(cli_metrics_mask("both", &m), -1);   /* no word since 2026-12-07 */
	assert_int_equal(cli_metrics_mask("tps,instructions", &m), 0);
	assert_string_equal(cli_metrics_text(m), "tps,instructions");
	assert_int_equal(cli_metrics_mask("cycles", &m), 0);    /* or-ed in: repeatable */
	assert_string_equal(cli_metrics_text(m), "tps,instructions,cycles");
	assert_int_equal(cli_metrics_mask("tps,cycle", &m), -1);
	assert_int_equal(cli_metrics_mask("", &m), -1);

	synth_gate(&g, "select-only.cycles>=1.05,cpu>=1");
	assert_int_equal(gate_thresholds_check(&g.th, METRIC_TPS | METRIC_CYCLES, NULL), 0);
	assert_int_equal(gate_thresholds_check(&g.th, METRIC_TPS, NULL), -1);
	assert_int_equal(gate_thresholds_check(&g.th, METRIC_CYCLES, NULL), -1);
	gate_clear(&g);
	synth_gate(&g, "cycles>=1");
	strvec_push(&wl, "select-only");
	assert_int_equal(gate_thresholds_check(&g.th, METRIC_CYCLES, &wl), 0);
	strvec_push(&wl, "point-select");
	assert_int_equal(gate_thresholds_check(&g.th, METRIC_CYCLES, &wl), -1);
	gate_clear(&g);
	synth_gate(&g, "tpcc-lite.cycles>=1");
	assert_int_equal(gate_thresholds_check(&g.th, METRIC_CYCLES, NULL), -1);
	gate_clear(&g);
	strvec_clear(&wl);
}

/* perf stat -x, output (perf-stat(1) "CSV FORMAT"), as perf 6.1 writes it with -o */
static void test_perf_parse(void **state)
{
	const char *why = NULL;
	/* counters work: value, unit, event, run time, percentage, metric value, metric unit */
	assert_true(instr_parse_perf("# started on Mon Nov 30 18:14:54 2026\n\n"
				     "1234567,,instructions:u,554440,100.00,,\n", &why) == 1234567);
	/* no modifier, a metric after it (insn per cycle) */
	assert_true(instr_parse_perf("98765,,instructions,1000,100.00,1.23,insn per cycle\n", &why) == 98765);
	/* a hybrid CPU: one line per PMU, summed */
	assert_true(instr_parse_perf("1000,,cpu_core/instructions:u/,500,100.00,,\n"
				     "234,,cpu_atom/instructions:u/,500,100.00,,\n", &why) == 1234);
	/* with -I: a time stamp first; other events around it are ignored */
	assert_true(instr_parse_perf("0.55,msec,task-clock:u,554440,100.00,0.249,CPUs utilized\n"
				     "1.000123,42,,instructions:u,1000,100.00,,\n", &why) == 42);
	/* this machine: no PMU in the VM */
	assert_true(instr_parse_perf("# started on Mon Nov 30 18:14:54 2026\n\n"
				     "<not supported>,,instructions:u,0,100.00,,\n", &why) < 0);
	assert_string_equal(why, "<not supported>");
	assert_true(instr_parse_perf("<not counted>,,instructions:u,0,0.00,,\n", &why) < 0);
	assert_string_equal(why, "<not counted>");
	/* not an instructions line, or nothing at all */
	assert_true(instr_parse_perf("12,,instructions-retired-x:u,1,100.00,,\n", &why) < 0);
	assert_string_equal(why, "no instructions line");
	assert_true(instr_parse_perf("", &why) < 0);
	assert_true(instr_parse_perf("12x,,instructions:u,1,100.00,,\n", &why) < 0);
	assert_string_equal(why, "the instructions count is not a number");
}

/* The decision rule on simulated A/A gates: false-pass rate at 1.05 */
static void test_aa_false_pass_rate(void **state)
{
	int passes = 0, trials = 2000;
	synth_rng = 42;
	for (int t = 0; t < trials; t++) {
		struct gate g;
		synth_gate(&g, "select-only>=1.05");
		synth_pairs(&g, "select-only", 9, 1.0, 0.10, 1);
		passes += decide(&g) == 0;
		gate_clear(&g);
	}
	/*
	 * target <= 5%.  A pass needs the interval's lower end >= 1.05, rarer
	 * under A/A than the interval merely excluding 1, which happens with
	 * its one-sided error: 10/512 = 1.95% for 9 pairs (the exact 96.1%
	 * signed-rank interval) - the bound on the false-pass rate.
	 */
	fprintf(stderr, "simulated A/A false passes at 1.05, 10%% noise: %d/%d\n", passes, trials);
	assert_true(passes <= trials * 3 / 100);
}

static void test_json_roundtrip(void **state)
{
	struct gate g, h;
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT, x1 = STRBUF_INIT, x2 = STRBUF_INIT;
	synth_gate(&g, "select-only>=1.05,p99<=+10%");
	synth_pairs(&g, "select-only", 9, 1.12, 0.02, 0.9);
	g.wl[0].runs[0].json = xstrdup("{\"tps\":1,\"timeline\":[1,2,3],\"s\":\"<&>\"}");
	g.regress = REGRESS_PASSED;
	g.regress_note = xstrdup("217 of 217 tests passed");
	set_cycles(&g.wl[0], 151636, 141010);
	for (size_t i = 0; i < g.wl[0].nr_runs; i++)
		g.wl[0].runs[i].server_cpu_us = 30 + (double)i;
	decide(&g);
	gate_write_json(&g, &js, "/a", "/b", "{\"pairs\":9}");

	memset(&h, 0, sizeof(h));
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_int_equal(h.verdict, g.verdict);
	assert_int_equal(h.nr_res, g.nr_res);
	assert_int_equal(h.regress, REGRESS_PASSED);
	assert_true(fabs(h.wl[0].tps.estimate - g.wl[0].tps.estimate) < 1e-9);
	assert_int_equal(h.wl[0].cycles, INSTR_OK);
	assert_true(h.wl[0].cyc_a.estimate == 151636 && h.wl[0].cyc_b.i1mr == 2249);
	assert_true(fabs(h.wl[0].cyc_a.llm - 7.4) < 1e-9);
	assert_true(fabs(h.wl[0].cpu.estimate - g.wl[0].cpu.estimate) < 1e-9);
	assert_true(h.wl[0].runs[3].server_cpu_us == 33);
	assert_non_null(h.wl[0].runs[0].json);
	assert_non_null(strstr(h.wl[0].runs[0].json, "\"timeline\":[1,2,3]"));

	/* JUnit: same verdicts either way, one testcase per threshold + 2 */
	junit_write(&g, &x1, "t");
	junit_write(&h, &x2, "t");
	assert_string_equal(x1.buf, x2.buf);
	assert_non_null(strstr(x1.buf, "tests=\"4\" failures=\"0\" errors=\"0\""));
	assert_non_null(strstr(x1.buf, "name=\"p99&lt;=+10%\""));

	/* a run with no transaction read back is an errored run too */
	gate_clear(&h);
	memset(&h, 0, sizeof(h));
	g.wl[0].runs[2].tps = 0;
	decide(&g);
	assert_int_equal(g.verdict, GATE_ERROR);
	strbuf_reset(&js);
	gate_write_json(&g, &js, "/a", "/b", "{\"pairs\":9}");
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_int_equal(h.verdict, GATE_ERROR);
	assert_non_null(strstr(h.verdict_reason, "(no number)"));

	/* not a gate result */
	gate_clear(&h);
	memset(&h, 0, sizeof(h));
	strbuf_reset(&err);
	assert_int_equal(gate_read_json(&h, "{\"x\":1}", 7, &err), -1);
	assert_non_null(strstr(err.buf, "not a pgbuild gate result"));
	gate_clear(&h);
	gate_clear(&g);
	strbuf_release(&js);
	strbuf_release(&err);
	strbuf_release(&x1);
	strbuf_release(&x2);
}

/* Corrupt or hand-edited gate results are refused, never analysed (fuzz findings) */
static void test_json_refused(void **state)
{
	static const struct { const char *json, *msg; } bad[] = {
		{ "{\"kind\":\"pgbuild-gate\",\"workloads\":[{\"name\":\"w\",\"instructions\":{\"note\":\"a\"}},"
		  "{\"name\":\"w\",\"instructions\":{\"note\":\"b\"}}]}", "workload \"w\" appears twice" },
		{ "{\"kind\":\"pgbuild-gate\",\"workloads\":[{\"name\":\"w\",\"runs\":[{\"pair\":1e12}]}]}",
		  "workload \"w\" run 1: \"pair\" must be an integer from 0 to 999" },
		{ "{\"kind\":\"pgbuild-gate\",\"workloads\":[{\"name\":\"w\",\"runs\":[{\"pair\":0},{\"pair\":-1}]}]}",
		  "run 2: \"pair\" must be" },
		{ "{\"kind\":\"pgbuild-gate\",\"workloads\":[{\"name\":\"w\",\"runs\":[{\"pair\":0.5}]}]}",
		  "\"pair\" must be an integer" },
		{ "{\"kind\":\"pgbuild-gate\",\"workloads\":[{\"name\":\"w\",\"runs\":[{\"exit\":1e99}]}]}",
		  "\"exit\" must be an integer from 0 to 255" },
		{ "{\"kind\":\"pgbuild-gate\",\"min_pairs\":-3}", "\"min_pairs\" must be an integer from 1 to 1000" },
		{ "{\"kind\":\"pgbuild-gate\",\"confidence\":7}", "\"confidence\" must be a level" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gate g;
		struct strbuf err = STRBUF_INIT;
		int rc;
		memset(&g, 0, sizeof(g));
		rc = gate_read_json(&g, bad[i].json, strlen(bad[i].json), &err);
		if (rc != -1 || !strstr(err.buf, bad[i].msg)) {
			fprintf(stderr, "json %s: rc %d, message \"%s\", want \"%s\"\n",
				bad[i].json, rc, err.buf, bad[i].msg);
			fail();
		}
		gate_clear(&g);
		strbuf_release(&err);
	}
}

static void test_junit_failure(void **state)
{
	struct gate g;
	struct strbuf x = STRBUF_INIT;
	synth_gate(&g, "select-only>=1.05,tpcb>=1");
	synth_pairs(&g, "select-only", 9, 0.9, 0.02, 1);
	decide(&g);
	junit_write(&g, &x, "pgbuild gate");
	assert_non_null(strstr(x.buf, "<failure message="));
	assert_non_null(strstr(x.buf, "<error message=\"workload &quot;tpcb&quot; was not measured"));
	assert_non_null(strstr(x.buf, "<skipped message=\"not run"));
	assert_non_null(strstr(x.buf, "<testsuite name=\"pgbuild gate\" tests=\"4\" failures=\"1\" "
			       "errors=\"1\" skipped=\"1\""));
	/* the common schema (junit-10.xsd) has no skipped attribute on testsuites */
	assert_non_null(strstr(x.buf, "<testsuites tests=\"4\" failures=\"1\" errors=\"1\">\n"));
	strbuf_release(&x);
	gate_clear(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expr_good),
		cmocka_unit_test(test_expr_bad),
		cmocka_unit_test(test_clear_win),
		cmocka_unit_test(test_clear_loss),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_claim_one_sided),
		cmocka_unit_test(test_too_few_pairs),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_regress_and_correctness),
		cmocka_unit_test(test_claim_needs_floor),
		cmocka_unit_test(test_pair_order),
		cmocka_unit_test(test_instructions),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_resolution_floor),
		cmocka_unit_test(test_no_floor_undecided),
		cmocka_unit_test(test_server_cpu),
		cmocka_unit_test(test_agreement),
		cmocka_unit_test(test_agreement_untested),
		cmocka_unit_test(test_sequential_stale),
		cmocka_unit_test(test_one_rule),
		cmocka_unit_test(test_metric_list),
		cmocka_unit_test(test_perf_parse),
		cmocka_unit_test(test_aa_false_pass_rate),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_refused),
		cmocka_unit_test(test_junit_failure),
	};
	return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
