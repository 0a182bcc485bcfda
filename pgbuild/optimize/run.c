/*
 * run.c - `pgbuild optimize` as resumable pipeline stages (stage.h): per
 * candidate stage a build, verify, regress and gate step, the keep/drop
 * decision (waterfall.c), the copy of the best build to --prefix, and the
 * document optimize.json (written by document.c) with its renderings; see
 * optimize.h.
 *
 * Steps are named STAGE, STAGE-verify, STAGE-regress, STAGE-gate (those
 * that apply) and install; WORKDIR/run-state.json (kind pgbuild-optimize)
 * records them.  A
 * step that could not run (exit 2, or a signal) stops the run with exit 2
 * and the document says where; the next run resumes there.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/common/copytree.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/build/verify.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/stage/stage.h"
#include "pgbuild/profile/pgo.h"
#include "pgbuild/profile/run.h"
#include "pgbuild/tune/tuner.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/pgbuild.h"

/* The steps' names (the keys of run-state.json). */
static const char *const step_names[NSTEPS] = {
	"stock", "stock-verify", "stock-regress", "stock-floor",
	"lto", "lto-verify", "lto-regress", "lto-gate",
	"pgo", "pgo-verify", "pgo-regress", "pgo-gate",
	"tuned", "tuned-verify", "tuned-regress", "tuned-gate",
	"clang", "clang-verify", "clang-regress", "clang-gate",
	"clang-pgo", "clang-pgo-verify", "clang-pgo-regress", "clang-pgo-gate",
	"bolt", "bolt-verify", "bolt-regress", "bolt-gate",
	"install",
};

/* ---------------- helpers ---------------- */

/* The text of a file (malloced), NULL when unreadable. */
static char *read_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &sb, NULL) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* Does the policy recorded in a pgopt-build.json (pol) say what policy_text
 * says?  Its hot and cold paths are made absolute against its own
 * directory, as policy_text's are, and every list file it recorded must
 * still hold what it held. */
static int recorded_policy_same(const struct json_value *pol, const char *policy_text)
{
	const char *content = json_get_str(pol, "content"), *path = json_get_str(pol, "path");
	const struct json_value *files = json_get(pol, "files");
	struct strbuf norm = STRBUF_INIT;
	int same;

	if (!content || !path || !strchr(path, '/'))
		return 0;
	same = pgo_policy_text(content, path, 0, &norm) == 0 &&
	       optimize_policy_same(norm.buf, policy_text);
	for (size_t i = 0; same && i < json_len(files); i++) {
		const char *fp = json_get_str(json_at(files, i), "path");
		const char *was = json_get_str(json_at(files, i), "content");
		char *now = fp ? read_text(fp) : NULL;
		same = now && was && !strcmp(now, was);
		free(now);
	}
	strbuf_release(&norm);
	return same;
}

/* Does prefix hold a successful build of src with a policy that says what
 * policy_text says (or policy none, when policy_text is NULL)? */
static int build_reusable(const char *prefix, const char *src, const char *policy_text,
			  const char *cc)
{
	char *pg = xasprintf("%s/bin/postgres", prefix);
	struct json_value *root = prof_build_record(prefix);
	const struct json_value *ok = json_get(root, "ok"), *pol = json_get(root, "policy");
	const char *spec = json_get_str(json_get(root, "source"), "spec");
	const char *dir = json_get_str(json_get(root, "source"), "dir");
	const char *content = json_get_str(pol, "content");
	const char *rcc = json_get_str(json_get(root, "compiler"), "cc");
	int yes = root && access(pg, X_OK) == 0 && ok && ok->type == JSON_BOOL && ok->u.boolean &&
		  ((spec && !strcmp(spec, src)) || (dir && !strcmp(dir, src))) &&
		  !strcmp(rcc ? rcc : "gcc", cc);

	if (yes && policy_text)
		yes = recorded_policy_same(pol, policy_text);
	else if (yes)
		yes = !content || !*content || !strcmp(json_get_str(pol, "path") ? json_get_str(pol, "path") : "none", "none");
	json_free(root);
	free(pg);
	return yes;
}

/* Did build step id reuse a build (its log says so)? */
static int was_reused(struct orun *r, int id)
{
	char *log = stage_log(&r->p, id), *last = textfile_last_line(log, NULL);
	int yes = last && !strncmp(last, "reused ", 7);
	free(log);
	free(last);
	return yes;
}

/* Push -W for every workload. */
static void push_workloads(struct strvec *a, const struct optimize_opts *o)
{
	for (size_t i = 0; i < o->workloads.nr; i++)
		strvec_pushl(a, "--workload", o->workloads.v[i], NULL);
}

/* The options of a step that trains (pgo, bolt): --train, -j, -q. */
static void push_training(struct strvec *a, const struct optimize_opts *o)
{
	for (size_t i = 0; i < o->train.nr; i++)
		strvec_pushl(a, "--train", o->train.v[i], NULL);
	if (o->jobs)
		strvec_pushf(a, "--jobs=%d", o->jobs);
	if (o->quiet)
		strvec_push(a, "--quiet");
}

/* ---------------- the steps ---------------- */

/* The compiler stage s builds with (what its build record names). */
static const char *stage_compiler(const struct orun *r, int s)
{
	return OPTIMIZE_IS_CLANG(s) ? r->o->clang : build_compiler();
}

