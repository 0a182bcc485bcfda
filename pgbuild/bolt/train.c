/*
 * train.c - the instrumented postgres and its training run: instrument,
 * train on a private cluster, take the postmaster's profile and write its
 * manifest; see bolt.h.
 *
 * Why the postmaster's file and not a merge: BOLT 15's runtime maps its
 * counters MAP_SHARED at start-up, before the postmaster forks anything, so
 * every process of the server counts into the same counters and every
 * process that exits writes a snapshot of the whole server so far.  The
 * postmaster exits last (after all its children), so its file is the
 * complete one; merge-fdata over all files over-counts (about 5x) and
 * weights the early phases.  The postmaster writes it from exit()'s
 * handlers, after postmaster.pid is removed (when pg_ctl would consider it
 * stopped): the cluster's stop waits for the process itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/run.h"

/*
 * WORKDIR/prof: empty, the server user's (the instrumented server writes
 * its profiles there).  Made below the work directory's descriptor (a link
 * or another user's directory in its place is removed, never followed),
 * so the server user gets this directory and nothing else.
 */
static int make_prof_dir(struct bolt_run *b, char **dir)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc = 0, wfd = -1, fd;

	*dir = bolt_path(b, "prof");
	if (cluster_user_get(&u, NULL, NULL, &err) < 0) {
		rc = error("%s", err.buf);
		goto out;
	}
	wfd = open(b->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0) {
		rc = error("cannot open %s: %s", b->workdir, strerror(errno));
		goto out;
	}
	if (sfs_remove(wfd, "prof", &err) < 0 ||
	    (fd = sfs_mkdir(wfd, "prof", 0755, u.switch_user ? u.uid : (uid_t)-1, u.gid, 0,
			    &err)) < 0) {
		rc = error("in %s: %s", b->workdir, err.buf);
		goto out;
	}
	close(fd);
out:
	if (wfd >= 0)
		close(wfd);
	cluster_user_release(&u);
	strbuf_release(&err);
	return rc;
}

/* Remove the entry name of the work directory (the server user's
 * directories there too) below its descriptor; 0 or -1 after the error. */
