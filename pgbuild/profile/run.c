/*
 * run.c - workloads on a private cluster under perf, gcov
 * collection, and the function -> translation unit map.  See run.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/run.h"
#include "wrapper/common/safefs.h"

void prof_run_init(struct prof_run *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->workloads);
	strvec_init(&r->settings);
	strbuf_init(&r->summary, 0);
	r->clients = 2;
	r->duration = 10;
	r->perf_freq = 999;
}

void prof_run_release(struct prof_run *r)
{
	strvec_clear(&r->workloads);
	strvec_clear(&r->settings);
	strbuf_release(&r->summary);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The bench engine on the running server conn (bench_run_child), the
 * workload's data loaded (load: one transaction of one client, --init) or
 * run (clients, duration); its summary into out (NULL: dropped). */
static int run_bench(const struct prof_run *r, const char *conn, const char *workload, int load,
		     struct strbuf *out)
{
	struct bench_opts o;
	struct strbuf buf = STRBUF_INIT;
	int code;

	bench_opts_init(&o);
	o.connect = conn;
	bench_opts_set_workload(&o, workload);
	o.protocol = PROTO_PREPARED;
	o.quiet = 1;
	o.scale = r->scale > 0 ? r->scale : 0;
	if (load) {
		o.init = 1;
		o.transactions = 1;
		o.duration = 0;
	} else {
		o.clients = r->clients;
		o.duration = r->duration;
	}
	bench_opts_default_threads(&o);
	o.seed = (uint64_t)clock_us() ^ ((uint64_t)getpid() << 32);
	code = bench_run_child(&o, -1, &buf);
	if (code != 0)
		error("pgbuild bench --workload %s failed (exit %d):\n%s", workload, code, buf.buf);
	else if (out)
		strbuf_add(out, buf.buf, buf.len);
	strbuf_release(&buf);
	bench_opts_release(&o);
	return code == 0 ? 0 : -1;
}

/* Where an instrumented build's processes write their counts: GCC's
 * .gcda below GCOV_PREFIX, LLVM's .profraw as LLVM_PROFILE_FILE says (one
 * file per binary, %m: every process of it merges into that file). */
static void profile_env(const struct prof_run *r, struct strvec *env)
{
	if (!r->gcov_dir)
		return;
	strvec_pushf(env, "GCOV_PREFIX=%s", r->gcov_dir);
	strvec_pushf(env, "LLVM_PROFILE_FILE=%s/%s", r->gcov_dir, PROF_LLVM_PROFRAW);
}

/* The core regression suite against the running cluster; 0 or -1. */
static int run_regress(const struct prof_run *r, const struct cluster *cl)
{
	struct strvec env = STRVEC_INIT;
	struct regress_opts ro;
	int rc;

	regress_opts_init(&ro);
	ro.builddir = r->builddir;
	ro.prefix = r->prefix;
	ro.server = cl;
	ro.to_stderr = 1;
	ro.quiet = r->quiet;
	/* psql and pg_regress of a clang build carry the profile runtime too */
	profile_env(r, &env);
	ro.env = &env;
	rc = regress_run(&ro);
	strvec_clear(&env);
	if (rc != 0)
		return error("the regression suite (the %s workload) %s against the server from %s",
			     PROF_WORKLOAD_REGRESS, rc == PGBUILD_EXIT_FAIL ? "failed" : "could not run",
			     r->prefix);
	return 0;
}

static int has_regress(const struct prof_run *r)
{
	for (size_t i = 0; i < r->workloads.nr; i++)
		if (!strcmp(r->workloads.v[i], PROF_WORKLOAD_REGRESS))
			return 1;
	return 0;
}

/* The "tps" figure of bench's result text, or -1. */
static double bench_tps(const char *text)
{
	const char *p = strstr(text, "tps");
	const char *q;
	/* bench prints e.g. "tps = 51234.5 (...)" or "tps: 51234.5" */
	while (p) {
		q = p + 3;
		while (*q == ' ' || *q == '=' || *q == ':')
			q++;
		char *end;
		double v = strtod(q, &end);
		if (end != q)
			return v;
		p = strstr(p + 3, "tps");
	}
	return -1;
}

