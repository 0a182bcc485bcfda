/*
 * sensitivity.c - `pgbuild sensitivity`: the compiler-sensitivity
 * watermarks of a workload.
 *
 * The same source is built twice through pgoptcc, once with every unit at
 * the low watermark (default -O0) and once at the high one (default -O3),
 * and `pgbuild gate` measures the high build against the low one on the
 * workload(s).  The ratio bounds what any choice of optimization flags can
 * do for this workload on this machine: a workload bound by I/O, locks or
 * the network barely moves between -O0 and -O3, and then tuning flags is
 * not worth an afternoon; one that doubles is worth a closer look.  With
 * --baseline (the stock build) the stock -O2 build is placed between the
 * two: how much of the range stock already takes.
 *
 * Builds live in WORKDIR/low and WORKDIR/high and are reused (pgbuild
 * build is incremental) - or are given as --low-prefix/--high-prefix.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/buildlog.h"
#include "pgbuild.h"

struct sens_opts {
	const char *src;
	const char *workdir;
	const char *low, *high;          /* flags */
	const char *low_prefix, *high_prefix;
	const char *baseline;            /* stock build, optional */
	const char *metric;
	const char *json;
	struct strvec workloads;
	int pairs, duration, clients, jobs;
	int quiet;
};

static void sens_usage(FILE *fp)
{
	fputs("usage: pgbuild sensitivity --workload W[,W...] [--src SRC] [--workdir DIR] [options]\n"
	      "\n"
	      "Build the source at a low (-O0) and a high (-O3) optimization level\n"
	      "and measure the high build against the low one on the workload(s):\n"
	      "how much can compiler flags matter for this workload at all?\n"
	      "\n"
	      "  --src SRC              PostgreSQL source (default debian:postgresql-15)\n"
	      "  --workdir DIR          builds and results (default ./pgbuild-sensitivity)\n"
	      "  -W, --workload W       bench workload(s) (default select-only)\n"
	      "  --low FLAGS            low watermark flags (default -O0)\n"
	      "  --high FLAGS           high watermark flags (default -O3)\n"
	      "  --low-prefix P --high-prefix P\n"
	      "                         use these installs instead of building\n"
	      "  --baseline PREFIX      also place this (stock) build between them\n"
	      "  --metric tps|instructions|both   what pgbuild gate measures (default tps)\n"
	      "  --pairs N --duration S --clients N   passed to pgbuild gate\n"
	      "  --json FILE            the watermarks as JSON\n"
	      "  -j, --jobs N           make jobs for the builds\n"
	      "  -q, --quiet            less progress output\n"
	      "\n"
	      "Exit: 0 measured, 2 could not build or measure.\n",
	      fp);
}

static int write_policy(const char *path, const char *flags)
{
	char *text = xasprintf("# pgbuild sensitivity watermark: every unit at %s\n"
			       "[global]\ncflags += %s\n", flags, flags);
	int rc = write_file_atomic(path, text, strlen(text));
	free(text);
	return rc;
}

static char *build_one(const struct sens_opts *o, const char *name, const char *flags)
{
	char *dir = xasprintf("%s/%s", o->workdir, name);
	char *policy = xasprintf("%s/%s.policy", o->workdir, name);
	char *prefix = xasprintf("%s/prefix", dir);
	char *builddir = xasprintf("%s/build", dir);
	struct child_process cp = CHILD_PROCESS_INIT;
	int code = -1;

	if (mkdir_p(dir) < 0 || write_policy(policy, flags) < 0)
		goto out;
	if (!o->quiet)
		fprintf(stderr, "sensitivity: building the %s watermark (%s)\n", name, flags);
	strvec_pushl(&cp.args, pgbuild_self(), "build", "--policy", policy, "--prefix", prefix,
		     "--builddir", builddir, "--no-bench", "--no-contrib", NULL);
	if (o->src)
		strvec_pushl(&cp.args, "--src", o->src, NULL);
	if (o->jobs > 0)
		strvec_pushf(&cp.args, "--jobs=%d", o->jobs);
	if (o->quiet)
		strvec_push(&cp.args, "--quiet");
	cp.no_stdin = 1;
	cp.out = 2;
	code = run_command(&cp);
	if (code != 0)
		error("pgbuild build of the %s watermark failed (exit %d)", name, code);
out:
	child_process_clear(&cp);
	free(dir);
	free(policy);
	free(builddir);
	if (code != 0) {
		free(prefix);
		return NULL;
	}
	return prefix;
}

