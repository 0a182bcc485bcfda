/*
 * regress.c - `pgbuild regress`: PostgreSQL's own regression suite over a
 * build directory, with a parsed summary.
 *
 * `make check` builds a temporary installation inside the build tree and
 * starts a throw-away server there; PostgreSQL refuses to run that server
 * as root.  When pgbuild runs as root it therefore runs make as an
 * unprivileged user (--user, default postgres) after handing the build tree
 * to that user (chown -R): `make check` writes into the tree
 * (tmp_install/, results/, regression.diffs), so the user must own it.
 * pgbuild says so on stderr.  Later builds as root still work in that tree.
 *
 * The compiler environment of the build (PGOPT_POLICY, PGOPT_LOGDIR from
 * <builddir>/pgopt-build.json) is set again, so anything make still has to
 * compile gets the same flags; PGOPT_PREFIX is cleared (the ccache directory
 * belongs to the building user).
 *
 * Output (stdout): one line per suite and, last, the verdict line, e.g.
 *     core: 217 tests, 217 passed, 0 failed
 *     regress: PASSED (217 tests)
 * Exit: 0 every test passed, 1 a test failed (the failed tests and the
 * regression.diffs paths are listed), 2 the suite could not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/buildlog.h"
#include "cluster/serveruser.h"
#include "pgbuild.h"

/* What one `make ... check` run reported. */
struct suite {
	const char *name;        /* "core" or "contrib" */
	long passed;             /* tests reported "ok" */
	long failed;             /* tests reported "FAILED" */
	long ignored;            /* "failed (ignored)" */
	long summaries;          /* pg_regress summary blocks seen (suites) */
	struct strvec failed_tests;
	struct strvec diffs;     /* regression.diffs paths */
	int make_exit;           /* exit code of make */
	char *log;               /* its output */
};

/*
 * Parse one line of pg_regress output:
 *   "test tablespace                   ... ok          318 ms"
 *   "     boolean                      ... FAILED       98 ms"
 *   "     stats                        ... failed (ignored)"
 */
static void parse_line(struct suite *s, const char *line)
{
	const char *dots = strstr(line, " ... ");
	const char *q, *e;
	const char *name_end, *name;

	if (dots) {
		const char *res = dots + 5;
		while (*res == ' ')
			res++;
		name_end = dots;
		while (name_end > line && name_end[-1] == ' ')
			name_end--;
		name = name_end;
		while (name > line && name[-1] != ' ')
			name--;
		if (name == name_end)
			return;
		if (!strncmp(res, "ok", 2) && (!res[2] || res[2] == ' ')) {
			s->passed++;
		} else if (!strncmp(res, "FAILED", 6)) {
			s->failed++;
			strvec_push_nodup(&s->failed_tests,
					  xstrndup(name, (size_t)(name_end - name)));
		} else if (!strncmp(res, "failed (ignored)", 16)) {
			s->ignored++;
		}
		return;
	}
	if (strstr(line, " tests passed") || strstr(line, " tests failed") ||
	    strstr(line, " test passed") || strstr(line, " test failed"))
		if (line[strspn(line, " ")] != '\0' &&
		    (strstr(line, "All ") || strstr(line, " of ")))
			s->summaries++;
	if ((q = strstr(line, "regression.diffs\"")) && (e = q) && (q = memrchr(line, '"', (size_t)(q - line)))) {
		char *p = xstrndup(q + 1, (size_t)(e - q - 1) + strlen("regression.diffs"));
		if (strvec_find(&s->diffs, p) < 0)
			strvec_push(&s->diffs, p);
		free(p);
	}
}

static void parse_output(struct suite *s, const char *text)
{
	while (*text) {
		const char *e = strchr(text, '\n');
		size_t n = e ? (size_t)(e - text) : strlen(text);
		char *line = xstrndup(text, n);
		parse_line(s, line);
		free(line);
		text += n + (e ? 1 : 0);
	}
}

/* abs_top_srcdir from the build tree's src/Makefile.global, malloced. */
static char *top_srcdir(const char *builddir)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/src/Makefile.global", builddir);
	char *r = NULL, *p;
	if (strbuf_read_file(&sb, path) >= 0 && (p = strstr(sb.buf, "\nabs_top_srcdir = "))) {
		p += strlen("\nabs_top_srcdir = ");
		r = xstrndup(p, strcspn(p, "\n"));
	}
	strbuf_release(&sb);
	free(path);
	return r;
}

