/*
 * tuner.c - `pgbuild tune`'s evaluator and run: search compiler flags for
 * one scope of PostgreSQL by measured elimination (the search itself is
 * engine.c, the candidates, scope and policies policy.c, the report and
 * --json output.c); see tuner.h.
 *
 * One evaluation = "is candidate set C as fast as reference set R?":
 *
 *   build C   `pgbuild build --no-install` in ONE build directory (reused:
 *             pgbuild build recompiles only the objects whose flags the
 *             policy changes, i.e. the scope, and ccache answers every
 *             object compiled before), then `make install DESTDIR=` into
 *             WORKDIR/sets/<id>/stage, then `pgbuild regress` on that tree
 *             (after the install, which brings make check's copies up to
 *             date), then the stage becomes WORKDIR/sets/<id>/prefix (an
 *             install is relocatable; the build directory keeps the prefix
 *             it was configured with, so it is never reconfigured);
 *   compare   `pgbuild gate --baseline R --candidate C --json`, read back:
 *             the ratio (candidate speed / reference speed) and its
 *             interval, exact for --metric instructions and cycles.
 *
 * Installs are kept per set, so a set is built once per work directory
 * whatever the search does with it.  Candidates come from a list (default
 * examples/tune-candidates.txt); flags PostgreSQL must not get (the wrapper's
 * policy_forbidden_add list: fast-math family, -fno-wrapv, ...) are refused
 * before anything runs, and every generated policy is parsed by the
 * wrapper's own parser, so no unsafe policy can ever be built.
 *
 * The state (--state, JSON lines) is rewritten atomically after every
 * evaluation: a killed tune rerun with the same options resumes; what the
 * state answers is neither rebuilt nor re-measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/workloads.h"
#include "wrapper/common/fdio.h"
#include "wrapper/policy/edit.h"
#include "wrapper/policy/policy.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/stage/stage.h"
#include "pgbuild/tune/tuner.h"

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* ---------------- the evaluator ---------------- */

static char *set_dir(struct tuner *tu, tune_set s)
{
	char *id = tune_set_id(&tu->t, s);
	/* a set built on the bundle's profile is another build than the same
	 * flags without it */
	char *d = xasprintf("%s/%s/%s", tu->workdir, tu->o.bundle ? "pgo-sets" : "sets", id);
	free(id);
	return d;
}

char *tuner_set_prefix(struct tuner *tu, tune_set s)
{
	char *d, *p;
	if (!s && tu->o.baseline && !tu->o.bundle)
		return xstrdup(tu->stock_prefix);
	d = set_dir(tu, s);
	p = xasprintf("%s/prefix", d);
	free(d);
	return p;
}

static int installed(const char *prefix)
{
	char *pg = xasprintf("%s/bin/postgres", prefix);
	int ok = access(pg, X_OK) == 0;
	free(pg);
	return ok;
}

/* Run a pgbuild subcommand (or any argv) with stdout+stderr into log. */
static int run_logged(struct strvec *args, const char *log, struct strvec *env)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644), rc;
	if (fd < 0)
		return error("cannot write %s: %s", log, strerror(errno));
	strvec_pushv(&cp.args, (const char *const *)args->v);
	if (env)
		strvec_pushv(&cp.env, (const char *const *)env->v);
	cp.out = fd;
	cp.err = fd;
	cp.no_stdin = 1;
	rc = run_command_forwarding(&cp);
	close(fd);
	child_process_clear(&cp);
	return rc;
}

/* The --prefix= the build directory was configured with, or NULL. */
static char *configured_prefix(const char *builddir)
{
	char *stamp = xasprintf("%s/pgopt-configure.args", builddir);
	char *line = textfile_last_line(stamp, "--prefix=");
	char *p = line ? xstrdup(line + 9) : NULL;
	free(line);
	free(stamp);
	return p;
}

/*
 * `pgbuild build` invalidates an object by deleting it, but PostgreSQL's
 * Makefile.global says `.SECONDARY:`, which makes every target intermediate:
 * make does not remake a missing object while what depends on it
 * (objfiles.txt, postgres) is up to date - the deleted objects are simply
 * not rebuilt (checked with make 4.3).  Until build.c ages objects instead
 * of deleting them, put an empty object dated 1970 in place of every object
 * of the compile log that is missing: make then sees it older than its
 * source and recompiles it, and relinks what contains it.  Returns how many
 * were missing (0: nothing to do), or -1.
 */
struct revive {
	struct strvec seen; /* objects looked at */
	long n;             /* placeholders made */
};

