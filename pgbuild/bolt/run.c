/*
 * run.c - the optimization into a new prefix, its record, the regression
 * suite against it, and the whole run with a progress line per step; see
 * bolt.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"

enum { STEP_INSTRUMENT, STEP_TRAIN, STEP_OPTIMIZE, STEP_REGRESS, STEP_NR };
static const char *const step_names[STEP_NR] = { "instrument", "train", "optimize", "regress" };

int bolt_optimize(struct bolt_run *b)
{
	struct strvec args = STRVEC_INIT;
	struct strbuf text = STRBUF_INIT;
	char *res = bolt_path(b, "postgres.bolt"), *log = bolt_path(b, "logs/optimize.log");
	char *tmp = xasprintf("%s.bolt-tmp", b->out), *what;
	int rc = PGBUILD_EXIT_ERROR, code;

	strvec_pushl(&args, b->in_binary, "-o", res, NULL);
	strvec_pushf(&args, "-data=%s", b->profile);
	bolt_push_flags(&args, bolt_optimize_flags(b->o));
	what = xasprintf("refused to rewrite %s", b->in_binary);
	code = bolt_exec(b, &args, log, what);
	free(what);
	if (code != 0)
		goto out;
	sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &text, NULL);
	if (bolt_parse_stats(text.buf, &b->stats) < 0)
		warning("llvm-bolt printed no coverage line (log: %s)", log);
	/* the new prefix appears whole or not at all */
	if (bolt_copy_prefix(b->in, tmp, res) < 0)
		goto out;
	if (remove_tree(b->out) < 0 || rename(tmp, b->out) < 0) {
		error("cannot replace %s: %s", b->out, strerror(errno));
		goto out;
	}
	unlink(res);
	rc = 0;
out:
	if (rc)
		remove_tree(tmp);
	strvec_clear(&args);
	strbuf_release(&text);
	free(res);
	free(log);
	free(tmp);
	return rc;
}

int bolt_regress(struct bolt_run *b)
{
	struct regress_opts ro;

	regress_opts_init(&ro);
	ro.builddir = b->builddir;
	ro.prefix = b->out;
	ro.contrib = b->o->contrib;
	ro.quiet = b->o->quiet;
	if (b->o->jobs)
		ro.jobs = b->o->jobs;
	free(b->regress_json);
	b->regress_json = bolt_path(b, "logs/regress.json");
	ro.json = b->regress_json;
	b->regress_rc = regress_run(&ro);
	return b->regress_rc;
}

/* ---------------- the record ---------------- */

/* Size and record facts of a binary, as "postgres" of a build record. */
static void binary_json(struct json_writer *jw, const char *path, long *records)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	char sha[65];

	json_object_begin(jw);
	json_key(jw, "path"); json_string(jw, path);
	json_key(jw, "sha256"); json_string(jw, bolt_file_sha256(path, sha) == 0 ? sha : NULL);
	*records = -1;
	if (elfrec_open(path, &f, &err) == 0) {
		*records = (long)f.objs[0].nlog;
		json_key(jw, "text_size"); json_int(jw, (int64_t)f.objs[0].readonly_size);
		json_key(jw, "dot_text_size"); json_int(jw, (int64_t)f.objs[0].dot_text_size);
		json_key(jw, "pgopt_records"); json_int(jw, *records);
		elfrec_release(&f);
	}
	strbuf_release(&err);
	json_object_end(jw);
}

static void seconds_json(struct json_writer *jw, const struct bolt_run *b)
{
	json_key(jw, "seconds");
	json_object_begin(jw);
	for (int i = 0; i < STEP_NR; i++) {
		json_key(jw, step_names[i]);
		if (b->secs[i] > 0)
			json_double(jw, b->secs[i]);
		else
			json_null(jw);
	}
	json_object_end(jw);
}

/* The training the profile came from: its manifest, else the options. */
static void training_json(struct json_writer *jw, const struct bolt_run *b)
{
	const struct json_value *m = b->manifest;
	const char *wl = m ? json_get_str(m, "workloads") : b->workloads.buf;
	struct strvec v = STRVEC_INIT;

	json_key(jw, "workloads");
	cli_parse_list(wl ? wl : "", &v);
	json_strvec(jw, &v);
	strvec_clear(&v);
	json_key(jw, "duration");
	json_double(jw, m ? json_get_num(m, "duration", 0) : b->o->duration);
	json_key(jw, "clients");
	json_int(jw, m ? (int64_t)json_get_num(m, "clients", 0) : b->o->clients);
	json_key(jw, "scale");
	json_int(jw, m ? (int64_t)json_get_num(m, "scale", 0) : b->o->scale);
}

static void profile_json(struct json_writer *jw, const struct bolt_run *b)
{
	char sha[65];

	json_key(jw, "profile");
	json_object_begin(jw);
	json_key(jw, "path"); json_string(jw, b->profile);
	json_key(jw, "sha256"); json_string(jw, bolt_file_sha256(b->profile, sha) == 0 ? sha : NULL);
	json_key(jw, "given"); json_bool(jw, b->o->profile != NULL);
	json_key(jw, "reused"); json_bool(jw, b->reuse);
	training_json(jw, b);
	json_key(jw, "manifest"); json_value_write(jw, b->manifest);
	json_object_end(jw);
}

