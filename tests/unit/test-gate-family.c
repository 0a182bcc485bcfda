/*
 * test-gate-family.c - the family correction of one gate run (gate.h,
 * issue 41): simulated A/A gates (i.i.d. noise, no difference:
 * tests/unit/gate-synth.h's seeded generator) through the gate's own
 * gate_decide, with 1, 2 and 4 workloads, have some wrong result (a bound
 * failed: "significantly slower"; a claim passed: "shown faster") at most
 * alpha of the time, the level one test alone is decided at; decided
 * without the correction (gate.uncorrected, the rule before) the rate
 * grows with the workloads, above alpha at 4; a real 5% difference is
 * still found; one workload and one threshold decide exactly as without
 * it; Holm's levels and order; --pairs auto's Bonferroni level; a layout
 * floor's resolution rescaled at the family's level; what the JSON and the
 * message record.
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

#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/floor.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"
#include "tests/unit/gate-synth.h"

static const char *const names[] = { "w1", "w2", "w3", "w4" };
static const char *const names6[] = { "w1", "w2", "w3", "w4", "w5", "w6" };

/* Does r show what it tests (a claim passed, a bound failed)? */
static int shows(const struct gate_result *r)
{
	return gate_is_claim(r->th) ? r->status == GATE_PASS : r->status == GATE_FAIL;
}

/*
 * The share of `trials` simulated gates of thresholds expr over nwl
 * workloads, n pairs each at speed (B/A) with relative noise, in which
 * some result shows what it tests; uncorrected: without the family
 * correction.  With speed 1 every claim (X > 1) and every bound (X <= 1)
 * here is wrong when it shows.
 */
static double shown_rate(const char *expr, int nwl, int n, double speed, double noise,
			 int uncorrected, int trials, uint64_t seed, int all)
{
	int hits = 0;
	synth_rng = seed;
	for (int t = 0; t < trials; t++) {
		struct gate g;
		int any = 0, every = 1;
		synth_gate(&g, expr);
		g.uncorrected = uncorrected;
		for (int k = 0; k < nwl; k++)
			synth_pairs(&g, names[k], n, speed, noise, 1);
		gate_analyse(&g);
		gate_decide(&g);
		for (size_t i = 0; i < g.nr_res; i++) {
			any |= shows(&g.res[i]);
			every &= shows(&g.res[i]);
		}
		hits += all ? every : any;
		gate_clear(&g);
	}
	return (double)hits / trials;
}

/*
 * A/A, tps>=1.00 on 1, 2 and 4 workloads (12 pairs, 2% noise per run;
 * 4,000 gates each): with the correction some workload is "significantly
 * slower" at most alpha = 2.5% of the time whatever the number of
 * workloads; without it the rate grows with them (simulated 2.2% / 4.6% /
 * 8.5%, against 2.2% / 2.1% / 2.35% corrected).  The tolerance: three
 * Monte-Carlo standard errors of a rate of alpha over 4,000 gates,
 * 3 x sqrt(0.025 x 0.975 / 4000) = 0.74 points, so a correct rule fails
 * the check by chance less than 0.2% of the time per seed (and the seed is
 * fixed: the run is reproducible); the uncorrected rate at 4 workloads
 * must lie above that bound, i.e. beyond what chance explains.
 */
#define ALPHA 0.025
#define TRIALS 4000
#define TOLERANCE (3 * sqrt(ALPHA * (1 - ALPHA) / TRIALS))

static void test_aa_family_rate(void **state)
{
	double corrected[3], uncorrected[3];
	(void)state;
	for (int i = 0, nwl = 1; i < 3; i++, nwl *= 2) {
		uncorrected[i] = shown_rate("tps>=1.00", nwl, 12, 1.0, 0.02, 1, TRIALS, 7, 0);
		corrected[i] = shown_rate("tps>=1.00", nwl, 12, 1.0, 0.02, 0, TRIALS, 7, 0);
		fprintf(stderr, "A/A tps>=1.00, %d workload%s: some workload significantly slower "
			"%.2f%% corrected, %.2f%% without the correction\n", nwl, nwl > 1 ? "s" : "",
			corrected[i] * 100, uncorrected[i] * 100);
		assert_true(corrected[i] <= ALPHA + TOLERANCE);
	}
	/* one test: the correction changes nothing */
	assert_true(corrected[0] == uncorrected[0]);
	/* without it the family's rate grows past alpha */
	assert_true(uncorrected[1] > uncorrected[0]);
	assert_true(uncorrected[2] > ALPHA + TOLERANCE);
}

/*
 * Both directions in one family: per workload a bound (tps>=1.00, wrong
 * when it fails) and a claim just above the truth (tps>=1.0001, wrong
 * when it passes), 2 workloads: 4 tests.  Corrected at most alpha;
 * without the correction about four tests' worth (simulated 8.2%).
 */
