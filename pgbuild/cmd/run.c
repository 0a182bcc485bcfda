/*
 * cmd/run.c - `pgbuild run`: its options and their checks (every one
 * before the first build); the pipeline is pipeline/run.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/pipeline/run.h"

static void run_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild run --policy FILE [--src SRC] [--workdir DIR] [--gate EXPR]\n"
"                   [--html FILE]\n"
"\n"
"The whole pipeline: baseline build (reused when present), candidate build,\n"
"verify, regression suite, the baseline's layout floor, gate, report - one\n"
"progress line per stage.  An interrupted run resumes from the last finished\n"
"stage.\n"
"\n"
"  --policy FILE          the candidate's policy (required)\n"
"  --src SRC              PostgreSQL source: directory, tarball or\n"
"                         debian:PACKAGE[=VERSION] (default debian:postgresql-15)\n"
"  --workdir DIR          builds, logs and results (default ./pgbuild-run)\n"
"  --gate EXPR            thresholds, comma-separated and repeatable (default\n"
"                         '" WORKLOADS_DEFAULT ">=1.00'), e.g.\n"
"                         'select-only>=1.05,tpcb>=1.00'\n"
"  --html FILE            the HTML report (default WORKDIR/report.html)\n"
"  --baseline PREFIX      use this install as the baseline (none is built)\n"
"  --candidate-prefix DIR\n"
"                         install the candidate here\n"
"                         (default WORKDIR/candidate/prefix)\n"
"  --candidate-builddir DIR\n"
"                         build it here (default WORKDIR/candidate/build)\n"
"  -W, --workload LIST    bench workloads, comma-separated and repeatable\n"
"                         (default: those --gate names)\n"
"  --pairs N|auto --budget TIME -T, --duration S -c, --clients N\n"
"  --metric LIST (tps,instructions,cycles)\n"
"  --cpus LIST --counter auto|perf|callgrind\n"
"                         passed to pgbuild gate\n"
"  --noise FILE|none      the baseline's layout floor the gate compares\n"
"                         instructions and cycles at (pgbuild noise); default:\n"
"                         measured here (pgbuild noise --reuse: the baseline's\n"
"                         postgres relinked in shuffled object orders, the\n"
"                         gate's workloads) when --metric has one of them and\n"
"                         the baseline has a build tree: into\n"
"                         BASELINE/pgopt-noise.json when run built it, else\n"
"                         WORKDIR/baseline-noise.json; FILE needs --baseline\n"
"  --noise-variants N     relinked variants of that floor, %d to %d (default %d)\n"
"  -j, --jobs N           make jobs for the builds\n"
"  --configure-args ARGS  extra configure arguments for both builds\n"
"  --no-verify            skip pgbuild verify\n"
"  --no-regress           skip the regression suite (the gate says \"not run\")\n"
"  --restart              ignore the state of an earlier run\n"
"  --weaken LIST          the policy may weaken these hardening classes\n"
"                         (stack-protector, cet, pie, relro, bind-now,\n"
"                         fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
"                         and every record says what was weakened\n"
"  -q, --quiet            only the stage lines and the final report\n"
"\n"
"Every option, the gate's thresholds, the policy, the source and the\n"
"directories the server user must reach (as root) are checked before the first\n"
"build.\n"
"\n"
CLI_EXIT_CODES_HELP
"Here 0 is the gate passed, 1 it failed (or verification failed), 2 a stage\n"
"could not run, 3 the gate was undecided (--pairs auto: its budget ended).\n",
	CLI_NOISE_VARIANTS_MIN, CLI_NOISE_VARIANTS_MAX, CLI_NOISE_VARIANTS);
}

/* The canonical text of --metric (the list so far). */
static char metric_text[64];