static int run_suite(struct suite *s, const char *builddir, const struct server_user *pw,
		     const struct strvec *env, const char *const *make_args, int verbose_out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *logpath = xasprintf("%s/pgopt-regress-%s.log", builddir, s->name);

	strvec_pushv(&cp.args, make_args);
	strvec_pushv(&cp.env, (const char *const *)env->v);
	cp.dir = builddir;
	cp.no_stdin = 1;
	if (pw)
		server_user_apply(pw, &cp);
	{
		struct strbuf line = STRBUF_INIT;
		for (const char *const *a = make_args; *a; a++)
			strbuf_addf(&line, "%s%s", a == make_args ? "" : " ", *a);
		fprintf(stderr, "regress: %s: %s ...\n", s->name, line.buf);
		strbuf_release(&line);
	}
	/* make, pg_regress and its temporary server in a group of their own,
	 * so that a signal to us (Ctrl-C, kill, a CI timeout) stops them all:
	 * pg_regress does not stop its server when it is killed */
	cp.new_pgroup = 1;
	s->make_exit = capture_command_forwarding(&cp, &out, 1, 1);
	child_process_clear(&cp);
	write_file_atomic(logpath, out.buf, out.len);
	if (verbose_out)
		fputs(out.buf, stderr);
	parse_output(s, out.buf);
	s->log = logpath;
	strbuf_release(&out);
	return s->make_exit;
}

static void print_suite(const struct suite *s)
{
	printf("%s: %ld tests, %ld passed, %ld failed", s->name,
	       s->passed + s->failed + s->ignored, s->passed, s->failed);
	if (s->ignored)
		printf(", %ld failed but ignored", s->ignored);
	if (!strcmp(s->name, "contrib"))
		printf(" (%ld suites)", s->summaries);
	printf("\n");
	for (size_t i = 0; i < s->failed_tests.nr; i++)
		printf("%s: FAILED %s\n", s->name, s->failed_tests.v[i]);
	for (size_t i = 0; i < s->diffs.nr; i++)
		printf("%s: diffs %s\n", s->name, s->diffs.v[i]);
	if (s->make_exit != 0 && !s->failed)
		printf("%s: make exited with %d; see %s\n", s->name, s->make_exit, s->log);
}

static void suite_json(struct json_writer *jw, const struct suite *s)
{
	json_key(jw, s->name);
	json_object_begin(jw);
	json_key(jw, "passed"); json_int(jw, s->passed);
	json_key(jw, "failed"); json_int(jw, s->failed);
	json_key(jw, "ignored"); json_int(jw, s->ignored);
	json_key(jw, "make_exit"); json_int(jw, s->make_exit);
	json_key(jw, "log"); json_string(jw, s->log);
	json_key(jw, "failed_tests");
	json_strvec(jw, &s->failed_tests);
	json_key(jw, "diffs");
	json_strvec(jw, &s->diffs);
	json_object_end(jw);
}

static void regress_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild regress --builddir DIR [--contrib] [--tests \"A B\"] [--user NAME]\n"
"                       [--json FILE]\n"
"\n"
"Run PostgreSQL's regression suite (make check) in a build directory made\n"
"by `pgbuild build`, and print a summary.  As root, make runs as --user\n"
"(default postgres) and the build tree is handed to that user first,\n"
"because PostgreSQL's test server refuses to run as root.\n"
"\n"
"  --builddir DIR   the build directory (required)\n"
"  --contrib        also run make -C contrib check\n"
"  --tests \"A B\"    run only these core tests (make check-tests; PostgreSQL 15\n"
"                   needs test_setup first)\n"
"  --temp-config F  append F to the test server's postgresql.conf\n"
"  --no-core        skip the core suite (with --contrib)\n"
"  --user NAME      unprivileged user when running as root (default postgres)\n"
"  -j, --jobs N     parallel make jobs for contrib (default: CPUs)\n"
"  --json FILE      write the summary as JSON\n"
"  -v, --verbose    show make's output\n"
"\n"
"Exit: 0 all tests passed, 1 a test failed, 2 the suite could not run.\n");
}