static void test_aa_both_directions(void **state)
{
	double c, u;
	(void)state;
	c = shown_rate("tps>=1.00,tps>=1.0001", 2, 12, 1.0, 0.02, 0, TRIALS, 11, 0);
	u = shown_rate("tps>=1.00,tps>=1.0001", 2, 12, 1.0, 0.02, 1, TRIALS, 11, 0);
	fprintf(stderr, "A/A tps>=1.00,tps>=1.0001, 2 workloads: some wrong result %.2f%% "
		"corrected, %.2f%% without the correction\n", c * 100, u * 100);
	assert_true(c <= ALPHA + TOLERANCE);
	assert_true(u > ALPHA + TOLERANCE);
}

/*
 * Power: a real 5% difference on each of 4 workloads, 16 pairs at 2%
 * noise per run, is still found by the corrected gate: every claim
 * tps>=1.01 passes (5% faster) and every bound tps>=1.00 fails (5%
 * slower) in nearly every gate (at least 95% of 1,000), within a few
 * points of the gate without the correction.
 */
static void test_power(void **state)
{
	double faster, slower, faster_u, slower_u;
	(void)state;
	faster = shown_rate("tps>=1.01", 4, 16, 1.05, 0.02, 0, 1000, 3, 1);
	slower = shown_rate("tps>=1.00", 4, 16, 0.95, 0.02, 0, 1000, 5, 1);
	faster_u = shown_rate("tps>=1.01", 4, 16, 1.05, 0.02, 1, 1000, 3, 1);
	slower_u = shown_rate("tps>=1.00", 4, 16, 0.95, 0.02, 1, 1000, 5, 1);
	fprintf(stderr, "5%% faster, 4 workloads, 16 pairs: every claim tps>=1.01 shown in %.1f%% "
		"of the gates (%.1f%% without the correction); 5%% slower: every bound tps>=1.00 "
		"failed in %.1f%% (%.1f%%)\n", faster * 100, faster_u * 100, slower * 100,
		slower_u * 100);
	assert_true(faster >= 0.95);
	assert_true(slower >= 0.95);
	assert_true(faster >= faster_u - 0.05 && slower >= slower_u - 0.05);
}

/*
 * One workload and one threshold: decided exactly as without the
 * correction (status, interval, message), family 1, Holm step 1, at
 * alpha; over gates of every kind of outcome.
 */
static void test_single_unchanged(void **state)
{
	static const double speeds[] = { 0.9, 0.98, 1.0, 1.02, 1.1 };
	static const char *const exprs[] = { "tps>=1.00", "tps>=1.05", "p99<=+10%", "tps>=0.98" };
	(void)state;
	for (size_t e = 0; e < 4; e++)
		for (size_t s = 0; s < 5; s++)
			for (int t = 0; t < 20; t++) {
				struct gate a, b;
				uint64_t seed = 1000 + t;
				synth_gate(&a, exprs[e]);
				synth_gate(&b, exprs[e]);
				b.uncorrected = 1;
				synth_rng = seed;
				synth_pairs(&a, "w1", 9, speeds[s], 0.03, speeds[s]);
				synth_rng = seed;
				synth_pairs(&b, "w1", 9, speeds[s], 0.03, speeds[s]);
				gate_analyse(&a);
				gate_analyse(&b);
				assert_int_equal(gate_decide(&a), gate_decide(&b));
				assert_int_equal(a.nr_res, 1);
				assert_int_equal(a.res[0].status, b.res[0].status);
				assert_true(a.res[0].lo == b.res[0].lo && a.res[0].hi == b.res[0].hi);
				assert_true(a.res[0].dlo == a.res[0].lo && a.res[0].dhi == a.res[0].hi);
				assert_string_equal(a.res[0].message, b.res[0].message);
				assert_int_equal(a.res[0].family, 1);
				assert_int_equal(a.res[0].step, 1);
				assert_true(a.res[0].alpha_adjusted == ALPHA / 1 * 1 ||
					    fabs(a.res[0].alpha_adjusted - ALPHA) < 1e-15);
				gate_clear(&a);
				gate_clear(&b);
			}
}

/*
 * Pairs with the exact per-pair log ratios d (n of them): A 1000 tps,
 * B 1000 e^d, alternating order.
 */
static void exact_pairs(struct gate *g, const char *wl, const double *d, int n)
{
	struct gate_workload *w = gate_workload_get(g, wl, 1);
	for (int p = 0; p < n; p++) {
		synth_run(w, p, p % 2 ? 'B' : 'A', p % 2 ? 1000 * exp(d[p]) : 1000, 0.2, 0);
		synth_run(w, p, p % 2 ? 'A' : 'B', p % 2 ? 1000 : 1000 * exp(d[p]), 0.2, 0);
	}
}

/* 12 log ratios, |d| of rank r = r / 1000, those of the ranks in pos
 * positive: the signed-rank sum T+ is the sum of pos. */
static void ranked(double *d, const int *pos, size_t npos)
{
	for (int r = 1; r <= 12; r++) {
		int plus = 0;
		for (size_t k = 0; k < npos; k++)
			plus |= pos[k] == r;
		d[r - 1] = (plus ? 1 : -1) * r / 1000.0;
	}
}