static const struct option run_options[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "src", required_argument, NULL, OPT_SRC },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "gate", required_argument, NULL, OPT_GATE },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate-prefix", required_argument, NULL, OPT_CANDIDATE_PREFIX },
	{ "candidate-builddir", required_argument, NULL, OPT_CANDIDATE_BUILDDIR },
	CLI_OPT_WORKLOAD,
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	CLI_OPT_DURATION,
	CLI_OPT_CLIENTS,
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "counter", required_argument, NULL, OPT_COUNTER },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "noise-variants", required_argument, NULL, OPT_VARIANTS },
	CLI_OPT_JOBS,
	{ "configure-args", required_argument, NULL, OPT_CONFIGURE_ARGS },
	{ "no-verify", no_argument, NULL, OPT_NO_VERIFY },
	{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
	{ "restart", no_argument, NULL, OPT_RESTART },
	CLI_OPT_QUIET,
	CLI_OPT_WEAKEN,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* --cpus and --counter go to the gate: checked now, not after the builds. */
static int gate_option(struct run_opts *o, int c, const char *arg)
{
	if (c == OPT_CPUS) {
		cpu_set_t set;
		if (servercpu_parse_cpus(arg, &set) < 0)
			return -1;
		o->cpus = arg;
	} else {
		enum instr_counter counter;
		if (instr_counter_parse(arg, &counter) < 0)
			return error("invalid value \"%s\" for --counter: expected auto, perf or "
				     "callgrind", arg);
		o->counter = arg;
	}
	return 0;
}

/* What the command line gave beyond run_opts (owned). */
struct run_cli {
	struct run_opts o;
	struct strbuf gate;         /* every --gate, joined with "," */
	struct strvec workloads;    /* every -W item */
	char *workloads_csv;        /* the same, joined with "," */
};

/* --gate, -W, --pairs, --budget, -T, -c, --metric: kept as given (the gate stage's
 * key), checked now. */
static int pass_on_option(struct run_cli *r, int c, const char *arg)
{
	struct run_opts *o = &r->o;
	double d;
	int n;

	switch (c) {
	case OPT_GATE:
		strbuf_addf(&r->gate, "%s%s", r->gate.len ? "," : "", arg);
		return 0;
	case 'W':
		return cli_parse_workloads(arg, &r->workloads);
	case OPT_PAIRS:
		o->pairs = arg;
		{
			int is_auto;
			return cli_parse_pairs(arg, &n, &is_auto);
		}
	case OPT_BUDGET:
		o->budget = arg;
		return cli_parse_budget(arg, &d);
	case 'T':
		o->duration = arg;
		return cli_parse_duration(arg, &d);
	case 'c':
		o->clients = arg;
		return cli_parse_clients(arg, &n);
	default: /* OPT_METRIC */
		/* repeatable: the list so far, kept as its canonical text */
		if (cli_parse_metrics(arg, &o->metrics) < 0)
			return -1;
		snprintf(metric_text, sizeof(metric_text), "%s", cli_metrics_text(o->metrics));
		o->metric = metric_text;
		return 0;
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct run_cli *r, int argc, char **argv)
{
	struct run_opts *o = &r->o;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, run_options)) != -1) {
		switch (c) {
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_SRC: o->src = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_HTML: o->html = optarg; break;
		case OPT_BASELINE: o->baseline_prefix = optarg; break;
		case OPT_CANDIDATE_PREFIX: o->cand_prefix_opt = optarg; break;
		case OPT_CANDIDATE_BUILDDIR: o->cand_builddir_opt = optarg; break;
		case OPT_GATE: case 'W': case OPT_PAIRS: case OPT_BUDGET: case 'T': case 'c': case OPT_METRIC:
			if (pass_on_option(r, c, optarg) < 0)
				return cli_usage();
			break;
		case OPT_CPUS: case OPT_COUNTER:
			if (gate_option(o, c, optarg) < 0)
				return cli_usage();
			break;
		case 'j':
			if (cli_parse_jobs(optarg, &o->jobs) < 0)
				return cli_usage();
			break;
		case OPT_NOISE: o->noise = optarg; break;
		case OPT_VARIANTS:
			if (cli_parse_int("--noise-variants", optarg, CLI_NOISE_VARIANTS_MIN,
					  CLI_NOISE_VARIANTS_MAX, &o->noise_variants) < 0)
				return cli_usage();
			break;
		case OPT_CONFIGURE_ARGS: o->configure_args = optarg; break;
		case OPT_NO_VERIFY: o->no_verify = 1; break;
		case OPT_NO_REGRESS: o->no_regress = 1; break;
		case OPT_RESTART: o->restart = 1; break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o->quiet = 1; break;
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (r->gate.len)
		o->gate = r->gate.buf;
	if (r->workloads.nr) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < r->workloads.nr; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", r->workloads.v[i]);
		o->workloads_csv = r->workloads_csv = strbuf_detach(&sb, NULL);
	}
	return -1;
}

