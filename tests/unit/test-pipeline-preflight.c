/*
 * test-pipeline-preflight.c - pgbuild/pipeline/preflight.c: the checks run, tune and
 * pgo make before their first build, each refusing with one error (stderr
 * captured): thresholds naming unknown workloads or the wrong metric,
 * too few pairs, sources that cannot be one, installs without postgres,
 * and (as root, with the real user "postgres") directories the server
 * user cannot reach; work directories are never chmodded, and refused as
 * root when another user could write in them.
 */
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

#include "pgbuild/cluster/workdir.h"
#include "pgbuild/pgbuild.h"
#include "tests/unit/fixture.h"
#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/stage/stage.h"
#include "wrapper/common/strvec.h"

static void test_gate_expr(void **state)
{
	struct gate_thresholds th = { 0 };
	(void)state;
	error_set_program("pgbuild", 2);
	capture_begin();
	assert_int_equal(preflight_gate_expr("select-only>=1.05,tpcb>=1,p99<=+10%", NULL, &th), 0);
	assert_string_equal(capture_end(), "");
	assert_int_equal(th.nr, 3);
	gate_thresholds_clear(&th);
	capture_begin();
	assert_int_equal(preflight_gate_expr("selectonly>=1.05", "tps", NULL), -1);
	assert_non_null(strstr(capture_end(), "threshold \"selectonly>=1.05\": unknown workload "
				 "\"selectonly\" (did you mean \"select-only\"?)"));
	capture_begin();
	assert_int_equal(preflight_gate_expr("sql>=1.05", "tps", NULL), -1);
	assert_non_null(strstr(capture_end(), "unknown workload \"sql\""));
	capture_begin();
	assert_int_equal(preflight_gate_expr("instructions>=1.01", "tps", NULL), -1);
	assert_non_null(strstr(capture_end(), "needs --metric instructions (alone or in a list"));
	capture_begin();
	assert_int_equal(preflight_gate_expr("tpcb>=1", "instructions", NULL), -1);
	assert_non_null(strstr(capture_end(), "needs --metric tps (alone or in a list"));
	capture_begin();
	assert_int_equal(preflight_gate_expr("instructions>=1.01,tpcb>=1", "tps,instructions", NULL), 0);
	assert_string_equal(capture_end(), "");
	capture_begin();
	assert_int_equal(preflight_gate_expr("tpcb>=105%", NULL, NULL), -1);
	assert_non_null(strstr(capture_end(), "105% is ambiguous"));
}

static void test_pairs(void **state)
{
	(void)state;
	capture_begin();
	assert_int_equal(preflight_pairs(6, "tps", 0.95, 1), 0);
	assert_int_equal(preflight_pairs(0, NULL, 0.95, 4), 0);           /* the default */
	assert_int_equal(preflight_pairs(3, "instructions", 0.95, 4), 0); /* no pairs run */
	assert_string_equal(capture_end(), "");
	capture_begin();
	assert_int_equal(preflight_pairs(5, "tps,instructions", 0.95, 1), -1);
	assert_string_equal(capture_end(),
			    "pgbuild: error: --pairs 5: a 95% interval needs at least 6 pairs\n");
	capture_begin();
	assert_int_equal(preflight_pairs(7, "tps", 0.99, 1), -1);   /* 2^-7 > 0.005 */
	assert_non_null(strstr(capture_end(), "at least 8 pairs"));
	/* a family of 4 tests: Holm's first step at 0.625% needs 2^-8 */
	capture_begin();
	assert_int_equal(preflight_pairs(6, "tps", 0.95, 4), -1);
	assert_string_equal(capture_end(),
			    "pgbuild: error: --pairs 6: 4 tests (the thresholds x the workloads "
			    "they apply to) need at least 8 pairs (Holm's first step at 0.625%); "
			    "give --pairs 8 or --pairs auto\n");
	capture_begin();
	assert_int_equal(preflight_pairs(8, "tps", 0.95, 4), 0);
	assert_string_equal(capture_end(), "");
}

/* The family's size before the data: thresholds x the workloads they
 * apply to, the deterministic ones out with --noise none. */
static void test_family(void **state)
{
	struct strvec wl = STRVEC_INIT;
	(void)state;
	assert_int_equal(preflight_family("tps>=1.00", NULL, "select-only,tpcb", NULL), 2);
	assert_int_equal(preflight_family("tps>=1.00,p99<=1.1", NULL, "select-only,tpcb", NULL), 4);
	assert_int_equal(preflight_family("tps>=1,instructions>=1", NULL, "select-only,tpcb",
					  "none"), 2);
	assert_int_equal(preflight_family("tps>=1,instructions>=1", NULL, "select-only,tpcb",
					  NULL), 4);
	assert_int_equal(preflight_family("tpcb>=1,select-only>=1", NULL, NULL, NULL), 2);
	assert_int_equal(preflight_family("tps>=1", NULL, NULL, NULL), 1);
	strvec_push(&wl, "tpcb");
	assert_int_equal(preflight_family("tps>=1", &wl, "select-only,tpcb", NULL), 1);
	strvec_clear(&wl);
}

