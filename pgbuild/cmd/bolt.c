/*
 * cmd/bolt.c - `pgbuild bolt`: its options and their checks; instrument,
 * train, optimize and the regression suite are bolt/bolt.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pipeline/preflight.h"
#include "wrapper/common/textfile.h"

static void bolt_usage(FILE *fp)
{
	fputs("usage: pgbuild bolt --install IN --prefix OUT [options]\n"
	      "\n"
	      "Post-link layout optimization of an installed build with LLVM BOLT 15:\n"
	      "instrument IN/bin/postgres, train it on the workloads on a private cluster,\n"
	      "rewrite it with the profile into OUT (a new prefix: a copy of IN with the\n"
	      "rewritten postgres; never IN itself), and run PostgreSQL's regression suite\n"
	      "(installcheck from IN's build tree) against a server from OUT.  IN must be\n"
	      "BOLT-ready: built with a policy that has \"bolt = ready\" in [global].\n"
	      "The profile is kept in the work directory and reused while IN's postgres\n"
	      "and the training are the same; otherwise it is trained again, with one\n"
	      "line saying why.  OUT/pgopt-build.json gets a \"bolt\" object (profile,\n"
	      "coverage, BOLT's dyno-stats, times, the suite's result).\n"
	      "\n"
	      "  --install IN           an installed PostgreSQL, BOLT-ready: its bin/, lib/\n"
	      "                         and share/ (required; never written)\n"
	      "  --prefix OUT           where the result is installed (required); an OUT\n"
	      "                         that exists must be an earlier output of pgbuild\n"
	      "                         bolt (replaced)\n"
	      "  --workdir DIR          profile, manifest and logs (default OUT.bolt)\n"
	      "  --profile FILE         use this profile (.fdata) instead of training;\n"
	      "                         refused when its manifest FILE.json says it was\n"
	      "                         trained on another binary (or other --train)\n"
	      "  --retrain              train again even when the kept profile is current\n"
	      "  --train LIST           training workloads, comma-separated and repeatable\n"
	      "                         (default " WORKLOADS_TRAIN "), run in one server session;\n"
	      "                         regress: PostgreSQL's core regression suite, which\n"
	      "                         needs IN's build tree (--builddir or its record)\n"
	      "  -T, --duration S       seconds per training workload (default 5)\n"
	      "  -c, --clients N        training clients (default 2)\n"
	      "  -s, --scale N          pgbench scale of the training data (default 1)\n"
	      "  --set NAME=VALUE       another server setting of the training (repeatable;\n"
	      "                         as bench's --set)\n"
	      "  --builddir DIR         IN's build tree, for the suite (default: the one\n"
	      "                         IN/pgopt-build.json records)\n"
	      "  --contrib              also contrib's installcheck\n"
	      "  --no-regress           skip the suite (the result is then not checked)\n"
	      "  --bolt DIR             where llvm-bolt is (default $PGBUILD_BOLT, else\n"
	      "                         " BOLT_DEFAULT_DIR ", Debian's " BOLT_PACKAGE ")\n"
	      "  --bolt-flags FLAGS     llvm-bolt's layout flags of the rewrite, one\n",
	      fp);
	/* the default flags are longer than a line: the rest is wrapped under
	 * the column */
	text_wrap(fp, 80, 25, 25,
		  "argument (default \"" BOLT_OPTIMIZE_FLAGS "\"); the profile does not "
		  "depend on them (it is reused); an allow-list of layout options: none "
		  "that reads or writes a file, prints or takes a library; -plt=hot needs "
		  "IN linked with -z now");
	fputs("  --force                replace an OUT that is an installed PostgreSQL\n"
	      "  --json FILE|-          also write the \"bolt\" object to FILE\n"
	      "  -j, --jobs N           make jobs of the suite\n"
	      "  -q, --quiet            no progress lines\n"
	      "\n"
	      "Every option, BOLT, IN's readiness, OUT, the profile and the build tree are\n"
	      "checked before the first step.\n\n"
	      CLI_EXIT_CODES_HELP
	      "Here 0 is rewritten and the suite passed (or --no-regress), 1 the suite\n"
	      "failed, 2 could not instrument, train or rewrite.\n",
	      fp);
}

