/*
 * test-gate-sequential.c - unit tests of pgbuild/gate/sequential.c, the
 * confidence sequence of `gate --pairs auto`: its coverage and false-pass
 * rate by simulation (fixed seed) under noise like a shared machine's, that
 * peeking at a fixed-sample interval would fail the same check, its power,
 * its monotone ends, the decision rule and the edge cases; a sequence
 * whose new interval misses the running one ends inconsistent (never
 * keeping the stale interval, which passed a claim above what was
 * observed), and the fewest pairs at which it can be bounded.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pgbuild/gate/sequential.h"
#include "pgbuild/gate/stats.h"

#define ALPHA 0.05
#define SIMS 2000
#define MAXN 60

static uint64_t rng_state;

/* splitmix64: a fixed sequence for a fixed seed */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(void)
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2 * log(rng_unit())) * cos(2 * M_PI * rng_unit());
}

/*
 * One per-pair log ratio around mu, noise as measured on this kind of
 * machine: a spread of 1-4% that changes from pair to pair (load comes and
 * goes), and in 5% of pairs a run hit by another process, 5-20% slower, on
 * A or on B alike (symmetric).
 */
static double noisy_pair(double mu)
{
	double sd = 0.01 + 0.03 * rng_unit(), d = mu + sd * rng_normal();
	if (rng_unit() < 0.05) {
		double hit = 0.05 + 0.15 * rng_unit();
		d += rng_unit() < 0.5 ? hit : -hit;
	}
	return d;
}

static void fill(double *d, size_t n, double mu)
{
	for (size_t i = 0; i < n; i++)
		d[i] = noisy_pair(mu);
}

/* A/A sequences watched after every pair (the running CS only narrows, so
 * the end of the sequence tells whether it ever excluded 0): a claim
 * tps>=1 must pass in at most ALPHA of them, and 0 must stay covered. */
static void test_aa_false_pass(void **state)
{
	int false_pass = 0, miss = 0, inconsistent = 0;
	double d[MAXN];
	struct seq_cs cs;
	(void)state;
	rng_state = 20261202;
	for (int s = 0; s < SIMS; s++) {
		fill(d, MAXN, 0);
		assert_int_equal(seq_cs_compute(d, MAXN, ALPHA, SEQ_RHO, &cs), 0);
		false_pass += seq_decide(&cs, 0, 0) == SEQ_PASS;
		miss += !(cs.lo <= 0 && 0 <= cs.hi);
		inconsistent += cs.inconsistent;
	}
	/* an empty intersection happens only off the covered event */
	assert_true(inconsistent <= ALPHA * SIMS);
	print_message("A/A: %d of %d sequences of %d pairs passed tps>=1 (%.2f%%), %d "
		      "lost 0 (%.2f%%)\n", false_pass, SIMS, MAXN, 100.0 * false_pass / SIMS,
		      miss, 100.0 * miss / SIMS);
	assert_true(false_pass <= ALPHA * SIMS);
	assert_true(miss <= ALPHA * SIMS);
}

/* The check above can fail: peeking at the fixed-sample Hodges-Lehmann
 * interval after every pair from 6 to 30 passes far more often. */
static void test_peeking_is_invalid(void **state)
{
	int false_pass = 0;
	double d[30];
	(void)state;
	rng_state = 20261202;
	for (int s = 0; s < SIMS; s++) {
		fill(d, 30, 0);
		for (size_t n = 6; n <= 30; n++) {
			double est, lo, hi, ach;
			if (stats_hodges_lehmann(d, n, 1 - ALPHA, &est, &lo, &hi, &ach) == 0 && lo >= 0) {
				false_pass++;
				break;
			}
		}
	}
	print_message("peeking at a 95%% interval: %d of %d A/A sequences passed (%.2f%%)\n",
		      false_pass, SIMS, 100.0 * false_pass / SIMS);
	assert_true(false_pass > ALPHA / 2 * SIMS);
}

/* When the candidate is faster the sequence decides: 5% faster with a
 * claim of 2% passes; an impossible claim (1.5) fails quickly. */
