/*
 * run.c - `pgbuild run`: the whole pipeline in one command.
 *
 *   1 baseline   pgbuild build --policy none     (reused when present)
 *   2 candidate  pgbuild build --policy FILE     (reused when present)
 *   3 verify     pgbuild verify --prefix CAND
 *   4 regress    pgbuild regress --builddir CAND.build
 *   5 gate       pgbuild gate --baseline BASE --candidate CAND --gate EXPR
 *   6 report     pgbuild report --gate ... --html FILE
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
 * Exit: the gate's verdict (0 pass, 1 fail, 2 could not measure); 1 when
 * verification fails; 2 when a build fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build/build.h"
#include "gate/gate.h"
#include "metric/instr.h"
#include "pgbuild.h"

enum stage_id { ST_BASELINE, ST_CANDIDATE, ST_VERIFY, ST_REGRESS, ST_GATE, ST_REPORT, ST_NR };

static const char *const stage_names[ST_NR] = {
	"baseline", "candidate", "verify", "regress", "gate", "report",
};

struct stage_state {
	char *key;     /* inputs it ran with (NULL: never ran) */
	int exit;      /* its exit code */
	double secs;   /* how long it took */
};

struct run {
	/* options */
	const char *policy, *src, *workdir, *gate, *html, *baseline_prefix;
	const char *cand_prefix_opt, *cand_builddir_opt;
	const char *pairs, *duration, *clients, *metric, *jobs, *workloads_csv;
	const char *cpus, *counter;
	const char *configure_args;
	int no_regress, no_verify, restart, quiet;
	/* derived */
	char *base_prefix, *base_builddir, *cand_prefix, *cand_builddir;
	char *policy_abs, *policy_sha;
	char *state_path, *logdir;
	struct stage_state st[ST_NR];
};

static void run_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild run --policy FILE [--src SRC] [--workdir DIR] [--gate EXPR] [--html FILE]\n"
"\n"
"The whole pipeline: baseline build (reused when present), candidate build,\n"
"verify, regression suite, gate, report - one progress line per stage.  An\n"
"interrupted run resumes from the last finished stage.\n"
"\n"
"  --policy FILE          the candidate's policy (required)\n"
"  --src SRC              PostgreSQL source: directory, tarball or\n"
"                         debian:PACKAGE[=VERSION] (default debian:postgresql-15)\n"
"  --workdir DIR          builds, logs and results (default ./pgbuild-run)\n"
"  --gate EXPR            thresholds (default 'select-only>=1.00'), e.g.\n"
"                         'select-only>=1.05,tpcb>=1.00,p99<=+10%%'\n"
"  --html FILE            the HTML report (default WORKDIR/report.html)\n"
"  --baseline PREFIX      use this install as the baseline instead of building one\n"
"  --candidate-prefix DIR     install the candidate here (default WORKDIR/candidate/prefix)\n"
"  --candidate-builddir DIR   build it here (default WORKDIR/candidate/build)\n"
"  --workload LIST        comma-separated bench workloads (default: those --gate names)\n"
"  --pairs N --duration S --clients N --metric tps|instructions|both\n"
"  --cpus LIST --counter auto|perf|callgrind\n"
"                         passed to pgbuild gate\n"
"  -j, --jobs N           make jobs for the builds\n"
"  --configure-args ARGS  extra configure arguments for both builds\n"
"  --no-verify            skip pgbuild verify\n"
"  --no-regress           skip the regression suite (the gate then says \"not run\")\n"
"  --restart              ignore the state of an earlier run\n"
"  -q, --quiet            only the stage lines and the final report\n"
"\n"
"Exit: 0 the gate passed, 1 it failed (or verification failed), 2 a stage\n"
"could not run.\n");
}

/* ---------------- state file ---------------- */