static int remove_in_workdir(struct bolt_run *b, const char *name)
{
	struct strbuf err = STRBUF_INIT;
	int wfd = open(b->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	if (wfd < 0 || sfs_remove(wfd, name, &err) < 0)
		rc = error("cannot remove %s/%s: %s", b->workdir, name,
			   wfd < 0 ? strerror(errno) : err.buf);
	if (wfd >= 0)
		close(wfd);
	strbuf_release(&err);
	return rc;
}

int bolt_instrument(struct bolt_run *b)
{
	struct strvec args = STRVEC_INIT;
	char *prof = NULL, *inst = bolt_path(b, "postgres.inst");
	char *log = bolt_path(b, "logs/instrument.log"), *what;
	int rc = PGBUILD_EXIT_ERROR;

	if (make_prof_dir(b, &prof) < 0)
		goto out;
	strvec_pushl(&args, b->in_binary, "-instrument", "-instrument-calls=0", NULL);
	strvec_pushf(&args, "-instrumentation-file=%s/prof", prof);
	strvec_pushl(&args, "-instrumentation-file-append-pid", "-o", inst, NULL);
	what = xasprintf("could not instrument %s", b->in_binary);
	if (bolt_exec(b, &args, log, what) == 0)
		rc = 0;
	free(what);
out:
	strvec_clear(&args);
	free(prof);
	free(inst);
	free(log);
	return rc;
}

/* A data directory that IN's own (not instrumented) initdb made. */
static int make_template(struct bolt_run *b, const char *dest)
{
	struct cluster c;
	struct cluster_options co = CLUSTER_OPTIONS_INIT;
	int rc;

	co.prefix = b->in;
	co.quiet = 1;
	if (remove_in_workdir(b, "train-data") < 0)
		return -1;
	if (cluster_create(&c, &co) < 0)
		return -1;
	rc = cluster_save_template(&c, dest, 0);
	cluster_destroy(&c);
	return rc;
}

/* The first crash line of a server log (a signal, PANIC, a failed
 * assertion), malloced, or NULL. */
static char *crash_line(const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;

	if (sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &sb, NULL) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	for (const char *l = sb.buf; *l && !r;) {
		size_t len = strcspn(l, "\n");
		if (cluster_log_line_is_crash(l, len))
			r = xstrndup(l, len);
		l += len + (l[len] ? 1 : 0);
	}
	strbuf_release(&sb);
	return r;
}

/* Run the workloads on the instrumented copy of IN; 0 or -1. */
static int run_training(struct bolt_run *b, struct prof_run *r, const char *prefix)
{
	const struct bolt_opts *o = b->o;
	const char *settings[] = { BOLT_TRAIN_SETTINGS, NULL };
	/* the regression suite expects parallel query (select_parallel,
	 * partition_prune): only autovacuum stays off when it trains */
	const char *suite_settings[] = { BOLT_TRAIN_SUITE_SETTINGS, NULL };
	int suite = 0;
	char *tmpl = bolt_path(b, "train-data");
	char *log = bolt_path(b, "logs/train-server.log");
	int rc = -1;

	if (make_template(b, tmpl) < 0)
		goto out;
	r->prefix = prefix;
	r->builddir = b->builddir;
	r->template_dir = tmpl;
	r->keep_log = log;
	r->clients = o->clients;
	r->duration = o->duration;
	r->scale = o->scale;
	r->quiet = 1;
	strvec_pushv(&r->workloads, (const char *const *)o->workloads.v);
	for (size_t i = 0; i < o->workloads.nr; i++)
		suite |= !strcmp(o->workloads.v[i], PROF_WORKLOAD_REGRESS);
	strvec_pushv(&r->settings, suite ? suite_settings : settings);
	strvec_pushv(&r->settings, (const char *const *)o->settings.v);
	rc = prof_run_workloads(r);
	if (rc < 0) {
		char *crash = crash_line(log);
		if (crash)
			error("the training run crashed: %s (server log: %s)", crash, log);
		else
			error("the training run failed (server log: %s)", log);
		free(crash);
	}
out:
	remove_in_workdir(b, "train-data");   /* the server user's template */
	free(tmpl);
	free(log);
	return rc;
}

/*
 * The count sums of every file in dir (the server user's: read below its
 * descriptor, bounded, O_NOFOLLOW); the postmaster's (pm, a name in dir) is
 * returned, the largest other one in *other (with its name); -1 when pm's
 * file is missing or empty.
 */
static int64_t profile_counts(const char *dir, const char *pm, int64_t *other, char **other_name,
			      int *files)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int lfd = dfd < 0 ? -1 : fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = lfd < 0 ? NULL : fdopendir(lfd);
	struct dirent *e;
	int64_t pm_sum = -1;

	*other = -1;
	*files = 0;
	if (!d && lfd >= 0)
		close(lfd);
	while (d && (e = readdir(d))) {
		int64_t n;
		if (e->d_name[0] == '.')
			continue;
		n = bolt_fdata_count(dfd, e->d_name);
		(*files)++;
		if (!strcmp(e->d_name, pm)) {
			pm_sum = n;
		} else if (n > *other) {
			*other = n;
			free(*other_name);
			*other_name = xstrdup(e->d_name);
		}
	}
	if (d)
		closedir(d);
	if (dfd >= 0)
		close(dfd);
	return pm_sum > 0 ? pm_sum : -1;
}

