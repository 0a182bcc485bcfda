/*
 * tune.c - `pgbuild tune`: search compiler flags for one scope of
 * PostgreSQL by measured elimination (the search itself is tune-engine.c).
 *
 * One evaluation = "is candidate set C as fast as reference set R?":
 *
 *   build C   `pgbuild build --no-install` in ONE build directory (reused:
 *             pgbuild build recompiles only the objects whose flags the
 *             policy changes, i.e. the scope, and ccache answers every
 *             object compiled before), then `pgbuild regress` on that tree,
 *             then `make install DESTDIR=` into WORKDIR/sets/<id>/ (an
 *             install is relocatable; the build directory keeps the prefix
 *             it was configured with, so it is never reconfigured);
 *   compare   `pgbuild gate --baseline R --candidate C --json`, read back:
 *             the ratio (candidate speed / reference speed) and its
 *             interval, exact for --metric instructions.
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
#include <ftw.h>
#include <getopt.h>
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

#include "fdio.h"
#include "policy.h"
#include "pgbuild.h"
#include "tune/engine.h"

struct tune_opts {
	const char *src;          /* --src */
	const char *workload;     /* --workload */
	const char *scope;        /* --scope global|GLOB|@FILE */
	const char *candidates;   /* --candidates FILE */
	const char *state;        /* --state FILE */
	const char *out;          /* --out POLICY */
	const char *workdir;      /* --workdir */
	const char *builddir;     /* --builddir */
	const char *baseline;     /* --baseline PREFIX (stock install) */
	const char *metric;       /* tps | instructions */
	const char *json;         /* --json FILE */
	const char *lock;         /* --lock FILE: flock it around each evaluation */
	int pairs;                /* --pairs (tps) */
	double duration;          /* --duration (tps) */
	int clients;              /* --clients (tps) */
	int jobs;                 /* --jobs for make */
	int regress;              /* 0 with --no-regress */
	int dry_run;              /* --dry-run: show candidates and policies */
	int plugin;               /* --plugin on|off; -1: off under distcc */
	int quiet;
};

struct tuner {
	struct tune_opts o;
	struct tune_engine t;
	struct strvec scope_globs;  /* section headers of the scope */
	int global;                 /* scope is global */
	struct strvec refused;      /* "flag: reason" */
	char *workdir, *builddir;   /* absolute */
	char *build_prefix;         /* the prefix builddir is configured with */
	char *stock_prefix;         /* --baseline, or WORKDIR/sets/stock/prefix */
	double t0;
};

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* ---------------- candidates ---------------- */

/* Why flag (one candidate, possibly several words) cannot be tuned, or NULL. */
static const char *refuse_reason(struct tuner *tu, const char *cand)
{
	static char buf[256];
	struct strvec words = STRVEC_INIT;
	const char *why = NULL;
	strvec_split(&words, cand);
	for (size_t i = 0; i < words.nr && !why; i++) {
		const char *w = words.v[i];
		const char *r = policy_forbidden_add(w);
		if (r && words.nr == 1) {
			why = r;
		} else if (r) {
			snprintf(buf, sizeof(buf), "%s: %s", w, r);
			why = buf;
		} else if (w[0] != '-') {
			snprintf(buf, sizeof(buf), "%s: not a flag%s", w,
				 i && !strcmp(words.v[i - 1], "--param") ?
				 " (write --param=NAME=VALUE as one word)" : "");
			why = buf;
		} else if ((!strcmp(w, "-flto") || !strncmp(w, "-flto=", 6)) && !tu->global) {
			why = "LTO applies to the whole link: only with --scope global";
		} else if (!strcmp(w, "-fprofile-use")) {
			why = "needs a profile: give -fprofile-use=DIR (see pgbuild pgo)";
		}
	}
	/* "-fno-X" of a required flag, e.g. -fno-wrapv, is on the unsafe
	 * list; adding a required flag is harmless */
	strvec_clear(&words);
	return why;
}

