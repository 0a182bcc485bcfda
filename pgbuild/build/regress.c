/*
 * build/regress.c - PostgreSQL's own regression suite over a build
 * directory, with a parsed summary (regsummary.c); see regress.h.
 *
 * The suites run as the server user when pgbuild is root (in a test tree
 * of hard links that user owns the directories of: regress.h), in a
 * process group of their own that our signals reach (pg_regress does not
 * stop its server when killed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/run-command.h"

/* abs_top_srcdir from the build tree's src/Makefile.global, malloced. */
static char *top_srcdir(const char *builddir)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/src/Makefile.global", builddir);
	char *r = NULL, *p;
	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &sb, NULL) >= 0 && (p = strstr(sb.buf, "\nabs_top_srcdir = "))) {
		p += strlen("\nabs_top_srcdir = ");
		r = xstrndup(p, strcspn(p, "\n"));
	}
	strbuf_release(&sb);
	free(path);
	return r;
}

/* Everything one run works with. */
struct regress {
	const struct regress_opts *o;
	char builddir[PATH_MAX];  /* absolute, resolved */
	char prefix[PATH_MAX];    /* installcheck: o->prefix resolved, or "" */
	char *bindir;             /* installcheck: make's bindir=PREFIX/bin */
	char *srcdir;             /* abs_top_srcdir of the tree, or NULL */
	struct strvec env;        /* make's environment */
	struct cluster_user su;    /* the user make runs as (root only) */
	const struct cluster_user *pw; /* &su when switching, else NULL */
	struct regress_suite suites[2];   /* core, contrib */
	int nsuites;
	long total, failed;       /* tests over all suites */
	struct cluster cl;        /* installcheck: the server from o->prefix */
	int cl_made;              /* cl was created (destroy it) */
	struct strbuf problems;   /* the crashes the servers' logs report */
	char *server_log;         /* where the (first such) log is kept */
	time_t started;           /* when the suites started */
	int buildfd;              /* the build tree (root: checked to be ours) */
	int lockfd;               /* BUILDDIR/pgopt-regress.lock, held */
	char *farm;               /* the test tree the suites run in, or NULL */
	int farmfd;               /* the test tree, or -1 */
	const char *workdir;      /* where make runs: farm or builddir */
};

static void take_back_diffs(struct regress *r, struct regress_suite *s);

/* A progress line on stderr, "regress: ...", unless --quiet. */
__attribute__((format(printf, 2, 3)))
static void progress(const struct regress *r, const char *fmt, ...)
{
	va_list ap;

	if (r->o->quiet)
		return;
	fputs("regress: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int run_suite(struct regress *r, struct regress_suite *s, const char *const *make_args,
		     int verbose_out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *logpath = xasprintf("%s/pgopt-regress-%s.log", r->builddir, s->name);

	strvec_pushv(&cp.args, make_args);
	/* the test tree: make's own idea of the top of the build, which its
	 * Makefile.global (the build's) names, is overridden for every
	 * sub-make, so tmp_install and the test servers are made there */
	if (r->farm)
		strvec_pushf(&cp.args, "abs_top_builddir=%s", r->farm);
	strvec_pushv(&cp.env, (const char *const *)r->env.v);
	cp.dir = r->workdir;
	cp.no_stdin = 1;
	if (r->pw)
		cluster_user_apply(r->pw, &cp);
	{
		struct strbuf line = STRBUF_INIT;
		for (const char *const *a = make_args; *a; a++)
			strbuf_addf(&line, "%s%s", a == make_args ? "" : " ", *a);
		progress(r, "%s: %s ...\n", s->name, line.buf);
		strbuf_release(&line);
	}
	/* make, pg_regress and its temporary server in a group of their own,
	 * so that a signal to us (Ctrl-C, kill, a CI timeout) stops them all:
	 * pg_regress does not stop its server when it is killed */
	cp.new_pgroup = 1;
	s->make_exit = capture_command_forwarding(&cp, &out, 1, 1);
	child_process_clear(&cp);
	/* ours, in the build tree (never the test tree) */
	write_file_atomic(logpath, out.buf, out.len);
	if (verbose_out)
		fputs(out.buf, stderr);
	regress_parse_output(s, out.buf);
	take_back_diffs(r, s);
	s->log = logpath;
	strbuf_release(&out);
	return s->make_exit;
}

/* ---------------- the run ---------------- */

void regress_opts_init(struct regress_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->core = 1;
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs < 1)
		o->jobs = 1;
}