/* The "bolt" object of the record into sb; the output's records in *records. */
static void bolt_json(struct strbuf *sb, const struct bolt_run *b, long *records)
{
	struct json_writer jw = JSON_WRITER_INIT(sb);
	char *out_bin = xasprintf("%s/bin/postgres", b->out);
	struct json_value *reg = NULL;
	long in_records;

	json_object_begin(&jw);
	json_key(&jw, "input");
	binary_json(&jw, b->in_binary, &in_records);
	json_key(&jw, "output");
	binary_json(&jw, out_bin, records);
	json_key(&jw, "pgopt_records_kept"); json_bool(&jw, *records == in_records);
	json_key(&jw, "llvm_bolt"); json_string(&jw, b->llvm_bolt);
	json_key(&jw, "bolt_version"); json_string(&jw, b->bolt_version);
	json_key(&jw, "instrument_flags"); json_string(&jw, BOLT_INSTRUMENT_FLAGS);
	json_key(&jw, "optimize_flags"); json_string(&jw, bolt_optimize_flags(b->o));
	profile_json(&jw, b);
	bolt_stats_json(&jw, &b->stats);
	seconds_json(&jw, b);
	json_key(&jw, "workdir"); json_string(&jw, b->workdir);
	if (b->regress_rc >= 0 && path_exists(b->regress_json))
		reg = buildlog_read_json(b->regress_json);
	json_key(&jw, "regress"); json_value_write(&jw, reg);
	json_key(&jw, "checked"); json_bool(&jw, b->regress_rc == 0);
	json_object_end(&jw);
	json_free(reg);
	free(out_bin);
}

int bolt_write_record(struct bolt_run *b)
{
	struct strbuf sb = STRBUF_INIT, bolt = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	const struct json_value *in = b->in_record;
	char *path = xasprintf("%s/%s", b->out, BUILDLOG_RECORD);
	struct json_value *bolt_v;
	long records;
	int rc;

	bolt_json(&bolt, b, &records);
	bolt_v = json_parse(bolt.buf, bolt.len, NULL);
	json_object_begin(&jw);
	/* IN's record, with the prefix and postgres of OUT */
	for (size_t i = 0; in && in->type == JSON_OBJECT && i < in->u.list.nr; i++) {
		const char *k = in->u.list.keys[i];
		if (strcmp(k, "prefix") && strcmp(k, "postgres") && strcmp(k, "bolt")) {
			json_key(&jw, k);
			json_value_write(&jw, in->u.list.items[i]);
		}
	}
	json_key(&jw, "prefix"); json_string(&jw, b->out);
	json_key(&jw, "postgres"); json_value_write(&jw, json_get(bolt_v, "output"));
	json_key(&jw, "bolt"); json_raw(&jw, bolt.buf);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	rc = write_file_atomic(path, sb.buf, sb.len);
	if (rc == 0 && b->o->json) {
		strbuf_addch(&bolt, '\n');
		rc = write_result(b->o->json, bolt.buf, bolt.len);
	}
	json_free(bolt_v);
	strbuf_release(&sb);
	strbuf_release(&bolt);
	free(path);
	return rc;
}

/* ---------------- the whole run ---------------- */

/* "[2/4] train     WHAT ..." on stderr (not with -q). */
static void step_begin(const struct bolt_run *b, int id, const char *what)
{
	if (!b->o->quiet)
		fprintf(stderr, "[%d/%d] %-10s %s ...\n", id + 1, STEP_NR, step_names[id], what);
}

/* "[2/4] train     done in 31.2s: RESULT" (always for a failure). */
static void step_end(struct bolt_run *b, int id, double t0, int rc, const char *result)
{
	char el[32];
	b->secs[id] = clock_seconds() - t0;
	if (b->o->quiet && rc == 0)
		return;
	fmt_duration(b->secs[id], 1, el, sizeof(el));
	fprintf(stderr, "[%d/%d] %-10s %s in %s%s%s\n", id + 1, STEP_NR, step_names[id],
		rc == 0 ? "done" : rc == 1 ? "FAILED" : "could not run", el,
		result && *result ? ": " : "", result ? result : "");
}

static void step_skip(const struct bolt_run *b, int id, const char *why)
{
	if (!b->o->quiet)
		fprintf(stderr, "[%d/%d] %-10s skipped: %s\n", id + 1, STEP_NR, step_names[id], why);
}