/* The gate settings tune and sensitivity pass on: --pairs N|auto and
 * --budget as gate parses them, onto the gate's argv. */
static void test_gate_step(void **state)
{
	struct gate_step g = { 0 };
	struct strvec a = STRVEC_INIT;
	(void)state;
	capture_begin();
	assert_int_equal(stage_gate_option(&g, OPT_PAIRS, "7"), 1);
	assert_int_equal(stage_gate_option(&g, OPT_BUDGET, "10m"), 1);
	assert_int_equal(stage_gate_check(&g), PGBUILD_EXIT_ERROR);
	assert_non_null(strstr(capture_end(), "pgbuild: error: --budget needs --pairs auto\n"));
	capture_begin();
	assert_int_equal(stage_gate_option(&g, OPT_PAIRS, "auto"), 1);
	assert_int_equal(stage_gate_check(&g), 0);
	assert_int_equal(stage_gate_option(&g, 'c', "3"), 1);
	assert_int_equal(stage_gate_option(&g, OPT_METRIC, "tps"), 0);  /* not a gate step's */
	assert_string_equal(capture_end(), "");
	stage_gate_argv(&a, &g);
	assert_int_equal(a.nr, 3);
	assert_string_equal(a.v[0], "--pairs=auto");
	assert_string_equal(a.v[1], "--budget=600s");
	assert_string_equal(a.v[2], "--clients=3");
	strvec_clear(&a);
	capture_begin();
	assert_int_equal(stage_gate_option(&g, OPT_BUDGET, "0.5s"), -1);
	assert_string_equal(capture_end(), "pgbuild: error: invalid value \"0.5s\" for --budget: "
			    "at least 1 second, e.g. 90s, 10m or 1h\n");
	capture_begin();
	assert_int_equal(stage_gate_option(&g, OPT_BUDGET, "10x"), -1);
	assert_non_null(strstr(capture_end(), "invalid value \"10x\" for --budget"));
	assert_int_equal(stage_gate_option(&g, OPT_PAIRS, "9"), 1);
	assert_int_equal(g.auto_pairs, 0);
	stage_gate_argv(&a, &g);
	assert_string_equal(a.v[0], "--pairs=9");
	strvec_clear(&a);
	/* pgo's --gate-duration and --gate-clients (its -T and -c are the
	 * training's): the gate's -T and -c, the errors naming them */
	{
		struct gate_step p = { 0 };
		capture_begin();
		assert_int_equal(stage_gate_option(&p, OPT_GATE_DURATION, "5"), 1);
		assert_int_equal(stage_gate_option(&p, OPT_GATE_CLIENTS, "4"), 1);
		assert_int_equal(stage_gate_option(&p, OPT_PAIRS, "12"), 1);
		assert_string_equal(capture_end(), "");
		stage_gate_argv(&a, &p);
		assert_int_equal(a.nr, 3);
		assert_string_equal(a.v[0], "--pairs=12");
		assert_string_equal(a.v[1], "--duration=5");
		assert_string_equal(a.v[2], "--clients=4");
		strvec_clear(&a);
		capture_begin();
		assert_int_equal(stage_gate_option(&p, OPT_GATE_DURATION, "0"), -1);
		assert_non_null(strstr(capture_end(), "invalid value \"0\" for --gate-duration"));
		capture_begin();
		assert_int_equal(stage_gate_option(&p, OPT_GATE_CLIENTS, "0"), -1);
		assert_non_null(strstr(capture_end(), "invalid value \"0\" for --gate-clients: "
					"expected an integer from 1 to 10000"));
	}
}

static void test_files(void **state)
{
	char *dir = scratch_dir_make("test-pipeline-preflight");
	char *p;
	(void)state;
	assert_non_null(dir);
	capture_begin();
	assert_int_equal(preflight_source(NULL), 0);
	assert_int_equal(preflight_source("debian:postgresql-15"), 0);
	assert_string_equal(capture_end(), "");
	capture_begin();
	assert_int_equal(preflight_source(dir), -1);
	assert_non_null(strstr(capture_end(), "not a PostgreSQL source tree (no configure)"));
	p = xasprintf("%s/configure", dir);
	fclose(fopen(p, "w"));
	capture_begin();
	assert_int_equal(preflight_source(dir), 0);
	assert_int_equal(cli_check_input("--policy", p), 0);
	assert_string_equal(capture_end(), "");
	capture_begin();
	assert_int_equal(cli_check_input("--policy", dir), -1);
	assert_non_null(strstr(capture_end(), "is a directory"));
	capture_begin();
	assert_int_equal(preflight_install("--baseline", dir), -1);
	assert_non_null(strstr(capture_end(), "no bin/postgres: not an installed PostgreSQL"));
	unlink(p);
	free(p);
	p = xasprintf("%s/nosuch.tar.gz", dir);
	capture_begin();
	assert_int_equal(preflight_source(p), -1);
	assert_non_null(strstr(capture_end(), "No such file or directory"));
	free(p);
	assert_int_equal(scratch_dir_remove(dir), 0);
}