enum { OPT_BUILDDIR = 256, OPT_CONTRIB, OPT_NO_CORE, OPT_USER, OPT_JSON, OPT_TESTS,
       OPT_TEMP_CONFIG };

PGBUILD_COMMAND(regress, "run PostgreSQL's regression suite (make check) on a build")
{
	static const struct option opts[] = {
		{ "builddir", required_argument, NULL, OPT_BUILDDIR },
		{ "contrib", no_argument, NULL, OPT_CONTRIB },
		{ "no-core", no_argument, NULL, OPT_NO_CORE },
		{ "user", required_argument, NULL, OPT_USER },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "tests", required_argument, NULL, OPT_TESTS },
		{ "temp-config", required_argument, NULL, OPT_TEMP_CONFIG },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *builddir_arg = NULL, *user = "postgres", *json_path = NULL;
	const char *tests = NULL, *temp_config = NULL;
	int contrib = 0, core = 1, verbose_out = 0, jobs, c, rc = PGBUILD_EXIT_ERROR;
	char builddir[PATH_MAX];
	struct server_user su = SERVER_USER_INIT, *pw = NULL;
	struct strvec env = STRVEC_INIT;
	struct suite suites[2];
	int nsuites = 0;
	char *srcdir = NULL, *path;
	long total = 0, failed = 0;

	memset(suites, 0, sizeof(suites));
	jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs < 1)
		jobs = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_BUILDDIR: builddir_arg = optarg; break;
		case OPT_CONTRIB: contrib = 1; break;
		case OPT_NO_CORE: core = 0; break;
		case OPT_USER: user = optarg; break;
		case OPT_JSON: json_path = optarg; break;
		case OPT_TESTS: tests = optarg; break;
		case OPT_TEMP_CONFIG: temp_config = optarg; break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 1024) {
				error("invalid value \"%s\" for --jobs: expected an integer from 1 to 1024", optarg);
				return PGBUILD_EXIT_ERROR;
			}
			jobs = (int)v;
			break;
		}
		case 'v': verbose_out = 1; break;
		case 'h': regress_usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"pgbuild regress --help\".\n");
			return PGBUILD_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		return PGBUILD_EXIT_ERROR;
	}
	if (!builddir_arg) {
		error("--builddir is required");
		fprintf(stderr, "Try \"pgbuild regress --help\".\n");
		return PGBUILD_EXIT_ERROR;
	}
	if (!core && !contrib) {
		error("--no-core without --contrib leaves nothing to run");
		return PGBUILD_EXIT_ERROR;
	}
	if (!realpath(builddir_arg, builddir)) {
		error("--builddir \"%s\": %s", builddir_arg, strerror(errno));
		return PGBUILD_EXIT_ERROR;
	}
	path = xasprintf("%s/config.status", builddir);
	if (access(path, F_OK) < 0) {
		error("--builddir \"%s\" is not a configured PostgreSQL build tree (no config.status)",
		      builddir);
		free(path);
		return PGBUILD_EXIT_ERROR;
	}
	free(path);
	srcdir = top_srcdir(builddir);

	/* the compiler environment of the build, in case make compiles */
	path = xasprintf("%s/%s", builddir, BUILDLOG_RECORD);
	if (access(path, F_OK) == 0) {
		struct json_value *rec = buildlog_read_json(path);
		const struct json_value *e = json_get(rec, "environment");
		for (size_t i = 0; e && e->type == JSON_OBJECT && i < e->u.list.nr; i++) {
			const char *k = e->u.list.keys[i];
			const struct json_value *v = e->u.list.items[i];
			if (!strcmp(k, "PGOPT_POLICY") || !strcmp(k, "PGOPT_LOGDIR"))
				if (v->type == JSON_STRING)
					strvec_pushf(&env, "%s=%s", k, v->u.str.s);
		}
		json_free(rec);
	}
	free(path);
	strvec_pushl(&env, "PGOPT_PREFIX=", "PGOPT_ROOT", NULL);
	if (temp_config) {
		char real[PATH_MAX];
		if (!realpath(temp_config, real)) {
			error("--temp-config \"%s\": %s", temp_config, strerror(errno));
			goto out;
		}
		strvec_pushf(&env, "EXTRA_REGRESS_OPTS=--temp-config=%s", real);
	}

	if (geteuid() == 0) {
		struct strbuf err = STRBUF_INIT;
		long changed;
		if (server_user_get(&su, user, "--user", &err) < 0) {
			error("%s", err.buf);
			strbuf_release(&err);
			goto out;
		}
		strbuf_release(&err);
		pw = &su;
		if ((changed = server_user_hand_tree(pw, builddir)) < 0) {
			error("cannot hand the build tree %s to user %s", builddir, user);
			goto out;
		}
		fprintf(stderr, "regress: running as user %s: PostgreSQL's test server refuses "
			"to run as root; build tree %s is owned by %s (%ld files changed owner)\n",
			user, builddir, user, changed);
		if (!server_user_can(pw, "-w", builddir)) {
			error("user %s cannot write %s (check the permissions of its parent directories)",
			      user, builddir);
			goto out;
		}
		if (srcdir) {
			char *cfg = xasprintf("%s/configure", srcdir);
			int ok = server_user_can(pw, "-r", cfg);
			free(cfg);
			if (!ok) {
				error("user %s cannot read the source tree %s", user, srcdir);
				goto out;
			}
		}
		strvec_pushf(&env, "HOME=%s", pw->home);
		strvec_pushf(&env, "USER=%s", pw->name);
		strvec_pushf(&env, "LOGNAME=%s", pw->name);
	}

	if (core) {
		char *t = tests ? xasprintf("TESTS=%s", tests) : NULL;
		const char *args[] = { "make", tests ? "check-tests" : "check", t, NULL };
		suites[nsuites].name = "core";
		run_suite(&suites[nsuites++], builddir, pw, &env, args, verbose_out);
		free(t);
	}
	if (contrib) {
		char *j = xasprintf("-j%d", jobs);
		const char *args[] = { "make", j, "-k", "-C", "contrib", "check", NULL };
		suites[nsuites].name = "contrib";
		run_suite(&suites[nsuites++], builddir, pw, &env, args, verbose_out);
		free(j);
	}

	rc = 0;
	for (int i = 0; i < nsuites; i++) {
		struct suite *s = &suites[i];
		print_suite(s);
		total += s->passed + s->failed + s->ignored;
		failed += s->failed;
		if (s->failed)
			rc = PGBUILD_EXIT_FAIL;
		else if (s->make_exit != 0 || s->passed == 0) {
			error("%s suite did not run to the end (make exited with %d, %ld tests ran); "
			      "last lines of %s:", s->name, s->make_exit, s->passed, s->log);
			textfile_print_tail(s->log, 20, stderr);
			if (rc == 0)
				rc = PGBUILD_EXIT_ERROR;
		}
	}
	if (json_path) {
		struct strbuf sb = STRBUF_INIT;
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		json_object_begin(&jw);
		json_key(&jw, "builddir"); json_string(&jw, builddir);
		json_key(&jw, "user"); json_string(&jw, pw ? pw->name : NULL);
		json_key(&jw, "ok"); json_bool(&jw, rc == 0);
		json_key(&jw, "tests"); json_int(&jw, total);
		json_key(&jw, "failed"); json_int(&jw, failed);
		for (int i = 0; i < nsuites; i++)
			suite_json(&jw, &suites[i]);
		json_object_end(&jw);
		strbuf_addch(&sb, '\n');
		if (write_file_atomic(json_path, sb.buf, sb.len) < 0)
			rc = PGBUILD_EXIT_ERROR;
		strbuf_release(&sb);
	}
	if (rc == 0)
		printf("regress: PASSED (%ld tests%s%s)\n", total, pw ? ", run as user " : "",
		       pw ? pw->name : "");
	else if (rc == PGBUILD_EXIT_FAIL)
		printf("regress: FAILED (%ld of %ld tests failed)\n", failed, total);
	else
		printf("regress: ERROR (the suite could not run to the end)\n");
out:
	for (int i = 0; i < nsuites; i++) {
		strvec_clear(&suites[i].failed_tests);
		strvec_clear(&suites[i].diffs);
		free(suites[i].log);
	}
	strvec_clear(&env);
	server_user_release(&su);
	free(srcdir);
	return rc;
}
