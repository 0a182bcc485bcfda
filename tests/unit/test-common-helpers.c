/*
 * test-common-helpers.c - the small shared helpers of wrapper/common that replace
 * what pgbuild used to write again in each command: tree removal
 * (rmtree.h), the monotonic clock and duration text (clock.h), absolute
 * paths (path.h), the end of a log (textfile.h) and the quiet atomic write
 * (fdio.h).  Real files in a scratch directory under /tmp.
 */
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/safefs.h"
#include "wrapper/common/clock.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/path.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/textfile.h"
#include "wrapper/common/xalloc.h"

/* A scratch directory, removed by the test that made it. */
static char *scratch(void)
{
	char *d = xstrdup("/tmp/pgopt-helpers-XXXXXX");
	assert_non_null(mkdtemp(d));
	return d;
}

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static void test_remove_tree(void **state)
{
	char *top = scratch(), *p;
	(void)state;
	/* a tree with files, empty and read-only directories, a symlink out
	 * of the tree (must not be followed) and 40 levels of depth */
	p = xasprintf("%s/t/a/b/c", top);
	assert_int_equal(mkdir_p(p), 0);
	free(p);
	p = xasprintf("%s/t/a/b/c/f", top);
	put(p, "x");
	free(p);
	p = xasprintf("%s/t/empty", top);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/keep", top);
	put(p, "outside");
	free(p);
	p = xasprintf("%s/t/link", top);
	{
		char *target = xasprintf("%s/keep", top);
		assert_int_equal(symlink(target, p), 0);
		free(target);
	}
	free(p);
	{
		struct strbuf deep = STRBUF_INIT;
		strbuf_addf(&deep, "%s/t/deep", top);
		for (int i = 0; i < 40; i++)
			strbuf_addstr(&deep, "/d");
		assert_int_equal(mkdir_p(deep.buf), 0);
		strbuf_release(&deep);
	}
	for (int i = 0; i < 50; i++) {
		p = xasprintf("%s/t/a/many-%02d", top, i);
		put(p, "y");
		free(p);
	}
	p = xasprintf("%s/t/a/b", top);
	assert_int_equal(chmod(p, 0555), 0);
	free(p);

	p = xasprintf("%s/t", top);
	assert_int_equal(remove_tree(p), 0);
	assert_false(exists(p));
	/* the link's target is untouched */
	{
		char *keep = xasprintf("%s/keep", top);
		assert_true(exists(keep));
		/* a plain file and a missing path, like rm -rf */
		assert_int_equal(remove_tree(keep), 0);
		assert_false(exists(keep));
		free(keep);
	}
	assert_int_equal(remove_tree(p), 0);
	free(p);

	/* a symbolic link to a directory: the link goes, the directory stays */
	p = xasprintf("%s/dir", top);
	assert_int_equal(mkdir(p, 0755), 0);
	{
		char *l = xasprintf("%s/l", top);
		assert_int_equal(symlink(p, l), 0);
		assert_int_equal(remove_tree(l), 0);
		assert_false(exists(l));
		assert_true(exists(p));
		free(l);
	}
	free(p);

	/* a failure is -1 with errno: a tree inside a directory we may not
	 * write (only when not root: root may write anywhere) */
	if (geteuid() != 0) {
		char *ro = xasprintf("%s/ro", top), *f = xasprintf("%s/ro/f", top);
		assert_int_equal(mkdir(ro, 0755), 0);
		put(f, "z");
		assert_int_equal(chmod(ro, 0555), 0);
		errno = 0;
		assert_int_equal(remove_tree(ro), -1);
		assert_int_equal(errno, EACCES);
		assert_int_equal(chmod(ro, 0755), 0);
		free(ro);
		free(f);
	}
	assert_int_equal(remove_tree(top), 0);
	assert_false(exists(top));
	free(top);
}

static void test_clock(void **state)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int64_t us0 = clock_us();
	double ms0 = clock_ms(), s0 = clock_seconds(), s1;
	(void)state;
	nanosleep(&ts, NULL);
	s1 = clock_seconds();
	/* the three read one clock: 20 ms later by each of them */
	assert_true(clock_us() - us0 >= 20000);
	assert_true(clock_ms() - ms0 >= 20.0);
	assert_true(s1 - s0 >= 0.020 && s1 - s0 < 5);
	assert_true(clock_us() / 1000000 - (int64_t)s1 <= 1);
}

static void test_fmt_duration(void **state)
{
	static const struct {
		double s;
		int decimals;
		const char *want;
	} rows[] = {
		{ 0, 1, "0.0s" },
		{ 4.24, 1, "4.2s" },
		{ 36.4, 1, "36.4s" },
		{ 59.94, 1, "59.9s" },
		{ 59.96, 1, "1m00s" },  /* would print as 60.0s */
		{ 12.4, 0, "12s" },
		{ 59.6, 0, "1m00s" },
		{ 187, 0, "3m07s" },
		{ 187.4, 1, "3m07s" },
		{ 3599.4, 0, "59m59s" },
		{ 3723, 0, "1h02m03s" },
		{ 90061, 2, "25h01m01s" },
		{ -1, 1, "-" },
		{ NAN, 0, "-" },
		{ INFINITY, 0, "-" },
	};
	char buf[32];
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_ptr_equal(fmt_duration(rows[i].s, rows[i].decimals, buf, sizeof(buf)), buf);
		assert_string_equal(buf, rows[i].want);
	}
}

