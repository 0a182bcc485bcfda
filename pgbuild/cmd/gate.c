/*
 * cmd/gate.c - `pgbuild gate`: its options and their checks; the
 * measuring and deciding are gate/gate.h's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bench/client.h"
#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/gate/verdict.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/report/report.h"

static void gate_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild gate --baseline PREFIX --candidate PREFIX [options]\n"
"\n"
"Benchmark A (baseline) and B (candidate) interleaved, in pairs whose order (A B\n"
"or B A) is a seeded coin flip, and decide whether B meets the thresholds with\n"
"statistical confidence.\n"
"\n"
"  --baseline PREFIX         installed PostgreSQL to compare against (A)\n"
"  --candidate PREFIX        installed PostgreSQL under test (B)\n"
"  -W, --workload LIST       bench workloads, comma-separated and repeatable\n"
"                            (-W select-only,tpcb -W select1; default: those the\n"
"                            thresholds name, else " WORKLOADS_DEFAULT ")\n"
"  -c, --clients N           client connections (default 2; pgbench's and\n"
"                            bench's 1: the gate loads both cores)\n"
"  -S, --select-only         pgbench's select-only: -W select-only\n"
"  -N, --skip-some-updates   pgbench's simple-update: -W simple-update\n"
"  -b, --builtin NAME        a built-in by pgbench's name or a prefix of one\n"
"                            (tpcb-like is tpcb) or by ours: -W NAME; each\n"
"                            script is one workload (NAME@W, a mix, is bench's);\n"
"                            -b list: the workloads, as pgbench\n"
"  -f, --file FILE           a script in pgbench's language: -W sql:FILE\n"
"  -M, --protocol P          simple, extended or prepared (default prepared;\n"
"                            pgbench's and bench's simple: parsing and\n"
"                            planning each statement again is left out of\n"
"                            what the builds are compared on)\n"
"  -j, --jobs N, --threads N client threads, as pgbench's -j: at most one a\n"
"                            client (default: bench's)\n"
"  -T, --duration S          seconds per run (default 10)\n"
"      --warmup S            seconds of warm-up per run (default 2)\n"
"  -s, --scale N             pgbench scale of the data (default: bench's)\n"
"  --set NAME=VALUE          server setting for every run (repeatable; those\n"
"                            bench refuses are refused here, at once)\n"
"  --pairs N|auto            A/B pairs (default 9, or more when the family\n"
"                            of tests needs them; 6 is the fewest that give a\n"
"                            95%% interval, m tests need 2^-N <= 2.5%% / m:\n"
"                            fewer are refused); auto: add pairs until an\n"
"                            anytime-valid confidence sequence decides every\n"
"                            tps, latency and server CPU threshold, or the\n"
"                            budget ends (verdict undecided, exit 3)\n"
"  --budget TIME             time for --pairs auto's pairs: 90s, 10m, 1h or\n"
"                            seconds (default 10m); no pair is started that\n"
"                            would end after it (judged by the longest pair)\n"
"  --min-speedup X           throughput B/A of every workload >= X\n"
"  --max-p99-regression PCT  p99 latency B/A of every workload <= 1+PCT/100\n"
"  --gate EXPR               thresholds, comma-separated and repeatable, e.g.\n"
"                            'select-only>=1.05,tpcb>=1.00,p99<=+10%%' (a value of\n"
"                            100%% or more needs its sign: +5%% or 1.05, not 105%%)\n"
"  --metric LIST             what to measure, comma-separated and repeatable\n"
"                            (default tps):\n"
"                            tps: the interleaved wall-clock runs (throughput,\n"
"                            latency, server CPU per transaction);\n"
"                            instructions: per transaction of the server in\n"
"                            single-user mode; cycles: the same server under\n"
"                            callgrind's cache and branch simulation (a\n"
"                            simulation, not the CPU), estimate Ir + 10*Bm +\n"
"                            10*L1m + 100*LLm per transaction\n"
"  --counter auto|perf|callgrind\n"
"                            what counts instructions: perf stat where hardware\n"
"                            counters work, else callgrind (auto, the default:\n"
"                            probes `perf stat -e instructions:u true` once)\n"
"  --instr-statements N      transactions N of the short callgrind run (10N in\n"
"                            the long one; default per workload)\n"
"  --noise FILE|none         the layout noise floor of the baseline (`pgbuild\n"
"                            noise`, at least 5 variants): instructions and\n"
"                            cycles are decided at its resolution (below);\n"
"                            default: BASELINE/pgopt-noise.json when it is of\n"
"                            BASELINE/bin/postgres; without a floor their\n"
"                            thresholds are undecided (exit 3); none: a bound\n"
"                            at the repeat resolution (0.01%%, 0.1%%), said in\n"
"                            the result: passed \"not shown slower\" at best, a\n"
"                            loss beyond it undecided (exit 3), as a claim\n"
"                            (X > 1): they need a layout floor.  The\n"
"                            candidate's side is\n"
"                            CANDIDATE/pgopt-noise.json when it is of its\n"
"                            postgres, else a stand-in\n"
"  --ci hl|bootstrap         interval: Hodges-Lehmann + Wilcoxon signed-rank\n"
"                            (default) or bootstrap of the median\n"
"  --confidence P            confidence level of the interval (default 0.95)\n"
"  --require-regress BUILDDIR  run `pgbuild regress` on the candidate's build\n"
"                            tree first; a failure fails the gate\n"
"  --regress-result passed|failed|FILE  regression outcome already known; FILE:\n"
"                            the `pgbuild regress --json` document (its counts\n"
"                            go into the verdict: \"217/217 tests passed\")\n"
"  --seed N                  seed of the pairs' order, 0 to 2^53-1 (each pair\n"
"                            A B or B A by a coin flip of it; default: drawn,\n"
"                            printed and recorded in the JSON as\n"
"                            pair_order_seed): the same seed repeats the order\n"
"  --cpus LIST               CPUs for the benchmark, e.g. 0-1: bench pins its\n"
"                            client threads to the last quarter (at least one)\n"
"                            and the server to the rest (one CPU: both on it);\n"
"                            a CPU this machine does not give is refused\n"
"  --json FILE|-             every run's numbers, the analysis and the verdict\n"
"                            (\"verdict\": pass/fail...; \"verdict_word\": the words\n"
"                            printed, lower case; COULD NOT MEASURE is error)\n"
"  --junit FILE              JUnit XML, one testcase per threshold\n"
"  --workdir DIR             keep bench outputs here (default: a temporary\n"
"                            directory, removed at the end)\n"
"  -q, --quiet               no progress lines\n"
"\n"
"Decision, one rule for every metric, on the metric's interval: for tps,\n"
"latency and server CPU the confidence interval of the ratio, for instructions\n"
"and cycles (one number per build) [ratio x (1 - r), ratio x (1 + r)] with\n"
"r = max(repeat, 1.96 x sqrt(a^2 + b^2)), a and b the 95%% chi-square upper\n"
"bounds of the baseline's and the candidate's layout SDs (the candidate's own\n"
"floor, else the baseline's; for instructions at least an LTO build's 0.033%%\n"
"over 5 variants): a claim with no real change passes at most 2.5%% of the\n"
"time (pgbuild/noise/floor.h).\n"
"A claim of improvement (a speed ratio X > 1, a latency ratio X < 1) passes\n"
"only when the lower end of the interval is >= X (latency: the upper end\n"
"<= X), so a claim above what was observed never passes.  A bound (speed\n"
"X <= 1, latency X >= 1) fails only when the whole interval breaches it.\n"
"Thresholds: WORKLOAD>=X (tps), tps>=X, p99<=+10%%,\n"
"instructions>=X, cycles>=X (the workloads -b list marks c), cpu>=X (server\n"
"CPU per transaction A/B, from the tps runs), any of them as WORKLOAD.KEY.\n"
"\n"
"With --pairs auto every tps, latency and server CPU threshold follows one\n"
"rule on the confidence sequence of the per-pair log ratios (self-normalised\n"
"normal mixture with a time-uniform sign test; Robbins 1970, de la Pena 1999,\n"
"Howard, Ramdas, McAuliffe & Sekhon 2020 and 2021): pass when its lower end\n"
"reaches X (latency: upper end <= X) and the estimate does too, fail when its\n"
"upper end is below X, else undecided when the budget ends.  The sequence is\n"
"unbounded before a number of pairs (10 at 95%%), printed before the first\n"
"pair; a --budget shorter than that many pairs of two runs of --warmup +\n"
"--duration is refused.  A pair whose interval does not overlap the earlier\n"
"ones ends the sequence as inconsistent: not significant, undecided.\n"
"\n"
"Several tests (every workload x threshold; m of them) are decided together,\n"
"so that any wrong one has at most the chance one test alone has (2.5%%\n"
"one-sided at 95%%): by Holm's step-down procedure on their one-sided p-values\n"
"(the k-th smallest on its interval at 1 - (1 - confidence) / (m - k + 1),\n"
"until the first that is not shown; a layout floor's r scaled by Student's t\n"
"at that level), with --pairs auto each sequence at 1 - (1 - confidence) / m\n"
"(Bonferroni).  The interval shown is the one at --confidence; each result\n"
"says the level it was decided at.  Its first step needs more pairs (8 for 4\n"
"tests at 95%%), printed before the first pair.\n"
"\n"
CLI_EXIT_CODES_HELP
"\n"
"Verdicts (the gate's verdict line, its headline; the JSON's verdict_word in\n"
"lower case):\n");
	gate_verdicts_help(fp);
}

static const struct option gate_options[] = {
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	CLI_OPT_WORKLOAD,
	CLI_OPT_CLIENTS,
	CLI_OPT_PGBENCH,        /* -S -N -b -f -M, -j and --threads, as bench */
	CLI_OPT_DURATION,
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	CLI_OPT_SCALE,
	{ "set", required_argument, NULL, OPT_SET },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "budget", required_argument, NULL, OPT_TIME_BUDGET },
	{ "min-speedup", required_argument, NULL, OPT_MIN_SPEEDUP },
	{ "max-p99-regression", required_argument, NULL, OPT_MAX_P99 },
	{ "gate", required_argument, NULL, OPT_GATE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "instr-statements", required_argument, NULL, OPT_INSTR_STATEMENTS },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "counter", required_argument, NULL, OPT_COUNTER },
	{ "ci", required_argument, NULL, OPT_CI },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "require-regress", required_argument, NULL, OPT_REQUIRE_REGRESS },
	{ "regress-result", required_argument, NULL, OPT_REGRESS_RESULT },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	CLI_OPT_JSON,
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

