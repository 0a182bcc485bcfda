/*
 * sequential.c - the confidence sequence of `pgbuild gate --pairs auto`;
 * the method, its assumption and its references are in sequential.h.
 * Pure arithmetic: tests/unit/test-gate-sequential.c checks its coverage
 * by simulation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/sequential.h"
#include "wrapper/common/xalloc.h"

/* The likelihood ratios of the sign test's two alternatives, p and 1 - p. */
#define SEQ_SIGN_P 0.9

/* An interval [lo, hi]; empty when lo > hi. */
struct seq_iv {
	double lo, hi;
};

static struct seq_iv iv_meet(struct seq_iv a, struct seq_iv b)
{
	struct seq_iv r = { fmax(a.lo, b.lo), fmin(a.hi, b.hi) };
	return r;
}

/*
 * The sign of h(w) = w ln(w / (rho a^2)) - t (w - w0) at w = e^u, divided
 * by w so that it never overflows: (u - lc - t) + t w0 e^-u.
 */
static double mixture_h(double u, double lc, double t, double w0)
{
	return (u - lc - t) + t * w0 * exp(-u);
}

/* The root of mixture_h between ua (sign sa) and ub, by bisection. */
static double mixture_root(double ua, double ub, double lc, double t, double w0)
{
	double sa = mixture_h(ua, lc, t, w0);
	for (int i = 0; i < 200; i++) {
		double um = (ua + ub) / 2, sm = mixture_h(um, lc, t, w0);
		if ((sm > 0) == (sa > 0)) {
			ua = um;
			sa = sm;
		} else {
			ub = um;
		}
	}
	return (ua + ub) / 2;
}

/*
 * The normal-mixture set after t pairs with mean m and sum of squares q
 * around it.  Writing w = V(mu) + rho = q + rho + t (mu - m)^2, mu is in
 * the set when h(w) > 0; h is convex with h(q + rho) > 0, so the set is
 * |mu - m| < d1 (inner) or |mu - m| > d2 (far, INFINITY when out of
 * reach).  Returns 0 when the set is the whole line.
 */
static int mixture_set(double t, double q, double rho, double alpha, double *d1, double *d2)
{
	double w0 = q + rho, lc = log(rho * alpha * alpha);
	double ustar = lc + t - 1, u1, u2;

	if (ustar <= log(w0) || mixture_h(ustar, lc, t, w0) >= 0)
		return 0;
	u1 = mixture_root(log(w0), ustar, lc, t, w0);
	u2 = mixture_root(ustar, lc + t + 1, lc, t, w0);
	*d1 = sqrt(fmax(exp(u1) - w0, 0) / t);
	*d2 = u2 > 700 ? INFINITY : sqrt(fmax(exp(u2) - w0, 0) / t);
	return 1;
}

/* ln of the sign test's martingale with k of t pairs below mu. */
static double sign_log_m(size_t t, size_t k)
{
	double lp = log(2 * SEQ_SIGN_P), lq = log(2 * (1 - SEQ_SIGN_P));
	double a = (double)(t - k) * lp + (double)k * lq;
	double b = (double)(t - k) * lq + (double)k * lp;
	double hi = fmax(a, b);
	return hi + log(exp(a - hi) + exp(b - hi)) - log(2);
}

/* The sign test's CS over the sorted x[0..t): between order statistics. */
static struct seq_iv sign_set(const double *x, size_t t, double alpha)
{
	struct seq_iv r = { -INFINITY, INFINITY };
	double limit = log(1 / alpha);
	size_t lo = 0, hi = t;
	while (lo <= t && sign_log_m(t, lo) >= limit)
		lo++;
	while (hi > lo && sign_log_m(t, hi) >= limit)
		hi--;
	if (lo > 0)
		r.lo = x[lo - 1];
	if (hi < t)
		r.hi = x[hi];
	return r;
}

/* The hull of the mixture set (centre m) within the sign test's set s. */
static struct seq_iv hull(double m, int bounded, double d1, double d2, struct seq_iv s)
{
	struct seq_iv piece[3], r = { INFINITY, -INFINITY };
	int np = 0;
	if (!bounded)
		return s;
	piece[np++] = (struct seq_iv){ m - d1, m + d1 };
	if (isfinite(d2)) {
		piece[np++] = (struct seq_iv){ -INFINITY, m - d2 };
		piece[np++] = (struct seq_iv){ m + d2, INFINITY };
	}
	for (int i = 0; i < np; i++) {
		struct seq_iv p = iv_meet(piece[i], s);
		if (p.lo > p.hi)
			continue;
		r.lo = fmin(r.lo, p.lo);
		r.hi = fmax(r.hi, p.hi);
	}
	return r;
}

/* Insert v into the sorted x[0..n). */
static void sorted_insert(double *x, size_t n, double v)
{
	size_t i = n;
	while (i > 0 && x[i - 1] > v) {
		x[i] = x[i - 1];
		i--;
	}
	x[i] = v;
}

int seq_cs_compute(const double *d, size_t n, double alpha, double rho, struct seq_cs *out)
{
	struct seq_iv run = { -INFINITY, INFINITY };
	double *sorted, mean = 0, q = 0;
	double a1 = alpha * (1 - SEQ_SIGN_SHARE), a2 = alpha * SEQ_SIGN_SHARE;
	size_t t = 0;

	if (!(alpha > 0 && alpha < 1) || !(rho > 0) || !isfinite(rho))
		return -1;
	memset(out, 0, sizeof(*out));
	sorted = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		double d1 = 0, d2 = 0, delta;
		struct seq_iv h, next;
		int bounded;
		if (!isfinite(d[i]))
			continue;
		/* Welford: the mean and the sum of squares around it */
		t++;
		delta = d[i] - mean;
		mean += delta / (double)t;
		q += delta * (d[i] - mean);
		sorted_insert(sorted, t - 1, d[i]);
		if (out->inconsistent)
			continue;       /* the estimate goes on; the sequence ended */
		bounded = mixture_set((double)t, q, rho, a1, &d1, &d2);
		h = hull(mean, bounded, d1, d2, sign_set(sorted, t, a2));
		next = iv_meet(run, h);
		/* empty only off the event the CS covers, or when the pairs break
		 * its assumption: the sequence ends inconsistent, it never keeps
		 * the old interval and goes on */
		if (h.lo > h.hi || next.lo > next.hi) {
			out->inconsistent = 1;
			out->at = t;
			out->at_lo = h.lo;
			out->at_hi = h.hi;
			continue;
		}
		run = next;
	}
	free(sorted);
	out->n = t;
	out->mean = t ? mean : NAN;
	out->lo = run.lo;
	out->hi = run.hi;
	out->alpha = alpha;
	return 0;
}

size_t seq_min_pairs(double alpha)
{
	double limit;
	size_t t = 1;
	if (!(alpha > 0 && alpha < 1))
		return 0;
	limit = log(1 / (alpha * SEQ_SIGN_SHARE));
	/* the sign set's ends move in from infinity once no pair below (or
	 * above) mu is already enough evidence; it is the same on both sides */
	while (sign_log_m(t, 0) < limit)
		t++;
	return t;
}

enum seq_decision seq_decide(const struct seq_cs *cs, double x, int lower_better)
{
	if (cs->inconsistent)
		return SEQ_INCONSISTENT;
	if (lower_better) {
		if (cs->hi <= x)
			return SEQ_PASS;
		return cs->lo > x ? SEQ_FAIL : SEQ_CONTINUE;
	}
	if (cs->lo >= x)
		return SEQ_PASS;
	return cs->hi < x ? SEQ_FAIL : SEQ_CONTINUE;
}