/* Is the --html file directly in the --workdir, which run makes? */
static int html_in_workdir(const struct run_opts *o)
{
	char *html, *dir, *slash;
	int yes;

	if (!o->html)
		return 0;
	html = path_absolute(o->html);
	dir = path_absolute(o->workdir);
	slash = strrchr(html, '/');
	yes = slash && (size_t)(slash - html) == strlen(dir) && !strncmp(html, dir, strlen(dir));
	free(html);
	free(dir);
	return yes;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first build. */
static int check_host(const struct run_opts *o)
{
	const struct cli_output outs[] = {
		/* in the work directory: checked with it (made when missing) */
		CLI_OUT_FILE("--html", html_in_workdir(o) ? NULL : o->html),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_DIR("--candidate-prefix", o->cand_prefix_opt),
		CLI_OUT_DIR("--candidate-builddir", o->cand_builddir_opt),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* Every check before the first build: the options together, the gate's
 * thresholds, the policy, the source, the baseline and the directories the
 * server user works in. */
static int check_options(const struct run_opts *o)
{
	char *workdir, *cand_prefix, *cand_builddir;
	int rc;

	if (!o->policy)
		return cli_usage_error("--policy is required");
	if (o->budget && !(o->pairs && !strcmp(o->pairs, "auto")))
		return cli_usage_error("--budget needs --pairs auto");
	if (o->pairs && !strcmp(o->pairs, "auto") && o->metric && !(o->metrics & METRIC_TPS))
		return cli_usage_error("--pairs auto needs --metric tps (alone or in a list)");
	/* the gate expression now, not after an hour of building */
	if (preflight_gate_expr(o->gate, o->metric, NULL) < 0 ||
	    preflight_pairs(o->pairs ? atoi(o->pairs) : 0, o->metric, 0.95,
			    preflight_family(o->gate, NULL, o->workloads_csv, o->noise)) < 0)
		return cli_usage();
	if (preflight_policy("--policy", o->policy, NULL) < 0 || preflight_source(o->src) < 0 ||
	    (o->baseline_prefix && preflight_install("--baseline", o->baseline_prefix) < 0))
		return PGBUILD_EXIT_ERROR;
	if ((rc = noise_floor_check_given(o->noise, o->baseline_prefix, "the baseline",
					  "run measures the baseline's floor")) != 0)
		return rc;
	workdir = path_absolute(o->workdir);
	cand_prefix = o->cand_prefix_opt ? path_absolute(o->cand_prefix_opt) :
		      xasprintf("%s/candidate/prefix", workdir);
	cand_builddir = o->cand_builddir_opt ? path_absolute(o->cand_builddir_opt) :
			xasprintf("%s/candidate/build", workdir);
	{
		const char *dirs[] = { workdir, cand_prefix, cand_builddir, o->baseline_prefix, NULL };
		rc = workdir_server_reach(dirs) < 0 ? PGBUILD_EXIT_ERROR : 0;
	}
	free(workdir);
	free(cand_prefix);
	free(cand_builddir);
	return rc;
}

PGBUILD_COMMAND(run, "whole pipeline: builds, verify, regress, gate, report (resumable)")
{
	struct run_cli r = {
		.o = { .src = "debian:postgresql-15", .workdir = "pgbuild-run",
		       .gate = WORKLOADS_DEFAULT ">=1.00", .noise_variants = CLI_NOISE_VARIANTS },
		.gate = STRBUF_INIT, .workloads = STRVEC_INIT,
	};
	int rc;

	if ((rc = parse_options(&r, argc, argv)) < 0 && (rc = check_host(&r.o)) == 0 &&
	    (rc = check_options(&r.o)) == 0)
		rc = run_pipeline(&r.o);
	strbuf_release(&r.gate);
	strvec_clear(&r.workloads);
	free(r.workloads_csv);
	return rc;
}