/*
 * Holm's levels, order and stop, on exact data (12 pairs): a workload
 * whose pairs are slower but for ranks 1 and 12 has T+ = 13, one-sided
 * p = P(T+ <= 13) = 87/4096 = 2.12% (stats_signrank_cdf): inside the
 * 2.5% of one test alone, outside the first step's 1.25% of two.  Two
 * such workloads: without the correction both are "significantly
 * slower"; with it the first step fails and so does the second (Holm
 * stops there), each decided at 1.25%.  One such and one all-slower
 * workload (p = 2^-12): step 1 at 1.25% fails the clear one, step 2 at
 * 2.5% fails the other: step-down, not Bonferroni.  The p-values are the
 * exact signed-rank test's.
 */
static void test_holm_steps(void **state)
{
	static const int edge[] = { 1, 12 };
	double d13[12], d0[12], p13 = stats_signrank_cdf(12, 13);
	struct gate g;
	(void)state;

	ranked(d13, edge, 2);
	ranked(d0, NULL, 0);
	assert_true(p13 > ALPHA / 2 && p13 < ALPHA);

	/* alone: significantly slower */
	synth_gate(&g, "tps>=1.00");
	exact_pairs(&g, "w1", d13, 12);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 1);
	assert_true(fabs(g.res[0].p_value - p13) < 1e-10);
	gate_clear(&g);

	/* two of them: Holm stops at step 1 */
	synth_gate(&g, "tps>=1.00");
	exact_pairs(&g, "w1", d13, 12);
	exact_pairs(&g, "w2", d13, 12);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 0);
	for (size_t i = 0; i < 2; i++) {
		const struct gate_result *r = &g.res[i];
		assert_int_equal(r->status, GATE_PASS);
		assert_int_equal(r->family, 2);
		assert_int_equal(r->step, i + 1);
		assert_true(fabs(r->alpha - ALPHA) < 1e-15);
		assert_true(fabs(r->alpha_adjusted - ALPHA / 2) < 1e-15);
		assert_true(fabs(r->conf_adjusted - (1 - ALPHA)) < 1e-15);
		assert_true(fabs(r->p_value - p13) < 1e-10);
		/* shown: the unadjusted interval, below 1; decided: reaching it */
		assert_true(r->hi < 1 && r->dhi >= 1);
		assert_non_null(strstr(r->message, "not significantly below 1"));
		assert_non_null(strstr(r->message, "Holm step"));
		assert_non_null(strstr(r->message, "of 2 (one-sided p 0.021): decided at 97.5%, the "
					"95% interval alone ["));
	}
	gate_clear(&g);
	/* the same without the correction: both fail */
	synth_gate(&g, "tps>=1.00");
	g.uncorrected = 1;
	exact_pairs(&g, "w1", d13, 12);
	exact_pairs(&g, "w2", d13, 12);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 1);
	assert_true(g.res[0].status == GATE_FAIL && g.res[1].status == GATE_FAIL);
	gate_clear(&g);

	/* one clear, one at the edge: step 1 the clear one (2^-12), step 2
	 * the other at 2.5% */
	synth_gate(&g, "tps>=1.00");
	exact_pairs(&g, "w1", d13, 12);
	exact_pairs(&g, "w2", d0, 12);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 1);
	assert_int_equal(g.res[1].step, 1);
	assert_true(fabs(g.res[1].p_value - ldexp(1, -12)) < 1e-10);
	assert_true(fabs(g.res[1].alpha_adjusted - ALPHA / 2) < 1e-15);
	assert_int_equal(g.res[1].status, GATE_FAIL);
	assert_int_equal(g.res[0].step, 2);
	assert_true(fabs(g.res[0].alpha_adjusted - ALPHA) < 1e-15);
	assert_int_equal(g.res[0].status, GATE_FAIL);
	gate_clear(&g);
}

/* The cycles estimate of w: A/B = ratio, at resolution r built at z. */
static void floor_cycles(struct gate *g, const char *wl, double ratio, double r, double z)
{
	struct gate_workload *w = gate_workload_get(g, wl, 1);
	w->cycles = INSTR_OK;
	w->cyc_a.estimate = 100000 * ratio;
	w->cyc_b.estimate = 100000;
	gate_set_resolution(w, GATE_CYCLES, r, "layout floor: simulated");
	gate_set_resolution_z(w, GATE_CYCLES, z, 4);
}

/*
 * A layout floor's resolution in the family: built at z = 1.96 (one
 * test at 2.5%) over 4 degrees of freedom, rescaled by the level's
 * Student t quantile: two workloads at 1.031 against cycles>=1.02 at a 1%
 * floor pass alone (lower end 1.0207) and both miss at Holm's first step
 * (t_4(0.9875) / t_4(0.975) = 3.495 / 2.776: 1.0180); their p-value is
 * the resolution's, 1 - F_4((1 - 1.02 / 1.031) / 1% x t_4(0.975)).  The
 * repeat resolution (z 0: --noise none) is no statistic and is not
 * rescaled; the JSON keeps z and df and reading it back decides the same.
 */