static void gate_opts_init(struct gate_opts *o, struct gate *g)
{
	memset(o, 0, sizeof(*o));
	memset(g, 0, sizeof(*g));
	strvec_init(&o->workloads);
	strvec_init(&o->settings);
	o->clients = 2;
	o->protocol = "prepared";
	o->duration = 10;
	o->warmup = 2;
	o->pairs = 9;
	o->budget = -1;         /* not given: GATE_BUDGET with --pairs auto */
	o->seed = -1;           /* not given: drawn */
	g->order_seed = -1;
	g->method = STATS_CI_HL;
	g->conf = 0.95;
	g->min_pairs = GATE_MIN_PAIRS;
}

/* --min-speedup, --max-p99-regression and --gate: thresholds. */
static int threshold_option(struct gate *g, int c, const char *arg)
{
	struct strbuf err = STRBUF_INIT;
	char *t;
	double d;

	switch (c) {
	case OPT_MIN_SPEEDUP:
		if (cli_parse_number("--min-speedup", arg, 0.01, INFINITY, &d) < 0)
			return -1;
		t = xasprintf("tps>=%g", d);
		gate_thresholds_add(&g->th, t, NULL, GATE_TPS, 0, d);
		free(t);
		return 0;
	case OPT_MAX_P99: {
		size_t len = strlen(arg);
		char *copy = xstrdup(arg);
		if (len && copy[len - 1] == '%')
			copy[len - 1] = '\0';
		if (cli_parse_number("--max-p99-regression", copy, 0, INFINITY, &d) < 0) {
			free(copy);
			return -1;
		}
		free(copy);
		t = xasprintf("p99<=+%g%%", d);
		gate_thresholds_add(&g->th, t, NULL, GATE_LATENCY, gate_lat_index("p99"), 1 + d / 100);
		free(t);
		return 0;
	}
	default: /* OPT_GATE */
		if (gate_expr_parse(&g->th, arg, &err) < 0) {
			error("invalid value \"%s\" for --gate: %s", arg, err.buf);
			strbuf_release(&err);
			return -1;
		}
		strbuf_release(&err);
		return 0;
	}
}