/* The build tree, and the compiler environment of its build (in case make
 * compiles). */
static int prepare_tree(struct regress *r)
{
	const struct regress_opts *o = r->o;
	char *path;

	if (!realpath(o->builddir, r->builddir))
		return error("--builddir \"%s\": %s", o->builddir, strerror(errno));
	r->buildfd = open(r->builddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->buildfd < 0)
		return error("--builddir \"%s\": %s", o->builddir, strerror(errno));
	r->workdir = r->builddir;
	if (o->prefix) {
		if (!realpath(o->prefix, r->prefix))
			return error("--install \"%s\": %s", o->prefix, strerror(errno));
		/* pg_regress runs the clients of --bindir, which make takes from
		 * the build's configured bindir: the install's own instead */
		r->bindir = xasprintf("bindir=%s/bin", r->prefix);
	}
	/* as root, before anything of the tree is read: one that another
	 * user could have changed (handed over by an earlier pgbuild) is
	 * refused, its Makefiles never run */
	if (geteuid() == 0) {
		const char *skip[] = { BUILD_CHECK_TREE, NULL };
		if (build_tree_ours(r->builddir, skip) < 0)
			return -1;
	}
	path = xasprintf("%s/config.status", r->builddir);
	if (access(path, F_OK) < 0) {
		error("--builddir \"%s\" is not a configured PostgreSQL build tree (no config.status)",
		      r->builddir);
		free(path);
		return -1;
	}
	free(path);
	r->srcdir = top_srcdir(r->builddir);
	path = xasprintf("%s/%s", r->builddir, BUILDLOG_RECORD);
	if (access(path, F_OK) == 0) {
		/* the record is data: its policy and log directory, checked */
		struct json_value *rec = buildlog_read_json(path);
		struct buildlog_env e;
		buildlog_env_read(rec, path, &e);
		if (e.policy)
			strvec_pushf(&r->env, "PGOPT_POLICY=%s", e.policy);
		if (e.logdir)
			strvec_pushf(&r->env, "PGOPT_LOGDIR=%s", e.logdir);
		buildlog_env_release(&e);
		json_free(rec);
	}
	free(path);
	strvec_pushl(&r->env, "PGOPT_PREFIX=", "PGOPT_ROOT", NULL);
	if (o->temp_config) {
		char real[PATH_MAX];
		if (!realpath(o->temp_config, real))
			return error("--temp-config \"%s\": %s", o->temp_config, strerror(errno));
		strvec_pushf(&r->env, "EXTRA_REGRESS_OPTS=--temp-config=%s", real);
	}
	return 0;
}