static void test_floor_rescaled(void **state)
{
	double z = stats_norm_quantile(1 - ALPHA);
	double p = 1 - stats_norm_quantile(0.5) - 0.5; /* 0 */
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;
	struct gate g, h;
	(void)state;

	/* the smallest a with 1% x t_4(1 - a) / t_4(0.975) <= 1 - 1.02 / 1.031 */
	p = 1 - stats_t_cdf((1 - 1.02 / 1.031) / 0.01 * stats_t_quantile(1 - ALPHA, 4), 4);
	synth_gate(&g, "cycles>=1.02");
	g.uncorrected = 1;
	floor_cycles(&g, "w1", 1.031, 0.01, z);
	floor_cycles(&g, "w2", 1.031, 0.01, z);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 0);
	gate_clear(&g);

	synth_gate(&g, "cycles>=1.02");
	floor_cycles(&g, "w1", 1.031, 0.01, z);
	floor_cycles(&g, "w2", 1.031, 0.01, z);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 1);
	for (size_t i = 0; i < 2; i++) {
		const struct gate_result *r = &g.res[i];
		assert_int_equal(r->status, GATE_FAIL);
		assert_true(fabs(r->p_value - p) < 1e-6 * p);
		assert_true(fabs(r->lo - 1.031 * 0.99) < 1e-12);
		assert_true(fabs(r->dlo - 1.031 * (1 - 0.01 * stats_t_quantile(1 - ALPHA / 2, 4) /
						   stats_t_quantile(1 - ALPHA, 4))) < 1e-9);
		assert_non_null(strstr(r->message, "lower end 1.0180 < 1.02"));
	}
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"resolution_z\":1.959963"));
	assert_non_null(strstr(js.buf, "\"family\":{\"tests\":2,\"correction\":\"Holm step-down"));
	assert_non_null(strstr(js.buf, "\"resolution_df\":4,"));
	assert_non_null(strstr(js.buf, "\"family\":2,\"holm_step\":1,\"p_value\":0.0207"));
	assert_non_null(strstr(js.buf, "\"alpha\":0.025"));
	assert_non_null(strstr(js.buf, "\"alpha_adjusted\":0.0125"));
	assert_non_null(strstr(js.buf, "\"confidence_adjusted\":0.97"));
	assert_non_null(strstr(js.buf, "\"decision_low\":1.0180"));
	memset(&h, 0, sizeof(h));
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_int_equal(h.verdict, GATE_FAIL);
	assert_true(h.res[0].dlo == g.res[0].dlo && h.res[1].dlo == g.res[1].dlo);
	gate_clear(&h);
	gate_clear(&g);
	strbuf_release(&js);
	strbuf_release(&err);

	/* the repeat resolution: the same at every level (a bound: a claim
	 * is undecided there) */
	synth_gate(&g, "cycles>=1.00");
	floor_cycles(&g, "w1", 1.031, 0.01, 0);
	floor_cycles(&g, "w2", 1.031, 0.01, 0);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 0);
	assert_true(g.res[0].dlo == g.res[0].lo);
	gate_clear(&g);
}

/*
 * The family's bound before the data counts every workload the gate
 * measures: those given with -W and those a threshold names.  -W
 * select-only,tpcb with tps>=1.00,select1>=1.00: tps on select-only,
 * tpcb and select1 (measured, being named) plus select1's own, 4 (was
 * 3: the named workload left out of the unqualified threshold's count).
 */
static void test_family_bound_union(void **state)
{
	struct gate g;
	struct strvec wl = STRVEC_INIT;
	(void)state;
	synth_gate(&g, "tps>=1.00,select1>=1.00");
	strvec_pushl(&wl, "select-only", "tpcb", NULL);
	assert_int_equal(gate_family_bound(&g.th, &wl, 0), 4);
	/* a named workload also given: counted once */
	strvec_push(&wl, "select1");
	assert_int_equal(gate_family_bound(&g.th, &wl, 0), 4);
	/* none given: the named ones */
	strvec_clear(&wl);
	assert_int_equal(gate_family_bound(&g.th, &wl, 0), 2);
	gate_clear(&g);
	/* nothing named, nothing given: the default one */
	synth_gate(&g, "tps>=1.00,cycles>=1.00");
	assert_int_equal(gate_family_bound(&g.th, &wl, 0), 2);
	assert_int_equal(gate_family_bound(&g.th, &wl, 1), 1);
	gate_clear(&g);
	strvec_clear(&wl);
}

/*
 * A resolution that is no statistic (the repeat one: --noise none, z 0)
 * joins no family: with tps>=1.00 and cycles>=1.00 on 2 workloads the
 * family is the 2 tps tests; the cycles results (bounds: a claim is
 * undecided there) have family 0, no p-value nor adjusted level (null in
 * the JSON), are decided as they are and say so.  (Before: m = 4, each
 * cycles result had a Holm step and a p-value of 1e-15.)
 */