/* --metric, --counter, --instr-statements, --ci, --confidence. */
static const char *const counter_choices[] = { "auto", "perf", "callgrind", NULL };
static const char *const ci_choices[] = { "hl", "bootstrap", NULL };
static const char *const regress_choices[] = { "passed", "failed", NULL };

static int method_option(struct gate_opts *o, struct gate *g, int c, const char *arg)
{
	double d = 0;
	int n, k;

	switch (c) {
	case OPT_METRIC:
		if (cli_parse_metrics(arg, &o->metrics) < 0)
			return -1;
		return 0;
	case OPT_COUNTER:
		if (cli_parse_choice("--counter", arg, counter_choices, &k) < 0)
			return -1;
		return instr_counter_parse(arg, &o->counter);
	case OPT_INSTR_STATEMENTS:
		if (cli_parse_int("--instr-statements", arg, 1, 100000000, &n) < 0)
			return -1;
		o->instr_statements = n;
		return 0;
	case OPT_CI:
		if (cli_parse_choice("--ci", arg, ci_choices, &k) < 0)
			return -1;
		g->method = k == 0 ? STATS_CI_HL : STATS_CI_BOOTSTRAP;
		return 0;
	default: /* OPT_CONFIDENCE */
		if (cli_parse_number("--confidence", arg, 0.5, INFINITY, &d) < 0 || d >= 1) {
			if (d >= 1)
				error("invalid value \"%s\" for --confidence: expected a level "
				      "from 0.5 to below 1, e.g. 0.95", arg);
			return -1;
		}
		g->conf = d;
		return 0;
	}
}

