/*
 * cmd/optimize.c - `pgbuild optimize`: its options and their checks (every
 * one before the first build); the stages are optimize/optimize.h's.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bench/servercpu.h"
#include "pgbuild/bolt/bolt.h"
#include "pgbuild/build/build.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/pipeline/preflight.h"

static void optimize_usage(FILE *fp)
{
	fputs("usage: pgbuild optimize [--train W[,W...]] [-W W[,W...]] [--prefix OUT]\n"
	      "                        [--workdir DIR] [--src SRC] [--baseline PREFIX]\n"
	      "                        [--policy FILE] [--stages LIST] [options]\n"
	      "\n"
	      "The fastest build this tool can prove, stage by stage, each measured against\n"
	      "stock: stock (--policy none, or --baseline), lto (--policy, default\n"
	      "\"lto = on\" and \"bolt = ready\"), pgo (pgbuild pgo: PGO + LTO), tuned\n"
	      "(pgbuild tune's best policy on PGO + LTO, when a tune state exists), bolt\n"
	      "(pgbuild bolt on the best build so far).  Every stage is verified,\n"
	      "regress-gated (bolt: its installcheck) and gated against stock with\n"
	      "tps, instructions and the cycles estimate.  The cycles estimate decides: it\n"
	      "is deterministic (repeats agree to 0.1%) and sees the instruction cache and\n"
	      "branch prediction that layout changes, which tps on a noisy machine cannot\n"
	      "resolve; it is a simulation (callgrind), not the CPU.  pgo, tuned and bolt\n"
	      "train on --train and are judged on -W.  A workload is in-sample for a stage\n"
	      "that trained on it, and for every stage but stock when a default of this\n"
	      "tool was chosen on it (select-only, tpcb, mixed); held out otherwise (the\n"
	      "broad suite -W adds by default).  A stage is kept on held-out evidence: none\n"
	      "of its held-out workloads significantly slower than the build it stacks on,\n"
	      "and the geometric mean of what it added beyond the mean of their\n"
	      "resolutions (each its gate's two-build layout floor on stock's floor, which\n"
	      "optimize measures first, --noise, at 1 - (1 - confidence) / k for the run's\n"
	      "k candidate stages: a run keeps a no-change stage no more often than one\n"
	      "stage would; \"significantly slower\" at the gate's own level).  The\n"
	      "in-sample gain is shown beside it and decides only when no -W workload is\n"
	      "held out.  A stage that fails its suite or is not faster is dropped with\n"
	      "the reason; the next stage stacks on the best kept build.  Interrupted, it\n"
	      "resumes from the last finished step.\n"
	      "\n"
	      "  --train LIST           what pgo, the clang stages and bolt train on,\n"
	      "                         comma-separated and repeatable (default\n"
	      "                         " OPTIMIZE_DEFAULT_TRAIN ": PostgreSQL's core regression suite;\n"
	      "                         the benchmarks: select-only, tpcb, ...)\n"
	      "  -W, --workload LIST    the evaluation set, comma-separated and repeatable:\n"
	      "                         what every stage is gated and judged on (default\n"
	      "                         --train's workloads, " WORKLOADS_TRAIN " for regress, plus\n"
	      "                         " WORKLOADS_HELDOUT " and the broad suite, on which nothing was\n"
	      "                         chosen; each needs a single-user script: bench\n"
	      "                         --help lists them)\n"
	      "  --prefix OUT           install the best build here (a copy, renamed into\n"
	      "                         place); an OUT that exists must be an earlier\n"
	      "                         optimize output (pgopt-optimize.json) or empty\n"
	      "  --force                replace any existing OUT\n"
	      "  --workdir DIR          builds, gates, logs, state (default\n"
	      "                         ./pgbuild-optimize); DIR/STAGE may be a symlink to\n"
	      "                         an existing build (prefix/ and build/ inside) of the\n"
	      "                         same source and policy: it is reused\n"
	      "  --src SRC              PostgreSQL source: directory, tarball or\n"
	      "                         debian:PACKAGE[=VERSION] (default debian:postgresql-15)\n"
	      "  --baseline PREFIX      the stock build, instead of building one\n"
	      "  --policy FILE|none     the lto stage's policy (\"bolt = ready\" added when it\n"
	      "                         has no bolt line; \"bolt = off\" is refused; none:\n"
	      "                         the empty policy, as pgbuild build's)\n"
	      "  --stages LIST          lto, pgo, tuned, clang, clang-pgo, bolt (default all,\n"
	      "                         the clang ones skipped when no clang is installed;\n"
	      "                         stock always), comma-separated\n"
	      "                         and repeatable; clang: the lto stage's policy built\n"
	      "                         by clang (ThinLTO, lld), clang-pgo: with clang's\n"
	      "                         instrumented PGO on it; judged like GCC's, side by\n"
	      "                         side, and BOLT stacks on the best of either\n"
	      "  --clang CC             the clang stages' compiler (default " OPTIMIZE_DEFAULT_CLANG ";\n"
	      "                         its lld, llvm-ar and llvm-profdata beside it)\n"
	      "  --bolt-flags FLAGS     llvm-bolt's layout flags of the bolt stage (pgbuild\n"
	      "                         bolt --bolt-flags; default its own)\n"
	      "  --bolt DIR             where the bolt stage's llvm-bolt is (default\n"
	      "                         $PGBUILD_BOLT, else the BOLT of --clang's LLVM when\n"
	      "                         the clang stages run and it has one, else\n"
	      "                         pgbuild bolt's default)\n"
	      "  --tune-state DIR       a finished pgbuild tune's --workdir (its best.policy;\n"
	      "                         default ./pgbuild-tune when it has one); a tune on\n"
	      "                         a bundle (its best.bundle) makes the tuned stage a\n"
	      "                         build with that bundle, without training\n"
	      "  --noise FILE|none      stock's layout floor (pgbuild noise) the gates decide\n"
	      "                         at; default: STOCK/pgopt-noise.json when it is of\n"
	      "                         stock's postgres and has every -W workload, else\n"
	      "                         measured before the first gate (a step: pgbuild\n"
	      "                         noise on stock, -W's workloads; needs stock's build\n"
	      "                         tree, else the repeat resolution with a note); FILE\n"
	      "                         needs --baseline; none: the repeat resolution, on\n"
	      "                         which no stage shows a gain: nothing is kept\n"
	      "  --noise-variants N     relinked variants of that measurement,\n"
	      "                         " CLI_NOISE_VARIANTS_RANGE "\n"
	      "  --pairs N -T, --duration S -c, --clients N --cpus LIST\n"
	      "                         the gate's benchmark (default: the fewest pairs its\n"
	      "                         family of tests can decide with, 8 for 2 workloads)\n"
	      "  --pairs auto [--budget TIME]  the sequential tps gate (pgbuild gate);\n"
	      "                         tps undecided in the budget is shown as such, the\n"
	      "                         cycles estimate still decides each stage\n"
	      "  -j, --jobs N           make jobs\n"
	      "  --restart              ignore the state of an earlier run\n"
	      "  --html FILE            the waterfall page (default WORKDIR/optimize.html)\n"
	      "  --json FILE|-          also write the result (WORKDIR/optimize.json) here\n"
	      "  --weaken LIST          the policy may weaken these hardening classes\n"
	      "                         (stack-protector, cet, pie, relro, bind-now,\n"
	      "                         fortify, stack-clash): PGOPT_WEAKEN of its builds\n"
	      "                         and every record says what was weakened\n"
	      "  -q, --quiet            only the step lines and the waterfall\n"
	      "\n"
	      "Every option, the policy, the source, the baseline, --prefix and the\n"
	      "directories the server user must reach (as root) are checked before the\n"
	      "first build.\n\n"
	      CLI_EXIT_CODES_HELP
	      "Here 0 is the best build beat stock and was installed at --prefix, 1 no\n"
	      "stage beat stock (nothing installed), 2 a step could not build or measure\n"
	      "(run again to resume); interrupted, it dies of the signal and the same\n"
	      "command resumes.\n",
	      fp);
}

static const struct option optimize_options[] = {
	CLI_OPT_WORKLOAD,
	CLI_OPT_TRAIN,
	CLI_OPT_PREFIX,
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "src", required_argument, NULL, OPT_SRC },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "stages", required_argument, NULL, OPT_STAGES },
	{ "tune-state", required_argument, NULL, OPT_TUNE_STATE },
	{ "clang", required_argument, NULL, OPT_CLANG },
	{ "bolt-flags", required_argument, NULL, OPT_BOLT_FLAGS },
	{ "bolt", required_argument, NULL, OPT_BOLT },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "noise-variants", required_argument, NULL, OPT_VARIANTS },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	CLI_OPT_DURATION,
	CLI_OPT_CLIENTS,
	{ "cpus", required_argument, NULL, OPT_CPUS },
	CLI_OPT_JOBS,
	{ "restart", no_argument, NULL, OPT_RESTART },
	{ "html", required_argument, NULL, OPT_HTML },
	CLI_OPT_JSON,
	CLI_OPT_QUIET,
	CLI_OPT_WEAKEN,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The values with a parser; 1 when c was one, 0 not, -1 bad. */
