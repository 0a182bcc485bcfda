/*
 * test-common.c - the shared C code: strbuf, strvec, JSON writer/reader,
 * run-command, mkdir_p.
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

static void test_strbuf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *d;
	size_t n;
	(void)state;
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "  hello");
	strbuf_addf(&sb, " %d %s  ", 42, "x");
	strbuf_trim(&sb);
	assert_string_equal(sb.buf, "hello 42 x");
	strbuf_add(&sb, "\0z", 2);
	assert_int_equal(sb.len, 12);
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, 'a');
	assert_int_equal(sb.len, 10012);
	assert_int_equal(sb.buf[sb.len], '\0');
	d = strbuf_detach(&sb, &n);
	assert_int_equal(n, 10012);
	assert_string_equal(sb.buf, "");
	free(d);
}

static void test_strvec(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;
	assert_null(sv.v[0]);
	strvec_pushl(&sv, "a", "b", NULL);
	strvec_split(&sv, "  c  d\te ");
	strvec_insert(&sv, 1, "x");
	strvec_remove(&sv, 0);
	assert_int_equal(sv.nr, 5);
	assert_string_equal(sv.v[0], "x");
	assert_string_equal(sv.v[4], "e");
	assert_null(sv.v[5]);
	assert_int_equal(strvec_find(&sv, "d"), 3);
	assert_int_equal(strvec_find(&sv, "zz"), -1);
	strvec_clear(&sv);
	assert_int_equal(sv.nr, 0);
}

static void test_json_writer(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	(void)state;
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "s"); json_string(&jw, "q\"b\\n\n\t\x01\x7f");
	json_key(&jw, "bad"); json_string(&jw, "\xff\xc3\xa9");
	json_key(&jw, "a"); json_array_begin(&jw); json_int(&jw, -3); json_double(&jw, 0.5);
	json_bool(&jw, 1); json_null(&jw); json_object_begin(&jw); json_object_end(&jw);
	json_array_end(&jw);
	json_key(&jw, "n"); json_string(&jw, NULL);
	{
		struct strvec sv = STRVEC_INIT, empty = STRVEC_INIT;
		strvec_pushl(&sv, "x", "y\"", NULL);
		json_key(&jw, "sv"); json_strvec(&jw, &sv);
		json_key(&jw, "e"); json_strvec(&jw, &empty);
		strvec_clear(&sv);
	}
	json_object_end(&jw);
	assert_string_equal(sb.buf,
		"{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f\",\"bad\":\"\\u00ff\xc3\xa9\","
		"\"a\":[-3,0.5,true,null,{}],\"n\":null,\"sv\":[\"x\",\"y\\\"\"],\"e\":[]}");
	strbuf_release(&sb);
}

static void test_json_reader(void **state)
{
	struct strbuf err = STRBUF_INIT;
	const char *text = "{\"a\": [1, 2.5e1, \"x\\u00e9\\ud83d\\ude00\"], \"b\": true,"
			   " \"c\": false, \"d\": null, \"e\": {\"f\": -0.5}}";
	struct json_value *v = json_parse(text, strlen(text), &err);
	(void)state;
	assert_non_null(v);
	assert_int_equal(json_len(json_get(v, "a")), 3);
	assert_true(json_at(json_get(v, "a"), 1)->u.number == 25.0);
	assert_string_equal(json_at(json_get(v, "a"), 2)->u.str.s, "x\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(json_get(v, "b")->u.boolean, 1);
	assert_int_equal(json_get(v, "c")->u.boolean, 0);
	assert_int_equal(json_get(v, "d")->type, JSON_NULL);
	assert_true(json_get_num(json_get(v, "e"), "f", 0) == -0.5);
	assert_null(json_get(v, "zz"));
	{
		/* round trip through the writer */
		struct strbuf sb = STRBUF_INIT;
		struct json_writer jw;
		json_writer_init(&jw, &sb);
		json_value_write(&jw, v);
		assert_string_equal(sb.buf, "{\"a\":[1,25,\"x\xc3\xa9\xf0\x9f\x98\x80\"],\"b\":true,"
					    "\"c\":false,\"d\":null,\"e\":{\"f\":-0.5}}");
		strbuf_release(&sb);
	}
	json_free(v);

	static const struct { const char *text, *err; } bad[] = {
		{ "", "line 1, column 1: expected a value" },
		{ "{\"a\" 1}", "line 1, column 6: expected ':' after an object key" },
		{ "[1,\n 2", "line 2, column 3: expected ',' or ']'" },
		{ "\"abc", "line 1, column 5: expected a closing '\"'" },
		{ "[01]", "line 1, column 3: expected ',' or ']'" },
		{ "tru", "line 1, column 1: expected true or false" },
		{ "{} x", "line 1, column 4: expected end of input" },
		{ "\"\\x\"", "line 1, column 3: expected a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_null(json_parse(bad[i].text, strlen(bad[i].text), &err));
		if (strcmp(err.buf, bad[i].err))
			fail_msg("<%s>: got <%s> want <%s>", bad[i].text, err.buf, bad[i].err);
	}
	{
		/* depth limit, not a stack overflow */
		struct strbuf deep = STRBUF_INIT;
		for (int i = 0; i < 100000; i++)
			strbuf_addch(&deep, '[');
		strbuf_reset(&err);
		assert_null(json_parse(deep.buf, deep.len, &err));
		assert_non_null(strstr(err.buf, "less deeply nested"));
		strbuf_release(&deep);
	}
	strbuf_release(&err);
}

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

