/*
 * cmd/regress.c - `pgbuild regress`: its options and their checks; the
 * suites (make check, or installcheck against an installed --install) are
 * build/regress.h's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pgbuild/build/regress.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/pipeline/preflight.h"

static void regress_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild regress --builddir DIR [--install DIR [--set NAME=VALUE]]\n"
"                       [--contrib] [--tests \"A B\"] [--user NAME] [--json FILE]\n"
"\n"
"Run PostgreSQL's regression suite (make check) in a build directory made\n"
"by `pgbuild build`, and print a summary.  As root, make runs as --user\n"
"(default postgres), because PostgreSQL's test server refuses to run as\n"
"root, in a test tree of hard links (BUILDDIR/pgopt-check); the build tree\n"
"stays root's.  A crash (signal, PANIC, failed assertion) in the test\n"
"server's log fails the run.\n"
"\n"
"  --builddir DIR   the build directory (required)\n"
"  --install DIR    an installed PostgreSQL of the same source (its bin/, lib/\n"
"                   and share/; e.g. pgbuild bolt's output): installcheck, the\n"
"                   suites (make installcheck) against a private server started\n"
"                   from it, not make check's temporary install; with its own\n"
"                   clients (DIR/bin/psql)\n"
"  --contrib        also run make -C contrib check\n"
"  --tests \"A B\"    run only these core tests (make check-tests; PostgreSQL 15\n"
"                   needs test_setup first)\n"
"  --temp-config F  append F to the test server's postgresql.conf (the\n"
"                   settings bench's --set refuses are refused in F too, read\n"
"                   as the server reads it; a NUL byte or a line it could not\n"
"                   read is refused)\n"
"  --set NAME=VALUE with --install: a setting of the server started for the\n"
"                   suites (repeatable; as bench's --set), e.g. jit=on\n"
"                   jit_above_cost=0 to JIT-compile every query\n"
"  --no-core        skip the core suite (with --contrib)\n"
"  --user NAME      unprivileged user when running as root (default: the server\n"
"                   user of every command, $PGBUILD_SERVER_USER, else postgres)\n"
"  -j, --jobs N     parallel make jobs for contrib (default: CPUs)\n"
"  --json FILE|-    write the summary as JSON\n"
"  -v, --verbose    show make's output\n"
"  -q, --quiet      no progress lines (the test tree, the server, each\n"
"                   suite's make): the summary and errors only\n"
"\n"
CLI_EXIT_CODES_HELP
"Here 0 is all tests passed, 1 a test failed, 2 the suite could not run.\n");
}

static const struct option regress_options[] = {
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	CLI_OPT_INSTALL,
	{ "contrib", no_argument, NULL, OPT_CONTRIB },
	{ "no-core", no_argument, NULL, OPT_NO_CORE },
	{ "user", required_argument, NULL, OPT_USER },
	CLI_OPT_JOBS,
	CLI_OPT_JSON,
	{ "tests", required_argument, NULL, OPT_TESTS },
	{ "temp-config", required_argument, NULL, OPT_TEMP_CONFIG },
	{ "set", required_argument, NULL, OPT_SET },
	CLI_OPT_VERBOSE,
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* -1 to go on, else the exit code (0 after --help).  --set goes into
 * settings (o->settings points at it when there is any). */
static int parse_options(struct regress_opts *o, struct strvec *settings, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, regress_options)) != -1) {
		switch (c) {
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_INSTALL: o->prefix = optarg; break;
		case OPT_CONTRIB: o->contrib = 1; break;
		case OPT_NO_CORE: o->core = 0; break;
		case OPT_USER: o->user = optarg; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_TESTS: o->tests = optarg; break;
		case OPT_TEMP_CONFIG: o->temp_config = optarg; break;
		case OPT_SET:
			if (cli_parse_setting("--set", optarg, settings) < 0)
				return cli_usage();
			o->settings = settings;
			break;
		case 'j':
			if (cli_parse_jobs(optarg, &o->jobs) < 0)
				return cli_usage();
			break;
		case 'v': o->verbose = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': regress_usage(stdout); return 0;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!o->builddir)
		return cli_usage_error("--builddir is required");
	if (!o->core && !o->contrib)
		return cli_usage_error("--no-core without --contrib leaves nothing to run");
	if (o->quiet && o->verbose)
		return cli_usage_error("--quiet and --verbose exclude each other");
	if (o->settings && !o->prefix)
		return cli_usage_error("--set configures installcheck's server (--install); make "
				       "check's temporary server takes --temp-config");
	if (o->prefix && o->temp_config)
		return cli_usage_error("--temp-config configures make check's temporary server; "
				       "--install runs installcheck against a server of its own");
	/* the settings --set refuses, refused in the file too */
	if (o->temp_config && cli_guc_check_file("--temp-config", o->temp_config) < 0)
		return PGBUILD_EXIT_ERROR;
	return -1;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the suite runs. */
static int check_host(const struct regress_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

PGBUILD_COMMAND(regress, "run PostgreSQL's regression suite (make check) on a build")
{
	struct regress_opts o;
	struct strvec settings = STRVEC_INIT;
	char *prefix = NULL;
	int rc;

	regress_opts_init(&o);
	if ((rc = parse_options(&o, &settings, argc, argv)) >= 0 || (rc = check_host(&o)) != 0) {
		strvec_clear(&settings);
		return rc;
	}
	if (o.prefix) {
		if (preflight_install("--install", o.prefix) < 0) {
			strvec_clear(&settings);
			return PGBUILD_EXIT_ERROR;
		}
		prefix = path_absolute(o.prefix);
		o.prefix = prefix;
	}
	rc = regress_run(&o);
	free(prefix);
	strvec_clear(&settings);
	return rc;
}