static const struct option bolt_options[] = {
	CLI_OPT_INSTALL,
	CLI_OPT_PREFIX,
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "retrain", no_argument, NULL, OPT_RETRAIN },
	CLI_OPT_TRAIN,
	CLI_OPT_DURATION,
	CLI_OPT_CLIENTS,
	CLI_OPT_SCALE,
	{ "set", required_argument, NULL, OPT_SET },
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	{ "contrib", no_argument, NULL, OPT_CONTRIB },
	{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
	{ "bolt", required_argument, NULL, OPT_BOLT },
	{ "bolt-flags", required_argument, NULL, OPT_BOLT_FLAGS },
	{ "force", no_argument, NULL, OPT_FORCE },
	CLI_OPT_JSON,
	CLI_OPT_JOBS,
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The shared vocabulary's values; 1 when c was one, 0 not, -1 bad. */
static int parse_shared(struct bolt_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_TRAIN:
		o->workloads_given = 1;
		return cli_parse_training(arg, &o->workloads) < 0 ? -1 : 1;
	case 'T': return cli_parse_duration(arg, &o->duration) < 0 ? -1 : 1;
	case 'c': return cli_parse_clients(arg, &o->clients) < 0 ? -1 : 1;
	case 's': return cli_parse_scale(arg, &o->scale) < 0 ? -1 : 1;
	case 'j': return cli_parse_jobs(arg, &o->jobs) < 0 ? -1 : 1;
	case OPT_SET: return cli_parse_setting("--set", arg, &o->settings) < 0 ? -1 : 1;
	default: return 0;
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct bolt_opts *o, int argc, char **argv)
{
	int c, r;

	optind = 1;
	while ((c = cli_getopt(argc, argv, bolt_options)) != -1) {
		if ((r = parse_shared(o, c, optarg)) < 0)
			return cli_usage();
		if (r > 0)
			continue;
		switch (c) {
		case OPT_INSTALL: o->install = optarg; break;
		case OPT_PREFIX: o->prefix = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_PROFILE: o->profile = optarg; break;
		case OPT_RETRAIN: o->retrain = 1; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_CONTRIB: o->contrib = 1; break;
		case OPT_NO_REGRESS: o->regress = 0; break;
		case OPT_BOLT: o->bolt_dir = optarg; break;
		case OPT_BOLT_FLAGS:
			if (bolt_check_flags("--bolt-flags", optarg) < 0)
				return cli_usage();
			o->flags = optarg;
			break;
		case OPT_FORCE: o->force = 1; break;
		case OPT_JSON: o->json = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h': bolt_usage(stdout); return PGBUILD_EXIT_OK;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first step. */
static int check_host(const struct bolt_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_DIR("--prefix", o->prefix),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* The options together (the rest is bolt_prepare's). */
static int check_options(struct bolt_opts *o)
{
	if (!o->install)
		return cli_usage_error("--install is required (the BOLT-ready install)");
	if (!o->prefix)
		return cli_usage_error("--prefix is required (the new prefix BOLT's output goes into)");
	if (o->profile && o->retrain)
		return cli_usage_error("--profile and --retrain exclude each other: a given "
				       "profile is never trained");
	if (o->contrib && !o->regress)
		return cli_usage_error("--contrib and --no-regress exclude each other");
	if (!o->workloads.nr)
		workloads_push(&o->workloads, WL_TRAIN);
	if (preflight_install("--install", o->install) < 0)
		return PGBUILD_EXIT_ERROR;
	return 0;
}

PGBUILD_COMMAND(bolt, "LLVM BOLT: instrument, train, rewrite into a new prefix, regress")
{
	struct bolt_opts o;
	struct bolt_run b;
	int rc;

	bolt_opts_init(&o);
	memset(&b, 0, sizeof(b));
	if ((rc = parse_options(&o, argc, argv)) < 0 && (rc = check_host(&o)) == 0 &&
	    (rc = check_options(&o)) == 0) {
		if (bolt_prepare(&b, &o) < 0)
			rc = PGBUILD_EXIT_ERROR;
		else
			rc = bolt_run_all(&b);
	}
	bolt_release(&b);
	bolt_opts_release(&o);
	return rc;
}
