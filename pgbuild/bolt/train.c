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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bolt/bolt.h"
#include "cluster/cluster.h"
#include "cluster/serveruser.h"
#include "pgbuild.h"
#include "profile/run.h"

/* WORKDIR/prof: empty, writable by the server user (the profiles). */
static int make_prof_dir(struct bolt_run *b, char **dir)
{
	struct server_user u = SERVER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	*dir = bolt_path(b, "prof");
	if (remove_tree(*dir) < 0 || mkdir(*dir, 0755) < 0)
		return error("cannot make %s: %s", *dir, strerror(errno));
	if (server_user_get(&u, NULL, NULL, &err) < 0)
		rc = error("%s", err.buf);
	else if (u.switch_user && chown(*dir, u.uid, u.gid) < 0)
		rc = error("cannot give %s to the server user %s: %s", *dir, u.name, strerror(errno));
	server_user_release(&u);
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
	if (remove_tree(dest) < 0)
		return error("cannot remove %s: %s", dest, strerror(errno));
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

	if (strbuf_read_file(&sb, log) < 0) {
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
	char *tmpl = bolt_path(b, "train-data");
	char *log = bolt_path(b, "logs/train-server.log");
	int rc = -1;

	if (make_template(b, tmpl) < 0)
		goto out;
	r->prefix = prefix;
	r->template_dir = tmpl;
	r->keep_log = log;
	r->clients = o->clients;
	r->duration = o->duration;
	r->scale = o->scale;
	r->quiet = 1;
	strvec_pushv(&r->workloads, (const char *const *)o->workloads.v);
	strvec_pushv(&r->settings, settings);
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
	remove_tree(tmpl);
	free(tmpl);
	free(log);
	return rc;
}

/*
 * The count sums of every file in dir; the postmaster's (pm) is returned,
 * the largest other one in *other (with its name); -1 when pm's file is
 * missing or empty.
 */
static int64_t profile_counts(const char *dir, const char *pm, int64_t *other, char **other_name,
			      int *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int64_t pm_sum = -1;

	*other = -1;
	*files = 0;
	while (d && (e = readdir(d))) {
		char *p;
		int64_t n;
		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		n = bolt_fdata_count(p);
		(*files)++;
		if (!strcmp(p, pm)) {
			pm_sum = n;
		} else if (n > *other) {
			*other = n;
			free(*other_name);
			*other_name = xstrdup(e->d_name);
		}
		free(p);
	}
	if (d)
		closedir(d);
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
	char *pm = xasprintf("%s/prof.%ld.fdata", dir, r->postmaster);
	struct strbuf sb = STRBUF_INIT;
	int64_t other, counts;
	char sha[65];
	int files, rc = -1;

	counts = profile_counts(dir, pm, &other, &name, &files);
	if (counts < 0) {
		error("the postmaster (pid %ld) wrote no profile %s (%d files in %s): the training "
		      "run did not end cleanly", r->postmaster, pm, files, dir);
		goto out;
	}
	if (other > counts)
		warning("the postmaster's profile has fewer counts (%lld) than %s (%lld): its "
			"dump may be incomplete", (long long)counts, name, (long long)other);
	if (strbuf_read_file(&sb, pm) < 0 || write_file_atomic(b->profile, sb.buf, sb.len) < 0 ||
	    bolt_file_sha256(b->profile, sha) < 0)
		goto out;
	rc = write_manifest(b, r, counts, files, sha);
out:
	strbuf_release(&sb);
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
