/*
 * run.c - the whole pipeline in one command (`pgbuild run`); see run.h.
 *
 *   1 baseline   pgbuild build --policy none     (reused when present)
 *   2 candidate  pgbuild build --policy FILE     (reused when present)
 *   3 verify     pgbuild verify --install CAND
 *   4 regress    pgbuild regress --builddir CAND.build
 *   5 floor      pgbuild noise --install BASE --reuse (the layout floor)
 *   6 gate       pgbuild gate --baseline BASE --candidate CAND --gate EXPR
 *                --noise FLOOR
 *   7 report     pgbuild report --gate-result ... --html FILE
 *
 * Each stage is a child pgbuild process, so the stages stay decoupled and
 * a crash in one cannot corrupt the others' records.  WORKDIR/run-state.json
 * records every finished stage with a key of its inputs (source, policy
 * hash, gate settings, the keys of the stages it depends on); a rerun skips
 * a stage whose key matches and that finished (exit 0 or 1: a definite
 * answer), and redoes it otherwise, so an interrupted run resumes from the
 * last finished stage and a changed policy redoes what depends on it.
 * A build is also reused, whatever the state file says, when its
 * PREFIX/pgopt-build.json records a successful build of the same source and
 * policy (sha256).
 *
 * The floor stage (see run.h) settles what the gate's --noise is: given,
 * measured here, or the gate's default, with a line that says which.
 *
 * Exit: the gate's verdict (0 pass, 1 fail, 2 could not measure, 3
 * undecided: --pairs auto's budget ended); 1 when
 * verification fails; 2 when a build or the floor fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/gate/verdict.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/build/verify.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/metric.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/pipeline/run.h"

static const char *const stage_names[ST_NR] = {
	"baseline", "candidate", "verify", "regress", "floor", "gate", "report",
};

/* One run of the pipeline: the options and what follows from them. */
struct run {
	const struct run_opts *o;
	struct pipeline p;             /* the stages and their state */
	char *workdir;                 /* absolute */
	char *base_prefix, *base_builddir, *cand_prefix, *cand_builddir;
	char *policy_abs, *policy_sha;
	char *html;                    /* the report's path */
	/* the floor stage's */
	char *floor;                   /* the gate's --noise, NULL: the gate's default */
	char *floor_builddir;          /* the baseline's build tree to relink */
	char *floor_wl, *floor_metric; /* its -W and --metric (comma-separated) */
	unsigned floor_metrics;        /* the same as metrics.h's bits */
	char *floor_key;               /* the floor stage's key, NULL: no stage */
	char *base_key;                /* what the baseline is: its stage key, or given */
};

/* sha256 of the empty text: what pgbuild build records for --policy none */
#define SHA256_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Does PREFIX hold a successful build of src with this policy hash? */
/* Every word of args among the recorded configure arguments? */
static int has_configure_args(const struct json_value *rec, const char *args)
{
	struct strvec want = STRVEC_INIT;
	int yes = 1;
	strvec_split(&want, args ? args : "");
	for (size_t i = 0; i < want.nr && yes; i++) {
		int found = 0;
		for (size_t k = 0; k < json_len(rec); k++) {
			const struct json_value *v = json_at(rec, k);
			if (v->type == JSON_STRING && !strcmp(v->u.str.s, want.v[i]))
				found = 1;
		}
		yes = found;
	}
	strvec_clear(&want);
	return yes;
}

static int build_reusable(const char *prefix, const char *src, const char *sha,
			  const char *configure_args)
{
	char *path = xasprintf("%s/pgopt-build.json", prefix);
	char *pg = xasprintf("%s/bin/postgres", prefix);
	struct strbuf sb = STRBUF_INIT;
	struct json_value *root = NULL;
	const struct json_value *ok;
	const char *spec, *psha;
	int yes = 0;

	if (access(pg, X_OK) < 0 || sfs_read(AT_FDCWD, path, SFS_IN_MANIFEST, 0, &sb, NULL) < 0)
		goto out;
	root = json_parse(sb.buf, sb.len, NULL);
	ok = json_get(root, "ok");
	spec = json_get_str(json_get(root, "source"), "spec");
	psha = json_get_str(json_get(root, "policy"), "sha256");
	yes = ok && ok->type == JSON_BOOL && ok->u.boolean && spec && !strcmp(spec, src) &&
	      psha && !strcmp(psha, sha) &&
	      has_configure_args(json_get(root, "configure_args"), configure_args);
out:
	json_free(root);
	strbuf_release(&sb);
	free(path);
	free(pg);
	return yes;
}

