/*
 * single.c - the server in single-user mode on a prepared data directory,
 * the part the per-transaction metrics share; see single.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/copytree.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/textfile.h"

/* Which workloads have a script and their counts: metric/workloads.c. */
int single_supported(const char *workload)
{
	return workloads_has(workload, WL_SINGLE);
}

long single_default_n(const char *workload)
{
	return single_supported(workload) ? workloads_find(workload)->single_n : 0;
}

/* Deterministic pseudo-random keys, the same for A and B. */
static unsigned long lcg(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

int single_make_script(const char *workload, long n, struct strbuf *sb)
{
	const struct workload_row *w = workloads_find(workload);
	struct single_tx t = { { 0, 0, 0 }, 0, 0 };
	unsigned long seed = 12345;

	if (!w || !(w->flags & WL_SINGLE) || !w->single)
		return error("no single-user script for workload \"%s\" (expected %s)", workload,
			     SINGLE_WORKLOADS);
	t.scale = workloads_scale(w, 0);
	for (t.i = 0; t.i < n; t.i++) {
		for (int k = 0; k < 3; k++)
			t.r[k] = lcg(&seed);
		w->single(sb, &t);
	}
	return 0;
}

int single_load_sql(const char *workload, struct strbuf *sb)
{
	const struct workload_row *w = workloads_find(workload);
	const struct workload_data *d = w && w->data ? workloads_data(w->data) : NULL;
	long scale;

	if (!d || d->copy)
		return error("workload \"%s\" has no data set the single-user server can load%s",
			     workload, d ? " (bench fills it by COPY)" : "");
	scale = workloads_scale(w, 0);
	if (d->ddl)
		strbuf_addstr(sb, d->ddl);
	if (d->fill)
		workloads_expand(sb, d->fill, scale);
	if (d->keys)
		workloads_expand(sb, d->keys, scale);
	strbuf_addstr(sb, "VACUUM ANALYZE;\nCHECKPOINT;\n");
	return 0;
}

char *single_template_name(const char *workload)
{
	const struct workload_row *w = workloads_find(workload);
	const struct workload_data *d = w && w->data ? workloads_data(w->data) : NULL;
	if (!d)
		return NULL;
	return d->scale_sql ? xasprintf("template-%s-s%ld", d->name, workloads_scale(w, 0)) :
		xasprintf("template-%s", d->name);
}

/* Run a command (optionally as the server user) with stdin from a file. */
int single_run_logged(const char *const *argv, const struct cluster_user *u,
		      const char *stdin_path, const char *log)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int in = -1, out, rc;
	strvec_pushv(&cp.args, argv);
	cluster_user_apply(u, &cp);
	if (stdin_path) {
		in = sfs_open_input(AT_FDCWD, stdin_path, SFS_IN_TEXT, 0, NULL, NULL);
		if (in < 0) {
			child_process_clear(&cp);
			return -1;
		}
		cp.in = in;
	} else {
		cp.no_stdin = 1;
	}
	/* ours, in base (which the server user cannot write) */
	out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out >= 0) {
		cp.out = out;
		cp.err = out;
	}
	rc = run_command(&cp);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	child_process_clear(&cp);
	return rc;
}


/* The last component of a path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int single_fresh_run(const struct single_dirs *d, int parentfd, const char *data_rel,
		     const char *data, const char *workload, long n, const char *script,
		     const char *out_rel, const char *log, const struct cluster_user *u,
		     struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec cp_args = STRVEC_INIT;
	int rc = -1, fd;

	copytree_args(&cp_args, d->tmpl, data, COPYTREE_INTO);
	/* what the server user wrote: removed below descriptors */
	if (sfs_remove(parentfd, data_rel, &err) < 0 || sfs_remove(d->outfd, out_rel, &err) < 0 ||
	    (fd = sfs_mkdir(parentfd, data_rel, 0700, u->switch_user ? u->uid : (uid_t)-1,
			    u->gid, 0, &err)) < 0) {
		strbuf_addf(note, "cannot prepare the run: %s", err.buf);
		goto out;
	}
	close(fd);
	sfs_remove(d->basefd, base_name(log), NULL);
	if (single_make_script(workload, n, &sb) < 0) {
		strbuf_addf(note, "no single-user script for workload \"%s\"", workload);
	} else if (sfs_write_atomic(d->basefd, base_name(script), sb.buf, sb.len, 0644, &err) < 0) {
		strbuf_addf(note, "cannot write %s: %s", script, err.buf);
	} else if (single_run_logged((const char *const *)cp_args.v, u, NULL, log) != 0) {
		strbuf_addf(note, "cannot copy the data directory %s", d->tmpl);
		textfile_note_tail(log, note);
	} else {
		rc = 0;
	}
