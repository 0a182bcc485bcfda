/*
 * test-common-dir.c - mkdir_p (wrapper/common/dir.c).
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

static void test_mkdir_p(void **state)
{
	char top[] = "/tmp/pgopt-mkdir-XXXXXX";
	char path[128], file[128];
	struct stat st;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(top));

	snprintf(path, sizeof(path), "%s/a/b//c/", top);
	assert_int_equal(mkdir_p(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(mkdir_p(path), 0);   /* exists: fine */

	/* a file in the way, at the end or in the middle: ENOTDIR */
	snprintf(file, sizeof(file), "%s/f", top);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	errno = 0;
	assert_int_equal(mkdir_p(file), -1);
	assert_int_equal(errno, ENOTDIR);
	snprintf(path, sizeof(path), "%s/f/x", top);
	errno = 0;
	assert_int_equal(mkdir_p(path), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_int_equal(mkdir_p(""), -1);

	unlink(file);
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkdir_p),
	};
	return cmocka_run_group_tests_name("common-dir", tests, NULL, NULL);
}