/* A string of a build's pgopt-build.json: its member key of member
 * object (NULL: of the document), malloced, or NULL. */
static char *build_record_str(const char *prefix, const char *object, const char *key)
{
	char *path = xasprintf("%s/pgopt-build.json", prefix);
	struct strbuf sb = STRBUF_INIT;
	struct json_value *root;
	const char *dir;
	char *r = NULL;
	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &sb, NULL) >= 0) {
		root = json_parse(sb.buf, sb.len, NULL);
		dir = json_get_str(object ? json_get(root, object) : root, key);
		if (dir)
			r = xstrdup(dir);
		json_free(root);
	}
	strbuf_release(&sb);
	free(path);
	return r;
}

/* ---------------- stages ---------------- */

static int do_build(struct pipeline *p, int id, const char *policy, const char *prefix,
		    const char *builddir, const char *sha)
{
	struct run *r = p->ctx;
	struct strvec a = STRVEC_INIT;
	int rc;
	if (build_reusable(prefix, r->o->src, sha, r->o->configure_args)) {
		char *line = xasprintf("reused %s (pgopt-build.json: same source and policy)", prefix);
		stage_log_line(p, id, line);
		free(line);
		return 0;
	}
	{
		struct build_step b = {
			.src = r->o->src, .policy = policy, .prefix = prefix, .builddir = builddir,
			.configure_args = r->o->configure_args, .jobs = r->o->jobs,
			.quiet = r->o->quiet,
		};
		stage_build_argv(&a, &b);
	}
	rc = stage_run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	return rc == 0 ? 0 : PGBUILD_EXIT_ERROR;
}

static int st_baseline(struct pipeline *p, int id)
{
	struct run *r = p->ctx;
	return do_build(p, id, "none", r->base_prefix, r->base_builddir, SHA256_EMPTY);
}

static int st_candidate(struct pipeline *p, int id)
{
	struct run *r = p->ctx;
	return do_build(p, id, r->policy_abs, r->cand_prefix, r->cand_builddir, r->policy_sha);
}

static int st_verify(struct pipeline *p, int id)
{
	struct run *r = p->ctx;
	struct verify_opts vo = VERIFY_OPTS_INIT;
	vo.prefix = r->cand_prefix;
	vo.policy = r->policy_abs;
	return stage_run_verify(p, id, &vo, NULL);
}

static int st_regress(struct pipeline *p, int id)
{
	struct run *r = p->ctx;
	struct regress_opts ro;
	char *json = xasprintf("%s/regress.json", r->workdir);
	int rc;
	regress_opts_init(&ro);
	ro.builddir = r->cand_builddir;
	ro.json = json;
	rc = stage_run_regress(p, id, &ro, NULL);
	free(json);
	return rc;
}

/* The floor stage's engine: noise's, called as a library (in the stage's
 * own process, its output into the stage's log). */
static int floor_noise(void *data)
{
	struct run *r = data;
	struct noise_opts no;
	char *wd = xasprintf("%s/baseline-noise", r->workdir);
	int rc;

	noise_opts_init(&no);
	no.prefix = r->base_prefix;
	no.builddir = r->floor_builddir;
	no.builddir_as = r->o->baseline_prefix
		? "the build tree --baseline's pgopt-build.json records"
		: "run's baseline build tree (WORKDIR/baseline/build)";
	no.json = r->floor;
	no.workdir = wd;
	no.metrics = r->floor_metrics;
	cli_parse_workloads(r->floor_wl, &no.workloads);
	no.variants = r->o->noise_variants;
	no.reuse = 1;
	no.quiet = r->o->quiet;
	rc = noise_run(&no);
	noise_opts_release(&no);
	free(wd);
	return rc;
}

