/*
 * regress.h - PostgreSQL's own regression suite over a build directory,
 * with a parsed summary (`pgbuild regress`).
 *
 * `make check` builds a temporary installation inside the build tree and
 * starts a throw-away server there; PostgreSQL refuses to run that server
 * as root.  When pgbuild runs as root it therefore runs make as an
 * unprivileged user (--user, default postgres).  The build tree itself is
 * never handed over: root builds in it again later (incremental builds,
 * pgo's optimized build, tune), and a tree the server user could write
 * would let it change the Makefiles root runs.  Instead the suites run in
 * a test tree, BUILDDIR/pgopt-check: a copy of the build tree made of hard
 * links (sfs_link_tree: its directories are the server user's, its files
 * are the build's own inodes, still root's and read-only to that user;
 * files others may write are copied), with make told where it is
 * (abs_top_builddir=BUILDDIR/pgopt-check); root never runs make there.
 * What root takes back (the regression.diffs of failed suites, the
 * temporary servers' logs with a crash) is read below the test tree's
 * descriptor (O_NOFOLLOW, bounded) and written at the same place in the
 * build tree, where the output names it; the test tree is removed at the
 * end (a killed run leaves it: the next run removes it, builds never look
 * into it).  A build tree that already belongs to another user (an
 * earlier pgbuild chowned it) is refused with the fix.  One regress runs
 * in a build tree at a time (BUILDDIR/pgopt-regress.lock).  pgbuild says
 * all this on stderr.
 *
 * The compiler environment of the build (PGOPT_POLICY, PGOPT_LOGDIR from
 * <builddir>/pgopt-build.json) is set again, so anything make still has to
 * compile gets the same flags; PGOPT_PREFIX is cleared (the ccache directory
 * belongs to the building user).
 *
 * Installcheck mode (prefix set): the suites run with `make installcheck`
 * from the same build tree against a private server (cluster.h) started
 * from the installed PREFIX instead of make check's temporary install, so
 * what is tested is exactly that install (e.g. a BOLT-rewritten postgres in
 * a copy of the build's prefix: `pgbuild bolt`, or a package's install),
 * with its own clients: make gets bindir=PREFIX/bin, which pg_regress runs
 * psql from (else the build's configured bindir, for a package build the
 * system's).  As root the test tree's directories then stay root's but for
 * those the suites write in (src/test/regress; contrib with --contrib),
 * which alone are the server user's.  The server gets what the
 * suites expect of their temporary server (max_prepared_transactions=10;
 * PGHOST/PGPORT naming itself, for dblink and postgres_fdw) and the
 * settings given (--set, e.g. jit=on with its costs 0: every query
 * JIT-compiled, so a JIT provider that cannot load fails), make gets
 * PGHOST/PGPORT/PGUSER, contrib runs one module at a time (one server,
 * one contrib_regression database), and the server log is scanned at the
 * end: a crash, PANIC or failed assertion there fails the run even when
 * every test passed.  The server log is kept as
 * <builddir>/pgopt-installcheck-server.log.  With a server given
 * (regress_opts.server: the `regress` training workload, profile/run.h)
 * the suite runs against that running server instead, which its owner
 * started, stops and whose log it scans.
 *
 * Output (stdout): one line per suite and, last, the verdict line, e.g.
 *     core: 217 tests, 217 passed, 0 failed
 *     regress: PASSED (217 tests)
 * Exit: 0 every test passed, 1 a test failed (the failed tests and the
 * regression.diffs paths are listed), 2 the suite could not run.
 */
#ifndef PGBUILD_REGRESS_H
#define PGBUILD_REGRESS_H

#include <stdio.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strvec.h"

struct cluster;

/* What to run (the options of `pgbuild regress`). */
struct regress_opts {
	const char *builddir;     /* --builddir: a configured build tree */
	const char *prefix;       /* --install: installcheck against a server
				   * from this install; NULL: make check */
	const char *user;         /* --user: who runs make as root (NULL: the
				   * server user, $PGBUILD_SERVER_USER or postgres) */
	const char *json;         /* --json FILE: the summary, or NULL */
	const char *tests;        /* --tests "A B": only these core tests, or NULL */
	const char *temp_config;  /* --temp-config FILE for the test server, or NULL */
	/* installcheck: more settings "name=value" of the server started
	 * here (--set: JIT forced on every query), after its own; NULL: none */
	const struct strvec *settings;
	int core;                 /* run the core suite (0 with --no-core) */
	int contrib;              /* --contrib: make -C contrib check too */
	int jobs;                 /* --jobs for contrib */
	int verbose;              /* --verbose: show make's output */
	int quiet;                /* --quiet: no "regress: ..." progress lines
				   * (the suites' summary and errors only) */
	/* Installcheck against this running server of prefix instead of one
	 * started here (the `regress` training workload: pgbuild pgo and
	 * bolt train on the suite in their own cluster); neither started nor
	 * stopped here, and its log is its owner's to scan.  NULL: start one. */
	const struct cluster *server;
	/* With server: more "NAME=value" for the suite's programs (where an
	 * instrumented build's clients write their profile), or NULL. */
	const struct strvec *env;
	/* The suite lines and the verdict on stderr instead of stdout (a
	 * caller whose stdout is its own report). */
	int to_stderr;
};

/* Defaults: core only, jobs = online CPUs. */
void regress_opts_init(struct regress_opts *o);

/* Run the suites and print the summary; returns the exit code (0 passed,
 * 1 a test failed, 2 could not run). */
int regress_run(const struct regress_opts *o);

/* regress_run in a function child of this process (cluster_engine_child):
 * its servers and signal handlers apart from the caller's.  Its output (the
 * summary on stdout, progress and errors on stderr) goes to fd, or stays
 * the caller's when fd < 0.  forward: SIGTERM, SIGHUP and SIGQUIT to the
 * caller go on to the suite, and the caller dies of them after it
 * (run_command_forwarding), for a caller without handlers of its own.
 * regress_run's exit code (128+N when the child died of signal N), 2 when
 * the child could not run.  The one way an engine runs the suite (the
 * gate, tune, pgo; a stage: stage_run_regress). */
int regress_run_child(const struct regress_opts *o, int fd, int forward);

/* ---------------- one suite's summary (regsummary.c) ---------------- */

/* What one `make ... check` run reported. */
struct regress_suite {
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

/* Count pg_regress's result lines, the failed tests and the
 * regression.diffs paths of text (make's output) into s. */
void regress_parse_output(struct regress_suite *s, const char *text);

/* The suite's line (and its failed tests, diffs, make's exit) on out. */
void regress_print_suite(FILE *out, const struct regress_suite *s);

/* The suite as the --json object's member named s->name. */
void regress_suite_json(struct json_writer *jw, const struct regress_suite *s);

/* What a regression run's --json document says, read back. */
struct regress_result {
	int ok;        /* every suite passed */
	long tests;    /* tests run */
	long failed;   /* tests that failed */
	char *mode;    /* "check" or "installcheck" (owned) */
	char *problems; /* what the server's log showed (a crash, a PANIC), or
			 * NULL (owned) */
};

/* Read the document `pgbuild regress --json` wrote at path (the bounded
 * reader) into r.  0, or -1 with the reason in err. */
int regress_result_read(const char *path, struct regress_result *r, struct strbuf *err);
void regress_result_clear(struct regress_result *r);

#endif