static void test_power(void **state)
{
	int passed = 0, failed = 0, fail_by_20 = 0;
	double d[MAXN];
	struct seq_cs cs;
	(void)state;
	rng_state = 7;
	for (int s = 0; s < 200; s++) {
		fill(d, MAXN, log(1.05));
		seq_cs_compute(d, MAXN, ALPHA, SEQ_RHO, &cs);
		passed += seq_decide(&cs, log(1.02), 0) == SEQ_PASS;
		fill(d, 20, 0);
		seq_cs_compute(d, 20, ALPHA, SEQ_RHO, &cs);
		fail_by_20 += seq_decide(&cs, log(1.5), 0) == SEQ_FAIL;
		failed += seq_decide(&cs, log(1.5), 0) == SEQ_PASS;
	}
	print_message("1.05 vs claim 1.02: %d of 200 passed in %d pairs; A/A vs 1.5: %d of 200 "
		      "failed in 20\n", passed, MAXN, fail_by_20);
	assert_true(passed >= 180);
	assert_int_equal(fail_by_20, 200);
	assert_int_equal(failed, 0);
}

/* More pairs never widen it: lo never falls, hi never rises. */
static void test_monotone(void **state)
{
	double d[MAXN], lo = -INFINITY, hi = INFINITY;
	struct seq_cs cs;
	(void)state;
	rng_state = 99;
	fill(d, MAXN, 0.01);
	for (size_t n = 1; n <= MAXN; n++) {
		seq_cs_compute(d, n, ALPHA, SEQ_RHO, &cs);
		assert_int_equal(cs.n, n);
		assert_true(cs.lo >= lo && cs.hi <= hi);
		assert_true(cs.lo <= cs.hi);
		lo = cs.lo;
		hi = cs.hi;
	}
	/* after 60 pairs at 1-4% spread it is a few percent wide */
	assert_true(isfinite(lo) && isfinite(hi) && hi - lo < 0.05);
	/* a higher confidence gives a wider sequence */
	seq_cs_compute(d, MAXN, 0.01, SEQ_RHO, &cs);
	assert_true(cs.lo <= lo && cs.hi >= hi);
}

static void test_edges(void **state)
{
	double d[40] = { 0 }, one = 0.02, bad[] = { NAN, 0.01, INFINITY, -0.01 };
	struct seq_cs cs;
	(void)state;
	/* nothing measured: the whole line, no estimate */
	assert_int_equal(seq_cs_compute(d, 0, ALPHA, SEQ_RHO, &cs), 0);
	assert_int_equal(cs.n, 0);
	assert_true(isnan(cs.mean) && isinf(cs.lo) && cs.lo < 0 && isinf(cs.hi) && cs.hi > 0);
	assert_int_equal(seq_decide(&cs, 0, 0), SEQ_CONTINUE);
	assert_int_equal(seq_decide(&cs, 0, 1), SEQ_CONTINUE);
	/* one pair decides nothing */
	seq_cs_compute(&one, 1, ALPHA, SEQ_RHO, &cs);
	assert_true(cs.mean == 0.02 && isinf(cs.lo) && isinf(cs.hi));
	/* non-finite pairs are skipped */
	seq_cs_compute(bad, 4, ALPHA, SEQ_RHO, &cs);
	assert_int_equal(cs.n, 2);
	assert_true(fabs(cs.mean) < 1e-15);
	/* identical pairs (no spread): a narrow sequence around them */
	for (int i = 0; i < 40; i++)
		d[i] = 0.01;
	seq_cs_compute(d, 40, ALPHA, SEQ_RHO, &cs);
	assert_true(cs.lo <= 0.01 && cs.hi >= 0.01 && cs.hi - cs.lo < 0.02);
	assert_int_equal(seq_decide(&cs, 0, 0), SEQ_PASS);
	/* bad settings */
	assert_int_equal(seq_cs_compute(d, 40, 0, SEQ_RHO, &cs), -1);
	assert_int_equal(seq_cs_compute(d, 40, 1, SEQ_RHO, &cs), -1);
	assert_int_equal(seq_cs_compute(d, 40, NAN, SEQ_RHO, &cs), -1);
	assert_int_equal(seq_cs_compute(d, 40, ALPHA, 0, &cs), -1);
}

