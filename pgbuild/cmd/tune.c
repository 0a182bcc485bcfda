/*
 * cmd/tune.c - `pgbuild tune`: its options and their checks; the search
 * and its evaluations are tune/tuner.h's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/tune/tuner.h"

static void tune_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild tune [--src SRC] [--train W] [--held-out LIST]\n"
"                    [--scope global|GLOB|@FILE]\n"
"                    [--candidates FILE] [--max-builds N] [--max-time TIME]\n"
"                    [--state FILE] [--out POLICY] [options]\n"
"\n"
"Search compiler flags for one scope of PostgreSQL by measured elimination:\n"
"start from the whole candidate set, drop each flag in turn and keep the\n"
"drop when the gate says it does not hurt, until no drop is kept; then try\n"
"to re-add the others greedily; finally measure the best against stock on\n"
"the training workload, and on the --held-out ones the search never saw.\n"
"Each evaluation is an incremental build (only the scope recompiles; ccache\n"
"answers what was compiled before), the regression suite, and `pgbuild\n"
"gate` against the current best.  Sets that fail to build or fail the\n"
"regression suite are remembered and never retried.  Unsafe flags\n"
"(fast-math family, anything against PostgreSQL's required flags) are\n"
"refused.  The state is saved after every evaluation: rerun the same\n"
"command to resume.\n"
"\n"
"  --src SRC             PostgreSQL source (as pgbuild build; default\n"
"                        debian:postgresql-15)\n"
"  --train W             the one workload the search measures (default\n"
"                        " WORKLOADS_DEFAULT ")\n"
"  --held-out LIST|none  workloads the search never measures, comma-separated:\n"
"                        the best set is gated against stock on each and\n"
"                        judged faster, slower or not significant at the\n"
"                        resolution (default " WORKLOADS_HELDOUT "; none: skip)\n"
"  --scope S             global (default), a glob over source files\n"
"                        (e.g. 'src/backend/executor/*.c'), or @FILE listing\n"
"                        files or globs, one per line (e.g. the hot files)\n"
"  --candidates FILE     candidate flags, one per line (default\n"
"                        DATADIR/pgoptcc/tune-candidates.txt, a copy of\n"
"                        examples/tune-candidates.txt; --dry-run names it)\n"
"  --max-builds N        stop before a build beyond N (default 12; 0 = no limit)\n"
"  --max-time TIME       stop before a build once TIME of evaluations is spent\n"
"                        (90s, 10m, 2h; --budget is a --pairs auto gate's)\n"
"  --workdir DIR         installs, logs, state (default ./pgbuild-tune)\n"
"  --builddir DIR        the one build directory (default WORKDIR/build);\n"
"                        an existing pgbuild build directory is reused as is\n"
"  --baseline PREFIX     an installed stock build (policy none) of the same\n"
"                        source; else tune builds it first\n"
"  --state FILE          resumable state, JSON lines\n"
"                        (default WORKDIR/state.jsonl)\n"
"  --out POLICY          the best policy (default WORKDIR/best.policy)\n"
"  --json FILE|-         every step and the result as JSON (with --dry-run:\n"
"                        the plan; FILE - is the standard output)\n"
"  --metric M            instructions (default: callgrind, exact), cycles (the\n"
"                        cycles estimate of callgrind's cache and branch\n"
"                        simulation, at 0.1%% resolution or --noise's) or tps\n"
"  --pairs N -T, --duration S -c, --clients N   gate settings for --metric tps\n"
"  --pairs auto [--budget TIME]  the sequential tps gate (see pgbuild gate);\n"
"                        an undecided gate is not shown faster (its interval\n"
"                        decides as always; no flag is added on it) and the\n"
"                        step's note says undecided\n"
"  --tolerance PCT       a drop is kept unless it is significantly more than\n"
"                        PCT%% slower (default 0.5)\n"
"  --min-gain PCT        an added flag must be significantly faster by PCT%%\n"
"                        (default 0.5)\n"
"  --noise FILE|none     the layout noise floor of the stock build (`pgbuild\n"
"                        noise`): with --metric instructions or cycles each\n"
"                        ratio is ratio +- the gate's resolution from it (see\n"
"                        pgbuild gate --help; the sets tune builds have no\n"
"                        floor: a stand-in) in both rules; default: BASELINE/\n"
"                        pgopt-noise.json when it is of BASELINE/bin/postgres\n"
"                        (FILE needs --baseline); without --baseline tune\n"
"                        measures stock's right after building it (`pgbuild\n"
"                        noise`, the --train and held-out workloads:\n"
"                        WORKDIR/stock-noise.json); a --baseline without a\n"
"                        floor of the --train workload is refused, as the\n"
"                        gate leaves such thresholds undecided; none: refused\n"
"                        as without a floor: the repeat resolution is no\n"
"                        statistic, and every flag kept or added is a claim\n"
"  --bundle DIR          tune on PGO without training per set: every set is\n"
"                        the policy of the profile bundle DIR (pgbuild bundle\n"
"                        create) plus its flags, built with the bundle's\n"
"                        profile; the empty set is the bundle's own build\n"
"                        (the start, \"stock\" in the report); after each\n"
"                        build `pgbuild bundle check` weighs what GCC kept\n"
"  --min-applies PCT     with --bundle: a set whose build uses less than PCT%%\n"
"                        of the profile's weight is refused, never measured\n"
"                        (default 90: -O levels and early-inlining flags\n"
"                        change the instrumented functions)\n"
"  --start full|stock    start from the whole set (default) or from stock\n"
"  --no-readd            skip the greedy re-add pass\n"
"  --no-regress          skip the regression suite (not for a policy you ship)\n"
"  -j, --jobs N          make jobs\n"
"  --lock FILE           hold flock(FILE) during each evaluation (a machine\n"
"                        shared with other heavy jobs)\n"
"  --plugin on|off       load pgopt.so into the tuned compiles (default on;\n"
"                        off when PGOPT_PREFIX runs distcc: distccd refuses\n"
"                        -fplugin)\n"
"  --dry-run             print the candidates and the start policy, build nothing\n"
"  --weaken LIST         the policy may weaken these hardening classes\n"
"                        (stack-protector, cet, pie, relro, bind-now,\n"
"                        fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
"                        and every record says what was weakened\n"
"  -q, --quiet           no progress lines\n"
"\n"
"Environment: PGOPT_PREFIX (e.g. \"ccache distcc\" with DISTCC_HOSTS: builds\n"
"on a compile farm; benchmarks always run locally), CCACHE_DIR.\n"
"Every option, the source, the baseline and (as root) the directories the\n"
"server user must reach are checked before the first build.\n"
"\n" CLI_EXIT_CODES_HELP
"Here 0 is done (best policy written), 1 stopped early (budget) before\n"
"converging, or the best set is slower than stock on a --held-out workload\n"
"(its policy is written, but it is not one to ship).\n");
}

static const struct option tune_options[] = {
	{ "src", required_argument, NULL, OPT_SRC },
	CLI_OPT_TRAIN,
	{ "held-out", required_argument, NULL, OPT_HELD_OUT },
	{ "scope", required_argument, NULL, OPT_SCOPE },
	{ "candidates", required_argument, NULL, OPT_CANDIDATES },
	{ "max-builds", required_argument, NULL, OPT_MAX_BUILDS },
	{ "max-time", required_argument, NULL, OPT_MAX_TIME },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "duration", required_argument, NULL, 'T' },
	{ "clients", required_argument, NULL, 'c' },
	{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
	{ "min-gain", required_argument, NULL, OPT_MIN_GAIN },
	{ "start", required_argument, NULL, OPT_START },
	{ "no-readd", no_argument, NULL, OPT_NO_READD },
	{ "no-regress", no_argument, NULL, OPT_NO_REGRESS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	CLI_OPT_JSON,
	{ "lock", required_argument, NULL, OPT_LOCK },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "plugin", required_argument, NULL, OPT_PLUGIN },
	{ "bundle", required_argument, NULL, OPT_BUNDLE },
	{ "min-applies", required_argument, NULL, OPT_MIN_APPLIES },
	CLI_OPT_JOBS,
	CLI_OPT_QUIET,
	CLI_OPT_WEAKEN,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The options with a value to check: 0, or -1 after the error. */