static int revive_one(const struct json_value *rec, long line, void *data)
{
	struct revive *rv = data;
	char *path;

	if (!buildlog_is_compile(rec) || !(path = buildlog_output_path(rec)))
		return 0;
	if (strvec_find(&rv->seen, path) < 0 && !path_exists(path)) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
		strvec_push(&rv->seen, path);
		if (fd >= 0) {
			futimes(fd, tv);
			close(fd);
			rv->n++;
		}
	}
	free(path);
	return 0;
}

static long revive_deleted_objects(const char *builddir)
{
	char *logpath = xasprintf("%s/pgopt-log/compile.jsonl", builddir);
	struct revive rv = { STRVEC_INIT, 0 };

	buildlog_each(logpath, 1, revive_one, &rv, NULL);
	free(logpath);
	strvec_clear(&rv.seen);
	return rv.n;
}

enum { BUILT_OK = 0, BUILT_FAILED = 1, BUILT_REGRESS_FAILED = 2, BUILT_ERROR = -1 };

/*
 * --bundle: how much of the bundle's profile the set's build used
 * (`pgbuild bundle check` on the build's compile log: GCC drops the profile
 * of a function whose control flow differs from the one instrumented).
 * BUILT_OK, BUILT_FAILED with the share in *note when it is below
 * --min-applies (the set is refused, never measured), or BUILT_ERROR.
 */
static int check_bundle(struct tuner *tu, const char *dir, const char *log, char **note)
{
	struct strvec args = STRVEC_INIT;
	char *json = xasprintf("%s/bundle-check.json", dir);
	char *logdir = xasprintf("%s/pgopt-log", tu->builddir);
	struct json_value *v = NULL;
	struct strbuf text = STRBUF_INIT;
	int code, rc = BUILT_ERROR;

	unlink(json);
	strvec_pushl(&args, pgbuild_self(), "bundle", "check", tu->o.bundle, "--log", logdir,
		     "--json", json, NULL);
	strvec_pushf(&args, "--min-applies=%g", tu->o.min_applies);
	code = run_logged(&args, log, NULL);
	if (code != 0 && code != 1) {
		char *l = textfile_last_line(log, "error");
		*note = xasprintf("pgbuild bundle check exited %d: %s (log %s)", code,
				  l ? l : "no error line", log);
		free(l);
		goto out;
	}
	if (sfs_read(AT_FDCWD, json, SFS_IN_JSON, 0, &text, NULL) >= 0)
		v = json_parse(text.buf, text.len, NULL);
	{
		double share = json_get_num(v, "percent", -1);
		long refused = (long)json_get_num(v, "functions_refused", 0);
		if (share < 0) {
			*note = xasprintf("no \"percent\" in %s", json);
			goto out;
		}
		if (!tu->o.quiet)
			fprintf(stderr, "tune: the build used %.2f%% of the bundle's profile weight "
				"(%ld functions refused by GCC)\n", share, refused);
		if (code == 1) {
			*note = xasprintf("the bundle's profile does not apply: %.2f%% of its weight "
					  "used, below --min-applies %g%% (%ld functions refused: "
					  "GCC's coverage mismatch; %s)", share,
					  tu->o.min_applies, refused, json);
			rc = BUILT_FAILED;
			goto out;
		}
	}
	rc = BUILT_OK;
out:
	json_free(v);
	strbuf_release(&text);
	strvec_clear(&args);
	free(json);
	free(logdir);
	return rc;
}

/* The suite on the set just built (the regress engine, its output appended
 * to log, forwarding our signals): BUILT_OK, BUILT_REGRESS_FAILED (status
 * says so), or BUILT_ERROR with *note saying why. */
static int set_regress(struct tuner *tu, const char *dir, const char *log, const char *status,
		       char **note)
{
	char *rj = xasprintf("%s/regress.json", dir);
	struct regress_opts ro;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644), code;

	regress_opts_init(&ro);
	ro.builddir = tu->builddir;
	ro.json = rj;
	if (!tu->o.quiet)
		fprintf(stderr, "tune: regression suite ...\n");
	code = fd < 0 ? error("cannot write %s: %s", log, strerror(errno)) :
	       regress_run_child(&ro, fd, 1);
	if (fd >= 0)
		close(fd);
	free(rj);
	if (code == 1) {
		*note = xasprintf("regression suite failed (log %s)", log);
		write_text(status, "regress\n");
		return BUILT_REGRESS_FAILED;
	}
	if (code != 0) {
		/* the reason, not only the log's name */
		char *l = textfile_last_line(log, "error:");
		*note = xasprintf("regression suite could not run (exit %d): %s (log %s)", code,
				  l ? l : "no error line", log);
		free(l);
		return BUILT_ERROR;
	}
	return BUILT_OK;
}

