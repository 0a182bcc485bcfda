/*
 * test-common-copytree.c - tree copies (wrapper/common/copytree.c): cp -a
 * as the copy or into a directory, links kept as links, and
 * copytree_fresh.
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

/* copytree: AS makes the copy, INTO fills a directory; links stay links. */
static void test_copytree(void **state)
{
	char dir[] = "/tmp/pgopt-copytree-XXXXXX", buf[64];
	struct strvec args = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, path = STRBUF_INIT;
	ssize_t n;
	(void)state;

	copytree_args(&args, "a", "b", COPYTREE_INTO);
	assert_int_equal(args.nr, 4);
	assert_string_equal(args.v[2], "a/.");
	strvec_clear(&args);
	copytree_args(&args, "a", "b", COPYTREE_AS);
	assert_string_equal(args.v[2], "a");
	strvec_clear(&args);

	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/src", dir);
	assert_int_equal(mkdir(path.buf, 0755), 0);
	strbuf_addstr(&path, "/f");
	assert_int_equal(write_file_atomic(path.buf, "x\n", 2), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/src/l", dir);
	assert_int_equal(symlink("/nonexistent", path.buf), 0);

	strbuf_reset(&path);
	strbuf_addf(&path, "%s/src", dir);
	{
		char *as = xasprintf("%s/as", dir), *into = xasprintf("%s/into", dir);
		assert_int_equal(copytree_run(path.buf, as, COPYTREE_AS, &out), 0);
		assert_int_equal(mkdir(into, 0755), 0);
		assert_int_equal(copytree_run(path.buf, into, COPYTREE_INTO, NULL), 0);
		free(as);
		free(into);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/as/l", dir);
	n = readlink(path.buf, buf, sizeof(buf) - 1);
	assert_int_equal(n, 12);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/into/f", dir);
	assert_int_equal(access(path.buf, R_OK), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/into/src", dir);
	assert_int_not_equal(access(path.buf, F_OK), 0);       /* INTO: no extra level */
	/* a missing source: cp's exit code and what it said */
	strbuf_reset(&out);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/missing", dir);
	assert_int_not_equal(copytree_run(path.buf, "/nonexistent/x", COPYTREE_AS, &out), 0);
	assert_true(out.len > 0);
	/* fresh: a link planted at the target is refused, its target untouched */
	{
		char *src = xasprintf("%s/src", dir), *victim = xasprintf("%s/victim", dir);
		char *link = xasprintf("%s/planted", dir), *fresh = xasprintf("%s/fresh", dir);
		char *through = xasprintf("%s/victim/f", dir), *got = xasprintf("%s/fresh/f", dir);
		assert_int_equal(mkdir(victim, 0700), 0);
		assert_int_equal(symlink(victim, link), 0);
		errno = 0;
		assert_int_equal(copytree_fresh(src, link, NULL), -1);
		assert_int_equal(errno, EEXIST);
		assert_int_not_equal(access(through, F_OK), 0);
		assert_int_equal(copytree_fresh(src, fresh, NULL), 0);
		assert_int_equal(access(got, R_OK), 0);
		free(src); free(victim); free(link); free(fresh); free(through); free(got);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "rm -rf %s", dir);
	assert_int_equal(system(path.buf), 0);
	strbuf_release(&path);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copytree),
	};
	return cmocka_run_group_tests_name("common-copytree", tests, NULL, NULL);
}