/* copytree: AS makes the copy, INTO fills a directory; links stay links. */
static void test_copytree(void **state)
{
	char dir[] = "/tmp/pgopt-copytree-XXXXXX", buf[64];
	struct strvec args = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, path = STRBUF_INIT;
	ssize_t n;
	(void)state;

	copytree_args(&args, "a", "b", COPYTREE_INTO);
	assert_int_equal(args.nr, 4);
	assert_string_equal(args.v[2], "a/.");
	strvec_clear(&args);
	copytree_args(&args, "a", "b", COPYTREE_AS);
	assert_string_equal(args.v[2], "a");
	strvec_clear(&args);

	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/src", dir);
	assert_int_equal(mkdir(path.buf, 0755), 0);
	strbuf_addstr(&path, "/f");
	assert_int_equal(write_file_atomic(path.buf, "x\n", 2), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/src/l", dir);
	assert_int_equal(symlink("/nonexistent", path.buf), 0);

	strbuf_reset(&path);
	strbuf_addf(&path, "%s/src", dir);
	{
		char *as = xasprintf("%s/as", dir), *into = xasprintf("%s/into", dir);
		assert_int_equal(copytree_run(path.buf, as, COPYTREE_AS, &out), 0);
		assert_int_equal(mkdir(into, 0755), 0);
		assert_int_equal(copytree_run(path.buf, into, COPYTREE_INTO, NULL), 0);
		free(as);
		free(into);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/as/l", dir);
	n = readlink(path.buf, buf, sizeof(buf) - 1);
	assert_int_equal(n, 12);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/into/f", dir);
	assert_int_equal(access(path.buf, R_OK), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/into/src", dir);
	assert_int_not_equal(access(path.buf, F_OK), 0);       /* INTO: no extra level */
	/* a missing source: cp's exit code and what it said */
	strbuf_reset(&out);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/missing", dir);
	assert_int_not_equal(copytree_run(path.buf, "/nonexistent/x", COPYTREE_AS, &out), 0);
	assert_true(out.len > 0);
	/* fresh: a link planted at the target is refused, its target untouched */
	{
		char *src = xasprintf("%s/src", dir), *victim = xasprintf("%s/victim", dir);
		char *link = xasprintf("%s/planted", dir), *fresh = xasprintf("%s/fresh", dir);
		char *through = xasprintf("%s/victim/f", dir), *got = xasprintf("%s/fresh/f", dir);
		assert_int_equal(mkdir(victim, 0700), 0);
		assert_int_equal(symlink(victim, link), 0);
		errno = 0;
		assert_int_equal(copytree_fresh(src, link, NULL), -1);
		assert_int_equal(errno, EEXIST);
		assert_int_not_equal(access(through, F_OK), 0);
		assert_int_equal(copytree_fresh(src, fresh, NULL), 0);
		assert_int_equal(access(got, R_OK), 0);
		free(src); free(victim); free(link); free(fresh); free(through); free(got);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "rm -rf %s", dir);
	assert_int_equal(system(path.buf), 0);
	strbuf_release(&path);
	strbuf_release(&out);
}

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
	assert_true(strbuf_read_file(&sb, path) >= 0);
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

static void test_mkdir_p(void **state)
{
	char top[] = "/tmp/pgopt-mkdir-XXXXXX";
	char path[128], file[128];
	struct stat st;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(top));

	snprintf(path, sizeof(path), "%s/a/b//c/", top);
	assert_int_equal(mkdir_p(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(mkdir_p(path), 0);   /* exists: fine */

	/* a file in the way, at the end or in the middle: ENOTDIR */
	snprintf(file, sizeof(file), "%s/f", top);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	errno = 0;
	assert_int_equal(mkdir_p(file), -1);
	assert_int_equal(errno, ENOTDIR);
	snprintf(path, sizeof(path), "%s/f/x", top);
	errno = 0;
	assert_int_equal(mkdir_p(path), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_int_equal(mkdir_p(""), -1);

	unlink(file);
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_strvec),
		cmocka_unit_test(test_json_writer),
		cmocka_unit_test(test_json_reader),
		cmocka_unit_test(test_run_command),
		cmocka_unit_test(test_signal_relay),
		cmocka_unit_test(test_copytree),
		cmocka_unit_test(test_mkdir_p),
	};
	return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
