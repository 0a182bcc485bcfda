/*
 * regress.h - PostgreSQL's own regression suite over a build directory,
 * with a parsed summary (`pgbuild regress`).
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
 * Installcheck mode (prefix set): the suites run with `make installcheck`
 * from the same build tree against a private server (cluster.h) started
 * from the installed PREFIX instead of make check's temporary install, so
 * what is tested is exactly that install (e.g. a BOLT-rewritten postgres in
 * a copy of the build's prefix: `pgbuild bolt`).  The server gets what the
 * suites expect of their temporary server (max_prepared_transactions=10;
 * PGHOST/PGPORT naming itself, for dblink and postgres_fdw), make gets
 * PGHOST/PGPORT/PGUSER, contrib runs one module at a time (one server,
 * one contrib_regression database), and the server log is scanned at the
 * end: a crash, PANIC or failed assertion there fails the run even when
 * every test passed.  The server log is kept as
 * <builddir>/pgopt-installcheck-server.log.
 *
 * Output (stdout): one line per suite and, last, the verdict line, e.g.
 *     core: 217 tests, 217 passed, 0 failed
 *     regress: PASSED (217 tests)
 * Exit: 0 every test passed, 1 a test failed (the failed tests and the
 * regression.diffs paths are listed), 2 the suite could not run.
 */
#ifndef PGBUILD_REGRESS_H
#define PGBUILD_REGRESS_H

/* What to run (the options of `pgbuild regress`). */
struct regress_opts {
	const char *builddir;     /* --builddir: a configured build tree */
	const char *prefix;       /* --prefix: installcheck against a server
				   * from this install; NULL: make check */
	const char *user;         /* --user: who runs make as root (NULL: the
				   * server user, $PGBUILD_SERVER_USER or postgres) */
	const char *json;         /* --json FILE: the summary, or NULL */
	const char *tests;        /* --tests "A B": only these core tests, or NULL */
	const char *temp_config;  /* --temp-config FILE for the test server, or NULL */
	int core;                 /* run the core suite (0 with --no-core) */
	int contrib;              /* --contrib: make -C contrib check too */
	int jobs;                 /* --jobs for contrib */
	int verbose;              /* --verbose: show make's output */
};

/* Defaults: core only, jobs = online CPUs. */
void regress_opts_init(struct regress_opts *o);

/* Run the suites and print the summary; returns the exit code (0 passed,
 * 1 a test failed, 2 could not run). */
int regress_run(const struct regress_opts *o);

#endif