out:
	strbuf_release(&sb);
	strbuf_release(&err);
	strvec_clear(&cp_args);
	return rc;
}

int single_read_out(const struct single_dirs *d, const char *out_rel, struct strbuf *sb,
		    struct strbuf *note)
{
	struct strbuf err = STRBUF_INIT;
	int rc = 0;
	if (sfs_read(d->outfd, out_rel, SFS_IN_COUNTS, SFS_NOFOLLOW, sb, &err) < 0) {
		strbuf_addf(note, "in %s: %s", d->out, err.buf);
		rc = -1;
	}
	strbuf_release(&err);
	return rc;
}

int single_frozen_clock(int dirfd, const char *dir, char **preload, struct strbuf *note)
{
	struct strbuf so = STRBUF_INIT, err = STRBUF_INIT;
	const char *lib = pgbuild_libdir();
	char *src = lib ? xasprintf("%s/" SINGLE_FROZEN_CLOCK, lib) : NULL;
	int rc = -1;

	*preload = NULL;
	if (!src || sfs_read(AT_FDCWD, src, SFS_IN_BINARY, 0, &so, &err) < 0) {
		strbuf_addf(note, "cannot install the frozen clock for the single-user runs: %s "
			    "(build it with make)", src ? err.buf : "pgbuild's LIBDIR is unknown");
		goto out;
	}
	if (sfs_write_atomic(dirfd, SINGLE_FROZEN_CLOCK, so.buf, so.len, 0644, &err) < 0) {
		strbuf_addf(note, "in %s: %s", dir, err.buf);
		goto out;
	}
	*preload = xasprintf("LD_PRELOAD=%s/" SINGLE_FROZEN_CLOCK, dir);
	rc = 0;
out:
	free(src);
	strbuf_release(&so);
	strbuf_release(&err);
	return rc;
}

int single_valgrind_status(int rc, const char *log, struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT;
	int sigill;
	sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &sb, NULL);
	sigill = rc == 128 + 4 || strstr(sb.buf, "SIGILL") || strstr(sb.buf, "unhandled instruction");
	strbuf_release(&sb);
	if (sigill) {
		strbuf_addstr(note, "the server died of SIGILL under valgrind: the build uses "
			      "instructions valgrind cannot run (AVX-512 from -march=native?); "
			      "build with -mno-avx512f to measure it");
		return -1;
	}
	if (rc != 0) {
		strbuf_addf(note, "valgrind/postgres --single exited %d", rc);
		textfile_note_tail(log, note);
		return -1;
	}
	return 0;
}

/* Does log (ours) hold a server ERROR line?  Then say which in note: a
 * statement that failed is not the statement measured. */
static int log_has_error(const char *log, const char *what, struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT;
	const char *e;
	int found = 0;
	if (sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &sb, NULL) >= 0 &&
	    (e = !strncmp(sb.buf, "ERROR:", 6) ? sb.buf : strstr(sb.buf, "\nERROR:"))) {
		const char *eol;
		e += *e == '\n';
		eol = strchr(e, '\n');
		strbuf_addf(note, "%s: the server said \"%.*s\" (log %s)", what,
			    (int)(eol ? eol - e : (long)strlen(e)), e, log);
		found = 1;
	}
	strbuf_release(&sb);
	return found;
}

int single_log_errors(const char *log, struct strbuf *note)
{
	return log_has_error(log, "a statement of the script failed", note) ? -1 : 0;
}

/*
 * initdb + the workload's data set loaded into d->tmpl (the server user's),
 * once per install and data set: made as NAME.tmp and renamed, so a
 * template that exists is a whole one.
 */
static int prepare_template(const char *prefix, const char *workload, const char *name,
			    const struct single_dirs *d, const struct cluster_user *u,
			    struct strbuf *note)
{
	char *tmp_name = xasprintf("%s.tmp", name);
	char *tmp = xasprintf("%s/%s", d->base, tmp_name);
	char *initdb = xasprintf("%s/bin/initdb", prefix);
	char *postgres = xasprintf("%s/bin/postgres", prefix);
	char *log_name = xasprintf("prepare-%s.log", name);
	char *log = xasprintf("%s/%s", d->base, log_name);
	char *load_name = xasprintf("load-%s.sql", name);
	char *load = xasprintf("%s/%s", d->base, load_name);
	const char *initdb_argv[] = { initdb, "-D", tmp, "-U", "postgres", "-A", "trust",
				      "-E", "UTF8", "--locale=C", "--no-sync", NULL };
	const char *load_argv[] = { postgres, "--single", "-D", tmp, "-c", "fsync=off",
				    "postgres", NULL };
	struct strbuf err = STRBUF_INIT, sql = STRBUF_INIT;
	int rc = -1, fd;