static void test_repeat_resolution_no_member(void **state)
{
	struct strbuf js = STRBUF_INIT;
	struct gate g;
	(void)state;
	synth_gate(&g, "tps>=1.00,cycles>=1.00");
	synth_rng = 13;
	for (int k = 0; k < 2; k++) {
		synth_pairs(&g, names[k], 9, 1.0, 0.02, 1);
		floor_cycles(&g, names[k], 1.031, 0.001, 0);
	}
	assert_int_equal(gate_family_size(&g), 2);
	gate_analyse(&g);
	gate_decide(&g);
	assert_int_equal(g.nr_res, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct gate_result *r = &g.res[i];
		if (r->th->kind == GATE_TPS) {
			assert_int_equal(r->family, 2);
			continue;
		}
		assert_int_equal(r->family, 0);
		assert_int_equal(r->step, 0);
		assert_true(isnan(r->p_value) && isnan(r->alpha_adjusted));
		assert_int_equal(r->status, GATE_PASS);
		assert_int_equal(r->no_statistic, 1);
		assert_non_null(strstr(r->message, "decided at the repeat resolution: no statistic, "
				       "so no test of the family, not corrected, and not shown"));
	}
	gate_write_json(&g, &js, "/a", "/b", NULL);
	assert_non_null(strstr(js.buf, "\"family\":0,\"holm_step\":null,\"p_value\":null"));
	assert_non_null(strstr(js.buf, "\"alpha_adjusted\":null"));
	strbuf_release(&js);
	gate_clear(&g);
}

/*
 * A document of before "resolution_z" whose resolution is a layout
 * floor's is read with the z the gate built it at (the quantile of (1 +
 * conf) / 2), so report decides it again as the gate did: the floor
 * example of test_floor_rescaled (both fail at Holm's first step) with
 * the key removed still fails, and its z is 1.96.  (Before: read as no
 * statistic, 0, it passed.)
 */
static void test_old_json_floor_z(void **state)
{
	double z = stats_norm_quantile(1 - ALPHA);
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;
	struct gate g, h;
	char *at;
	(void)state;
	synth_gate(&g, "cycles>=1.02");
	floor_cycles(&g, "w1", 1.031, 0.01, z);
	floor_cycles(&g, "w2", 1.031, 0.01, z);
	gate_analyse(&g);
	assert_int_equal(gate_decide(&g), 1);
	gate_write_json(&g, &js, "/a", "/b", NULL);
	/* an old document: no "resolution_z":1.9599..., key */
	while ((at = strstr(js.buf, "\"resolution_z\":"))) {
		char *end = strchr(at, ',');
		assert_non_null(end);
		memmove(at, end + 1, strlen(end + 1) + 1);
	}
	js.len = strlen(js.buf);
	memset(&h, 0, sizeof(h));
	assert_int_equal(gate_read_json(&h, js.buf, js.len, &err), 0);
	assert_true(fabs(h.wl[0].cycles_res.z - z) < 1e-9);
	gate_decide(&h);
	assert_int_equal(h.verdict, GATE_FAIL);
	assert_int_equal(h.res[0].family, 2);
	gate_clear(&h);
	gate_clear(&g);
	strbuf_release(&js);
	strbuf_release(&err);
}

/*
 * A/A through layout floors (review item 3): m workloads, a claim of any
 * gain in cycles on each (cycles>=1.000001), the baseline's SD estimated
 * from 5 relinked variants (noise_floor_rule, the candidate's side its
 * stand-in, the same figure) while the candidate's true SD is twice the
 * baseline's.  The rule alone is built for 2.5%; rescaled for Holm's
 * levels by the normal ratio z'/z the rate of some false claim grew with
 * m (the review: 2.06% / 2.91% / 3.85% / 4.81% at m = 1 / 2 / 4 / 6),
 * by Student's t over the 4 degrees of freedom it stays at most alpha
 * (within the Monte-Carlo tolerance of 4,000 gates).
 */
static double floor_aa_rate(int m, int trials, uint64_t seed)
{
	const double sigma = 0.003, c = 2;
	const int nv = 5;
	int any = 0;
	synth_rng = seed;
	for (int t = 0; t < trials; t++) {
		struct gate g;
		int a = 0;
		synth_gate(&g, "cycles>=1.000001");
		for (int k = 0; k < m; k++) {
			struct gate_workload *w = gate_workload_get(&g, names6[k], 1);
			double v[8], mean = 0, ss = 0, sd, r;
			for (int i = 0; i < nv; i++)
				mean += v[i] = sigma * synth_gauss();
			mean /= nv;
			for (int i = 0; i < nv; i++)
				ss += (v[i] - mean) * (v[i] - mean);
			sd = sqrt(ss / (nv - 1));
			w->cycles = INSTR_OK;
			w->cyc_a.estimate = 150000 * (1 + sigma * synth_gauss());
			w->cyc_b.estimate = 150000 * (1 + c * sigma * synth_gauss());
			r = noise_floor_rule(metrics_of(METRIC_CYCLES)->resolution, sd, nv, sd, nv);
			gate_set_resolution(w, GATE_CYCLES, r, "layout floor: simulated");
			gate_set_resolution_z(w, GATE_CYCLES, noise_floor_z(), nv - 1);
		}
		gate_analyse(&g);
		gate_decide(&g);
		for (size_t i = 0; i < g.nr_res; i++)
			a |= shows(&g.res[i]);
		any += a;
		gate_clear(&g);
	}
	return (double)any / trials;
}

