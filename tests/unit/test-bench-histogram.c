/*
 * test-bench-histogram.c - unit tests of pgbuild/bench/histogram.c: bucket arithmetic is
 * contiguous and monotonic, quantiles stay within the promised relative
 * error of exact ones, and merging equals recording everything in one.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/bench/histogram.h"

static void test_buckets_contiguous(void **state)
{
	/* every bucket starts right after the previous one ends */
	for (int b = 1; b < HIST_BUCKETS - 1; b++)
		assert_int_equal(hist_bucket_low(b), hist_bucket_high(b - 1) + 1);
	/* each value falls into the bucket whose range holds it */
	for (int64_t v = 0; v < 200000; v += (v < 1000 ? 1 : 7)) {
		int b = hist_bucket_of(v);
		assert_true(hist_bucket_low(b) <= v && v <= hist_bucket_high(b));
	}
	assert_int_equal(hist_bucket_of(-5), 0);
	assert_int_equal(hist_bucket_of((int64_t)1 << 50), HIST_BUCKETS - 1);
	assert_int_equal(hist_bucket_low(HIST_BUCKETS - 1), (int64_t)1 << HIST_MAX_EXP);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void test_quantiles_accuracy(void **state)
{
	static struct histogram h;
	enum { N = 100000 };
	int64_t *v = malloc(sizeof(*v) * N);
	double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	unsigned seed = 12345;

	hist_init(&h);
	for (int i = 0; i < N; i++) {
		/* log-normal-ish latencies from 20 us to ~200 ms */
		double u = (rand_r(&seed) + 1.0) / (RAND_MAX + 2.0);
		v[i] = (int64_t)(20 * exp(9.0 * u * u));
		hist_record(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp64);
	assert_int_equal(h.count, N);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[N - 1]);
	for (size_t i = 0; i < sizeof(qs) / sizeof(*qs); i++) {
		int64_t exact = v[(int64_t)ceil(qs[i] * N) - 1];
		int64_t got = hist_quantile(&h, qs[i]);
		assert_true(fabs((double)(got - exact)) <= exact / 128.0 + 1);
	}
	assert_int_equal(hist_quantile(&h, 0), v[0]);
	assert_int_equal(hist_quantile(&h, 1), v[N - 1]);
	free(v);
}

static void test_small_exact_and_stats(void **state)
{
	static struct histogram h;
	hist_init(&h);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	assert_true(hist_mean(&h) == 0 && hist_stddev(&h) == 0);
	for (int i = 1; i <= 100; i++)
		hist_record(&h, i);
	assert_int_equal(hist_quantile(&h, 0.5), 50);
	assert_int_equal(hist_quantile(&h, 0.9), 90);
	assert_int_equal(hist_quantile(&h, 0.99), 99);
	assert_true(fabs(hist_mean(&h) - 50.5) < 1e-9);
	/* population stddev of 1..100 */
	assert_true(fabs(hist_stddev(&h) - sqrt((100.0 * 100 - 1) / 12)) < 1e-6);
}

static void test_merge(void **state)
{
	static struct histogram a, b, all;
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (int i = 0; i < 5000; i++) {
		int64_t x = (i * 7919) % 100003;
		hist_record(i % 2 ? &a : &b, x);
		hist_record(&all, x);
	}
	hist_merge(&a, &b);
	assert_int_equal(a.count, all.count);
	assert_int_equal(a.sum, all.sum);
	assert_int_equal(a.min, all.min);
	assert_int_equal(a.max, all.max);
	assert_memory_equal(a.buckets, all.buckets, sizeof(a.buckets));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_contiguous),
		cmocka_unit_test(test_quantiles_accuracy),
		cmocka_unit_test(test_small_exact_and_stats),
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