static int st_floor(struct pipeline *p, int id)
{
	return stage_run_fn(p, id, "pgbuild noise", floor_noise, p->ctx, NULL, 1) == 0
		? 0 : PGBUILD_EXIT_ERROR;
}

static int st_gate(struct pipeline *p, int id)
{
	struct run *r = p->ctx;
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/gate.json", r->workdir);
	char *junit = xasprintf("%s/gate.junit.xml", r->workdir);
	/* kept: the cycles runs' callgrind outputs, for pgbuild explain --gate-result */
	char *gwd = xasprintf("%s/gate", r->workdir);
	int rc;
	strvec_pushl(&a, "gate", "--baseline", r->base_prefix, "--candidate", r->cand_prefix,
		     "--gate", r->o->gate, "--json", json, "--junit", junit, "--workdir", gwd, NULL);
	if (r->o->workloads_csv) {
		char *copy = xstrdup(r->o->workloads_csv), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			strvec_pushl(&a, "--workload", w, NULL);
		free(copy);
	}
	if (stage_finished(p, ST_REGRESS)) {
		/* the suite's own document, so the verdict has its counts */
		char *rj = xasprintf("%s/regress.json", r->workdir);
		if (access(rj, R_OK) == 0)
			strvec_pushl(&a, "--regress-result", rj, NULL);
		else
			strvec_pushl(&a, "--regress-result",
				     p->st[ST_REGRESS].exit == 0 ? "passed" : "failed", NULL);
		free(rj);
	}
	if (r->o->pairs)
		strvec_pushl(&a, "--pairs", r->o->pairs, NULL);
	if (r->o->budget)
		strvec_pushl(&a, "--budget", r->o->budget, NULL);
	if (r->o->duration)
		strvec_pushl(&a, "--duration", r->o->duration, NULL);
	if (r->o->clients)
		strvec_pushl(&a, "--clients", r->o->clients, NULL);
	if (r->o->metric)
		strvec_pushl(&a, "--metric", r->o->metric, NULL);
	if (r->o->cpus)
		strvec_pushl(&a, "--cpus", r->o->cpus, NULL);
	if (r->o->counter)
		strvec_pushl(&a, "--counter", r->o->counter, NULL);
	if (r->floor)
		strvec_pushl(&a, "--noise", r->floor, NULL);
	if (r->o->quiet)
		strvec_push(&a, "--quiet");
	/* progress lines of the gate (one per run) go to our stderr */
	rc = stage_run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	free(json);
	free(junit);
	free(gwd);
	return rc;
}

static int st_report(struct pipeline *p, int id)
{
	struct run *r = p->ctx;
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/gate.json", r->workdir);
	char *logdir = build_record_str(r->cand_prefix, "log", "dir");
	int rc;
	strvec_pushl(&a, "report", "--gate-result", json, "--html", r->html, NULL);
	if (logdir)
		strvec_pushl(&a, "--log", logdir, NULL);
	rc = stage_run_pgbuild(p, id, &a, 0);
	strvec_clear(&a);
	free(json);
	free(logdir);
	return rc;
}

/* ---------------- the pipeline ---------------- */

/* The state file's own fields, before the stages. */
static void state_header(struct json_writer *jw, void *ctx)
{
	const struct run *r = ctx;
	json_key(jw, "policy"); json_string(jw, r->policy_abs);
	json_key(jw, "policy_sha256"); json_string(jw, r->policy_sha);
	json_key(jw, "src"); json_string(jw, r->o->src);
	json_key(jw, "baseline"); json_string(jw, r->base_prefix);
	json_key(jw, "candidate"); json_string(jw, r->cand_prefix);
}

/* Absolute paths of everything (the stages run in other directories), the
 * policy's hash, and the state of an earlier run. */
