/*
 * test-cluster-serveruser.c - pgbuild/cluster/serveruser.c: who runs the server side
 * when pgbuild runs as root, handing a tree to that user, and what the
 * kernel lets that user do (as the user, in a child process), and what a
 * child that runs as that user gets of ours: a fixed environment, no
 * descriptor but 0-2.  Uses the
 * real user "nobody"; the root-only parts are skipped (visibly) as another
 * user.
 */
#include <errno.h>
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

#include "pgbuild/cluster/serveruser.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

static void test_name_and_lookup(void **state)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	if (geteuid() != 0) {
		/* not root: the server runs as ourselves, nothing switches */
		assert_null(cluster_user_name());
		assert_int_equal(cluster_user_get(&u, "nosuch-user-x", NULL, &err), 0);
		assert_int_equal(u.switch_user, 0);
		assert_int_equal(u.uid, geteuid());
		cluster_user_release(&u);
		skip_because("not root: pgbuild switches to no server user");
	}
	setenv(SERVER_USER_ENV, "nobody", 1);
	assert_string_equal(cluster_user_name(), "nobody");
	assert_int_equal(cluster_user_get(&u, NULL, NULL, &err), 0);
	assert_int_equal(u.switch_user, 1);
	assert_string_equal(u.name, "nobody");
	assert_true(u.uid != 0);
	cluster_user_release(&u);
	unsetenv(SERVER_USER_ENV);
	assert_string_equal(cluster_user_name(), SERVER_USER_DEFAULT);

	/* no such user, and root: one sentence naming where the name came from */
	assert_int_equal(cluster_user_get(&u, "nosuch-user-x", "--user", &err), -1);
	assert_non_null(strstr(err.buf, "no user \"nosuch-user-x\" to run the server as"));
	assert_non_null(strstr(err.buf, "--user"));
	strbuf_reset(&err);
	setenv(SERVER_USER_ENV, "root", 1);
	assert_int_equal(cluster_user_get(&u, NULL, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "\"root\" (PGBUILD_SERVER_USER) is root"));
	unsetenv(SERVER_USER_ENV);
	strbuf_release(&err);
}

static void test_hand_tree_and_access(void **state)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	char top[] = "/tmp/pgopt-srvuser-XXXXXX", *sub, *f, *blocked = NULL;
	struct stat st;
	(void)state;
	if (geteuid() != 0)
		skip_because("handing a tree to the server user needs root");
	assert_int_equal(cluster_user_get(&u, "nobody", NULL, &err), 0);
	assert_non_null(mkdtemp(top));
	sub = xasprintf("%s/a/b", top);
	assert_int_equal(mkdir_p(sub), 0);
	f = xasprintf("%s/f", sub);
	fclose(fopen(f, "w"));

	/* 0700 root-owned: nobody cannot enter it, and is told which one */
	assert_int_equal(chmod(top, 0700), 0);
	assert_int_equal(cluster_user_reach(&u, sub, &blocked), 0);
	assert_string_equal(blocked, top);
	cluster_user_explain_blocked(&u, blocked, &why);
	assert_non_null(strstr(why.buf, "cannot enter"));
	assert_non_null(strstr(why.buf, "(mode 0700, owner root)"));
	assert_non_null(strstr(why.buf, "chmod o+x"));
	free(blocked);
	assert_false(cluster_user_can(&u, "-w", sub));

	/* searchable top, tree handed over: nobody can write in it */
	assert_int_equal(chmod(top, 0711), 0);
	assert_int_equal(cluster_user_reach(&u, sub, &blocked), 1);
	assert_null(blocked);
	assert_false(cluster_user_can(&u, "-w", sub));
	assert_int_equal(cluster_user_hand_tree(&u, sub), 2);   /* b and f */
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_uid, u.uid);
	assert_true(cluster_user_can(&u, "-w", sub));
	assert_int_equal(cluster_user_hand_tree(&u, sub), 0);   /* nothing left to do */
	/* a link the user planted in the tree changes owner itself, never
	 * what it points to (a root-only file), when the tree is handed over
	 * again; a link as the tree itself is refused */
	{
		char *secret = xasprintf("%s/secret", top), *link = xasprintf("%s/l", sub);
		char *toplink = xasprintf("%s/tl", top);
		fclose(fopen(secret, "w"));
		assert_int_equal(symlink(secret, link), 0);
		assert_int_equal(lchown(link, 0, 0), 0);
		assert_int_equal(symlink(sub, toplink), 0);
		assert_int_equal(cluster_user_hand_tree(&u, sub), 1);
		assert_int_equal(lstat(link, &st), 0);
		assert_int_equal(st.st_uid, u.uid);
		assert_int_equal(stat(secret, &st), 0);
		assert_int_equal(st.st_uid, 0);
		assert_int_equal(cluster_user_hand_tree(&u, toplink), -1);
		free(secret);
		free(link);
		free(toplink);
	}
	/* a tree that does not exist: an error */
	{
		char *none = xasprintf("%s/none", top);
		assert_int_equal(cluster_user_hand_tree(&u, none), -1);
		/* a directory that does not exist yet is "reachable": its
		 * creator says what is wrong */
		assert_int_equal(cluster_user_reach(&u, none, &blocked), 1);
		free(none);
	}
	assert_int_equal(remove_tree(top), 0);
	cluster_user_release(&u);
	strbuf_release(&err);
	strbuf_release(&why);
	free(sub);
	free(f);
}

