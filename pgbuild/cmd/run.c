/*
 * cmd/run.c - `pgbuild run`: its options and their checks (every one
 * before the first build); the pipeline is pipeline/run.h's.
 */
#include <stdio.h>
#include <string.h>

#include "gate/gate.h"
#include "metric/instr.h"
#include "pgbuild.h"
#include "pipeline/run.h"

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
	CLI_OPT_DURATION,
	CLI_OPT_CLIENTS,
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "counter", required_argument, NULL, OPT_COUNTER },
	CLI_OPT_JOBS,
	{ "configure-args", required_argument, NULL, OPT_CONFIGURE_ARGS },
	{ "no-verify", no_argument, NULL, OPT_NO_VERIFY },
	{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
	{ "restart", no_argument, NULL, OPT_RESTART },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* --cpus and --counter go to the gate: checked now, not after the builds. */
static int gate_option(struct run_opts *o, int c, const char *arg)
{
	if (c == OPT_CPUS) {
		cpu_set_t set;
		if (!*arg)
			return error("invalid value \"\" for --cpus: expected a list like 0-1,3");
		if (gate_parse_cpus(arg, &set) < 0)
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

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct run_opts *o, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, run_options)) != -1) {
		switch (c) {
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_SRC: o->src = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_GATE: o->gate = optarg; break;
		case OPT_HTML: o->html = optarg; break;
		case OPT_BASELINE: o->baseline_prefix = optarg; break;
		case OPT_CANDIDATE_PREFIX: o->cand_prefix_opt = optarg; break;
		case OPT_CANDIDATE_BUILDDIR: o->cand_builddir_opt = optarg; break;
		case 'W': o->workloads_csv = optarg; break;
		case OPT_PAIRS: o->pairs = optarg; break;
		case 'T': o->duration = optarg; break;
		case 'c': o->clients = optarg; break;
		case OPT_METRIC: o->metric = optarg; break;
		case OPT_CPUS: case OPT_COUNTER:
			if (gate_option(o, c, optarg) < 0)
				return cli_usage();
			break;
		case 'j':
			if (cli_parse_jobs(optarg, &o->jobs) < 0)
				return cli_usage();
			break;
		case OPT_CONFIGURE_ARGS: o->configure_args = optarg; break;
		case OPT_NO_VERIFY: o->no_verify = 1; break;
		case OPT_NO_REGRESS: o->no_regress = 1; break;
		case OPT_RESTART: o->restart = 1; break;
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
	return -1;
}

static int check_options(const struct run_opts *o)
{
	struct gate_thresholds th = { 0 };
	struct strbuf err = STRBUF_INIT;
	int bad;

	if (!o->policy)
		return cli_usage_error("--policy is required");
	/* the gate expression now, not after an hour of building */
	bad = gate_expr_parse(&th, o->gate, &err) < 0;
	gate_thresholds_clear(&th);
	if (bad) {
		cli_usage_error("invalid value \"%s\" for --gate: %s", o->gate, err.buf);
		strbuf_release(&err);
		return PGBUILD_EXIT_ERROR;
	}
	strbuf_release(&err);
	return 0;
}

PGBUILD_COMMAND(run, "the whole pipeline: builds, verify, regress, gate, report (resumable)")
{
	struct run_opts o = {
		.src = "debian:postgresql-15", .workdir = "pgbuild-run", .gate = "select-only>=1.00",
	};
	int rc;

	if ((rc = parse_options(&o, argc, argv)) >= 0)
		return rc;
	if ((rc = check_options(&o)) != 0)
		return rc;
	return run_pipeline(&o);
}