/* The environment of the current stage's steps: a clang stage's compiler
 * in PGOPT_CC (pgoptcc's real compiler in their builds) in *env, returned;
 * NULL for a gcc stage. */
static const struct strvec *stage_env(const struct orun *r, struct strvec *env)
{
	if (!OPTIMIZE_IS_CLANG(r->cur))
		return NULL;
	strvec_pushf(env, "PGOPT_CC=%s", r->o->clang);
	return env;
}

/* `pgbuild ARGS` for the step id of the current stage, in its environment. */
static int run_pgbuild(struct pipeline *p, int id, struct strvec *args, int show_stderr)
{
	struct orun *r = p->ctx;
	struct strvec a = STRVEC_INIT, env = STRVEC_INIT;
	int rc;

	strvec_push(&a, pgbuild_self());
	strvec_pushv(&a, (const char *const *)args->v);
	rc = stage_run_command(p, id, &a, NULL, stage_env(r, &env), show_stderr);
	strvec_clear(&a);
	strvec_clear(&env);
	return rc;
}

/* Build step of stock and lto: pgbuild build, unless reusable. */
static int st_build(struct pipeline *p, int id)
{
	struct orun *r = p->ctx;
	struct ostage *s = &r->s[r->cur];
	struct strvec a = STRVEC_INIT;
	char *text = s->policy ? read_text(s->policy) : NULL;
	int rc;

	if (!(r->cur == OS_TUNED && r->tune_bundle) &&
	    build_reusable(s->prefix, r->o->src, text, stage_compiler(r, r->cur))) {
		char *line = xasprintf("reused %s (pgopt-build.json: same source, policy and "
				       "compiler)", s->prefix);
		stage_log_line(p, id, line);
		free(line);
		free(text);
		return 0;
	}
	free(text);
	{
		struct build_step b = {
			.src = r->o->src, .policy = s->policy ? s->policy : "none",
			.prefix = s->prefix, .builddir = s->builddir, .jobs = r->o->jobs,
			.quiet = r->o->quiet,
			.bundle = r->cur == OS_TUNED ? r->tune_bundle : NULL,
		};
		stage_build_argv(&a, &b);
	}
	rc = run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	return rc == 0 ? 0 : PGBUILD_EXIT_ERROR;
}

/* Build step of pgo and tuned: pgbuild pgo (it runs the core suite). */
static int st_pgo(struct pipeline *p, int id)
{
	struct orun *r = p->ctx;
	struct ostage *s = &r->s[r->cur];
	struct strvec a = STRVEC_INIT;
	int rc;

	strvec_pushl(&a, "pgo", "--src", r->o->src, "--policy", s->policy, "--prefix", s->prefix,
		     "--builddir", s->builddir, NULL);
	push_training(&a, r->o);
	rc = run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	return rc;
}

/* Build step of bolt: pgbuild bolt on the best build (its installcheck). */
static int st_bolt(struct pipeline *p, int id)
{
	struct orun *r = p->ctx;
	struct ostage *s = &r->s[r->cur];
	struct strvec a = STRVEC_INIT;
	char *wd = xasprintf("%s/bolt/work", r->workdir);
	int rc;

	strvec_pushl(&a, "bolt", "--install", r->s[s->parent].prefix, "--prefix", s->prefix,
		     "--workdir", wd, NULL);
	if (r->o->bolt_flags)
		strvec_pushl(&a, "--bolt-flags", r->o->bolt_flags, NULL);
	if (optimize_bolt_dir(r->o))
		strvec_pushl(&a, "--bolt", optimize_bolt_dir(r->o), NULL);
	push_training(&a, r->o);
	rc = stage_run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	free(wd);
	return rc;
}

static int st_verify(struct pipeline *p, int id)
{
	struct orun *r = p->ctx;
	struct verify_opts vo = VERIFY_OPTS_INIT;
	struct strvec env = STRVEC_INIT;
	int rc;

	vo.prefix = r->s[r->cur].prefix;
	rc = stage_run_verify(p, id, &vo, stage_env(r, &env));
	strvec_clear(&env);
	return rc;
}

static int st_regress(struct pipeline *p, int id)
{
	struct orun *r = p->ctx;
	struct regress_opts ro;
	struct strvec env = STRVEC_INIT;
	char *json = xasprintf("%s/gates/%s-regress.json", r->workdir, optimize_stage_names[r->cur]);
	int rc;

	regress_opts_init(&ro);
	ro.builddir = r->s[r->cur].builddir;
	ro.json = json;
	if (r->o->jobs)
		ro.jobs = r->o->jobs;
	rc = stage_run_regress(p, id, &ro, stage_env(r, &env));
	strvec_clear(&env);
	free(json);
	return rc;
}

