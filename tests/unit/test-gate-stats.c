/*
 * test-gate-stats.c - unit tests of pgbuild/gate/stats.c: medians, the exact
 * signed-rank distribution, Hodges-Lehmann and bootstrap intervals (their
 * one-sided A/A error by simulation), and the paired-ratio analysis the
 * gate uses.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pgbuild/gate/stats.h"

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_median_quantile(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	NEAR(stats_median(odd, 3), 3, 0);
	NEAR(stats_median(even, 4), 2.5, 0);
	assert_true(isnan(stats_median(odd, 0)));
	NEAR(stats_quantile(even, 4, 0), 1, 0);
	NEAR(stats_quantile(even, 4, 1), 4, 0);
	NEAR(stats_quantile(even, 4, 0.5), 2.5, 1e-12);
	NEAR(stats_quantile(even, 4, 0.25), 1.75, 1e-12); /* R type 7 */
	/* input untouched */
	assert_true(odd[0] == 5 && odd[1] == 1);
}

static void test_mad(void **state)
{
	double x[] = { 1, 2, 3, 4, 100 };
	NEAR(stats_mad(x, 5), 1, 0);
	NEAR(stats_robust_cv_pct(x, 5), 100 * 1.4826 / 3, 1e-9);
}

/* Exact tail probabilities of the signed-rank statistic, by enumeration. */
static void test_signrank_cdf(void **state)
{
	for (size_t n = 1; n <= 12; n++) {
		size_t max = n * (n + 1) / 2;
		for (long t = -1; t <= (long)max; t++) {
			unsigned long cnt = 0;
			for (unsigned long mask = 0; mask < (1UL << n); mask++) {
				long s = 0;
				for (size_t i = 0; i < n; i++)
					if (mask & (1UL << i))
						s += (long)i + 1;
				if (s <= t)
					cnt++;
			}
			NEAR(stats_signrank_cdf(n, t), (double)cnt / (1UL << n), 1e-12);
		}
	}
	/* n = 9: P(T <= 5) = 10/512, the tail a 95% interval uses */
	NEAR(stats_signrank_cdf(9, 5), 10.0 / 512, 1e-12);
	/* large n stays a probability */
	assert_true(stats_signrank_cdf(60, 915) > 0.45 && stats_signrank_cdf(60, 915) < 0.55);
}

