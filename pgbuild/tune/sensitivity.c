/*
 * sensitivity.c - the compiler-sensitivity watermarks of a workload
 * (`pgbuild sensitivity`); see sensitivity.h.
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
 * build is incremental) - or are given as --low-install/--high-install.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/gate/verdict.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/stage/stage.h"
#include "pgbuild/tune/sensitivity.h"
#include "wrapper/policy/edit.h"

/* The watermark's policy, through the policy editor: every unit at flags
 * (unchecked flags pass here: pgbuild build checks the policy with the
 * caller's PGOPT_UNCHECKED_FLAGS). */
static int write_policy(const char *path, const char *flags)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	char *comment = xasprintf("pgbuild sensitivity watermark: every unit at %s", flags);
	int rc;

	policy_doc_init(&d, path, POLICY_UNCHECKED);
	policy_doc_add_comment(&d, comment);
	rc = policy_doc_add_section(&d, "global", &err) < 0 ? -1 :
	     policy_doc_add_flags(&d, 0, "cflags", 1, flags, &err);
	if (rc < 0)
		error("%s", err.buf);
	else
		rc = policy_doc_write(&d, path);
	policy_doc_release(&d);
	strbuf_release(&err);
	free(comment);
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
	{
		struct build_step b = {
			.src = o->src, .policy = policy, .prefix = prefix, .builddir = builddir,
			.jobs = o->jobs, .no_contrib = 1, .quiet = o->quiet,
		};
		strvec_push(&cp.args, pgbuild_self());
		stage_build_argv(&cp.args, &b);
	}
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

/* Run pgbuild gate A vs B into g (read back by gate_load); 0, or -1 after
 * the error (a gate that could not measure, or whose candidate computes
 * wrong results: no sensitivity is read from a broken build). */
static int gate(const struct sens_opts *o, const char *a, const char *b, const char *tag,
		struct gate *g)
{
	char *json = xasprintf("%s/gate-%s.json", o->workdir, tag);
	struct child_process cp = CHILD_PROCESS_INIT;
	struct gate_verdict v = GATE_VERDICT_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc = -1;
	strvec_pushl(&cp.args, pgbuild_self(), "gate", "--baseline", a, "--candidate", b,
		     "--json", json, NULL);
	for (size_t i = 0; i < o->workloads.nr; i++)
		strvec_pushl(&cp.args, "--workload", o->workloads.v[i], NULL);
	if (o->metric)
		strvec_pushl(&cp.args, "--metric", o->metric, NULL);
	stage_gate_argv(&cp.args, &o->gate);
	if (o->quiet)
		strvec_push(&cp.args, "--quiet");
	cp.no_stdin = 1;
	cp.out = 2;
	unlink(json);
	int code = run_command(&cp);
	/* no thresholds: 0 or 1 are both measurements; 2 is not */
	if (code == 2 || gate_load(json, g, &v, &err) < 0)
		error("pgbuild gate %s vs %s could not measure (exit %d)%s%s", a, b, code,
		      err.len ? ": " : "", err.buf);
	else if (v.broken)
		error("pgbuild gate %s vs %s: %s", a, b, v.why);
	else
		rc = 0;
	gate_verdict_clear(&v);
	strbuf_release(&err);
	child_process_clear(&cp);
	free(json);
	return rc;
}

/* The workload's speedup estimate and interval from a gate. */
static int ratio_of(const struct gate *g, const char *workload, const char *metric,
		    double *est, double *lo, double *hi)
{
	unsigned bit = metrics_find(metric)->bit;
	enum gate_kind k = bit == METRIC_TPS ? GATE_TPS : bit == METRIC_CYCLES ? GATE_CYCLES :
			   GATE_INSTRUCTIONS;
	return gate_speedup(g, workload, k, est, lo, hi, NULL);
}

static const char *verdict(double r)
{
	if (r < 1.10)
		return "barely moves with compiler flags: tuning flags is unlikely to pay";
	if (r < 1.50)
		return "moves with compiler flags: expect a few percent from tuning at most";
	return "is sensitive to compiler flags: tuning hot code can pay";
}

/* The gate results of one run. */
struct sens_gates {
	struct gate g;          /* high vs low */
	struct gate gl;         /* stock vs low (--baseline) */
	struct gate gh;         /* high vs stock (--baseline) */
	int with_stock;         /* gl and gh measured */
};