static void test_floor_aa_t(void **state)
{
	(void)state;
	for (int m = 2; m <= 6; m += 4) {
		double rate = floor_aa_rate(m, TRIALS, 17 + (uint64_t)m);
		fprintf(stderr, "A/A cycles>=1.000001 through floors of 5 variants, candidate SD 2x, "
			"%d workloads: some false claim %.2f%%\n", m, rate * 100);
		assert_true(rate <= ALPHA + TOLERANCE);
	}
}

/*
 * What is no test is no member: a deterministic threshold without a
 * layout floor (undecided, known before the data) and a workload not
 * measured leave m at the tests that can decide; with one left it is
 * decided alone, as before.
 */
static void test_family_members(void **state)
{
	struct gate g;
	struct gate_workload *w;
	(void)state;
	synth_gate(&g, "tps>=1.00,cycles>=1,tpcb>=1.00");
	synth_rng = 5;
	synth_pairs(&g, "w1", 9, 1.0, 0.02, 1);
	w = gate_workload_get(&g, "w1", 1);
	w->cycles = INSTR_OK;
	w->cyc_a.estimate = w->cyc_b.estimate = 1000;
	gate_set_resolution(w, GATE_CYCLES, NAN, "no layout floor: none");
	assert_int_equal(gate_family_size(&g), 1);
	gate_analyse(&g);
	gate_decide(&g);
	assert_int_equal(g.nr_res, 3);
	assert_int_equal(g.res[0].family, 1);
	assert_int_equal(g.res[0].step, 1);
	assert_int_equal(g.res[1].family, 0);   /* no floor */
	assert_true(isnan(g.res[1].alpha_adjusted));
	assert_int_equal(g.res[2].family, 0);   /* tpcb: not measured */
	gate_clear(&g);
	/* 8 pairs at least for 4 tests at 95% (2^-8 <= 0.025 / 4) */
	synth_gate(&g, "tps>=1.00");
	for (int k = 0; k < 4; k++)
		gate_workload_get(&g, names[k], 1);
	assert_int_equal(gate_family_size(&g), 4);
	assert_int_equal(gate_family_min_pairs(&g), 8);
	gate_clear(&g);
}

/*
 * --pairs auto: every confidence sequence of a family of m at 1 - (1 -
 * conf) / m (Bonferroni), what each result records and says, the
 * sequence shown at the gate's 95% as gate_ratio_of's; the level is the
 * one the sequence decides at: whatever the family's level shows, 95%
 * shows too, and over these 40 seeded A/A gates of 4 workloads (14
 * pairs, 0.4% noise) one bound tps>=1.00 the 95% sequence calls
 * significantly slower is not at the family's 98.75%.
 */
static void test_sequential_bonferroni(void **state)
{
	int differ = 0;
	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct gate a, b;
		synth_gate(&a, "tps>=1.00");
		synth_gate(&b, "tps>=1.00");
		a.sequential = b.sequential = 1;
		b.uncorrected = 1;
		synth_rng = seed;
		for (int k = 0; k < 4; k++)
			synth_pairs(&a, names[k], 14, 1.0, 0.004, 1);
		synth_rng = seed;
		for (int k = 0; k < 4; k++)
			synth_pairs(&b, names[k], 14, 1.0, 0.004, 1);
		assert_true(fabs(gate_seq_conf(&a) - (1 - 0.05 / 4)) < 1e-15);
		assert_true(gate_seq_conf(&b) == 0.95);
		gate_analyse(&a);
		gate_analyse(&b);
		gate_decide(&a);
		gate_decide(&b);
		for (size_t i = 0; i < 4; i++) {
			const struct gate_result *r = &a.res[i];
			assert_int_equal(r->family, 4);
			assert_int_equal(r->step, 0);
			assert_true(isnan(r->p_value));
			assert_true(fabs(r->alpha - 0.05) < 1e-15);
			assert_true(fabs(r->alpha_adjusted - 0.0125) < 1e-15);
			assert_true(fabs(r->conf_adjusted - 0.9875) < 1e-15);
			assert_non_null(strstr(r->message, "98.75% confidence sequence"));
			assert_non_null(strstr(r->message, "Bonferroni over 4 tests: decided at 98.75%"));
			/* a wider sequence never shows what the narrower did not */
			if (shows(r))
				assert_true(shows(&b.res[i]));
			differ += shows(&b.res[i]) && !shows(r);
			/* the shown one is the sequence at 95%, as gate_ratio_of's */
			assert_true(r->lo == b.res[i].lo && r->hi == b.res[i].hi);
		}
		gate_clear(&a);
		gate_clear(&b);
	}
	fprintf(stderr, "--pairs auto, 4 workloads: %d of 160 bounds tps>=1.00 are not shown at "
		"the family's level that the 95%% sequence alone shows\n", differ);
	assert_true(differ >= 1);
}

/*
 * The findings (gate_findings) name an interval at the family's
 * first-step level: over simulated A/A gates of tps>=1.00 on 4 workloads,
 * a finding says "tps slower" only in a gate some of whose results showed
 * it (a bound failed), never where the decided verdict did not (here: 21
 * gates of 1,000, all backed); before, they read the interval at
 * --confidence alone and said "slower" in 78 of these gates, 57 of them
 * decided "not shown slower".  And the finding says the level it is at.
 */