/* Wait for (and take) the build tree's regress lock; 0 or -1. */
static int take_lock(struct regress *r)
{
	struct stat st;
	r->lockfd = openat(r->buildfd, "pgopt-regress.lock",
			   O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (r->lockfd < 0 || fstat(r->lockfd, &st) < 0 || !S_ISREG(st.st_mode))
		return error("cannot use %s/pgopt-regress.lock: %s", r->builddir,
			     r->lockfd < 0 ? strerror(errno) : "not a regular file");
	if (flock(r->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	progress(r, "waiting for another pgbuild regress in %s\n", r->builddir);
	while (flock(r->lockfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return error("cannot lock %s/pgopt-regress.lock: %s", r->builddir,
				     strerror(errno));
	return 0;
}

/*
 * Installcheck: the subtrees of the test tree the suites write in (their
 * results, diffs and outputs): only these become the server user's.
 */
static const char *const installcheck_core[] = { "src/test/regress", NULL };
static const char *const installcheck_contrib[] = { "src/test/regress", "contrib", NULL };

/*
 * Installcheck: the test tree's directories stay root's (read-only to the
 * server user) but for the subtrees the suites write in, which are linked
 * again with the server user's directories.  Entries handed over, or -1.
 */
static long hand_over_written(struct regress *r, struct strbuf *err)
{
	const char *const *rels = r->o->contrib ? installcheck_contrib : installcheck_core;
	long n = 0, k;

	for (const char *const *rel = rels; *rel; rel++) {
		struct stat st;
		if (fstatat(r->buildfd, *rel, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (sfs_remove(r->farmfd, *rel, err) < 0)
			return -1;
		k = sfs_link_tree(r->buildfd, *rel, r->farmfd, *rel, r->pw->uid, r->pw->gid, NULL, err);
		if (k < 0)
			return -1;
		n += k;
	}
	return n;
}

/*
 * The test tree: BUILDDIR/pgopt-check, hard links of the build tree with
 * the server user's directories (sfs_link_tree), made afresh; for
 * installcheck only the directories the suites write in are the user's
 * (hand_over_written).  0 or -1.
 */
static int make_farm(struct regress *r)
{
	/* not linked: our lock, the compile log (the suites' compiles, if
	 * any, log into the test tree's own), a temporary install */
	const char *skip[] = { BUILD_CHECK_TREE, "pgopt-regress.lock", "pgopt-log",
			       "tmp_install", NULL };
	struct strbuf err = STRBUF_INIT;
	double t0 = clock_seconds();
	int installcheck = r->o->prefix != NULL;
	long n, given = 0;

	if (sfs_remove(r->buildfd, BUILD_CHECK_TREE, &err) < 0) {
		error("cannot remove the test tree of an earlier run: %s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	n = sfs_link_tree(r->buildfd, ".", r->buildfd, BUILD_CHECK_TREE,
			  installcheck ? geteuid() : r->pw->uid,
			  installcheck ? getegid() : r->pw->gid, skip, &err);
	if (n >= 0) {
		r->farm = xasprintf("%s/%s", r->builddir, BUILD_CHECK_TREE);
		r->farmfd = sfs_open_dir(r->buildfd, BUILD_CHECK_TREE, &err);
	}
	if (n >= 0 && r->farmfd >= 0 && installcheck)
		given = hand_over_written(r, &err);
	if (n < 0 || r->farmfd < 0 || given < 0) {
		error("cannot make the test tree %s/%s: %s", r->builddir, BUILD_CHECK_TREE, err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	r->workdir = r->farm;
	if (installcheck)
		progress(r, "test tree %s: %ld hard links and directories of the build "
			"tree (%.1f s), its directories root's but where the suites write (%s: "
			"%ld entries, their directories owned by %s); the build tree stays ours\n",
			r->farm, n, clock_seconds() - t0,
			r->o->contrib ? "src/test/regress, contrib" : "src/test/regress", given,
			r->pw->name);
	else
		progress(r, "test tree %s: %ld hard links and directories of the build "
			"tree, its directories owned by %s (%.1f s); the build tree stays ours\n",
			r->farm, n, r->pw->name, clock_seconds() - t0);
	return 0;
}

/* Remove the test tree (below the build tree's descriptor). */
static void remove_farm(struct regress *r)
{
	struct strbuf err = STRBUF_INIT;
	if (r->farmfd >= 0)
		close(r->farmfd);
	r->farmfd = -1;
	if (r->farm && sfs_remove(r->buildfd, BUILD_CHECK_TREE, &err) < 0)
		warning("cannot remove the test tree: %s", err.buf);
	strbuf_release(&err);
}

/*
 * What an earlier run took back into the build tree (regression.diffs,
 * the servers' logs) goes before this run: pg_regress removes its old
 * diffs itself, but only in the test tree.
 */
static void forget_taken_back(struct regress *r)
{
	static const char *const files[] = { "regression.diffs", "log/postmaster.log", NULL };
	DIR *d;
	struct dirent *e;
	int cfd;

	for (int i = 0; files[i]; i++) {
		char *p = xasprintf("src/test/regress/%s", files[i]);
		sfs_remove(r->buildfd, p, NULL);
		free(p);
	}
	cfd = sfs_open_dir(r->buildfd, "contrib", NULL);
	d = cfd < 0 ? NULL : fdopendir(cfd);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		for (int i = 0; files[i]; i++) {
			char *p = xasprintf("contrib/%s/%s", e->d_name, files[i]);
			sfs_remove(r->buildfd, p, NULL);
			free(p);
		}
	}
	if (d)
		closedir(d);
	else if (cfd >= 0)
		close(cfd);
}

/* As root: the test tree for the user, and check that they can use it. */
static int prepare_user(struct regress *r)
{
	struct strbuf err = STRBUF_INIT;
	const char *user;
	char *blocked = NULL;

	if (geteuid() != 0)
		return 0;
	if (cluster_user_get(&r->su, r->o->user, r->o->user ? "--user" : NULL, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	r->pw = &r->su;
	user = r->su.name;
	if (cluster_user_reach(r->pw, r->builddir, &blocked) == 0) {
		cluster_user_explain_blocked(r->pw, blocked, &err);
		error("--builddir %s: %s", r->builddir, err.buf);
		strbuf_release(&err);
		free(blocked);
		return -1;
	}
	if (take_lock(r) < 0)
		return -1;
	forget_taken_back(r);
	if (make_farm(r) < 0)
		return -1;
	progress(r, "running as user %s: PostgreSQL's test server refuses "
		"to run as root; the suites run in %s\n", user, r->farm);
	{
		char *w = xasprintf("%s%s", r->farm, r->o->prefix ? "/src/test/regress" : "");
		int ok = cluster_user_can(r->pw, "-w", w);
		if (!ok)
			error("user %s cannot write %s (check the permissions of its parent "
			      "directories)", user, w);
		free(w);
		if (!ok)
			return -1;
	}
	if (r->o->prefix) {
		char *bin = xasprintf("%s/bin/postgres", r->o->prefix);
		int ok = cluster_user_can(r->pw, "-x", bin);
		free(bin);
		if (!ok)
			return error("user %s cannot run %s/bin/postgres (check the permissions of "
				     "its parent directories)", user, r->o->prefix);
	}
	if (r->srcdir) {
		char *cfg = xasprintf("%s/configure", r->srcdir);
		int ok = cluster_user_can(r->pw, "-r", cfg);
		free(cfg);
		if (!ok)
			return error("user %s cannot read the source tree %s", user, r->srcdir);
	}
	/* HOME, USER, LOGNAME and the rest of make's environment: the server
	 * user's (cluster_user_apply); anything make compiles there logs in the test tree, not in ours */
	strvec_pushf(&r->env, "PGOPT_LOGDIR=%s/pgopt-log", r->farm);
	return 0;
}

/*
 * rel (a file the suites wrote, relative to the top) read back: from the
 * test tree below its descriptor (O_NOFOLLOW, bounded), or, without one
 * (not root: the suites ran as ourselves in the build tree), when written
 * since the suites started.  Returns 0 with the text in sb, or -1.
 */
static int read_back(struct regress *r, const char *rel, struct strbuf *sb)
{
	struct stat st;
	if (r->farmfd >= 0)
		return sfs_read(r->farmfd, rel, SFS_IN_LOG, SFS_NOFOLLOW, sb, NULL) < 0 ? -1 : 0;
	if (fstatat(r->buildfd, rel, &st, 0) < 0 || st.st_mtime < r->started)
		return -1;
	return sfs_read(r->buildfd, rel, SFS_IN_LOG, 0, sb, NULL) < 0 ? -1 : 0;
}

/*
 * Put text at rel in the build tree (ours), making its missing
 * directories; the path there (malloced), or NULL.
 */
static char *put_back(struct regress *r, const char *rel, const struct strbuf *text)
{
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT;
	char *path = NULL;

	for (const char *p = rel; (p = strchr(p, '/')); p++) {
		int fd;
		strbuf_reset(&dir);
		strbuf_add(&dir, rel, (size_t)(p - rel));
		fd = sfs_mkdir(r->buildfd, dir.buf, 0755, (uid_t)-1, (gid_t)-1, 1, &err);
		if (fd < 0)
			goto out;
		close(fd);
	}
	if (sfs_write_atomic(r->buildfd, rel, text->buf, text->len, 0644, &err) == 0)
		path = xasprintf("%s/%s", r->builddir, rel);
out:
	if (!path)
		warning("cannot keep %s/%s: %s", r->builddir, rel, err.buf);
	strbuf_release(&err);
	strbuf_release(&dir);
	return path;
}

/* The regression.diffs the suite named, taken back from the test tree
 * into the build tree, where they are then reported. */
static void take_back_diffs(struct regress *r, struct regress_suite *s)
{
	size_t n = r->farm ? strlen(r->farm) : 0;
	for (size_t i = 0; r->farm && i < s->diffs.nr; i++) {
		const char *d = s->diffs.v[i];
		struct strbuf text = STRBUF_INIT;
		char *kept = NULL;
		if (!strncmp(d, r->farm, n) && d[n] == '/' && read_back(r, d + n + 1, &text) == 0)
			kept = put_back(r, d + n + 1, &text);
		if (kept) {
			free(s->diffs.v[i]);
			s->diffs.v[i] = kept;
		}
		strbuf_release(&text);
	}
}

/*
 * Installcheck: a private server from the installed prefix, with what the
 * suites expect of make check's temporary server; make connects to it
 * (PGHOST, PGPORT, PGUSER).  0 or -1 after the error.
 */
static int start_server(struct regress *r)
{
	struct cluster_options co = CLUSTER_OPTIONS_INIT;
	const struct cluster *cl = r->o->server;
	int rc;

	if (cl) {
		/* the caller's server: its settings and its log are its own */
		strvec_pushf(&r->env, "PGHOST=%s", cl->dir);
		strvec_pushf(&r->env, "PGPORT=%d", cl->port);
		strvec_pushf(&r->env, "PGUSER=%s", cl->superuser);
		if (r->o->env)
			strvec_pushv(&r->env, (const char *const *)r->o->env->v);
		progress(r, "installcheck against the running server from %s (pid %ld)\n",
			r->prefix, (long)cl->pid);
		return 0;
	}
	co.prefix = r->prefix;
	co.quiet = 1;
	strvec_pushl(&co.settings, "max_prepared_transactions=10", "fsync=off", NULL);
	if (r->o->settings)
		strvec_pushv(&co.settings, (const char *const *)r->o->settings->v);
	rc = cluster_create(&r->cl, &co);
	strvec_clear(&co.settings);
	if (rc < 0)
		return -1;
	r->cl_made = 1;
	if (cluster_start(&r->cl) < 0)
		return -1;
	strvec_pushf(&r->env, "PGHOST=%s", r->cl.dir);
	strvec_pushf(&r->env, "PGPORT=%d", r->cl.port);
	strvec_pushf(&r->env, "PGUSER=%s", r->cl.superuser);
	progress(r, "installcheck against a server from %s (pid %ld, socket in %s), "
		"with its clients (%s/bin/psql)\n", r->prefix, (long)r->cl.pid, r->cl.dir, r->prefix);
	return 0;
}

/* Installcheck: stop the server, keep its log, scan it for crashes. */
static void stop_server(struct regress *r)
{
	struct strbuf log = STRBUF_INIT;

	if (!r->cl_made)
		return;
	cluster_stop(&r->cl);
	cluster_check_log(&r->cl, &log);
	cluster_log_crashes(log.buf, &r->problems);
	strbuf_reset(&log);
	r->server_log = xasprintf("%s/pgopt-installcheck-server.log", r->builddir);
	if (cluster_read_log(&r->cl, &log, SFS_READ_LIMIT) >= 0)
		write_file_atomic(r->server_log, log.buf, log.len);
	strbuf_release(&log);
	cluster_destroy(&r->cl);
	r->cl_made = 0;
}

/* The crashes one server log (rel: below the top of the tree) written
 * since the suites started reports; a log with one is kept in the build
 * tree at the same place. */
static void log_crashes(struct regress *r, const char *rel)
{
	struct strbuf log = STRBUF_INIT, crashes = STRBUF_INIT;

	if (read_back(r, rel, &log) == 0) {
		cluster_log_crashes(log.buf, &crashes);
		if (crashes.len && !r->server_log)
			r->server_log = r->farm ? put_back(r, rel, &log) :
					xasprintf("%s/%s", r->builddir, rel);
		strbuf_add(&r->problems, crashes.buf, crashes.len);
	}
	strbuf_release(&crashes);
	strbuf_release(&log);
}

/*
 * make check: the crashes in the logs of pg_regress's temporary servers
 * (DIR/log/postmaster.log of the core suite and of every contrib module,
 * of the suites that ran).  A backend that dies of a signal fails the suite
 * even when pg_regress could not go on (a crash while it creates its
 * database) or every test passed after the restart.
 */
static void check_logs_crashes(struct regress *r)
{
	char *path, *contrib;
	DIR *d;
	struct dirent *e;

	if (r->o->core)
		log_crashes(r, "src/test/regress/log/postmaster.log");
	if (!r->o->contrib)
		return;
	contrib = xasprintf("%s/contrib", r->builddir);
	d = opendir(contrib);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("contrib/%s/log/postmaster.log", e->d_name);
		log_crashes(r, path);
		free(path);
	}
	if (d)
		closedir(d);
	free(contrib);
}

static void run_suites(struct regress *r)
{
	const struct regress_opts *o = r->o;
	const char *check = o->prefix ? "installcheck" : "check";

	if (o->core) {
		char *t = o->tests ? xasprintf("TESTS=%s", o->tests) : NULL;
		char *target = xasprintf("%s%s", check, o->tests ? "-tests" : "");
		const char *args[5] = { "make", target, NULL };
		int n = 2;
		if (r->bindir)
			args[n++] = r->bindir;
		if (t)
			args[n++] = t;
		r->suites[r->nsuites].name = "core";
		run_suite(r, &r->suites[r->nsuites++], args, o->verbose);
		free(target);
		free(t);
	}
	if (o->contrib) {
		/* installcheck: one server, one contrib_regression database */
		char *j = xasprintf("-j%d", o->prefix ? 1 : o->jobs);
		const char *args[] = { "make", j, "-k", "-C", "contrib", check, r->bindir, NULL };
		r->suites[r->nsuites].name = "contrib";
		run_suite(r, &r->suites[r->nsuites++], args, o->verbose);
		free(j);
	}
}

/* Print every suite; the exit code from what they reported. */
static int summarize(struct regress *r, FILE *out)
{
	int rc = 0;
	for (int i = 0; i < r->nsuites; i++) {
		struct regress_suite *s = &r->suites[i];
		regress_print_suite(out, s);
		r->total += s->passed + s->failed + s->ignored;
		r->failed += s->failed;
		if (s->failed) {
			rc = PGBUILD_EXIT_FAIL;
		} else if (s->make_exit != 0 || s->passed == 0) {
			error("%s suite did not run to the end (make exited with %d, %ld tests ran); "
			      "last lines of %s:", s->name, s->make_exit, s->passed, s->log);
			textfile_print_tail(s->log, 20, stderr);
			if (rc == 0)
				rc = PGBUILD_EXIT_ERROR;
		}
	}
	if (r->problems.len) {
		/* the tests may all pass while a backend crashed between them, and a
		 * crash that stopped the suite is the build's failure, not ours */
		if (r->o->prefix)
			fprintf(out, "server: the log of the server from %s reports a crash:\n%s"
			       "server: log kept in %s\n", r->o->prefix, r->problems.buf,
			       r->server_log);
		else
			fprintf(out, "server: the log of make check's server reports a crash:\n%s"
			       "server: log %s\n", r->problems.buf, r->server_log);
		rc = PGBUILD_EXIT_FAIL;
	}
	return rc;
}

static int write_json(const struct regress *r, int rc)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	int ret;
	json_object_begin(&jw);
	json_key(&jw, "builddir"); json_string(&jw, r->builddir);
	json_key(&jw, "mode"); json_string(&jw, r->o->prefix ? "installcheck" : "check");
	json_key(&jw, "prefix"); json_string(&jw, r->o->prefix);
	json_key(&jw, "server_log"); json_string(&jw, r->server_log);
	json_key(&jw, "server_problems"); json_string(&jw, r->o->prefix || r->problems.len ? r->problems.buf : NULL);
	json_key(&jw, "user"); json_string(&jw, r->pw ? r->pw->name : NULL);
	json_key(&jw, "ok"); json_bool(&jw, rc == 0);
	json_key(&jw, "tests"); json_int(&jw, r->total);
	json_key(&jw, "failed"); json_int(&jw, r->failed);
	for (int i = 0; i < r->nsuites; i++)
		regress_suite_json(&jw, &r->suites[i]);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	ret = write_result(r->o->json, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

int regress_run(const struct regress_opts *o)
{
	struct regress r;
	FILE *out = o->to_stderr ? stderr : stdout;
	int rc = PGBUILD_EXIT_ERROR;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.buildfd = r.lockfd = r.farmfd = -1;
	strvec_init(&r.env);
	strbuf_init(&r.problems, 0);
	if (prepare_tree(&r) < 0 || prepare_user(&r) < 0 || (o->prefix && start_server(&r) < 0))
		goto out;
	r.started = time(NULL);
	run_suites(&r);
	stop_server(&r);
	if (!o->prefix)
		check_logs_crashes(&r);
	rc = summarize(&r, out);
	if (o->json && write_json(&r, rc) < 0)
		rc = PGBUILD_EXIT_ERROR;
	if (rc == 0)
		fprintf(out, "regress: PASSED (%ld tests%s%s)\n", r.total, r.pw ? ", run as user " : "",
		       r.pw ? r.pw->name : "");
	else if (rc == PGBUILD_EXIT_FAIL)
		fprintf(out, "regress: FAILED (%s%ld of %ld tests failed)\n",
		       r.problems.len ? "the server crashed; " : "", r.failed, r.total);
	else
		fprintf(out, "regress: ERROR (the suite could not run to the end)\n");
out:
	if (r.cl_made)
		cluster_destroy(&r.cl);
	remove_farm(&r);
	free(r.farm);
	if (r.lockfd >= 0)
		close(r.lockfd);
	if (r.buildfd >= 0)
		close(r.buildfd);
	strbuf_release(&r.problems);
	free(r.server_log);
	for (int i = 0; i < r.nsuites; i++) {
		strvec_clear(&r.suites[i].failed_tests);
		strvec_clear(&r.suites[i].diffs);
		free(r.suites[i].log);
	}
	strvec_clear(&r.env);
	cluster_user_release(&r.su);
	free(r.srcdir);
	free(r.bindir);
	return rc;
}

static int regress_fn(void *o)
{
	return regress_run(o);
}

int regress_run_child(const struct regress_opts *o, int fd, int forward)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct cluster_engine_call call = { regress_fn, (void *)o };
	int rc;

	strvec_push(&cp.args, "pgbuild regress");
	cluster_engine_child(&cp, &call);
	cp.no_stdin = 1;
	if (fd >= 0) {
		cp.out = fd;
		cp.err = fd;
	}
	rc = forward ? run_command_forwarding(&cp) : run_command(&cp);
	child_process_clear(&cp);
	return rc < 0 ? PGBUILD_EXIT_ERROR : rc;
}
