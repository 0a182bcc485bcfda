/*
 * test-bench-servercpu.c - the server CPU accounting of bench: /proc/PID/stat
 * lines parsed (a comm with spaces and parentheses, a zombie, truncated
 * lines), a snapshot summed over a directory laid out like /proc (the
 * postmaster with its reaped children's time, live children, processes of
 * other parents left out), the difference of two snapshots, the postmaster
 * found from a backend, the split of --cpus between client and server,
 * and --cpus refused when it names a CPU this process may not run on.
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

#include "pgbuild/bench/servercpu.h"
#include "wrapper/common/rmtree.h"

/* A real line of this machine's /proc (a postgres backend, fields 1-24). */
static const char backend_line[] =
	"31708 (postgres) S 31690 31690 31690 0 -1 4194624 3042 0 0 0 152 41 7 3 20 0 1 0 "
	"5120356 226570240 5386 18446744073709551615\n";

static void test_parse_line(void **state)
{
	struct servercpu_stat st;
	(void)state;
	assert_int_equal(servercpu_parse_stat(backend_line, &st), 0);
	assert_int_equal(st.pid, 31708);
	assert_string_equal(st.comm, "postgres");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 31690);
	assert_true(st.utime == 152);
	assert_true(st.stime == 41);
	assert_true(st.cutime == 7);
	assert_true(st.cstime == 3);
}

/* comm is whatever the process set: spaces and ')' inside it. */
static void test_parse_odd_comm(void **state)
{
	struct servercpu_stat st;
	(void)state;
	assert_int_equal(servercpu_parse_stat("77 (a) b (c)) Z 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0\n",
					      &st), 0);
	assert_string_equal(st.comm, "a) b (c)");
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, 1);
	assert_true(st.utime == 5 && st.stime == 6);
}

static void test_parse_bad(void **state)
{
	struct servercpu_stat st;
	(void)state;
	assert_int_equal(servercpu_parse_stat("", &st), -1);
	assert_int_equal(servercpu_parse_stat("12 (x S 1 2 3\n", &st), -1);
	assert_int_equal(servercpu_parse_stat("12 (x) S 1 2 3\n", &st), -1);   /* truncated */
	assert_int_equal(servercpu_parse_stat("x (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n", &st), -1);
}

/* A directory laid out like /proc: ROOT/PID/stat. */
static void put(const char *root, int pid, const char *comm, int ppid, int ut, int stt,
		int cut, int cst)
{
	char dir[512], path[600];
	FILE *fp;
	snprintf(dir, sizeof(dir), "%s/%d", root, pid);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/stat", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%d (%s) S %d %d %d 0 -1 0 0 0 0 0 %d %d %d %d 20 0 1 0 1 1 1\n", pid, comm,
		ppid, pid, pid, ut, stt, cut, cst);
	fclose(fp);
}

static void test_snapshot_and_difference(void **state)
{
	char root[] = "/tmp/test-bench-servercpu.XXXXXX";
	struct servercpu_snap a, b;
	long hz = sysconf(_SC_CLK_TCK);
	(void)state;
	assert_non_null(mkdtemp(root));
	/* the postmaster: 10+5 own, 100+50 of children it reaped */
	put(root, 100, "postgres", 1, 10, 5, 100, 50);
	put(root, 101, "postgres", 100, 200, 20, 0, 0);   /* a backend */
	put(root, 102, "postgres", 100, 3, 2, 1, 1);      /* checkpointer */
	put(root, 200, "bash", 1, 999, 999, 999, 999);    /* not the server's */
	put(root, 201, "postgres", 101, 777, 0, 0, 0);    /* a grandchild: not read itself */
	{
		char junk[600];     /* non-numeric names are skipped */
		snprintf(junk, sizeof(junk), "%s/self", root);
		assert_int_equal(mkdir(junk, 0755), 0);
	}
	assert_int_equal(servercpu_snapshot(root, 100, &a), 0);
	assert_true(a.ticks == 10 + 5 + 100 + 50 + 200 + 20 + 3 + 2 + 1 + 1);
	assert_int_equal(a.processes, 3);
	/* the backend exits: its time moves into the postmaster's cutime/cstime */
	assert_int_equal(remove_tree(root), 0);
	assert_int_equal(mkdir(root, 0755), 0);
	put(root, 100, "postgres", 1, 12, 5, 100 + 300, 50 + 30);
	put(root, 102, "postgres", 100, 4, 2, 1, 1);
	assert_int_equal(servercpu_snapshot(root, 100, &b), 0);
	assert_int_equal(b.processes, 2);
	/* +2 postmaster, +80 +10 backend (reaped at 300/30), +1 checkpointer */
	assert_true(b.ticks - a.ticks == 2 + (300 + 30 - 200 - 20) + 1);
	assert_true(servercpu_seconds(&a, &b) == (double)(b.ticks - a.ticks) / (double)hz);
	assert_true(servercpu_seconds(&b, &a) == 0);
	/* no postmaster line: no snapshot */
	assert_int_equal(servercpu_snapshot(root, 4242, &b), -1);
	/* a postmaster killed and not yet reaped (a zombie) neither: its
	 * children's time is gone with it, a difference would be 0 or less */
	{
		char path[600];
		FILE *fp;
		snprintf(path, sizeof(path), "%s/100/stat", root);
		fp = fopen(path, "w");
		assert_non_null(fp);
		fprintf(fp, "100 (postgres) Z 1 100 100 0 -1 0 0 0 0 0 12 5 0 0 20 0 1 0 1 1 1\n");
		fclose(fp);
		assert_int_equal(servercpu_snapshot(root, 100, &b), -1);
		/* nor one still running its exit (PF_EXITING, 0x4, in field 9):
		 * its files are closed, so its backends may be gone already */
		fp = fopen(path, "w");
		assert_non_null(fp);
		fprintf(fp, "100 (postgres) R 1 100 100 0 -1 4194564 0 0 0 0 12 5 0 0 20 0 1 0 1 1 1\n");
		fclose(fp);
		assert_int_equal(servercpu_snapshot(root, 100, &b), -1);
		/* a live one: its flags without it (4194560 = PF_RANDOMIZE | PF_SUPERPRIV) */
		fp = fopen(path, "w");
		assert_non_null(fp);
		fprintf(fp, "100 (postgres) S 1 100 100 0 -1 4194560 0 0 0 0 12 5 0 0 20 0 1 0 1 1 1\n");
		fclose(fp);
		assert_int_equal(servercpu_snapshot(root, 100, &b), 0);
	}
	assert_int_equal(remove_tree(root), 0);
}

