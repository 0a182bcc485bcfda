/*
 * gate.c - `pgbuild gate`: benchmark a baseline (A) and a candidate (B)
 * install interleaved, decide against thresholds, exit 0 pass / 1 fail /
 * 2 could not measure.
 *
 * Each measurement is one `pgbuild bench` child (a fresh private cluster:
 * the server is restarted between runs, data and settings identical), so a
 * crashing candidate cannot take the gate down with it.  Pairs alternate
 * their order (A B, B A, A B, ...) so slow drift of the machine cancels
 * out, and every workload is measured within each pair.  The analysis and
 * the verdict are in gate-expr.c (pure, unit-tested); instructions per
 * transaction come from instr.c (perf stat or callgrind).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdio.h"
#include "gate/gate.h"
#include "metric/instr.h"
#include "gate/junit.h"
#include "pgbuild.h"
#include "report/report.h"

struct gate_opts {
	const char *baseline, *candidate;
	struct strvec workloads;
	struct strvec settings;   /* --set name=value, passed to bench */
	int clients, threads;
	double duration, warmup;
	int scale;
	int pairs;
	const char *metric;       /* tps, instructions, both */
	long instr_statements;
	enum instr_counter counter; /* --counter */
	const char *json, *junit, *workdir;
	const char *require_regress, *regress_result;
	const char *cpus;
	int keep, quiet;
};

static void gate_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild gate --baseline PREFIX --candidate PREFIX [options]\n"
"\n"
"Benchmark A (baseline) and B (candidate) interleaved, in pairs of alternating\n"
"order, and decide whether B meets the thresholds with statistical confidence.\n"
"\n"
"  --baseline PREFIX         installed PostgreSQL to compare against (A)\n"
"  --candidate PREFIX        installed PostgreSQL under test (B)\n"
"  --workload W              bench workload (repeatable; default: those the\n"
"                            thresholds name, else select-only)\n"
"  --clients N               client connections (default 2)\n"
"  --threads N               client threads (default: bench's)\n"
"  --duration S              seconds per run (default 10)\n"
"  --warmup S                seconds of warm-up per run (default 2)\n"
"  --scale N                 pgbench scale of the data (default: bench's)\n"
"  --set NAME=VALUE          server setting for every run (repeatable)\n"
"  --pairs N                 A/B pairs (default 9; 6 is the fewest that give\n"
"                            a 95%% interval)\n"
"  --min-speedup X           throughput B/A of every workload >= X\n"
"  --max-p99-regression PCT  p99 latency B/A of every workload <= 1+PCT/100\n"
"  --gate EXPR               thresholds, e.g. 'select-only>=1.05,tpcb>=1.00,p99<=+10%%'\n"
"  --metric tps|instructions|both\n"
"                            what to measure (default tps); instructions per\n"
"                            transaction of the server in single-user mode\n"
"  --counter auto|perf|callgrind\n"
"                            what counts instructions: perf stat where hardware\n"
"                            counters work, else callgrind (auto, the default:\n"
"                            probes `perf stat -e instructions:u true` once)\n"
"  --instr-statements N      statements per callgrind run (default per workload)\n"
"  --ci hl|bootstrap         interval: Hodges-Lehmann + Wilcoxon signed-rank\n"
"                            (default) or bootstrap of the median\n"
"  --confidence P            confidence level of the interval (default 0.95)\n"
"  --require-regress BUILDDIR  run `pgbuild regress` on the candidate's build\n"
"                            tree first; a failure fails the gate\n"
"  --regress-result passed|failed  regression outcome already known\n"
"  --cpus LIST               pin the benchmark (client and server) to CPUs, e.g. 0-1\n"
"  --json FILE               every run's numbers, the analysis and the verdict\n"
"  --junit FILE              JUnit XML, one testcase per threshold\n"
"  --workdir DIR             keep bench outputs here (default: a temporary\n"
"                            directory, removed at the end)\n"
"  --quiet                   no progress lines\n"
"\n"
"Decision: a claim of improvement (a speed ratio X > 1, a latency ratio X < 1)\n"
"passes only when met with statistical confidence: the lower end of the\n"
"interval of B/A is >= X (latency: the upper end <= X).  A bound (speed X <= 1,\n"
"latency X >= 1) fails only when the whole interval breaches it.  Instructions\n"
"are nearly deterministic and compared as single numbers (to 0.01%%).\n"
"\n"
"Exit: 0 pass, 1 fail (threshold missed, regression or correctness failure),\n"
"2 could not measure (bench errors, too few valid pairs, bad usage).\n");
}

