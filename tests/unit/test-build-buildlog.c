/*
 * test-build-buildlog.c - unit tests of pgbuild/build/buildlog.c on compile
 * logs the test writes in a scratch directory, in the format pgoptcc
 * writes them (one JSON object a line): a half-written last line, blank
 * lines and non-objects are skipped and still counted; compiles and links
 * are told apart and failed ones left out; outputs are made absolute; the
 * last successful compile of each object wins, sorted by path, with the
 * PGOPT_PREFIX words and the policy's rule names left out of the command
 * line that decides a rebuild, and a replay's log directory rewritten to
 * the build's; a build record's environment read as data (only the
 * checked names of buildlog_env, never LD_PRELOAD, PATH and the like).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/pgbuild.h"
#include "tests/unit/fixture.h"

static char *tmpdir;

static int setup(void **state)
{
	if (!(tmpdir = scratch_dir_make("test-build-buildlog")))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	scratch_dir_remove(tmpdir);
	return 0;
}

/* Write text to tmpdir/name; its path, malloced. */
static char *write_tmp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* One compile record as pgoptcc logs it. */
static char *compile_rec(const char *cwd, const char *tu, const char *out, int exit_code,
			 const char *argv_out)
{
	return xasprintf("{\"cwd\":\"%s\",\"kind\":\"compile\",\"reason\":\"c_compile\","
			 "\"tu\":\"%s\",\"added\":[\"-O3\"],\"removed\":[],"
			 "\"argv_in\":[\"-O2\",\"-c\",\"%s\",\"-o\",\"%s\"],"
			 "\"argv_out\":[%s],\"exit\":%d,\"output\":\"%s\"}\n",
			 cwd, tu, tu, out, argv_out, exit_code, out);
}

struct seen {
	long lines[8];
	int nr;
	int stop_after;     /* return 1 after this many calls (0: never) */
};

static int note_line(const struct json_value *rec, long line, void *data)
{
	struct seen *s = data;
	if (s->nr < 8)
		s->lines[s->nr++] = line;
	return s->stop_after && s->nr >= s->stop_after;
}

static void test_each_and_count(void **state)
{
	struct strbuf log = STRBUF_INIT;
	struct seen s = { { 0 }, 0, 0 };
	char *rec = compile_rec("/b", "a.c", "a.o", 0, "\"-O2\"");
	char *path, *missing = xasprintf("%s/none.jsonl", tmpdir);

	strbuf_addstr(&log, rec);                       /* 1: a record */
	strbuf_addstr(&log, "\n");                      /* 2: blank */
	strbuf_addstr(&log, "[1,2]\n");                 /* 3: not an object */
	strbuf_addstr(&log, "{\"kind\":\"link\"\n");    /* 4: cut off, then a newline */
	strbuf_addstr(&log, rec);                       /* 5: a record */
	strbuf_addstr(&log, "{\"kind\":\"comp");        /* a build killed mid-write */
	path = write_tmp("each.jsonl", log.buf);

	assert_int_equal(buildlog_count_lines(path), 5);
	assert_int_equal(buildlog_each(path, 1, note_line, &s, NULL), 6);
	assert_int_equal(s.nr, 2);
	assert_int_equal(s.lines[0], 1);
	assert_int_equal(s.lines[1], 5);

	/* from a line on: what an incremental build's own records are */
	s.nr = 0;
	assert_int_equal(buildlog_each(path, 2, note_line, &s, NULL), 6);
	assert_int_equal(s.nr, 1);
	assert_int_equal(s.lines[0], 5);

	/* fn stops the calls, the lines are still counted */
	s.nr = 0;
	s.stop_after = 1;
	assert_int_equal(buildlog_each(path, 1, note_line, &s, NULL), 6);
	assert_int_equal(s.nr, 1);

	assert_int_equal(buildlog_count_lines(missing), 0);
	assert_int_equal(buildlog_each(missing, 1, note_line, &s, NULL), -1);
	strbuf_release(&log);
	free(rec);
	free(path);
	free(missing);
}

static struct json_value *parse(const char *text)
{
	struct json_value *v = json_parse(text, strlen(text), NULL);
	assert_non_null(v);
	return v;
}

