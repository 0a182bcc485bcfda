/*
 * cmd/pgo.c - `pgbuild pgo`: its options and their checks; the build,
 * training and optimized build are profile/pgo.h's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/cluster/workdir.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/profile/pgo.h"

static void pgo_usage(FILE *fp)
{
	fputs("usage: pgbuild pgo [--train W[,W...]] --prefix OUT [--src SRC] [--policy FILE]\n"
	      "                   [options]\n"
	      "\n"
	      "Profile-guided build: an instrumented build, training runs of the\n"
	      "workloads on a private cluster, then a -fprofile-use\n"
	      "-fprofile-partial-training build (with LTO when the policy says so),\n"
	      "checked with PostgreSQL's regression suite.  Profiles stay in the\n"
	      "build directory and are reused; units whose source changed since\n"
	      "training are reported and built without a profile.\n"
	      "\n"
	      "  --src SRC              source directory, tarball or debian:PACKAGE[=VERSION]\n"
	      "                         (default debian:postgresql-15)\n"
	      "  --prefix OUT           install prefix (required)\n"
	      "  --builddir DIR         build directory (default OUT.build)\n"
	      "  --policy FILE          the policy both builds start from (e.g. lto = on)\n"
	      "  --files GLOB           instrument and optimize only these units\n"
	      "                         (policy glob, repeatable but not comma-separated:\n"
	      "                         a glob may hold {a,b}; default the server's:\n"
	      "                         src/backend/** src/pl/** src/timezone/** contrib/**;\n"
	      "                         src/common and src/port are shared with libpq,\n"
	      "                         which must not link libgcov)\n"
	      "  --train LIST           training workloads, comma-separated and repeatable\n"
	      "                         (default " WORKLOADS_TRAIN "); regress: PostgreSQL's\n"
	      "                         core regression suite, installcheck against the\n"
	      "                         training server\n"
	      "  -c, --clients N        training clients (default 2)\n"
	      "  -T, --duration S       seconds per training workload (default 20)\n"
	      "  -s, --scale N          pgbench scale of the training data\n"
	      "  --retrain              train again even when the profiles are current\n"
	      "  --instrument-only      stop after the instrumented build (for\n"
	      "                         pgbuild profile --method gcov); a later run with\n"
	      "                         the same options continues from there\n"
	      "  --no-regress           skip the regression suite\n"
	      "  --baseline PREFIX --gate EXPR\n"
	      "                         gate the result against PREFIX (pgbuild gate;\n"
	      "                         --gate comma-separated and repeatable)\n"
	      "  --pairs N|auto [--budget TIME] --gate-duration S --gate-clients N\n"
	      "                         the gate's pairs (default: the fewest its family\n"
	      "                         of tests can decide with; auto: the sequential\n"
	      "                         gate in --budget), seconds per run and clients\n"
	      "                         (pgbuild gate's --pairs, --budget, -T, -c; here\n"
	      "                         -T and -c are the training's)\n"
	      "  --configure-args ARGS  extra configure arguments of both builds (split on\n"
	      "                         blanks): train on the configuration you ship\n"
	      "  -j, --jobs N           make jobs\n"
	      "  --weaken LIST          the policy may weaken these hardening classes\n"
	      "                         (stack-protector, cet, pie, relro, bind-now,\n"
	      "                         fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
	      "                         and every record says what was weakened\n"
	      "  -q, --quiet            less progress output\n"
	      "\n"
	      "Every option, --gate's thresholds, the policy, the source and the\n"
	      "directories the server user must reach (as root) are checked before the\n"
	      "first build.  Writes OUT/pgopt-pgo.json (stages, workloads, stale units).\n"
	      "\n" CLI_EXIT_CODES_HELP
	      "Here 0 is built and checked, 1 the regression suite or the gate failed,\n"
	      "2 could not build or train, 3 the gate was undecided.\n",
	      fp);
}

static const struct option pgo_options[] = {
	{ "src", required_argument, NULL, OPT_SRC },
	CLI_OPT_PREFIX,
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "configure-args", required_argument, NULL, OPT_CONFIGURE_ARGS },
	CLI_OPT_TRAIN,
	CLI_OPT_CLIENTS,
	CLI_OPT_DURATION,
	CLI_OPT_SCALE,
	{ "retrain", no_argument, NULL, OPT_RETRAIN },
	{ "instrument-only", no_argument, NULL, OPT_INSTRUMENT_ONLY },
	{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "gate", required_argument, NULL, OPT_GATE },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "gate-duration", required_argument, NULL, OPT_GATE_DURATION },
	{ "gate-clients", required_argument, NULL, OPT_GATE_CLIENTS },
	CLI_OPT_JOBS,
	CLI_OPT_QUIET,
	CLI_OPT_WEAKEN,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct pgo_opts *o, struct strbuf *gate, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, pgo_options)) != -1) {
		/* -T and -c are the training's, the gate's are --gate-* */
		int r = prof_run_option(&o->run, c, optarg);
		if (!r && c != 'T' && c != 'c')
			r = stage_gate_option(&o->gate_step, c, optarg);
		if (r < 0)
			return cli_usage();
		if (r > 0)
			continue;
		switch (c) {
		case OPT_SRC: o->src = optarg; break;
		case OPT_PREFIX: o->prefix = optarg; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_CONFIGURE_ARGS: o->configure_args = optarg; break;
		case OPT_FILES:
			if (!*optarg || strchr(optarg, ']') || strchr(optarg, '\n'))
				return cli_usage_error("--files: expected a policy glob, got \"%s\"", optarg);
			strvec_push(&o->files, optarg);
			break;
		case 'j':
			if (cli_parse_jobs(optarg, &o->jobs) < 0)
				return cli_usage();
			break;
		case OPT_RETRAIN: o->retrain = 1; break;
		case OPT_INSTRUMENT_ONLY: o->instrument_only = 1; break;
		case OPT_NO_REGRESS: o->regress = 0; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_GATE:
			/* repeatable: the thresholds add up */
			strbuf_addf(gate, "%s%s", gate->len ? "," : "", optarg);
			o->gate = gate->buf;
			break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o->quiet = 1; break;
		case 'h':
			pgo_usage(stdout);
			return PGBUILD_EXIT_OK;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first build. */
static int check_host(const struct pgo_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_DIR("--prefix", o->prefix),
		CLI_OUT_DIR("--builddir", o->builddir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* Every check before the first build: the options together, the gate's
 * thresholds and pairs, the policy (through pgoptcc), the source, the baseline, and
 * the directories the server user works in (as root: training writes its
 * profiles into the build tree). */
static int check_options(const struct pgo_opts *o)
{
	const struct gate_step *g = &o->gate_step;
	char *prefix, *builddir;
	int r;

	if (!o->prefix)
		return cli_usage_error("--prefix is required");
	if (!o->baseline != !o->gate)
		return cli_usage_error("--baseline and --gate go together");
	if ((g->pairs || g->auto_pairs || g->budget > 0 || g->duration > 0 || g->clients) &&
	    !o->gate)
		return cli_usage_error("--pairs, --budget, --gate-duration and --gate-clients are "
				       "the gate's: add --baseline PREFIX --gate EXPR");
	if (stage_gate_check(g))
		return PGBUILD_EXIT_ERROR;
	/* the gate's thresholds, and enough pairs for their family, now:
	 * not after two builds and the training */
	if (o->gate && (preflight_gate_expr(o->gate, NULL, NULL) < 0 ||
			preflight_pairs(g->pairs, NULL, 0.95,
					preflight_family(o->gate, NULL, NULL, NULL)) < 0))
		return cli_usage();
	if ((o->policy && preflight_policy("--policy", o->policy, NULL) < 0) ||
	    preflight_source(o->src) < 0 ||
	    (o->baseline && preflight_install("--baseline", o->baseline) < 0))
		return PGBUILD_EXIT_ERROR;
	prefix = path_absolute(o->prefix);
	builddir = o->builddir ? path_absolute(o->builddir) : xasprintf("%s.build", prefix);
	{
		const char *dirs[] = { prefix, builddir, o->baseline, NULL };
		r = workdir_server_reach(dirs);
	}
	free(prefix);
	free(builddir);
	return r < 0 ? PGBUILD_EXIT_ERROR : 0;
}

PGBUILD_COMMAND(pgo, "profile-guided build: instrument, train, -fprofile-use, regress")
{
	struct pgo_opts o;
	struct strbuf gate = STRBUF_INIT;
	int rc;

	pgo_opts_init(&o);
	if ((rc = parse_options(&o, &gate, argc, argv)) < 0 && (rc = check_host(&o)) == 0 &&
	    (rc = check_options(&o)) == 0)
		rc = pgo_run(&o);
	pgo_opts_release(&o);
	strbuf_release(&gate);
	return rc;
}