/* Instrument and train, or say why not. */
static int run_training_steps(struct bolt_run *b)
{
	struct strbuf what = STRBUF_INIT;
	double t0;
	int rc;

	if (b->reuse) {
		step_skip(b, STEP_INSTRUMENT, "the profile is reused");
		strbuf_addf(&what, "reusing %s", b->profile);
		step_skip(b, STEP_TRAIN, what.buf);
		strbuf_release(&what);
		return 0;
	}
	strbuf_addf(&what, "llvm-bolt %s %s", BOLT_INSTRUMENT_FLAGS, b->in_binary);
	step_begin(b, STEP_INSTRUMENT, what.buf);
	t0 = clock_seconds();
	rc = bolt_instrument(b);
	step_end(b, STEP_INSTRUMENT, t0, rc, rc ? NULL : "postgres.inst in the work directory");
	if (rc == 0) {
		strbuf_reset(&what);
		strbuf_addf(&what, "%s, %g s each, %d clients, on a private cluster",
			    b->workloads.buf, b->o->duration, b->o->clients);
		step_begin(b, STEP_TRAIN, what.buf);
		t0 = clock_seconds();
		rc = bolt_train(b);
		strbuf_reset(&what);
		if (rc == 0) {
			const char *tps = json_get_str(b->manifest, "bench");
			strbuf_addf(&what, "the postmaster's profile (pid %ld, %.0f counts) in %s",
				    (long)json_get_num(b->manifest, "postmaster_pid", 0),
				    json_get_num(b->manifest, "counts", 0), b->profile);
			/* bench's lines ("select-only: 9876 tps"), one after another */
			for (const char *l = tps ? tps : ""; *l;) {
				size_t n = strcspn(l, "\n");
				strbuf_addf(&what, "; %.*s", (int)n, l);
				l += n + (l[n] ? 1 : 0);
			}
		}
		step_end(b, STEP_TRAIN, t0, rc, what.buf);
	}
	strbuf_release(&what);
	return rc;
}

/* The percent change of one dyno-stat by name, for the summary. */
static double dyno_change(const struct bolt_stats *st, const char *name)
{
	for (int i = 0; i < BOLT_DYNO_NR; i++)
		if (!strcmp(bolt_dyno_names[i], name))
			return st->change[i];
	return 0;
}

static int run_optimize_step(struct bolt_run *b)
{
	struct strbuf what = STRBUF_INIT;
	double t0 = clock_seconds();
	int rc;

	strbuf_addf(&what, "llvm-bolt -data=%s %s -> %s", b->profile, bolt_optimize_flags(b->o), b->out);
	step_begin(b, STEP_OPTIMIZE, what.buf);
	rc = bolt_optimize(b);
	strbuf_reset(&what);
	if (rc == 0 && (rc = bolt_write_record(b)) != 0)
		rc = PGBUILD_EXIT_ERROR;
	if (rc == 0)
		strbuf_addf(&what, "%ld of %ld functions (%.1f%%) have a profile; taken branches "
			    "%+.1f%%, executed instructions %+.1f%% (BOLT's dyno-stats)",
			    b->stats.functions_profiled, b->stats.functions, b->stats.profiled_percent,
			    dyno_change(&b->stats, "taken branches"),
			    dyno_change(&b->stats, "executed instructions"));
	step_end(b, STEP_OPTIMIZE, t0, rc, what.buf);
	strbuf_release(&what);
	return rc;
}

static int run_regress_step(struct bolt_run *b)
{
	struct strbuf what = STRBUF_INIT;
	double t0 = clock_seconds();
	int rc;

	if (!b->o->regress) {
		step_skip(b, STEP_REGRESS, "--no-regress: the rewritten binary is NOT checked");
		return 0;
	}
	strbuf_addf(&what, "installcheck (core%s) from %s against a server from %s",
		    b->o->contrib ? " and contrib" : "", b->builddir, b->out);
	step_begin(b, STEP_REGRESS, what.buf);
	fflush(stdout);
	rc = bolt_regress(b);
	step_end(b, STEP_REGRESS, t0, rc, rc == 0 ? "the rewritten binary passed" : NULL);
	strbuf_release(&what);
	if (bolt_write_record(b) != 0 && rc == 0)
		rc = PGBUILD_EXIT_ERROR;
	return rc;
}

int bolt_run_all(struct bolt_run *b)
{
	char *logs = bolt_path(b, "logs");
	int rc, wfd;

	/* never chmodded; as root refused when another user could write in it
	 * (its prof/ and train-data/ are the server user's, made below it) */
	if ((wfd = workdir_open("--workdir", b->workdir)) < 0) {
		free(logs);
		return PGBUILD_EXIT_ERROR;
	}
	close(wfd);
	if (mkdir_p(logs) < 0) {
		free(logs);
		return PGBUILD_EXIT_ERROR;
	}
	free(logs);
	if ((rc = run_training_steps(b)) != 0 || (rc = run_optimize_step(b)) != 0)
		return PGBUILD_EXIT_ERROR;
	rc = run_regress_step(b);
	printf("bolt: %s/bin/postgres: %ld of %ld functions with a profile, %s\n", b->out,
	       b->stats.functions_profiled, b->stats.functions,
	       !b->o->regress ? "regression suite not run (--no-regress)" :
	       rc == 0 ? "regression suite passed" :
	       rc == 1 ? "regression suite FAILED: do not use it" : "regression suite could not run");
	return rc;
}