static int load_candidates(struct tuner *tu, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	char *save = NULL, *line;
	int lineno = 0, rc = 0;

	if (strbuf_read_file(&text, path) < 0) {
		error("cannot read --candidates %s: %s", path, strerror(errno));
		strbuf_release(&text);
		return -1;
	}
	for (line = strtok_r(text.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct strbuf c = STRBUF_INIT;
		char *hash = strchr(line, '#');
		const char *why;
		lineno++;
		if (hash)
			*hash = 0;
		strbuf_addstr(&c, line);
		strbuf_trim(&c);
		if (!c.len) {
			strbuf_release(&c);
			continue;
		}
		/* normalise blanks so the state's names are stable */
		{
			struct strvec w = STRVEC_INIT;
			strvec_split(&w, c.buf);
			strbuf_reset(&c);
			for (size_t i = 0; i < w.nr; i++)
				strbuf_addf(&c, "%s%s", i ? " " : "", w.v[i]);
			strvec_clear(&w);
		}
		if ((why = refuse_reason(tu, c.buf))) {
			warning("%s: refused candidate \"%s\": %s", path, c.buf, why);
			strvec_pushf(&tu->refused, "%s: %s", c.buf, why);
		} else if (tune_engine_add_flag(&tu->t, c.buf) < 0) {
			if (tu->t.flags.nr >= TUNE_MAX_FLAGS)
				rc = error("%s: more than %d candidates", path, TUNE_MAX_FLAGS);
			else
				warning("%s: duplicate candidate \"%s\" ignored", path, c.buf);
		}
		strbuf_release(&c);
		if (rc)
			break;
	}
	strbuf_release(&text);
	if (!rc && !tu->t.flags.nr)
		rc = error("%s: no candidate flags left to tune", path);
	return rc;
}

static const char *default_candidates(void)
{
	static char *p;
	char *tries[2];
	if (p)
		return p;
	tries[0] = xasprintf("%s/tune-candidates.txt", pgbuild_libdir());
	/* the build tree: build/bin/pgbuild -> examples/ at the top */
	tries[1] = xasprintf("%s/../../../examples/tune-candidates.txt", pgbuild_libdir());
	for (int i = 0; i < 2 && !p; i++)
		if (path_exists(tries[i]))
			p = xstrdup(tries[i]);
	free(tries[0]);
	free(tries[1]);
	return p;
}

static int load_scope(struct tuner *tu)
{
	const char *s = tu->o.scope;
	if (!strcmp(s, "global")) {
		tu->global = 1;
		return 0;
	}
	if (s[0] == '@') {
		struct strbuf text = STRBUF_INIT;
		char *save = NULL;
		if (strbuf_read_file(&text, s + 1) < 0) {
			strbuf_release(&text);
			return error("cannot read --scope file %s: %s", s + 1, strerror(errno));
		}
		for (char *l = strtok_r(text.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			struct strvec w = STRVEC_INIT;
			char *hash = strchr(l, '#');
			if (hash)
				*hash = 0;
			strvec_split(&w, l);
			if (w.nr)
				strvec_push(&tu->scope_globs, w.v[0]);
			strvec_clear(&w);
		}
		strbuf_release(&text);
		if (!tu->scope_globs.nr)
			return error("--scope file %s names no files", s + 1);
		return 0;
	}
	if (strchr(s, ']') || strchr(s, '\n') || !*s)
		return error("invalid value \"%s\" for --scope: expected global, a glob or @FILE", s);
	strvec_push(&tu->scope_globs, s);
	return 0;
}

/* ---------------- policies ---------------- */

static char *policy_text(struct tuner *tu, tune_set set)
{
	struct strbuf sb = STRBUF_INIT, cflags = STRBUF_INIT;
	int lto = 0;
	char *flags = tune_set_text(&tu->t, set);

	for (size_t i = 0; i < tu->t.flags.nr; i++) {
		const char *f = tu->t.flags.v[i];
		if (!(set & ((tune_set)1 << i)))
			continue;
		if (!strcmp(f, "-flto") || !strncmp(f, "-flto=", 6))
			lto = 1;
		else
			strbuf_addf(&cflags, " %s", f);
	}
	strbuf_addf(&sb, "# pgbuild tune: %s for %s (%s), scope %s\n",
		    *flags ? flags : "stock", tu->o.workload, tu->o.metric, tu->o.scope);
	if (!tu->o.plugin)
		strbuf_addstr(&sb, "# distccd refuses -fplugin: without the plugin the compiles can be distributed\n");
	if (tu->global || !tu->o.plugin)
		strbuf_addstr(&sb, "[global]\n");
	if (!tu->o.plugin)
		strbuf_addstr(&sb, "plugin = off\n");
	if (tu->global) {
		if (lto)
			strbuf_addstr(&sb, "lto = on\n");
		if (cflags.len)
			strbuf_addf(&sb, "cflags +=%s\n", cflags.buf);
	} else if (cflags.len) {
		for (size_t i = 0; i < tu->scope_globs.nr; i++)
			strbuf_addf(&sb, "[%s]\ncflags +=%s\n", tu->scope_globs.v[i], cflags.buf);
	}
	free(flags);
	strbuf_release(&cflags);
	return strbuf_detach(&sb, NULL);
}

/* The wrapper's own parser must accept it (unsafe flags are errors there). */
static int check_policy(const char *path, const char *text)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	int rc;
	memset(&p, 0, sizeof(p));
	rc = policy_parse(&p, path, text, strlen(text), &err);
	if (rc < 0)
		error("generated policy rejected by pgoptcc's parser: %s", err.buf);
	else
		policy_release(&p);
	strbuf_release(&err);
	return rc;
}

/* ---------------- the evaluator ---------------- */

static char *set_dir(struct tuner *tu, tune_set s)
{
	char *id = tune_set_id(&tu->t, s);
	char *d = xasprintf("%s/sets/%s", tu->workdir, id);
	free(id);
	return d;
}

static char *set_prefix(struct tuner *tu, tune_set s)
{
	char *d, *p;
	if (!s && tu->o.baseline)
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
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644), rc;
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
static long revive_deleted_objects(const char *builddir)
{
	char *logpath = xasprintf("%s/pgopt-log/compile.jsonl", builddir);
	FILE *fp = fopen(logpath, "r");
	struct strbuf line = STRBUF_INIT;
	struct strvec seen = STRVEC_INIT;
	long n = 0;

	free(logpath);
	if (!fp)
		return 0;
	while (strbuf_getline(&line, fp) == 0) {
		struct json_value *v = json_parse(line.buf, line.len, NULL);
		const char *kind = json_get_str(v, "kind"), *cwd = json_get_str(v, "cwd");
		const char *out = json_get_str(v, "output");
		const struct json_value *ex = json_get(v, "exit");
		char *path;
		if (!kind || strcmp(kind, "compile") || !cwd || !out || !ex ||
		    ex->type != JSON_NUMBER || ex->u.number != 0) {
			json_free(v);
			continue;
		}
		path = out[0] == '/' ? xstrdup(out) : xasprintf("%s/%s", cwd, out);
		json_free(v);
		if (strvec_find(&seen, path) >= 0 || path_exists(path)) {
			free(path);
			continue;
		}
		strvec_push(&seen, path);
		{
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
			if (fd >= 0) {
				close(fd);
				utimes(path, tv);
				n++;
			}
		}
		free(path);
	}
	fclose(fp);
	strbuf_release(&line);
	strvec_clear(&seen);
	return n;
}

enum { BUILT_OK = 0, BUILT_FAILED = 1, BUILT_REGRESS_FAILED = 2, BUILT_ERROR = -1 };

/*
 * Make sure set s is installed; returns BUILT_*.  *builds is incremented
 * when it had to be built, *secs gets the build time.
 */
static int ensure_installed(struct tuner *tu, tune_set s, int *builds, double *secs, char **note)
{
	char *dir, *prefix = set_prefix(tu, s), *policy = NULL, *log = NULL, *stage = NULL;
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
		strbuf_read_file(&why, status);
		strbuf_trim(&why);
		*note = xasprintf("failed before (%s): %s", status, why.buf);
		rc = strstr(why.buf, "regress") ? BUILT_REGRESS_FAILED : BUILT_FAILED;
		strbuf_release(&why);
		goto out;
	}
	unlink(log);
	if (s) {
		policy = xasprintf("%s/tune.policy", dir);
		text = policy_text(tu, s);
		if (check_policy(policy, text) < 0 || write_text(policy, text) < 0)
			goto out;
	}
	if (!tu->o.quiet) {
		char *flags = tune_set_text(&tu->t, s);
		fprintf(stderr, "tune: build %s (%s) ...\n", *flags ? flags : "stock", dir);
		free(flags);
	}
	strvec_pushl(&args, pgbuild_self(), "build", "--policy", policy ? policy : "none",
		     "--prefix", tu->build_prefix, "--builddir", tu->builddir,
		     "--no-install", "--no-bench", "--no-contrib", "--quiet", NULL);
	if (tu->o.src)
		strvec_pushl(&args, "--src", tu->o.src, NULL);
	if (tu->o.jobs > 0)
		strvec_pushf(&args, "--jobs=%d", tu->o.jobs);
	code = run_logged(&args, log, NULL);
	if (code == 0) {
		long revived = revive_deleted_objects(tu->builddir);
		if (revived > 0) {
			/* same policy again: no invalidation, make rebuilds the stubs */
			verbose("%ld invalidated objects were not rebuilt by make: rebuilding", revived);
			code = run_logged(&args, log, NULL);
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
	if (tu->o.regress) {
		char *rj = xasprintf("%s/regress.json", dir);
		strvec_clear(&args);
		strvec_pushl(&args, pgbuild_self(), "regress", "--builddir", tu->builddir,
			     "--json", rj, NULL);
		if (!tu->o.quiet)
			fprintf(stderr, "tune: regression suite ...\n");
		code = run_logged(&args, log, NULL);
		free(rj);
		if (code == 1) {
			*note = xasprintf("regression suite failed (log %s)", log);
			write_text(status, "regress\n");
			rc = BUILT_REGRESS_FAILED;
			goto out;
		}
		if (code != 0) {
			*note = xasprintf("regression suite could not run (exit %d, log %s)", code, log);
			goto out;
		}
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

static int tuner_evaluate(struct tune_engine *t, tune_set cand, tune_set ref,
			  struct tune_eval *out, void *ctx)
{
	struct tuner *tu = ctx;
	double t0, bsecs = 0;
	char *cand_prefix = NULL, *ref_prefix = NULL, *json = NULL, *log = NULL, *dir = NULL;
	char *refid = NULL;
	struct strvec args = STRVEC_INIT;
	struct json_value *v = NULL;
	struct strbuf text = STRBUF_INIT;
	int rc = -1, b, lockfd = -1;

	if (tu->o.lock) {
		lockfd = open(tu->o.lock, O_RDWR | O_CREAT, 0666);
		if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
			error("cannot lock --lock %s: %s", tu->o.lock, strerror(errno));
			if (lockfd >= 0)
				close(lockfd);
			return -1;
		}
	}
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

	cand_prefix = set_prefix(tu, cand);
	ref_prefix = set_prefix(tu, ref);
	dir = set_dir(tu, cand);
	mkdir_p(dir);
	refid = tune_set_id(t, ref);
	json = xasprintf("%s/gate-vs-%s.json", dir, refid);
	log = xasprintf("%s/gate-vs-%s.log", dir, refid);
	unlink(log);
	strvec_pushl(&args, pgbuild_self(), "gate", "--baseline", ref_prefix,
		     "--candidate", cand_prefix, "--workload", tu->o.workload,
		     "--metric", tu->o.metric, "--json", json, NULL);
	if (!strcmp(tu->o.metric, "tps")) {
		strvec_pushf(&args, "--pairs=%d", tu->o.pairs);
		strvec_pushf(&args, "--duration=%g", tu->o.duration);
		strvec_pushf(&args, "--clients=%d", tu->o.clients);
	}
	if (!tu->o.quiet)
		fprintf(stderr, "tune: gate (%s, %s) ...\n", tu->o.workload, tu->o.metric);
	b = run_logged(&args, log, NULL);
	if (b != 0 && b != 1) {
		char *l = textfile_last_line(log, "error");
		out->outcome = TUNE_UNMEASURED;
		free(out->note);
		out->note = xasprintf("gate exited %d: %s (log %s)", b, l ? l : "?", log);
		free(l);
		rc = 0;
		goto out;
	}
	if (strbuf_read_file(&text, json) < 0 || !(v = json_parse(text.buf, text.len, NULL))) {
		out->outcome = TUNE_UNMEASURED;
		out->note = xasprintf("no gate result in %s", json);
		rc = 0;
		goto out;
	}
	{
		const struct json_value *w = json_at(json_get(v, "workloads"), 0);
		if (!strcmp(tu->o.metric, "tps")) {
			const struct json_value *r = json_get(json_get(w, "tps"), "ratio");
			out->ratio = json_get_num(r, "estimate", NAN);
			out->lo = json_get_num(r, "ci_low", NAN);
			out->hi = json_get_num(r, "ci_high", NAN);
		} else {
			const struct json_value *in = json_get(w, "instructions");
			const char *st = json_get_str(in, "state");
			if (st && !strcmp(st, "ok")) {
				out->ratio = json_get_num(in, "speedup", NAN);
				out->lo = out->hi = out->ratio;
				free(out->note);
				out->note = xasprintf("instructions/transaction %.0f -> %.0f",
						      json_get_num(in, "a", NAN), json_get_num(in, "b", NAN));
			} else {
				const char *n = json_get_str(in, "note");
				free(out->note);
				out->note = xasprintf("instructions unavailable: %s", n ? n : "?");
			}
		}
		out->outcome = isfinite(out->ratio) ? TUNE_OK : TUNE_UNMEASURED;
		if (out->outcome == TUNE_UNMEASURED && !out->note)
			out->note = xasprintf("no ratio in %s", json);
	}
	rc = 0;
out:
	out->seconds = clock_seconds() - t0;
	if (lockfd >= 0)
		close(lockfd);
	json_free(v);
	strbuf_release(&text);
	strvec_clear(&args);
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

/* ---------------- output ---------------- */

static void print_report(struct tuner *tu, FILE *fp, const char *out_path)
{
	struct tune_engine *t = &tu->t;
	char b1[32], b2[32];
	fprintf(fp, "pgbuild tune: %s, metric %s, scope %s, %zu candidates\n",
		tu->o.workload, tu->o.metric, tu->o.scope, t->flags.nr);
	for (size_t i = 0; i < tu->refused.nr; i++)
		fprintf(fp, "  refused: %s\n", tu->refused.v[i]);
	fprintf(fp, "%-4s %-6s %-28s %-8s %-26s %-12s %8s %8s\n", "step", "phase", "flag", "outcome",
		"ratio [interval]", "verdict", "build", "total");
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct tune_step *s = &t->steps[i];
		const struct tune_record *r = s->record >= 0 ? &t->records[s->record] : NULL;
		char ratio[64] = "-";
		char flag[64];
		if (s->flag >= 0)
			snprintf(flag, sizeof(flag), "%s", t->flags.v[s->flag]);
		else {
			char *txt = tune_set_text(t, s->cand);
			snprintf(flag, sizeof(flag), "%s", *txt ? txt : "stock");
			free(txt);
		}
		if (r && isfinite(r->e.ratio))
			snprintf(ratio, sizeof(ratio), "%.4f [%.4f, %.4f]", r->e.ratio, r->e.lo, r->e.hi);
		size_t same = 0;
		for (size_t k = 0; k < i && !same; k++)
			if (s->record >= 0 && t->steps[k].record == s->record)
				same = k + 1;
		if (same) {
			/* the same comparison again (e.g. final = start): no new work */
			fprintf(fp, "%-4zu %-6s %-28s %-8s %-26s %-12s %8s %8s  (as step %zu)\n", i + 1,
				tune_phase_name(s->phase), flag, tune_outcome_name(r->e.outcome), ratio,
				tune_verdict_name(s->verdict), "-", "-", same);
			continue;
		}
		fprintf(fp, "%-4zu %-6s %-28s %-8s %-26s %-12s %8s %8s%s\n", i + 1,
			tune_phase_name(s->phase), flag,
			r ? tune_outcome_name(r->e.outcome) : "-", ratio,
			tune_verdict_name(s->verdict),
			r && r->e.builds ? fmt_duration(r->e.build_seconds, 0, b1, sizeof(b1)) : "cached",
			r ? fmt_duration(r->e.seconds, 0, b2, sizeof(b2)) : "-",
			s->cached ? "  (from state)" : "");
		if (r && r->e.note && r->e.outcome != TUNE_OK)
			fprintf(fp, "     %s\n", r->e.note);
	}
	{
		char *best = tune_set_text(t, t->best);
		fprintf(fp, "best: %s\n", *best ? best : "stock (no flag paid off)");
		free(best);
	}
	if (t->final_record >= 0 && t->best) {
		const struct tune_record *r = &t->records[t->final_record];
		if (r->e.outcome == TUNE_OK)
			fprintf(fp, "vs stock: %.4f [%.4f, %.4f] (%s, %s)\n", r->e.ratio, r->e.lo, r->e.hi,
				tu->o.metric, tu->o.workload);
	}
	fprintf(fp, "builds: %d; evaluation time %s (this run: %d new evaluations, %s wall); stop: %s\n",
		t->builds, fmt_duration(t->seconds, 0, b1, sizeof(b1)), t->new_evaluations,
		fmt_duration(clock_seconds() - tu->t0, 0, b2, sizeof(b2)), t->stop_reason);
	if (out_path)
		fprintf(fp, "policy: %s\n", out_path);
}

static void set_json_flags(struct tune_engine *t, tune_set s, struct json_writer *jw)
{
	json_array_begin(jw);
	for (size_t i = 0; i < t->flags.nr; i++)
		if (s & ((tune_set)1 << i))
			json_string(jw, t->flags.v[i]);
	json_array_end(jw);
}

static int write_json(struct tuner *tu, const char *path, const char *out_path)
{
	struct tune_engine *t = &tu->t;
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	int rc;
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-tune");
	json_key(&jw, "version"); json_int(&jw, 1);
	json_key(&jw, "workload"); json_string(&jw, tu->o.workload);
	json_key(&jw, "metric"); json_string(&jw, tu->o.metric);
	json_key(&jw, "scope"); json_string(&jw, tu->o.scope);
	json_key(&jw, "tolerance"); json_double(&jw, t->p.tolerance);
	json_key(&jw, "min_gain"); json_double(&jw, t->p.min_gain);
	json_key(&jw, "candidates"); set_json_flags(t, ~(tune_set)0, &jw);
	json_key(&jw, "refused");
	json_strvec(&jw, &tu->refused);
	json_key(&jw, "steps");
	json_array_begin(&jw);
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct tune_step *s = &t->steps[i];
		const struct tune_record *r = s->record >= 0 ? &t->records[s->record] : NULL;
		json_object_begin(&jw);
		json_key(&jw, "step"); json_int(&jw, (int64_t)i + 1);
		json_key(&jw, "phase"); json_string(&jw, tune_phase_name(s->phase));
		json_key(&jw, "flag"); json_string(&jw, s->flag >= 0 ? t->flags.v[s->flag] : NULL);
		json_key(&jw, "cand"); set_json_flags(t, s->cand, &jw);
		json_key(&jw, "ref"); set_json_flags(t, s->ref, &jw);
		json_key(&jw, "verdict"); json_string(&jw, tune_verdict_name(s->verdict));
		json_key(&jw, "cached"); json_bool(&jw, s->cached);
		json_key(&jw, "outcome"); json_string(&jw, r ? tune_outcome_name(r->e.outcome) : NULL);
		json_key(&jw, "ratio"); json_double(&jw, r ? r->e.ratio : NAN);
		json_key(&jw, "ci_low"); json_double(&jw, r ? r->e.lo : NAN);
		json_key(&jw, "ci_high"); json_double(&jw, r ? r->e.hi : NAN);
		json_key(&jw, "builds"); json_int(&jw, r ? r->e.builds : 0);
		json_key(&jw, "build_seconds"); json_double(&jw, r ? r->e.build_seconds : NAN);
		json_key(&jw, "seconds"); json_double(&jw, r ? r->e.seconds : NAN);
		json_key(&jw, "note"); json_string(&jw, r ? r->e.note : NULL);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_key(&jw, "best");
	json_object_begin(&jw);
	json_key(&jw, "flags"); set_json_flags(t, t->best, &jw);
	json_key(&jw, "policy"); json_string(&jw, out_path);
	{
		char *id = tune_set_id(t, t->best), *pfx = set_prefix(tu, t->best);
		json_key(&jw, "id"); json_string(&jw, id);
		json_key(&jw, "prefix"); json_string(&jw, pfx);
		free(id);
		free(pfx);
	}
	if (t->final_record >= 0 && t->best) {
		const struct tune_record *r = &t->records[t->final_record];
		json_key(&jw, "vs_stock"); json_double(&jw, r->e.ratio);
		json_key(&jw, "ci_low"); json_double(&jw, r->e.lo);
		json_key(&jw, "ci_high"); json_double(&jw, r->e.hi);
	} else {
		json_key(&jw, "vs_stock"); json_double(&jw, t->best ? NAN : 1.0);
	}
	json_object_end(&jw);
	json_key(&jw, "builds"); json_int(&jw, t->builds);
	json_key(&jw, "evaluation_seconds"); json_double(&jw, t->seconds);
	json_key(&jw, "new_evaluations"); json_int(&jw, t->new_evaluations);
	json_key(&jw, "wall_seconds"); json_double(&jw, clock_seconds() - tu->t0);
	json_key(&jw, "stop_reason"); json_string(&jw, t->stop_reason);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	rc = write_text(path, sb.buf);
	strbuf_release(&sb);
	return rc;
}

/* ---------------- the command ---------------- */

static void tune_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild tune [--src SRC] [--workload W] [--scope global|GLOB|@FILE]\n"
"                    [--candidates FILE] [--max-builds N] [--time-budget H]\n"
"                    [--state FILE] [--out POLICY] [options]\n"
"\n"
"Search compiler flags for one scope of PostgreSQL by measured elimination:\n"
"start from the whole candidate set, drop each flag in turn and keep the\n"
"drop when the gate says it does not hurt, until no drop is kept; then try\n"
"to re-add the others greedily; finally measure the best against stock.\n"
"Each evaluation is an incremental build (only the scope recompiles; ccache\n"
"answers what was compiled before), the regression suite, and `pgbuild\n"
"gate` against the current best.  Sets that fail to build or fail the\n"
"regression suite are remembered and never retried.  Unsafe flags\n"
"(fast-math family, anything against PostgreSQL's required flags) are\n"
"refused.  The state is saved after every evaluation: rerun the same\n"
"command to resume.\n"
"\n"
"  --src SRC             PostgreSQL source (as pgbuild build; default\n"
"                        debian:postgresql-15)\n"
"  --workload W          bench workload (default select-only)\n"
"  --scope S             global (default), a glob over source files\n"
"                        (e.g. 'src/backend/executor/*.c'), or @FILE listing\n"
"                        files or globs, one per line (e.g. the hot files)\n"
"  --candidates FILE     candidate flags, one per line (default\n"
"                        examples/tune-candidates.txt)\n"
"  --max-builds N        stop before a build beyond N (default 12; 0 = no limit)\n"
"  --time-budget H       stop when H hours of evaluations are spent\n"
"  --workdir DIR         installs, logs, state (default ./pgbuild-tune)\n"
"  --builddir DIR        the one build directory (default WORKDIR/build);\n"
"                        an existing pgbuild build directory is reused as is\n"
"  --baseline PREFIX     an installed stock build (policy none) of the same\n"
"                        source; else tune builds it first\n"
"  --state FILE          resumable state, JSON lines (default WORKDIR/state.jsonl)\n"
"  --out POLICY          the best policy (default WORKDIR/best.policy)\n"
"  --json FILE           every step and the result as JSON\n"
"  --metric M            instructions (default: callgrind, exact) or tps\n"
"  --pairs N --duration S --clients N   gate settings for --metric tps\n"
"  --tolerance PCT       a drop is kept unless it is significantly more than\n"
"                        PCT%% slower (default 0.5)\n"
"  --min-gain PCT        an added flag must be significantly faster by PCT%%\n"
"                        (default 0.5)\n"
"  --start full|stock    start from the whole set (default) or from stock\n"
"  --no-readd            skip the greedy re-add pass\n"
"  --no-regress          skip the regression suite (not for a policy you ship)\n"
"  -j, --jobs N          make jobs\n"
"  --lock FILE           hold flock(FILE) during each evaluation (a machine\n"
"                        shared with other heavy jobs)\n"
"  --plugin on|off       load pgopt.so into the tuned compiles (default on;\n"
"                        off when PGOPT_PREFIX runs distcc: distccd refuses\n"
"                        -fplugin)\n"
"  --dry-run             print the candidates and the start policy, build nothing\n"
"  -q, --quiet           no progress lines\n"
"\n"
"Environment: PGOPT_PREFIX (e.g. \"ccache distcc\" with DISTCC_HOSTS: builds\n"
"on a compile farm; benchmarks always run locally), CCACHE_DIR.\n"
"Exit: 0 done (best policy written), 1 stopped early (budget) before\n"
"converging, 2 error.\n");
}

enum {
	OPT_SRC = 256, OPT_WORKLOAD, OPT_SCOPE, OPT_CANDIDATES, OPT_MAX_BUILDS, OPT_TIME_BUDGET,
	OPT_STATE, OPT_OUT, OPT_WORKDIR, OPT_BUILDDIR, OPT_BASELINE, OPT_METRIC, OPT_PAIRS,
	OPT_DURATION, OPT_CLIENTS, OPT_TOLERANCE, OPT_MIN_GAIN, OPT_START, OPT_NO_READD,
	OPT_NO_REGRESS, OPT_DRY_RUN, OPT_JSON, OPT_LOCK, OPT_PLUGIN,
};

PGBUILD_COMMAND(tune, "search compiler flags per scope by measured elimination (resumable)")
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, OPT_SRC },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "scope", required_argument, NULL, OPT_SCOPE },
		{ "candidates", required_argument, NULL, OPT_CANDIDATES },
		{ "max-builds", required_argument, NULL, OPT_MAX_BUILDS },
		{ "time-budget", required_argument, NULL, OPT_TIME_BUDGET },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "workdir", required_argument, NULL, OPT_WORKDIR },
		{ "builddir", required_argument, NULL, OPT_BUILDDIR },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "clients", required_argument, NULL, OPT_CLIENTS },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "min-gain", required_argument, NULL, OPT_MIN_GAIN },
		{ "start", required_argument, NULL, OPT_START },
		{ "no-readd", no_argument, NULL, OPT_NO_READD },
		{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "lock", required_argument, NULL, OPT_LOCK },
		{ "plugin", required_argument, NULL, OPT_PLUGIN },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct tune_params p = {
		.tolerance = 0.005, .min_gain = 0.005, .max_builds = 12, .time_budget = 0,
		.readd = 1, .start_stock = 0,
	};
	struct tuner tu;
	struct strbuf err = STRBUF_INIT;
	char *out_path = NULL, *state_path = NULL, *text = NULL;
	int c, rc = PGBUILD_EXIT_ERROR;
	double d;

	memset(&tu, 0, sizeof(tu));
	tu.t0 = clock_seconds();
	tu.o.workload = "select-only";
	tu.o.scope = "global";
	tu.o.metric = "instructions";
	tu.o.workdir = "pgbuild-tune";
	tu.o.pairs = 6;
	tu.o.duration = 5;
	tu.o.clients = 2;
	tu.o.regress = 1;
	tu.o.plugin = -1;
	strvec_init(&tu.scope_globs);
	strvec_init(&tu.refused);

	optind = 1;
	while ((c = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SRC: tu.o.src = optarg; break;
		case OPT_WORKLOAD: tu.o.workload = optarg; break;
		case OPT_SCOPE: tu.o.scope = optarg; break;
		case OPT_CANDIDATES: tu.o.candidates = optarg; break;
		case OPT_STATE: tu.o.state = optarg; break;
		case OPT_OUT: tu.o.out = optarg; break;
		case OPT_WORKDIR: tu.o.workdir = optarg; break;
		case OPT_BUILDDIR: tu.o.builddir = optarg; break;
		case OPT_BASELINE: tu.o.baseline = optarg; break;
		case OPT_JSON: tu.o.json = optarg; break;
		case OPT_LOCK: tu.o.lock = optarg; break;
		case OPT_PLUGIN:
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				error("invalid value \"%s\" for --plugin: expected on or off", optarg);
				goto usage;
			}
			tu.o.plugin = !strcmp(optarg, "on");
			break;
		case OPT_MAX_BUILDS:
			if (parse_int_option("--max-builds", optarg, 0, 10000, &p.max_builds) < 0)
				goto usage;
			break;
		case OPT_TIME_BUDGET:
			if (parse_number_option("--time-budget", optarg, 0.001, 1000, &d) < 0)
				goto usage;
			p.time_budget = d * 3600;
			break;
		case OPT_METRIC:
			if (strcmp(optarg, "tps") && strcmp(optarg, "instructions")) {
				error("invalid value \"%s\" for --metric: expected instructions or tps", optarg);
				goto usage;
			}
			tu.o.metric = optarg;
			break;
		case OPT_PAIRS:
			if (parse_int_option("--pairs", optarg, 1, 1000, &tu.o.pairs) < 0)
				goto usage;
			break;
		case OPT_DURATION:
			if (parse_number_option("--duration", optarg, 0.1, 3600, &tu.o.duration) < 0)
				goto usage;
			break;
		case OPT_CLIENTS:
			if (parse_int_option("--clients", optarg, 1, 1000, &tu.o.clients) < 0)
				goto usage;
			break;
		case OPT_TOLERANCE:
			if (parse_number_option("--tolerance", optarg, 0, 50, &d) < 0)
				goto usage;
			p.tolerance = d / 100;
			break;
		case OPT_MIN_GAIN:
			if (parse_number_option("--min-gain", optarg, 0, 50, &d) < 0)
				goto usage;
			p.min_gain = d / 100;
			break;
		case OPT_START:
			if (strcmp(optarg, "full") && strcmp(optarg, "stock")) {
				error("invalid value \"%s\" for --start: expected full or stock", optarg);
				goto usage;
			}
			p.start_stock = !strcmp(optarg, "stock");
			break;
		case OPT_NO_READD: p.readd = 0; break;
		case OPT_NO_REGRESS: tu.o.regress = 0; break;
		case OPT_DRY_RUN: tu.o.dry_run = 1; break;
		case 'j':
			if (parse_int_option("--jobs", optarg, 1, 1024, &tu.o.jobs) < 0)
				goto usage;
			break;
		case 'q': tu.o.quiet = 1; break;
		case 'h':
			tune_usage(stdout);
			rc = 0;
			goto done;
		default:
			goto usage;
		}
	}
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		goto usage;
	}
	if (strcmp(tu.o.metric, "tps") && strcmp(tu.o.workload, "select-only") &&
	    strcmp(tu.o.workload, "select1") && strcmp(tu.o.workload, "tpcb")) {
		error("--metric instructions supports select-only, select1 and tpcb, not \"%s\" "
		      "(use --metric tps)", tu.o.workload);
		goto usage;
	}

	if (tu.o.plugin < 0) {
		/* distccd refuses -fplugin: such compiles would all run locally */
		const char *a = getenv("PGOPT_PREFIX"), *b = getenv("CCACHE_PREFIX");
		tu.o.plugin = !((a && strstr(a, "distcc")) || (a && strstr(a, "ccache") && b && strstr(b, "distcc")));
	}
	tune_engine_init(&tu.t, &p);
	if (load_scope(&tu) < 0)
		goto done;
	if (!tu.o.candidates && !(tu.o.candidates = default_candidates())) {
		error("no --candidates given and no default list found (examples/tune-candidates.txt)");
		goto done;
	}
	if (load_candidates(&tu, tu.o.candidates) < 0)
		goto done;

	tu.workdir = path_absolute(tu.o.workdir);
	out_path = tu.o.out ? path_absolute(tu.o.out) : xasprintf("%s/best.policy", tu.workdir);
	state_path = tu.o.state ? path_absolute(tu.o.state) : xasprintf("%s/state.jsonl", tu.workdir);

	/* the start policy must pass pgoptcc's own checks */
	text = policy_text(&tu, p.start_stock ? 0 : ~(tune_set)0);
	if (check_policy(out_path, text) < 0)
		goto done;
	if (tu.o.dry_run) {
		printf("candidates (%zu):\n", tu.t.flags.nr);
		for (size_t i = 0; i < tu.t.flags.nr; i++)
			printf("  %s\n", tu.t.flags.v[i]);
		for (size_t i = 0; i < tu.refused.nr; i++)
			printf("refused: %s\n", tu.refused.v[i]);
		printf("start policy:\n%s", text);
		rc = 0;
		goto done;
	}

	if (tu.o.baseline) {
		tu.stock_prefix = path_absolute(tu.o.baseline);
		if (!installed(tu.stock_prefix)) {
			error("--baseline %s: no bin/postgres: not an installed PostgreSQL", tu.o.baseline);
			goto done;
		}
	}
	if (mkdir_p(tu.workdir) < 0)
		goto done;
	chmod(tu.workdir, 0755);
	tu.builddir = tu.o.builddir ? path_absolute(tu.o.builddir) : xasprintf("%s/build", tu.workdir);
	tu.build_prefix = configured_prefix(tu.builddir);
	if (!tu.build_prefix)
		tu.build_prefix = xasprintf("%s/build-prefix", tu.workdir);
	if (!tu.o.baseline)
		tu.stock_prefix = set_prefix(&tu, 0);

	tu.t.key = xasprintf("workload=%s metric=%s scope=%s src=%s builddir=%s", tu.o.workload,
			     tu.o.metric, tu.o.scope, tu.o.src ? tu.o.src : "default", tu.builddir);
	if (tune_state_load(&tu.t, state_path, &err) < 0) {
		error("%s", err.buf);
		goto done;
	}
	if (tu.t.nr_records && !tu.o.quiet)
		fprintf(stderr, "tune: resuming from %s (%zu evaluations recorded)\n", state_path,
			tu.t.nr_records);
	tu.t.state_path = xstrdup(state_path);
	tu.t.evaluate = tuner_evaluate;
	tu.t.ctx = &tu;

	if (tune_engine_run(&tu.t) < 0) {
		print_report(&tu, stdout, NULL);
		error("tune stopped: %s", tu.t.stop_reason);
		goto done;
	}
	free(text);
	text = policy_text(&tu, tu.t.best);
	if (check_policy(out_path, text) < 0 || write_text(out_path, text) < 0)
		goto done;
	print_report(&tu, stdout, out_path);
	if (tu.o.json && write_json(&tu, tu.o.json, out_path) < 0)
		goto done;
	rc = strcmp(tu.t.stop_reason, "converged") ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_OK;
	goto done;

usage:
	fprintf(stderr, "Try \"pgbuild tune --help\" for more information.\n");
	rc = PGBUILD_EXIT_ERROR;
done:
	tune_engine_release(&tu.t);
	strvec_clear(&tu.scope_globs);
	strvec_clear(&tu.refused);
	strbuf_release(&err);
	free(tu.workdir);
	free(tu.builddir);
	free(tu.build_prefix);
	free(tu.stock_prefix);
	free(out_path);
	free(state_path);
	free(text);
	return rc;
}