int prof_run_workloads(struct prof_run *r)
{
	struct cluster cl;
	struct cluster_options co = CLUSTER_OPTIONS_INIT;
	struct child_process perf = CHILD_PROCESS_INIT;
	int perf_started = 0, ret = -1, regress = has_regress(r);
	char *conn = NULL;

	if (regress && !r->builddir)
		return error("the %s workload needs the build tree %s was installed from "
			     "(--builddir DIR)", PROF_WORKLOAD_REGRESS, r->prefix);
	co.prefix = r->prefix;
	co.template_dir = r->template_dir;
	co.quiet = 1;
	profile_env(r, &co.env);
	/* what the suite expects of make check's temporary server */
	if (regress)
		strvec_push(&co.settings, "max_prepared_transactions=10");
	strvec_pushv(&co.settings, (const char *const *)r->settings.v);
	if (cluster_create(&cl, &co) < 0) {
		strvec_clear(&co.settings);
		strvec_clear(&co.env);
		return -1;
	}
	if (cluster_start(&cl) < 0)
		goto out;
	conn = xstrdup(cluster_conninfo(&cl, "postgres"));
	r->postmaster = (long)cl.pid;

	/* load every workload's data before anything is recorded */
	for (size_t i = 0; i < r->workloads.nr; i++) {
		if (!strcmp(r->workloads.v[i], PROF_WORKLOAD_REGRESS))
			continue;   /* the suite makes its own database */
		if (!r->quiet)
			fprintf(stderr, "profile: loading %s data\n", r->workloads.v[i]);
		int rc = run_bench(r, conn, r->workloads.v[i], 1, NULL);
		if (rc < 0)
			goto out;
	}

	if (r->perf_data) {
		strvec_pushl(&perf.args, "perf", "record", "--quiet", "-e", "cpu-clock", NULL);
		strvec_pushf(&perf.args, "--freq=%d", r->perf_freq);
		strvec_pushf(&perf.args, "--pid=%ld", (long)cl.pid);
		strvec_pushl(&perf.args, "-o", r->perf_data, NULL);
		perf.no_stdin = 1;
		perf.no_stdout = 1;
		if (start_command(&perf) < 0) {
			error("cannot run perf: %s", strerror(perf.exec_errno ? perf.exec_errno : errno));
			goto out;
		}
		perf_started = 1;
		/* let perf attach before the clients connect */
		sleep_ms(700);
	}

	for (size_t i = 0; i < r->workloads.nr; i++) {
		struct strbuf out = STRBUF_INIT;
		if (!strcmp(r->workloads.v[i], PROF_WORKLOAD_REGRESS)) {
			double t0 = clock_seconds();
			if (!r->quiet)
				fprintf(stderr, "profile: running the regression suite\n");
			if (run_regress(r, &cl) < 0)
				goto out;
			strbuf_addf(&r->summary, "%s: the core suite passed (%.0f s)\n",
				    PROF_WORKLOAD_REGRESS, clock_seconds() - t0);
			continue;
		}
		if (!r->quiet)
			fprintf(stderr, "profile: running %s, %d clients, %g s\n",
				r->workloads.v[i], r->clients, r->duration);
		int rc = run_bench(r, conn, r->workloads.v[i], 0, &out);
		double tps = bench_tps(out.buf);
		if (rc == 0) {
			if (tps >= 0)
				strbuf_addf(&r->summary, "%s: %.0f tps\n", r->workloads.v[i], tps);
			else
				strbuf_addf(&r->summary, "%s: done\n", r->workloads.v[i]);
		}
		strbuf_release(&out);
		if (rc < 0)
			goto out;
	}
	ret = 0;
out:
	if (perf_started) {
		kill(perf.pid, SIGINT);
		int code = finish_command(&perf);
		/* perf reports the SIGINT that stopped it as its exit status */
		if (code != 0 && code != 128 + SIGINT && ret == 0) {
			error("perf record failed (exit %d)", code);
			ret = -1;
		}
	}
	child_process_clear(&perf);
	/* a clean (fast) shutdown: instrumented processes write their counts */
	if (cluster_stop(&cl) < 0 && ret == 0)
		ret = -1;
	struct strbuf problems = STRBUF_INIT, crashes = STRBUF_INIT;
	if (cluster_check_log(&cl, &problems) > 0) {
		/* the suite's workers exit with code 1 on purpose */
		if (regress)
			cluster_log_crashes(problems.buf, &crashes);
		if (!regress || crashes.len) {
			error("the server reported problems during the workload:\n%s",
			      regress ? crashes.buf : problems.buf);
			ret = -1;
		}
	}
	strbuf_release(&crashes);
	strbuf_release(&problems);
	if (r->keep_log) {
		struct strbuf log = STRBUF_INIT;
		/* through the descriptor kept since the log was made: never the
		 * path in the server user's directory */
		if (cluster_read_log(&cl, &log, SFS_READ_LIMIT) >= 0)
			write_file_atomic(r->keep_log, log.buf, log.len);
		strbuf_release(&log);
	}
	cluster_destroy(&cl);
	strvec_clear(&co.settings);
	strvec_clear(&co.env);
	free(conn);
	return ret;
}