static void test_wilcoxon(void **state)
{
	double allpos[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	double sym[] = { -3, -2, -1, 1, 2, 3 };
	double zeros[] = { 0, 0, 0 };
	NEAR(stats_wilcoxon_p(allpos, 9), 2.0 / 512, 1e-12);
	NEAR(stats_wilcoxon_p(sym, 6), 1, 1e-12);
	NEAR(stats_wilcoxon_p(zeros, 3), 1, 0);
	/* ties use the normal approximation and stay in (0,1] */
	double tied[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	double p = stats_wilcoxon_p(tied, 8);
	assert_true(p > 0 && p < 0.02);
}

static void test_hodges_lehmann(void **state)
{
	double d[] = { 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09 };
	double est, lo, hi, ach;
	assert_int_equal(stats_hodges_lehmann(d, 9, 0.95, &est, &lo, &hi, &ach), 0);
	NEAR(est, 0.05, 1e-12);
	/* k = 6 of 45 Walsh averages: achieved 1 - 20/512 */
	NEAR(ach, 1 - 20.0 / 512, 1e-12);
	assert_true(lo < est && est < hi);
	NEAR(lo, 0.025, 1e-12); /* 6th smallest Walsh average: (0.02+0.03)/2 */
	NEAR(hi, 0.075, 1e-12);
	/* fewer than 6 pairs cannot give a 95% interval */
	assert_int_equal(stats_hodges_lehmann(d, 5, 0.95, &est, &lo, &hi, &ach), -1);
	assert_int_equal(stats_hodges_lehmann(d, 6, 0.95, &est, &lo, &hi, &ach), 0);
	NEAR(lo, 0.01, 1e-12);  /* k = 1: the extremes */
	NEAR(hi, 0.06, 1e-12);
	/* large n: normal approximation, interval shrinks around the centre */
	double big[200];
	for (int i = 0; i < 200; i++)
		big[i] = (i % 2 ? 1 : -1) * (i / 2) * 0.001;
	assert_int_equal(stats_hodges_lehmann(big, 200, 0.95, &est, &lo, &hi, &ach), 0);
	NEAR(est, 0, 1e-9);
	assert_true(lo < 0 && hi > 0 && hi - lo < 0.03);
}

static void test_bootstrap(void **state)
{
	double d[] = { 0.1, 0.12, 0.09, 0.11, 0.1, 0.13, 0.08, 0.1, 0.11 };
	double e1, l1, h1, e2, l2, h2;
	assert_int_equal(stats_bootstrap_median(d, 9, 0.95, 2000, 7, &e1, &l1, &h1), 0);
	assert_int_equal(stats_bootstrap_median(d, 9, 0.95, 2000, 7, &e2, &l2, &h2), 0);
	NEAR(e1, 0.1, 1e-12);
	assert_true(l1 == l2 && h1 == h2); /* deterministic */
	assert_true(l1 >= 0.08 && h1 <= 0.13 && l1 <= e1 && e1 <= h1);
	assert_int_equal(stats_bootstrap_median(d, 1, 0.95, 2000, 7, &e1, &l1, &h1), -1);
}

/* a normal deviate from a fixed sequence (xorshift64, Box-Muller) */
static double normal(uint64_t *x)
{
	double u1, u2;
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	u1 = ((double)(*x >> 11) + 0.5) / 9007199254740992.0;
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	u2 = ((double)(*x >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/*
 * A/A gates simulated: per-pair log ratios of 2% normal noise around 0,
 * and how often the lower end of the 95% interval lies above 0 (a claim
 * of any gain passes: the gate's rule, lower end >= X).  Each interval
 * must keep that one-sided rate at or under 2.5% (2000 trials: SE 0.35%,
 * allowed 3 SE).  The percentile bootstrap of the median alone passed
 * 6.5% at 7 pairs and 3.5% at 15; widened to the sign test's interval it
 * is at most that interval's exact rate (0.8% at 7 pairs).
 */
static void test_aa_claim_rate(void **state)
{
	static const size_t sizes[] = { 7, 6, 15 };
	const int trials = 2000;
	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t x = 0x9e3779b97f4a7c15ull + sizes[s];
		int boot = 0, hl = 0;
		for (int t = 0; t < trials; t++) {
			double d[16], est, lo, hi, ach;
			for (size_t i = 0; i < sizes[s]; i++)
				d[i] = 0.02 * normal(&x);
			assert_int_equal(stats_bootstrap_median(d, sizes[s], 0.95, 1000, (uint64_t)t + 1,
								&est, &lo, &hi), 0);
			boot += lo > 0;
			assert_int_equal(stats_hodges_lehmann(d, sizes[s], 0.95, &est, &lo, &hi, &ach), 0);
			hl += lo > 0;
		}
		print_message("A/A, %zu pairs: a claim passed %.2f%% (bootstrap), %.2f%% "
			      "(Hodges-Lehmann)\n", sizes[s], 100.0 * boot / trials,
			      100.0 * hl / trials);
		assert_true(boot <= 0.025 * trials + 3 * 0.0035 * trials);
		assert_true(hl <= 0.025 * trials + 3 * 0.0035 * trials);
	}
	/* too few pairs for a 95% interval: none, as for Hodges-Lehmann */
	{
		double d[] = { 0.01, 0.02, 0.03, 0.04, 0.05 }, est, lo, hi;
		assert_int_equal(stats_bootstrap_median(d, 5, 0.95, 1000, 7, &est, &lo, &hi), -1);
	}
}

static void test_ratio_ci(void **state)
{
	double a[] = { 100, 102, 98, 101, 99, 100, 103, 97, 100 };
	double b[9];
	struct stats_ratio r;
	for (int i = 0; i < 9; i++)
		b[i] = a[i] * 1.10 * (1 + 0.002 * ((i % 3) - 1));
	stats_ratio_ci(a, b, 9, STATS_CI_HL, 0.95, &r);
	assert_true(r.ok);
	assert_int_equal(r.n, 9);
	NEAR(r.estimate, 1.10, 0.003);
	NEAR(r.median, 1.10, 0.003);
	assert_true(r.lo > 1.09 && r.hi < 1.11);
	assert_true(r.p_two_sided < 0.01);
	assert_true(r.noise_floor_pct > 0 && r.noise_floor_pct < 1);

	/* bad values are skipped; too few left -> no interval */
	double a2[] = { 100, 0, NAN, 100 }, b2[] = { 110, 100, 100, 110 };
	stats_ratio_ci(a2, b2, 4, STATS_CI_HL, 0.95, &r);
	assert_int_equal(r.n, 2);
	assert_false(r.ok);
	NEAR(r.estimate, 1.1, 1e-12);

	/* no interval at the level (3 pairs at 99%), the estimate is still the
	 * Hodges-Lehmann one the tables print beside their interval, not the
	 * median: logs 0, .0953, .4055; Walsh averages 0, .0477, .0953, .2027,
	 * .2504, .4055, whose median is .1490 */
	{
		double a3[] = { 100, 100, 100 }, b3[] = { 100, 110, 150 };
		stats_ratio_ci(a3, b3, 3, STATS_CI_HL, 0.99, &r);
		assert_false(r.ok);
		NEAR(r.median, 1.1, 1e-12);
		NEAR(r.estimate, exp(log(1.1) / 2 + log(1.5) / 4), 1e-12);
		stats_ratio_ci(a3, b3, 3, STATS_CI_HL, 0.5, &r);
		assert_true(r.ok);
		NEAR(r.estimate, exp(log(1.1) / 2 + log(1.5) / 4), 1e-12);
	}

	stats_ratio_ci(a, b, 9, STATS_CI_BOOTSTRAP, 0.95, &r);
	assert_true(r.ok && r.lo <= r.estimate && r.estimate <= r.hi);
	NEAR(r.conf, 0.95, 0);
}

/* Student's t quantile: tables (t_4(0.975) = 2.7764, t_10(0.95) =
 * 1.8125, t_30(0.975) = 2.0423, t_4(0.995) = 4.6041, t_4(0.9975) =
 * 5.5976), the closed forms of 1, 2 and 4 degrees of freedom (4: F(t) =
 * 1/2 + t (t^2 + 6) / (2 (t^2 + 4)^1.5), so t_4(0.99875) = 6.7583, the
 * first Holm step of 20 tests), and the normal limit. */
static void test_t_quantile(void **state)
{
	(void)state;
	assert_true(fabs(stats_t_quantile(0.975, 4) - 2.776445) < 1e-5);
	assert_true(fabs(stats_t_quantile(0.95, 10) - 1.812461) < 1e-5);
	assert_true(fabs(stats_t_quantile(0.975, 30) - 2.042272) < 1e-5);
	assert_true(fabs(stats_t_quantile(0.995, 4) - 4.604095) < 1e-5);
	assert_true(fabs(stats_t_quantile(0.9975, 4) - 5.597568) < 1e-5);
	{
		double t = stats_t_quantile(0.99875, 4);
		assert_true(fabs(0.5 + t * (t * t + 6) / (2 * pow(t * t + 4, 1.5)) - 0.99875) < 1e-9);
		assert_true(fabs(t - 6.7583) < 1e-3);
	}
	assert_true(fabs(stats_t_quantile(0.9, 1) - tan(M_PI * 0.4)) < 1e-9);
	assert_true(fabs(stats_t_quantile(0.99, 2) - 0.98 / sqrt(2 * 0.99 * 0.01)) < 1e-9);
	assert_true(fabs(stats_t_quantile(0.025, 4) + 2.776445) < 1e-5);
	assert_true(fabs(stats_t_cdf(2.776445, 4) - 0.975) < 1e-7);
	assert_true(fabs(stats_t_quantile(0.975, 1e6) - 1.959966) < 1e-5);
	assert_true(isnan(stats_t_quantile(1, 4)) && isnan(stats_t_quantile(0.5, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_quantile),
		cmocka_unit_test(test_mad),
		cmocka_unit_test(test_signrank_cdf),
		cmocka_unit_test(test_wilcoxon),
		cmocka_unit_test(test_hodges_lehmann),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_aa_claim_rate),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_t_quantile),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
