/*
 * cmd/verify.c - `pgbuild verify`: its options and their checks; the check
 * itself is build/verify.h's.
 */
#include <stdio.h>

#include "pgbuild/build/verify.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/elf/elfrec.h"

static void verify_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild verify --install DIR [--policy FILE|none] [--baseline PREFIX]\n"
"                      [--allow-unmatched]\n"
"       pgbuild verify --log DIR --builddir DIR [--binary PATH]\n"
"                      [--policy FILE|none] [--allow-unmatched]\n"
"\n"
"Check that every object in the install's bin/postgres carries exactly the\n"
"flags its policy assigns (from the pgopt.so records inside the binary, which\n"
"survive LTO), and with --baseline show per-function size changes.  With\n"
"--log, the same for any build through pgoptcc (a package build): every\n"
"program and shared library linked in --builddir.  A policy section that\n"
"matched no translation unit the build compiled fails it too (UNMATCHED\n"
"FILE:LINE).\n"
"\n"
"  --install DIR      an installed PostgreSQL made by `pgbuild build`: its\n"
"                     bin/postgres, and the record pgopt-build.json\n"
"  --log DIR          instead: the log directory pgoptcc wrote (its\n"
"                     --pgopt-logdir or PGOPT_LOGDIR) during any build\n"
"  --builddir DIR     the build directory (with --install, default: from\n"
"                     pgopt-build.json; required with --log)\n"
"  --binary PATH      with --log: check only this link output (relative to\n"
"                     --builddir or absolute)\n"
"  --policy FILE|none the policy to check against (default: the one the build\n"
"                     used: the install's pgopt-build.json's, or the one the\n"
"                     log's compiles record, only while the file still holds the\n"
"                     text the build read: its sha256 the one recorded)\n"
"  --baseline PREFIX  compare function and text sizes with PREFIX/bin/postgres\n"
"                     (with --log: PREFIX/bin/NAME for each binary NAME)\n"
"                     (hot/unlikely code counted per function: the section\n"
"                     each record names, plus split .cold parts)\n"
"  --debug-dir DIR    read the records of a binary that holds none from its\n"
"                     side file DIR/.build-id/XX/REST.pgopt (its build-id), else\n"
"                     its debug file REST.debug if that holds them (rpm's)\n"
"  --top N            functions listed as top growth/shrink (default 10)\n"
"  --allow-unmatched  a policy section ([global] aside) that matched no\n"
"                     translation unit of the build is a warning, not a\n"
"                     failure (a policy shared between source versions)\n"
"  -v, --verbose      also list every object checked\n"
"  -q, --quiet        only the findings (MISSING, EXTRA, UNMATCHED ...) and a\n"
"                     FAILED verdict: a verified build prints nothing (with\n"
"                     --baseline, the size lines still)\n"
"\n"
"The replays ask the caller's compiler: PGOPT_CC, default gcc on PATH; the one\n"
"the log or record names is only compared.  Of the record's environment only\n"
"PGOPT_PROFILE and PGOPT_BUNDLE are used, checked; any other name is ignored\n"
"with a warning.  As root, --log must be a directory only root can write.\n"
"\n"
CLI_EXIT_CODES_HELP
"Here 0 is verified, 1 a mismatch or an unmatched section.\n");
}

static const struct option verify_options[] = {
	CLI_OPT_INSTALL,
	{ "log", required_argument, NULL, OPT_LOG },
	{ "binary", required_argument, NULL, OPT_BINARY },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "allow-unmatched", no_argument, NULL, OPT_ALLOW_UNMATCHED },
	CLI_OPT_VERBOSE,
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct verify_opts *o, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, verify_options)) != -1) {
		switch (c) {
		case OPT_INSTALL: o->prefix = optarg; break;
		case OPT_LOG: o->logdir = optarg; break;
		case OPT_BINARY: o->binary = optarg; break;
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_DEBUG_DIR: elfrec_set_debug_dir(optarg); break;
		case OPT_ALLOW_UNMATCHED: o->allow_unmatched = 1; break;
		case OPT_TOP:
			if (cli_parse_int("--top", optarg, 0, 100000, &o->top) < 0)
				return cli_usage();
			break;
		case 'v': o->verbose = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': verify_usage(stdout); return 0;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!o->prefix && !o->logdir)
		return cli_usage_error("--install DIR or --log DIR is required");
	if (o->prefix && o->logdir)
		return cli_usage_error("--install and --log exclude each other (--log checks the "
				       "binaries of the build tree)");
	if (o->logdir && !o->builddir)
		return cli_usage_error("--log needs --builddir DIR (the build tree of the build "
				       "that logged there)");
	if (o->binary && !o->logdir)
		return cli_usage_error("--binary goes with --log");
	if (o->quiet && o->verbose)
		return cli_usage_error("--quiet and --verbose exclude each other");
	return -1;
}

PGBUILD_COMMAND(verify, "check that postgres carries exactly the policy's flags; size diff")
{
	struct verify_opts o = VERIFY_OPTS_INIT;
	int rc;

	if ((rc = parse_options(&o, argc, argv)) >= 0)
		return rc;
	return verify_run(&o);
}