static int prepare(struct run *r)
{
	const struct run_opts *o = r->o;

	if (access(o->policy, R_OK) < 0)
		return error("--policy \"%s\": %s", o->policy, strerror(errno));
	r->policy_abs = path_absolute(o->policy);
	/* the hash the build records covers the hot/cold lists too */
	r->policy_sha = build_policy_sha(r->policy_abs);
	if (!r->policy_sha)
		return error("cannot hash the policy %s", r->policy_abs);
	r->workdir = path_absolute(o->workdir);
	/* made when missing, never chmodded; as root refused when another user
	 * could write in it (the logs and state root writes there) */
	{
		int fd = workdir_open("--workdir", r->workdir);
		if (fd < 0)
			return -1;
		close(fd);
	}
	r->base_prefix = o->baseline_prefix ? path_absolute(o->baseline_prefix) :
			 xasprintf("%s/baseline/prefix", r->workdir);
	r->base_builddir = xasprintf("%s/baseline/build", r->workdir);
	r->cand_prefix = o->cand_prefix_opt ? path_absolute(o->cand_prefix_opt) :
			 xasprintf("%s/candidate/prefix", r->workdir);
	r->cand_builddir = o->cand_builddir_opt ? path_absolute(o->cand_builddir_opt) :
			   xasprintf("%s/candidate/build", r->workdir);
	r->html = o->html ? xstrdup(o->html) : xasprintf("%s/report.html", r->workdir);
	stage_init(&r->p, "pgbuild-run", stage_names, ST_NR, r->workdir, o->restart);
	r->p.quiet = o->quiet;
	r->p.header = state_header;
	r->p.ctx = r;
	return 0;
}

/* Stages 1 and 2: the baseline (given, or built) and the candidate; the
 * candidate's key in *cand_key. */
static int builds(struct run *r, char **cand_key)
{
	const struct run_opts *o = r->o;
	struct strbuf key = STRBUF_INIT, what = STRBUF_INIT;
	int rc = -1;

	if (o->baseline_prefix) {
		char *pg = xasprintf("%s/bin/postgres", r->base_prefix);
		int okp = access(pg, X_OK) == 0;
		free(pg);
		if (!okp) {
			error("--baseline %s: no bin/postgres", r->base_prefix);
			goto out;
		}
		fprintf(stderr, "[1/%d] baseline  %s (given)\n", ST_NR, r->base_prefix);
		{
			struct stat st;
			char *bin = xasprintf("%s/bin/postgres", r->base_prefix);
			if (stat(bin, &st) < 0)
				memset(&st, 0, sizeof(st));
			r->base_key = xasprintf("given=%s mtime=%lld size=%lld", r->base_prefix,
						(long long)st.st_mtime, (long long)st.st_size);
			free(bin);
		}
	} else {
		strbuf_addf(&key, "src=%s policy=none prefix=%s conf=%s", o->src, r->base_prefix,
			    o->configure_args ? o->configure_args : "");
		r->base_key = xstrdup(key.buf);
		if (stage_run(&r->p, ST_BASELINE, key.buf, "pgbuild build --policy none",
				   st_baseline) != 0)
			goto out;
	}
	strbuf_reset(&key);
	strbuf_addf(&key, "src=%s policy=%s prefix=%s conf=%s", o->src, r->policy_sha,
		    r->cand_prefix, o->configure_args ? o->configure_args : "");
	*cand_key = xstrdup(key.buf);
	strbuf_addf(&what, "pgbuild build --policy %s", o->policy);
	if (stage_run(&r->p, ST_CANDIDATE, *cand_key, what.buf, st_candidate) != 0)
		goto out;
	rc = 0;
out:
	strbuf_release(&key);
	strbuf_release(&what);
	return rc;
}

/* Stages 3 and 4: verify (a mismatch ends the run with its exit code) and
 * the regression suite (only "could not run" ends it). */
