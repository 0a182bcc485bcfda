/*
 * test-common-fdio.c - whole writes and atomic files
 * (wrapper/common/fdio.c).
 */
#include <fcntl.h>
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

#include "wrapper/common/safefs.h"
#include "wrapper/common/copytree.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/json.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"

static void test_write_all(void **state)
{
	int fds[2];
	char big[200000], back[200000];
	size_t got = 0;
	int status;
	(void)state;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	assert_int_equal(pipe(fds), 0);
	/* more than a pipe holds: a reader drains it while write_all goes on */
	if (fork() == 0) {
		close(fds[0]);
		_exit(write_all(fds[1], big, sizeof(big)) == 0 ? 0 : 1);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n = read(fds[0], back + got, sizeof(back) - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	assert_true(wait(&status) > 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(got, sizeof(big));
	assert_memory_equal(back, big, sizeof(big));
	/* a closed descriptor is an error with errno set */
	errno = 0;
	assert_int_equal(write_all(fds[1], "x", 1), -1);
	assert_int_equal(errno, EBADF);
}

static void test_write_file_atomic(void **state)
{
	char dir[] = "/tmp/pgopt-fdio-XXXXXX", *path, *missing;
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/f.json", dir);
	assert_int_equal(write_file_atomic(path, "old\n", 4), 0);
	assert_int_equal(write_file_atomic(path, "new\n", 4), 0);
	assert_true(sfs_read(AT_FDCWD, path, SFS_IN_BINARY, 0, &sb, NULL) >= 0);
	assert_string_equal(sb.buf, "new\n");
	/* a directory that does not exist: -1, and nothing written anywhere */
	missing = xasprintf("%s/no/f.json", dir);
	assert_int_equal(write_file_atomic(missing, "x", 1), -1);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);   /* empty: no temporary file left */
	free(path);
	free(missing);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_write_file_atomic),
	};
	return cmocka_run_group_tests_name("common-fdio", tests, NULL, NULL);
}
