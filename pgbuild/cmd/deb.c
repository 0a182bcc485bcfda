/*
 * cmd/deb.c - `pgbuild deb`: a Debian package built through pgoptcc and
 * checked, in one command; its options and their checks (the stages are
 * pipeline/deb.h's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/pipeline/deb.h"

/* Against a baseline without a layout floor (the distribution's package,
 * or a --baseline without one) a claim on instructions or the estimate
 * (X > 1) is certain to be undecided.  0, or -1 after the error. */
static int refuse_claims(const struct gate_thresholds *th)
{
	for (size_t i = 0; i < th->nr; i++)
		if ((gate_kind_metric(th->v[i].kind) & metrics_deterministic()) &&
		    gate_is_claim(&th->v[i]))
			return error("--gate %s: a claim on %s, which the gate cannot decide "
				     "against a baseline without a layout floor (the distribution's "
				     "package has none: no build tree to relink; --noise none, where "
				     "only a bound, as cycles>=1.00, is decided); give a bound, or --baseline "
				     "PREFIX with its floor (PREFIX/pgopt-noise.json)", th->v[i].text,
				     metrics_of(gate_kind_metric(th->v[i].kind))->name);
	return 0;
}

/* The options only `pgbuild deb` has (codes past cli.h's, long only). */
enum { DEB_OPT_CHROOT = 0x10000, DEB_OPT_ARCHIVE, DEB_OPT_NO_COMPARE, DEB_OPT_NO_MODULES };

static void deb_usage(FILE *fp)
{
	fprintf(fp,
		"usage: pgbuild deb --workdir DIR (--policy FILE | --bundle DIR) [--dsc FILE]\n"
		"                   [options]\n"
		"\n"
		"Build a Debian source package through pgoptcc, as a packager would, and\n"
		"check what it made: unpack it (dpkg-source -x) and add the recipe (the\n"
		"debian/rules fragment, the policy as debian/pgopt.policy, the bundle as\n"
		"debian/pgopt-bundle), dpkg-buildpackage -B in the archive's build\n"
		"environment (--chroot, or this machine when it would build the same),\n"
		"extract the .debs, then pgbuild verify, compare (every ELF file against\n"
		"the archive's package: needed libraries, undefined symbols, exports;\n"
		"sizes), regress (installcheck against the packaged server, JIT forced on\n"
		"every query), modules (every module loaded, every extension created),\n"
		"gate (against the distribution's build of the same version) and report.\n"
		"Resumable: the same command goes on from the first stage that did not\n"
		"finish.\n"
		"\n"
		"  --workdir DIR        where everything goes: src/, the .debs, root/ and\n"
		"                       dbg/ (extracted), logs/, gate.json, report.html\n"
		"  --dsc FILE           the source package (default: the one pgbuild source\n"
		"                       fetches, Debian's postgresql-15)\n"
		"  --policy FILE        the policy (debian/pgopt.policy)\n"
		"  --bundle DIR         a profile bundle (debian/pgopt-bundle; its policy\n"
		"                       unless --policy): the build checks what of its PGO\n"
		"                       profile applied and rewrites postgres with its BOLT\n"
		"                       profile (pgbuild bundle)\n"
		"  --chroot             build in a clean chroot made for the build by\n"
		"                       mmdebstrap (--variant=buildd, this machine's suite)\n"
		"                       with only the Build-Depends and pgoptcc's libraries,\n"
		"                       without network (WORKDIR/chroot, ~1.4 GB, removed\n"
		"                       after a build that succeeded; root, and the build\n"
		"                       runs as root in it: build sources you trust).\n"
		"                       Without it the build runs here, with a build\n"
		"                       daemon's PATH, and is refused before it starts when\n"
		"                       it would find programs the Build-Depends do not\n"
		"                       provide (another LLVM's llvm-config, clang-N)\n"
		"  --archive DIR        the archive's .debs to compare with (default:\n"
		"                       apt-get download of the same names and version)\n"
		"  --no-compare         skip the comparison with the archive's packages\n"
		"  --builddir NAME      the package's build tree inside its source\n"
		"                       (default build, Debian's PostgreSQL; . in-tree)\n"
		"  --baseline PREFIX    what the gate compares with (default the archive's\n"
		"                       package of the same version, as compare extracted it;\n"
		"                       with --no-compare the installed one, when dpkg says\n"
		"                       it is that version, as shipped)\n"
		"  --gate EXPR          the gate's thresholds (default %s;\n"
		"                       against the distribution's package, which has no\n"
		"                       layout floor, at the repeat resolution: --noise none)\n"
		"  -W, --workload LIST  the gate's workloads (default %s)\n"
		"  --metric LIST        the gate's metrics (default %s)\n"
		"  --pairs N|auto, -T, --duration S\n"
		"                       the gate's pairs (auto: the sequential gate, its\n"
		"                       default budget) and seconds per run\n"
		"  --no-regress         skip the regression suite\n"
		"  --no-modules         skip the modules check\n"
		"  --no-gate            skip the gate (the report has the build alone)\n"
		"  -j, --jobs N         dpkg-buildpackage -jN (default 2)\n"
		"  --restart            ignore an earlier run's state\n"
		"  --weaken LIST        the policy may weaken these hardening classes\n"
		"                       (stack-protector, cet, pie, relro, bind-now,\n"
		"                       fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
		"                       and every record says what was weakened\n"
		"  -q, --quiet          less progress output\n"
		"\n"
		CLI_EXIT_CODES_HELP
		"Here 0 is built, verified, linked as the archive's, and the suite, the\n"
		"modules check and the gate passed; 2 includes a build refused or failed\n"
		"(the end of its log is printed); 3 the gate was undecided.\n",
		DEB_GATE_DEFAULT, DEB_WORKLOADS_DEFAULT, DEB_METRIC_DEFAULT);
}

