/*
 * test-noise.c - the layout noise floor's arithmetic: the spread of a
 * metric (mean, sample SD, range in percent of the mean), the seeded
 * shuffle (a permutation, the same for one seed, another for another),
 * and which words of a link line are its object files.
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

#include "pgbuild/build/relink.h"
#include "pgbuild/noise/noise.h"

static void test_stats(void **state)
{
	const double v[] = { 151620, 152000, 152889, 151900, 152300 };
	struct noise_stats st;
	(void)state;
	noise_stats_of(v, 5, &st);
	assert_int_equal(st.n, 5);
	assert_true(fabs(st.mean - 152141.8) < 1e-6);
	/* sum of squares 934184.8 over n - 1 = 4 */
	assert_true(fabs(st.sd - sqrt(934184.8 / 4)) < 1e-6);
	assert_true(st.min == 151620 && st.max == 152889);
	assert_true(fabs(st.range_pct - 100.0 * 1269 / 152141.8) < 1e-9);
	assert_true(fabs(st.sd_pct - 100 * st.sd / st.mean) < 1e-12);
	assert_true(st.min <= st.mean && st.mean <= st.max);
}

/* Equal values: no spread; one value: SD 0, not NaN. */
static void test_stats_edges(void **state)
{
	const double same[] = { 7, 7, 7 };
	struct noise_stats st;
	(void)state;
	noise_stats_of(same, 3, &st);
	assert_true(st.sd == 0 && st.range_pct == 0 && st.sd_pct == 0 && st.mean == 7);
	noise_stats_of(same, 1, &st);
	assert_true(st.sd == 0 && st.n == 1);
}

static int is_permutation(const size_t *p, size_t n)
{
	char *seen = calloc(n, 1);
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= n || seen[p[i]])
			ok = 0;
		else
			seen[p[i]] = 1;
	}
	free(seen);
	return ok;
}

static void test_shuffle_seeded(void **state)
{
	enum { N = 700 };
	static size_t a[N], b[N], c[N];
	size_t moved = 0;
	(void)state;
	noise_shuffle(a, N, noise_variant_seed(1, 1));
	noise_shuffle(b, N, noise_variant_seed(1, 1));
	noise_shuffle(c, N, noise_variant_seed(1, 2));
	assert_true(is_permutation(a, N) && is_permutation(c, N));
	assert_memory_equal(a, b, sizeof(a));          /* reproducible */
	assert_memory_not_equal(a, c, sizeof(a));      /* another variant, another order */
	for (size_t i = 0; i < N; i++)
		moved += a[i] != i;
	assert_true(moved > N / 2);                    /* really shuffled */
	/* the same order on every machine: splitmix64 from seed 1, variant 1 */
	assert_true(noise_variant_seed(1, 1) == noise_variant_seed(1, 1));
	assert_true(noise_variant_seed(1, 1) != noise_variant_seed(2, 1));
}

static void test_shuffle_small(void **state)
{
	size_t p[2];
	(void)state;
	noise_shuffle(p, 0, 5);
	noise_shuffle(p, 1, 5);
	assert_int_equal(p[0], 0);
	noise_shuffle(p, 2, 5);
	assert_true(is_permutation(p, 2));
}

/* Objects: words ending in .o that are not -o's or -Xlinker's argument. */
static void test_objects(void **state)
{
	struct strvec argv = STRVEC_INIT;
	size_t *at, out_at, n;
	(void)state;
	strvec_pushl(&argv, "/usr/bin/gcc", "-O2", "access/brin/brin.o", "-Xlinker", "x.o",
		     "main/main.o", "../../src/timezone/pgtz.o", "../../src/port/libpgport_srv.a",
		     "-Wl,--export-dynamic", "-lm", "-o", "postgres", NULL);
	n = relink_objects(&argv, &at, &out_at);
	assert_int_equal(n, 3);
	assert_string_equal(argv.v[at[0]], "access/brin/brin.o");
	assert_string_equal(argv.v[at[1]], "main/main.o");
	assert_string_equal(argv.v[at[2]], "../../src/timezone/pgtz.o");
	assert_string_equal(argv.v[out_at], "postgres");
	free(at);
	strvec_clear(&argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_stats_edges),
		cmocka_unit_test(test_shuffle_seeded),
		cmocka_unit_test(test_shuffle_small),
		cmocka_unit_test(test_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