static int st_gate(struct pipeline *p, int id)
{
	struct orun *r = p->ctx;
	const struct optimize_opts *o = r->o;
	struct strvec a = STRVEC_INIT;
	/* the suite passed (else the stage was dropped at its regress step);
	 * its document, when the step wrote one, gives the verdict its counts */
	char *rj = xasprintf("%s/gates/%s-regress.json", r->workdir, optimize_stage_names[r->cur]);
	int rc;

	strvec_pushl(&a, "gate", "--baseline", r->s[OS_STOCK].prefix, "--candidate",
		     r->s[r->cur].prefix, "--metric", cli_metrics_text(metrics_all()), "--gate",
		     OPT_GATE_EXPR, "--regress-result", access(rj, R_OK) == 0 ? rj : "passed",
		     "--json", r->s[r->cur].gate_json, NULL);
	free(rj);
	push_workloads(&a, o);
	if (o->auto_pairs)
		strvec_push(&a, "--pairs=auto");
	else
		strvec_pushf(&a, "--pairs=%d", o->pairs);     /* cmd/optimize.c's default */
	if (o->budget > 0)
		strvec_pushf(&a, "--budget=%gs", o->budget);
	if (o->duration > 0)
		strvec_pushf(&a, "--duration=%g", o->duration);
	if (o->clients)
		strvec_pushf(&a, "--clients=%d", o->clients);
	if (o->cpus)
		strvec_pushl(&a, "--cpus", o->cpus, NULL);
	if (r->floor)
		strvec_pushl(&a, "--noise", r->floor, NULL);
	if (o->quiet)
		strvec_push(&a, "--quiet");
	rc = stage_run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	/* a threshold missed (exit 1) is a measurement, not a failed step: the
	 * decision reads the numbers of its JSON, so the step is recorded and
	 * shown as done (the pipeline would skip an exit 1 on resume too) */
	/* undecided (exit 3, --pairs auto): tps could not be called either way
	 * in the budget; the cycles estimate still decides, the waterfall says
	 * undecided for tps */
	return rc == 1 || rc == PGBUILD_EXIT_UNDECIDED ? 0 : rc;
}

/* ---------------- one stage ---------------- */

/* Drop stage s with a reason (printf-style). */
static void drop(struct orun *r, int s, const char *fmt, const char *arg)
{
	r->s[s].state = SS_DROPPED;
	free(r->s[s].reason);
	r->s[s].reason = xasprintf(fmt, arg);
	fprintf(stderr, "optimize: %s dropped: %s\n", optimize_stage_names[s], r->s[s].reason);
}

/* Run step k of stage s with fn; 0 went on, 1 the stage was dropped (a
 * failed check, exit 1; fail NULL: exit 1 goes on too), -1 the run stops
 * (could not run). */
static int step(struct orun *r, int s, int k, const char *what,
		int (*fn)(struct pipeline *p, int id), const char *fail)
{
	char *key = xasprintf("%s step=%d", r->s[s].key, k);
	char *log;
	int rc;

	r->cur = s;
	rc = stage_run(&r->p, STEP_ID(s, k), key, what, fn);
	free(key);
	if (rc == 0 || (rc == 1 && !fail))
		return 0;
	if (rc == 1) {
		log = stage_log(&r->p, STEP_ID(s, k));
		drop(r, s, fail, log);
		free(log);
		return 1;
	}
	r->stop = step_names[STEP_ID(s, k)];
	return -1;
}

/* What stage s trained on: --train for the stages with a profile run
 * (pgo, tuned, bolt), nothing for stock and lto. */
const struct strvec *optimize_trained_on(const struct orun *r, int s)
{
	if (s == OS_TUNED && r->tune_bundle)
		return &r->tune_trained;
	return s == OS_PGO || s == OS_TUNED || s == OS_CLANG_PGO || s == OS_BOLT ? &r->o->train :
	       NULL;
}

const char *const optimize_role_names[] = { "held-out", "trained", "chosen" };

enum optimize_role optimize_role_of(struct orun *r, int s, const char *wl)
{
	if (!optimize_held_out(optimize_trained_on(r, s), wl))
		return OR_TRAINED;
	return optimize_held_out(optimize_in_sample(r, s), wl) ? OR_HELD_OUT : OR_CHOSEN;
}

/* Does stage s stack (itself, or through its parents) on the tuned stage? */
static int on_tuned(const struct orun *r, int s)
{
	for (int p = s, n = 0; p > OS_STOCK && p < OS_NR && n < OS_NR; p = r->s[p].parent, n++)
		if (p == OS_TUNED)
			return 1;
	return 0;
}

const struct strvec *optimize_in_sample(struct orun *r, int s)
{
	const struct strvec *t = optimize_trained_on(r, s);
	struct strvec *in = &r->s[s].in_sample;

	strvec_clear(in);
	for (size_t i = 0; t && i < t->nr; i++)
		strvec_push(in, t->v[i]);
	/* a workload a default, flag or stage of this tool was chosen on
	 * (WL_CHOSEN) is in-sample for every stage but stock */
	for (size_t i = 0; s != OS_STOCK && i < r->o->workloads.nr; i++)
		if (workloads_has(r->o->workloads.v[i], WL_CHOSEN) &&
		    strvec_find(in, r->o->workloads.v[i]) < 0)
			strvec_push(in, r->o->workloads.v[i]);
	/* the tuned policy was chosen on them, and a stage stacked on it
	 * (bolt on the best build) carries that choice in its total */
	if (on_tuned(r, s)) {
		const struct strvec *c = r->tune_chosen_unknown ? &r->o->workloads : &r->tune_chosen;
		for (size_t i = 0; i < c->nr; i++)
			if (strvec_find(in, c->v[i]) < 0)
				strvec_push(in, c->v[i]);
	}
	return in;
}

/* The parent's measurements of stage s (NULL: stock, or none). */
const struct optimize_measure *optimize_parent_measure(const struct orun *r, int s)
{
	int p = r->s[s].parent;
	return p > OS_STOCK ? &r->s[p].m : NULL;
}