/* --metric's words: tune's default (instructions, tuner_init's) first,
 * then the others of metric/metrics.c's table in its order. */
static const char *const *tune_metric_words(void)
{
	static const char *words[8];
	size_t n = 0;

	if (words[0])
		return words;
	words[n++] = metrics_of(METRIC_INSTR)->name;
	for (const struct metric_desc *m = metrics; m->name && n + 1 < 8; m++)
		if (m->bit != METRIC_INSTR)
			words[n++] = m->name;
	return words;
}

static int value_option(struct tune_opts *o, struct tune_params *p, int c, const char *arg)
{
	int r = stage_gate_option(&o->gate, c, arg);
	double d;

	if (r)
		return r < 0 ? -1 : 0;

	switch (c) {
	case OPT_PLUGIN:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return error("invalid value \"%s\" for --plugin: expected on or off", arg);
		o->plugin = !strcmp(arg, "on");
		return 0;
	case OPT_MIN_APPLIES:
		return cli_parse_number("--min-applies", arg, 0, 100, &o->min_applies);
	case OPT_MAX_BUILDS:
		return cli_parse_int("--max-builds", arg, 0, 10000, &p->max_builds);
	case OPT_MAX_TIME:
		return cli_parse_time("--max-time", arg, &p->time_budget);
	case OPT_METRIC: {
		const char *const *words = tune_metric_words();
		int k;
		if (cli_parse_choice("--metric", arg, words, &k) < 0)
			return -1;
		o->metric = words[k];
		return 0;
	}
	case OPT_TOLERANCE:
		if (cli_parse_number("--tolerance", arg, 0, 50, &d) < 0)
			return -1;
		p->tolerance = d / 100;
		return 0;
	case OPT_MIN_GAIN:
		if (cli_parse_number("--min-gain", arg, 0, 50, &d) < 0)
			return -1;
		p->min_gain = d / 100;
		return 0;
	case OPT_START:
		if (strcmp(arg, "full") && strcmp(arg, "stock"))
			return error("invalid value \"%s\" for --start: expected full or stock", arg);
		p->start_stock = !strcmp(arg, "stock");
		return 0;
	default: /* 'j' */
		return cli_parse_jobs(arg, &o->jobs);
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct tune_opts *o, struct tune_params *p, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, tune_options)) != -1) {
		switch (c) {
		case OPT_SRC: o->src = optarg; break;
		case OPT_TRAIN: o->workload = optarg; break;
		case OPT_HELD_OUT:
			o->held_out_arg = optarg;
			o->held_out_given = 1;
			break;
		case OPT_SCOPE: o->scope = optarg; break;
		case OPT_CANDIDATES: o->candidates = optarg; break;
		case OPT_STATE: o->state = optarg; break;
		case OPT_OUT: o->out = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_LOCK: o->lock = optarg; break;
		case OPT_NOISE: o->noise = optarg; break;
		case OPT_BUNDLE:
			free(o->bundle);
			o->bundle = path_absolute(optarg);
			break;
		case OPT_NO_READD: p->readd = 0; break;
		case OPT_NO_REGRESS: o->regress = 0; break;
		case OPT_DRY_RUN: o->dry_run = 1; break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o->quiet = 1; break;
		case 'h':
			tune_usage(stdout);
			return 0;
		case '?':
			return cli_usage();
		default:
			if (value_option(o, p, c, optarg) < 0)
				return cli_usage();
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first build. */
static int check_host(const struct tune_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_FILE("--out", o->out),
		CLI_OUT_FILE("--state", o->state),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_DIR("--builddir", o->builddir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* --held-out: workloads bench knows, none the training one, each one the
 * metric can measure.  0, or -1 after the error. */
static int check_held_out(struct tune_opts *o)
{
	if (!strcmp(o->held_out_arg, "none"))
		return 0;
	if (!o->held_out_given && !strcmp(o->held_out_arg, o->workload)) {
		/* training on the default held-out workload: nothing is left */
		fprintf(stderr, "pgbuild: note: nothing held out: the search trains on %s, the "
			"default --held-out (give --held-out LIST to judge the best on others)\n",
			o->workload);
		return 0;
	}
	if (cli_parse_workloads(o->held_out_arg, &o->held_out) < 0)
		return -1;
	for (size_t i = 0; i < o->held_out.nr; i++) {
		const char *w = o->held_out.v[i];
		if (!strcmp(w, o->workload))
			return error("--held-out %s: \"%s\" is the workload the search trains on "
				     "(--train): held out means not measured by the search", o->held_out_arg,
				     w);
		if (metrics_find(o->metric)->bit != METRIC_TPS && !workloads_has(w, WL_SINGLE))
			return error("--held-out %s: --metric %s supports " WORKLOADS_SINGLE ", "
				     "not \"%s\"", o->held_out_arg, o->metric, w);
	}
	return 0;
}

/* --bundle: a bundle whose files match its manifest (bundle_open), with a
 * PGO profile.  0, or -1 after the error. */
static int check_bundle_dir(const char *dir)
{
	struct json_value *m = bundle_open(dir);
	int rc = -1;

	if (m && !json_get(json_get(m, "pgo"), "units"))
		error("--bundle %s: the bundle has no PGO profile (its manifest's \"pgo\" is null): "
		      "tune --bundle tunes on a profile", dir);
	else if (m)
		rc = 0;
	json_free(m);
	return rc;
}

/* Every check before the first build: the options together, the workload,
 * the files tune reads, the source, the baseline, and the directories the
 * server user works in (as root). */
static int check_options(struct tune_opts *o)
{
	if (strchr(o->workload, ','))
		return cli_usage_error("--train \"%s\": tune searches flags for one workload",
				       o->workload);
	if (bench_workload_check(o->workload) < 0 || check_held_out(o) < 0)
		return cli_usage();
	/* each of tune's gates decides one threshold on one workload */
	if (preflight_pairs(o->gate.pairs, o->metric, 0.95, 1) < 0)
		return cli_usage();
	if (o->gate.budget > 0 && !o->gate.auto_pairs)
		return cli_usage_error("--budget is the sequential gate's (--pairs auto); the "
				       "search's time limit is --max-time");
	if (stage_gate_check(&o->gate))
		return PGBUILD_EXIT_ERROR;
	if (o->gate.auto_pairs && metrics_find(o->metric)->bit != METRIC_TPS)
		return cli_usage_error("--pairs auto needs --metric tps");
	if (o->bundle && check_bundle_dir(o->bundle) < 0)
		return PGBUILD_EXIT_ERROR;
	/* the candidates and the scope file are read by tuner_run before
	 * anything is built */
	if (preflight_source(o->src) < 0 ||
	    (o->baseline && preflight_install("--baseline", o->baseline) < 0))
		return PGBUILD_EXIT_ERROR;
	if (!o->dry_run) {
		char *workdir = path_absolute(o->workdir);
		char *builddir = o->builddir ? path_absolute(o->builddir) :
				 xasprintf("%s/build", workdir);
		const char *dirs[] = { workdir, builddir, o->baseline, NULL };
		int r = workdir_server_reach(dirs);
		free(workdir);
		free(builddir);
		if (r < 0)
			return PGBUILD_EXIT_ERROR;
	}
	if (metrics_find(o->metric)->bit != METRIC_TPS && !workloads_has(o->workload, WL_SINGLE))
		return cli_usage_error("--metric %s supports " WORKLOADS_SINGLE ", "
				       "not \"%s\" (use --metric tps)", o->metric, o->workload);
	if (o->plugin < 0) {
		/* distccd refuses -fplugin: such compiles would all run locally */
		const char *a = getenv("PGOPT_PREFIX"), *b = getenv("CCACHE_PREFIX");
		o->plugin = !((a && strstr(a, "distcc")) ||
			      (a && strstr(a, "ccache") && b && strstr(b, "distcc")));
	}
	return 0;
}

/*
 * The resolutions of the search from the floors f (noise_floors_resolution,
 * the one rule; every set tune compares is a build without a floor of its
 * own: the stand-in): the --train workload's into *res, each held-out
 * workload's into o->held_res (NAN without a floor: undecided after the
 * search, as the gate's thresholds).  As noise_floors_resolution: 1 from
 * the floor, 0 the repeat resolution (--noise none), -1 no floor of the
 * --train workload (*res NAN); *src (malloced) says where from, or why not.
 */
static int floor_resolutions(struct tune_opts *o, const struct noise_floors *f, double *res,
			     char **src)
{
	unsigned bit = metrics_find(o->metric)->bit;
	int rc = noise_floors_resolution(f, o->workload, bit, res, src);

	if (rc < 0)
		return rc;
	free(o->held_res);
	o->held_res = xcalloc(o->held_out.nr + 1, sizeof(*o->held_res));
	for (size_t i = 0; i < o->held_out.nr; i++) {
		char *hsrc = NULL;
		if (noise_floors_resolution(f, o->held_out.v[i], bit, &o->held_res[i], &hsrc) < 0)
			o->held_res[i] = NAN;
		free(hsrc);
	}
	return rc;
}

/* tuner's measure_floor: stock's layout floor by noise's engine (a
 * library call: the relinks and the single-user runs, --reuse), then its
 * resolutions by the gate's rule. */
static int measure_floor(struct tuner *tu, const char *file, const char *workdir)
{
	struct noise_opts no;
	struct noise_floors f;
	double res;
	char *src = NULL;
	int rc = 0;

	noise_opts_init(&no);
	no.prefix = tu->stock_prefix;
	no.builddir = tu->builddir;
	no.builddir_as = "tune's build directory (--builddir, default WORKDIR/build)";
	no.workdir = workdir;
	no.json = file;
	no.reuse = 1;
	no.no_table = 1;
	no.quiet = tu->o.quiet;
	no.metrics = metrics_find(tu->o.metric)->bit;
	strvec_push(&no.workloads, tu->o.workload);
	for (size_t i = 0; i < tu->o.held_out.nr; i++)
		strvec_push(&no.workloads, tu->o.held_out.v[i]);
	rc = noise_run(&no);
	noise_opts_release(&no);
	if (rc != PGBUILD_EXIT_OK)
		return error("the layout floor of %s could not be measured (above)",
			     tu->stock_prefix);
	if (noise_floors_find(&f, file, tu->stock_prefix, NULL) < 0)
		return -1;
	if (floor_resolutions(&tu->o, &f, &res, &src) < 1) {
		rc = error("%s: %s", file, src ? src : "no floor of the --train workload");
	} else {
		tu->t.p.resolution = res;
		free(tu->o.resolution_source);
		tu->o.resolution_source = src;
		src = NULL;
		free(tu->o.noise_note);
		tu->o.noise_note = xstrdup(f.note);
	}
	free(src);
	noise_floors_release(&f);
	return rc;
}

/*
 * --noise: the resolution a deterministic metric's search decides at,
 * from the stock build's layout floor by the gate's rule
 * (floor_resolutions), into p.  As the gate, never the repeat resolution
 * unasked.  Without --baseline and --noise tune builds stock itself and
 * measures its floor right after that build (o->measure_floor: tuner.c,
 * tu->measure_floor).  With --baseline, without a floor of the training
 * workload (none found, of another binary, too few variants) p->resolution
 * is NAN and resolution_source says why, naming what gives one (its floor,
 * found as PREFIX/pgopt-noise.json or given as --noise FILE, measured by
 * `pgbuild noise`); --noise none is refused alike (the repeat resolution
 * is no statistic): tuner_run refuses before its first build (--dry-run
 * says so and goes on).  0, or the exit code after the error (a malformed
 * floor, a named one of another binary or without --baseline).
 */
static int apply_noise_floor(struct tuner *tu, struct tune_params *p)
{
	struct tune_opts *o = &tu->o;
	const struct metric_desc *d = metrics_find(o->metric);
	struct noise_floors f;
	char *src = NULL, *cut;

	if (!(d->bit & metrics_deterministic()))
		return 0;
	if (!o->baseline && o->noise && strcmp(o->noise, "none"))
		return cli_usage_error("--noise %s needs --baseline PREFIX, the stock build "
				       "the floor was measured on", o->noise);
	if (!o->baseline && !o->noise) {
		/* tune builds stock: its floor is measured right after */
		struct strbuf wl = STRBUF_INIT;
		strbuf_addstr(&wl, o->workload);
		for (size_t i = 0; i < o->held_out.nr; i++)
			strbuf_addf(&wl, ",%s", o->held_out.v[i]);
		o->measure_floor = 1;
		p->resolution = NAN;    /* until it is measured */
		tu->measure_floor = measure_floor;
		/* with --bundle the start, which every set is compared with, is
		 * the bundle's own build */
		o->noise_note = xasprintf("%s layout floor, measured by tune after its build",
					  o->bundle ? "the start build's (the bundle's)" : "stock's");
		o->resolution_source = xasprintf("%s layout floor, measured after %s build "
						 "(`pgbuild noise` on it, -W %s: WORKDIR/%s), "
						 "by the gate's rule",
						 o->bundle ? "the start build's (the bundle's)" :
						 "stock's", o->bundle ? "its" : "stock's", wl.buf,
						 TUNE_STOCK_FLOOR);
		strbuf_release(&wl);
		return 0;
	}
	if (noise_floors_find(&f, o->noise, o->baseline, NULL) < 0)
		return PGBUILD_EXIT_ERROR;
	if (f.state == NOISE_FLOOR_MISMATCH || f.state == NOISE_FLOOR_FEW)
		fprintf(stderr, "pgbuild: note: %s\n", f.note);
	o->noise_note = xstrdup(f.note);
	switch (floor_resolutions(o, &f, &p->resolution, &src)) {
	case 1:
		o->resolution_source = src;
		break;
	case 0:
		/* --noise none: no statistic: every decision of the search is a
		 * claim (a flag kept says dropping it costs, one added that it
		 * gains), and the gate's claims need a floor: refused as
		 * without one */
		free(src);
		p->resolution = NAN;
		o->resolution_source = xasprintf("--metric %s --noise none: the repeat resolution "
						 "(%g%%) is no statistic, inside every layout spread "
						 "measured; each flag tune keeps or adds claims a "
						 "gain or a loss it cannot show there: give a layout "
						 "floor (`pgbuild noise --install PREFIX -W %s`, "
						 "PREFIX/%s or --noise FILE with --baseline PREFIX), "
						 "or neither --baseline nor --noise: tune measures "
						 "stock's floor after building it",
						 o->metric, noise_floor_repeat(d->bit) * 100,
						 o->workload, NOISE_FLOOR_FILE);
		break;
	default:
		/* no floor: the search would decide at the repeat resolution,
		 * inside every layout spread measured; src's last words offer
		 * the gate's --noise none, which tune refuses */
		if ((cut = strstr(src, " (--noise none:")))
			*cut = '\0';
		o->resolution_source = xasprintf("--metric %s: %s; tune never decides %s at the "
						 "repeat resolution (%g%%, inside every layout spread "
						 "measured) unasked: give its floor (%s/%s, or --noise "
						 "FILE), or no --baseline: tune measures stock's floor "
						 "after building it", o->metric, src, o->workload,
						 noise_floor_repeat(d->bit) * 100, o->baseline,
						 NOISE_FLOOR_FILE);
		free(src);
		/* p->resolution NAN: tuner_run refuses with it, after the
		 * candidates and the scope are checked, before its first build */
		break;
	}
	noise_floors_release(&f);
	return 0;
}

PGBUILD_COMMAND(tune, "search compiler flags per scope: measured elimination (resumable)")
{
	struct tune_params p;
	struct tuner tu;
	int rc;

	tuner_init(&tu, &p);
	if ((rc = parse_options(&tu.o, &p, argc, argv)) < 0 && (rc = check_host(&tu.o)) == 0 &&
	    (rc = check_options(&tu.o)) == 0 && (rc = apply_noise_floor(&tu, &p)) == 0)
		rc = tuner_run(&tu, &p);
	tuner_release(&tu);
	return rc;
}
