/*
 * preflight.c - the checks a long pipeline makes before its first build;
 * see preflight.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/build/build.h"
#include "pgbuild/cluster/serveruser.h"
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
	size_t need = 1;
	unsigned mask = 0;

	if (metric && cli_metrics_mask(metric, &mask) == 0 && mask && !(mask & METRIC_TPS))
		return 0;       /* no pairs: instructions and cycles are counted once */
	if (!pairs)
		return 0;
	/* the fewest pairs with an interval at this level: 2^-n <= (1-conf)/2 */
	while (ldexp(1.0, -(int)need) > (1 - conf) / 2 + 1e-12)
		need++;
	if (need < 6)
		need = 6;
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

/* dir, or its nearest parent that exists (malloced, absolute). */
static char *existing_part(const char *dir)
{
	char *p = path_absolute(dir);
	struct stat st;
	while (stat(p, &st) < 0 && strcmp(p, "/")) {
		char *slash = strrchr(p, '/');
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	return p;
}

/* Can u reach dir (what names it in the error)?  0 or -1. */
static int reach(const struct server_user *u, const char *what, const char *dir)
{
	char *have = existing_part(dir), *blocked = NULL;
	struct strbuf why = STRBUF_INIT;
	int r = server_user_reach(u, have, &blocked), rc = 0;

	if (r < 0) {
		rc = -1;
	} else if (r == 0) {
		server_user_explain_blocked(u, blocked, &why);
		rc = error("%s %s is out of the server user's reach: %s or choose a directory %s "
			   "can reach", what, dir, why.buf, u->name);
	}
	strbuf_release(&why);
	free(blocked);
	free(have);
	return rc;
}

int preflight_server_dirs(const char *const *dirs)
{
	struct server_user u = SERVER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");
	int rc = 0;

	if (!server_user_name())
		return 0;
	if (server_user_get(&u, NULL, NULL, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	for (size_t i = 0; dirs[i] && rc == 0; i++)
		rc = reach(&u, "directory", dirs[i]);
	if (rc == 0)
		rc = reach(&u, tmp && *tmp ? "TMPDIR" : "the temporary directory",
			   tmp && *tmp ? tmp : "/tmp");
	server_user_release(&u);
	return rc;
}

/* The name of uid, for messages (static buffer). */
static const char *user_name(uid_t uid)
{
	static char buf[64];
	struct passwd *pw = getpwuid(uid);
	if (pw)
		snprintf(buf, sizeof(buf), "%s", pw->pw_name);
	else
		snprintf(buf, sizeof(buf), "uid %ld", (long)uid);
	return buf;
}

int preflight_workdir(const char *opt, const char *dir)
{
	struct stat st;
	int fd;

	if (mkdir_p(dir) < 0)
		return -1;
	/* the caller named it: its path is followed as given */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		error("%s %s: %s", opt, dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (geteuid() != 0)
		return fd;
	if ((st.st_uid != 0) ||
	    (!(st.st_mode & S_ISVTX) && ((st.st_mode & S_IWOTH) ||
					 ((st.st_mode & S_IWGRP) && st.st_gid != getegid())))) {
		error("%s %s: another user can change what is in it (mode %04o, owner %s): pgbuild "
		      "runs as root and keeps its files there; give a directory only root can "
		      "write (chown root %s; chmod go-w %s)", opt, dir,
		      (unsigned)(st.st_mode & 07777), user_name(st.st_uid), dir, dir);
		close(fd);
		return -1;
	}
	{
		struct server_user u = SERVER_USER_INIT;
		struct strbuf err = STRBUF_INIT;
		int r = server_user_get(&u, NULL, NULL, &err) < 0 ? error("%s", err.buf) :
			reach(&u, opt, dir);
		server_user_release(&u);
		strbuf_release(&err);
		if (r < 0) {
			close(fd);
			return -1;
		}
	}
	return fd;
}