static void test_findings_follow_family(void **state)
{
	int said = 0, unbacked = 0;
	(void)state;
	synth_rng = 4141;
	for (int t = 0; t < 1000; t++) {
		struct gate g;
		struct strbuf f = STRBUF_INIT;
		int any = 0;
		synth_gate(&g, "tps>=1.00");
		for (int k = 0; k < 4; k++)
			synth_pairs(&g, names[k], 12, 1.0, 0.02, 1);
		gate_analyse(&g);
		gate_decide(&g);
		for (size_t i = 0; i < g.nr_res; i++)
			any |= shows(&g.res[i]);
		gate_findings(&g, &f);
		if (strstr(f.buf, "tps slower")) {
			said++;
			unbacked += !any;
		}
		if (t == 0)
			assert_non_null(strstr(f.buf, "(at 98.75%: 4 findings)"));
		strbuf_release(&f);
		gate_clear(&g);
	}
	assert_int_equal(unbacked, 0);
	assert_true(said <= 40);        /* about alpha: 2.5% of 1,000 */
}

/* Server CPU per transaction of every run of w: A/A, relative noise. */
static void synth_cpu(struct gate *g, const char *wl, double noise)
{
	struct gate_workload *w = gate_workload_get(g, wl, 1);
	for (size_t i = 0; i < w->nr_runs; i++)
		w->runs[i].server_cpu_us = 300 * exp(noise * synth_gauss());
}

/*
 * The findings' own family (review item 4): A/A, 4 workloads, tps and
 * server CPU each (8 findings), a scoped threshold (a family of 1): some
 * finding says faster, slower, lower or higher at most 1 - conf = 5% of
 * the time (each read two-sided at 1 - 5% / 8); before, every figure at
 * 95% and the faster and CPU sides outside any family: about 8 x 5%.
 * Under --pairs auto the sequence at that level; a layout floor's
 * resolution rescaled to it ("beyond the floor" only beyond the rescaled
 * one).
 */
static void test_findings_own_family(void **state)
{
	int said = 0;
	(void)state;
	synth_rng = 977;
	for (int t = 0; t < 1000; t++) {
		struct gate g;
		struct strbuf f = STRBUF_INIT;
		synth_gate(&g, "w1.tps>=1.00");
		for (int k = 0; k < 4; k++) {
			synth_pairs(&g, names[k], 12, 1.0, 0.02, 1);
			synth_cpu(&g, names[k], 0.02);
		}
		gate_analyse(&g);
		gate_decide(&g);
		assert_int_equal(gate_findings_size(&g), 8);
		gate_findings(&g, &f);
		said += strstr(f.buf, "tps faster") || strstr(f.buf, "tps slower") ||
			strstr(f.buf, "transaction lower") || strstr(f.buf, "transaction higher");
		if (t == 0)
			assert_non_null(strstr(f.buf, "(at 99.38%: 8 findings)"));
		strbuf_release(&f);
		gate_clear(&g);
	}
	fprintf(stderr, "A/A, 4 workloads, tps and server CPU: some finding said a difference "
		"in %d of 1000 gates\n", said);
	assert_true(said <= 50 + 3 * sqrt(0.05 * 0.95 * 1000));

	/* --pairs auto: the sequence at the findings' level */
	{
		struct gate g;
		struct strbuf f = STRBUF_INIT;
		struct stats_ratio r, want;
		synth_gate(&g, "tps>=1.00");
		g.sequential = 1;
		for (int k = 0; k < 2; k++)
			synth_pairs(&g, names[k], 14, 1.0, 0.004, 1);
		gate_analyse(&g);
		gate_decide(&g);
		gate_ratio_found(&g, &g.wl[0], GATE_TPS, &r);
		want = g.wl[0].tps;
		gate_seq_ratio(&g.wl[0], GATE_TPS, 0.975, &want);
		assert_true(r.lo == want.lo && r.hi == want.hi && r.conf == 0.975);
		gate_findings(&g, &f);
		assert_non_null(strstr(f.buf, "(at 97.5%: 2 findings)"));
		strbuf_release(&f);
		gate_clear(&g);
	}
	/* 8 pairs at the level of 8 findings (99.38%): no interval, said with
	 * why, beside the Hodges-Lehmann estimate the tables print */
	{
		struct gate g;
		struct strbuf f = STRBUF_INIT;
		char *want;
		synth_gate(&g, "w1.tps>=1.00");
		for (int k = 0; k < 4; k++) {
			synth_pairs(&g, names[k], 8, 1.0, 0.02, 1);
			synth_cpu(&g, names[k], 0.02);
		}
		gate_analyse(&g);
		gate_decide(&g);
		gate_findings(&g, &f);
		want = xasprintf("w1: tps %.3f (no interval at 99.38%%, the level of 8 findings: "
				 "8 pairs are too few)", g.wl[0].tps.estimate);
		if (!strstr(f.buf, want))
			fail_msg("findings: %s\nwanted: %s", f.buf, want);
		free(want);
		strbuf_release(&f);
		gate_clear(&g);
	}
	/* a 1.2% lower cycles estimate on each of 2 workloads at a 1% floor
	 * (z 1.96, 4 df): within the floor at the findings' 97.5% (1.26%) */
	{
		struct gate g;
		struct strbuf f = STRBUF_INIT;
		synth_gate(&g, "cycles>=1");
		floor_cycles(&g, "w1", 1 / 0.988, 0.01, stats_norm_quantile(1 - ALPHA));
		floor_cycles(&g, "w2", 1 / 0.988, 0.01, stats_norm_quantile(1 - ALPHA));
		gate_analyse(&g);
		gate_decide(&g);
		gate_findings(&g, &f);
		assert_null(strstr(f.buf, "beyond"));
		assert_non_null(strstr(f.buf, "cycles estimate 1.2% lower, within the 1.3% layout "
				       "floor (at 97.5%: 2 findings)"));
		strbuf_release(&f);
		gate_clear(&g);
	}
}

