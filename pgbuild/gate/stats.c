/*
 * stats.c - medians, signed-rank tests, Hodges-Lehmann and bootstrap
 * intervals for paired A/B measurements; see stats.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/stats.h"
#include "wrapper/common/xalloc.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc(sizeof(*s) * (n ? n : 1));
	if (n)
		memcpy(s, x, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	if (!n)
		return NAN;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stats_median(const double *x, size_t n)
{
	double *s = sorted_copy(x, n);
	double m = median_sorted(s, n);
	free(s);
	return m;
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, h, v;
	size_t lo;
	if (!n)
		return NAN;
	s = sorted_copy(x, n);
	if (q <= 0)
		q = 0;
	if (q >= 1)
		q = 1;
	h = (double)(n - 1) * q;
	lo = (size_t)floor(h);
	v = lo + 1 < n ? s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]) : s[lo];
	free(s);
	return v;
}

double stats_mad(const double *x, size_t n)
{
	double m, *dev, r;
	if (!n)
		return NAN;
	m = stats_median(x, n);
	dev = xmalloc(sizeof(*dev) * n);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(x[i] - m);
	r = stats_median(dev, n);
	free(dev);
	return r;
}

double stats_robust_cv_pct(const double *x, size_t n)
{
	double m = stats_median(x, n);
	if (!n || m == 0)
		return NAN;
	return 100.0 * 1.4826 * stats_mad(x, n) / fabs(m);
}

/*
 * counts[s] = number of subsets of {1..n} summing to s, divided by 2^n
 * (kept as probabilities so that n = 60 does not overflow).
 */
static double *signrank_pmf(size_t n)
{
	size_t max = n * (n + 1) / 2;
	double *p = xcalloc(max + 1, sizeof(*p));
	p[0] = 1;
	for (size_t k = 1; k <= n; k++) {
		size_t top = k * (k + 1) / 2;
		for (size_t s = top; ; s--) {
			double with = s >= k ? p[s - k] : 0;
			p[s] = (p[s] + with) / 2;
			if (s == 0)
				break;
		}
		/* sums above `top` stay 0 */
	}
	return p;
}

double stats_signrank_cdf(size_t n, long t)
{
	size_t max = n * (n + 1) / 2;
	double *p, c = 0;
	if (t < 0)
		return 0;
	if ((size_t)t >= max)
		return 1;
	p = signrank_pmf(n);
	for (long s = 0; s <= t; s++)
		c += p[s];
	free(p);
	return c > 1 ? 1 : c;
}