/* Run pgbuild gate A vs B; returns its parsed JSON or NULL. */
static struct json_value *gate(const struct sens_opts *o, const char *a, const char *b,
			       const char *tag)
{
	char *json = xasprintf("%s/gate-%s.json", o->workdir, tag);
	struct child_process cp = CHILD_PROCESS_INIT;
	struct json_value *v = NULL;
	strvec_pushl(&cp.args, pgbuild_self(), "gate", "--baseline", a, "--candidate", b,
		     "--json", json, NULL);
	for (size_t i = 0; i < o->workloads.nr; i++)
		strvec_pushl(&cp.args, "--workload", o->workloads.v[i], NULL);
	if (o->metric)
		strvec_pushl(&cp.args, "--metric", o->metric, NULL);
	if (o->pairs)
		strvec_pushf(&cp.args, "--pairs=%d", o->pairs);
	if (o->duration)
		strvec_pushf(&cp.args, "--duration=%d", o->duration);
	if (o->clients)
		strvec_pushf(&cp.args, "--clients=%d", o->clients);
	if (o->quiet)
		strvec_push(&cp.args, "--quiet");
	cp.no_stdin = 1;
	cp.out = 2;
	unlink(json);
	int code = run_command(&cp);
	/* no thresholds: 0 or 1 are both measurements; 2 is not */
	if (code == 2 || access(json, R_OK) < 0)
		error("pgbuild gate %s vs %s could not measure (exit %d)", a, b, code);
	else
		v = buildlog_read_json(json);
	child_process_clear(&cp);
	free(json);
	return v;
}

/* The workload's speedup estimate and interval from a gate document. */
static int ratio_of(const struct json_value *g, const char *workload, const char *metric,
		    double *est, double *lo, double *hi)
{
	const struct json_value *ws = json_get(g, "workloads");
	for (size_t i = 0; i < json_len(ws); i++) {
		const struct json_value *w = json_at(ws, i);
		const char *name = json_get_str(w, "name");
		if (!name || strcmp(name, workload))
			continue;
		if (!strcmp(metric, "instructions")) {
			const struct json_value *in = json_get(w, "instructions");
			*est = json_get_num(in, "speedup", NAN);
			*lo = *hi = *est;
		} else {
			const struct json_value *r = json_get(json_get(w, "tps"), "ratio");
			*est = json_get_num(r, "estimate", NAN);
			*lo = json_get_num(r, "ci_low", NAN);
			*hi = json_get_num(r, "ci_high", NAN);
		}
		return isnan(*est) ? -1 : 0;
	}
	return -1;
}

static const char *verdict(double r)
{
	if (r < 1.10)
		return "barely moves with compiler flags: tuning flags is unlikely to pay";
	if (r < 1.50)
		return "moves with compiler flags: expect a few percent from tuning at most";
	return "is sensitive to compiler flags: tuning hot code can pay";
}