int gate_parse_cpus(const char *list, cpu_set_t *set)
{
	const char *p = list;
	CPU_ZERO(set);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= CPU_SETSIZE)
			return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*end == ',')
			end++;
		else if (*end)
			return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		p = end;
	}
	return 0;
}

static int pin_cpus(const char *list)
{
	cpu_set_t set;
	if (gate_parse_cpus(list, &set) < 0)
		return -1;
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return error("--cpus %s: cannot pin: %s", list, strerror(errno));
	return 0;
}

/*
 * SIGINT/SIGTERM: stop after the bench child in flight (it gets the signal
 * too when the whole process group is signalled), remove the temporary
 * directory, and die of the same signal.
 */
static volatile sig_atomic_t gate_interrupted;

static void gate_on_signal(int sig)
{
	gate_interrupted = sig;
}

static void gate_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = gate_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Read one bench JSON into a run. */
static void load_bench_json(struct gate_run *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *v;
	const struct json_value *lat, *valid;
	if (strbuf_read_file(&sb, path) < 0) {
		if (r->exit == 0)
			r->exit = 2;
		strbuf_release(&sb);
		return;
	}
	v = json_parse(sb.buf, sb.len, &err);
	if (!v) {
		warning("%s: %s", path, err.buf);
		if (r->exit == 0)
			r->exit = 2;
		goto out;
	}
	r->tps = json_get_num(v, "tps", NAN);
	lat = json_get(v, "latency_ms");
	for (int k = 0; k < GATE_NLAT; k++)
		r->lat[k] = json_get_num(lat, gate_lat_keys[k], NAN);
	valid = json_get(v, "valid");
	if (valid && valid->type == JSON_BOOL && !valid->u.boolean && r->exit == 0)
		r->exit = 1;
	r->json = gate_json_text(v);
	json_free(v);
out:
	strbuf_release(&sb);
	strbuf_release(&err);
}

static int bench_once(const struct gate_opts *o, const char *dir, const char *workload,
		      int pair, char build, struct gate_run *r)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *json = xasprintf("%s/%s-%02d-%c.json", dir, workload, pair, build);
	char *log = xasprintf("%s/%s-%02d-%c.log", dir, workload, pair, build);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	unlink(json);
	strvec_pushl(&cp.args, pgbuild_self(), "bench", "--prefix",
		     build == 'A' ? o->baseline : o->candidate, "--workload", workload, NULL);
	strvec_pushf(&cp.args, "--clients=%d", o->clients);
	if (o->threads)
		strvec_pushf(&cp.args, "--threads=%d", o->threads);
	strvec_pushf(&cp.args, "--duration=%g", o->duration);
	strvec_pushf(&cp.args, "--warmup=%g", o->warmup);
	if (o->scale)
		strvec_pushf(&cp.args, "--scale=%d", o->scale);
	for (size_t i = 0; i < o->settings.nr; i++)
		strvec_pushl(&cp.args, "--set", o->settings.v[i], NULL);
	strvec_pushl(&cp.args, "--datadir-template", NULL);
	strvec_pushf(&cp.args, "%s/templates", dir);
	/* the same keys for A and B within a pair */
	strvec_pushf(&cp.args, "--seed=%d", 1000 + pair);
	strvec_pushl(&cp.args, "--quiet", "--json", json, NULL);
	cp.no_stdin = 1;
	if (fd >= 0) {
		cp.out = fd;
		cp.err = fd;
	}
	r->pair = pair;
	r->build = build;
	r->exit = run_command(&cp);
	if (fd >= 0)
		close(fd);
	if (r->exit < 0 || r->exit > 2)
		r->exit = 2;
	load_bench_json(r, json);
	if (r->exit != 0 && !o->quiet) {
		char *last = textfile_last_line(log, NULL);
		warning("bench %s on %c (pair %d) exited %d: %s (log: %s)", workload, build,
			pair + 1, r->exit, last ? last : "", log);
		free(last);
	}
	child_process_clear(&cp);
	free(json);
	free(log);
	return r->exit;
}