static void test_postmaster_of(void **state)
{
	char root[] = "/tmp/test-bench-servercpu.XXXXXX";
	const char *why = NULL;
	pid_t pm = 0;
	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, 100, "postgres", 1, 0, 0, 0, 0);
	put(root, 101, "postgres", 100, 0, 0, 0, 0);
	put(root, 300, "sshd", 1, 0, 0, 0, 0);
	put(root, 301, "postgres", 300, 0, 0, 0, 0);
	assert_int_equal(servercpu_postmaster_of(root, 101, &pm, &why), 0);
	assert_int_equal(pm, 100);
	assert_int_equal(servercpu_postmaster_of(root, 300, &pm, &why), -1);
	assert_non_null(strstr(why, "not a process on this machine"));
	assert_int_equal(servercpu_postmaster_of(root, 301, &pm, &why), -1);
	assert_non_null(strstr(why, "parent is not a postgres process"));
	assert_int_equal(servercpu_postmaster_of(root, 999, &pm, &why), -1);
	assert_int_equal(remove_tree(root), 0);
}

static void test_split(void **state)
{
	cpu_set_t all, c, s;
	(void)state;
	CPU_ZERO(&all);
	CPU_SET(3, &all);
	assert_int_equal(servercpu_split(&all, &c, &s), 0);
	assert_true(CPU_ISSET(3, &c) && CPU_ISSET(3, &s));
	CPU_ZERO(&all);
	CPU_SET(0, &all);
	CPU_SET(1, &all);
	assert_int_equal(servercpu_split(&all, &c, &s), 1);
	assert_true(CPU_ISSET(1, &c) && CPU_COUNT(&c) == 1);
	assert_true(CPU_ISSET(0, &s) && CPU_COUNT(&s) == 1);
	CPU_ZERO(&all);
	for (int i = 0; i < 8; i++)
		CPU_SET(i, &all);
	assert_int_equal(servercpu_split(&all, &c, &s), 1);
	assert_int_equal(CPU_COUNT(&c), 2);
	assert_true(CPU_ISSET(6, &c) && CPU_ISSET(7, &c));
	assert_int_equal(CPU_COUNT(&s), 6);
	CPU_AND(&all, &c, &s);
	assert_int_equal(CPU_COUNT(&all), 0);
}

/* stderr while fn(list, set) runs; its return value in *rc. */
static char *parse_err(const char *list, cpu_set_t *set, int *rc)
{
	FILE *saved = stderr;
	char *err = NULL;
	size_t len = 0;
	stderr = open_memstream(&err, &len);
	*rc = servercpu_parse_cpus(list, set);
	fclose(stderr);
	stderr = saved;
	return err;
}

static void test_parse_cpus_here(void **state)
{
	cpu_set_t have, set;
	char list[256], want[512], one[16];
	char *err;
	int rc, first = -1;
	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(have), &have), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &have))
			first = c;
	assert_true(first >= 0);
	servercpu_cpu_list(&have, list, sizeof(list));
	/* the CPUs there are: taken */
	err = parse_err(list, &set, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	assert_true(CPU_EQUAL(&set, &have));
	free(err);
	/* one there is not (the last a cpu_set_t holds): refused, naming it
	 * and the CPUs there are */
	snprintf(one, sizeof(one), "%d,%d", first, CPU_SETSIZE - 1);
	if (CPU_ISSET(CPU_SETSIZE - 1, &have))
		skip();
	err = parse_err(one, &set, &rc);
	assert_int_equal(rc, -1);
	snprintf(want, sizeof(want), "invalid value \"%s\" for --cpus: no CPU %d here: the CPUs "
		 "pgbuild may use are %s\n", one, CPU_SETSIZE - 1, list);
	assert_non_null(strstr(err, want));
	free(err);
	/* the syntax first */
	err = parse_err("1-0", &set, &rc);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "expected a list like 0-1,3"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_parse_odd_comm),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_snapshot_and_difference),
		cmocka_unit_test(test_postmaster_of),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_parse_cpus_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