static void test_server_dirs(void **state)
{
	char *top = NULL;
	char *deep, *tmpdir = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
	(void)state;
	if (geteuid() != 0 || !cluster_user_name()) {
		/* not root: the server runs as ourselves, nothing to check */
		const char *dirs[] = { "/", NULL };
		assert_int_equal(workdir_server_reach(dirs), 0);
		skip_because("not root, or no server user: the server runs as the caller");
	}
	setenv("PGBUILD_SERVER_USER", "nobody", 1);
	unsetenv("TMPDIR");
	top = scratch_dir_make("test-pipeline-preflight");  /* 0700, root's */
	assert_non_null(top);
	deep = xasprintf("%s/not/made/yet", top);
	{
		const char *dirs[] = { "/tmp", deep, NULL };
		capture_begin();
		assert_int_equal(workdir_server_reach(dirs), -1);
		assert_non_null(strstr(capture_end(), "is out of the server user's reach: the server "
					 "user nobody (pgbuild runs as root) cannot enter"));
	}
	assert_int_equal(chmod(top, 0711), 0);
	{
		const char *dirs[] = { deep, NULL };
		capture_begin();
		assert_int_equal(workdir_server_reach(dirs), 0);
		assert_string_equal(capture_end(), "");
	}
	/* $TMPDIR, where the private clusters live, is checked too */
	assert_int_equal(chmod(top, 0700), 0);
	setenv("TMPDIR", top, 1);
	{
		const char *dirs[] = { "/tmp", NULL };
		capture_begin();
		assert_int_equal(workdir_server_reach(dirs), -1);
		assert_non_null(strstr(capture_end(), "TMPDIR"));
	}
	if (tmpdir)
		setenv("TMPDIR", tmpdir, 1);
	else
		unsetenv("TMPDIR");
	unsetenv("PGBUILD_SERVER_USER");
	assert_int_equal(scratch_dir_remove(top), 0);
	free(deep);
	free(tmpdir);
}

/* mode and owner of path, as "MODE UID" */
static char *mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return xasprintf("%04o %ld", (unsigned)(st.st_mode & 07777), (long)st.st_uid);
}

static void test_workdir(void **state)
{
	char *top = NULL;
	char *w, *m;
	int fd;
	(void)state;
	top = scratch_dir_make("test-pipeline-preflight");
	assert_non_null(top);
	/* missing: made (with its parents) */
	w = xasprintf("%s/a/b", top);
	assert_int_equal(chmod(top, 0755), 0);
	fd = workdir_open("--workdir", w);
	assert_true(fd >= 0);
	close(fd);
	if (geteuid() != 0 || !cluster_user_name()) {
		free(w);
		assert_int_equal(scratch_dir_remove(top), 0);
		skip_because("not root, or no server user: nothing is refused");
	}
	setenv("PGBUILD_SERVER_USER", "nobody", 1);
	/* an existing 0700 one (a `--workdir ~`): refused with the fix, and
	 * left as it was */
	assert_int_equal(chmod(w, 0700), 0);
	capture_begin();
	assert_int_equal(workdir_open("--workdir", w), -1);
	assert_non_null(strstr(capture_end(), "chmod o+x"));
	m = mode_of(w);
	assert_string_equal(m, "0700 0");
	free(m);
	/* one anyone may write in: refused, left as it was; sticky too (the
	 * stages make fixed names in it another user could make first) */
	assert_int_equal(chmod(w, 0777), 0);
	capture_begin();
	assert_int_equal(workdir_open("--workdir", w), -1);
	assert_non_null(strstr(capture_end(), "another user can change what is in it (mode 0777"));
	m = mode_of(w);
	assert_string_equal(m, "0777 0");
	free(m);
	assert_int_equal(chmod(w, 01777), 0);
	capture_begin();
	assert_int_equal(workdir_open("--workdir", w), -1);
	assert_non_null(strstr(capture_end(), "another user can change what is in it (mode 1777"));
	m = mode_of(w);
	assert_string_equal(m, "1777 0");
	free(m);
	/* another user's: refused */
	assert_int_equal(chmod(w, 0755), 0);
	assert_int_equal(chown(w, 65534, 65534), 0);
	capture_begin();
	assert_int_equal(workdir_open("--workdir", w), -1);
	assert_non_null(strstr(capture_end(), "another user can change what is in it"));
	unsetenv("PGBUILD_SERVER_USER");
	assert_int_equal(scratch_dir_remove(top), 0);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_expr),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_gate_step),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_server_dirs),
		cmocka_unit_test(test_workdir),
	};
	error_set_program("pgbuild", 2);
	return cmocka_run_group_tests_name("preflight", tests, NULL, NULL);
}