	if (single_load_sql(workload, &sql) < 0) {
		strbuf_addf(note, "no data set to load for workload \"%s\"", workload);
		goto out;
	}
	if (sfs_remove(d->basefd, tmp_name, &err) < 0 || sfs_remove(d->basefd, name, &err) < 0 ||
	    (fd = sfs_mkdir(d->basefd, tmp_name, 0700, u->switch_user ? u->uid : (uid_t)-1,
			    u->gid, 0, &err)) < 0) {
		strbuf_addf(note, "cannot prepare the template: %s", err.buf);
		goto out;
	}
	close(fd);
	sfs_remove(d->basefd, log_name, NULL);
	if (sfs_write_atomic(d->basefd, load_name, sql.buf, sql.len, 0644, &err) < 0) {
		strbuf_addf(note, "cannot write %s: %s", load, err.buf);
		goto out;
	}
	if (single_run_logged(initdb_argv, u, NULL, log) != 0) {
		strbuf_addf(note, "initdb failed");
		textfile_note_tail(log, note);
		goto out;
	}
	if (single_run_logged(load_argv, u, load, log) != 0) {
		strbuf_addf(note, "loading the data in single-user mode failed");
		textfile_note_tail(log, note);
		goto out;
	}
	if (log_has_error(log, "loading the data in single-user mode failed", note))
		goto out;
	if (renameat(d->basefd, tmp_name, d->basefd, name) < 0) {
		strbuf_addf(note, "cannot rename %s to %s: %s", tmp, name, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	/* a half-made template is never taken for a prepared one */
	if (rc < 0)
		sfs_remove(d->basefd, tmp_name, NULL);
	strbuf_release(&err);
	strbuf_release(&sql);
	free(tmp_name);
	free(tmp);
	free(initdb);
	free(postgres);
	free(log_name);
	free(log);
	free(load_name);
	free(load);
	return rc;
}

void single_dirs_release(struct single_dirs *d)
{
	if (d->basefd >= 0)
		close(d->basefd);
	if (d->outfd >= 0)
		close(d->outfd);
	free(d->base);
	free(d->tmpl);
	free(d->out);
	d->base = d->tmpl = d->out = NULL;
	d->basefd = d->outfd = -1;
}

char *single_base(const char *prefix, const char *workdir, const char *tag)
{
	/* one directory per install, named after the prefix */
	char *key = xstrdup(prefix), *base;
	for (char *p = key; *p; p++)
		if (*p == '/')
			*p = '_';
	base = xasprintf("%s/%s%s", workdir, tag, key);
	free(key);
	return base;
}

int single_prepare(const char *prefix, const char *workdir, const char *tag,
		   const char *workload, const struct cluster_user *u, struct single_dirs *d,
		   struct strbuf *note)
{
	struct strbuf err = STRBUF_INIT;
	uid_t uid = u->switch_user ? u->uid : (uid_t)-1;
	char *name, *tmpl_name = single_template_name(workload);
	struct stat st;
	int wfd = -1, fd, rc = -1;

	/* one directory per install, named after the prefix */
	d->base = single_base(prefix, workdir, tag);
	name = xstrdup(strrchr(d->base, '/') + 1);
	if (!tmpl_name) {
		strbuf_addf(note, "workload \"%s\" has no data set", workload);
		d->tmpl = xasprintf("%s/template", d->base);
		d->out = xasprintf("%s/out", d->base);
		goto out;
	}
	d->tmpl = xasprintf("%s/%s", d->base, tmpl_name);
	d->out = xasprintf("%s/out", d->base);
	/* workdir is pgbuild's (gate's private directory, or the caller's):
	 * base below its descriptor, ours; out below base's, the server's */
	wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0) {
		strbuf_addf(note, "cannot open %s: %s", workdir, strerror(errno));
		goto out;
	}
	if ((d->basefd = sfs_mkdir(wfd, name, 0755, (uid_t)-1, (gid_t)-1, 1, &err)) < 0 ||
	    (d->outfd = sfs_mkdir(d->basefd, "out", 0700, uid, u->gid, 1, &err)) < 0) {
		strbuf_addf(note, "in %s: %s", workdir, err.buf);
		goto out;
	}
	if ((fd = sfs_open_dir(d->basefd, tmpl_name, NULL)) >= 0 && fstat(fd, &st) == 0 &&
	    (uid == (uid_t)-1 || st.st_uid == uid)) {
		close(fd);
		rc = 0;         /* prepared by an earlier measurement */
		goto out;
	}
	if (fd >= 0)
		close(fd);
	rc = prepare_template(prefix, workload, tmpl_name, d, u, note);
out:
	if (wfd >= 0)
		close(wfd);
	free(name);
	free(tmpl_name);
	strbuf_release(&err);
	return rc;
}