PGBUILD_COMMAND(sensitivity, "how much compiler flags can matter for a workload (-O0 vs -O3 watermarks)")
{
	static const struct option longopts[] = {
		{ "src", required_argument, NULL, 'S' },
		{ "workdir", required_argument, NULL, 'w' },
		{ "workload", required_argument, NULL, 'W' },
		{ "low", required_argument, NULL, 'l' },
		{ "high", required_argument, NULL, 'H' },
		{ "low-prefix", required_argument, NULL, 'L' },
		{ "high-prefix", required_argument, NULL, 'P' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "metric", required_argument, NULL, 'm' },
		{ "pairs", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'T' },
		{ "clients", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sens_opts o = { 0 };
	struct json_value *g = NULL, *gl = NULL, *gh = NULL;
	char *low = NULL, *high = NULL;
	struct strbuf sb = STRBUF_INIT;
	int c, ret = PGBUILD_EXIT_ERROR;

	strvec_init(&o.workloads);
	o.workdir = "pgbuild-sensitivity";
	o.low = "-O0";
	o.high = "-O3";
	optind = 1;
	while ((c = getopt_long(argc, argv, "W:T:c:j:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'S': o.src = optarg; break;
		case 'w': o.workdir = optarg; break;
		case 'W': parse_list_option(optarg, &o.workloads); break;
		case 'l': o.low = optarg; break;
		case 'H': o.high = optarg; break;
		case 'L': o.low_prefix = optarg; break;
		case 'P': o.high_prefix = optarg; break;
		case 'b': o.baseline = optarg; break;
		case 'm':
			if (strcmp(optarg, "tps") && strcmp(optarg, "instructions") &&
			    strcmp(optarg, "both")) {
				error("--metric: expected tps, instructions or both, got \"%s\"", optarg);
				goto out;
			}
			o.metric = optarg;
			break;
		case 'J': o.json = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'n':
			if (parse_int_option("--pairs", optarg, 1, 100000, &o.pairs) < 0)
				goto out;
			break;
		case 'T':
			if (parse_int_option("--duration", optarg, 1, 100000, &o.duration) < 0)
				goto out;
			break;
		case 'c':
			if (parse_int_option("--clients", optarg, 1, 100000, &o.clients) < 0)
				goto out;
			break;
		case 'j':
			if (parse_int_option("--jobs", optarg, 1, 100000, &o.jobs) < 0)
				goto out;
			break;
		case 'h':
			sens_usage(stdout);
			ret = PGBUILD_EXIT_OK;
			goto out;
		default:
			fputs("Try \"pgbuild sensitivity --help\".\n", stderr);
			goto out;
		}
	}
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		goto out;
	}
	if (!*o.low || !*o.high) {
		error("--low/--high: expected flags, got \"\"");
		goto out;
	}
	if (!o.workloads.nr)
		strvec_push(&o.workloads, "select-only");
	if (mkdir_p(o.workdir) < 0)
		goto out;
	/* the server user must reach the installs */
	chmod(o.workdir, 0755);

	low = o.low_prefix ? xstrdup(o.low_prefix) : build_one(&o, "low", o.low);
	if (!low)
		goto out;
	high = o.high_prefix ? xstrdup(o.high_prefix) : build_one(&o, "high", o.high);
	if (!high)
		goto out;
	if (!(g = gate(&o, low, high, "high-vs-low")))
		goto out;
	if (o.baseline && (!(gl = gate(&o, low, o.baseline, "stock-vs-low")) ||
			   !(gh = gate(&o, o.baseline, high, "high-vs-stock"))))
		goto out;

	const char *metric = o.metric && !strcmp(o.metric, "instructions") ? "instructions" : "tps";
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-sensitivity");
	json_key(&jw, "low"); json_string(&jw, o.low);
	json_key(&jw, "high"); json_string(&jw, o.high);
	json_key(&jw, "metric"); json_string(&jw, metric);
	json_key(&jw, "workloads");
	json_array_begin(&jw);
	ret = PGBUILD_EXIT_OK;
	for (size_t i = 0; i < o.workloads.nr; i++) {
		const char *w = o.workloads.v[i];
		double est, lo, hi;
		if (ratio_of(g, w, metric, &est, &lo, &hi) < 0) {
			error("no %s ratio for %s in the gate result", metric, w);
			ret = PGBUILD_EXIT_ERROR;
			continue;
		}
		printf("%s: %s / %s = %.2fx [%.2f, %.2f] (%s): the workload %s\n", w, o.high,
		       o.low, est, lo, hi, metric, verdict(est));
		json_object_begin(&jw);
		json_key(&jw, "name"); json_string(&jw, w);
		json_key(&jw, "high_vs_low"); json_double(&jw, est);
		json_key(&jw, "ci_low"); json_double(&jw, lo);
		json_key(&jw, "ci_high"); json_double(&jw, hi);
		double s_est, s_lo, s_hi, h_est, h_lo, h_hi;
		if (gl && gh && ratio_of(gl, w, metric, &s_est, &s_lo, &s_hi) == 0 &&
		    ratio_of(gh, w, metric, &h_est, &h_lo, &h_hi) == 0) {
			printf("%s: stock / %s = %.2fx [%.2f, %.2f]; %s / stock = %.2fx [%.2f, %.2f]\n",
			       w, o.low, s_est, s_lo, s_hi, o.high, h_est, h_lo, h_hi);
			json_key(&jw, "stock_vs_low"); json_double(&jw, s_est);
			json_key(&jw, "high_vs_stock"); json_double(&jw, h_est);
		}
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	if (o.json && write_file_atomic(o.json, sb.buf, sb.len) < 0)
		ret = PGBUILD_EXIT_ERROR;
out:
	json_free(g);
	json_free(gl);
	json_free(gh);
	free(low);
	free(high);
	strbuf_release(&sb);
	strvec_clear(&o.workloads);
	return ret;
}
