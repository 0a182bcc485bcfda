/*
 * test-bench-child.c - bench/session.c's library entry: bench_opts_init
 * holds bench's defaults (the command's and every engine's), and
 * bench_run_child refuses a run that would crash the child (a protocol out
 * of range, no clients, more threads than clients, no length) with exit 2
 * and one error, before any process or cluster is made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/error.h"

#include "tests/unit/fixture.h"

static void test_defaults(void **state)
{
	struct bench_opts o;
	(void)state;

	bench_opts_init(&o);
	assert_int_equal(o.protocol, PROTO_SIMPLE);   /* pgbench's */
	assert_int_equal(o.clients, 1);
	assert_true(o.duration == 10);
	assert_true(o.stmt_timeout == 60);
	assert_int_equal(o.threads, 0);
	bench_opts_default_threads(&o);
	assert_int_equal(o.threads, 1);
	bench_opts_set_workload(&o, "sql:/x/y.sql");
	assert_string_equal(o.workload, "sql");
	assert_string_equal(o.file, "/x/y.sql");
	assert_int_equal(bench_protocol_parse("prepared"), PROTO_PREPARED);
	assert_int_equal(bench_protocol_parse("fast"), -1);
	bench_opts_release(&o);
}

static void test_refused(void **state)
{
	struct bench_opts o;
	(void)state;

	error_set_program("pgbuild", 2);
	bench_opts_init(&o);
	o.prefix = "/nonexistent";
	o.protocol = (enum bench_protocol)bench_protocol_parse("fast");
	bench_opts_default_threads(&o);
	capture_begin();
	assert_int_equal(bench_run_child(&o, -1, NULL), PGBUILD_EXIT_ERROR);
	assert_non_null(strstr(capture_end(), "pgbuild: error: bench: a run of protocol -1, "
						  "1 clients, 1 threads, 10 s, 0 transactions cannot run"));
	o.protocol = PROTO_PREPARED;
	o.threads = 2;  /* more than its one client */
	capture_begin();
	assert_int_equal(bench_run_child(&o, -1, NULL), PGBUILD_EXIT_ERROR);
	assert_non_null(strstr(capture_end(), "1 clients, 2 threads"));
	o.threads = 1;
	o.duration = 0;
	capture_begin();
	assert_int_equal(bench_run_child(&o, -1, NULL), PGBUILD_EXIT_ERROR);
	assert_non_null(strstr(capture_end(), "0 s, 0 transactions cannot run"));
	bench_opts_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