static int run_regress(const struct gate_opts *o, struct gate *g)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc;
	if (o->regress_result) {
		g->regress = !strcmp(o->regress_result, "passed") ? REGRESS_PASSED : REGRESS_FAILED;
		g->regress_note = xasprintf("regression suite %s (given by --regress-result)",
					    o->regress_result);
		return 0;
	}
	if (!o->require_regress) {
		g->regress = REGRESS_NOT_RUN;
		return 0;
	}
	if (!o->quiet)
		fprintf(stderr, "gate: regression suite of %s ...\n", o->require_regress);
	strvec_pushl(&cp.args, pgbuild_self(), "regress", "--builddir", o->require_regress, NULL);
	cp.no_stdin = 1;
	rc = capture_command(&cp, &out, 1);
	child_process_clear(&cp);
	strbuf_rtrim(&out);
	{
		const char *last = strrchr(out.buf, '\n');
		g->regress_note = xstrdup(last ? last + 1 : out.buf);
	}
	strbuf_release(&out);
	if (rc == 0) {
		g->regress = REGRESS_PASSED;
	} else if (rc == 1) {
		g->regress = REGRESS_FAILED;
	} else {
		return error("pgbuild regress --builddir %s could not run (exit %d): %s",
			     o->require_regress, rc, g->regress_note);
	}
	return 0;
}

static char *settings_json(const struct gate_opts *o);

/*
 * Write path atomically: a temporary file next to it, then rename, so a
 * reader (a CI step) sees the old document or the new one, never a torn one.
 */
static int write_file(const char *path, const struct strbuf *sb)
{
	return write_file_atomic(path, sb->buf, sb->len);
}

/* --json and --junit of a gate that decided, or stopped (gate_stop). */
static int write_outputs(const struct gate_opts *o, const struct gate *g)
{
	struct strbuf out = STRBUF_INIT;
	char *settings = settings_json(o);
	int rc = 0;
	if (o->json) {
		gate_write_json(g, &out, o->baseline, o->candidate, settings);
		rc |= write_file(o->json, &out);
	}
	if (o->junit) {
		strbuf_reset(&out);
		junit_write(g, &out, "pgbuild gate");
		rc |= write_file(o->junit, &out);
	}
	free(settings);
	strbuf_release(&out);
	return rc ? -1 : 0;
}

static char *settings_json(const struct gate_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "pairs"); json_int(&jw, o->pairs);
	json_key(&jw, "clients"); json_int(&jw, o->clients);
	json_key(&jw, "threads"); json_int(&jw, o->threads);
	json_key(&jw, "duration"); json_double(&jw, o->duration);
	json_key(&jw, "warmup"); json_double(&jw, o->warmup);
	json_key(&jw, "scale"); json_int(&jw, o->scale);
	json_key(&jw, "metric"); json_string(&jw, o->metric);
	json_key(&jw, "counter"); json_string(&jw, instr_counter_name(o->counter));
	json_key(&jw, "cpus"); json_string(&jw, o->cpus);
	json_key(&jw, "set");
	json_strvec(&jw, &o->settings);
	json_object_end(&jw);
	return strbuf_detach(&sb, NULL);
}