static int checks(struct run *r, const char *cand_key)
{
	int v;
	if (!r->o->no_verify) {
		v = stage_run(&r->p, ST_VERIFY, cand_key, "pgbuild verify", st_verify);
		if (v != 0)
			return v;
	}
	if (!r->o->no_regress) {
		v = stage_run(&r->p, ST_REGRESS, cand_key, "pgbuild regress (make check)",
				   st_regress);
		if (v >= 2)
			return PGBUILD_EXIT_ERROR;
	} else {
		stage_forget(&r->p, ST_REGRESS);
	}
	return 0;
}

/* The workloads the gate measures (cmd/gate.c's rule): -W and every
 * workload a threshold names, else the default; those with a single-user
 * script, comma-separated, in r->floor_wl. */
static void floor_workloads(struct run *r)
{
	struct gate_thresholds th = { 0 };
	struct strvec wl = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;

	if (r->o->workloads_csv)
		cli_parse_workloads(r->o->workloads_csv, &wl);
	preflight_gate_expr(r->o->gate, r->o->metric, &th); /* checked before the builds */
	for (size_t i = 0; i < th.nr; i++)
		if (th.v[i].workload && strvec_find(&wl, th.v[i].workload) < 0)
			strvec_push(&wl, th.v[i].workload);
	if (!wl.nr)
		workloads_push(&wl, WL_DEFAULT);
	for (size_t i = 0; i < wl.nr; i++)
		if (single_supported(wl.v[i]))
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", wl.v[i]);
	r->floor_wl = strbuf_detach(&sb, NULL);
	gate_thresholds_clear(&th);
	strvec_clear(&wl);
}

/* The floor stage skipped: the line says why and what the gate uses. */
static void floor_skip(struct run *r, const char *why)
{
	stage_forget(&r->p, ST_FLOOR);
	fprintf(stderr, "[%d/%d] %-9s skipped: %s\n", ST_FLOOR + 1, ST_NR, "floor", why);
}

/*
 * Stage 5: the layout floor the gate compares instructions and the cycles
 * estimate at (run.h).  Sets r->floor (the gate's --noise) and
 * r->floor_key.  0, or PGBUILD_EXIT_ERROR.
 */
