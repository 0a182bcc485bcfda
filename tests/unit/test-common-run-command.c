/*
 * test-common-run-command.c - child processes
 * (wrapper/common/run-command.c): running and capturing them, the signals
 * relayed to a child, a child that is a function of ours, and a child that gets only the environment it is
 * given (env_clear) and only descriptors 0-2 (close_fds).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
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

static void test_run_command(void **state)
{
	struct child_process cp;
	struct strbuf out = STRBUF_INIT;
	(void)state;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sh", "-c", "echo out; echo err >&2; exit 3", NULL);
	assert_int_equal(capture_command(&cp, &out, 1), 3);
	assert_string_equal(out.buf, "out\nerr\n");
	child_process_clear(&cp);

	child_process_init(&cp);
	strvec_pushl(&cp.args, "sh", "-c", "kill -TERM $$", NULL);
	assert_int_equal(run_command(&cp), 128 + 15);
	child_process_clear(&cp);

	child_process_init(&cp);
	strvec_pushl(&cp.args, "/nonexistent/prog", NULL);
	assert_int_equal(run_command(&cp), 127);
	assert_int_not_equal(cp.exec_errno, 0);
	child_process_clear(&cp);

	child_process_init(&cp);
	strbuf_reset(&out);
	strvec_pushl(&cp.args, "sh", "-c", "echo $PGOPT_T; pwd", NULL);
	strvec_push(&cp.env, "PGOPT_T=v a l");
	cp.dir = "/";
	assert_int_equal(capture_command(&cp, &out, 0), 0);
	assert_string_equal(out.buf, "v a l\n/\n");
	child_process_clear(&cp);
	strbuf_release(&out);
}

/* A child that is a function of ours (cp.fn): its output where out says,
 * its environment and directory as an exec's, its exit code its return
 * value; a buffered line reaches the pipe (flushed before _exit), and the
 * parent is not held until it ends (start_command returns at once). */
static int child_fn(void *data)
{
	char cwd[64];
	printf("%s %s %s\n", (const char *)data, getenv("PGOPT_T"),
	       getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	return 5;
}

static int sleeping_fn(void *data)
{
	(void)data;
	pause();
	return 0;
}

static void test_fn_child(void **state)
{
	struct child_process cp;
	struct strbuf out = STRBUF_INIT;
	(void)state;
	child_process_init(&cp);
	strvec_push(&cp.args, "child_fn");
	strvec_push(&cp.env, "PGOPT_T=v");
	cp.dir = "/";
	cp.fn = child_fn;
	cp.fn_data = "called";
	assert_int_equal(capture_command(&cp, &out, 0), 5);
	assert_string_equal(out.buf, "called v /\n");
	child_process_clear(&cp);

	child_process_init(&cp);
	strvec_push(&cp.args, "sleeping_fn");
	cp.fn = sleeping_fn;
	assert_int_equal(start_command(&cp), 0);
	assert_int_equal(kill(cp.pid, SIGTERM), 0);
	assert_int_equal(finish_command(&cp), 128 + SIGTERM);
	child_process_clear(&cp);
	strbuf_release(&out);
}

/* The relay: a signal to us goes to the child, and we live on. */
static void test_signal_relay(void **state)
{
	static volatile pid_t watch;
	struct child_process cp;
	struct strbuf out = STRBUF_INIT;
	int fds[2];
	(void)state;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "abc", 3), 3);
	close(fds[1]);
	assert_int_equal(strbuf_read_fd(&out, fds[0]), 3);
	assert_string_equal(out.buf, "abc");
	close(fds[0]);
	strbuf_release(&out);

	signal_relay_install(&watch);
	raise(SIGTERM);                 /* no child: dropped */
	child_process_init(&cp);
	strvec_pushl(&cp.args, "sleep", "30", NULL);
	cp.pid_watch = &watch;
	assert_int_equal(start_command(&cp), 0);
	assert_int_equal(watch, cp.pid);
	raise(SIGTERM);
	assert_int_equal(finish_command(&cp), 128 + SIGTERM);
	assert_int_equal(watch, 0);
	child_process_clear(&cp);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
}

/* env_clear: the child's environment is env alone, a later entry for a
 * name winning and "NAME" removing it; argv[0] looked up on its PATH. */
static void test_env_clear(void **state)
{
	struct child_process cp;
	struct strbuf out = STRBUF_INIT;
	(void)state;
	assert_int_equal(setenv("PGOPT_SECRET_TOKEN", "x", 1), 0);
	child_process_init(&cp);
	strvec_pushl(&cp.args, "env", NULL);
	strvec_pushl(&cp.env, "PATH=/usr/bin:/bin", "A=1", "B=2", "A=3", "C=4", "C", "D=", NULL);
	cp.env_clear = 1;
	assert_int_equal(capture_command(&cp, &out, 0), 0);
	assert_string_equal(out.buf, "PATH=/usr/bin:/bin\nB=2\nA=3\nD=\n");
	child_process_clear(&cp);

	/* nothing at all: not even a PATH to find env on */
	child_process_init(&cp);
	strbuf_reset(&out);
	strvec_pushl(&cp.args, "/usr/bin/env", NULL);
	cp.env_clear = 1;
	assert_int_equal(capture_command(&cp, &out, 0), 0);
	assert_string_equal(out.buf, "");
	child_process_clear(&cp);

	/* without it: ours plus env, as always */
	child_process_init(&cp);
	strbuf_reset(&out);
	strvec_pushl(&cp.args, "sh", "-c", "echo $PGOPT_SECRET_TOKEN$A", NULL);
	strvec_push(&cp.env, "A=1");
	assert_int_equal(capture_command(&cp, &out, 0), 0);
	assert_string_equal(out.buf, "x1\n");
	child_process_clear(&cp);
	unsetenv("PGOPT_SECRET_TOKEN");
	strbuf_release(&out);
}

/* close_fds: a descriptor of ours without close-on-exec does not reach
 * the child; in/out/err do, whatever their number was. */
static void test_close_fds(void **state)
{
	struct child_process cp;
	struct strbuf out = STRBUF_INIT;
	int fd = open("/dev/null", O_RDONLY), hi;
	int p[2];
	(void)state;
	assert_true(fd > 2);
	hi = dup2(fd, 77);
	assert_int_equal(hi, 77);
	assert_int_equal(pipe(p), 0);      /* no O_CLOEXEC either */
	for (int closing = 0; closing < 2; closing++) {
		child_process_init(&cp);
		strbuf_reset(&out);
		strvec_pushl(&cp.args, "sh", "-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '", NULL);
		cp.close_fds = closing;
		cp.in = p[0];
		assert_int_equal(capture_command(&cp, &out, 1), 0);
		/* ls opens the directory itself: one more, 3 */
		if (closing)
			assert_string_equal(out.buf, "0 1 2 3 ");
		else
			assert_non_null(strstr(out.buf, " 77 "));
		child_process_clear(&cp);
	}
	close(p[0]);
	close(p[1]);
	close(hi);
	close(fd);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_command),
		cmocka_unit_test(test_fn_child),
		cmocka_unit_test(test_signal_relay),
		cmocka_unit_test(test_env_clear),
		cmocka_unit_test(test_close_fds),
	};
	return cmocka_run_group_tests_name("common-run-command", tests, NULL, NULL);
}