enum {
	OPT_BASELINE = 256, OPT_CANDIDATE, OPT_WORKLOAD, OPT_CLIENTS, OPT_THREADS,
	OPT_DURATION, OPT_WARMUP, OPT_SCALE, OPT_SET, OPT_PAIRS, OPT_MIN_SPEEDUP,
	OPT_MAX_P99, OPT_GATE, OPT_METRIC, OPT_INSTR_N, OPT_CI, OPT_REQ_REGRESS,
	OPT_REGRESS_RESULT, OPT_CPUS, OPT_JSON, OPT_JUNIT, OPT_WORKDIR, OPT_QUIET,
	OPT_CONFIDENCE, OPT_COUNTER, OPT_HELP,
};

static const struct option gate_options[] = {
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	{ "workload", required_argument, NULL, OPT_WORKLOAD },
	{ "clients", required_argument, NULL, OPT_CLIENTS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "set", required_argument, NULL, OPT_SET },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "min-speedup", required_argument, NULL, OPT_MIN_SPEEDUP },
	{ "max-p99-regression", required_argument, NULL, OPT_MAX_P99 },
	{ "gate", required_argument, NULL, OPT_GATE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "instr-statements", required_argument, NULL, OPT_INSTR_N },
	{ "counter", required_argument, NULL, OPT_COUNTER },
	{ "ci", required_argument, NULL, OPT_CI },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "require-regress", required_argument, NULL, OPT_REQ_REGRESS },
	{ "regress-result", required_argument, NULL, OPT_REGRESS_RESULT },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int is_dir_with_postgres(const char *prefix)
{
	char *p = xasprintf("%s/bin/postgres", prefix);
	int ok = access(p, X_OK) == 0;
	free(p);
	return ok;
}

