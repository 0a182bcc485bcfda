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

int preflight_pairs(int pairs, const char *metric, double conf)
{
	size_t need = gate_pairs_needed(conf, 1);
	unsigned mask = 0;

	if (metric && cli_metrics_mask(metric, &mask) == 0 && mask && !(mask & METRIC_TPS))
		return 0;       /* no pairs: instructions and cycles are counted once */
	if (!pairs)
		return 0;
	if ((size_t)pairs < need)
		return error("--pairs %d: a %g%% interval needs at least %zu pairs", pairs,
			     conf * 100, need);
	return 0;
}

int preflight_readable(const char *opt, const char *path)
{
	struct stat st;
	if (access(path, R_OK) < 0)
		return error("%s \"%s\": %s", opt, path, strerror(errno));
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return error("%s \"%s\": is a directory, not a file", opt, path);
	return 0;
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

	if (strcmp(policy, "none") && preflight_readable(opt, policy) < 0)
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
		return preflight_readable("--src", src);
	cfg = xasprintf("%s/configure", src);
	ok = access(cfg, R_OK) == 0;
	free(cfg);
	if (!ok)
		return error("--src \"%s\": not a PostgreSQL source tree (no configure)", src);
	return 0;
}