/* The rule: lower end reaches x -> pass; upper end below x -> fail; for a
 * latency (lower is better) the mirror image; the ends themselves count
 * as reaching. */
static void test_decide(void **state)
{
	struct seq_cs cs = { .n = 10, .mean = 0.05, .lo = 0.02, .hi = 0.08, .alpha = ALPHA };
	(void)state;
	assert_int_equal(seq_decide(&cs, 0.02, 0), SEQ_PASS);
	assert_int_equal(seq_decide(&cs, 0.0200001, 0), SEQ_CONTINUE);
	assert_int_equal(seq_decide(&cs, 0.05, 0), SEQ_CONTINUE);
	assert_int_equal(seq_decide(&cs, 0.08, 0), SEQ_CONTINUE);
	assert_int_equal(seq_decide(&cs, 0.0800001, 0), SEQ_FAIL);
	assert_int_equal(seq_decide(&cs, 0.08, 1), SEQ_PASS);
	assert_int_equal(seq_decide(&cs, 0.05, 1), SEQ_CONTINUE);
	assert_int_equal(seq_decide(&cs, 0.0199999, 1), SEQ_FAIL);
}

/*
 * A sequence the pairs contradict: 40 pairs at 1.22 (tight), then pairs
 * at 1.00.  Its running interval sits at [1.219, 1.221]; at pair 52 the
 * new interval misses it, and the sequence ends there inconsistent:
 * SEQ_INCONSISTENT whatever the threshold, the interval before it kept
 * for the record, the estimate (1.09 by pair 90) going on.  The old code
 * kept the stale interval and passed tps>=1.20 with an estimate of 1.09.
 */
static void test_inconsistent(void **state)
{
	double d[90];
	struct seq_cs cs;
	(void)state;
	for (int i = 0; i < 90; i++)
		d[i] = log(i < 40 ? 1.22 : 1.00) + 0.0005 * (i % 5 - 2);
	seq_cs_compute(d, 45, ALPHA, SEQ_RHO, &cs);
	assert_int_equal(cs.inconsistent, 0);
	seq_cs_compute(d, 90, ALPHA, SEQ_RHO, &cs);
	assert_int_equal(cs.n, 90);
	assert_true(exp(cs.mean) > 1.09 && exp(cs.mean) < 1.10);
	assert_int_equal(cs.inconsistent, 1);
	assert_int_equal(cs.at, 52);
	/* the interval of pair 52 lies below the one before it */
	assert_true(cs.at_hi < cs.lo);
	assert_true(exp(cs.lo) > 1.219 && exp(cs.hi) < 1.221);
	assert_int_equal(seq_decide(&cs, log(1.20), 0), SEQ_INCONSISTENT);
	assert_int_equal(seq_decide(&cs, log(1.50), 0), SEQ_INCONSISTENT);
	assert_int_equal(seq_decide(&cs, log(1.20), 1), SEQ_INCONSISTENT);
}

/*
 * The fewest pairs that can decide: 10 at 95% (the sign test's bound,
 * whatever the data), more at higher confidence.  Pairs as tight as can
 * be: unbounded at 9, bounded on both sides at 10.
 */
static void test_min_pairs(void **state)
{
	double d[12];
	struct seq_cs cs;
	(void)state;
	assert_int_equal(seq_min_pairs(0.05), 10);
	assert_int_equal(seq_min_pairs(0.01), 12);
	assert_int_equal(seq_min_pairs(0), 0);
	assert_int_equal(seq_min_pairs(1), 0);
	for (int i = 0; i < 12; i++)
		d[i] = 0.05 + 1e-6 * i;
	for (size_t n = 1; n <= 12; n++) {
		seq_cs_compute(d, n, ALPHA, SEQ_RHO, &cs);
		if (n < seq_min_pairs(ALPHA))
			assert_true(isinf(cs.lo) || isinf(cs.hi));
		else
			assert_true(isfinite(cs.lo) && isfinite(cs.hi));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_false_pass),
		cmocka_unit_test(test_peeking_is_invalid),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_monotone),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_inconsistent),
		cmocka_unit_test(test_min_pairs),
	};
	return cmocka_run_group_tests_name("gate-sequential", tests, NULL, NULL);
}
