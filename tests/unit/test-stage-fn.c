/*
 * test-stage-fn.c - pgbuild/stage/stage.c's stage_run_fn: an engine of
 * ours called as a library in a pipeline's stage, in a process of its own.
 * Its standard output and error go into the stage's log, its return value
 * is the stage's exit code; and its exit, even through die(), leaves the
 * parent's clusters alone: a cluster the parent registered (the cleanup
 * registry a forked child inherits) is neither stopped nor removed, where
 * the inherited atexit handler would remove it without
 * cluster_forget_inherited.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/private.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/stage/stage.h"
#include "wrapper/common/error.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

static const char *const names[] = { "engine" };

static int engine_ok(void *data)
{
	printf("engine out %s\n", (const char *)data);
	fprintf(stderr, "engine err\n");
	return 3;
}

static int engine_dies(void *data)
{
	(void)data;
	die(PGBUILD_EXIT_ERROR, "the engine gave up");
	return 0;
}

static char *read_log(const struct pipeline *p)
{
	char *log = stage_log(p, 0);
	FILE *fp = fopen(log, "r");
	char *text = xcalloc(4096, 1);
	size_t n;
	assert_non_null(fp);
	n = fread(text, 1, 4095, fp);
	text[n] = '\0';
	fclose(fp);
	free(log);
	return text;
}

static void test_stage_fn(void **state)
{
	char *top = scratch_dir_make("test-stage-fn"), *text;
	struct pipeline p;
	struct cluster c;
	(void)state;

	assert_non_null(top);
	error_set_program("pgbuild", 2);
	stage_init(&p, "test", names, 1, top, 1);

	/* output into the log, the return value the exit code */
	assert_int_equal(stage_run_fn(&p, 0, "engine", engine_ok, "called", NULL, 0), 3);
	text = read_log(&p);
	/* (stdout is buffered to the end, as a program's into a file) */
	assert_non_null(strstr(text, "engine out called\n"));
	assert_non_null(strstr(text, "engine err\n"));
	free(text);

	/* a cluster of the parent's, registered for cleanup at exit */
	memset(&c, 0, sizeof(c));
	scratch_mkdir(top, "cluster");
	c.dir = xasprintf("%s/cluster", top);
	c.name = xstrdup("cluster");
	c.parentfd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	assert_true(c.parentfd >= 0);
	cluster_install_handlers();
	assert_int_equal(cluster_register_slot(&c) < 0, 0);
	assert_int_equal(stage_run_fn(&p, 0, "engine", engine_dies, NULL, NULL, 0),
			 PGBUILD_EXIT_ERROR);
	text = read_log(&p);
	assert_string_equal(text, "pgbuild: error: the engine gave up\n");
	free(text);
	assert_int_equal(scratch_exists(top, "cluster"), 1);

	/* ours again: forgotten, so our own exit leaves it to us */
	cluster_forget_inherited();
	close(c.parentfd);
	free(c.dir);
	free(c.name);
	stage_release(&p);
	assert_int_equal(scratch_dir_remove(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_fn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