static void test_kinds_and_outputs(void **state)
{
	static const struct {
		const char *rec;
		int compile, link;
		const char *path;       /* buildlog_output_path, NULL: none */
	} t[] = {
		{ "{\"kind\":\"compile\",\"tu\":\"a.c\",\"output\":\"a.o\",\"cwd\":\"/b/src\",\"exit\":0}",
		  1, 0, "/b/src/a.o" },
		/* failed: not the object's last successful compile */
		{ "{\"kind\":\"compile\",\"tu\":\"a.c\",\"output\":\"a.o\",\"cwd\":\"/b\",\"exit\":1}",
		  0, 0, "/b/a.o" },
		/* no exit recorded: not known to have succeeded */
		{ "{\"kind\":\"compile\",\"tu\":\"a.c\",\"output\":\"a.o\"}", 0, 0, "a.o" },
		/* a compile without a translation unit (a preprocessor run) */
		{ "{\"kind\":\"compile\",\"output\":\"a.i\",\"exit\":0}", 0, 0, "a.i" },
		{ "{\"kind\":\"link\",\"output\":\"/b/postgres\",\"cwd\":\"/x\",\"exit\":0}",
		  0, 1, "/b/postgres" },
		{ "{\"kind\":\"link\",\"exit\":0}", 0, 0, NULL },
		{ "{\"kind\":\"passthrough\",\"output\":\"conftest\",\"exit\":0}", 0, 0, "conftest" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		struct json_value *v = parse(t[i].rec);
		char *p = buildlog_output_path(v);
		if (buildlog_is_compile(v) != t[i].compile || buildlog_is_link(v) != t[i].link ||
		    (p == NULL) != (t[i].path == NULL) || (p && strcmp(p, t[i].path)))
			fail_msg("%s: compile %d link %d path %s", t[i].rec, buildlog_is_compile(v),
				 buildlog_is_link(v), p ? p : "(null)");
		free(p);
		json_free(v);
	}
}

static void test_read_json(void **state)
{
	char *good = write_tmp("rec.json", "{\"ok\":true,\"log\":{\"last_line\":7}}\n");
	char *bad = write_tmp("bad.json", "{\"ok\":tru}\n");
	char *missing = xasprintf("%s/no-such.json", tmpdir);
	struct json_value *v = buildlog_read_json(good);
	char *err = NULL;
	size_t len = 0;
	FILE *saved = stderr;

	assert_non_null(v);
	assert_int_equal((long)json_get_num(json_get(v, "log"), "last_line", -1), 7);
	json_free(v);

	stderr = open_memstream(&err, &len);
	assert_null(buildlog_read_json(bad));
	assert_null(buildlog_read_json(missing));
	fclose(stderr);
	stderr = saved;
	assert_non_null(strstr(err, bad));
	assert_non_null(strstr(err, "cannot read"));
	assert_non_null(strstr(err, missing));
	free(err);
	free(good);
	free(bad);
	free(missing);
}

static void test_objs_read(void **state)
{
	struct strbuf log = STRBUF_INIT;
	struct buildlog_objs os = { 0 }, links = { 0 }, existing = { 0 };
	char *recs[5], *path, *b_o;
	FILE *fp;

	/* b.o twice (the second wins), a.o once then a failed compile, c.o
	 * from a replay: its log directory is rewritten */
	recs[0] = compile_rec(tmpdir, "b.c", "b.o", 0,
			      "\"/usr/bin/ccache\",\"-O2\",\"-c\",\"b.c\",\"-fplugin-arg-pgopt-rules=p:1\"");
	recs[1] = compile_rec(tmpdir, "a.c", "a.o", 0, "\"-O2\",\"-c\",\"a.c\"");
	recs[2] = compile_rec(tmpdir, "b.c", "b.o", 0, "\"true\",\"-O3\",\"-c\",\"b.c\"");
	recs[3] = compile_rec(tmpdir, "a.c", "a.o", 1, "\"-O9\"");
	recs[4] = compile_rec(tmpdir, "c.c", "c.o", 0,
			      "\"-c\",\"c.c\",\"-fplugin-arg-pgopt-log=/dry/log\"");
	for (int i = 0; i < 5; i++) {
		strbuf_addstr(&log, recs[i]);
		free(recs[i]);
	}
	strbuf_addf(&log, "{\"cwd\":\"%s\",\"kind\":\"link\",\"argv_in\":[\"a.o\",\"-o\",\"prog\"],"
		    "\"argv_out\":[\"a.o\",\"-o\",\"prog\",\"-Wl,-O1\"],\"exit\":0,\"output\":\"prog\"}\n",
		    tmpdir);
	path = write_tmp("compile.jsonl", log.buf);

	buildlog_objs_read(&os, path, "/dry/log", "/b/pgopt-log", 0);
	assert_int_equal(os.nr, 3);
	/* sorted by path */
	assert_true(strcmp(os.v[0].path, os.v[1].path) < 0);
	assert_true(strcmp(os.v[1].path, os.v[2].path) < 0);
	assert_string_equal(os.v[0].tu, "a.c");
	assert_string_equal(os.v[0].argv_out, "-O2\x1f-c\x1f" "a.c\x1f");
	assert_int_equal(os.v[0].line, 2);
	/* the last of b.o's compiles, its PGOPT_PREFIX word left out */
	assert_string_equal(os.v[1].tu, "b.c");
	assert_string_equal(os.v[1].argv_out, "-O3\x1f-c\x1f" "b.c\x1f");
	assert_int_equal(os.v[1].line, 3);
	assert_string_equal(os.v[1].cwd, tmpdir);
	assert_int_equal(os.v[1].argv_in.nr, 5);
	assert_string_equal(os.v[1].argv_in.v[2], "b.c");
	assert_null(os.v[1].compiler);
	assert_int_equal(os.v[1].added.nr, 1);
	assert_string_equal(os.v[1].added.v[0], "-O3");
	assert_string_equal(os.v[2].argv_out, "-c\x1f" "c.c\x1f-fplugin-arg-pgopt-log=/b/pgopt-log\x1f");

	b_o = xasprintf("%s/b.o", tmpdir);
	assert_ptr_equal(buildlog_objs_find(&os, b_o), &os.v[1]);
	assert_null(buildlog_objs_find(&os, "/no/such.o"));

	buildlog_objs_free(&os);
	assert_int_equal(os.nr, 0);

	/* existing outputs only: b.o exists, a.o and c.o do not */
	fp = fopen(b_o, "w");
	assert_non_null(fp);
	fclose(fp);
	buildlog_objs_read(&existing, path, NULL, NULL, 1);
	assert_int_equal(existing.nr, 1);
	assert_string_equal(existing.v[0].path, b_o);
	buildlog_objs_free(&existing);

	/* links instead: the tu is the output's name */
	links.links = 1;
	buildlog_objs_read(&links, path, NULL, NULL, 0);
	assert_int_equal(links.nr, 1);
	assert_string_equal(links.v[0].tu, "prog");
	assert_string_equal(links.v[0].argv_out, "a.o\x1f-o\x1fprog\x1f-Wl,-O1\x1f");
	buildlog_objs_free(&links);

	unlink(b_o);
	free(b_o);
	free(path);
	strbuf_release(&log);
}

/* A build record's environment is data: only the checked names of the
 * table, each value checked; everything else (what a process would load
 * or run) never taken, a value that fails its check neither. */
static void test_record_env(void **state)
{
	const char *text =
		"{\"environment\":{\"PGOPT_POLICY\":\"/p/x.policy\",\"PGOPT_LOGDIR\":\"rel/log\","
		"\"PGOPT_PROFILE\":\"use src/*\",\"PGOPT_CC\":\"/tmp/evil-cc\","
		"\"LD_PRELOAD\":\"/tmp/evil.so\",\"PATH\":\"/tmp/evil\",\"GCONV_PATH\":\"/tmp/g\","
		"\"BASH_ENV\":\"/tmp/b\",\"PGOPT_PREFIX\":\"ccache\",\"CCACHE_DIR\":\"/c\","
		"\"PGOPT_BUNDLE\":\"relative\"}}";
	struct json_value *rec = json_parse(text, strlen(text), NULL);
	struct buildlog_env e;

	assert_non_null(rec);
	buildlog_env_read(rec, "rec.json", &e);
	assert_string_equal(e.policy, "/p/x.policy");
	assert_null(e.logdir);          /* not absolute */
	assert_string_equal(e.profile, "use src/*");
	assert_string_equal(e.cc, "/tmp/evil-cc"); /* kept only to compare */
	assert_null(e.bundle);          /* not absolute */
	buildlog_env_release(&e);
	json_free(rec);

	text = "{\"environment\":{\"PGOPT_PROFILE\":\"$(touch /tmp/x) use\","
	       "\"PGOPT_POLICY\":[\"/a\"],\"PGOPT_LOGDIR\":\"/a\\n/b\"}}";
	rec = json_parse(text, strlen(text), NULL);
	assert_non_null(rec);
	buildlog_env_read(rec, "rec.json", &e);
	assert_null(e.profile);         /* not a profile mode */
	assert_null(e.policy);          /* not a string */
	assert_null(e.logdir);          /* two lines */
	buildlog_env_release(&e);
	json_free(rec);
}

/* Two logs that differ only in the rule names the policy's lines gave:
 * the same command line, so a policy edit that moves lines rebuilds
 * nothing. */
static void test_rules_are_not_code(void **state)
{
	char *r1 = compile_rec(tmpdir, "a.c", "a.o", 0,
			       "\"-O3\",\"-c\",\"a.c\",\"-fplugin-arg-pgopt-rules=/p.policy:4\"");
	char *r2 = compile_rec(tmpdir, "a.c", "a.o", 0,
			       "\"-O3\",\"-c\",\"a.c\",\"-fplugin-arg-pgopt-rules=/p.policy:9\"");
	char *p1 = write_tmp("r1.jsonl", r1), *p2 = write_tmp("r2.jsonl", r2);
	struct buildlog_objs a = { 0 }, b = { 0 };

	buildlog_objs_read(&a, p1, NULL, NULL, 0);
	buildlog_objs_read(&b, p2, NULL, NULL, 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(b.nr, 1);
	assert_string_equal(a.v[0].argv_out, b.v[0].argv_out);
	assert_null(strstr(a.v[0].argv_out, "rules"));
	buildlog_objs_free(&a);
	buildlog_objs_free(&b);
	free(r1);
	free(r2);
	free(p1);
	free(p2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_and_count),
		cmocka_unit_test(test_kinds_and_outputs),
		cmocka_unit_test(test_read_json),
		cmocka_unit_test(test_objs_read),
		cmocka_unit_test(test_rules_are_not_code),
		cmocka_unit_test(test_record_env),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