static void test_path(void **state)
{
	char *top = scratch(), *real_top, *p, *q, cwd[PATH_MAX];
	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	real_top = realpath(top, NULL);
	assert_non_null(real_top);
	assert_int_equal(chdir(top), 0);
	p = path_absolute("a/b");
	q = xasprintf("%s/a/b", real_top);
	assert_string_equal(p, q);   /* need not exist */
	free(p);
	free(q);
	p = path_absolute("/x/../y");
	assert_string_equal(p, "/x/../y");  /* absolute: unchanged */
	free(p);
	p = path_absolute(".");
	assert_string_equal(p, real_top);
	free(p);
	/* path_real: canonical, or NULL with the reason */
	assert_int_equal(mkdir("d", 0755), 0);
	assert_int_equal(symlink("d", "l"), 0);
	p = path_real("./l/../d");
	assert_string_equal(p, q = xasprintf("%s/d", real_top));
	free(p);
	free(q);
	assert_null(path_real("nosuch"));
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(remove_tree(top), 0);
	free(real_top);
	free(top);
}

static void test_textfile(void **state)
{
	char *top = scratch(), *f = xasprintf("%s/log", top), *l;
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp;
	static const char text[] = "one\ntwo error here\nthree\n\n  \n";
	(void)state;
	put(f, text);
	l = textfile_last_line(f, NULL);
	assert_string_equal(l, "three");       /* blank lines do not count */
	free(l);
	l = textfile_last_line(f, "error");
	assert_string_equal(l, "two error here");
	free(l);
	assert_null(textfile_last_line(f, "nosuch"));
	{
		char *missing = xasprintf("%s/none", top);
		assert_null(textfile_last_line(missing, NULL));
		fp = open_memstream(&out, &outlen);
		textfile_print_tail(missing, 3, fp);   /* nothing */
		fclose(fp);
		assert_int_equal(outlen, 0);
		free(out);
		free(missing);
	}
	assert_string_equal(text_tail(text, strlen(text), 2), "two error here\nthree\n\n  \n");
	assert_string_equal(text_tail(text, strlen(text), 1), "three\n\n  \n");
	assert_string_equal(text_tail(text, strlen(text), 10), text);
	fp = open_memstream(&out, &outlen);
	textfile_print_tail(f, 2, fp);
	fclose(fp);
	assert_string_equal(out, "two error here\nthree\n");
	free(out);
	{
		/* a failed command's log in an error: its last line, or says it has none */
		struct strbuf note = STRBUF_INIT;
		char *empty = xasprintf("%s/empty", top), *want;
		put(empty, "\n  \n");
		textfile_note_tail(f, &note);
		want = xasprintf(" (three; log %s)", f);
		assert_string_equal(note.buf, want);
		free(want);
		strbuf_reset(&note);
		textfile_note_tail(empty, &note);
		want = xasprintf(" (log %s: no line to show)", empty);
		assert_string_equal(note.buf, want);
		free(want);
		strbuf_release(&note);
		free(empty);
	}
	assert_int_equal(remove_tree(top), 0);
	free(f);
	free(top);
}

static void test_write_file_atomic_quiet(void **state)
{
	char *top = scratch(), *f = xasprintf("%s/r.json", top);
	char *bad = xasprintf("%s/no/r.json", top);
	struct strbuf sb = STRBUF_INIT;
	char *err = NULL;
	size_t errlen = 0;
	FILE *saved = stderr;
	(void)state;
	assert_int_equal(write_file_atomic_quiet(f, "{}\n", 3), 0);
	assert_true(sfs_read(AT_FDCWD, f, SFS_IN_BINARY, 0, &sb, NULL) >= 0);
	assert_string_equal(sb.buf, "{}\n");
	/* a failure says nothing, sets errno and leaves no file */
	stderr = open_memstream(&err, &errlen);
	errno = 0;
	assert_int_equal(write_file_atomic_quiet(bad, "x", 1), -1);
	fclose(stderr);
	stderr = saved;
	assert_int_equal(errno, ENOENT);
	assert_int_equal(errlen, 0);
	free(err);
	unlink(f);
	assert_int_equal(rmdir(top), 0);   /* no temporary file left */
	strbuf_release(&sb);
	free(f);
	free(bad);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remove_tree),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_fmt_duration),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_textfile),
		cmocka_unit_test(test_write_file_atomic_quiet),
	};
	return cmocka_run_group_tests_name("helpers", tests, NULL, NULL);
}