/* One workload's line and JSON object; -1 when the gate has no ratio. */
static int report_workload(const struct sens_opts *o, const struct sens_gates *gs,
			   const char *w, const char *metric, struct json_writer *jw)
{
	double est, lo, hi, s_est, s_lo, s_hi, h_est, h_lo, h_hi;

	if (ratio_of(&gs->g, w, metric, &est, &lo, &hi) < 0)
		return error("no %s ratio for %s in the gate result", metric, w);
	printf("%s: %s / %s = %.2fx [%.2f, %.2f] (%s): the workload %s\n", w, o->high,
	       o->low, est, lo, hi, metric, verdict(est));
	json_object_begin(jw);
	json_key(jw, "name"); json_string(jw, w);
	json_key(jw, "high_vs_low"); json_double(jw, est);
	json_key(jw, "ci_low"); json_double(jw, lo);
	json_key(jw, "ci_high"); json_double(jw, hi);
	if (gs->with_stock && ratio_of(&gs->gl, w, metric, &s_est, &s_lo, &s_hi) == 0 &&
	    ratio_of(&gs->gh, w, metric, &h_est, &h_lo, &h_hi) == 0) {
		printf("%s: stock / %s = %.2fx [%.2f, %.2f]; %s / stock = %.2fx [%.2f, %.2f]\n",
		       w, o->low, s_est, s_lo, s_hi, o->high, h_est, h_lo, h_hi);
		json_key(jw, "stock_vs_low"); json_double(jw, s_est);
		json_key(jw, "high_vs_stock"); json_double(jw, h_est);
	}
	json_object_end(jw);
	return 0;
}

/* Every workload's ratios, on stdout and in --json; the exit code. */
static int report(const struct sens_opts *o, const struct sens_gates *gs)
{
	/* the one reported: tps when measured, else cycles, else instructions */
	const char *metric = metrics_of(!o->metrics || (o->metrics & METRIC_TPS) ? METRIC_TPS :
					(o->metrics & METRIC_CYCLES) ? METRIC_CYCLES :
					METRIC_INSTR)->name;
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	int ret = PGBUILD_EXIT_OK;

	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-sensitivity");
	json_key(&jw, "low"); json_string(&jw, o->low);
	json_key(&jw, "high"); json_string(&jw, o->high);
	json_key(&jw, "metric"); json_string(&jw, metric);
	json_key(&jw, "workloads");
	json_array_begin(&jw);
	for (size_t i = 0; i < o->workloads.nr; i++)
		if (report_workload(o, gs, o->workloads.v[i], metric, &jw) < 0)
			ret = PGBUILD_EXIT_ERROR;
	json_array_end(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	if (o->json && write_result(o->json, sb.buf, sb.len) < 0)
		ret = PGBUILD_EXIT_ERROR;
	strbuf_release(&sb);
	return ret;
}

int sens_run(const struct sens_opts *o)
{
	struct sens_gates gs;
	char *low = NULL, *high = NULL;
	int ret = PGBUILD_EXIT_ERROR;

	memset(&gs, 0, sizeof(gs));
	/* the server user must reach the installs: a workdir it cannot enter
	 * is refused with the fix, never chmodded */
	{
		int fd = workdir_open("--workdir", o->workdir);
		if (fd < 0)
			goto out;
		close(fd);
	}
	low = o->low_prefix ? xstrdup(o->low_prefix) : build_one(o, "low", o->low);
	if (!low)
		goto out;
	high = o->high_prefix ? xstrdup(o->high_prefix) : build_one(o, "high", o->high);
	if (!high)
		goto out;
	if (gate(o, low, high, "high-vs-low", &gs.g) < 0)
		goto out;
	if (o->baseline && (gate(o, low, o->baseline, "stock-vs-low", &gs.gl) < 0 ||
			    gate(o, o->baseline, high, "high-vs-stock", &gs.gh) < 0))
		goto out;
	gs.with_stock = o->baseline != NULL;
	ret = report(o, &gs);
out:
	gate_clear(&gs.g);
	gate_clear(&gs.gl);
	gate_clear(&gs.gh);
	free(low);
	free(high);
	return ret;
}