/* The runs: --workload, --clients, --duration, --warmup, --scale, --set,
 * --pairs (pgbench's letters, --threads among them: cli_pgbench_option). */
static int run_option(struct gate_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'W':
		return cli_parse_workloads(arg, &o->workloads);
	case 'c':
		return cli_parse_clients(arg, &o->clients);
	case 'T':
		return cli_parse_duration(arg, &o->duration);
	case OPT_WARMUP:
		return cli_parse_seconds("--warmup", arg, 1, &o->warmup);
	case 's':
		return cli_parse_scale(arg, &o->scale);
	case OPT_SET:
		return cli_parse_setting("--set", arg, &o->settings);
	case OPT_TIME_BUDGET:
		return cli_parse_budget(arg, &o->budget);
	default: /* OPT_PAIRS */
		if (cli_parse_pairs(arg, &o->pairs, &o->auto_pairs) < 0)
			return -1;
		o->pairs_given = !o->auto_pairs;
		return 0;
	}
}

/*
 * pgbench's letters (read by cli_pgbench_option, as bench reads them) as
 * the gate's runs: each script one more workload measured on its own (-S
 * is -W select-only, -b NAME -W NAME, -f FILE -W sql:FILE; a weight @W
 * would make a mix, which only bench runs), -M the runs' protocol, -j and
 * --threads their client threads.  0, or the usage error's exit code.
 */
static int pgbench_letters(struct gate_opts *o, const struct cli_pgbench *pg)
{
	if (pg->weighted)
		return cli_usage_error("-b/-f NAME@W: a weight makes a mix of scripts, which "
				       "pgbuild bench runs; the gate measures each workload on its "
				       "own (-W a,b)");
	for (int i = 0; i < pg->nspecs; i++) {
		const struct bench_script_spec *sp = &pg->specs[i];
		char *w = sp->builtin ? xstrdup(sp->builtin) : xasprintf("sql:%s", sp->file);
		int r = cli_parse_workloads(w, &o->workloads);
		free(w);
		if (r < 0)
			return cli_usage();
		/* -N -b simple-update: one workload, measured once */
		if (strvec_find(&o->workloads, o->workloads.v[o->workloads.nr - 1]) <
		    (long)o->workloads.nr - 1)
			strvec_remove(&o->workloads, o->workloads.nr - 1);
	}
	if (pg->protocol >= 0)
		o->protocol = bench_protocol_names[pg->protocol];
	return cli_pgbench_threads(pg, o->clients, &o->threads);
}

