/*
 * cmd/bundle.c - `pgbuild bundle create|show|check|bolt`: profiles a build
 * farm reuses without training; the options and their checks (the engine
 * is bundle/bundle.h).
 */
#include <stdio.h>
#include <string.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/cmd/cmd.h"

static void bundle_usage(FILE *fp)
{
	fprintf(fp,
		"usage: pgbuild bundle create --out DIR (--pgo PREFIX | --optimize WORKDIR |\n"
		"                             --builddir DIR --policy FILE [--log LOGDIR] |\n"
		"                             --bundle DIR)\n"
		"                             [--bolt-install DIR | --bolt-profile FILE]\n"
		"                             [--force]\n"
		"       pgbuild bundle show DIR\n"
		"       pgbuild bundle check DIR --log LOGDIR [--min-applies PCT] [--json FILE]\n"
		"       pgbuild bundle bolt DIR BINARY [--log LOGDIR] [--min-applies PCT]\n"
		"                             [--bolt DIR] [--json FILE]\n"
		"\n"
		"A profile bundle is a training's result that a later build uses without\n"
		"training (a build daemon cannot run benchmarks): the policy, the PGO\n"
		"profile of every unit (.gcda) with the weight of each function the\n"
		"training ran, and the BOLT profile of the server, with what they were\n"
		"trained on and the sha256 of every file.  A build uses it through\n"
		"pgoptcc (PGOPT_BUNDLE=DIR and PGOPT_POLICY=DIR/pgopt.policy): every unit\n"
		"the bundle has a profile of is compiled with it, and GCC's verdict on\n"
		"each function goes into the compile log.\n"
		"\n"
		"A bundle is a stranger's: it can change optimization decisions and\n"
		"layout, nothing else.  Every use (pgoptcc, show, check, bolt, create\n"
		"--bundle, build/tune/deb --bundle) first checks the whole bundle\n"
		"against its manifest and refuses it, naming the file, before anything\n"
		"of it is copied: a link, FIFO or device in it, a file the manifest does\n"
		"not list or whose sha256 differs, a missing file, a path outside it, a\n"
		"policy whose lists are not its files.\n"
		"\n"
		"  create             pack a bundle from one of --pgo, --optimize, --builddir,\n"
		"                     --bundle:\n"
		"    --out DIR          the new bundle (made beside it, renamed into place)\n"
		"    --pgo PREFIX       the install of a pgbuild pgo run\n"
		"    --optimize WORKDIR the best stage pgbuild optimize kept (its BOLT\n"
		"                       profile and the PGO build under it)\n"
		"    --builddir DIR     any build trained through pgoptcc's profile mode\n"
		"                       (PGOPT_PROFILE=generate), with --policy and its\n"
		"                       compile log (--log LOGDIR, default DIR/pgopt-log)\n"
		"    --policy FILE      with --builddir: the policy it was trained with\n"
		"    --bundle DIR       an existing bundle's policy and PGO profiles (to add\n"
		"                       a BOLT profile trained on a package build's server)\n"
		"    --bolt-install DIR\n"
		"                       the profile of a pgbuild bolt output (the install\n"
		"                       its --prefix made)\n"
		"    --bolt-profile FILE\n"
		"                       a BOLT profile (.fdata; its manifest FILE.json)\n"
		"    --force            replace an existing bundle at --out\n"
		"  show               what the bundle holds and was trained on (after\n"
		"                     the check, DIR/pgopt-bundle.json)\n"
		"  check              after a build with the bundle: the share of the PGO\n"
		"                     profile's weight the build used (GCC refuses the\n"
		"                     profile of a function whose control flow changed)\n"
		"    --log LOGDIR       the build's compile log directory (PGOPT_LOGDIR)\n"
		"  bolt               rewrite BINARY in place with the BOLT profile, when\n"
		"                     enough of its samples still apply (BOLT's stale count);\n"
		"                     llvm-bolt reads a checked copy of the profile in a new\n"
		"                     private directory, $TMPDIR/pgbuild-bundle-bolt-XXXXXX\n"
		"    --log LOGDIR       the compile log directory (PGOPT_LOGDIR) of the build\n"
		"                       that made BINARY: its records/ side file of BINARY\n"
		"                       (records = side) is moved to BOLT's new build-id,\n"
		"                       and BOLT's log is written there as bolt-BINARY.log\n"
		"                       (without it: into that private directory, kept)\n"
		"    --bolt DIR         where llvm-bolt is (default $PGBUILD_BOLT, else\n"
		"                       /usr/lib/llvm-15/bin)\n"
		"  --min-applies PCT  the share that must apply (default %.0f): below it\n"
		"                     check exits 1, and bolt leaves BINARY as it was\n"
		"  --json FILE|-      check's or bolt's result as a JSON document\n"
		"  -q, --quiet        no summary\n"
		"  -h, --help         this text\n"
		"\n"
		CLI_EXIT_CODES_HELP
		"Here 0 is done (the share applies), 1 the share is below --min-applies,\n"
		"2 a bundle refused by the check, or bad input.\n",
		BUNDLE_MIN_APPLIES);
}

