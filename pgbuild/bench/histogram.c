/*
 * histogram.c - log-bucketed latency histogram; see histogram.h.
 */
#include <math.h>
#include <string.h>

#include "pgbuild/bench/histogram.h"

void hist_init(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
}

int hist_bucket_of(int64_t v)
{
	int e;
	if (v < 0)
		v = 0;
	if (v < 2 * HIST_SUB)
		return (int)v;
	e = 63 - __builtin_clzll((unsigned long long)v);   /* floor(log2 v) >= 7 */
	if (e >= HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	/* octave e holds [2^e, 2^(e+1)) in HIST_SUB steps of 2^(e-SUB_BITS) */
	return 2 * HIST_SUB + (e - HIST_SUB_BITS - 1) * HIST_SUB +
	       (int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

int64_t hist_bucket_low(int b)
{
	int e, sub;
	if (b < 2 * HIST_SUB)
		return b;
	e = (b - 2 * HIST_SUB) / HIST_SUB + HIST_SUB_BITS + 1;
	sub = (b - 2 * HIST_SUB) % HIST_SUB;
	return ((int64_t)1 << e) + ((int64_t)sub << (e - HIST_SUB_BITS));
}

int64_t hist_bucket_high(int b)
{
	if (b >= HIST_BUCKETS - 1)
		return INT64_MAX;
	return hist_bucket_low(b + 1) - 1;
}

void hist_record(struct histogram *h, int64_t us)
{
	if (us < 0)
		us = 0;
	h->count++;
	h->sum += us;
	h->sum2 += (double)us * (double)us;
	if (us < h->min)
		h->min = us;
	if (us > h->max)
		h->max = us;
	h->buckets[hist_bucket_of(us)]++;
}

void hist_merge(struct histogram *dst, const struct histogram *src)
{
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sum2 += src->sum2;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (int i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

int64_t hist_quantile(const struct histogram *h, double q)
{
	int64_t rank, seen = 0;
	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (int64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			/* the middle of the bucket, within the observed range */
			int64_t lo = hist_bucket_low(b), hi = hist_bucket_high(b);
			int64_t v = hi == INT64_MAX ? h->max : lo + (hi - lo) / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double hist_mean(const struct histogram *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_stddev(const struct histogram *h)
{
	double mean, var;
	if (h->count < 2)
		return 0.0;
	mean = hist_mean(h);
	var = h->sum2 / (double)h->count - mean * mean;
	return var > 0 ? sqrt(var) : 0.0;
}