/* The option loop of parse_options, pgbench's letters into pg. */
static int parse_loop(struct gate_opts *o, struct gate *g, struct cli_pgbench *pg,
		      int argc, char **argv)
{
	int c, r;

	optind = 1;
	while ((c = cli_getopt(argc, argv, gate_options)) != -1) {
		if ((r = cli_pgbench_option(pg, c, optarg)) < 0)
			return cli_usage();
		if (r == CLI_PGBENCH_LISTED)
			return 0;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_BASELINE: o->baseline = optarg; continue;
		case OPT_CANDIDATE: o->candidate = optarg; continue;
		case OPT_REQUIRE_REGRESS: o->require_regress = optarg; continue;
		case OPT_CPUS: {
			/* checked now (with the CPUs there are), not when the
			 * first pair is pinned */
			cpu_set_t set;
			if (servercpu_parse_cpus(optarg, &set) < 0)
				return cli_usage();
			o->cpus = optarg;
			continue;
		}
		case OPT_JSON: o->json = optarg; continue;
		case OPT_JUNIT: o->junit = optarg; continue;
		case OPT_WORKDIR: o->workdir = optarg; continue;
		case OPT_NOISE: o->noise = optarg; continue;
		case OPT_SEED:
			if (cli_parse_int64("--seed", optarg, 0, GATE_SEED_MAX, &o->seed) < 0)
				return cli_usage();
			continue;
		case 'q': o->quiet = 1; continue;
		case OPT_REGRESS_RESULT: {
			/* passed, failed, or the run's `pgbuild regress --json`
			 * document (read when the gate starts) */
			int k;
			if (strchr(optarg, '/') || strchr(optarg, '.')) {
				if (cli_check_input("--regress-result", optarg) < 0)
					return cli_usage();
				o->regress_result = optarg;
				continue;
			}
			if (cli_parse_choice("--regress-result", optarg, regress_choices, &k) < 0)
				return cli_usage();
			o->regress_result = regress_choices[k];
			continue;
		}
		case OPT_MIN_SPEEDUP: case OPT_MAX_P99: case OPT_GATE:
			r = threshold_option(g, c, optarg);
			break;
		case OPT_METRIC: case OPT_COUNTER: case OPT_INSTR_STATEMENTS: case OPT_CI:
		case OPT_CONFIDENCE:
			r = method_option(o, g, c, optarg);
			break;
		case 'W': case 'c': case 'T': case OPT_WARMUP:
		case 's': case OPT_SET: case OPT_PAIRS: case OPT_TIME_BUDGET:
			r = run_option(o, c, optarg);
			break;
		case 'h':
			gate_usage(stdout);
			return 0;
		default:
			return cli_usage();
		}
		if (r < 0)
			return cli_usage();
	}
	return -1;
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct gate_opts *o, struct gate *g, int argc, char **argv)
{
	struct cli_pgbench pg = CLI_PGBENCH_INIT;
	int rc = parse_loop(o, g, &pg, argc, argv);

	if (rc < 0 && (rc = pgbench_letters(o, &pg)) == 0)
		rc = -1;
	cli_pgbench_release(&pg);
	return rc;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before anything is measured (and
 * before the error path would try to write them). */
static int check_host(const struct gate_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_FILE("--junit", o->junit),
		CLI_OUT_DIR("--workdir", o->workdir),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? -1 : 0;
}

static int is_dir_with_postgres(const char *prefix)
{
	char *p = xasprintf("%s/bin/postgres", prefix);
	int ok = access(p, X_OK) == 0;
	free(p);
	return ok;
}

/*
 * What the options mean together.  Returns 0, or the exit code with
 * *why set: usage errors (the hint printed), and a baseline or candidate
 * that is not an install.
 */
/* NAME>=1 of each metric measured (metric/metrics.h's default_unless). */
static int default_thresholds(const struct gate_opts *o, struct gate *g)
{
	struct strbuf item = STRBUF_INIT, err = STRBUF_INIT;
	int rc = 0;

	for (const struct metric_desc *m = metrics; m->name && !rc; m++) {
		if (!(o->metrics & m->bit) || (o->metrics & m->default_unless))
			continue;
		strbuf_reset(&item);
		strbuf_addf(&item, "%s>=1", m->name);
		if ((rc = gate_expr_parse(&g->th, item.buf, &err)) < 0)
			error("%s", err.buf);
	}
	strbuf_release(&item);
	strbuf_release(&err);
	return rc;
}

/*
 * Both installs' postgres runs (`postgres --version`, as the server user:
 * cluster_server_version), before any pair (bench asks the same of each
 * run), after every option is checked: a usage error is said without
 * running anything.  0, or the exit code after the error.
 */
static int check_installs_run(const struct gate_opts *o, const char **why)
{
	for (int s = 0; s < 2; s++) {
		const char *p = s ? o->candidate : o->baseline;
		char *version = cluster_server_version(p);
		if (!version) {
			error("%s %s: its postgres does not run: not a working PostgreSQL install",
			      s ? "--candidate" : "--baseline", p);
			*why = "baseline or candidate is not a working PostgreSQL install";
			return PGBUILD_EXIT_ERROR;
		}
		free(version);
	}
	*why = NULL;
	return 0;
}

static int check_options(struct gate_opts *o, struct gate *g, int argc, char **argv,
			 const char **why)
{
	int want_tps;

	*why = "usage error";
	if (!o->metrics)
		o->metrics = METRIC_TPS;
	want_tps = (o->metrics & METRIC_TPS) != 0;
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!o->baseline || !o->candidate)
		return cli_usage_error("--baseline and --candidate are required");
	/* an install that is none is an input missing, said first */
	for (int s = 0; s < 2; s++)
		if (!is_dir_with_postgres(s ? o->candidate : o->baseline)) {
			error("%s %s: no bin/postgres: not an installed PostgreSQL",
			      s ? "--candidate" : "--baseline", s ? o->candidate : o->baseline);
			*why = "baseline or candidate is not a working PostgreSQL install";
			return PGBUILD_EXIT_ERROR;
		}
	if (o->require_regress && o->regress_result)
		return cli_usage_error("--require-regress and --regress-result exclude each other");
	if (preflight_threshold_workloads(&g->th) < 0)
		return cli_usage();
	/* the fewest pairs with an interval at this level */
	g->min_pairs = gate_pairs_needed(g->conf, 1);
	if (o->budget >= 0 && !o->auto_pairs)
		return cli_usage_error("--budget needs --pairs auto");
	if (o->auto_pairs && !want_tps)
		return cli_usage_error("--pairs auto needs --metric tps (alone or in a list)");
	g->sequential = o->auto_pairs;
	if (o->auto_pairs && o->budget < 0)
		o->budget = GATE_BUDGET;
	g->budget = o->auto_pairs ? o->budget : 0;
	/* workloads: given, else named by thresholds, else select-only */
	if (!o->workloads.nr) {
		for (size_t i = 0; i < g->th.nr; i++)
			if (g->th.v[i].workload && strvec_find(&o->workloads, g->th.v[i].workload) < 0)
				strvec_push(&o->workloads, g->th.v[i].workload);
		if (!o->workloads.nr)
			workloads_push(&o->workloads, WL_DEFAULT);
	}
	/* no thresholds: "not significantly slower", on the metrics measured */
	if (!g->th.nr && default_thresholds(o, g) < 0)
		return cli_usage();
	if (gate_thresholds_check(&g->th, o->metrics, &o->workloads) < 0)
		return cli_usage();
	/* enough pairs for the family's first Holm step (gate.h), known
	 * now: a bound without an interval at its level is untested */
	if (want_tps && !o->auto_pairs) {
		size_t m = gate_family_bound(&g->th, &o->workloads,
					     o->noise && !strcmp(o->noise, "none"));
		size_t need = gate_pairs_needed(g->conf, m);
		if (!o->pairs_given && (size_t)o->pairs < need)
			o->pairs = (int)need;   /* the default: the family's need */
		if (preflight_pairs(o->pairs, NULL, g->conf, m) < 0)
			return cli_usage();
	}
	for (size_t i = 0; i < o->workloads.nr; i++)
		gate_workload_get(g, o->workloads.v[i], 1);
	for (size_t i = 0; i < g->th.nr; i++)
		if (g->th.v[i].workload)
			gate_workload_get(g, g->th.v[i].workload, 1);
	return check_installs_run(o, why);
}