/* ---------------- perf ---------------- */

int prof_perf_usable(struct strbuf *why)
{
	char *perf = locate_in_path("perf");
	if (!perf) {
		strbuf_addstr(why, "perf is not installed (Debian package linux-perf)");
		return 0;
	}
	free(perf);
	char tmpl[] = "/tmp/pgbuild-perf-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		strbuf_addf(why, "cannot make a temporary file: %s", strerror(errno));
		return 0;
	}
	close(fd);
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	strvec_pushl(&cp.args, "perf", "record", "--quiet", "-e", "cpu-clock", "-o", tmpl,
		     "--", "true", NULL);
	int code = capture_command(&cp, &out, 1);
	child_process_clear(&cp);
	unlink(tmpl);
	if (code != 0) {
		strbuf_rtrim(&out);
		strbuf_addf(why, "perf record -e cpu-clock does not work here: %s",
			    out.len ? out.buf : "(no message)");
	}
	strbuf_release(&out);
	return code == 0;
}

int prof_perf_report(const char *data, const char *server_dso, struct profile *p)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	strvec_pushl(&cp.args, "perf", "report", "-i", data, "--stdio", "--no-children",
		     "-n", "--sort", "dso,sym", "-g", "none", "--percent-limit", "0",
		     "-t", "\t", NULL);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	int code = capture_command(&cp, &out, 0);
	child_process_clear(&cp);
	int ret = 0;
	if (code != 0) {
		ret = error("perf report -i %s failed (exit %d)", data, code);
	} else if (prof_parse_perf(p, out.buf, server_dso, &err) < 0) {
		ret = error("%s: %s", data, err.buf);
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

/* ---------------- build records ---------------- */

struct json_value *prof_build_record(const char *prefix)
{
	char *path = xasprintf("%s/%s", prefix, BUILDLOG_RECORD);
	struct json_value *v = NULL;
	if (access(path, R_OK) == 0)
		v = buildlog_read_json(path);
	free(path);
	return v;
}

int prof_is_instrumented(const struct json_value *record)
{
	const char *content = json_get_str(json_get(record, "policy"), "content");
	return content && strstr(content, "-fprofile-generate") != NULL;
}

/* builddir-relative part of an absolute path below builddir, or NULL. */
static const char *below(const char *path, const char *builddir)
{
	size_t n = strlen(builddir);
	if (strncmp(path, builddir, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

long prof_map_build(struct prof_map *m, const char *builddir, const char *binary)
{
	long found = 0;
	if (builddir) {
		char *log = xasprintf("%s/pgopt-log/%s", builddir, BUILDLOG_COMPILE);
		struct buildlog_objs os = { 0 };
		buildlog_objs_read(&os, log, NULL, NULL, 1);
		for (size_t i = 0; i < os.nr; i++) {
			const struct buildlog_obj *o = &os.v[i];
			const char *rel = below(o->path, builddir);
			if (!o->tu || !rel || !prof_object_in_server(rel))
				continue;
			struct elfrec_file f;
			struct strbuf err = STRBUF_INIT;
			if (elfrec_open(o->path, &f, &err) < 0) {
				strbuf_release(&err);
				continue;
			}
			for (size_t k = 0; k < f.nr; k++) {
				const struct elfrec_object *eo = &f.objs[k];
				for (size_t j = 0; j < eo->nfuncs; j++) {
					const struct elfrec_func *fn = &eo->funcs[j];
					if (!fn->section[0] || !fn->size)
						continue;  /* undefined */
					prof_map_add(m, fn->name, o->tu, fn->global);
					found++;
				}
			}
			elfrec_release(&f);
			strbuf_release(&err);
		}
		buildlog_objs_free(&os);
		free(log);
	}
	if (binary) {
		/* LTO objects hold IR, not symbols: use pgopt.so's compile records */
		struct elfrec_file f;
		struct strbuf err = STRBUF_INIT;
		if (elfrec_open(binary, &f, &err) == 0) {
			for (size_t k = 0; k < f.nr; k++) {
				struct elfrec_unit *units = NULL;
				long n = elfrec_units(&f.objs[k], &units, &err);
				for (long u = 0; u < n; u++) {
					const char *tu = json_get_str(units[u].unit, "tu");
					const char *stage = json_get_str(units[u].unit, "stage");
					if (!tu || (stage && strcmp(stage, "compile")))
						continue;
					for (size_t j = 0; j < units[u].nfns; j++) {
						const char *name = json_get_str(units[u].fns[j], "source_name");
						if (!name)
							name = json_get_str(units[u].fns[j], "name");
						if (!name)
							continue;
						prof_map_add(m, name, tu, 1);
						found++;
					}
				}
				if (n > 0)
					elfrec_units_free(units, (size_t)n);
			}
			elfrec_release(&f);
		}
		strbuf_release(&err);
	}
	prof_map_sort(m);
	return found;
}

/* ---------------- gcov ---------------- */

int prof_gcda_begin(struct prof_gcda *g, const char *builddir)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *t = getenv("TMPDIR"), *skip[] = { BUILD_CHECK_TREE, NULL };
	int fd = -1, sub, rc = -1;

	memset(g, 0, sizeof(*g));
	if (!(g->builddir = path_real(builddir)))
		return -1;
	if (build_tree_ours(g->builddir, skip) < 0 || prof_remove_gcda(g->builddir) < 0)
		return -1;
	if (cluster_user_get(&u, NULL, NULL, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	g->top = xasprintf("%s/pgbuild-gcda-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(g->top)) {
		error("cannot make a directory %s: %s", g->top, strerror(errno));
		free(g->top);
		g->top = NULL;
		goto out;
	}
	/* ours (the server user only enters it); d below it is theirs */
	fd = open(g->top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0755) < 0 ||
	    (sub = sfs_mkdir(fd, "d", 0700, u.switch_user ? u.uid : (uid_t)-1, u.gid, 0,
			     &err)) < 0) {
		error("cannot set up %s: %s", g->top, err.len ? err.buf : strerror(errno));
		goto out;
	}
	close(sub);
	g->dir = xasprintf("%s/d", g->top);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		prof_gcda_end(g);
	cluster_user_release(&u);
	strbuf_release(&err);
	return rc;
}

/* The walk of prof_gcda_collect. */
struct gcda_walk {
	struct prof_gcda *g;  /* the training (its skipped counted here) */
	int buildfd;          /* the build tree */
	long copied;          /* .gcda files taken back */
};

/* Take back the .gcda file e (g->dir/REL/NAME stands for /REL/NAME). */
static void gcda_take(struct gcda_walk *w, const struct sfs_entry *e)
{
	struct strbuf target = STRBUF_INIT, err = STRBUF_INIT;
	size_t n = strlen(w->g->builddir);
	char real[PATH_MAX], *gcno = NULL;
	const char *in_tree;

	/* /REL: in the build tree, and NAME an object of the instrumented
	 * build (its .gcno beside it)? */
	strbuf_addf(&target, "/%.*s", (int)(strlen(e->rel) - strlen(e->name)), e->rel);
	if (!realpath(target.buf, real) || strncmp(real, w->g->builddir, n) ||
	    (real[n] && real[n] != '/'))
		goto skip;
	in_tree = real[n] ? real + n + 1 : "";
	strbuf_reset(&target);
	strbuf_addf(&target, "%s%s%s", in_tree, *in_tree ? "/" : "", e->name);
	gcno = xasprintf("%.*s.gcno", (int)(target.len - 5), target.buf);
	if (faccessat(w->buildfd, gcno, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		goto skip;
	if (sfs_copy_back(e->fd, e->name, w->buildfd, target.buf, SFS_IN_COUNTS, 0644, &err) < 0) {
		warning("profile data %s not taken: %s", e->path, err.buf);
		goto skip;
	}
	w->copied++;
	goto out;
skip:
	w->g->skipped++;
out:
	free(gcno);
	strbuf_release(&target);
	strbuf_release(&err);
}

/* One entry below g->dir (the server user's): a .gcda is taken back,
 * a directory entered, anything else (a link too) skipped. */
static enum sfs_walk_next gcda_entry(struct sfs_entry *e, void *ctx)
{
	struct gcda_walk *w = ctx;
	size_t n = strlen(e->name);

	if (S_ISDIR(e->st.st_mode))
		return SFS_WALK_NEXT;
	if (S_ISREG(e->st.st_mode) && n > 5 && !strcmp(e->name + n - 5, ".gcda"))
		gcda_take(w, e);
	else
		w->g->skipped++;
	return SFS_WALK_NEXT;
}

long prof_gcda_collect(struct prof_gcda *g)
{
	struct gcda_walk w = { g, -1, 0 };
	struct strbuf err = STRBUF_INIT;
	int fd, rc;

	w.buildfd = open(g->builddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = open(g->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (w.buildfd < 0 || fd < 0) {
		error("cannot open %s: %s", w.buildfd < 0 ? g->builddir : g->dir, strerror(errno));
		if (w.buildfd >= 0)
			close(w.buildfd);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = sfs_walk_tree(fd, g->dir, gcda_entry, &w, &err);
	if (rc < 0)
		error("%s", err.buf);
	close(fd);
	close(w.buildfd);
	strbuf_release(&err);
	if (g->skipped)
		verbose("profile: %ld files of the training not taken (no object of %s)",
			g->skipped, g->builddir);
	return rc < 0 ? -1 : w.copied;
}

long prof_profraw_merge(struct prof_gcda *g, const char *tool, const char *out)
{
	struct strbuf err = STRBUF_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	char *raw = xasprintf("%s/raw", g->top), *tmp = xasprintf("%s.tmp", out);
	int top = -1, src = -1, dst = -1;
	long n = -1;
	DIR *d = NULL;
	struct dirent *e;

	top = open(g->top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	src = open(g->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0 || src < 0 || mkdirat(top, "raw", 0700) < 0 ||
	    (dst = openat(top, "raw", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		error("cannot set up %s: %s", raw, strerror(errno));
		goto out;
	}
	strvec_pushl(&cp.args, tool, "merge", "-o", tmp, NULL);
	{
		int dfd = fcntl(src, F_DUPFD_CLOEXEC, 0);
		if (dfd < 0 || !(d = fdopendir(dfd))) {
			if (dfd >= 0)
				close(dfd);
			error("cannot read %s: %s", g->dir, strerror(errno));
			goto out;
		}
	}
	n = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		if (len <= 8 || strcmp(e->d_name + len - 8, ".profraw") ||
		    fstatat(src, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				g->skipped++;
			continue;
		}
		strbuf_reset(&err);
		if (sfs_copy_back(src, e->d_name, dst, e->d_name, SFS_IN_PROFILE, 0600, &err) < 0) {
			warning("profile data %s/%s not taken: %s", g->dir, e->d_name, err.buf);
			g->skipped++;
			continue;
		}
		strvec_pushf(&cp.args, "%s/%s", raw, e->d_name);
		n++;
	}
	if (n == 0)
		goto out;
	cp.no_stdin = 1;
	cp.out = 2;
	if (run_command(&cp) != 0) {
		n = error("%s merge could not merge the %ld raw profiles of %s", tool, n, g->dir);
		unlink(tmp);
	} else if (rename(tmp, out) < 0) {
		n = error("cannot rename %s to %s: %s", tmp, out, strerror(errno));
		unlink(tmp);
	}
out:
	if (d)
		closedir(d);
	if (top >= 0)
		close(top);
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	child_process_clear(&cp);
	strbuf_release(&err);
	free(raw);
	free(tmp);
	return n;
}

void prof_gcda_end(struct prof_gcda *g)
{
	/* top is ours, in TMPDIR: remove_tree follows no link below it */
	if (g->top && remove_tree(g->top) < 0)
		warning("cannot remove %s: %s", g->top, strerror(errno));
	free(g->builddir);
	free(g->top);
	free(g->dir);
	memset(g, 0, sizeof(*g));
}

/* The walk of prof_remove_gcda and prof_count_gcda. */
struct gcda_sweep {
	int remove;           /* unlink each .gcda found */
	long count;           /* .gcda files found (removed) */
};

static enum sfs_walk_next gcda_sweep_entry(struct sfs_entry *e, void *ctx)
{
	struct gcda_sweep *s = ctx;
	size_t n = strlen(e->name);

	/* regress's test tree is the server user's: not walked */
	if (e->depth == 0 && S_ISDIR(e->st.st_mode) && !strcmp(e->name, BUILD_CHECK_TREE))
		return SFS_WALK_SKIP;
	if (!S_ISREG(e->st.st_mode) || n < 5 || strcmp(e->name + n - 5, ".gcda"))
		return SFS_WALK_NEXT;
	if (s->remove && unlinkat(e->fd, e->name, 0) < 0) {
		strbuf_addf(e->err, "cannot remove \"%s\": %s", e->path, strerror(errno));
		return SFS_WALK_ERROR;
	}
	s->count++;
	return SFS_WALK_NEXT;
}

/* Count the .gcda files below dir, removing them when unlink_them is set. */
static long gcda_walk(const char *dir, int unlink_them)
{
	struct gcda_sweep s = { unlink_them, 0 };
	struct strbuf err = STRBUF_INIT;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return error("cannot open %s: %s", dir, strerror(errno));
	rc = sfs_walk_tree(fd, dir, gcda_sweep_entry, &s, &err);
	close(fd);
	if (rc < 0)
		error("%s", err.buf);
	strbuf_release(&err);
	return rc < 0 ? -1 : s.count;
}

long prof_remove_gcda(const char *dir)
{
	return gcda_walk(dir, 1);
}

long prof_count_gcda(const char *dir)
{
	return gcda_walk(dir, 0);
}

/* Run gcov on a batch of data files, feed each document into p. */
static int gcov_batch(struct strvec *gcda, struct strvec *tus, struct strvec *dsos,
		      const char *tmpdir, struct profile *p)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;
	strvec_pushl(&cp.args, "gcov", "--json-format", "--stdout", NULL);
	strvec_pushv(&cp.args, (const char *const *)gcda->v);
	cp.dir = tmpdir;
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	int code = capture_command(&cp, &out, 0);
	child_process_clear(&cp);
	if (code != 0) {
		ret = error("gcov failed (exit %d) on %s ...", code, gcda->v[0]);
		goto out;
	}
	/* one JSON document per line, in argument order */
	const char *s = out.buf;
	size_t i = 0;
	while (*s && i < gcda->nr) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (len > 1) {
			strbuf_setlen(&err, 0);
			if (prof_parse_gcov(p, s, len, tus->v[i], dsos->v[i],
					    prof_object_in_server(dsos->v[i]), &err) < 0)
				warning("gcov output for %s: %s", gcda->v[i], err.buf);
			i++;
		}
		s += len + (nl ? 1 : 0);
	}
out:
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(gcda);
	strvec_clear(tus);
	strvec_clear(dsos);
	return ret;
}

long prof_gcov_collect(const char *builddir, struct profile *p)
{
	char *log = xasprintf("%s/pgopt-log/%s", builddir, BUILDLOG_COMPILE);
	struct buildlog_objs os = { 0 };
	struct strvec gcda = STRVEC_INIT, tus = STRVEC_INIT, dsos = STRVEC_INIT;
	char tmpdir[] = "/tmp/pgbuild-gcov-XXXXXX";
	long files = 0;
	int failed = 0;

	if (!mkdtemp(tmpdir)) {
		free(log);
		return error("cannot make a temporary directory: %s", strerror(errno));
	}
	buildlog_objs_read(&os, log, NULL, NULL, 1);
	for (size_t i = 0; i < os.nr && !failed; i++) {
		const struct buildlog_obj *o = &os.v[i];
		const char *rel = below(o->path, builddir);
		size_t n = strlen(o->path);
		if (!o->tu || !rel || n < 3 || strcmp(o->path + n - 2, ".o"))
			continue;
		char *data = xasprintf("%.*s.gcda", (int)(n - 2), o->path);
		if (access(data, R_OK) == 0) {
			strvec_push(&gcda, data);
			strvec_push(&tus, o->tu);
			strvec_push(&dsos, rel);
			files++;
			if (gcda.nr == 64)
				failed = gcov_batch(&gcda, &tus, &dsos, tmpdir, p) < 0;
		}
		free(data);
	}
	if (!failed && gcda.nr)
		failed = gcov_batch(&gcda, &tus, &dsos, tmpdir, p) < 0;
	strvec_clear(&gcda);
	strvec_clear(&tus);
	strvec_clear(&dsos);
	buildlog_objs_free(&os);
	rmdir(tmpdir);
	free(log);
	return failed ? -1 : files;
}

int prof_run_option(struct prof_run *r, int c, const char *arg)
{
	switch (c) {
	case 'W':
	case OPT_TRAIN:
		/* a misspelt workload is an error now, not after a build */
		return cli_parse_training(arg, &r->workloads) < 0 ? -1 : 1;
	case 'c':
		return cli_parse_clients(arg, &r->clients) < 0 ? -1 : 1;
	case 'T':
		return cli_parse_duration(arg, &r->duration) < 0 ? -1 : 1;
	case 's':
		return cli_parse_scale(arg, &r->scale) < 0 ? -1 : 1;
	default:
		return 0;
	}
}
