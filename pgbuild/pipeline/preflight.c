/*
 * preflight.c - the checks a long pipeline makes before its first build;
 * see preflight.h.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/build/build.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/metric/metric.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/pipeline/preflight.h"
#include "wrapper/common/suggest.h"

int preflight_threshold_workloads(const struct gate_thresholds *th)
{
	for (size_t i = 0; i < th->nr; i++) {
		const char *w = th->v[i].workload, *near;
		int known = 0;
		if (!w)
			continue;
		for (size_t k = 0; bench_workload_names[k]; k++)
			known |= !strcmp(w, bench_workload_names[k]);
		if (known && strcmp(w, "sql"))
			continue;
		near = suggest_word(w, bench_workload_names);
		if (near && strcmp(near, "sql"))
			return error("threshold \"%s\": unknown workload \"%s\" (did you mean \"%s\"?): "
				     "expected %s", th->v[i].text, w, near, BENCH_BUILTIN_WORKLOADS);
		return error("threshold \"%s\": unknown workload \"%s\": expected %s",
			     th->v[i].text, w, BENCH_BUILTIN_WORKLOADS);
	}
	return 0;
}

int preflight_gate_expr(const char *expr, const char *metric, struct gate_thresholds *out)
{
	struct gate_thresholds th = { 0 };
	struct strbuf err = STRBUF_INIT;
	unsigned mask = 0;
	int rc = -1;

	if (!metric || cli_metrics_mask(metric, &mask) < 0 || !mask)
		mask = METRIC_TPS;
	if (gate_expr_parse(&th, expr, &err) < 0) {
		error("invalid value \"%s\" for --gate: %s", expr, err.buf);
		goto out;
	}
	if (preflight_threshold_workloads(&th) < 0 || gate_thresholds_check(&th, mask, NULL) < 0)
		goto out;
	rc = 0;
out:
	if (rc == 0 && out) {
		for (size_t i = 0; i < th.nr; i++)
			gate_thresholds_add(out, th.v[i].text, th.v[i].workload, th.v[i].kind,
					    th.v[i].lat, th.v[i].value);
	}
	gate_thresholds_clear(&th);
	strbuf_release(&err);
	return rc;
}

int preflight_pairs(int pairs, const char *metric, double conf, size_t m)
{
	size_t need = gate_pairs_needed(conf, m);
	unsigned mask = 0;

	if (metric && cli_metrics_mask(metric, &mask) == 0 && mask && !(mask & METRIC_TPS))
		return 0;       /* no pairs: instructions and cycles are counted once */
	if (!pairs || (size_t)pairs >= need)
		return 0;
	if (m <= 1)
		return error("--pairs %d: a %g%% interval needs at least %zu pairs", pairs,
			     conf * 100, need);
	return error("--pairs %d: %zu tests (the thresholds x the workloads they apply to) need "
		     "at least %zu pairs (Holm's first step at %.3g%%); give --pairs %zu or "
		     "--pairs auto", pairs, m, need, (1 - conf) / 2 / (double)m * 100, need);
}

size_t preflight_family(const char *expr, const struct strvec *workloads,
			const char *workloads_csv, const char *noise)
{
	struct gate_thresholds th = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct strvec wl = STRVEC_INIT;
	size_t m = 1;

	if (workloads && workloads->nr)
		for (size_t i = 0; i < workloads->nr; i++)
			strvec_push(&wl, workloads->v[i]);
	else if (workloads_csv && *workloads_csv && cli_parse_workloads(workloads_csv, &wl) < 0)
		strvec_clear(&wl);
	if (gate_expr_parse(&th, expr, &err) == 0)
		m = gate_family_bound(&th, &wl, noise && !strcmp(noise, "none"));
	gate_thresholds_clear(&th);
	strvec_clear(&wl);
	strbuf_release(&err);
	return m;
}

int preflight_install(const char *opt, const char *prefix)
{
	char *pg = xasprintf("%s/bin/postgres", prefix);
	int ok = access(pg, X_OK) == 0;
	free(pg);
	if (!ok)
		return error("%s %s: no bin/postgres: not an installed PostgreSQL", opt, prefix);
	return 0;
}

int preflight_policy(const char *opt, const char *policy, char **sha)
{
	char *h;

	if (strcmp(policy, "none") && cli_check_input(opt, policy) < 0)
		return -1;
	/* pgoptcc's own check (errors name file:line), as the build will */
	h = build_policy_sha(policy);
	if (!h)
		return error("%s \"%s\": rejected (see above)", opt, policy);
	if (sha)
		*sha = h;
	else
		free(h);
	return 0;
}

int preflight_source(const char *src)
{
	struct stat st;
	char *cfg;
	int ok;

	if (!src || !strncmp(src, "debian:", 7))
		return 0;       /* fetched by apt-get source: said by the build */
	if (stat(src, &st) < 0)
		return error("--src \"%s\": %s", src, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_check_input("--src", src);
	cfg = xasprintf("%s/configure", src);
	ok = access(cfg, R_OK) == 0;
	free(cfg);
	if (!ok)
		return error("--src \"%s\": not a PostgreSQL source tree (no configure)", src);
	return 0;
}