/* Standard normal upper tail. */
static double norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/* z with norm_sf(z) == p, by bisection (p in (0, 0.5]). */
static double norm_isf(double p)
{
	double lo = 0, hi = 40;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (norm_sf(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

struct ranked {
	double abs;  /* |d| */
	int pos;     /* d > 0 */
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	return (a->abs > b->abs) - (a->abs < b->abs);
}

double stats_wilcoxon_p(const double *d, size_t n)
{
	struct ranked *r = xmalloc(sizeof(*r) * (n ? n : 1));
	size_t m = 0, i = 0;
	double tplus = 0, tie_term = 0, p;
	int ties = 0;

	for (size_t k = 0; k < n; k++) {
		if (d[k] == 0 || !isfinite(d[k]))
			continue;
		r[m].abs = fabs(d[k]);
		r[m].pos = d[k] > 0;
		m++;
	}
	if (!m) {
		free(r);
		return 1;
	}
	qsort(r, m, sizeof(*r), cmp_ranked);
	while (i < m) {
		size_t j = i;
		double rank;
		while (j + 1 < m && r[j + 1].abs == r[i].abs)
			j++;
		rank = (double)(i + j + 2) / 2; /* mid-rank of 1-based i+1..j+1 */
		if (j > i) {
			double t = (double)(j - i + 1);
			ties = 1;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k <= j; k++)
			if (r[k].pos)
				tplus += rank;
		i = j + 1;
	}
	free(r);

	if (!ties && m <= STATS_EXACT_MAX) {
		long t = lround(tplus);
		double lower = stats_signrank_cdf(m, t);
		double upper = 1 - stats_signrank_cdf(m, t - 1);
		p = 2 * (lower < upper ? lower : upper);
	} else {
		double mean = (double)m * (m + 1) / 4;
		double var = (double)m * (m + 1) * (2 * m + 1) / 24 - tie_term / 48;
		double z = (fabs(tplus - mean) - 0.5) / sqrt(var);
		if (z < 0)
			z = 0;
		p = 2 * norm_sf(z);
	}
	return p > 1 ? 1 : p;
}

int stats_hodges_lehmann(const double *d, size_t n, double conf,
			 double *est, double *lo, double *hi, double *achieved)
{
	size_t m = n * (n + 1) / 2, w = 0, k;
	double alpha = 1 - conf, *walsh;

	if (n == 0)
		return -1;
	if (n <= STATS_EXACT_MAX) {
		double *p = signrank_pmf(n), c = 0;
		/* largest k with P(T+ <= k-1) <= alpha/2 */
		k = 0;
		for (size_t t = 0; t < m; t++) {
			if (c + p[t] > alpha / 2 + 1e-12)
				break;
			c += p[t];
			k = t + 1;
		}
		free(p);
		*achieved = k > 0 ? 1 - 2 * c : 0;
	} else {
		double z = norm_isf(alpha / 2);
		double sd = sqrt((double)n * (n + 1) * (2 * n + 1) / 24);
		double kk = floor((double)m / 2 - z * sd);
		k = kk < 1 ? 1 : (size_t)kk;
		*achieved = conf;
	}

	walsh = xmalloc(sizeof(*walsh) * m);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			walsh[w++] = (d[i] + d[j]) / 2;
	qsort(walsh, m, sizeof(*walsh), cmp_double);
	*est = median_sorted(walsh, m);
	if (k > 0) {
		*lo = walsh[k - 1];
		*hi = walsh[m - k];
	}
	free(walsh);
	return k > 0 ? 0 : -1;
}

/* xorshift64*: small, fast, and identical everywhere. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/*
 * The sign test's distribution-free interval for the median of n values:
 * [x_(k), x_(n+1-k)] with k the largest such that P(Bin(n, 1/2) <= k - 1)
 * <= (1 - conf) / 2.  Returns k, 0 when n is too small for any.
 */
static size_t sign_interval_rank(size_t n, double conf)
{
	double tail = (1 - conf) / 2, c = 0;
	size_t k = 0;
	for (size_t j = 0; j <= n; j++) {
		double p = exp(lgamma((double)n + 1) - lgamma((double)j + 1) -
			       lgamma((double)(n - j) + 1) - (double)n * M_LN2);
		if (c + p > tail + 1e-12)
			break;
		c += p;
		k = j + 1;
	}
	return k;
}

int stats_bootstrap_median(const double *d, size_t n, double conf,
			   unsigned rounds, uint64_t seed,
			   double *est, double *lo, double *hi)
{
	double *meds, *sample, *sorted;
	uint64_t s = seed ? seed : UINT64_C(0x9e3779b97f4a7c15);
	size_t k = sign_interval_rank(n, conf);
	if (n < 2 || rounds < 10 || k == 0)
		return -1;
	meds = xmalloc(sizeof(*meds) * rounds);
	sample = xmalloc(sizeof(*sample) * n);
	for (unsigned r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n; i++)
			sample[i] = d[rng_next(&s) % n];
		qsort(sample, n, sizeof(*sample), cmp_double);
		meds[r] = median_sorted(sample, n);
	}
	*est = stats_median(d, n);
	*lo = stats_quantile(meds, rounds, (1 - conf) / 2);
	*hi = stats_quantile(meds, rounds, 1 - (1 - conf) / 2);
	/* never narrower than the sign test's exact interval: the percentile
	 * bootstrap of a median undercovers with few pairs (one-sided 6.5%
	 * instead of 2.5% at 7 pairs, 3-3.7% up to 30; test-gate-stats) */
	sorted = sorted_copy(d, n);
	*lo = fmin(*lo, sorted[k - 1]);
	*hi = fmax(*hi, sorted[n - k]);
	free(sorted);
	free(sample);
	free(meds);
	return 0;
}

void stats_ratio_ci(const double *a, const double *b, size_t n,
		    enum stats_ci_method method, double conf,
		    struct stats_ratio *out)
{
	double *d = xmalloc(sizeof(*d) * (n ? n : 1));
	double est = NAN, lo = NAN, hi = NAN, achieved = conf;
	size_t m = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (!(isfinite(a[i]) && isfinite(b[i]) && a[i] > 0 && b[i] > 0))
			continue;
		d[m++] = log(b[i] / a[i]);
	}
	out->n = m;
	out->median = m ? exp(stats_median(d, m)) : NAN;
	out->p_two_sided = stats_wilcoxon_p(d, m);
	out->spread_pct = m >= 2 ? 100.0 * 1.4826 * stats_mad(d, m) : NAN;

	if (method == STATS_CI_BOOTSTRAP)
		rc = stats_bootstrap_median(d, m, conf, 10000, 42, &est, &lo, &hi);
	else
		rc = stats_hodges_lehmann(d, m, conf, &est, &lo, &hi, &achieved);
	if (rc == 0) {
		out->ok = 1;
		out->estimate = exp(est);
		out->lo = exp(lo);
		out->hi = exp(hi);
		out->conf = achieved;
		out->noise_floor_pct = 100.0 * (exp((hi - lo) / 2) - 1);
	} else {
		/* no interval at this level: the Hodges-Lehmann estimate still
		 * (the tables' figure), the median only for the bootstrap */
		out->estimate = method != STATS_CI_BOOTSTRAP && isfinite(est) ? exp(est)
									  : out->median;
		out->lo = out->hi = NAN;
		out->conf = 0;
		out->noise_floor_pct = NAN;
	}
	free(d);
}

/*
 * The regularized lower incomplete gamma function P(a, x): its series for
 * x < a + 1, else 1 - the continued fraction of Q (Numerical Recipes'
 * gser/gcf, Lentz's method), each to double precision.
 */
static double gamma_p(double a, double x)
{
	double lg = lgamma(a), sum, term, b, c, d, h;
	if (!(x > 0))
		return 0;
	if (x < a + 1) {
		sum = term = 1 / a;
		for (int n = 1; n < 1000 && fabs(term) > fabs(sum) * 1e-16; n++) {
			term *= x / (a + n);
			sum += term;
		}
		return sum * exp(-x + a * log(x) - lg);
	}
	b = x + 1 - a;
	c = 1 / 1e-300;
	d = 1 / b;
	h = d;
	for (int i = 1; i < 1000; i++) {
		double an = -i * (i - a), del;
		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return 1 - exp(-x + a * log(x) - lg) * h;
}

double stats_chi2_cdf(double x, double df)
{
	return gamma_p(df / 2, x / 2);
}

/* The x in [lo, hi] where the increasing cdf(x, df) reaches p, by
 * bisection (the bracket must hold it). */
static double bisect_quantile(double (*cdf)(double, double), double p, double df,
			      double lo, double hi, int steps)
{
	for (int i = 0; i < steps; i++) {
		double mid = (lo + hi) / 2;
		if (cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_chi2_quantile(double p, double df)
{
	if (!(p > 0 && p < 1 && df > 0))
		return NAN;
	return bisect_quantile(stats_chi2_cdf, p, df, 0, df + 10 * sqrt(2 * df) + 100, 300);
}

/*
 * The regularized incomplete beta function I_x(a, b): the continued
 * fraction (Numerical Recipes' betacf, Lentz's method) on the side where
 * it converges fast, by I_x(a, b) = 1 - I_{1-x}(b, a) on the other.
 */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	if (fabs(d) < 1e-300)
		d = 1e-300;
	d = 1 / d;
	h = d;
	for (int m = 1; m < 1000; m++) {
		double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), del;
		d = 1 + aa * d;
		d = fabs(d) < 1e-300 ? 1e300 : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		d = fabs(d) < 1e-300 ? 1e300 : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return h;
}

static double beta_inc(double a, double b, double x)
{
	double front;
	if (!(x > 0))
		return 0;
	if (!(x < 1))
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;
	if (!(df > 0) || isnan(t))
		return NAN;
	tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;
	if (!(p > 0 && p < 1 && df > 0))
		return NAN;
	while (stats_t_cdf(lo, df) > p)
		lo *= 2;
	while (stats_t_cdf(hi, df) < p)
		hi *= 2;
	return bisect_quantile(stats_t_cdf, p, df, lo, hi, 200);
}

double stats_sd_upper_factor(double df, double level)
{
	if (!(df >= 1) || !(level > 0 && level < 1))
		return NAN;
	return sqrt(df / stats_chi2_quantile(1 - level, df));
}

double stats_norm_quantile(double p)
{
	if (!(p > 0 && p < 1))
		return NAN;
	return p >= 0.5 ? norm_isf(1 - p) : -norm_isf(p);
}

const char *stats_method_name(enum stats_ci_method method)
{
	return method == STATS_CI_BOOTSTRAP ?
		"median with percentile bootstrap interval (10000 resamples)" :
		"Hodges-Lehmann estimate with Wilcoxon signed-rank interval";
}
