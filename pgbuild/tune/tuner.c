/*
 * tuner.c - `pgbuild tune`'s evaluator and run: search compiler flags for
 * one scope of PostgreSQL by measured elimination (the search itself is
 * engine.c); see tuner.h.
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
#include <ftw.h>
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

#include "pgbuild/cluster/workdir.h"
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

static int tuner_load_candidates(struct tuner *tu, const char *path)
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

/* DATADIR/pgoptcc/tune-candidates.txt (the build tree has a copy) */
static const char *tuner_default_candidates(void)
{
	static char *p;
	if (!p)
		p = xasprintf("%s/tune-candidates.txt", pgbuild_datadir());
	return p;
}

static int tuner_load_scope(struct tuner *tu)
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

/* The flags of set for cflags, space-separated, into cflags; 1 when set
 * holds -flto (lto = on instead). */
static int set_cflags(struct tuner *tu, tune_set set, struct strbuf *cflags)
{
	int lto = 0;
	for (size_t i = 0; i < tu->t.flags.nr; i++) {
		const char *f = tu->t.flags.v[i];
		if (!(set & ((tune_set)1 << i)))
			continue;
		if (!strcmp(f, "-flto") || !strncmp(f, "-flto=", 6))
			lto = 1;
		else
			strbuf_addf(cflags, "%s%s", cflags->len ? " " : "", f);
	}
	return lto;
}

/* The comment lines of the policy of set. */
static void policy_comments(struct tuner *tu, tune_set set, struct policy_doc *d)
{
	char *flags = tune_set_text(&tu->t, set);
	char *c = xasprintf("pgbuild tune: %s for %s (%s), scope %s", *flags ? flags : "stock",
			    tu->o.workload, tu->o.metric, tu->o.scope);
	policy_doc_add_comment(d, c);
	if (!tu->o.plugin)
		policy_doc_add_comment(d, "distccd refuses -fplugin: without the plugin the compiles can be distributed");
	free(c);
	free(flags);
}

/* The sections of the policy of set: [global] (plugin, lto, the flags
 * with --scope global), else one per scope glob with the flags. */
static int policy_sections(struct tuner *tu, tune_set set, struct policy_doc *d,
			   struct strbuf *err)
{
	struct strbuf cflags = STRBUF_INIT;
	int lto = set_cflags(tu, set, &cflags), rc = 0;

	if (tu->global || !tu->o.plugin)
		rc = policy_doc_add_section(d, "global", err) < 0 ? -1 : 0;
	if (!rc && !tu->o.plugin)
		rc = policy_doc_set(d, "plugin", "off", err);
	if (!rc && tu->global && lto)
		rc = policy_doc_set(d, "lto", "on", err);
	if (!rc && tu->global && cflags.len)
		rc = policy_doc_add_flags(d, 0, "cflags", 1, cflags.buf, err);
	for (size_t i = 0; !rc && !tu->global && cflags.len && i < tu->scope_globs.nr; i++) {
		int sec = policy_doc_add_section(d, tu->scope_globs.v[i], err);
		rc = sec < 0 ? -1 : policy_doc_add_flags(d, sec, "cflags", 1, cflags.buf, err);
	}
	strbuf_release(&cflags);
	return rc;
}

/*
 * The text of set's policy (to be written at path), built with the policy
 * editor: every edit is checked by the wrapper's own parser (unsafe flags
 * are errors there), so no unsafe policy is ever written.  NULL, with the
 * error printed, when the parser refuses it.
 */
static char *tuner_policy_text(struct tuner *tu, tune_set set, const char *path)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *text = NULL;

	policy_doc_init(&d, path, 0);
	policy_comments(tu, set, &d);
	if (policy_sections(tu, set, &d, &err) < 0) {
		error("generated policy rejected by pgoptcc's parser: %s", err.buf);
	} else {
		policy_doc_text(&d, &sb);
		text = strbuf_detach(&sb, NULL);
	}
	policy_doc_release(&d);
	strbuf_release(&err);
	return text;
}

/* ---------------- the evaluator ---------------- */

static char *set_dir(struct tuner *tu, tune_set s)
{
	char *id = tune_set_id(&tu->t, s);
	char *d = xasprintf("%s/sets/%s", tu->workdir, id);
	free(id);
	return d;
}

