/*
 * test-metric-workloads.c - the invariants of metric/workloads.c's table
 * and that the lists bench, gate and the help texts use come from it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/metric/workloads.h"

static void test_rows(void **state)
{
	int train = 0, heldout = 0, def = 0;
	(void)state;
	for (const struct workload_row *w = workloads; w->name; w++) {
		for (const struct workload_row *u = w + 1; u->name; u++)
			assert_string_not_equal(w->name, u->name);
		assert_non_null(w->desc);
		assert_non_null(w->data);
		if (w->flags & WL_SINGLE)
			assert_true(w->single_n > 0);
		else
			assert_int_equal(w->single_n, 0);
		if (w->flags & (WL_TRAIN | WL_HELDOUT | WL_DEFAULT))
			assert_true(w->flags & WL_BUILTIN);
		assert_false((w->flags & WL_TRAIN) && (w->flags & WL_HELDOUT));
		train += !!(w->flags & WL_TRAIN);
		heldout += !!(w->flags & WL_HELDOUT);
		def += !!(w->flags & WL_DEFAULT);
	}
	assert_true(train > 0);
	assert_int_equal(heldout, 1);
	assert_int_equal(def, 1);
}

static void test_lists(void **state)
{
	size_t n = 0;
	(void)state;
	for (const struct workload_row *w = workloads; w->name; w++)
		if (w->flags & WL_BENCH)
			assert_string_equal(bench_workload_names[n++], w->name);
	assert_null(bench_workload_names[n]);
	assert_string_equal(BENCH_WORKLOAD_NAMES, workloads_list(WL_BENCH));
	assert_string_equal(WORKLOADS_BENCH, workloads_list(WL_BENCH));
	assert_string_equal(WORKLOADS_BUILTIN, workloads_list(WL_BUILTIN));
	assert_string_equal(WORKLOADS_SINGLE, workloads_list(WL_SINGLE));
	assert_string_equal(SINGLE_WORKLOADS, workloads_list(WL_SINGLE));
	/* the --train default as its help text spells it */
	{
		char buf[256];
		size_t k = 0;
		for (const char *const *t = workloads_names(WL_TRAIN); *t; t++)
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s", k ? "," : "", *t);
		assert_string_equal(WORKLOADS_TRAIN, buf);
	}
	assert_string_equal(workloads_list(WL_TRAIN), "select-only, tpcb");
	assert_string_equal(workloads_list(WL_HELDOUT), "mixed");
	assert_string_equal(workloads_list(WL_DEFAULT), "select-only");
	assert_string_equal(WORKLOADS_HELDOUT, workloads_list(WL_HELDOUT));
	assert_string_equal(WORKLOADS_DEFAULT, workloads_list(WL_DEFAULT));
}

static void test_single(void **state)
{
	(void)state;
	assert_int_equal(single_default_n("select-only"), 200);
	assert_int_equal(single_default_n("mixed"), 40);
	assert_int_equal(single_default_n("tpcc-lite"), 0);
	assert_false(single_supported("sql"));
	assert_false(single_supported("no-such"));
	assert_null(workloads_find("no-such"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_single),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
