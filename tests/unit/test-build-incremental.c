/*
 * test-build-incremental.c - unit tests of pgbuild/build/incremental.c,
 * the decision of an incremental rebuild, on a real build directory: two
 * C files compiled and linked through the real pgoptcc (build/bin/pgoptcc,
 * real gcc), its compile log, then build_invalidate under another policy.
 * What a policy changes is marked out of date for make (time stamp 0) and
 * nothing else: a cflags change only its object, an ldflags change only
 * the link output, a missing object is remade; a fresh directory, and one
 * whose record says it is exactly as its last build of the same policy
 * left it, are not replayed at all.
 *
 * build_invalidate runs pgoptcc next to the running program
 * (pgbuild_pgoptcc(), pgbuild's own rule), so main() first places a copy
 * of this test in a scratch bin/ next to a link to the built pgoptcc and
 * runs that copy.  Without a built pgoptcc every test is skipped, visibly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/safefs.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/pgbuild.h"

#include "tests/unit/fixture.h"

#define SELF_ENV "TEST_BUILD_INCREMENTAL_DIR"

static const char *topdir;      /* the scratch directory (bin/ and the builds) */
static int have_pgoptcc;
static int serial;

struct tree {
	char *builddir, *src, *logdir, *logfile;
	char *a_o, *b_o, *prog;
};

/* Run pgoptcc ARGS in dir with PGOPT_LOGDIR=logdir (and PGOPT_POLICY
 * when policy is set); its exit code. */
static int pgoptcc(const char *dir, const char *logdir, const char *policy, ...)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *a;
	va_list ap;
	int r;

	strvec_push(&cp.args, pgbuild_pgoptcc());
	va_start(ap, policy);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cp.args, a);
	va_end(ap);
	strvec_pushf(&cp.env, "PGOPT_LOGDIR=%s", logdir);
	if (policy)
		strvec_pushf(&cp.env, "PGOPT_POLICY=%s", policy);
	cp.dir = dir;
	cp.no_stdin = 1;
	r = run_command(&cp);
	child_process_clear(&cp);
	return r;
}

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

/* A build directory built once under policy (NULL: none): src/a.c, src/b.c
 * compiled with -O2, linked into src/prog. */
static void make_tree(struct tree *t, const char *policy)
{
	t->builddir = xasprintf("%s/build%d", topdir, ++serial);
	t->src = xasprintf("%s/src", t->builddir);
	t->logdir = xasprintf("%s/pgopt-log", t->builddir);
	t->logfile = xasprintf("%s/%s", t->logdir, BUILDLOG_COMPILE);
	assert_int_equal(mkdir_p(t->src), 0);
	free(write_file(t->src, "a.c", "int b(int);\nint main(void) { return b(0); }\n"));
	free(write_file(t->src, "b.c", "int b(int x) { return x * 2; }\n"));
	assert_int_equal(pgoptcc(t->src, t->logdir, policy, "-O2", "-c", "a.c", "-o", "a.o", NULL), 0);
	assert_int_equal(pgoptcc(t->src, t->logdir, policy, "-O2", "-c", "b.c", "-o", "b.o", NULL), 0);
	assert_int_equal(pgoptcc(t->src, t->logdir, policy, "a.o", "b.o", "-o", "prog", NULL), 0);
	t->a_o = xasprintf("%s/a.o", t->src);
	t->b_o = xasprintf("%s/b.o", t->src);
	t->prog = xasprintf("%s/prog", t->src);
	assert_int_equal(buildlog_count_lines(t->logfile), 3);
}

static void free_tree(struct tree *t)
{
	remove_tree(t->builddir);
	free(t->builddir);
	free(t->src);
	free(t->logdir);
	free(t->logfile);
	free(t->a_o);
	free(t->b_o);
	free(t->prog);
}

/* The struct build of `pgbuild build` in t's directory, about to build
 * again under policy (NULL: none). */
static void init_build(struct build *b, const struct tree *t, const char *policy)
{
	build_init(b);
	b->builddir = xstrdup(t->builddir);
	b->logdir = xstrdup(t->logdir);
	b->logfile = xstrdup(t->logfile);
	b->policy = policy ? xstrdup(policy) : NULL;
	b->policy_sha = build_policy_sha(policy ? policy : "none");
	assert_non_null(b->policy_sha);
	if (policy)
		strvec_pushf(&b->env, "PGOPT_POLICY=%s", policy);
	b->o.jobs = 2;
	b->quiet = 1;
}