/*
 * The gate's options, checked before the build (a bad option must not cost
 * a 25-minute package build first): its baseline's layout floor, its
 * thresholds, pairs and family, the baseline install.  0, or the exit code.
 */
static int check_gate(struct deb_opts *o, const struct strvec *wl)
{
	struct gate_thresholds th = { 0 };

	if (o->no_gate)
		return 0;
	/* the distribution's package has no layout floor (no build tree to
	 * relink); a --baseline has one when PREFIX/pgopt-noise.json is of its
	 * postgres (the gate's own lookup) */
	if (!o->baseline) {
		o->gate_no_floor = 1;
	} else {
		struct noise_floors f;
		if (noise_floors_find(&f, NULL, o->baseline, NULL) < 0)
			return PGBUILD_EXIT_ERROR;
		o->gate_no_floor = f.state != NOISE_FLOOR_USED;
		noise_floors_release(&f);
	}
	/* against the distribution's package the gate runs with --noise none
	 * (pipeline/deb.c): its family is counted so, and a claim on the
	 * estimate or instructions, which that leaves undecided, is refused */
	if (preflight_gate_expr(o->gate, o->metric, &th) < 0 ||
	    preflight_pairs(o->pairs ? atoi(o->pairs) : 0, o->metric, 0.95,
			    preflight_family(o->gate, wl, DEB_WORKLOADS_DEFAULT,
					     o->gate_no_floor ? "none" : NULL)) < 0 ||
	    (o->gate_no_floor && refuse_claims(&th) < 0) ||
	    (o->baseline && preflight_install("--baseline", o->baseline) < 0)) {
		gate_thresholds_clear(&th);
		return PGBUILD_EXIT_ERROR;
	}
	gate_thresholds_clear(&th);
	return 0;
}