PGBUILD_COMMAND(gate, "benchmark baseline and candidate interleaved and decide against thresholds")
{
	struct gate_opts o = { 0 };
	struct gate g = { 0 };
	struct strbuf err = STRBUF_INIT;
	char *dir = NULL;
	const char *stop_reason = NULL;  /* why the gate stopped before deciding */
	int c, rc = PGBUILD_EXIT_ERROR, tmpdir = 0, decided = 0, help = 0;
	int n;
	double d = 0;
	int want_tps, want_instr;

	o.clients = 2;
	o.duration = 10;
	o.warmup = 2;
	o.pairs = 9;
	o.metric = "tps";
	g.method = STATS_CI_HL;
	g.conf = 0.95;
	g.min_pairs = 6;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", gate_options, NULL)) != -1) {
		switch (c) {
		case OPT_BASELINE: o.baseline = optarg; break;
		case OPT_CANDIDATE: o.candidate = optarg; break;
		case OPT_WORKLOAD: strvec_push(&o.workloads, optarg); break;
		case OPT_CLIENTS:
			if (parse_int_option("--clients", optarg, 1, 10000, &o.clients) < 0)
				goto usage;
			break;
		case OPT_THREADS:
			if (parse_int_option("--threads", optarg, 1, 10000, &o.threads) < 0)
				goto usage;
			break;
		case OPT_DURATION:
			if (parse_number_option("--duration", optarg, 0.1, INFINITY, &o.duration) < 0)
				goto usage;
			break;
		case OPT_WARMUP:
			if (parse_number_option("--warmup", optarg, 0, INFINITY, &o.warmup) < 0)
				goto usage;
			break;
		case OPT_SCALE:
			if (parse_int_option("--scale", optarg, 1, 100000, &o.scale) < 0)
				goto usage;
			break;
		case OPT_SET:
			if (!strchr(optarg, '=')) {
				error("invalid value \"%s\" for --set: expected NAME=VALUE", optarg);
				goto usage;
			}
			strvec_push(&o.settings, optarg);
			break;
		case OPT_PAIRS:
			if (parse_int_option("--pairs", optarg, 1, 1000, &o.pairs) < 0)
				goto usage;
			break;
		case OPT_MIN_SPEEDUP: {
			char *t;
			if (parse_number_option("--min-speedup", optarg, 0.01, INFINITY, &d) < 0)
				goto usage;
			t = xasprintf("tps>=%g", d);
			gate_thresholds_add(&g.th, t, NULL, GATE_TPS, 0, d);
			free(t);
			break;
		}
		case OPT_MAX_P99: {
			char *t;
			const char *v = optarg;
			size_t len = strlen(v);
			char *copy = xstrdup(v);
			if (len && copy[len - 1] == '%')
				copy[len - 1] = '\0';
			if (parse_number_option("--max-p99-regression", copy, 0, INFINITY, &d) < 0) {
				free(copy);
				goto usage;
			}
			free(copy);
			t = xasprintf("p99<=+%g%%", d);
			gate_thresholds_add(&g.th, t, NULL, GATE_LATENCY, gate_lat_index("p99"), 1 + d / 100);
			free(t);
			break;
		}
		case OPT_GATE:
			if (gate_expr_parse(&g.th, optarg, &err) < 0) {
				error("invalid value \"%s\" for --gate: %s", optarg, err.buf);
				goto usage;
			}
			break;
		case OPT_METRIC:
			if (strcmp(optarg, "tps") && strcmp(optarg, "instructions") && strcmp(optarg, "both")) {
				error("invalid value \"%s\" for --metric: expected tps, instructions or both", optarg);
				goto usage;
			}
			o.metric = optarg;
			break;
		case OPT_COUNTER:
			if (instr_counter_parse(optarg, &o.counter) < 0) {
				error("invalid value \"%s\" for --counter: expected auto, perf or callgrind",
				      optarg);
				goto usage;
			}
			break;
		case OPT_INSTR_N:
			if (parse_int_option("--instr-statements", optarg, 1, 100000000, &n) < 0)
				goto usage;
			o.instr_statements = n;
			break;
		case OPT_CI:
			if (!strcmp(optarg, "hl"))
				g.method = STATS_CI_HL;
			else if (!strcmp(optarg, "bootstrap"))
				g.method = STATS_CI_BOOTSTRAP;
			else {
				error("invalid value \"%s\" for --ci: expected hl or bootstrap", optarg);
				goto usage;
			}
			break;
		case OPT_CONFIDENCE:
			if (parse_number_option("--confidence", optarg, 0.5, INFINITY, &d) < 0 || d >= 1) {
				if (d >= 1)
					error("invalid value \"%s\" for --confidence: expected a level "
					      "from 0.5 to below 1, e.g. 0.95", optarg);
				goto usage;
			}
			g.conf = d;
			break;
		case OPT_REQ_REGRESS: o.require_regress = optarg; break;
		case OPT_REGRESS_RESULT:
			if (strcmp(optarg, "passed") && strcmp(optarg, "failed")) {
				error("invalid value \"%s\" for --regress-result: expected passed or failed", optarg);
				goto usage;
			}
			o.regress_result = optarg;
			break;
		case OPT_CPUS: o.cpus = optarg; break;
		case OPT_JSON: o.json = optarg; break;
		case OPT_JUNIT: o.junit = optarg; break;
		case OPT_WORKDIR: o.workdir = optarg; break;
		case OPT_QUIET: o.quiet = 1; break;
		case OPT_HELP: case 'h':
			gate_usage(stdout);
			rc = 0;
			help = 1;
			goto done;
		default:
			goto usage;
		}
	}
	/* from here on every exit path writes --json/--junit (see done:) */
	gate_catch_signals();
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		goto usage;
	}
	if (!o.baseline || !o.candidate) {
		error("--baseline and --candidate are required");
		goto usage;
	}
	if (!is_dir_with_postgres(o.baseline) || !is_dir_with_postgres(o.candidate)) {
		error("%s: no bin/postgres: not an installed PostgreSQL",
		      is_dir_with_postgres(o.baseline) ? o.candidate : o.baseline);
		stop_reason = "baseline or candidate is not an installed PostgreSQL";
		goto done;
	}
	if (o.require_regress && o.regress_result) {
		error("--require-regress and --regress-result exclude each other");
		goto usage;
	}
	/* the fewest pairs with an interval at this level: 2^-n <= (1-conf)/2 */
	g.min_pairs = 1;
	while (ldexp(1.0, -(int)g.min_pairs) > (1 - g.conf) / 2 + 1e-12)
		g.min_pairs++;
	if (g.min_pairs < 6)
		g.min_pairs = 6;
	want_tps = strcmp(o.metric, "instructions") != 0;
	if (want_tps && (size_t)o.pairs < g.min_pairs) {
		error("--pairs %d: a %g%% interval needs at least %zu pairs", o.pairs,
		      g.conf * 100, g.min_pairs);
		goto usage;
	}
	want_instr = strcmp(o.metric, "tps") != 0;

	/* workloads: given, else named by thresholds, else select-only */
	if (!o.workloads.nr) {
		for (size_t i = 0; i < g.th.nr; i++)
			if (g.th.v[i].workload && strvec_find(&o.workloads, g.th.v[i].workload) < 0)
				strvec_push(&o.workloads, g.th.v[i].workload);
		if (!o.workloads.nr)
			strvec_push(&o.workloads, "select-only");
	}
	/* no thresholds: "not significantly slower", on the metric measured */
	if (!g.th.nr) {
		if (want_tps)
			gate_thresholds_add(&g.th, "tps>=1", NULL, GATE_TPS, 0, 1.0);
		else
			gate_thresholds_add(&g.th, "instructions>=1", NULL, GATE_INSTRUCTIONS, 0, 1.0);
	}
	for (size_t i = 0; i < g.th.nr; i++) {
		if (g.th.v[i].kind == GATE_INSTRUCTIONS && !want_instr) {
			error("threshold \"%s\" needs --metric instructions or both", g.th.v[i].text);
			goto usage;
		}
		if (g.th.v[i].kind != GATE_INSTRUCTIONS && !want_tps) {
			error("threshold \"%s\" needs --metric tps or both", g.th.v[i].text);
			goto usage;
		}
	}
	for (size_t i = 0; i < o.workloads.nr; i++)
		gate_workload_get(&g, o.workloads.v[i], 1);
	for (size_t i = 0; i < g.th.nr; i++)
		if (g.th.v[i].workload)
			gate_workload_get(&g, g.th.v[i].workload, 1);

	if (want_instr) {
		struct strbuf probe = STRBUF_INIT;
		enum instr_counter use;
		if (instr_pick_counter(o.counter, &use, &probe) < 0) {
			error("--counter perf: %s", probe.buf);
			stop_reason = "--counter perf: hardware counters do not work here";
			strbuf_release(&probe);
			goto done;
		}
		g.counter = xstrdup(instr_counter_name(use));
		g.counter_note = strbuf_detach(&probe, NULL);
		o.counter = use;
		if (!o.quiet)
			fprintf(stderr, "gate: instructions counted by %s (%s)\n", g.counter,
				g.counter_note);
	}
	if (o.cpus && pin_cpus(o.cpus) < 0) {
		stop_reason = "--cpus: cannot pin the benchmark";
		goto done;
	}

	if (o.workdir) {
		if (mkdir_p(o.workdir) < 0) {
			stop_reason = "cannot create the --workdir";
			goto done;
		}
		dir = xstrdup(o.workdir);
	} else {
		const char *t = getenv("TMPDIR");
		dir = xasprintf("%s/pgbuild-gate.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			error("cannot create a directory %s: %s", dir, strerror(errno));
			stop_reason = "cannot create a temporary directory";
			goto done;
		}
		tmpdir = 1;
	}
	chmod(dir, 0755); /* the server user reads templates below it */

	if (run_regress(&o, &g) < 0) {
		stop_reason = "the candidate's regression suite could not run";
		goto done;
	}

	if (want_tps) {
		for (int p = 0; p < o.pairs && !gate_interrupted; p++) {
			for (size_t k = 0; k < g.nr_wl && !gate_interrupted; k++) {
				struct gate_workload *w = &g.wl[k];
				for (int half = 0; half < 2 && !gate_interrupted; half++) {
					/* even pairs A then B, odd pairs B then A */
					char build = (half == 0) == (p % 2 == 0) ? 'A' : 'B';
					struct gate_run *r = gate_workload_add_run(w);
					bench_once(&o, dir, w->name, p, build, r);
					if (!o.quiet)
						fprintf(stderr, "gate: %-12s pair %d/%d %c: %s%.0f tps\n",
							w->name, p + 1, o.pairs, build,
							r->exit ? "(failed) " : "", r->tps);
				}
			}
		}
	}
	if (want_instr) {
		for (size_t k = 0; k < g.nr_wl && !gate_interrupted; k++) {
			struct gate_workload *w = &g.wl[k];
			struct strbuf note = STRBUF_INIT;
			double ia = NAN, ib = NAN;
			int ra, rb;
			if (!o.quiet)
				fprintf(stderr, "gate: %-12s instructions per transaction (%s) ...\n",
					w->name, g.counter);
			ra = instr_measure(o.baseline, w->name, dir, o.instr_statements, o.counter,
					   &ia, &note);
			if (ra == 0) {
				strbuf_reset(&note);
				rb = instr_measure(o.candidate, w->name, dir, o.instr_statements, o.counter,
						   &ib, &note);
			} else {
				rb = -1;
			}
			if (ra == 0 && rb == 0) {
				w->instr = INSTR_OK;
				w->instr_a = ia;
				w->instr_b = ib;
				w->instr_note = xasprintf("%s, single-user mode, %s",
							  o.counter == INSTR_COUNTER_PERF ? "perf stat" : "callgrind",
							  instr_describe(w->name, o.instr_statements));
			} else {
				w->instr = INSTR_UNAVAILABLE;
				w->instr_note = xasprintf("%s: %s", ra == 0 ? "candidate" : "baseline", note.buf);
				warning("instructions for %s unavailable: %s", w->name, w->instr_note);
			}
			strbuf_release(&note);
		}
	}

	if (gate_interrupted)
		goto done;
	gate_analyse(&g);
	rc = gate_decide(&g);
	decided = 1;

	report_gate_terminal(&g, o.baseline, o.candidate, stdout);
	if (write_outputs(&o, &g) < 0 && rc == 0)
		rc = PGBUILD_EXIT_ERROR;
	goto done;

usage:
	fprintf(stderr, "Try \"pgbuild gate --help\" for more information.\n");
	rc = PGBUILD_EXIT_ERROR;
	stop_reason = "usage error";
done:
	/*
	 * Stopped before deciding (an error or a signal): never leave an old
	 * document in place; write one that says so.
	 */
	if (!decided && !help && (o.json || o.junit)) {
		char *why;
		if (gate_interrupted) {
			why = xasprintf("interrupted by signal %d; nothing decided", (int)gate_interrupted);
			error("%s", why);
		} else {
			why = xasprintf("%s; nothing decided", stop_reason ? stop_reason :
					"the gate stopped on an error");
		}
		gate_stop(&g, why, gate_interrupted);
		write_outputs(&o, &g);
		free(why);
	} else if (gate_interrupted && !decided) {
		error("interrupted by signal %d; nothing decided", (int)gate_interrupted);
	}
	if (dir && tmpdir && remove_tree(dir) < 0)
		warning("cannot remove \"%s\": %s", dir, strerror(errno));
	free(dir);
	strvec_clear(&o.workloads);
	strvec_clear(&o.settings);
	strbuf_release(&err);
	gate_clear(&g);
	if (gate_interrupted) {
		int sig = gate_interrupted;
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return rc;
}