/* The one rule for the pairs a family needs (gate_pairs_needed): 2^-n <=
 * (1 - conf) / 2 / m, at least GATE_MIN_PAIRS; optimize's default (two
 * thresholds on two workloads: m = 4) is 8, where 6 pairs could show a
 * slower tps only after the three other tests had shown theirs. */
/*
 * Below the family's pairs (item 1 of the review): tps>=1.00 on 2
 * workloads, 6 pairs, B 20% slower.  Holm's first step is at 1.25%, and 6
 * pairs have no interval below 2^-6 = 1.56%: no test, so every result is
 * undecided (exit 3), never "not shown slower" and exit 0 (before: 0 of
 * 200 gates failed, all passed).  At gate_pairs_needed(0.95, 2) pairs
 * (7) the same B fails in at least 95% of 200 gates.
 */
static void test_too_few_pairs_undecided(void **state)
{
	struct gate_verdict v = GATE_VERDICT_INIT;
	int passed = 0, failed = 0, n = (int)gate_pairs_needed(0.95, 2);
	(void)state;
	synth_rng = 29;
	for (int t = 0; t < 200; t++) {
		struct gate g;
		synth_gate(&g, "tps>=1.00");
		for (int k = 0; k < 2; k++)
			synth_pairs(&g, names[k], 6, 0.8, 0.02, 1);
		gate_analyse(&g);
		assert_int_equal(gate_decide(&g), gate_exit_code(GATE_UNDECIDED));
		for (size_t i = 0; i < g.nr_res; i++) {
			assert_int_equal(g.res[i].status, GATE_UNDECIDED);
			assert_non_null(strstr(g.res[i].message, "untested"));
		}
		if (t == 0) {
			gate_verdict_of(&g, &v);
			assert_string_equal(gate_verdict_word(&v), "undecided");
			assert_non_null(strstr(g.verdict_reason, "undecided"));
			gate_verdict_clear(&v);
		}
		passed += g.verdict == GATE_PASS;
		gate_clear(&g);
	}
	assert_int_equal(passed, 0);
	assert_int_equal(n, 7);
	for (int t = 0; t < 200; t++) {
		struct gate g;
		synth_gate(&g, "tps>=1.00");
		for (int k = 0; k < 2; k++)
			synth_pairs(&g, names[k], n, 0.8, 0.02, 1);
		gate_analyse(&g);
		failed += gate_decide(&g) == 1;
		gate_clear(&g);
	}
	fprintf(stderr, "20%% slower, 2 workloads, %d pairs: the gate failed in %d of 200\n", n,
		failed);
	assert_true(failed >= 190);
}

static void test_pairs_needed(void **state)
{
	(void)state;
	assert_int_equal(gate_pairs_needed(0.95, 1), GATE_MIN_PAIRS);
	assert_int_equal(gate_pairs_needed(0.95, 0), GATE_MIN_PAIRS);
	assert_int_equal(gate_pairs_needed(0.95, 2), 7);
	assert_int_equal(gate_pairs_needed(0.95, 4), 8);
	assert_int_equal(gate_pairs_needed(0.95, 12), 9);
	assert_int_equal(gate_pairs_needed(0.99, 1), 8);
	/* the first step of 4 tests at 8 pairs can reject: 2^-8 <= 0.025/4 */
	assert_true(ldexp(1.0, -8) <= 0.025 / 4 && ldexp(1.0, -7) > 0.025 / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_family_rate),
		cmocka_unit_test(test_aa_both_directions),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_single_unchanged),
		cmocka_unit_test(test_holm_steps),
		cmocka_unit_test(test_floor_rescaled),
		cmocka_unit_test(test_family_members),
		cmocka_unit_test(test_family_bound_union),
		cmocka_unit_test(test_sequential_bonferroni),
		cmocka_unit_test(test_findings_follow_family),
		cmocka_unit_test(test_findings_own_family),
		cmocka_unit_test(test_pairs_needed),
		cmocka_unit_test(test_too_few_pairs_undecided),
		cmocka_unit_test(test_repeat_resolution_no_member),
		cmocka_unit_test(test_old_json_floor_z),
		cmocka_unit_test(test_floor_aa_t),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
