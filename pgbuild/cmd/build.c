/*
 * cmd/build.c - `pgbuild build`: its options and their checks; the build
 * itself is build/build.h's phases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/build.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/cmd/cmd.h"

static void build_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild build --policy FILE|none --prefix OUT [options]\n"
"\n"
"Configure, build and install PostgreSQL (and contrib) through pgoptcc with a\n"
"policy, out of tree; then run a smoke benchmark on the fresh install and\n"
"write OUT/pgopt-build.json.  --policy none builds the baseline.  At the end,\n"
"a warning for each policy section that matched no translation unit the build\n"
"compiled (FILE:LINE and its glob): `pgbuild verify` fails on those.\n"
"\n"
"  --src SRC              source directory, tarball, or debian:PACKAGE[=VERSION]\n"
"                         (default %s;\n"
"                         fetched once into the cache)\n"
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
"  --bundle DIR           compile with the PGO profiles of the profile bundle\n"
"                         DIR (pgbuild bundle create; pgoptcc's PGOPT_BUNDLE,\n"
"                         kept in the record): a profile-guided build without\n"
"                         training; after make, `pgbuild bundle check` weighs\n"
"                         what GCC used (BUILDDIR/pgopt-bundle-check.json)\n"
"  --min-applies PCT      with --bundle: below PCT%% of the profile's weight\n"
"                         used, the build fails (exit 1) before it installs\n"
"                         (default 90)\n"
"  --baseline PREFIX --gate EXPR\n"
"                         (--gate comma-separated and repeatable)\n"
"                         gate the fresh install against PREFIX with\n"
"                         `pgbuild gate` (regression suite included)\n"
"  --gate-args ARGS       more `pgbuild gate` options (split on blanks),\n"
"                         e.g. \"--pairs 6 --duration 5\"; checked by the\n"
"                         gate's own parser before the build\n"
"  --weaken LIST          the policy may weaken these hardening classes\n"
"                         (stack-protector, cet, pie, relro, bind-now,\n"
"                         fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
"                         and every record says what was weakened\n"
"  -q, --quiet            no progress output\n"
"\n"
"Environment: PGOPT_PREFIX (default ccache when installed), CCACHE_DIR\n"
"(default <cache>/ccache), PGOPT_CC, PGOPT_CACHE_DIR.\n"
"\n" CLI_EXIT_CODES_HELP
"Here 0 is built (and the gate passed), 1 the smoke benchmark or the gate\n"
"failed, or the bundle's profile did not apply (--min-applies), 2 could not\n"
"build, 3 the gate was undecided (--gate-args '--pairs auto').\n",
		BUILD_SOURCE_DEFAULT);
}

static const struct option build_options[] = {
	{ "src", required_argument, NULL, OPT_SRC },
	{ "policy", required_argument, NULL, OPT_POLICY },
	CLI_OPT_PREFIX,
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
	{ "bundle", required_argument, NULL, OPT_BUNDLE },
	{ "min-applies", required_argument, NULL, OPT_MIN_APPLIES },
	CLI_OPT_QUIET,
	CLI_OPT_WEAKEN,
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
		case OPT_BUNDLE:
			free(o->bundle);
			o->bundle = path_absolute(optarg);
			break;
		case OPT_MIN_APPLIES:
			if (cli_parse_number("--min-applies", optarg, 0, 100, &o->min_applies) < 0)
				return cli_usage();
			break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o->quiet = 1; break;
		case 'h': build_usage(stdout); return 0;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/*
 * The gate's options, --gate-args among them, checked now by the gate's
 * own parser and checks (cmd_gate_check) as build/build.c's run_gate will
 * give them: a bad value (--pairs 3, a --set that opens the cluster), an
 * unknown option or too few pairs for the thresholds is the gate's error
 * before the build, not after it.  The candidate is not built yet: the
 * baseline stands in for it; --require-regress's directory is not made
 * yet either (only its presence counts here).  0, or the exit code.
 */
static int check_gate(const struct build_opts *o)
{
	struct strvec args = STRVEC_INIT;
	int rc;

	strvec_pushl(&args, "gate", "--baseline", o->baseline, "--candidate", o->baseline,
		     "--gate", o->gate, "--require-regress", o->builddir ? o->builddir : o->prefix,
		     NULL);
	if (o->gate_args)
		strvec_split(&args, o->gate_args);
	rc = cmd_gate_check((int)args.nr, args.v);
	strvec_clear(&args);
	return rc;
}

/* The options that need each other or exclude each other. */
static int check_options(struct build_opts *o)
{
	int rc;

	if (!o->policy)
		return cli_usage_error("--policy is required (a policy file, or \"none\" for the baseline)");
	if (!o->prefix || !*o->prefix)
		return cli_usage_error("--prefix is required");
	if (!o->baseline != !o->gate)
		return cli_usage_error("--baseline and --gate go together");
	if (o->gate_args && !o->gate)
		return cli_usage_error("--gate-args needs --baseline and --gate");
	if (o->gate && !o->install)
		return cli_usage_error("--gate needs an install: it cannot be combined with --no-install");
	if (o->gate && (rc = check_gate(o)) != 0)
		return rc;
	if (!o->install)
		o->bench = 0;
	if (o->bundle) {
		/* its files against its manifest, before anything is built */
		struct json_value *m = bundle_open(o->bundle);
		int pgo = m && json_get(json_get(m, "pgo"), "units");
		if (m && !pgo)
			error("--bundle %s: the bundle has no PGO profile (its manifest's \"pgo\" "
			      "is null)", o->bundle);
		json_free(m);
		if (!pgo)
			return PGBUILD_EXIT_ERROR;
	}
	return 0;
}

/*
 * --bundle: how much of the profile the build used (bundle check on its
 * compile log).  0, PGBUILD_EXIT_FAIL below --min-applies, or
 * PGBUILD_EXIT_ERROR.
 */
static int check_bundle_use(struct build *b)
{
	char *json = xasprintf("%s/pgopt-bundle-check.json", b->builddir);
	struct bundle_check_opts co = {
		.dir = b->o.bundle, .log = b->logdir, .json = json,
		.min_applies = b->o.min_applies, .quiet = b->o.quiet,
	};
	int rc = bundle_check(&co);
	if (rc == 1)
		error("the build used less than --min-applies %g%% of the bundle's profile "
		      "(%s): not installed", b->o.min_applies, json);
	free(json);
	return rc == 0 ? 0 : rc == 1 ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_ERROR;
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

PGBUILD_COMMAND(build, "configure, build, install PostgreSQL via pgoptcc with a policy")
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
	    build_compile(&b) == 0 && (!b.o.bundle || (rc = check_bundle_use(&b)) == 0)) {
		rc = PGBUILD_EXIT_ERROR;
		if (build_install(&b) == 0)
			rc = build_checks(&b);
	}
	build_finish(&b, rc);
	strbuf_release(&gate);
	return rc;
}