/*
 * --noise: the resolution of every workload's instructions and cycles
 * estimate from both builds' layout floors (noise/floor.h's
 * noise_floors_resolution, the one place it is computed), and what the
 * result says of it; without a floor (and no --noise none) their
 * thresholds will be undecided, said here before anything runs.  0, or
 * the exit code after the error (a malformed floor, a named floor of
 * another binary or of too few variants).
 */
static int apply_noise_floor(const struct gate_opts *o, struct gate *g, const char **why)
{
	/* the deterministic metrics (metric/metrics.h) and their threshold kinds */
	static const unsigned bits[] = { METRIC_INSTR, METRIC_CYCLES };
	static const enum gate_kind kinds[] = { GATE_INSTRUCTIONS, GATE_CYCLES };
	struct noise_floors f;
	char *missing = NULL;     /* the first reason a resolution is missing */

	if (!(o->metrics & metrics_deterministic()))
		return 0;
	if (noise_floors_find(&f, o->noise, o->baseline, o->candidate) < 0) {
		*why = "the --noise floor cannot be used";
		return PGBUILD_EXIT_ERROR;
	}
	/* the rule at the gate's confidence, as its tps claims */
	f.z = noise_floor_z_at(g->conf);
	g->noise_state = xstrdup(noise_floor_state_name(f.state));
	g->noise_note = xstrdup(f.note);
	for (size_t i = 0; i < g->nr_wl; i++) {
		for (int m = 0; m < 2; m++) {
			char *source;
			double r;
			int from;
			if (!(o->metrics & bits[m]))
				continue;
			from = noise_floors_resolution(&f, g->wl[i].name, bits[m], &r, &source);
			if (from < 0 && !missing)
				missing = xstrdup(source);
			gate_set_resolution(&g->wl[i], kinds[m], r, source);
			/* from the floors: built at f.z, which the family
			 * correction rescales (gate.h) */
			if (from > 0)
				gate_set_resolution_z(&g->wl[i], kinds[m], f.z,
						      noise_floors_variants(&f, g->wl[i].name,
									    bits[m]) - 1);
			free(source);
		}
	}
	if (missing)
		fprintf(stderr, "pgbuild: note: %s: thresholds on instructions or the cycles "
			"estimate without one are undecided (exit 3)\n", missing);
	free(missing);
	if (f.state == NOISE_FLOOR_USED)
		g->noise_file = xstrdup(f.a.file);
	noise_floors_release(&f);
	return 0;
}

