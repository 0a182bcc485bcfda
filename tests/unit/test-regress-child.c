/*
 * test-regress-child.c - build/regress.c's regress_run_child: the suite as
 * a function child of the caller.  A caller that forwards (tune, pgo)
 * passes SIGTERM on: the suite's whole tree goes (make's test here forks a
 * process that would outlive it, as pg_regress's temporary server would),
 * and the caller dies of the signal after it.  Before forwarding, the
 * caller died at once and the suite ran on as an orphan.  And the exit
 * code of a suite that fails is its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/build/regress.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/error.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

/* How many processes run exactly `sleep ARG` (pgrep's exit: 1 none). */
static int running(const char *arg)
{
	char *cmd = xasprintf("exit $(pgrep -xf 'sleep %s' | wc -l)", arg);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void wait_for(const char *arg, int want, int tenths)
{
	struct timespec ts = { 0, 100000000L };
	while (running(arg) != want && tenths-- > 0)
		nanosleep(&ts, NULL);
}

/* A build tree whose make check runs cmd (config.status: a configured tree). */
static char *fake_tree(char *top, const char *name, const char *recipe)
{
	char *mk = xasprintf("check:\n\t%s\n", recipe);
	scratch_mkdir(top, name);
	scratch_put(top, xasprintf("%s/config.status", name), "");
	scratch_put(top, xasprintf("%s/GNUmakefile", name), mk);
	free(mk);
	return xasprintf("%s/%s", top, name);
}

static void test_forwarded_sigterm(void **state)
{
	char *top = scratch_dir_make("test-regress-child"), *tree;
	struct regress_opts o;
	int st, devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid_t pid;
	(void)state;

	assert_non_null(top);
	assert_true(devnull >= 0);
	/* regress hands the tree to the server user when we are root */
	assert_int_equal(chmod(top, 0755), 0);
	tree = fake_tree(top, "slow", "sh -c \"sleep 3031 & sleep 3032; wait\"");
	regress_opts_init(&o);
	o.builddir = tree;
	o.quiet = 1;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(regress_run_child(&o, devnull, 1));
	wait_for("3031", 1, 200);
	wait_for("3032", 1, 50);
	assert_int_equal(running("3031") + running("3032"), 2);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	wait_for("3031", 0, 50);
	wait_for("3032", 0, 50);
	assert_int_equal(running("3031") + running("3032"), 0);
	close(devnull);
	free(tree);
	assert_int_equal(scratch_dir_remove(top), 0);
}

static void test_exit_codes(void **state)
{
	char *top = scratch_dir_make("test-regress-child"), *tree;
	struct regress_opts o;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	(void)state;

	assert_non_null(top);
	assert_int_equal(chmod(top, 0755), 0);
	error_set_program("pgbuild", 2);
	/* a test that fails: 1, the suite's verdict, not "could not run" */
	tree = fake_tree(top, "fail", "@echo 'test char ... FAILED 15 ms'; "
			 "echo ' 1 of 1 tests failed. '; exit 2");
	regress_opts_init(&o);
	o.builddir = tree;
	o.quiet = 1;
	assert_int_equal(regress_run_child(&o, devnull, 0), PGBUILD_EXIT_FAIL);
	free(tree);
	/* not a build tree: could not run */
	o.builddir = top;
	assert_int_equal(regress_run_child(&o, devnull, 0), PGBUILD_EXIT_ERROR);
	close(devnull);
	assert_int_equal(scratch_dir_remove(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forwarded_sigterm),
		cmocka_unit_test(test_exit_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