/* "optimize: STAGE kept: ..." with the held-out and in-sample gains. */
static void say_kept(struct orun *r, int s)
{
	struct optimize_gain in, out;
	optimize_gain(&r->s[s].m, optimize_parent_measure(r, s), optimize_in_sample(r, s), 1, &out);
	optimize_gain(&r->s[s].m, optimize_parent_measure(r, s), optimize_in_sample(r, s), 0, &in);
	fprintf(stderr, "optimize: %s kept on %s evidence: cycles estimate of stock "
		"(geometric means)", optimize_stage_names[s],
		optimize_evidence(&r->s[s].m, optimize_in_sample(r, s)));
	if (out.n)
		fprintf(stderr, " %.4fx held-out", out.total);
	if (in.n)
		fprintf(stderr, "%s %.4fx in-sample", out.n ? "," : "", in.total);
	fputc('\n', stderr);
}

/* The candidate stages this run asks for that can run here: those
 * --stages names less tuned without a tune state and the clang stages
 * without clang; bolt counts, though whether it runs depends on what was
 * kept. */
unsigned optimize_asked_stages(const struct orun *r)
{
	unsigned mask = r->o->stages;
	if (!r->s[OS_TUNED].policy)
		mask &= ~(1u << OS_TUNED);
	if (r->o->clang_skip)
		mask &= ~((1u << OS_CLANG) | (1u << OS_CLANG_PGO));
	return mask;
}

/*
 * optimize.h: the family every stage is decided in (Bonferroni over it,
 * optimize_measure_of): the union of the stages asked for by every run of
 * the workdir (this one's and WORKDIR/stage-family's), at least the k an
 * older run's optimize.json recorded.
 */
size_t optimize_run_family(const struct orun *r)
{
	size_t k = optimize_family(r->stages_seen | optimize_asked_stages(r));
	return r->family_seen > k ? r->family_seen : k;
}

/* This run's own family. */
size_t optimize_asked_family(const struct orun *r)
{
	return optimize_family(optimize_asked_stages(r));
}

/* See optimize.h. */
const char *optimize_bolt_dir(const struct optimize_opts *o)
{
	return o->bolt_dir ? o->bolt_dir : o->bolt_dir_auto;
}

/* See optimize.h. */
int optimize_read_family_seen(struct orun *r)
{
	char *path = xasprintf("%s/" OPTIMIZE_FAMILY_FILE, r->workdir);
	char *doc = xasprintf("%s/optimize.json", r->workdir);
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *v = NULL;
	int rc = 0;
	double k;

	/* --restart too: its builds and gates measure the same (the cycles
	 * estimate is deterministic, the floor's variants seeded) */
	if (access(path, F_OK) < 0) {
		/* no earlier run wrote one */
	} else if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &text, &err) < 0) {
		rc = error("%s", err.buf);
	} else {
		strbuf_trim(&text);
		if (optimize_parse_stages(text.buf, &r->stages_seen) < 0)
			rc = error("%s: expected the stages earlier runs of this workdir asked "
				   "for, comma-separated (as --stages), written by optimize", path);
	}
	/* a run before that file: its optimize.json's k */
	strbuf_reset(&text);
	if (!rc && sfs_read(AT_FDCWD, doc, SFS_IN_JSON, 0, &text, NULL) >= 0)
		v = json_parse(text.buf, text.len, NULL);
	k = json_get_num(v, "stage_family", 0);
	if (k >= 1 && k <= OS_NR)
		r->family_seen = (size_t)k;
	json_free(v);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
	free(doc);
	return rc;
}

/* See optimize.h. */
int optimize_write_family(struct orun *r)
{
	char *path = xasprintf("%s/" OPTIMIZE_FAMILY_FILE, r->workdir);
	unsigned all = r->stages_seen | optimize_asked_stages(r);
	struct strbuf sb = STRBUF_INIT;
	int rc;

	for (int s = 0; s < OS_NR; s++)
		if (all & (1u << s))
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", optimize_stage_names[s]);
	strbuf_addch(&sb, '\n');
	rc = write_file_atomic(path, sb.buf, sb.len) < 0 ?
	     error("cannot write %s: %s", path, strerror(errno)) : 0;
	strbuf_release(&sb);
	free(path);
	return rc;
}

/* The gate's measurements of stage s, and the decision against its parent. */
static int decide(struct orun *r, int s)
{
	struct ostage *st = &r->s[s];
	struct strbuf err = STRBUF_INIT, reason = STRBUF_INIT;
	struct gate g;
	struct gate_verdict v = GATE_VERDICT_INIT;
	int parent = st->parent, rc = 0, loaded;

	optimize_measure_clear(&st->m);
	loaded = gate_load(st->gate_json, &g, &v, &err) == 0;
	if (loaded)
		optimize_measure_of(&st->m, &g, optimize_run_family(r));
	gate_clear(&g);
	if (!loaded) {
		error("%s: cannot read its gate result: %s", optimize_stage_names[s], err.buf);
		r->stop = "gate result unreadable";
		rc = -1;
	} else if (optimize_keep(&v, &st->m, parent == OS_STOCK ? NULL : &r->s[parent].m,
				 optimize_stage_names[parent], optimize_in_sample(r, s), &reason)) {
		st->state = SS_KEPT;
		say_kept(r, s);
		/* a stage stacks on the best build; a clang stage on its own
		 * compiler's, and is the best only when it beats it on the
		 * workloads held out for both, by more than the resolution */
		if (parent == r->best || r->best == OS_STOCK) {
			r->best = s;
		} else {
			struct strbuf why = STRBUF_INIT;
			int b = r->best;
			int beats = optimize_beats(&st->m, optimize_in_sample(r, s), &r->s[b].m,
						   optimize_in_sample(r, b), &why);
			fprintf(stderr, "optimize: %s against %s: %s: %s\n", optimize_stage_names[s],
				optimize_stage_names[b], why.buf,
				beats ? "the new best build" : "the best build stays");
			if (beats)
				r->best = s;
			strbuf_release(&why);
		}
	} else {
		drop(r, s, "%s", reason.buf);
	}
	gate_verdict_clear(&v);
	strbuf_release(&err);
	strbuf_release(&reason);
	return rc;
}