static int floor_stage(struct run *r)
{
	const struct run_opts *o = r->o;
	unsigned det = o->metric ? o->metrics & (METRIC_INSTR | METRIC_CYCLES) : 0;
	struct stat st;
	char *why;
	int rc;

	if (o->noise) {
		r->floor = xstrdup(o->noise);
		why = xasprintf("--noise %s", o->noise);
		floor_skip(r, why);
		free(why);
		return 0;
	}
	if (!det) {
		floor_skip(r, "the gate compares no deterministic metric (--metric instructions "
			   "or cycles), so no layout floor");
		return 0;
	}
	r->floor_builddir = o->baseline_prefix ? build_record_str(r->base_prefix, NULL, "builddir")
					       : xstrdup(r->base_builddir);
	if (!r->floor_builddir || stat(r->floor_builddir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		why = xasprintf("the baseline has no build tree to relink (none recorded in "
				"%s/pgopt-build.json, or gone): the gate uses %s/%s when it is of "
				"its postgres, else its deterministic claims are undecided (no "
				"layout floor; --noise none decides at the repeat resolution); "
				"`pgbuild noise --install %s --builddir DIR` measures one",
				r->base_prefix, r->base_prefix,
				BUILDLOG_NOISE, r->base_prefix);
		floor_skip(r, why);
		free(why);
		return 0;
	}
	floor_workloads(r);
	if (!*r->floor_wl) {
		floor_skip(r, "no workload of the gate has a single-user script, so no layout floor");
		return 0;
	}
	r->floor_metric = xstrdup(cli_metrics_text(det));
	r->floor_metrics = det;
	/* measured with the build run made; beside the one it was given */
	r->floor = o->baseline_prefix ? xasprintf("%s/baseline-noise.json", r->workdir)
				      : xasprintf("%s/%s", r->base_prefix, BUILDLOG_NOISE);
	r->floor_key = xasprintf("floor {%s} variants=%d wl=%s metric=%s", r->base_key,
				 o->noise_variants, r->floor_wl, r->floor_metric);
	why = xasprintf("pgbuild noise --install BASELINE --variants %d (the layout floor)",
			o->noise_variants);
	rc = stage_run(&r->p, ST_FLOOR, r->floor_key, why, st_floor);
	free(why);
	return rc == 0 ? 0 : PGBUILD_EXIT_ERROR;
}

/* Stage 6: the gate, keyed by the candidate and every gate setting. */
static int gate(struct run *r, const char *cand_key, char **gate_key)
{
	const struct run_opts *o = r->o;
	struct strbuf key = STRBUF_INIT, what = STRBUF_INIT;
	int rc;

	strbuf_addf(&key, "%s base=%s gate=%s wl=%s pairs=%s dur=%s cl=%s metric=%s regress=%d",
		    cand_key, r->base_prefix, o->gate, o->workloads_csv ? o->workloads_csv : "",
		    o->pairs ? o->pairs : "", o->duration ? o->duration : "",
		    o->clients ? o->clients : "", o->metric ? o->metric : "",
		    o->no_regress ? -1 : r->p.st[ST_REGRESS].exit);
	/* only when given, so the keys of earlier runs stay valid */
	if (o->cpus)
		strbuf_addf(&key, " cpus=%s", o->cpus);
	if (o->counter)
		strbuf_addf(&key, " counter=%s", o->counter);
	if (o->budget)
		strbuf_addf(&key, " budget=%s", o->budget);
	if (r->floor_key)
		strbuf_addf(&key, " floor={%s}", r->floor_key);
	else if (o->noise)
		strbuf_addf(&key, " noise=%s", o->noise);
	*gate_key = xstrdup(key.buf);
	strbuf_addf(&what, "pgbuild gate --gate '%s'", o->gate);
	rc = stage_run(&r->p, ST_GATE, *gate_key, what.buf, st_gate);
	strbuf_release(&key);
	strbuf_release(&what);
	/* 3: --pairs auto's budget ended undecided, an answer of its own */
	return rc > 2 && rc != PGBUILD_EXIT_UNDECIDED ? PGBUILD_EXIT_ERROR : rc;
}

/* Stage 7: the report of a gate that ran to a verdict, printed. */
static void report(struct run *r, const char *gate_key)
{
	char *json = xasprintf("%s/gate.json", r->workdir);
	if (access(json, R_OK) == 0) {
		char *key = xasprintf("%s html=%s", gate_key, r->html);
		stage_forget(&r->p, ST_REPORT); /* always rewrite: cheap */
		if (stage_run(&r->p, ST_REPORT, key, "pgbuild report", st_report) == 0) {
			struct strbuf text = STRBUF_INIT;
			char *log = stage_log(&r->p, ST_REPORT);
			sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &text, NULL);
			fputs(text.buf, stdout);
			putchar('\n');
			gate_verdict_say(json, stdout);
			printf("report: %s\njunit:  %s/gate.junit.xml\n", r->html, r->workdir);
			strbuf_release(&text);
			free(log);
		}
		free(key);
	}
	free(json);
}

int run_pipeline(const struct run_opts *o)
{
	struct run r;
	char *cand_key = NULL, *gate_key = NULL;
	int rc = PGBUILD_EXIT_ERROR;

	memset(&r, 0, sizeof(r));
	r.o = o;
	if (prepare(&r) < 0 || builds(&r, &cand_key) < 0)
		goto out;
	if ((rc = checks(&r, cand_key)) != 0 || (rc = floor_stage(&r)) != 0)
		goto out;
	rc = gate(&r, cand_key, &gate_key);
	report(&r, gate_key);
out:
	stage_release(&r.p);
	free(cand_key);
	free(gate_key);
	free(r.workdir);
	free(r.policy_abs);
	free(r.policy_sha);
	free(r.base_prefix);
	free(r.base_builddir);
	free(r.cand_prefix);
	free(r.cand_builddir);
	free(r.html);
	free(r.floor);
	free(r.floor_builddir);
	free(r.floor_wl);
	free(r.floor_metric);
	free(r.floor_key);
	free(r.base_key);
	return rc;
}