/* Which of our variables reach the server user's processes. */
static void test_env_copied(void **state)
{
	static const struct { const char *entry; int copied; } t[] = {
		{ "LANG=C.UTF-8", 1 }, { "LANGUAGE=de", 1 }, { "LC_ALL=C", 1 },
		{ "LC_MESSAGES=C", 1 }, { "TZ=UTC", 1 }, { "TMPDIR=/tmp", 1 },
		{ "PGOPTIONS=-c a=b", 1 }, { "LC_=x", 0 }, { "LC=x", 0 }, { "LANG", 0 },
		{ "LANGX=1", 0 }, { "PATH=/x", 0 }, { "HOME=/root", 0 }, { "PGHOST=/tmp", 0 },
		{ "PGPASSWORD=x", 0 }, { "PGTZ=UTC", 0 }, { "LD_PRELOAD=/x.so", 0 },
		{ "LD_LIBRARY_PATH=/x", 0 }, { "SSH_AUTH_SOCK=/x", 0 }, { "GITHUB_TOKEN=x", 0 },
		{ "MAKEFLAGS=-j4", 0 }, { "PGBUILD_SERVER_USER=x", 0 }, { "TZDIR=/x", 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (cluster_user_env_copied(t[i].entry) != t[i].copied)
			fail_msg("%s: copied %d, want %d", t[i].entry, !t[i].copied, t[i].copied);
}

/*
 * A child made to run as the user (cluster_user_apply): as root, the fixed
 * environment and what the caller names, nothing else of ours (a marker
 * token, LD_PRELOAD, PGHOST), and no descriptor of ours but 0-2.  Not
 * root: our environment, but still no descriptor.
 */
static void test_apply(void **state)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, want = STRBUF_INIT;
	int fd = open("/dev/null", O_RDONLY);
	(void)state;
	assert_true(fd > 2);
	assert_int_equal(dup2(fd, 7), 7);
	setenv("PGOPT_SECRET_TOKEN", "x", 1);
	setenv("LD_PRELOAD", "", 1);
	setenv("PGHOST", "/nowhere", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("LC_NUMERIC", "C", 1);
	setenv("TZ", "UTC", 1);
	setenv("PGOPTIONS", "-c work_mem=1MB", 1);
	unsetenv("LANGUAGE");
	unsetenv("LC_ALL");
	unsetenv("TMPDIR");
	assert_int_equal(cluster_user_get(&u, geteuid() == 0 ? "nobody" : NULL, NULL, &err), 0);
	strvec_push(&cp.env, "GCOV_PREFIX=/g");         /* named before */
	cluster_user_apply(&u, &cp);
	strvec_pushl(&cp.env, "PGHOST=/cluster", "HOME=/h", NULL);   /* and after */
	strvec_pushl(&cp.args, "sh", "-c", "env | sort; ls /proc/self/fd | sort -n | tr '\\n' ' '",
		     NULL);
	cp.dir = "/";
	assert_int_equal(capture_command(&cp, &out, 1), 0);
	if (u.switch_user) {
		/* sh sets PWD (and no other) of its own */
		strbuf_addf(&want, "GCOV_PREFIX=/g\nHOME=/h\nLANG=C.UTF-8\nLC_NUMERIC=C\n"
			    "LOGNAME=nobody\nPATH=%s\nPGHOST=/cluster\nPGOPTIONS=-c work_mem=1MB\n"
			    "PWD=/\nTZ=UTC\nUSER=nobody\n0 1 2 3 ", CLUSTER_USER_PATH);
		assert_string_equal(out.buf, want.buf);
	} else {
		assert_non_null(strstr(out.buf, "PGOPT_SECRET_TOKEN=x\n"));
		assert_non_null(strstr(out.buf, "\n0 1 2 3 "));
		assert_null(strstr(out.buf, " 7 "));
	}
	child_process_clear(&cp);
	cluster_user_release(&u);
	close(7);
	close(fd);
	unsetenv("PGOPT_SECRET_TOKEN");
	unsetenv("LD_PRELOAD");
	unsetenv("PGHOST");
	unsetenv("LC_NUMERIC");
	unsetenv("TZ");
	unsetenv("PGOPTIONS");
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_and_lookup),
		cmocka_unit_test(test_hand_tree_and_access),
		cmocka_unit_test(test_env_copied),
		cmocka_unit_test(test_apply),
	};
	return cmocka_run_group_tests_name("serveruser", tests, NULL, NULL);
}