/* The key of stage s's build: its inputs, and what it stacks on. */
static char *stage_key(struct orun *r, int s)
{
	const struct optimize_opts *o = r->o;
	struct ostage *st = &r->s[s];
	char *sha = st->policy ? build_policy_sha(st->policy) : NULL;
	struct strbuf k = STRBUF_INIT;

	strbuf_addf(&k, "stage=%s src=%s policy=%s prefix=%s", optimize_stage_names[s], o->src,
		    sha ? sha : "none", st->prefix);
	if (OPTIMIZE_IS_CLANG(s))
		strbuf_addf(&k, " cc=%s", o->clang);
	if (s == OS_PGO || s == OS_TUNED || s == OS_CLANG_PGO || s == OS_BOLT)
		for (size_t i = 0; i < o->train.nr; i++)
			strbuf_addf(&k, "%s%s", i ? "," : " wl=", o->train.v[i]);
	if (s == OS_BOLT)
		strbuf_addf(&k, " on={%s}", r->s[st->parent].key);
	/* only when given, so the keys of earlier runs stay valid */
	if (s == OS_BOLT && o->bolt_flags)
		strbuf_addf(&k, " bolt-flags={%s}", o->bolt_flags);
	if (s == OS_BOLT && optimize_bolt_dir(o))
		strbuf_addf(&k, " bolt-dir={%s}", optimize_bolt_dir(o));
	free(sha);
	return strbuf_detach(&k, NULL);
}

/* The gate settings, part of every gate step's key. */
static void gate_key(struct orun *r, struct strbuf *k)
{
	const struct optimize_opts *o = r->o;
	strbuf_addf(k, " stock={%s} gate=%s pairs=%d dur=%g cl=%d cpus=%s", r->s[OS_STOCK].key,
		    OPT_GATE_EXPR, o->pairs, o->duration, o->clients, o->cpus ? o->cpus : "");
	/* only when given, so the keys of earlier runs stay valid */
	if (o->auto_pairs)
		strbuf_addf(k, " pairs=auto budget=%g", o->budget);
	for (size_t i = 0; i < o->workloads.nr; i++)
		strbuf_addf(k, "%s%s", i ? "," : " eval=", o->workloads.v[i]);
	strbuf_addf(k, " floor=%s:%s", optimize_floor_state_names[r->floor_state],
		    r->floor ? r->floor : "");
	if (r->floor_state == OF_MEASURED)
		strbuf_addf(k, ":%d", o->noise_variants);
}

/* Stage s: build, verify, regress, gate, decide.  0 or -1 (stop). */
static int run_stage(struct orun *r, int s)
{
	struct ostage *st = &r->s[s];
	struct strbuf what = STRBUF_INIT, gk = STRBUF_INIT;
	int rc;

	/* GCC's stages stack on the best build; clang's on clang's */
	st->parent = s == OS_CLANG ? OS_STOCK :
		     s == OS_CLANG_PGO ? (r->s[OS_CLANG].state == SS_KEPT ? OS_CLANG : OS_STOCK) :
		     r->best;
	free(st->key);
	st->key = stage_key(r, s);
	if (s == OS_BOLT)
		strbuf_addf(&what, "pgbuild bolt --install %s%s%s (on %s)", r->s[st->parent].prefix,
			    optimize_bolt_dir(r->o) ? " --bolt " : "",
			    optimize_bolt_dir(r->o) ? optimize_bolt_dir(r->o) : "",
			    optimize_stage_names[st->parent]);
	else if (s == OS_TUNED && r->tune_bundle)
		strbuf_addf(&what, "pgbuild build --policy %s --bundle %s", st->policy,
			    r->tune_bundle);
	else if (s == OS_PGO || s == OS_TUNED || s == OS_CLANG_PGO)
		strbuf_addf(&what, "pgbuild pgo --policy %s", st->policy);
	else
		strbuf_addf(&what, "pgbuild build --policy %s", st->policy);
	if (OPTIMIZE_IS_CLANG(s))
		strbuf_addf(&what, " (PGOPT_CC=%s)", r->o->clang);
	/* the tuned stage of a tune on a bundle builds with its profile: no
	 * training (pgbuild pgo would train again for the tuned policy) */
	rc = step(r, s, STEP_BUILD, what.buf, s == OS_BOLT ? st_bolt :
		  s == OS_LTO || s == OS_CLANG || (s == OS_TUNED && r->tune_bundle) ? st_build :
		  st_pgo, "regression suite failed (log %s)");
	strbuf_release(&what);
	if (rc == 0 && (s == OS_LTO || s == OS_CLANG))
		st->reused = was_reused(r, STEP_ID(s, STEP_BUILD));
	if (rc == 0 && s != OS_BOLT)
		rc = step(r, s, STEP_VERIFY, "pgbuild verify", st_verify,
			  "verification failed (log %s)");
	if (rc == 0 && (s == OS_LTO || s == OS_CLANG || (s == OS_TUNED && r->tune_bundle)))
		rc = step(r, s, STEP_REGRESS, "pgbuild regress (make check)", st_regress,
			  "regression suite failed (log %s)");
	/* the floor the gate decides at, measured before the first gate */
	if (rc == 0 && optimize_floor(r) < 0)
		rc = -1;
	if (rc == 0) {
		/* the gate's key: the stage's and every setting */
		char *saved = st->key;
		strbuf_addstr(&gk, saved);
		gate_key(r, &gk);
		st->key = gk.buf;
		/* the gate's numbers decide (st_gate: a missed threshold is a result) */
		rc = step(r, s, STEP_GATE, "pgbuild gate --metric tps,instructions,cycles", st_gate,
			  NULL);
		st->key = saved;
		if (rc == 0)
			rc = decide(r, s);
	}
	strbuf_release(&gk);
	return rc < 0 ? -1 : 0;
}

