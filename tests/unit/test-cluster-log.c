/*
 * test-cluster-log.c - unit tests of pgbuild/cluster/log.c: the server log
 * scanner finds the crash lines it promises to, and the stricter crash
 * test leaves out the workers the regression suites make fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/cluster/cluster.h"

static void test_log_scan(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *clean = "LOG:  database system is ready to accept connections\n"
			    "LOG:  checkpoint complete\n";
	const char *bad = "LOG:  ok\n"
			  "LOG:  server process (PID 123) was terminated by signal 11: Segmentation fault\n"
			  "TRAP: FailedAssertion(\"x\", File: \"a.c\", Line: 1)\n"
			  "PANIC:  could not write\n";
	assert_int_equal(cluster_scan_log_text(clean, &sb), 0);
	assert_int_equal(sb.len, 0);
	assert_int_equal(cluster_scan_log_text(bad, &sb), 3);
	assert_non_null(strstr(sb.buf, "Segmentation fault"));
	strbuf_release(&sb);
	/* crashes only: workers the regression suites make fail are none */
	{
		const char *w = "LOG:  background worker \"parallel worker\" (PID 20775) exited with exit code 1";
		const char *c = "LOG:  server process (PID 9) was terminated by signal 11: Segmentation fault";
		assert_int_equal(cluster_log_line_is_crash(w, strlen(w)), 0);
		assert_int_equal(cluster_log_line_is_crash(c, strlen(c)), 1);
		assert_int_equal(cluster_log_line_is_crash("PANIC:  x", 9), 1);
		assert_int_equal(cluster_log_line_is_crash("TRAP: FailedAssertion", 21), 1);
		/* the length bounds the search */
		assert_int_equal(cluster_log_line_is_crash(c, 20), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