static const char *const verbs[] = { "create", "show", "check", "bolt", NULL };

PGBUILD_COMMAND(bundle, "pack profiles for builds that cannot train; check what applied")
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, OPT_OUT },
		{ "pgo", required_argument, NULL, OPT_PGO },
		{ "optimize", required_argument, NULL, OPT_OPTIMIZE },
		{ "builddir", required_argument, NULL, OPT_BUILDDIR },
		{ "bundle", required_argument, NULL, OPT_BUNDLE },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "bolt", required_argument, NULL, OPT_BOLT },
		{ "bolt-install", required_argument, NULL, OPT_BOLT_INSTALL },
		{ "bolt-profile", required_argument, NULL, OPT_BOLT_PROFILE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "min-applies", required_argument, NULL, OPT_MIN_APPLIES },
		CLI_OPT_JSON,
		CLI_OPT_QUIET,
		CLI_OPT_HELP,
		CLI_OPT_END
	};
	struct bundle_create_opts co = { 0 };
	const char *verb = NULL, *log = NULL, *bolt = NULL, *bolt_install = NULL, *json = NULL;
	double min = BUNDLE_MIN_APPLIES;
	int c, quiet = 0, min_given = 0;
	char *args[3] = { NULL, NULL, NULL };
	int nargs = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case OPT_OUT: co.out = optarg; break;
		case OPT_PGO: co.pgo = optarg; break;
		case OPT_OPTIMIZE: co.optimize = optarg; break;
		case OPT_BUILDDIR: co.builddir = optarg; break;
		case OPT_BUNDLE: co.bundle = optarg; break;
		case OPT_POLICY: co.policy = optarg; break;
		case OPT_LOG: log = optarg; break;
		case OPT_BOLT: bolt = optarg; break;
		case OPT_BOLT_INSTALL: bolt_install = optarg; break;
		case OPT_BOLT_PROFILE: co.bolt_profile = optarg; break;
		case OPT_FORCE: co.force = 1; break;
		case OPT_MIN_APPLIES:
			if (cli_parse_number("--min-applies", optarg, 0, 100, &min) < 0)
				return cli_usage();
			min_given = 1;
			break;
		case OPT_JSON: json = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': bundle_usage(stdout); return 0;
		default:
			return cli_usage();
		}
	}
	for (int i = optind; i < argc; i++) {
		if (!verb) {
			verb = argv[i];
			continue;
		}
		if (nargs == 2)
			return cli_usage_error("unexpected argument \"%s\"", argv[i]);
		args[nargs++] = argv[i];
	}
	if (!verb)
		return cli_usage_error("expected create, show, check or bolt");
	{
		int known = 0;
		for (int i = 0; verbs[i]; i++)
			known |= !strcmp(verb, verbs[i]);
		if (!known)
			return cli_usage_error("unknown bundle command \"%s\": expected create, show, check or bolt",
					       verb);
	}
	/* create and check read the build's compile log from --log, bolt
	 * writes its side files there: as root, one only root can write */
	if (log && buildlog_dir_check("--log", log) < 0)
		return PGBUILD_EXIT_ERROR;
	if (!strcmp(verb, "create")) {
		int sources = !!co.pgo + !!co.optimize + !!co.builddir + !!co.bundle;
		if (nargs)
			return cli_usage_error("create takes no argument (the bundle is --out DIR), got \"%s\"",
					       args[0]);
		if (!co.out)
			return cli_usage_error("create needs --out DIR");
		if (sources != 1)
			return cli_usage_error("create needs one of --pgo, --optimize, --builddir and --bundle");
		if (co.builddir && !co.policy)
			return cli_usage_error("--builddir needs --policy FILE (the policy the build was trained with)");
		if (co.policy && !co.builddir)
			return cli_usage_error("--policy goes with --builddir (--pgo and --optimize bring their own)");
		if (log && !co.builddir)
			return cli_usage_error("create: --log goes with --builddir");
		/* --bolt is where llvm-bolt is (bundle bolt, pgbuild bolt): the
		 * install create reads was --bolt PREFIX before */
		if (bolt)
			return cli_usage_error("create: --bolt is where llvm-bolt is (bundle bolt); the "
					       "pgbuild bolt output to take the profile of is "
					       "--bolt-install DIR");
		if (bolt_install && co.bolt_profile)
			return cli_usage_error("--bolt-install and --bolt-profile exclude each other");
		if (co.bundle && !bolt_install && !co.bolt_profile)
			return cli_usage_error("create --bundle: add --bolt-install or --bolt-profile (else "
					       "it is a copy)");
		if (co.optimize && (bolt_install || co.bolt_profile))
			return cli_usage_error("--optimize brings its own BOLT profile: no --bolt-install "
					       "or --bolt-profile");
		if (json || min_given)
			return cli_usage_error("create: --json and --min-applies go with show, check and bolt");
		co.log = log;
		co.bolt = bolt_install;
		co.quiet = quiet;
		return bundle_create(&co);
	}
	if (co.out || co.pgo || co.optimize || co.builddir || co.bundle || co.policy ||
	    bolt_install || co.bolt_profile || co.force)
		return cli_usage_error("%s: --out, --pgo, --optimize, --builddir, --bundle, --policy, "
				       "--bolt-install, --bolt-profile and --force go with create", verb);
	if (!nargs)
		return cli_usage_error("%s needs the bundle's directory", verb);
	if (!strcmp(verb, "show")) {
		if (nargs > 1 || log || bolt || min_given || json)
			return cli_usage_error("show takes DIR alone");
		return bundle_show(args[0]);
	}
	{
		const struct cli_output outs[] = { CLI_OUT_JSON(json), CLI_OUT_END };
		if (cli_check_outputs(outs) < 0)
			return PGBUILD_EXIT_ERROR;
	}
	if (!strcmp(verb, "check")) {
		struct bundle_check_opts o = { args[0], log, json, min, quiet };
		if (nargs > 1)
			return cli_usage_error("check takes DIR alone, got \"%s\" too", args[1]);
		if (!log)
			return cli_usage_error("check needs --log LOGDIR (the build's PGOPT_LOGDIR)");
		if (bolt)
			return cli_usage_error("check: --bolt goes with bolt");
		return bundle_check(&o);
	}
	{
		struct bundle_bolt_opts o = { args[0], args[1], log, bolt, json, min, quiet };
		if (nargs != 2)
			return cli_usage_error("bolt needs DIR and BINARY");
		return bundle_bolt(&o);
	}
}
