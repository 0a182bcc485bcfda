/*
 * sequential.h - an anytime-valid confidence sequence for the centre of the
 * per-pair log ratios d_i = ln(B_i / A_i), behind `pgbuild gate --pairs
 * auto`.
 *
 * A fixed-sample interval recomputed after every pair is not valid: looking
 * until it excludes the threshold passes an A/A gate far more often than
 * 1 - conf says.  A confidence sequence (CS) is a sequence of intervals
 * that contain the true centre mu at every n simultaneously with
 * probability >= 1 - alpha, so the gate may stop whenever it likes.
 *
 * The assumption is the one the fixed gate's Hodges-Lehmann / signed-rank
 * interval makes already: given the pairs before it, each d_i is symmetric
 * about mu (interleaved A B / B A pairs, noise that favours neither build),
 * with a continuous distribution.  No variance, bound or normality is
 * assumed; the noise may change from pair to pair (a busy machine).
 *
 * The CS is the intersection of two, at alpha1 = 0.8 alpha and
 * alpha2 = 0.2 alpha (a union bound):
 *
 *  1. A self-normalised normal-mixture CS.  For Y_i = d_i - mu conditionally
 *     symmetric, exp(lambda S - lambda^2 V / 2) with S = sum Y_i and
 *     V = sum Y_i^2 is a supermartingale for every lambda (de la Pena 1999;
 *     Howard, Ramdas, McAuliffe & Sekhon 2020, "Time-uniform Chernoff
 *     bounds via nonnegative supermartingales", Probability Surveys 17,
 *     Fact 1 and Table 3).  Mixing lambda over N(0, 1/rho) gives Robbins'
 *     normal mixture (Robbins 1970, "Statistical methods related to the law
 *     of the iterated logarithm"; Howard, Ramdas, McAuliffe & Sekhon 2021,
 *     "Time-uniform, nonparametric, nonasymptotic confidence sequences",
 *     Annals of Statistics 49(2), the two-sided normal-mixture boundary):
 *     by Ville's inequality, with probability >= 1 - alpha1, for every n,
 *         S_n(mu)^2 < (V_n(mu) + rho) ln((V_n(mu) + rho) / (rho alpha1^2)).
 *     The set of mu satisfying it is an inner interval around the mean of
 *     d plus a far region (mu so far away that every d_i lies on one side:
 *     the self-normalised sum cannot tell such mu apart).
 *  2. A time-uniform sign test, which removes the far region: with k of n
 *     pairs below mu, the mixture of the likelihood ratios of p = 0.9 and
 *     p = 0.1 against 1/2, (1.8^(n-k) 0.2^k + 0.2^(n-k) 1.8^k) / 2, is a
 *     test martingale at the true median (= mu), so the mu where it stays
 *     below 1 / alpha2 form a CS: an interval between order statistics.
 *
 * The set at each n is replaced by its hull (a superset, still valid) and
 * intersected with those of every earlier n (the running intersection of a
 * CS is a CS), so the lower end never falls and the upper end never rises.
 * An empty intersection happens only off the event the CS covers (or when
 * the assumption fails: a drift, a change mid-run): the sequence then ends
 * there as inconsistent, with both intervals, and never decides; it does
 * not keep the old interval and go on (which let an observed 1.09 pass
 * tps>=1.20 on a stale [1.219, 1.220]).
 *
 * The sign test bounds nothing before seq_min_pairs(alpha) pairs (10 at
 * 95%, whatever the data: 1.8^n / 2 must reach 1 / (0.2 alpha)), and the
 * mixture alone leaves its far region, so no decision is possible before
 * then; the gate prints that number before --pairs auto starts and refuses
 * a budget too short for it.
 * rho, fixed before any data, only moves where the CS is tightest:
 * SEQ_RHO = 10 * 0.02^2 suits a per-pair spread of about 2% over 10 pairs.
 */
#ifndef PGBUILD_GATE_SEQUENTIAL_H
#define PGBUILD_GATE_SEQUENTIAL_H

#include <stddef.h>

#define SEQ_RHO 0.004          /* mixture variance, (log ratio)^2 */
#define SEQ_SIGN_SHARE 0.2     /* the share of alpha given to the sign test */
#define SEQ_METHOD "confidence sequence: self-normalised normal mixture (Robbins 1970; " \
	"de la Pena 1999; Howard, Ramdas, McAuliffe & Sekhon 2020, 2021) intersected " \
	"with a time-uniform sign test, symmetric per-pair log ratios"

/* A confidence sequence after n pairs, on the log scale. */
struct seq_cs {
	size_t n;          /* pairs used (finite d_i) */
	double mean;       /* mean of the d_i: the estimate of mu */
	double lo, hi;     /* the running CS for mu; -INFINITY / INFINITY when
			      nothing is excluded on that side yet */
	double alpha;      /* 1 - confidence, as asked */
	int inconsistent;  /* the interval of pair `at` missed the running one:
			      the sequence ended there (lo, hi: the running
			      interval before it) */
	size_t at;         /* that pair (counting finite d_i from 1) */
	double at_lo, at_hi; /* its interval (lo > hi: empty in itself) */
};

/*
 * The CS of d[0..n) at level 1 - alpha, the running intersection over
 * every prefix.  Non-finite d_i are skipped.  0, or -1 when alpha is not in
 * (0, 1) or rho <= 0 (out untouched).  n == 0 gives the whole line.
 */
int seq_cs_compute(const double *d, size_t n, double alpha, double rho, struct seq_cs *out);

/*
 * The fewest pairs at which the CS at level 1 - alpha can be bounded on
 * both sides (before it, it is the whole line whatever the data); 0 when
 * alpha is not in (0, 1).
 */
size_t seq_min_pairs(double alpha);

enum seq_decision {
	SEQ_CONTINUE,     /* the CS still contains the threshold */
	SEQ_PASS,         /* the whole CS is on the good side */
	SEQ_FAIL,         /* the whole CS is on the bad side */
	SEQ_INCONSISTENT, /* the CS ended inconsistent: never decides */
};

/*
 * The rule of every gate threshold: "mu >= x" (lower_better 0) passes when
 * the lower end reaches x and fails when the upper end is below it;
 * "mu <= x" (lower_better 1) the other way round.  x on the log scale.
 * An inconsistent CS is SEQ_INCONSISTENT whatever x.
 */
enum seq_decision seq_decide(const struct seq_cs *cs, double x, int lower_better);

#endif