static char *tuner_set_prefix(struct tuner *tu, tune_set s)
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
			/* the reason, not only the log's name */
			char *l = textfile_last_line(log, "error:");
			*note = xasprintf("regression suite could not run (exit %d): %s (log %s)", code,
					  l ? l : "no error line", log);
			free(l);
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
		/* never through a link planted at the name (ELOOP) */
		lockfd = open(tu->o.lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
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

	cand_prefix = tuner_set_prefix(tu, cand);
	ref_prefix = tuner_set_prefix(tu, ref);
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
		stage_gate_argv(&args, &tu->o.gate);
	}
	if (!tu->o.quiet)
		fprintf(stderr, "tune: gate (%s, %s) ...\n", tu->o.workload, tu->o.metric);
	b = run_logged(&args, log, NULL);
	if (b != 0 && b != 1 && b != PGBUILD_EXIT_UNDECIDED) {
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
			/* instructions or cycles: one number per build */
			const char *m = tu->o.metric;
			const struct json_value *in = json_get(w, m);
			const char *st = json_get_str(in, "state");
			int cyc = !strcmp(m, "cycles");
			if (st && !strcmp(st, "ok")) {
				out->ratio = json_get_num(in, "speedup", NAN);
				out->lo = out->hi = out->ratio;
				free(out->note);
				out->note = xasprintf("%s/transaction %.0f -> %.0f",
						      cyc ? "cycles estimate" : "instructions",
						      cyc ? json_get_num(json_get(in, "a"), "estimate", NAN) :
						      json_get_num(in, "a", NAN),
						      cyc ? json_get_num(json_get(in, "b"), "estimate", NAN) :
						      json_get_num(in, "b", NAN));
			} else {
				const char *n = json_get_str(in, "note");
				free(out->note);
				out->note = xasprintf("%s unavailable: %s", m, n ? n : "?");
			}
		}
		out->outcome = isfinite(out->ratio) ? TUNE_OK : TUNE_UNMEASURED;
		if (b == PGBUILD_EXIT_UNDECIDED) {
			/* --pairs auto's budget ended: the interval straddles the
			 * threshold, so the engine's rules do not call it faster */
			free(out->note);
			out->note = xstrdup("tps gate undecided (--pairs auto: the budget ended)");
		}
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

static void tuner_print_report(struct tuner *tu, FILE *fp, const char *out_path)
{
	struct tune_engine *t = &tu->t;
	char b1[32], b2[32];
	fprintf(fp, "pgbuild tune: %s, metric %s, scope %s, %zu candidates\n",
		tu->o.workload, tu->o.metric, tu->o.scope, t->flags.nr);
	if (tu->o.resolution_source)
		fprintf(fp, "  resolution %.2g%% (%s): a drop is kept unless ratio + resolution "
			"is below 1 - tolerance, an add needs ratio - resolution above 1\n",
			t->p.resolution * 100, tu->o.resolution_source);
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

static int tuner_write_json(struct tuner *tu, const char *path, const char *out_path)
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
	json_key(&jw, "resolution");
	if (tu->o.resolution_source)
		json_double(&jw, t->p.resolution);
	else
		json_null(&jw);
	json_key(&jw, "resolution_source"); json_string(&jw, tu->o.resolution_source);
	json_key(&jw, "noise_floor"); json_string(&jw, tu->o.noise_note);
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
		char *id = tune_set_id(t, t->best), *pfx = tuner_set_prefix(tu, t->best);
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
	rc = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
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
	tu->o.workload = "select-only";
	tu->o.scope = "global";
	tu->o.metric = "instructions";
	tu->o.workdir = "pgbuild-tune";
	tu->o.gate.pairs = 6;
	tu->o.gate.duration = 5;
	tu->o.gate.clients = 2;
	tu->o.regress = 1;
	tu->o.plugin = -1;
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

/* The state of an earlier run of the same tune, and the evaluator. */
static int prepare_engine(struct tuner *tu, const char *state_path)
{
	struct strbuf err = STRBUF_INIT;
	tu->t.key = xasprintf("workload=%s metric=%s scope=%s src=%s builddir=%s", tu->o.workload,
			      tu->o.metric, tu->o.scope, tu->o.src ? tu->o.src : "default",
			      tu->builddir);
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
		print_dry_run(tu, text);
		rc = 0;
		goto out;
	}
	if (prepare_dirs(tu) < 0 || prepare_engine(tu, state_path) < 0)
		goto out;
	if (tune_engine_run(&tu->t) < 0) {
		tuner_print_report(tu, stdout, NULL);
		error("tune stopped: %s", tu->t.stop_reason);
		goto out;
	}
	free(text);
	text = tuner_policy_text(tu, tu->t.best, out_path);
	if (!text || write_text(out_path, text) < 0)
		goto out;
	tuner_print_report(tu, stdout, out_path);
	if (tu->o.json && tuner_write_json(tu, tu->o.json, out_path) < 0)
		goto out;
	rc = strcmp(tu->t.stop_reason, "converged") ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_OK;
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
}
