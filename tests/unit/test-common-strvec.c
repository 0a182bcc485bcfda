/*
 * test-common-strvec.c - strvec (wrapper/common/strvec.c): pushing,
 * splitting, inserting, removing and finding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/copytree.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/json.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"

static void test_strvec(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;
	assert_null(sv.v[0]);
	strvec_pushl(&sv, "a", "b", NULL);
	strvec_split(&sv, "  c  d\te ");
	strvec_insert(&sv, 1, "x");
	strvec_remove(&sv, 0);
	assert_int_equal(sv.nr, 5);
	assert_string_equal(sv.v[0], "x");
	assert_string_equal(sv.v[4], "e");
	assert_null(sv.v[5]);
	assert_int_equal(strvec_find(&sv, "d"), 3);
	assert_int_equal(strvec_find(&sv, "zz"), -1);
	strvec_clear(&sv);
	assert_int_equal(sv.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strvec),
	};
	return cmocka_run_group_tests_name("common-strvec", tests, NULL, NULL);
}
