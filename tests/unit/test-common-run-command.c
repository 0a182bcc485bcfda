/*
 * test-common-run-command.c - child processes
 * (wrapper/common/run-command.c): running and capturing them, and the
 * signals relayed to a child.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_command),
		cmocka_unit_test(test_signal_relay),
	};
	return cmocka_run_group_tests_name("common-run-command", tests, NULL, NULL);
}
