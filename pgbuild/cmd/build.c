/*
 * cmd/build.c - `pgbuild build`: its options and their checks; the build
 * itself is build/build.h's phases.
 */
#include <stdio.h>
#include <string.h>

#include "pgbuild/build/build.h"
#include "pgbuild/cmd/cmd.h"

static void build_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild build --policy FILE|none --prefix OUT [options]\n"
"\n"
"Configure, build and install PostgreSQL (and contrib) through pgoptcc with a\n"
"policy, out of tree; then run a smoke benchmark on the fresh install and\n"
"write OUT/pgopt-build.json.  --policy none builds the baseline.\n"
"\n"
"  --src SRC              source directory, tarball, or debian:PACKAGE[=VERSION]\n"
"                         (default %s; fetched once into the cache)\n"
"  --policy FILE|none     the policy (required)\n"
"  --prefix OUT           install prefix (required)\n"
"  --builddir DIR         build directory (default OUT.build); reusing it makes\n"
"                         the build incremental: only objects whose flags the\n"
"                         policy changes are recompiled\n"
"  -j, --jobs N           parallel make jobs (default: number of CPUs)\n"
"  --configure-args ARGS  extra configure arguments (split on blanks)\n"
"  --enable-cassert       assertion-enabled build (--enable-cassert to configure;\n"
"                         recorded as enable_cassert): a candidate for a\n"
"                         stability run\n"
"  --no-contrib           do not build contrib\n"
"  --no-install           build only (no make install, no benchmark)\n"
"  --no-bench             skip the smoke benchmark after install\n"
"  --baseline PREFIX --gate EXPR\n"
"                         (--gate comma-separated and repeatable)\n"
"                         gate the fresh install against PREFIX with\n"
"                         `pgbuild gate` (regression suite included)\n"
"  --gate-args ARGS       more `pgbuild gate` options (split on blanks),\n"
"                         e.g. \"--pairs 6 --duration 5\"\n"
"  -q, --quiet            no progress output\n"
"\n"
"Environment: PGOPT_PREFIX (default ccache when installed), CCACHE_DIR\n"
"(default <cache>/ccache), PGOPT_CC, PGOPT_CACHE_DIR.\n"
"Exit: 0 built (and gate passed), 1 smoke benchmark or gate failed,\n"
"2 could not build, 3 the gate was undecided (--gate-args '--pairs auto').\n",
		BUILD_SOURCE_DEFAULT);
}

static const struct option build_options[] = {
	{ "src", required_argument, NULL, OPT_SRC },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	CLI_OPT_JOBS,
	{ "configure-args", required_argument, NULL, OPT_CONFIGURE_ARGS },
	{ "enable-cassert", no_argument, NULL, OPT_ENABLE_CASSERT },
	{ "no-contrib", no_argument, NULL, OPT_NO_CONTRIB },
	{ "no-install", no_argument, NULL, OPT_NO_INSTALL },
	{ "no-bench", no_argument, NULL, OPT_NO_BENCH },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "gate", required_argument, NULL, OPT_GATE },
	{ "gate-args", required_argument, NULL, OPT_GATE_ARGS },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* Read the options into o.  Returns -1 to go on, else the exit code
 * (0 after --help, 2 after a usage error). */
static int parse_options(struct build_opts *o, struct strbuf *gate, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, build_options)) != -1) {
		switch (c) {
		case OPT_SRC: o->src = optarg; break;
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_PREFIX: o->prefix = optarg; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case 'j':
			if (cli_parse_jobs(optarg, &o->jobs) < 0)
				return cli_usage();
			break;
		case OPT_CONFIGURE_ARGS: o->configure_args = optarg; break;
		case OPT_ENABLE_CASSERT: o->cassert = 1; break;
		case OPT_NO_CONTRIB: o->contrib = 0; break;
		case OPT_NO_INSTALL: o->install = 0; break;
		case OPT_NO_BENCH: o->bench = 0; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_GATE:
			/* repeatable: the thresholds add up */
			strbuf_addf(gate, "%s%s", gate->len ? "," : "", optarg);
			o->gate = gate->buf;
			break;
		case OPT_GATE_ARGS: o->gate_args = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h': build_usage(stdout); return 0;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/* The --set items of --gate-args, checked now as the gate will check
 * them: a refused setting is an error before the build, not after it. */
static int check_gate_args(const char *args)
{
	struct strvec v = STRVEC_INIT, scratch = STRVEC_INIT;
	int rc = 0;

	strvec_split(&v, args);
	for (size_t i = 0; i < v.nr && !rc; i++) {
		if (!strcmp(v.v[i], "--set") && i + 1 < v.nr)
			rc = cli_parse_setting("--gate-args --set", v.v[++i], &scratch);
		else if (!strncmp(v.v[i], "--set=", 6))
			rc = cli_parse_setting("--gate-args --set", v.v[i] + 6, &scratch);
	}
	strvec_clear(&v);
	strvec_clear(&scratch);
	return rc;
}

/* The options that need each other or exclude each other. */
static int check_options(struct build_opts *o)
{
	if (!o->policy)
		return cli_usage_error("--policy is required (a policy file, or \"none\" for the baseline)");
	if (!o->prefix || !*o->prefix)
		return cli_usage_error("--prefix is required");
	if (!o->baseline != !o->gate)
		return cli_usage_error("--baseline and --gate go together");
	if (o->gate_args && !o->gate)
		return cli_usage_error("--gate-args needs --baseline and --gate");
	if (o->gate_args && check_gate_args(o->gate_args) < 0)
		return cli_usage();
	if (o->gate && !o->install)
		return cli_usage_error("--gate needs an install: it cannot be combined with --no-install");
	if (!o->install)
		o->bench = 0;
	return 0;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first build. */
static int check_host(const struct build_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_DIR("--prefix", o->prefix),
		CLI_OUT_DIR("--builddir", o->builddir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

PGBUILD_COMMAND(build, "configure, build and install PostgreSQL through pgoptcc with a policy")
{
	struct build b;
	struct strbuf gate = STRBUF_INIT;
	int rc;

	build_init(&b);
	if ((rc = parse_options(&b.o, &gate, argc, argv)) >= 0 ||
	    (rc = check_host(&b.o)) != 0 || (rc = check_options(&b.o)) != 0) {
		build_finish(&b, -1);
		strbuf_release(&gate);
		return rc;
	}
	rc = PGBUILD_EXIT_ERROR;
	if (build_setup(&b) == 0 && build_configure(&b) == 0 && build_invalidate(&b) == 0 &&
	    build_compile(&b) == 0 && build_install(&b) == 0)
		rc = build_checks(&b);
	build_finish(&b, rc);
	strbuf_release(&gate);
	return rc;
}