PGBUILD_COMMAND(deb, "build a Debian source package through pgoptcc and check it")
{
	static const struct option opts[] = {
		{ "workdir", required_argument, NULL, OPT_WORKDIR },
		{ "dsc", required_argument, NULL, OPT_DSC },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "bundle", required_argument, NULL, OPT_BUNDLE },
		{ "builddir", required_argument, NULL, OPT_BUILDDIR },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "gate", required_argument, NULL, OPT_GATE },
		CLI_OPT_WORKLOAD,
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		CLI_OPT_DURATION,
		{ "chroot", no_argument, NULL, DEB_OPT_CHROOT },
		{ "archive", required_argument, NULL, DEB_OPT_ARCHIVE },
		{ "no-compare", no_argument, NULL, DEB_OPT_NO_COMPARE },
		{ "no-modules", no_argument, NULL, DEB_OPT_NO_MODULES },
		{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
		{ "no-gate", no_argument, NULL, OPT_NO_GATE },
		CLI_OPT_JOBS,
		{ "restart", no_argument, NULL, OPT_RESTART },
		CLI_OPT_QUIET,
		CLI_OPT_WEAKEN,
		CLI_OPT_HELP,
		CLI_OPT_END
	};
	struct deb_opts o = { 0 };
	struct strvec wl = STRVEC_INIT;
	unsigned metrics;
	double secs;
	int c, n, is_auto;

	o.builddir = "build";
	o.gate = DEB_GATE_DEFAULT;
	o.metric = DEB_METRIC_DEFAULT;
	o.jobs = 2;
	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case OPT_WORKDIR: o.workdir = optarg; break;
		case OPT_DSC: o.dsc = optarg; break;
		case OPT_POLICY: o.policy = optarg; break;
		case OPT_BUNDLE: o.bundle = optarg; break;
		case OPT_BUILDDIR:
			if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".."))
				return cli_usage_error("--builddir: expected a directory name inside "
						       "the source package (build, or . in-tree), got \"%s\"",
						       optarg);
			o.builddir = optarg;
			break;
		case OPT_BASELINE: o.baseline = optarg; break;
		case OPT_GATE: o.gate = optarg; break;
		case 'W':
			if (cli_parse_workloads(optarg, &wl) < 0)
				return cli_usage();
			break;
		case OPT_METRIC:
			if (cli_parse_metrics(optarg, &metrics) < 0)
				return cli_usage();
			o.metric = optarg;
			break;
		case OPT_PAIRS:
			if (cli_parse_pairs(optarg, &n, &is_auto) < 0)
				return cli_usage();
			o.pairs = optarg;
			break;
		case 'T':
			if (cli_parse_duration(optarg, &secs) < 0)
				return cli_usage();
			o.duration = optarg;
			break;
		case DEB_OPT_CHROOT: o.chroot = 1; break;
		case DEB_OPT_ARCHIVE: o.archive = optarg; break;
		case DEB_OPT_NO_COMPARE: o.no_compare = 1; break;
		case DEB_OPT_NO_MODULES: o.no_modules = 1; break;
		case OPT_NO_REGRESS: o.no_regress = 1; break;
		case OPT_NO_GATE: o.no_gate = 1; break;
		case 'j':
			if (cli_parse_jobs(optarg, &o.jobs) < 0)
				return cli_usage();
			break;
		case OPT_RESTART: o.restart = 1; break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o.quiet = 1; break;
		case 'h': deb_usage(stdout); return 0;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!o.workdir)
		return cli_usage_error("--workdir DIR is required");
	if (!o.policy && !o.bundle)
		return cli_usage_error("expected --policy FILE or --bundle DIR (or both)");
	if (o.no_compare && o.archive)
		return cli_usage_error("--no-compare and --archive exclude each other");
	if (o.no_gate && (o.baseline || strcmp(o.gate, DEB_GATE_DEFAULT) || wl.nr || o.pairs ||
			  o.duration || strcmp(o.metric, DEB_METRIC_DEFAULT)))
		return cli_usage_error("--no-gate and the gate's options exclude each other");
	if ((c = check_gate(&o, &wl)) != 0)
		return c;
	/* the regression suite's server gets PGOPTIONS from here: checked as
	 * every command that starts a server checks it (cli_guc_check_env) */
	if ((o.policy && preflight_policy("--policy", o.policy, NULL) < 0) ||
	    (o.dsc && cli_check_input("--dsc", o.dsc) < 0) || cli_guc_check_env() < 0)
		return PGBUILD_EXIT_ERROR;
	{
		struct strbuf sb = STRBUF_INIT;
		int rc;
		for (size_t i = 0; i < wl.nr; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", wl.v[i]);
		o.workloads = sb.len ? sb.buf : DEB_WORKLOADS_DEFAULT;
		rc = deb_pipeline(&o);
		strbuf_release(&sb);
		strvec_clear(&wl);
		return rc;
	}
}