/* ---------------- setup ---------------- */

/* Write a stage's policy file WORKDIR/policies/NAME.policy from text. */
static char *write_policy(struct orun *r, const char *name, const char *text)
{
	char *dir = xasprintf("%s/policies", r->workdir);
	char *path = xasprintf("%s/%s.policy", dir, name);
	char *old = read_text(path);
	if (mkdir_p(dir) < 0 ||
	    ((!old || strcmp(old, text)) && write_file_atomic(path, text, strlen(text)) < 0)) {
		free(path);
		path = NULL;
	}
	free(old);
	free(dir);
	return path;
}

/*
 * A tune on a profile bundle (pgbuild tune --bundle) leaves the bundle's
 * directory in best.bundle beside its best.policy: the tuned stage builds
 * that policy with it, judged held out on what its profile did not train
 * on.  0 (none, or read), or -1 after the error.
 */
static int tune_bundle(struct orun *r, const char *best)
{
	const char *slash = strrchr(best, '/');
	char *path = slash ? xasprintf("%.*s/best.bundle", (int)(slash - best), best) :
			     xstrdup("best.bundle");
	char *line = NULL;
	struct json_value *m = NULL;
	const struct json_value *t;
	int rc = 0;

	if (access(path, R_OK) != 0)
		goto out;
	line = textfile_last_line(path, "/");
	if (!line) {
		rc = error("%s: expected the bundle's directory", path);
		goto out;
	}
	if (!(m = bundle_open(line))) {
		rc = error("%s names %s, which is no usable bundle", path, line);
		goto out;
	}
	r->tune_bundle = xstrdup(line);
	t = json_get(json_get(m, "pgo"), "trained_on");
	for (size_t i = 0; i < json_len(t); i++)
		if (json_at(t, i)->type == JSON_STRING)
			strvec_push(&r->tune_trained, json_at(t, i)->u.str.s);
out:
	json_free(m);
	free(line);
	free(path);
	return rc;
}

/*
 * What tune searched on, from TUNE/best.json beside best.policy: the
 * tuned stage's policy was chosen on it, so it is never held out there.
 * Without that document (a tune of an older pgbuild), what it searched on
 * is unknown and no workload of the tuned stage counts as held out.
 */
static void tune_chosen_on(struct orun *r, const char *best)
{
	const char *slash = strrchr(best, '/');
	char *path = slash ? xasprintf("%.*s/" TUNE_BEST_JSON, (int)(slash - best), best) :
			     xstrdup(TUNE_BEST_JSON);
	struct strbuf text = STRBUF_INIT;
	struct json_value *v = NULL;
	const char *wl;

	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &text, NULL) >= 0)
		v = json_parse(text.buf, text.len, NULL);
	wl = json_get_str(v, "workload");
	if (wl) {
		/* a comma-separated list, as tune's --train takes it */
		char *copy = xstrdup(wl), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			strvec_push(&r->tune_chosen, w);
		free(copy);
	} else {
		r->tune_chosen_unknown = 1;
		warning("%s: no record of what tune searched on; the tuned stage has no held-out "
			"workload", path);
	}
	json_free(v);
	strbuf_release(&text);
	free(path);
}