int cmd_gate_check(int argc, char **argv)
{
	const char *command = cli_command(), *why;
	struct gate_opts o;
	struct gate g;
	int rc;

	cli_set_command("gate");
	gate_opts_init(&o, &g);
	rc = parse_options(&o, &g, argc, argv);
	if (rc == 0)            /* --help: printed, and no option to pass on */
		rc = cli_usage_error("--help is not an option to pass on to pgbuild gate");
	else if (rc < 0)
		rc = check_options(&o, &g, argc, argv, &why);
	cli_set_command(command);
	strvec_clear(&o.workloads);
	strvec_clear(&o.settings);
	gate_clear(&g);
	return rc;
}

PGBUILD_COMMAND(gate, "benchmark baseline and candidate interleaved; judge by thresholds")
{
	struct gate_opts o;
	struct gate g;
	const char *stop_reason = "usage error";  /* why the gate stopped before deciding */
	int rc, decided = 0;

	gate_opts_init(&o, &g);
	rc = parse_options(&o, &g, argc, argv);
	if (rc == 0)
		goto out;       /* --help */
	if (rc < 0 && check_host(&o) != 0) {
		rc = PGBUILD_EXIT_ERROR;
		goto out;       /* nowhere to write the verdict: nothing is run */
	}
	/* from here on every exit path writes --json/--junit (gate_finish) */
	gate_catch_signals();
	if (rc < 0 && !(rc = check_options(&o, &g, argc, argv, &stop_reason)) &&
	    !(rc = apply_noise_floor(&o, &g, &stop_reason))) {
		rc = gate_measure(&o, &g, &stop_reason);
		decided = rc >= 0;
		if (decided) {
			report_gate_terminal(&g, o.baseline, o.candidate, stdout);
			if (gate_write_outputs(&o, &g) < 0 && rc == 0)
				rc = PGBUILD_EXIT_ERROR;
		}
		if (rc < 0)
			rc = PGBUILD_EXIT_ERROR;
	}
	gate_finish(&o, &g, decided, stop_reason);
out:
	strvec_clear(&o.workloads);
	strvec_clear(&o.settings);
	gate_clear(&g);
	return rc;
}