/* The manifest of the new profile (PROFILE.json). */
static int write_manifest(struct bolt_run *b, const struct prof_run *r, int64_t counts,
			  int files, const char *sha)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	char when[32], *path = bolt_manifest_path(b->profile);
	time_t now = time(NULL);
	int rc;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_object_begin(&jw);
	json_key(&jw, "input"); json_string(&jw, b->in_binary);
	json_key(&jw, "input_sha256"); json_string(&jw, b->in_sha);
	json_key(&jw, "profile_sha256"); json_string(&jw, sha);
	json_key(&jw, "workloads"); json_string(&jw, b->workloads.buf);
	json_key(&jw, "duration"); json_double(&jw, b->o->duration);
	json_key(&jw, "clients"); json_int(&jw, b->o->clients);
	json_key(&jw, "scale"); json_int(&jw, b->o->scale);
	json_key(&jw, "settings"); json_strvec(&jw, &r->settings);
	json_key(&jw, "extra_settings"); json_string(&jw, b->settings.buf);
	json_key(&jw, "llvm_bolt"); json_string(&jw, b->llvm_bolt);
	json_key(&jw, "bolt_version"); json_string(&jw, b->bolt_version);
	json_key(&jw, "instrument_flags"); json_string(&jw, BOLT_INSTRUMENT_FLAGS);
	json_key(&jw, "postmaster_pid"); json_int(&jw, r->postmaster);
	json_key(&jw, "profile_files"); json_int(&jw, files);
	json_key(&jw, "counts"); json_int(&jw, counts);
	json_key(&jw, "bench"); json_string(&jw, r->summary.buf);
	json_key(&jw, "trained_at"); json_string(&jw, when);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	rc = write_file_atomic(path, sb.buf, sb.len);
	if (rc == 0)
		b->manifest = json_parse(sb.buf, sb.len, NULL);
	strbuf_release(&sb);
	free(path);
	return rc;
}

/* Keep the postmaster's profile as WORKDIR/profile.fdata, with its manifest. */
static int keep_profile(struct bolt_run *b, const struct prof_run *r)
{
	char *dir = bolt_path(b, "prof"), *name = NULL;
	char *pm = xasprintf("prof.%ld.fdata", r->postmaster);
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	int64_t other, counts;
	char sha[65];
	int files, rc = -1, dfd = -1;

	counts = profile_counts(dir, pm, &other, &name, &files);
	if (counts < 0) {
		error("the postmaster (pid %ld) wrote no profile %s/%s (%d files in %s): the training "
		      "run did not end cleanly", r->postmaster, dir, pm, files, dir);
		goto out;
	}
	if (other > counts)
		warning("the postmaster's profile has fewer counts (%lld) than %s (%lld): its "
			"dump may be incomplete", (long long)counts, name, (long long)other);
	/* taken back from the server user's directory: bounded, no link */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || sfs_read(dfd, pm, SFS_IN_PROFILE, SFS_NOFOLLOW, &sb, &err) < 0) {
		error("in %s: %s", dir, dfd < 0 ? strerror(errno) : err.buf);
		goto out;
	}
	if (write_file_atomic(b->profile, sb.buf, sb.len) < 0 ||
	    bolt_file_sha256(b->profile, sha) < 0)
		goto out;
	rc = write_manifest(b, r, counts, files, sha);
out:
	if (dfd >= 0)
		close(dfd);
	strbuf_release(&sb);
	strbuf_release(&err);
	free(name);
	free(pm);
	free(dir);
	return rc;
}

int bolt_train(struct bolt_run *b)
{
	struct prof_run r;
	char *prefix = bolt_path(b, "train-prefix"), *inst = bolt_path(b, "postgres.inst");
	int rc = PGBUILD_EXIT_ERROR;

	prof_run_init(&r);
	json_free(b->manifest);
	b->manifest = NULL;
	if (bolt_copy_prefix(b->in, prefix, inst) < 0 || run_training(b, &r, prefix) < 0 ||
	    keep_profile(b, &r) < 0)
		goto out;
	rc = 0;
out:
	remove_tree(prefix);
	if (rc == 0)
		unlink(inst);
	free(prefix);
	free(inst);
	prof_run_release(&r);
	return rc;
}