/* The policies of lto and tuned, from --policy and the tune state. */
static int prepare_policies(struct orun *r)
{
	const struct optimize_opts *o = r->o;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, base = STRBUF_INIT;
	char *user = NULL;
	char *best;
	int rc = 0;

	/* written into WORKDIR/policies: relative hot and cold lists absolute */
	if (o->policy) {
		if (pgo_policy_base(o->policy, 0, &base) < 0)
			return -1;
		user = strbuf_detach(&base, NULL);
	}
	if (optimize_policy_text(user, o->policy, 0, &text, &err) < 0)
		rc = error("--policy %s: %s", o->policy, err.buf);
	else if (!(r->s[OS_LTO].policy = write_policy(r, "lto", text.buf)))
		rc = -1;
	/* pgo, and the clang stages, build the same policy */
	r->s[OS_PGO].policy = r->s[OS_LTO].policy ? xstrdup(r->s[OS_LTO].policy) : NULL;
	r->s[OS_CLANG].policy = r->s[OS_LTO].policy ? xstrdup(r->s[OS_LTO].policy) : NULL;
	r->s[OS_CLANG_PGO].policy = r->s[OS_LTO].policy ? xstrdup(r->s[OS_LTO].policy) : NULL;
	free(user);
	best = o->tune_state ? xasprintf("%s/best.policy", o->tune_state) :
	       xstrdup("pgbuild-tune/best.policy");
	if (rc == 0 && access(best, R_OK) == 0) {
		if (pgo_policy_base(best, 0, &base) < 0) {
			rc = -1;
			goto out;
		}
		r->tune_policy = strbuf_detach(&base, NULL);
		strbuf_reset(&err);
		if (optimize_policy_text(r->tune_policy, best, 1, &text, &err) < 0)
			rc = error("%s: %s", best, err.buf);
		else if (!(r->s[OS_TUNED].policy = write_policy(r, "tuned", text.buf)))
			rc = -1;
		else
			rc = tune_bundle(r, best);
		if (rc == 0)
			tune_chosen_on(r, best);
	} else if (rc == 0 && o->tune_state) {
		rc = error("--tune-state %s: no best.policy (a finished pgbuild tune writes it)",
			   o->tune_state);
	}
out:
	free(best);
	strbuf_release(&text);
	strbuf_release(&err);
	return rc;
}

/* Paths of every stage and the pipeline. */
static int prepare(struct orun *r)
{
	const struct optimize_opts *o = r->o;

	r->workdir = path_absolute(o->workdir);
	/* made when missing, never chmodded; as root refused when another user
	 * could write in it (the logs, state and installs root writes there) */
	{
		int fd = workdir_open("--workdir", r->workdir);
		if (fd < 0)
			return -1;
		close(fd);
	}
	{
		char *g = xasprintf("%s/gates", r->workdir);
		int bad = mkdir_p(g) < 0;
		free(g);
		if (bad)
			return -1;
	}
	for (int s = 0; s < OS_NR; s++) {
		r->s[s].prefix = xasprintf("%s/%s/prefix", r->workdir, optimize_stage_names[s]);
		r->s[s].builddir = xasprintf("%s/%s/build", r->workdir, optimize_stage_names[s]);
		r->s[s].gate_json = xasprintf("%s/gates/%s.json", r->workdir, optimize_stage_names[s]);
		r->s[s].parent = -1;
	}
	if (o->baseline) {
		free(r->s[OS_STOCK].prefix);
		r->s[OS_STOCK].prefix = path_absolute(o->baseline);
	}
	if (prepare_policies(r) < 0)
		return -1;
	/* the family, before any gate is decided: a run stopped after a
	 * verdict it printed still binds the next one */
	if (optimize_read_family_seen(r) < 0 || optimize_write_family(r) < 0)
		return -1;
	if (optimize_run_family(r) > optimize_asked_family(r))
		fprintf(stderr, "optimize: note: earlier runs of %s asked for other stages; every "
			"stage is decided over all of them, %zu candidate stages (this run asks for "
			"%zu): choosing the stages after seeing a verdict never loosens the level "
			"of the same gates\n", r->workdir, optimize_run_family(r),
			optimize_asked_family(r));
	stage_init(&r->p, "pgbuild-optimize", step_names, NSTEPS, r->workdir, o->restart);
	r->p.quiet = o->quiet;
	r->p.ctx = r;
	return 0;
}

/* Stage stock: given, or built with --policy none. */
static int run_stock(struct orun *r)
{
	struct ostage *st = &r->s[OS_STOCK];
	st->state = SS_BASELINE;
	if (r->o->baseline) {
		st->key = xasprintf("stage=stock given=%s", st->prefix);
		fprintf(stderr, "[1/%d] stock     %s (given)\n", NSTEPS, st->prefix);
		return 0;
	}
	st->key = stage_key(r, OS_STOCK);
	r->cur = OS_STOCK;
	if (stage_run(&r->p, STEP_ID(OS_STOCK, STEP_BUILD), st->key,
			   "pgbuild build --policy none", st_build) != 0) {
		r->stop = "stock";
		return -1;
	}
	return 0;
}

/* ---------------- install and the document ---------------- */

/* Copy the best build to --prefix: a temporary sibling, then rename. */
/* The directories above path, made when missing (as the caller named them). */
static int mkdir_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int r = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		r = mkdir_p(dir);
	}
	free(dir);
	return r;
}

