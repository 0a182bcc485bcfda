/*
 * cmd/noise.c - `pgbuild noise`: its options and their checks; the
 * variants and their measurement are noise/noise.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/pipeline/preflight.h"

static void noise_usage(FILE *fp)
{
	fputs("usage: pgbuild noise --install DIR [options]\n"
	      "\n"
	      "The layout noise floor of one build: N variants of its postgres, relinked\n"
	      "(not recompiled) from the link its build tree's compile log recorded with\n"
	      "the object files in seeded shuffled orders, each in a copy of the prefix at\n"
	      "a path of the same length (WORKDIR/v01/prefix, ...), each measured like\n"
	      "`pgbuild gate --metric instructions,cycles` measures a build (single-user\n"
	      "runs, N and 10N transactions differenced).  Per workload and metric: the\n"
	      "mean, the standard deviation and the range over the variants, the last two\n"
	      "also in percent of the mean: a table on stdout and a JSON document.  With\n"
	      "LTO every relink is a full LTO link (minutes per variant).  `pgbuild gate`\n"
	      "and `pgbuild tune` take the install's pgopt-noise.json as the floor of\n"
	      "this build (--noise; as a candidate's, its own side of the comparison):\n"
	      "instructions and cycles decided at max(repeat resolution,\n"
	      "1.96 x sqrt(a^2 + b^2)), a and b the 95% chi-square bounds of both builds'\n"
	      "SDs (pgbuild gate).  A floor needs at least 5 variants.\n"
	      "\n"
	      "  --install DIR          an installed PostgreSQL, the build's: its bin/, lib/\n"
	      "                         and share/, never written but for the result\n"
	      "                         below (required)\n"
	      "  --builddir DIR         its build tree (default: the one the install's\n"
	      "                         pgopt-build.json records), whose linked postgres\n"
	      "                         must be the install's\n"
	      "  --variants N           relinked variants, " CLI_NOISE_VARIANTS_RANGE "\n"
	      "  --seed S               seed of the object orders (default 1)\n"
	      "  -W, --workload LIST    workloads, comma-separated and repeatable (default\n"
	      "                         select-only; those `pgbuild bench -b list` marks c)\n"
	      "  --metric LIST          instructions, cycles or instructions,cycles\n"
	      "                         (default instructions,cycles)\n"
	      "  --instr-statements N   transactions N of the short run (10N in the long\n"
	      "                         one; default per workload)\n"
	      "  --workdir DIR          the variants and their runs (default: the install's\n"
	      "                         directory with .noise added)\n"
	      "  --json FILE|-          the result (default: pgopt-noise.json in the install)\n"
	      "  --reuse                measure nothing when the --json file already is a\n"
	      "                         floor of the install's bin/postgres with every workload\n"
	      "                         and metric asked, over at least --variants variants\n"
	      "  -q, --quiet            no progress lines\n"
	      "\n"
	      CLI_EXIT_CODES_HELP
	      "Here 0 is measured (or reused), 2 could not relink or measure (no\n"
	      "recorded link, a variant valgrind cannot run).\n", fp);
}

static const struct option noise_options[] = {
	CLI_OPT_INSTALL,
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	{ "variants", required_argument, NULL, OPT_VARIANTS },
	{ "seed", required_argument, NULL, OPT_SEED },
	CLI_OPT_WORKLOAD,
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "instr-statements", required_argument, NULL, OPT_INSTR_STATEMENTS },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	CLI_OPT_JSON,
	{ "reuse", no_argument, NULL, OPT_REUSE },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The options with a value to check; 1 when c was one, 0 not, -1 bad. */
static int parse_value(struct noise_opts *o, int c, const char *arg)
{
	int n;
	int64_t s;
	switch (c) {
	case OPT_VARIANTS:
		if (cli_parse_int("--variants", arg, CLI_NOISE_VARIANTS_MIN, CLI_NOISE_VARIANTS_MAX, &n) < 0)
			return -1;
		o->variants = n;
		return 1;
	case OPT_SEED:
		if (cli_parse_int64("--seed", arg, 0, INT64_MAX, &s) < 0)
			return -1;
		o->seed = (uint64_t)s;
		return 1;
	case OPT_INSTR_STATEMENTS:
		if (cli_parse_int("--instr-statements", arg, 1, 100000000, &n) < 0)
			return -1;
		o->statements = n;
		return 1;
	case OPT_METRIC: {
		/* the deterministic metrics only */
		unsigned m = 0;
		if (cli_parse_metrics(arg, &m) < 0)
			return -1;
		if (m & ~metrics_deterministic())
			return error("--metric %s: the noise floor is of the deterministic metrics "
				     "(expected instructions, cycles or instructions,cycles)", arg);
		o->metrics |= m;
		return 1;
	}
	case 'W': return cli_parse_workloads(arg, &o->workloads) < 0 ? -1 : 1;
	default: return 0;
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct noise_opts *o, int argc, char **argv)
{
	int c, r;

	optind = 1;
	while ((c = cli_getopt(argc, argv, noise_options)) != -1) {
		if ((r = parse_value(o, c, optarg)) < 0)
			return cli_usage();
		if (r > 0)
			continue;
		switch (c) {
		case OPT_INSTALL: o->prefix = optarg; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_REUSE: o->reuse = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': noise_usage(stdout); return PGBUILD_EXIT_OK;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/* The options together, and the outputs before the first relink. */
static int check_options(struct noise_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_END
	};
	if (!o->prefix)
		return cli_usage_error("--install is required (the build's installed PostgreSQL)");
	if (o->reuse && result_is_stdout(o->json))
		return cli_usage_error("--reuse reads the floor back from the --json file: not "
				       "with --json - (the standard output)");
	if (!o->metrics)
		o->metrics = metrics_deterministic();
	if (!o->workloads.nr)
		workloads_push(&o->workloads, WL_DEFAULT);
	for (size_t i = 0; i < o->workloads.nr; i++)
		if (!single_supported(o->workloads.v[i]))
			return cli_usage_error("-W %s: no single-user script (expected %s)",
					       o->workloads.v[i], SINGLE_WORKLOADS);
	if (cli_check_outputs(outs) < 0 || preflight_install("--install", o->prefix) < 0)
		return PGBUILD_EXIT_ERROR;
	return 0;
}

PGBUILD_COMMAND(noise, "the layout noise floor: per-metric spread over relinked variants")
{
	struct noise_opts o;
	int rc;

	noise_opts_init(&o);
	if ((rc = parse_options(&o, argc, argv)) < 0 && (rc = check_options(&o)) == 0)
		rc = noise_run(&o);
	noise_opts_release(&o);
	return rc;
}
