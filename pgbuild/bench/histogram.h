/*
 * histogram.h - a fixed-memory, log-bucketed latency histogram (after
 * HdrHistogram), in int64 microseconds.
 *
 * Values 0..127 have a bucket each; above, every power of two is split into
 * 64 linear sub-buckets, so any quantile is reported within 1/128 (0.8%) of
 * the true value, while count, min, max, sum and sum of squares are exact.
 * Values above 2^40 us (12 days) share the last bucket (max stays exact).
 * One histogram is about 18 KB and never allocates: bench keeps one per
 * thread (no locks) and merges them after the threads are joined.
 */
#ifndef PGBUILD_HISTOGRAM_H
#define PGBUILD_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS   6                          /* 64 sub-buckets per octave */
#define HIST_SUB        (1 << HIST_SUB_BITS)
#define HIST_MAX_EXP    40                         /* values up to 2^40 us */
#define HIST_BUCKETS    (2 * HIST_SUB + (HIST_MAX_EXP - HIST_SUB_BITS - 1) * HIST_SUB + 1)

struct histogram {
	int64_t count;   /* values recorded */
	int64_t min;     /* smallest value (INT64_MAX when empty) */
	int64_t max;     /* largest value (0 when empty) */
	int64_t sum;     /* sum of values */
	double sum2;     /* sum of squares, for the standard deviation */
	int64_t buckets[HIST_BUCKETS]; /* counts per bucket */
};

void hist_init(struct histogram *h);
/* Record one value (negative values count as 0). */
void hist_record(struct histogram *h, int64_t us);
/* dst += src */
void hist_merge(struct histogram *dst, const struct histogram *src);
/* Value at quantile q (0..1): the smallest bucket value with at least
 * ceil(q*count) values at or below it, clamped to [min, max]; 0 when empty. */
int64_t hist_quantile(const struct histogram *h, double q);
double hist_mean(const struct histogram *h);
/* Population standard deviation (like pgbench's); 0 with < 2 values. */
double hist_stddev(const struct histogram *h);

/* Bucket arithmetic, exposed for the unit tests. */
int hist_bucket_of(int64_t us);
int64_t hist_bucket_low(int b);   /* smallest value in bucket b */
int64_t hist_bucket_high(int b);  /* largest value in bucket b */

#endif