static int install_best(struct orun *r)
{
	const char *src = r->s[r->best].prefix;
	char *dst = path_absolute(r->o->prefix);
	char *tmp = xasprintf("%s.tmp-%ld", dst, (long)getpid());
	char *old = xasprintf("%s.old-%ld", dst, (long)getpid());
	char *marker = xasprintf("%s/pgopt-optimize.json", tmp);
	char *mtext = xasprintf("{\"kind\":\"pgbuild-optimize-install\",\"stage\":\"%s\"}\n",
				optimize_stage_names[r->best]);
	int rc = -1, code;

	remove_tree(tmp);
	/* made anew (mkdir, never through a link planted at tmp since the
	 * removal); its parent, the --prefix's, as the caller named it */
	if (mkdir_parent(tmp) < 0)
		goto out;
	if ((code = copytree_fresh(src, tmp, NULL)) != 0) {
		if (code < 0)
			error("cannot create %s: %s", tmp, strerror(errno));
		else
			error("cannot copy %s to %s", src, tmp);
		goto out;
	}
	if (write_file_atomic(marker, mtext, strlen(mtext)) < 0)
		goto out;
	if (path_exists(dst) && rename(dst, old) < 0) {
		error("cannot move the earlier %s aside: %s", dst, strerror(errno));
		goto out;
	}
	if (rename(tmp, dst) < 0) {
		error("cannot rename %s to %s: %s", tmp, dst, strerror(errno));
		goto out;
	}
	remove_tree(old);
	rc = 0;
out:
	if (rc < 0)
		remove_tree(tmp);
	free(dst);
	free(tmp);
	free(old);
	free(marker);
	free(mtext);
	return rc;
}

/* Write the document, --json, the HTML page; print the waterfall. */
static void finish(struct orun *r, int rc)
{
	struct strbuf doc = STRBUF_INIT, html = STRBUF_INIT;
	char *path = xasprintf("%s/optimize.json", r->workdir);
	char *hpath = r->o->html ? xstrdup(r->o->html) : xasprintf("%s/optimize.html", r->workdir);
	struct json_value *v;

	optimize_write_doc(r, &doc, rc);
	write_file_atomic(path, doc.buf, doc.len);
	if (r->o->json)
		write_result(r->o->json, doc.buf, doc.len);
	v = json_parse(doc.buf, doc.len, NULL);
	if (v) {
		optimize_render_html(v, &html);
		write_file_atomic(hpath, html.buf, html.len);
		optimize_render_text(v, stdout);
		printf("\nresult: %s\nreport: %s\n", path, hpath);
	}
	json_free(v);
	strbuf_release(&doc);
	strbuf_release(&html);
	free(path);
	free(hpath);
}

/* The candidate stages in order; 0, or -1 when one could not run. */
static int run_candidates(struct orun *r)
{
	for (int s = OS_LTO; s < OS_NR; s++) {
		if (!(r->o->stages & (1u << s)))
			continue;
		if (s == OS_TUNED && !r->s[s].policy) {
			r->s[s].state = SS_SKIPPED;
			r->s[s].reason = xstrdup("skipped: no tune state (--tune-state DIR, the "
						 "--workdir of a finished pgbuild tune)");
			fprintf(stderr, "optimize: tuned %s\n", r->s[s].reason);
			continue;
		}
		if (OPTIMIZE_IS_CLANG(s) && r->o->clang_skip) {
			r->s[s].state = SS_SKIPPED;
			r->s[s].reason = xasprintf("skipped: %s", r->o->clang_skip);
			fprintf(stderr, "optimize: %s %s\n", optimize_stage_names[s], r->s[s].reason);
			continue;
		}
		if (s == OS_BOLT && r->best == OS_STOCK) {
			/* BOLT rewrites a BOLT-ready build; stock is not one */
			r->s[s].state = SS_SKIPPED;
			r->s[s].reason = xstrdup("skipped: no BOLT-ready stage (lto, pgo, tuned, "
						 "clang, clang-pgo) was kept to stack on, and BOLT "
						 "never rewrites stock");
			fprintf(stderr, "optimize: bolt %s\n", r->s[s].reason);
			continue;
		}
		if (run_stage(r, s) < 0)
			return -1;
	}
	return 0;
}

int optimize_run(const struct optimize_opts *o)
{
	struct orun r;
	int rc = PGBUILD_EXIT_ERROR;

	memset(&r, 0, sizeof(r));
	strvec_init(&r.tune_trained);
	strvec_init(&r.tune_chosen);
	for (int s = 0; s < OS_NR; s++)
		strvec_init(&r.s[s].in_sample);
	r.o = o;
	r.best = OS_STOCK;
	if (prepare(&r) < 0)
		goto out;
	if (run_stock(&r) < 0 || run_candidates(&r) < 0) {
		error("optimize stopped at %s; run the same command again to resume", r.stop);
		finish(&r, PGBUILD_EXIT_ERROR);
		goto out;
	}
	rc = r.best == OS_STOCK ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_OK;
	if (rc == 0 && o->prefix) {
		fprintf(stderr, "[%d/%d] install   %s -> %s\n", NSTEPS, NSTEPS, r.s[r.best].prefix,
			o->prefix);
		if (install_best(&r) < 0) {
			r.stop = "install";
			rc = PGBUILD_EXIT_ERROR;
		}
	}
	finish(&r, rc);
out:
	stage_release(&r.p);
	for (int s = 0; s < OS_NR; s++) {
		free(r.s[s].prefix);
		free(r.s[s].builddir);
		free(r.s[s].policy);
		free(r.s[s].key);
		free(r.s[s].gate_json);
		free(r.s[s].reason);
		optimize_measure_clear(&r.s[s].m);
		strvec_clear(&r.s[s].in_sample);
	}
	strvec_clear(&r.tune_chosen);
	free(r.workdir);
	free(r.tune_policy);
	free(r.tune_bundle);
	strvec_clear(&r.tune_trained);
	free(r.floor);
	free(r.floor_note);
	return rc;
}
