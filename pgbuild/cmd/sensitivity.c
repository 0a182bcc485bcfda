/*
 * cmd/sensitivity.c - `pgbuild sensitivity`: its options and their checks;
 * the builds and gates are tune/sensitivity.h's.
 */
#include <stdio.h>
#include <string.h>

#include "pgbuild/cmd/cmd.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/tune/sensitivity.h"

static void sens_usage(FILE *fp)
{
	fputs("usage: pgbuild sensitivity --workload W[,W...] [--src SRC] [--workdir DIR]\n"
	      "                           [options]\n"
	      "\n"
	      "Build the source at a low (-O0) and a high (-O3) optimization level\n"
	      "and measure the high build against the low one on the workload(s):\n"
	      "how much can compiler flags matter for this workload at all?\n"
	      "\n"
	      "  --src SRC              PostgreSQL source (default debian:postgresql-15)\n"
	      "  --workdir DIR          builds and results (default ./pgbuild-sensitivity)\n"
	      "  -W, --workload LIST    bench workloads, comma-separated and repeatable\n"
	      "                         (default " WORKLOADS_DEFAULT ")\n"
	      "  --low FLAGS            low watermark flags (default -O0)\n"
	      "  --high FLAGS           high watermark flags (default -O3)\n"
	      "  --low-install DIR --high-install DIR\n"
	      "                         use these installed PostgreSQLs (their bin/, lib/\n"
	      "                         and share/) instead of building\n"
	      "  --baseline PREFIX      also place this (stock) build between them\n"
	      "  --metric LIST          what pgbuild gate measures: tps, instructions,\n"
	      "                         cycles (a list; default tps)\n"
	      "  --pairs N -T, --duration S -c, --clients N   passed to pgbuild gate\n"
	      "  --json FILE|-          the watermarks as JSON\n"
	      "  -j, --jobs N           make jobs for the builds\n"
	      "  --weaken LIST          the policy may weaken these hardening classes\n"
	      "                         (stack-protector, cet, pie, relro, bind-now,\n"
	      "                         fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
	      "                         and every record says what was weakened\n"
	      "  -q, --quiet            less progress output\n"
	      "\n"
	      CLI_EXIT_CODES_HELP
	      "Here 0 is measured, 2 could not build or measure.\n"
	      "Every option, the installs and the source are checked before the first build.\n",
	      fp);
}

/* The canonical text of --metric (the list so far). */
static char metric_text[64];

static const struct option sens_options[] = {
	{ "src", required_argument, NULL, OPT_SRC },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	CLI_OPT_WORKLOAD,
	{ "low", required_argument, NULL, OPT_LOW },
	{ "high", required_argument, NULL, OPT_HIGH },
	{ "low-install", required_argument, NULL, OPT_LOW_INSTALL },
	{ "high-install", required_argument, NULL, OPT_HIGH_INSTALL },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	CLI_OPT_DURATION,
	CLI_OPT_CLIENTS,
	CLI_OPT_JSON,
	CLI_OPT_JOBS,
	CLI_OPT_QUIET,
	CLI_OPT_WEAKEN,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The options with a number: 0, or -1 after the error. */
static int number_option(struct sens_opts *o, int c, const char *arg)
{
	int r;

	if (c == OPT_PAIRS)     /* a fixed number of pairs here: no auto */
		return cli_parse_pairs(arg, &o->gate.pairs, NULL);
	r = stage_gate_option(&o->gate, c, arg);
	if (r)
		return r < 0 ? -1 : 0;
	switch (c) {
	case 'W':
		return cli_parse_workloads(arg, &o->workloads);
	default: /* 'j' */
		return cli_parse_jobs(arg, &o->jobs);
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct sens_opts *o, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, sens_options)) != -1) {
		switch (c) {
		case OPT_SRC: o->src = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_LOW: o->low = optarg; break;
		case OPT_HIGH: o->high = optarg; break;
		case OPT_LOW_INSTALL: o->low_prefix = optarg; break;
		case OPT_HIGH_INSTALL: o->high_prefix = optarg; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_METRIC:
			if (cli_parse_metrics(optarg, &o->metrics) < 0)
				return cli_usage();
			snprintf(metric_text, sizeof(metric_text), "%s", cli_metrics_text(o->metrics));
			o->metric = metric_text;
			break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o->quiet = 1; break;
		case OPT_PAIRS: case 'T': case 'c': case 'j': case 'W':
			if (number_option(o, c, optarg) < 0)
				return cli_usage();
			break;
		case 'h':
			sens_usage(stdout);
			return PGBUILD_EXIT_OK;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!*o->low || !*o->high)
		return cli_usage_error("--low/--high: expected flags, got \"\"");
	if (!o->workloads.nr)
		workloads_push(&o->workloads, WL_DEFAULT);
	return -1;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first build. */
static int check_host(const struct sens_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* Every check before the first build (preflight.h's, as run and tune):
 * the gate's pairs, the installs given, and the source when a watermark
 * is built.  0, or the exit code after the error. */
static int check_options(const struct sens_opts *o)
{
	/* the gate's default threshold (tps not slower) on each workload */
	if (preflight_pairs(o->gate.pairs, o->metric, 0.95,
			    preflight_family("tps>=1", &o->workloads, NULL, NULL)) < 0)
		return cli_usage();
	if ((o->low_prefix && preflight_install("--low-install", o->low_prefix) < 0) ||
	    (o->high_prefix && preflight_install("--high-install", o->high_prefix) < 0) ||
	    (o->baseline && preflight_install("--baseline", o->baseline) < 0) ||
	    ((!o->low_prefix || !o->high_prefix) && preflight_source(o->src) < 0))
		return PGBUILD_EXIT_ERROR;
	return 0;
}

PGBUILD_COMMAND(sensitivity, "how much flags can matter for a workload (-O0 vs -O3 watermarks)")
{
	struct sens_opts o = { .workdir = "pgbuild-sensitivity", .low = "-O0", .high = "-O3" };
	int rc;

	strvec_init(&o.workloads);
	if ((rc = parse_options(&o, argc, argv)) < 0 && (rc = check_host(&o)) == 0 &&
	    (rc = check_options(&o)) == 0)
		rc = sens_run(&o);
	strvec_clear(&o.workloads);
	return rc;
}