/*
 * Make sure set s is installed; returns BUILT_*.  *builds is incremented
 * when it had to be built, *secs gets the build time.
 */
static int ensure_installed(struct tuner *tu, tune_set s, int *builds, double *secs, char **note)
{
	char *dir, *prefix = tuner_set_prefix(tu, s), *policy = NULL, *log = NULL, *stage = NULL;
	char *text = NULL, *status = NULL;
	struct strvec args = STRVEC_INIT, env = STRVEC_INIT;
	int rc = BUILT_ERROR, code;
	double t0 = clock_seconds();

	if (installed(prefix)) {
		free(prefix);
		return BUILT_OK;
	}
	dir = set_dir(tu, s);
	if (mkdir_p(dir) < 0)
		goto out;
	log = xasprintf("%s/build.log", dir);
	status = xasprintf("%s/failed", dir);
	if (path_exists(status)) {
		/* failed in an earlier run whose state was lost: do not retry */
		struct strbuf why = STRBUF_INIT;
		sfs_read(AT_FDCWD, status, SFS_IN_LOG, 0, &why, NULL);
		strbuf_trim(&why);
		*note = xasprintf("failed before (%s): %s", status, why.buf);
		rc = strstr(why.buf, "regress") ? BUILT_REGRESS_FAILED : BUILT_FAILED;
		strbuf_release(&why);
		goto out;
	}
	unlink(log);
	if (s || tu->o.bundle) {
		policy = xasprintf("%s/tune.policy", dir);
		text = tuner_policy_text(tu, s, policy);
		if (!text || write_text(policy, text) < 0)
			goto out;
	}
	if (!tu->o.quiet) {
		char *flags = tune_set_text(&tu->t, s);
		fprintf(stderr, "tune: build %s (%s) ...\n", *flags ? flags : "stock", dir);
		free(flags);
	}
	{
		struct build_step b = {
			.src = tu->o.src, .policy = policy ? policy : "none",
			.prefix = tu->build_prefix, .builddir = tu->builddir, .jobs = tu->o.jobs,
			.no_contrib = 1, .no_install = 1, .quiet = 1,
		};
		strvec_push(&args, pgbuild_self());
		stage_build_argv(&args, &b);
	}
	/* the bundle's profiles reach pgoptcc from the environment (and the
	 * build record keeps it, for verify) */
	if (tu->o.bundle)
		strvec_pushf(&env, "PGOPT_BUNDLE=%s", tu->o.bundle);
	code = run_logged(&args, log, &env);
	if (code == 0) {
		long revived = revive_deleted_objects(tu->builddir);
		if (revived > 0) {
			/* same policy again: no invalidation, make rebuilds the stubs */
			verbose("%ld invalidated objects were not rebuilt by make: rebuilding", revived);
			code = run_logged(&args, log, &env);
		}
	}
	(*builds)++;
	*secs = clock_seconds() - t0;
	if (code != 0) {
		char *l = textfile_last_line(log, "error");
		*note = xasprintf("pgbuild build exited %d: %s (log %s)", code,
				  l ? l : "no error line", log);
		free(l);
		write_text(status, "build\n");
		rc = BUILT_FAILED;
		goto out;
	}
	if (tu->o.bundle) {
		rc = check_bundle(tu, dir, log, note);
		if (rc == BUILT_FAILED)
			write_text(status, *note);
		if (rc != BUILT_OK)
			goto out;
		rc = BUILT_ERROR;
	}
	/* install the tree under the set's directory */
	stage = xasprintf("%s/stage", dir);
	remove_tree(stage);
	strvec_clear(&args);
	strvec_pushl(&args, "make", "-C", tu->builddir, "install", NULL);
	strvec_pushf(&args, "DESTDIR=%s", stage);
	strvec_pushf(&env, "PGOPT_POLICY=%s", policy ? policy : "none");
	code = run_logged(&args, log, &env);
	if (code != 0) {
		*note = xasprintf("make install exited %d (log %s)", code, log);
		goto out;
	}
	/* the suite after make install, which root runs in the build tree:
	 * it brings what make check would otherwise remake up to date (the
	 * copies of contrib/spi's modules in src/test/regress, newer after a
	 * set that changes every unit's flags), and the test tree the server
	 * user runs in can remake nothing; the set is installed only when the
	 * suite passed */
	if (tu->o.regress && (rc = set_regress(tu, dir, log, status, note)) != BUILT_OK) {
		if (rc != BUILT_REGRESS_FAILED)
			rc = BUILT_ERROR;
		goto out;
	}
	rc = BUILT_ERROR;
	{
		char *from = xasprintf("%s%s", stage, tu->build_prefix);
		remove_tree(prefix);
		if (rename(from, prefix) < 0) {
			*note = xasprintf("cannot move %s to %s: %s", from, prefix, strerror(errno));
			free(from);
			goto out;
		}
		free(from);
		remove_tree(stage);
	}
	/* the set's own directory, which tune made below its work directory
	 * (checked: nobody else writes there): the server user reaches the
	 * install in it */
	chmod(dir, 0755);
	*secs = clock_seconds() - t0;
	rc = BUILT_OK;
out:
	strvec_clear(&args);
	strvec_clear(&env);
	free(dir);
	free(prefix);
	free(policy);
	free(log);
	free(stage);
	free(text);
	free(status);
	return rc;
}