static void state_load(struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_value *root;
	const struct json_value *stages;
	if (r->restart || strbuf_read_file(&sb, r->state_path) < 0)
		goto out;
	root = json_parse(sb.buf, sb.len, NULL);
	stages = json_get(root, "stages");
	for (int i = 0; i < ST_NR; i++) {
		const struct json_value *s = json_get(stages, stage_names[i]);
		const char *key = json_get_str(s, "key");
		if (!key)
			continue;
		r->st[i].key = xstrdup(key);
		r->st[i].exit = (int)json_get_num(s, "exit", 2);
		r->st[i].secs = json_get_num(s, "seconds", 0);
	}
	json_free(root);
out:
	strbuf_release(&sb);
}

static void state_save(const struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-run");
	json_key(&jw, "policy"); json_string(&jw, r->policy_abs);
	json_key(&jw, "policy_sha256"); json_string(&jw, r->policy_sha);
	json_key(&jw, "src"); json_string(&jw, r->src);
	json_key(&jw, "baseline"); json_string(&jw, r->base_prefix);
	json_key(&jw, "candidate"); json_string(&jw, r->cand_prefix);
	json_key(&jw, "stages");
	json_object_begin(&jw);
	for (int i = 0; i < ST_NR; i++) {
		if (!r->st[i].key)
			continue;
		json_key(&jw, stage_names[i]);
		json_object_begin(&jw);
		json_key(&jw, "key"); json_string(&jw, r->st[i].key);
		json_key(&jw, "exit"); json_int(&jw, r->st[i].exit);
		json_key(&jw, "seconds"); json_double(&jw, r->st[i].secs);
		json_object_end(&jw);
	}
	json_object_end(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	write_file_atomic(r->state_path, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* ---------------- helpers ---------------- */

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

	if (access(pg, X_OK) < 0 || strbuf_read_file(&sb, path) < 0)
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

/* The log directory of a build, from its pgopt-build.json. */
static char *build_logdir(const char *prefix)
{
	char *path = xasprintf("%s/pgopt-build.json", prefix);
	struct strbuf sb = STRBUF_INIT;
	struct json_value *root;
	const char *dir;
	char *r = NULL;
	if (strbuf_read_file(&sb, path) >= 0) {
		root = json_parse(sb.buf, sb.len, NULL);
		dir = json_get_str(json_get(root, "log"), "dir");
		if (dir)
			r = xstrdup(dir);
		json_free(root);
	}
	strbuf_release(&sb);
	free(path);
	return r;
}

/*
 * Run `pgbuild ARGS...`: stdout and stderr into the stage's log, or stderr
 * passed through (builds: their progress line) when show_stderr.
 */
static int run_stage_cmd(struct run *r, int id, struct strvec *args, int show_stderr)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *log = xasprintf("%s/%s.log", r->logdir, stage_names[id]);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), rc;
	strvec_push(&cp.args, pgbuild_self());
	strvec_pushv(&cp.args, (const char *const *)args->v);
	cp.no_stdin = 1;
	if (fd >= 0) {
		cp.out = fd;
		if (!show_stderr || r->quiet)
			cp.err = fd;
	}
	rc = run_command_forwarding(&cp);
	if (fd >= 0)
		close(fd);
	child_process_clear(&cp);
	free(log);
	return rc < 0 ? PGBUILD_EXIT_ERROR : rc;
}

static char *stage_log(const struct run *r, int id)
{
	return xasprintf("%s/%s.log", r->logdir, stage_names[id]);
}

/*
 * Stage driver: skip when the key matches a finished earlier run (exit 0
 * or 1), else run fn and record.  Returns the stage's exit code.
 */
static int stage(struct run *r, int id, const char *key, const char *what,
		 int (*fn)(struct run *r, int id))
{
	double t0;
	char el[32];
	int rc;
	if (r->st[id].key && !strcmp(r->st[id].key, key) &&
	    (r->st[id].exit == 0 || r->st[id].exit == 1)) {
		fprintf(stderr, "[%d/%d] %-9s %s: finished in an earlier run (exit %d), skipped\n",
			id + 1, ST_NR, stage_names[id], what, r->st[id].exit);
		return r->st[id].exit;
	}
	fprintf(stderr, "[%d/%d] %-9s %s ...\n", id + 1, ST_NR, stage_names[id], what);
	t0 = clock_seconds();
	rc = fn(r, id);
	free(r->st[id].key);
	r->st[id].key = xstrdup(key);
	r->st[id].exit = rc;
	r->st[id].secs = clock_seconds() - t0;
	state_save(r);
	fmt_duration(r->st[id].secs, 1, el, sizeof(el));
	{
		char *log = stage_log(r, id), *last = textfile_last_line(log, NULL);
		fprintf(stderr, "[%d/%d] %-9s %s in %s%s%s\n", id + 1, ST_NR, stage_names[id],
			rc == 0 ? "done" : rc == 1 ? "FAILED" : "could not run", el,
			last ? ": " : "", last ? last : "");
		if (rc != 0)
			fprintf(stderr, "          log: %s\n", log);
		free(log);
		free(last);
	}
	return rc;
}

/* ---------------- stages ---------------- */

static int do_build(struct run *r, int id, const char *policy, const char *prefix,
		    const char *builddir, const char *sha)
{
	struct strvec a = STRVEC_INIT;
	int rc;
	if (build_reusable(prefix, r->src, sha, r->configure_args)) {
		char *log = stage_log(r, id);
		FILE *fp = fopen(log, "w");
		if (fp) {
			fprintf(fp, "reused %s (pgopt-build.json: same source and policy)\n", prefix);
			fclose(fp);
		}
		free(log);
		return 0;
	}
	strvec_pushl(&a, "build", "--src", r->src, "--policy", policy, "--prefix", prefix,
		     "--builddir", builddir, "--no-bench", NULL);
	if (r->jobs)
		strvec_pushl(&a, "--jobs", r->jobs, NULL);
	if (r->configure_args)
		strvec_pushl(&a, "--configure-args", r->configure_args, NULL);
	if (r->quiet)
		strvec_push(&a, "--quiet");
	rc = run_stage_cmd(r, id, &a, 1);
	strvec_clear(&a);
	return rc == 0 ? 0 : PGBUILD_EXIT_ERROR;
}

static int st_baseline(struct run *r, int id)
{
	return do_build(r, id, "none", r->base_prefix, r->base_builddir, SHA256_EMPTY);
}

static int st_candidate(struct run *r, int id)
{
	return do_build(r, id, r->policy_abs, r->cand_prefix, r->cand_builddir, r->policy_sha);
}

static int st_verify(struct run *r, int id)
{
	struct strvec a = STRVEC_INIT;
	int rc;
	strvec_pushl(&a, "verify", "--prefix", r->cand_prefix, "--policy", r->policy_abs, NULL);
	rc = run_stage_cmd(r, id, &a, 0);
	strvec_clear(&a);
	return rc;
}

static int st_regress(struct run *r, int id)
{
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/regress.json", r->workdir);
	int rc;
	strvec_pushl(&a, "regress", "--builddir", r->cand_builddir, "--json", json, NULL);
	rc = run_stage_cmd(r, id, &a, 0);
	strvec_clear(&a);
	free(json);
	return rc;
}

static int st_gate(struct run *r, int id)
{
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/gate.json", r->workdir);
	char *junit = xasprintf("%s/gate.junit.xml", r->workdir);
	int rc;
	strvec_pushl(&a, "gate", "--baseline", r->base_prefix, "--candidate", r->cand_prefix,
		     "--gate", r->gate, "--json", json, "--junit", junit, NULL);
	if (r->workloads_csv) {
		char *copy = xstrdup(r->workloads_csv), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			strvec_pushl(&a, "--workload", w, NULL);
		free(copy);
	}
	if (r->st[ST_REGRESS].key && (r->st[ST_REGRESS].exit == 0 || r->st[ST_REGRESS].exit == 1))
		strvec_pushl(&a, "--regress-result", r->st[ST_REGRESS].exit == 0 ? "passed" : "failed", NULL);
	if (r->pairs)
		strvec_pushl(&a, "--pairs", r->pairs, NULL);
	if (r->duration)
		strvec_pushl(&a, "--duration", r->duration, NULL);
	if (r->clients)
		strvec_pushl(&a, "--clients", r->clients, NULL);
	if (r->metric)
		strvec_pushl(&a, "--metric", r->metric, NULL);
	if (r->cpus)
		strvec_pushl(&a, "--cpus", r->cpus, NULL);
	if (r->counter)
		strvec_pushl(&a, "--counter", r->counter, NULL);
	if (r->quiet)
		strvec_push(&a, "--quiet");
	/* progress lines of the gate (one per run) go to our stderr */
	rc = run_stage_cmd(r, id, &a, 1);
	strvec_clear(&a);
	free(json);
	free(junit);
	return rc;
}

static int st_report(struct run *r, int id)
{
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/gate.json", r->workdir);
	char *logdir = build_logdir(r->cand_prefix);
	int rc;
	strvec_pushl(&a, "report", "--gate", json, "--html", r->html, NULL);
	if (logdir)
		strvec_pushl(&a, "--log", logdir, NULL);
	rc = run_stage_cmd(r, id, &a, 0);
	strvec_clear(&a);
	free(json);
	free(logdir);
	return rc;
}

/* ---------------- the command ---------------- */

enum {
	RO_POLICY = 256, RO_SRC, RO_WORKDIR, RO_GATE, RO_HTML, RO_BASELINE, RO_CPREFIX,
	RO_CBUILDDIR, RO_WORKLOAD, RO_PAIRS, RO_DURATION, RO_CLIENTS, RO_METRIC, RO_CPUS, RO_COUNTER,
	RO_NO_VERIFY, RO_NO_REGRESS, RO_RESTART, RO_CONFARGS, RO_HELP,
};

PGBUILD_COMMAND(run, "the whole pipeline: builds, verify, regress, gate, report (resumable)")
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, RO_POLICY },
		{ "src", required_argument, NULL, RO_SRC },
		{ "workdir", required_argument, NULL, RO_WORKDIR },
		{ "gate", required_argument, NULL, RO_GATE },
		{ "html", required_argument, NULL, RO_HTML },
		{ "baseline", required_argument, NULL, RO_BASELINE },
		{ "candidate-prefix", required_argument, NULL, RO_CPREFIX },
		{ "candidate-builddir", required_argument, NULL, RO_CBUILDDIR },
		{ "workload", required_argument, NULL, RO_WORKLOAD },
		{ "pairs", required_argument, NULL, RO_PAIRS },
		{ "duration", required_argument, NULL, RO_DURATION },
		{ "clients", required_argument, NULL, RO_CLIENTS },
		{ "metric", required_argument, NULL, RO_METRIC },
		{ "cpus", required_argument, NULL, RO_CPUS },
		{ "counter", required_argument, NULL, RO_COUNTER },
		{ "jobs", required_argument, NULL, 'j' },
		{ "configure-args", required_argument, NULL, RO_CONFARGS },
		{ "no-verify", no_argument, NULL, RO_NO_VERIFY },
		{ "no-regress", no_argument, NULL, RO_NO_REGRESS },
		{ "restart", no_argument, NULL, RO_RESTART },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, RO_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct run r = { 0 };
	struct strbuf key = STRBUF_INIT, err = STRBUF_INIT;
	char *cand_key = NULL, *gate_key = NULL, *html_alloc = NULL, *workdir_alloc = NULL;
	int c, rc = PGBUILD_EXIT_ERROR, v;

	r.src = "debian:postgresql-15";
	r.workdir = "pgbuild-run";
	r.gate = "select-only>=1.00";
	optind = 1;
	while ((c = getopt_long(argc, argv, "hj:q", opts, NULL)) != -1) {
		switch (c) {
		case RO_POLICY: r.policy = optarg; break;
		case RO_SRC: r.src = optarg; break;
		case RO_WORKDIR: r.workdir = optarg; break;
		case RO_GATE: r.gate = optarg; break;
		case RO_HTML: r.html = optarg; break;
		case RO_BASELINE: r.baseline_prefix = optarg; break;
		case RO_CPREFIX: r.cand_prefix_opt = optarg; break;
		case RO_CBUILDDIR: r.cand_builddir_opt = optarg; break;
		case RO_WORKLOAD: r.workloads_csv = optarg; break;
		case RO_PAIRS: r.pairs = optarg; break;
		case RO_DURATION: r.duration = optarg; break;
		case RO_CLIENTS: r.clients = optarg; break;
		case RO_METRIC: r.metric = optarg; break;
		case RO_CPUS: {
			/* the gate pins; the list is checked now, not after the builds */
			cpu_set_t set;
			if (!*optarg) {
				error("invalid value \"\" for --cpus: expected a list like 0-1,3");
				goto usage;
			}
			if (gate_parse_cpus(optarg, &set) < 0)
				goto usage;
			r.cpus = optarg;
			break;
		}
		case RO_COUNTER: {
			enum instr_counter c;
			if (instr_counter_parse(optarg, &c) < 0) {
				error("invalid value \"%s\" for --counter: expected auto, perf or callgrind",
				      optarg);
				goto usage;
			}
			r.counter = optarg;
			break;
		}
		case 'j': r.jobs = optarg; break;
		case RO_CONFARGS: r.configure_args = optarg; break;
		case RO_NO_VERIFY: r.no_verify = 1; break;
		case RO_NO_REGRESS: r.no_regress = 1; break;
		case RO_RESTART: r.restart = 1; break;
		case 'q': r.quiet = 1; break;
		case RO_HELP: case 'h':
			run_usage(stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		goto usage;
	}
	if (!r.policy) {
		error("--policy is required");
		goto usage;
	}
	/* check the gate expression now, not after an hour of building */
	{
		struct gate_thresholds th = { 0 };
		int bad = gate_expr_parse(&th, r.gate, &err) < 0;
		gate_thresholds_clear(&th);
		if (bad) {
			error("invalid value \"%s\" for --gate: %s", r.gate, err.buf);
			goto usage;
		}
	}
	if (access(r.policy, R_OK) < 0) {
		error("--policy \"%s\": %s", r.policy, strerror(errno));
		goto out;
	}
	r.policy_abs = path_absolute(r.policy);
	/* the hash the build records covers the hot/cold lists too */
	r.policy_sha = build_policy_sha(r.policy_abs);
	if (!r.policy_sha) {
		error("cannot hash the policy %s", r.policy_abs);
		goto out;
	}
	r.workdir = workdir_alloc = path_absolute(r.workdir);
	if (mkdir_p(r.workdir) < 0)
		goto out;
	r.logdir = xasprintf("%s/logs", r.workdir);
	mkdir(r.logdir, 0755);
	r.state_path = xasprintf("%s/run-state.json", r.workdir);
	r.base_prefix = r.baseline_prefix ? path_absolute(r.baseline_prefix) :
			xasprintf("%s/baseline/prefix", r.workdir);
	r.base_builddir = xasprintf("%s/baseline/build", r.workdir);
	r.cand_prefix = r.cand_prefix_opt ? path_absolute(r.cand_prefix_opt) :
			xasprintf("%s/candidate/prefix", r.workdir);
	r.cand_builddir = r.cand_builddir_opt ? path_absolute(r.cand_builddir_opt) :
			  xasprintf("%s/candidate/build", r.workdir);
	if (!r.html)
		r.html = html_alloc = xasprintf("%s/report.html", r.workdir);
	state_load(&r);

	/* 1 baseline */
	if (r.baseline_prefix) {
		char *pg = xasprintf("%s/bin/postgres", r.base_prefix);
		int okp = access(pg, X_OK) == 0;
		free(pg);
		if (!okp) {
			error("--baseline %s: no bin/postgres", r.base_prefix);
			goto out;
		}
		fprintf(stderr, "[1/%d] baseline  %s (given)\n", ST_NR, r.base_prefix);
	} else {
		strbuf_addf(&key, "src=%s policy=none prefix=%s conf=%s", r.src, r.base_prefix,
			    r.configure_args ? r.configure_args : "");
		if (stage(&r, ST_BASELINE, key.buf, "pgbuild build --policy none", st_baseline) != 0)
			goto out;
	}
	/* 2 candidate */
	strbuf_reset(&key);
	strbuf_addf(&key, "src=%s policy=%s prefix=%s conf=%s", r.src, r.policy_sha, r.cand_prefix,
		    r.configure_args ? r.configure_args : "");
	cand_key = xstrdup(key.buf);
	strbuf_reset(&err);
	strbuf_addf(&err, "pgbuild build --policy %s", r.policy);
	if (stage(&r, ST_CANDIDATE, cand_key, err.buf, st_candidate) != 0)
		goto out;
	/* 3 verify */
	if (!r.no_verify) {
		v = stage(&r, ST_VERIFY, cand_key, "pgbuild verify", st_verify);
		if (v != 0) {
			rc = v;
			goto out;
		}
	}
	/* 4 regress */
	if (!r.no_regress) {
		v = stage(&r, ST_REGRESS, cand_key, "pgbuild regress (make check)", st_regress);
		if (v >= 2)
			goto out;
	} else {
		free(r.st[ST_REGRESS].key);
		r.st[ST_REGRESS].key = NULL;
	}
	/* 5 gate */
	strbuf_reset(&key);
	strbuf_addf(&key, "%s base=%s gate=%s wl=%s pairs=%s dur=%s cl=%s metric=%s regress=%d",
		    cand_key, r.base_prefix, r.gate, r.workloads_csv ? r.workloads_csv : "",
		    r.pairs ? r.pairs : "", r.duration ? r.duration : "", r.clients ? r.clients : "",
		    r.metric ? r.metric : "", r.no_regress ? -1 : r.st[ST_REGRESS].exit);
	/* only when given, so the keys of earlier runs stay valid */
	if (r.cpus)
		strbuf_addf(&key, " cpus=%s", r.cpus);
	if (r.counter)
		strbuf_addf(&key, " counter=%s", r.counter);
	gate_key = xstrdup(key.buf);
	strbuf_reset(&err);
	strbuf_addf(&err, "pgbuild gate --gate '%s'", r.gate);
	rc = stage(&r, ST_GATE, gate_key, err.buf, st_gate);
	if (rc > 2)
		rc = PGBUILD_EXIT_ERROR;
	/* 6 report (a gate that ran to a verdict always gets one) */
	{
		char *json = xasprintf("%s/gate.json", r.workdir);
		if (access(json, R_OK) == 0) {
			char *log;
			strbuf_reset(&key);
			strbuf_addf(&key, "%s html=%s", gate_key, r.html);
			free(r.st[ST_REPORT].key); /* always rewrite: cheap */
			r.st[ST_REPORT].key = NULL;
			if (stage(&r, ST_REPORT, key.buf, "pgbuild report", st_report) == 0) {
				struct strbuf text = STRBUF_INIT;
				log = stage_log(&r, ST_REPORT);
				strbuf_read_file(&text, log);
				fputs(text.buf, stdout);
				printf("\nreport: %s\njunit:  %s/gate.junit.xml\n", r.html, r.workdir);
				strbuf_release(&text);
				free(log);
			}
		}
		free(json);
	}
	goto out;
usage:
	fprintf(stderr, "Try \"pgbuild run --help\" for more information.\n");
	rc = PGBUILD_EXIT_ERROR;
out:
	for (int i = 0; i < ST_NR; i++)
		free(r.st[i].key);
	free(cand_key);
	free(gate_key);
	free(html_alloc);
	free(workdir_alloc);
	free(r.policy_abs);
	free(r.policy_sha);
	free(r.logdir);
	free(r.state_path);
	free(r.base_prefix);
	free(r.base_builddir);
	free(r.cand_prefix);
	free(r.cand_builddir);
	strbuf_release(&key);
	strbuf_release(&err);
	return rc;
}
