/*
 * stats.h - the statistics behind `pgbuild gate`: medians, per-pair ratios,
 * confidence intervals and the noise floor.
 *
 * A gate measures A and B interleaved in pairs (A B, B A, A B, ...), so the
 * unit of evidence is one pair: r_i = B_i / A_i.  Ratios are analysed on the
 * log scale (d_i = ln r_i), where "B is 5% faster" and "A is 5% faster" are
 * symmetric, and results are reported back as ratios.
 *
 * Two interval methods, both distribution-free:
 *   STATS_CI_HL         Hodges-Lehmann estimate (median of the Walsh
 *                       averages (d_i + d_j) / 2, i <= j) with the
 *                       confidence interval inverted from the exact
 *                       Wilcoxon signed-rank distribution (normal
 *                       approximation above STATS_EXACT_MAX pairs).  The
 *                       default: exact coverage for symmetric noise, and it
 *                       says honestly when there are too few pairs (a 95%
 *                       interval needs at least 6).
 *   STATS_CI_BOOTSTRAP  the median of d_i with a percentile bootstrap
 *                       interval (fixed seed, so reruns agree), widened
 *                       to at least the sign test's exact interval for
 *                       the median: the percentile bootstrap alone
 *                       undercovers with few pairs (a claim passed 6.5%
 *                       of A/A gates at 7 pairs, not 2.5%); none below 6
 *                       pairs at 95%, as for Hodges-Lehmann.
 *
 * Noise floor: the half-width of the interval, in percent - the smallest
 * difference this many pairs at this spread can resolve.  The spread itself
 * is reported as the robust standard deviation of d_i (1.4826 * MAD).
 */
#ifndef PGBUILD_STATS_H
#define PGBUILD_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_EXACT_MAX 60 /* exact signed-rank distribution up to this n */

enum stats_ci_method {
	STATS_CI_HL,        /* Hodges-Lehmann + Wilcoxon signed-rank */
	STATS_CI_BOOTSTRAP, /* median + percentile bootstrap */
};

/* Result of stats_ratio_ci(); all ratios are B/A on the linear scale. */
struct stats_ratio {
	size_t n;              /* pairs used */
	double median;         /* plain median of the per-pair ratios */
	double estimate;       /* the method's point estimate */
	double lo, hi;         /* confidence interval of the estimate */
	double conf;           /* confidence achieved (exact methods may exceed the asked level) */
	double p_two_sided;    /* Wilcoxon signed-rank test of "ratio == 1" */
	double spread_pct;     /* robust sd of the log ratios, in percent */
	double noise_floor_pct;/* half-width of the interval, in percent */
	int ok;                /* 0 when no interval could be computed (too few pairs) */
};

/* Median of x[0..n) (x is not modified); NAN when n == 0. */
double stats_median(const double *x, size_t n);
/* Linear-interpolation quantile (type 7, like R's default), q in [0,1]. */
double stats_quantile(const double *x, size_t n, double q);
/* Median absolute deviation from the median (unscaled). */
double stats_mad(const double *x, size_t n);
/* Robust coefficient of variation in percent: 1.4826 * MAD / median. */
double stats_robust_cv_pct(const double *x, size_t n);

/*
 * Number of the 2^n sign assignments whose signed-rank sum T+ <= t, divided
 * by 2^n: the exact lower tail of the Wilcoxon signed-rank statistic without
 * ties.  n <= STATS_EXACT_MAX.
 */
double stats_signrank_cdf(size_t n, long t);

/*
 * Wilcoxon signed-rank test of the median of d[0..n) against 0.  Zeros are
 * dropped, ties get mid-ranks; exact when there are no ties and n is small,
 * else the normal approximation with tie correction.  Returns the two-sided
 * p-value (1 when nothing is left).
 */
double stats_wilcoxon_p(const double *d, size_t n);

/*
 * Hodges-Lehmann estimate and signed-rank confidence interval of the centre
 * of d[0..n), at confidence level conf (e.g. 0.95).  Returns 0 and fills
 * est/lo/hi/achieved, or -1 when n is too small for that level (est still
 * the estimate when n > 0: it does not depend on the level).
 */
int stats_hodges_lehmann(const double *d, size_t n, double conf,
			 double *est, double *lo, double *hi, double *achieved);

/*
 * Percentile bootstrap interval of the median of d[0..n): `rounds`
 * resamples with a deterministic generator seeded by seed, widened to
 * contain the sign test's distribution-free interval [x_(k), x_(n+1-k)]
 * at conf, so it covers at least as often as that one does.  Returns -1
 * when n has no such interval at conf (n < 6 at 95%).
 */
int stats_bootstrap_median(const double *d, size_t n, double conf,
			   unsigned rounds, uint64_t seed,
			   double *est, double *lo, double *hi);

/*
 * The whole analysis of paired measurements a[i] (baseline) and b[i]
 * (candidate), all > 0: ratio b/a per pair, estimate, interval, p-value,
 * spread and noise floor.  Pairs where either value is not a positive
 * finite number are skipped.
 */
void stats_ratio_ci(const double *a, const double *b, size_t n,
		    enum stats_ci_method method, double conf,
		    struct stats_ratio *out);

/*
 * The chi-square distribution with df degrees of freedom: P(X <= x), and
 * the x with P(X <= x) = p (bisection; NAN when p is not in (0, 1)).
 */
double stats_chi2_cdf(double x, double df);
double stats_chi2_quantile(double p, double df);
/*
 * The one-sided upper confidence bound of a normal SD estimated with df
 * degrees of freedom, as a factor of the estimate: the true SD is below
 * s * sqrt(df / chi2_{1-level}(df)) with probability level (df = n - 1
 * for n values; 5 values at 95%: 2.372).
 */
double stats_sd_upper_factor(double df, double level);
/*
 * Student's t distribution with df degrees of freedom: P(T <= t) (the
 * regularized incomplete beta), and the t with P(T <= t) = p (bisection;
 * NAN when p is not in (0, 1)): t_4(0.975) = 2.776.
 */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);
/* The standard normal quantile: z with P(Z <= z) = p (0.975: 1.960). */
double stats_norm_quantile(double p);

/* "Hodges-Lehmann + Wilcoxon signed-rank" or "bootstrap median". */
const char *stats_method_name(enum stats_ci_method method);

#endif