/* --lock: flock(path) held until *fd is closed (-1: no --lock).  0, or
 * -1 after the error. */
static int take_lock(const char *path, int *fd)
{
	*fd = -1;
	if (!path)
		return 0;
	/* never through a link planted at the name (ELOOP) */
	*fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (*fd < 0 || flock(*fd, LOCK_EX) < 0) {
		error("cannot lock --lock %s: %s", path, strerror(errno));
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

/*
 * `pgbuild gate --baseline REF --candidate CAND -W workload --metric M`,
 * its JSON at json and its output at log, read back into out (ratio,
 * interval, outcome, note).  An unusable gate is TUNE_UNMEASURED with the
 * reason in out->note.
 */
static void gate_ratio(struct tuner *tu, const char *ref_prefix, const char *cand_prefix,
		       const char *workload, const char *json, const char *log,
		       struct tune_eval *out)
{
	struct strvec args = STRVEC_INIT;
	struct strbuf text = STRBUF_INIT;
	const struct metric_desc *d = metrics_find(tu->o.metric);
	struct gate g;
	struct gate_verdict verdict = GATE_VERDICT_INIT;
	int b;

	memset(&g, 0, sizeof(g));

	unlink(log);
	strvec_pushl(&args, pgbuild_self(), "gate", "--baseline", ref_prefix,
		     "--candidate", cand_prefix, "--workload", workload,
		     "--metric", tu->o.metric, "--json", json, NULL);
	if (d->bit == METRIC_TPS)
		stage_gate_argv(&args, &tu->o.gate);
	else
		/* one number per build: tune compares it at its own resolution
		 * (its --noise floor); the gate only measures */
		strvec_pushl(&args, "--noise", "none", NULL);
	if (!tu->o.quiet)
		fprintf(stderr, "tune: gate (%s, %s) ...\n", workload, tu->o.metric);
	b = run_logged(&args, log, NULL);
	if (b != 0 && b != 1 && b != PGBUILD_EXIT_UNDECIDED) {
		char *l = textfile_last_line(log, "error");
		out->outcome = TUNE_UNMEASURED;
		free(out->note);
		out->note = xasprintf("gate exited %d: %s (log %s)", b, l ? l : "?", log);
		free(l);
		goto out;
	}
	if (gate_load(json, &g, &verdict, &text) < 0) {
		out->outcome = TUNE_UNMEASURED;
		free(out->note);
		out->note = xasprintf("no gate result: %s", text.buf);
		goto out;
	}
	if (verdict.broken) {
		/* wrong results: a failed set, like one that fails its suite
		 * (never measured again, nor any set that contains it) */
		out->outcome = TUNE_REGRESS_FAILED;
		free(out->note);
		out->note = xstrdup(verdict.why);
		goto out;
	}
	{
		enum gate_kind k = d->bit == METRIC_TPS ? GATE_TPS :
				   d->bit == METRIC_CYCLES ? GATE_CYCLES : GATE_INSTRUCTIONS;
		const char *n = NULL;
		if (gate_speedup(&g, workload, k, &out->ratio, &out->lo, &out->hi, &n) < 0 &&
		    k != GATE_TPS) {
			free(out->note);
			out->note = xasprintf("%s unavailable: %s", tu->o.metric, n ? n : "?");
		}
	}
	out->outcome = isfinite(out->ratio) ? TUNE_OK : TUNE_UNMEASURED;
	if (verdict.status == GATE_UNDECIDED && d->bit == METRIC_TPS) {
		/* --pairs auto's budget ended: the interval straddles the
		 * threshold, so the engine's rules do not call it faster */
		free(out->note);
		out->note = xstrdup("tps gate undecided (--pairs auto: the budget ended)");
	}
	if (out->outcome == TUNE_UNMEASURED && !out->note)
		out->note = xasprintf("no ratio in %s", json);
out:
	gate_clear(&g);
	gate_verdict_clear(&verdict);
	strbuf_release(&text);
	strvec_clear(&args);
}

static int tuner_evaluate(struct tune_engine *t, tune_set cand, tune_set ref,
			  struct tune_eval *out, void *ctx)
{
	struct tuner *tu = ctx;
	double t0, bsecs = 0;
	char *cand_prefix = NULL, *ref_prefix = NULL, *json = NULL, *log = NULL, *dir = NULL;
	char *refid = NULL;
	int rc = -1, b, lockfd = -1;

	if (take_lock(tu->o.lock, &lockfd) < 0)
		return -1;
	t0 = clock_seconds();
	/* the reference first: stock on the first evaluation */
	b = ensure_installed(tu, ref, &out->builds, &bsecs, &out->note);
	if (b != BUILT_OK) {
		error("the reference set cannot be built: %s", out->note ? out->note : "?");
		goto out;
	}
	out->build_seconds += bsecs;
	bsecs = 0;
	b = ensure_installed(tu, cand, &out->builds, &bsecs, &out->note);
	out->build_seconds += bsecs;
	if (b == BUILT_FAILED || b == BUILT_REGRESS_FAILED) {
		out->outcome = b == BUILT_FAILED ? TUNE_BUILD_FAILED : TUNE_REGRESS_FAILED;
		rc = 0;
		goto out;
	}
	if (b != BUILT_OK) {
		out->outcome = TUNE_UNMEASURED;
		rc = 0;
		goto out;
	}

	cand_prefix = tuner_set_prefix(tu, cand);
	ref_prefix = tuner_set_prefix(tu, ref);
	dir = set_dir(tu, cand);
	mkdir_p(dir);
	refid = tune_set_id(t, ref);
	json = xasprintf("%s/gate-vs-%s.json", dir, refid);
	log = xasprintf("%s/gate-vs-%s.log", dir, refid);
	gate_ratio(tu, ref_prefix, cand_prefix, tu->o.workload, json, log, out);
	rc = 0;
out:
	out->seconds = clock_seconds() - t0;
	if (lockfd >= 0)
		close(lockfd);
	free(cand_prefix);
	free(ref_prefix);
	free(json);
	free(log);
	free(dir);
	free(refid);
	if (!tu->o.quiet && rc == 0) {
		char *flags = tune_set_text(t, cand);
		fprintf(stderr, "tune: [%s] -> %s", *flags ? flags : "stock",
			tune_outcome_name(out->outcome));
		if (isfinite(out->ratio))
			fprintf(stderr, " ratio %.4f [%.4f, %.4f]", out->ratio, out->lo, out->hi);
		fprintf(stderr, " (%.0f s)\n", out->seconds);
		free(flags);
	}
	return rc;
}

/* ---------------- held out ---------------- */

const char *tuner_held_verdict(const struct tune_eval *e, double resolution)
{
	if (e->outcome != TUNE_OK || !isfinite(e->ratio))
		return "unmeasured";
	/* no layout floor: a deterministic ratio is not decided at the
	 * repeat resolution (noise/floor.h), whatever it says */
	if (isnan(resolution))
		return "undecided";
	/* the gate's interval (gate/expr.c decide_point): a relative error */
	if (e->lo * (1 - resolution) > 1)
		return "faster";
	if (e->hi * (1 + resolution) < 1)
		return "slower";
	return "not significant";
}

const char *tuner_held_overall(const struct tune_held *h, size_t n)
{
	static const char *const order[] = { "slower", "unmeasured", "undecided",
					     "not significant" };
	if (!n)
		return "not judged";
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(h[i].verdict, order[k]))
				return order[k];
	return "faster";
}

/*
 * The best set against stock on each --held-out workload, which the search
 * never measured: a gain that holds only on the training workload shows
 * here.  Each gate's JSON stays in the best set's directory.  Nothing to
 * judge when the best is stock.
 */
static void judge_held_out(struct tuner *tu)
{
	char *stock, *best, *dir;
	int lockfd = -1;

	if (!tu->t.best || !tu->o.held_out.nr)
		return;
	if (take_lock(tu->o.lock, &lockfd) < 0)
		return;
	stock = tuner_set_prefix(tu, 0);
	best = tuner_set_prefix(tu, tu->t.best);
	dir = set_dir(tu, tu->t.best);
	tu->held = xcalloc(tu->o.held_out.nr, sizeof(*tu->held));
	for (size_t i = 0; i < tu->o.held_out.nr; i++) {
		struct tune_held *h = &tu->held[tu->nr_held++];
		char *json = xasprintf("%s/held-out-%s.json", dir, tu->o.held_out.v[i]);
		char *log = xasprintf("%s/held-out-%s.log", dir, tu->o.held_out.v[i]);
		double t0 = clock_seconds();
		h->workload = tu->o.held_out.v[i];
		h->resolution = tu->o.held_res ? tu->o.held_res[i] : 0;
		h->e.ratio = h->e.lo = h->e.hi = NAN;
		gate_ratio(tu, stock, best, h->workload, json, log, &h->e);
		h->e.seconds = clock_seconds() - t0;
		h->verdict = tuner_held_verdict(&h->e, h->resolution);
		if (!tu->o.quiet)
			fprintf(stderr, "tune: held out %s: %s\n", h->workload, h->verdict);
		free(json);
		free(log);
	}
	if (lockfd >= 0)
		close(lockfd);
	free(stock);
	free(best);
	free(dir);
}

/* ---------------- the run ---------------- */

void tuner_init(struct tuner *tu, struct tune_params *p)
{
	memset(tu, 0, sizeof(*tu));
	memset(p, 0, sizeof(*p));
	p->tolerance = 0.005;
	p->min_gain = 0.005;
	p->max_builds = 12;
	p->readd = 1;
	tu->t0 = clock_seconds();
	tu->o.workload = WORKLOADS_DEFAULT;
	tu->o.scope = "global";
	tu->o.metric = metrics_of(METRIC_INSTR)->name;
	tu->o.workdir = "pgbuild-tune";
	tu->o.gate.pairs = 6;
	tu->o.gate.duration = 5;
	tu->o.gate.clients = 2;
	tu->o.regress = 1;
	tu->o.plugin = -1;
	tu->o.held_out_arg = WORKLOADS_HELDOUT;
	tu->o.min_applies = 90;
	strvec_init(&tu->o.held_out);
	strvec_init(&tu->scope_globs);
	strvec_init(&tu->refused);
}

/* --dry-run: the candidates and the start policy, nothing built. */
static void print_dry_run(const struct tuner *tu, const char *text)
{
	printf("candidates (%zu, from %s):\n", tu->t.flags.nr, tu->o.candidates);
	for (size_t i = 0; i < tu->t.flags.nr; i++)
		printf("  %s\n", tu->t.flags.v[i]);
	for (size_t i = 0; i < tu->refused.nr; i++)
		printf("refused: %s\n", tu->refused.v[i]);
	printf("train: %s; held out: ", tu->o.workload);
	for (size_t i = 0; i < tu->o.held_out.nr; i++)
		printf("%s%s", i ? "," : "", tu->o.held_out.v[i]);
	printf("%s\n", tu->o.held_out.nr ? " (the best is judged on it after the search)" : "none");
	if (tu->o.bundle)
		printf("bundle: %s (its PGO profile in every set's build; a set is refused below "
		       "%g%% of its weight)\n", tu->o.bundle, tu->o.min_applies);
	/* a deterministic metric's: the floor's, --noise none's, or none
	 * (a run refuses: cmd/tune.c) */
	if (tu->o.measure_floor)
		printf("resolution: %s\n", tu->o.resolution_source);
	else if (tu->o.resolution_source && isnan(tu->t.p.resolution))
		printf("resolution: none: %s\n", tu->o.resolution_source);
	else if (tu->o.resolution_source)
		printf("resolution: %.2g%% (%s)\n", tu->t.p.resolution * 100,
		       tu->o.resolution_source);
	printf("start policy:\n%s", text);
}

/* The stock install, the work and build directories. */
static int prepare_dirs(struct tuner *tu)
{
	if (tu->o.baseline) {
		tu->stock_prefix = path_absolute(tu->o.baseline);
		if (!installed(tu->stock_prefix))
			return error("--baseline %s: no bin/postgres: not an installed PostgreSQL",
				     tu->o.baseline);
	}
	/* never chmodded: refused when the server user cannot reach the
	 * installs below it, or another user could write in it */
	{
		int fd = workdir_open("--workdir", tu->workdir);
		if (fd < 0)
			return -1;
		close(fd);
	}
	tu->builddir = tu->o.builddir ? path_absolute(tu->o.builddir) :
		       xasprintf("%s/build", tu->workdir);
	tu->build_prefix = configured_prefix(tu->builddir);
	if (!tu->build_prefix)
		tu->build_prefix = xasprintf("%s/build-prefix", tu->workdir);
	if (!tu->o.baseline)
		tu->stock_prefix = tuner_set_prefix(tu, 0);
	return 0;
}

/*
 * o.measure_floor: stock built (the first set, into the one build
 * directory), then its layout floor over the --train and held-out
 * workloads while that directory still holds stock's objects (its
 * variants are relinks of them) and the search's resolutions from it
 * (tu->measure_floor: noise's engine, called as a library by cmd/tune.c,
 * which may use noise/).  --reuse: a resumed tune measures nothing
 * again.  A resumed tune whose floor is missing after its search began is
 * refused: the build directory holds another set by then.  0, or -1 after
 * the error.
 */
static int measure_stock_floor(struct tuner *tu)
{
	char *file = xasprintf("%s/" TUNE_STOCK_FLOOR, tu->workdir);
	char *wd = xasprintf("%s/stock-noise", tu->workdir);
	char *note = NULL;
	double secs = 0;
	int builds = 0, rc = -1, lockfd = -1;

	if (!path_exists(file) && tu->t.nr_records) {
		error("%s's layout floor %s is missing, but the search has begun (%zu "
		      "evaluations in its state): the build directory %s holds another set, "
		      "not its objects to relink; restore that file, or start again in a new "
		      "--workdir (and --state)", tu->o.bundle ? "the start build" : "stock",
		      file, tu->t.nr_records, tu->builddir);
		goto out;
	}
	/* the build and the relinks under --lock, as every evaluation: another
	 * tune on the same build directory waits */
	if (take_lock(tu->o.lock, &lockfd) < 0)
		goto out;
	if (ensure_installed(tu, 0, &builds, &secs, &note) != BUILT_OK) {
		error("stock cannot be built: %s", note ? note : "?");
		goto out;
	}
	if (!tu->o.quiet)
		fprintf(stderr, "tune: %s layout floor: pgbuild noise (its engine; %s) ...\n",
			tu->o.bundle ? "the start build's" : "stock's", wd);
	rc = tu->measure_floor(tu, file, wd);
	if (rc == 0 && !tu->o.quiet)
		fprintf(stderr, "tune: resolution %.2g%% (%s)\n", tu->t.p.resolution * 100,
			tu->o.resolution_source);
out:
	if (lockfd >= 0)
		close(lockfd);
	free(note);
	free(file);
	free(wd);
	return rc;
}

/* The state of an earlier run of the same tune, and the evaluator. */
static int prepare_engine(struct tuner *tu, const char *state_path)
{
	struct strbuf err = STRBUF_INIT;
	tu->t.key = xasprintf("workload=%s metric=%s scope=%s src=%s builddir=%s%s%s",
			      tu->o.workload, tu->o.metric, tu->o.scope,
			      tu->o.src ? tu->o.src : "default", tu->builddir,
			      tu->o.bundle ? " bundle=" : "", tu->o.bundle ? tu->o.bundle : "");
	if (tune_state_load(&tu->t, state_path, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	if (tu->t.nr_records && !tu->o.quiet)
		fprintf(stderr, "tune: resuming from %s (%zu evaluations recorded)\n", state_path,
			tu->t.nr_records);
	tu->t.state_path = xstrdup(state_path);
	tu->t.evaluate = tuner_evaluate;
	tu->t.ctx = tu;
	return 0;
}

/* WORKDIR/best.bundle: the bundle the best policy is built with (tune
 * --bundle), which optimize's tuned stage builds it with; none without.
 * 0, or -1 after the error. */
static int write_best_bundle(struct tuner *tu)
{
	char *path = xasprintf("%s/best.bundle", tu->workdir);
	int rc = 0;
	if (tu->o.bundle) {
		char *line = xasprintf("%s\n", tu->o.bundle);
		rc = write_text(path, line);
		free(line);
	} else if (unlink(path) < 0 && errno != ENOENT) {
		rc = error("cannot remove %s: %s", path, strerror(errno));
	}
	free(path);
	return rc;
}

int tuner_run(struct tuner *tu, const struct tune_params *p)
{
	char *out_path = NULL, *state_path = NULL, *text = NULL;
	int rc = PGBUILD_EXIT_ERROR;

	tune_engine_init(&tu->t, p);
	if (tuner_load_scope(tu) < 0)
		goto out;
	if (!tu->o.candidates && !path_exists(tuner_default_candidates())) {
		error("no --candidates given and the default list %s is missing "
		      "(make install puts it in DATADIR/pgoptcc)", tuner_default_candidates());
		goto out;
	}
	if (!tu->o.candidates)
		tu->o.candidates = tuner_default_candidates();
	if (tuner_load_candidates(tu, tu->o.candidates) < 0)
		goto out;
	tu->workdir = path_absolute(tu->o.workdir);
	out_path = tu->o.out ? path_absolute(tu->o.out) : xasprintf("%s/best.policy", tu->workdir);
	state_path = tu->o.state ? path_absolute(tu->o.state) :
		     xasprintf("%s/state.jsonl", tu->workdir);
	/* the start policy must pass pgoptcc's own checks */
	text = tuner_policy_text(tu, p->start_stock ? 0 : ~(tune_set)0, out_path);
	if (!text)
		goto out;
	if (tu->o.dry_run) {
		if (isnan(p->resolution) && !tu->o.measure_floor)
			fprintf(stderr, "pgbuild: note: a run would stop here: %s\n",
				tu->o.resolution_source);
		/* the plan on stdout; with --json also as a document (with
		 * "-" the text goes to stderr: cli_check_outputs) */
		print_dry_run(tu, text);
		rc = tu->o.json && tuner_write_plan_json(tu, tu->o.json, text) < 0 ?
		     PGBUILD_EXIT_ERROR : 0;
		goto out;
	}
	if (isnan(p->resolution) && !tu->o.measure_floor) {
		/* a deterministic metric without a layout floor (cmd/tune.c
		 * says why): never decided at the repeat resolution unasked,
		 * as the gate's thresholds; refused before anything is made */
		error("%s", tu->o.resolution_source ? tu->o.resolution_source :
		      "no layout floor to decide at");
		goto out;
	}
	if (prepare_dirs(tu) < 0 || prepare_engine(tu, state_path) < 0 ||
	    (tu->o.measure_floor && measure_stock_floor(tu) < 0))
		goto out;
	if (tune_engine_run(&tu->t) < 0) {
		tuner_print_report(tu, stdout, NULL);
		error("tune stopped: %s", tu->t.stop_reason);
		goto out;
	}
	free(text);
	text = tuner_policy_text(tu, tu->t.best, out_path);
	if (!text || write_text(out_path, text) < 0 || write_best_bundle(tu) < 0)
		goto out;
	judge_held_out(tu);
	tuner_print_report(tu, stdout, out_path);
	if (tu->o.json && tuner_write_json(tu, tu->o.json, out_path) < 0)
		goto out;
	{
		/* the search's document beside best.policy, always: what the
		 * policy was chosen on (optimize's tuned stage counts that
		 * workload as "used to choose", never held out) */
		char *doc = xasprintf("%s/" TUNE_BEST_JSON, tu->workdir);
		int w = tuner_write_json(tu, doc, out_path);
		free(doc);
		if (w < 0)
			goto out;
	}
	rc = strcmp(tu->t.stop_reason, "converged") ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_OK;
	if (!strcmp(tuner_held_overall(tu->held, tu->nr_held), "slower")) {
		/* the gain does not transfer: a result, not an error, and not a
		 * policy to ship */
		for (size_t i = 0; i < tu->nr_held; i++)
			if (!strcmp(tu->held[i].verdict, "slower"))
				error("the best set is slower than stock on held-out %s (%.4f, never "
				      "measured by the search): %s is the search's best on %s only, "
				      "not a policy to ship", tu->held[i].workload, tu->held[i].e.ratio,
				      out_path, tu->o.workload);
		rc = PGBUILD_EXIT_FAIL;
	}
out:
	free(out_path);
	free(state_path);
	free(text);
	return rc;
}

void tuner_release(struct tuner *tu)
{
	tune_engine_release(&tu->t);
	strvec_clear(&tu->scope_globs);
	strvec_clear(&tu->refused);
	free(tu->workdir);
	free(tu->builddir);
	free(tu->build_prefix);
	free(tu->stock_prefix);
	free(tu->o.resolution_source);
	free(tu->o.noise_note);
	free(tu->o.bundle);
	strvec_clear(&tu->o.held_out);
	free(tu->o.held_res);
	for (size_t i = 0; i < tu->nr_held; i++)
		free(tu->held[i].e.note);
	free(tu->held);
}