static int parse_value(struct optimize_opts *o, unsigned *stages, int c, const char *arg)
{
	cpu_set_t set;
	switch (c) {
	case 'W': return cli_parse_workloads(arg, &o->workloads) < 0 ? -1 : 1;
	case OPT_TRAIN: return cli_parse_training(arg, &o->train) < 0 ? -1 : 1;
	case OPT_PAIRS:
		return cli_parse_pairs(arg, &o->pairs, &o->auto_pairs) == 0 ?
		       1 : -1;
	case OPT_BUDGET: return cli_parse_budget(arg, &o->budget) < 0 ? -1 : 1;
	case 'T': return cli_parse_duration(arg, &o->duration) < 0 ? -1 : 1;
	case 'c': return cli_parse_clients(arg, &o->clients) < 0 ? -1 : 1;
	case 'j': return cli_parse_jobs(arg, &o->jobs) < 0 ? -1 : 1;
	case OPT_STAGES: return optimize_parse_stages(arg, stages) < 0 ? -1 : 1;
	case OPT_VARIANTS:
		return cli_parse_int("--noise-variants", arg, CLI_NOISE_VARIANTS_MIN,
				     CLI_NOISE_VARIANTS_MAX, &o->noise_variants) < 0 ? -1 : 1;
	case OPT_CPUS:
		o->cpus = arg;
		return servercpu_parse_cpus(arg, &set) < 0 ? -1 : 1;
	default: return 0;
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct optimize_opts *o, int argc, char **argv)
{
	unsigned stages = 0;
	int c, r;

	optind = 1;
	while ((c = cli_getopt(argc, argv, optimize_options)) != -1) {
		if ((r = parse_value(o, &stages, c, optarg)) < 0)
			return cli_usage();
		if (r > 0)
			continue;
		switch (c) {
		case OPT_PREFIX: o->prefix = optarg; break;
		case OPT_FORCE: o->force = 1; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_SRC: o->src = optarg; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_TUNE_STATE: o->tune_state = optarg; break;
		case OPT_CLANG: o->clang = optarg; break;
		case OPT_BOLT_FLAGS:
			if (bolt_check_flags("--bolt-flags", optarg) < 0)
				return cli_usage();
			o->bolt_flags = optarg;
			break;
		case OPT_BOLT: o->bolt_dir = optarg; break;
		case OPT_NOISE: o->noise = optarg; break;
		case OPT_RESTART: o->restart = 1; break;
		case OPT_HTML: o->html = optarg; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_WEAKEN:
			if (cli_parse_weaken(optarg) < 0)
				return cli_usage();
			break;
		case 'q': o->quiet = 1; break;
		case 'h': optimize_usage(stdout); return PGBUILD_EXIT_OK;
		default: return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	o->stages = stages ? stages : OPTIMIZE_DEFAULT_STAGES;
	o->stages_given = stages != 0 || o->clang;
	if (o->clang && !(o->stages & ((1u << OS_CLANG) | (1u << OS_CLANG_PGO))))
		return cli_usage_error("--clang names the compiler of the clang stages: add "
				       "--stages ...,clang,clang-pgo");
	if (o->bolt_flags && !(o->stages & (1u << OS_BOLT)))
		return cli_usage_error("--bolt-flags are the bolt stage's: add --stages ...,bolt");
	if (o->bolt_dir && !(o->stages & (1u << OS_BOLT)))
		return cli_usage_error("--bolt is where the bolt stage's llvm-bolt is: add "
				       "--stages ...,bolt");
	if (!o->clang)
		o->clang = OPTIMIZE_DEFAULT_CLANG;
	optimize_default_workloads(&o->train, &o->workloads);
	/* default: enough pairs that the gate's family (its two thresholds
	 * on every workload, gate.h) can decide a significantly slower tps
	 * at its first step: 8 for two workloads, 9 for up to 6 */
	if (!o->pairs && !o->auto_pairs)
		o->pairs = (int)gate_pairs_needed(0.95, 2 * o->workloads.nr);
	return -1;
}

/* Is dir an empty directory? */
static int empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = d != NULL;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

/* An existing --prefix must be empty or an earlier optimize output. */
static int check_prefix(const struct optimize_opts *o)
{
	struct stat st;
	char *marker;
	int ok;

	if (!o->prefix || o->force || stat(o->prefix, &st) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return error("--prefix \"%s\": exists and is not a directory", o->prefix);
	marker = xasprintf("%s/pgopt-optimize.json", o->prefix);
	ok = path_exists(marker) || empty_dir(o->prefix);
	free(marker);
	if (!ok)
		return error("--prefix \"%s\": exists and is not an earlier pgbuild optimize "
			     "output (no pgopt-optimize.json); remove it or add --force", o->prefix);
	return 0;
}

/* The gate every stage runs, checked now: its thresholds against the
 * workloads (cycles needs a single-user script), the pairs. */
static int check_gate(const struct optimize_opts *o)
{
	struct gate_thresholds th = { 0 };
	struct strbuf err = STRBUF_INIT;
	unsigned metrics = 0;
	int rc = 0;

	if (o->budget > 0 && !o->auto_pairs)
		return error("--budget needs --pairs auto");
	/* optimize's gates measure every metric (optimize/run.c) */
	metrics = metrics_all();
	if (gate_expr_parse(&th, OPT_GATE_EXPR, &err) < 0 ||
	    gate_thresholds_check(&th, metrics, &o->workloads) < 0 ||
	    preflight_pairs(o->pairs, cli_metrics_text(metrics), 0.95,
			    gate_family_bound(&th, &o->workloads,
					      o->noise && !strcmp(o->noise, "none"))) < 0)
		rc = -1;
	gate_thresholds_clear(&th);
	strbuf_release(&err);
	return rc;
}

/* The lto policy: pgoptcc accepts it, and it allows BOLT. */
static int check_policy(const struct optimize_opts *o)
{
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	int rc = 0;

	if (!o->policy)
		return 0;
	/* none: the empty policy, as pgbuild build's (the text stays empty) */
	if (preflight_policy("--policy", o->policy, NULL) < 0 ||
	    (strcmp(o->policy, "none") &&
	     sfs_read(AT_FDCWD, o->policy, SFS_IN_TEXT, 0, &text, &err) < 0))
		rc = err.len ? error("--policy: %s", err.buf) : -1;
	else if (optimize_policy_text(text.buf, o->policy, 0, &out, &err) < 0)
		rc = error("--policy \"%s\": %s", o->policy, err.buf);
	strbuf_release(&text);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the first build. */
static int check_host(const struct optimize_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_FILE("--html", o->html),
		CLI_OUT_JSON(o->json),
		CLI_OUT_DIR("--prefix", o->prefix),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* The -W workloads --train does not hold. */
static size_t held_out_count(const struct optimize_opts *o)
{
	size_t n = 0;
	/* neither trained on nor chosen on (optimize_in_sample's rule) */
	for (size_t i = 0; i < o->workloads.nr; i++)
		n += optimize_held_out(&o->train, o->workloads.v[i]) &&
		     !workloads_has(o->workloads.v[i], WL_CHOSEN);
	return n;
}

/* Why the clang stages cannot run with cc (malloced), or NULL: clang,
 * the lld its ThinLTO links need and (clang-pgo) the llvm-profdata that
 * merges its profiles. */
static char *clang_unusable(const char *cc, unsigned stages)
{
	char *lld = NULL, *prof = NULL, *why = NULL;

	if (!build_compiler_is_llvm(cc))
		why = xasprintf("%s is no clang (its --version does not say clang; the clang "
				"stages need one: apt-get install clang-15 lld-15 llvm-15)", cc);
	else if (!(lld = build_compiler_tool(cc, "ld.lld")))
		why = xasprintf("%s has no lld of its LLVM beside it or on PATH (lto = on with "
				"clang is ThinLTO, which the system linker cannot link: apt-get "
				"install lld-15 for clang-15)", cc);
	else if ((stages & (1u << OS_CLANG_PGO)) && !(prof = build_compiler_tool(cc, "profdata")))
		why = xasprintf("%s has no llvm-profdata of its LLVM (clang-pgo merges the "
				"training's raw profiles with it: apt-get install llvm-15 for "
				"clang-15)", cc);
	free(lld);
	free(prof);
	return why;
}

/* The clang stages' compiler: refused when they were asked for; when they
 * are only the default's, they are skipped with the reason. */
static int check_clang(struct optimize_opts *o, int stages_given)
{
	char *why;

	if (!(o->stages & ((1u << OS_CLANG) | (1u << OS_CLANG_PGO))) ||
	    !(why = clang_unusable(o->clang, o->stages)))
		return 0;
	if (stages_given) {
		error("--clang %s", why);
		free(why);
		return -1;
	}
	/* said at once, not after the gcc stages' hour */
	warning("the clang stages will be skipped: %s", why);
	o->clang_skip = why;
	return 0;
}

/*
 * The bolt stage's llvm-bolt: --bolt DIR (checked), else $PGBUILD_BOLT
 * (pgbuild bolt reads it), else the BOLT of the --clang compiler's LLVM
 * when the clang stages run and it has one (clang-19: /usr/lib/llvm-19/bin,
 * a BOLT of the LLVM that built the binary it may rewrite), else pgbuild
 * bolt's default.  0, or -1 after the error.
 */
static int check_bolt(struct optimize_opts *o)
{
	const char *origin, *dir, *env = getenv(BOLT_DIR_ENV);
	char *tool;

	if (!(o->stages & (1u << OS_BOLT)))
		return 0;
	if (!o->bolt_dir && !(env && *env) && !o->clang_skip &&
	    (o->stages & ((1u << OS_CLANG) | (1u << OS_CLANG_PGO))) &&
	    (tool = build_compiler_tool(o->clang, "bolt"))) {
		*strrchr(tool, '/') = '\0';
		/* the default itself is left unnamed: earlier runs' keys stay valid */
		if (strcmp(tool, BOLT_DEFAULT_DIR))
			o->bolt_dir_auto = tool;
		else
			free(tool);
	}
	/* whichever it is, there before the first build: asked for, a missing
	 * one is an error; only the default stages', bolt is skipped, said */
	dir = optimize_bolt_dir(o) ? optimize_bolt_dir(o) : bolt_dir_of(NULL, &origin);
	if (optimize_bolt_dir(o))
		origin = o->bolt_dir ? "--bolt" : "the --clang compiler's LLVM";
	if (o->stages_given || o->bolt_dir)
		return bolt_check_dir(dir, origin);
	if (bolt_check_dir_quiet(dir) == 0)
		return 0;
	warning("the bolt stage will be skipped: no llvm-bolt in %s (%s; apt-get install %s, "
		"or --bolt DIR)", dir, origin, BOLT_PACKAGE);
	o->stages &= ~(1u << OS_BOLT);
	return 0;
}

/* Every check before the first build. */
static int check_options(struct optimize_opts *o)
{
	char *workdir;
	int rc;

	if (check_gate(o) < 0)
		return cli_usage();
	if (!held_out_count(o))
		warning("every -W workload is one --train trains on or one this tool's defaults "
			"were chosen on: the stages are judged in-sample (add one that is not, "
			"e.g. -W %s)", workloads_names(WL_BROAD | WL_SINGLE)[0]);
	if ((o->stages & (1u << OS_BOLT)) &&
	    !(o->stages & ~((1u << OS_STOCK) | (1u << OS_BOLT))))
		return cli_usage_error("--stages bolt needs a stage to stack on: BOLT rewrites a "
				       "BOLT-ready build (lto, pgo, tuned, clang or clang-pgo), "
				       "never stock");
	if (o->tune_state) {
		char *best = xasprintf("%s/best.policy", o->tune_state);
		rc = cli_check_input("--tune-state", best);
		free(best);
		if (rc < 0)
			return PGBUILD_EXIT_ERROR;
	}
	if (check_policy(o) < 0 || check_clang(o, o->stages_given) < 0 || check_bolt(o) < 0 ||
	    preflight_source(o->src) < 0 ||
	    (o->baseline && preflight_install("--baseline", o->baseline) < 0) ||
	    check_prefix(o) < 0)
		return PGBUILD_EXIT_ERROR;
	if ((rc = noise_floor_check_given(o->noise, o->baseline, "stock",
					   "optimize measures stock's floor")) != 0)
		return rc;
	workdir = path_absolute(o->workdir);
	{
		const char *dirs[] = { workdir, o->baseline, NULL };
		rc = workdir_server_reach(dirs) < 0 ? PGBUILD_EXIT_ERROR : 0;
	}
	free(workdir);
	return rc;
}

PGBUILD_COMMAND(optimize, "fastest proven build: stock, LTO, PGO, tuned, BOLT (resumable)")
{
	struct optimize_opts o = {
		.workloads = STRVEC_INIT, .train = STRVEC_INIT, .workdir = "pgbuild-optimize",
		.src = "debian:postgresql-15", .noise_variants = CLI_NOISE_VARIANTS,
	};
	int rc;

	if ((rc = parse_options(&o, argc, argv)) < 0 && (rc = check_host(&o)) == 0 &&
	    (rc = check_options(&o)) == 0)
		rc = optimize_run(&o);
	strvec_clear(&o.workloads);
	strvec_clear(&o.train);
	free(o.clang_skip);
	free(o.bolt_dir_auto);
	return rc;
}