static void free_build(struct build *b)
{
	free(b->builddir);
	free(b->logdir);
	free(b->logfile);
	free(b->policy);
	free(b->policy_sha);
	strvec_clear(&b->env);
	strvec_clear(&b->configure);
	strvec_clear(&b->invalidated_tus);
	strvec_clear(&b->relinked_outputs);
	strvec_clear(&b->policy_refs);
	strvec_clear(&b->policy_ref_text);
	strbuf_release(&b->bench);
	strbuf_release(&b->policy_text);
}

/* Marked out of date for make (build.h: time stamp 0)? */
static int stale(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_mtime == 0;
}

static char *policy_file(const char *name, const char *text)
{
	return write_file(topdir, name, text);
}

static void test_cflags_change(void **state)
{
	struct tree t;
	struct build b;
	char *p;

	if (!have_pgoptcc)
		skip_because("no build/bin/pgoptcc (make builds it)");
	p = policy_file("a-O3.policy", "[a.c]\ncflags += -O3\n");
	make_tree(&t, NULL);
	init_build(&b, &t, p);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 2);
	assert_int_equal(b.links_checked, 1);
	assert_int_equal(b.invalidated, 1);
	assert_int_equal(b.invalidated_tus.nr, 1);
	assert_string_equal(b.invalidated_tus.v[0], "a.c");
	assert_int_equal(b.relinked, 0);
	assert_true(stale(t.a_o));
	assert_false(stale(t.b_o));
	assert_false(stale(t.prog));
	/* the build's own log is untouched: the replay logs elsewhere */
	assert_int_equal(buildlog_count_lines(t.logfile), 3);
	free_build(&b);
	free_tree(&t);
	free(p);
}

static void test_ldflags_change(void **state)
{
	struct tree t;
	struct build b;
	char *p;

	if (!have_pgoptcc)
		skip_because("no build/bin/pgoptcc (make builds it)");
	p = policy_file("ld.policy", "[global]\nldflags += -Wl,-O1\n");
	make_tree(&t, NULL);
	init_build(&b, &t, p);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.invalidated, 0);
	assert_int_equal(b.relinked, 1);
	assert_int_equal(b.relinked_outputs.nr, 1);
	assert_string_equal(b.relinked_outputs.v[0], "src/prog");
	assert_true(stale(t.prog));
	assert_false(stale(t.a_o));
	assert_false(stale(t.b_o));
	free_build(&b);
	free_tree(&t);
	free(p);
}

static void test_same_policy(void **state)
{
	struct tree t;
	struct build b;

	if (!have_pgoptcc)
		skip_because("no build/bin/pgoptcc (make builds it)");
	/* no record: replayed, and nothing differs */
	make_tree(&t, NULL);
	init_build(&b, &t, NULL);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 2);
	assert_int_equal(b.invalidated, 0);
	assert_int_equal(b.relinked, 0);
	assert_false(stale(t.a_o) || stale(t.b_o) || stale(t.prog));
	free_build(&b);

	/* an object gone missing is remade (PostgreSQL's targets are
	 * .SECONDARY: make_stale creates it with time stamp 0) */
	assert_int_equal(unlink(t.b_o), 0);
	init_build(&b, &t, NULL);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.invalidated, 1);
	assert_string_equal(b.invalidated_tus.v[0], "b.c");
	assert_true(stale(t.b_o));
	assert_false(stale(t.a_o));
	free_build(&b);
	free_tree(&t);
}

static void test_fresh(void **state)
{
	struct tree t;
	struct build b;
	char *p;

	if (!have_pgoptcc)
		skip_because("no build/bin/pgoptcc (make builds it)");
	p = policy_file("fresh.policy", "[a.c]\ncflags += -O3\n");
	make_tree(&t, NULL);
	init_build(&b, &t, p);
	b.fresh = 1;
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 0);
	assert_int_equal(b.invalidated, 0);
	assert_false(stale(t.a_o));
	free_build(&b);
	free_tree(&t);
	free(p);
}

/* pgopt-build.json as build_write_record writes the fields the shortcut reads. */
static void write_record(const struct tree *t, int ok, const char *policy, const char *sha,
			 long last_line)
{
	char *text = xasprintf("{\"ok\":%s,\"policy\":{\"path\":\"%s\",\"sha256\":\"%s\"},"
			       "\"log\":{\"last_line\":%ld}}\n", ok ? "true" : "false",
			       policy ? policy : "", sha, last_line);
	free(write_file(t->builddir, BUILDLOG_RECORD, text));
	free(text);
}

static void test_record_shortcut(void **state)
{
	struct tree t;
	struct build b;
	char *p, *sha;

	if (!have_pgoptcc)
		skip_because("no build/bin/pgoptcc (make builds it)");
	p = policy_file("rec.policy", "[a.c]\ncflags += -O3\n");
	sha = build_policy_sha(p);
	assert_non_null(sha);
	make_tree(&t, p);

	/* the record says: this policy, nothing compiled since: no dry run */
	write_record(&t, 1, p, sha, 3);
	init_build(&b, &t, p);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 0);
	free_build(&b);

	/* a failed last build: replayed (the same flags: nothing to redo) */
	write_record(&t, 0, p, sha, 3);
	init_build(&b, &t, p);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 2);
	assert_int_equal(b.invalidated, 0);
	free_build(&b);

	/* compiled since the record (one more log line): replayed */
	write_record(&t, 1, p, sha, 2);
	init_build(&b, &t, p);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 2);
	free_build(&b);

	/* another policy (the record's hash differs): replayed, and the
	 * object the old policy's -O3 was for is rebuilt */
	write_record(&t, 1, p, sha, 3);
	init_build(&b, &t, NULL);
	assert_int_equal(build_invalidate(&b), 0);
	assert_int_equal(b.replayed, 2);
	assert_int_equal(b.invalidated, 1);
	assert_string_equal(b.invalidated_tus.v[0], "a.c");
	free_build(&b);
	free_tree(&t);
	free(sha);
	free(p);
}

/* Copy the file at from to to (mode 0755). */
static int copy_exe(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	int fd, r = -1;

	if (sfs_read(AT_FDCWD, from, SFS_IN_BINARY, 0, &sb, NULL) < 0)
		return -1;
	fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd >= 0) {
		r = write_all(fd, sb.buf, sb.len) < 0 ? -1 : 0;
		if (close(fd) < 0)
			r = -1;
	}
	strbuf_release(&sb);
	return r;
}

/*
 * Run as a copy in a scratch bin/ beside a link to the built pgoptcc
 * (the build's bin/pgoptcc, ../bin from this test's directory), so
 * pgbuild_pgoptcc() names it.  Returns only in the copy, or when there is
 * no pgoptcc (have_pgoptcc 0).
 */
static void run_beside_pgoptcc(char **argv)
{
	char exe[PATH_MAX], *slash, *real, *bin, *copy, *link_path;
	char tmpl[] = "/tmp/test-build-incremental.XXXXXX";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	{
		char *p = xasprintf("%s/../bin/pgoptcc", exe);
		real = path_real(p);
		free(p);
	}
	*slash = '/';
	if (!real || access(real, X_OK) != 0) {
		fprintf(stderr, "# skip: no built pgoptcc next to %s (make all first)\n", exe);
		free(real);
		return;
	}
	if (!mkdtemp(tmpl))
		die(1, "mkdtemp: %s", strerror(errno));
	bin = xasprintf("%s/bin", tmpl);
	copy = xasprintf("%s/test-build-incremental", bin);
	link_path = xasprintf("%s/pgoptcc", bin);
	if (mkdir(bin, 0755) < 0 || copy_exe(exe, copy) < 0 || symlink(real, link_path) < 0)
		die(1, "cannot set up %s: %s", bin, strerror(errno));
	setenv(SELF_ENV, tmpl, 1);
	execv(copy, argv);
	die(1, "cannot run %s: %s", copy, strerror(errno));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cflags_change),
		cmocka_unit_test(test_ldflags_change),
		cmocka_unit_test(test_same_policy),
		cmocka_unit_test(test_fresh),
		cmocka_unit_test(test_record_shortcut),
	};
	int r;

	(void)argc;
	unsetenv("PGOPT_POLICY");
	unsetenv("PGOPT_PREFIX");
	unsetenv("PGOPT_LOGDIR");
	topdir = getenv(SELF_ENV);
	if (!topdir)
		run_beside_pgoptcc(argv);
	topdir = getenv(SELF_ENV);
	have_pgoptcc = topdir != NULL;
	pgbuild_find_self();
	r = cmocka_run_group_tests(tests, NULL, NULL);
	if (topdir)
		remove_tree(topdir);
	return r;
}
