/*
 * results.c - the results of `pgbuild bench`: the threads' counters merged,
 * the --json document (also on every exit path that has no results) and
 * the summary on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/common/fdio.h"
#include "pgbuild/bench/client.h"
#include "pgbuild/pgbuild.h"

const char *const bench_protocol_names[] = { "simple", "extended", "prepared" };

struct bench_json_state bench_json;

/* error() that also records the first error for the JSON "error" key. */
int bench_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!bench_json.error[0])
		snprintf(bench_json.error, sizeof(bench_json.error), "%s", buf);
	return error("%s", buf);
}

/* Record why we fail when nothing was recorded yet (no message printed). */
void bench_note_error(const char *msg)
{
	if (!bench_json.error[0] && msg && *msg)
		snprintf(bench_json.error, sizeof(bench_json.error), "%s", msg);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	}
	return "a signal";
}

#define SIGTMP_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)

/*
 * The cleanup handler's hook (a signal handler: async-signal-safe calls
 * only): write the interrupt document, then say in one line what happened.
 */
void bench_interrupted(int sig, const char *what)
{
	char num[24];
	const char *name = signal_name(sig);
	if (bench_json.path && bench_json.doc && !bench_json.done) {
		/* O_EXCL | O_NOFOLLOW: a link planted at the temporary name
		 * (its pid is predictable) is never written through; "-":
		 * the standard output the result was given */
		int out = !bench_json.sigtmp;
		int fd = out ? result_stdout_fd() : open(bench_json.sigtmp, SIGTMP_FLAGS, 0644);
		if (fd < 0 && errno == EEXIST && unlink(bench_json.sigtmp) == 0)
			fd = open(bench_json.sigtmp, SIGTMP_FLAGS, 0644);
		if (fd >= 0) {
			int bad = write_all(fd, bench_json.doc, bench_json.len) < 0 ||
				  write_all(fd, ",\"exit_code\":", 13) < 0;
			const char *n = bench_format_int(num, 128 + sig);
			bad = bad || write_all(fd, n, strlen(n)) < 0 ||
			      write_all(fd, ",\"error\":\"interrupted by ", 25) < 0 ||
			      write_all(fd, name, strlen(name)) < 0 ||
			      write_all(fd, "\"}\n", 3) < 0;
			if (!out && close(fd) < 0)
				bad = 1;
			if (!out && (bad || rename(bench_json.sigtmp, bench_json.path) < 0))
				unlink(bench_json.sigtmp);
		}
	}
	{
		const char *p = error_program();
		ssize_t r;
		if (bench_json.bar)     /* wipe the bar: the message gets a line of its own */
			r = write(2, "\r\033[K", 4);
		r = write(2, p, strlen(p));
		r = write(2, ": interrupted by ", 17);
		r = write(2, name, strlen(name));
		if (what && *what) {
			r = write(2, ": ", 2);
			r = write(2, what, strlen(what));
		}
		r = write(2, "\n", 1);
		(void)r;
	}
}

/* Write buf to --json FILE atomically (or to the standard output, "-").
 * 0 or -1 with the error printed. */
int bench_json_publish(const char *buf, size_t len)
{
	int e;
	if (result_is_stdout(bench_json.path))
		return write_result(bench_json.path, buf, len);
	if (write_file_atomic_quiet(bench_json.path, buf, len) == 0)
		return 0;
	e = errno;
	/* an old result must not pass for this run's */
	if (unlink(bench_json.path) == 0)
		return error("cannot write %s: %s (the old %s was removed)", bench_json.path,
			     strerror(e), bench_json.path);
	return error("cannot write %s: %s", bench_json.path, strerror(e));
}

/* A document for a run that did not complete: "valid": false and what is
 * known; without exit_code and error when exit_code < 0 (the interrupt
 * document, completed by the handler), then also without its final '}'. */
static void render_failure(struct strbuf *out, const struct bench_opts *o, int nthreads,
			   const struct bench_env *env, int exit_code, const char *err)
{
	struct json_writer jw = JSON_WRITER_INIT(out);
	json_object_begin(&jw);
	json_key(&jw, "tool"); json_string(&jw, "pgbuild bench");
	json_key(&jw, "version"); json_string(&jw, PGOPT_VERSION);
	json_key(&jw, "workload"); json_string(&jw, o->workload);
	if (o->file) {
		json_key(&jw, "script"); json_string(&jw, o->file);
	}
	json_key(&jw, "protocol"); json_string(&jw, bench_protocol_names[o->protocol]);
	json_key(&jw, "clients"); json_int(&jw, o->clients);
	json_key(&jw, "threads"); json_int(&jw, nthreads);
	json_key(&jw, "tps"); json_null(&jw);
	json_key(&jw, "transactions"); json_null(&jw);
	json_key(&jw, "environment");
	bench_json_environment(&jw, o, nthreads, env, NULL);
	json_key(&jw, "valid"); json_bool(&jw, 0);
	json_key(&jw, "invariants");
	json_object_begin(&jw);
	json_object_end(&jw);
	if (exit_code >= 0) {
		json_key(&jw, "exit_code"); json_int(&jw, exit_code);
		json_key(&jw, "error"); json_string(&jw, err && *err ? err : "failed");
	}
	json_object_end(&jw);
	if (exit_code >= 0)
		strbuf_addch(out, '\n');
	else
		strbuf_setlen(out, out->len - 1);       /* the handler closes it */
}

/* (Re)render the interrupt document with what is known now. */
void bench_json_arm(const struct bench_opts *o, int nthreads, const struct bench_env *env)
{
	struct strbuf sb = STRBUF_INIT;
	char *old;
	if (!bench_json.path)
		return;
	render_failure(&sb, o, nthreads, env, -1, NULL);
	cluster_block_signals(SIG_BLOCK);
	old = bench_json.doc;
	bench_json.len = sb.len;
	bench_json.doc = strbuf_detach(&sb, NULL);
	cluster_block_signals(SIG_UNBLOCK);
	free(old);
}

/* The failure document for a run that stopped with exit_code. */
void bench_json_fail(const struct bench_opts *o, int nthreads, const struct bench_env *env,
		     int exit_code)
{
	struct strbuf sb = STRBUF_INIT;
	if (!bench_json.path || bench_json.done)
		return;
	render_failure(&sb, o, nthreads, env, exit_code, bench_json.error);
	bench_json_publish(sb.buf, sb.len);
	bench_json.done = 1;
	strbuf_release(&sb);
}


/*
 * The timed run is measured, never taken from -T: it lasts from the end
 * of the warm-up to the last completed transaction, or to the nominal end
 * when the clients were still running then.  A run whose clients stopped
 * early (the server died at 4.5 s of 30) lasted until they stopped, so
 * its elapsed time and tps are those of 4.5 s, not of 30.
 */
void bench_merge_results(struct run *run, struct results *R)
{
	int64_t last = 0, stop = 0;
	memset(R, 0, sizeof(*R));
	hist_init(&R->hist);
	R->script_commits = xcalloc((size_t)run->w->nscripts, sizeof(int64_t));
	R->script_count = xcalloc((size_t)run->w->nscripts, sizeof(int64_t));
	if (run->o->per_command) {
		R->cmd_us = xcalloc((size_t)run->ncmds + 1, sizeof(int64_t));
		R->cmd_n = xcalloc((size_t)run->ncmds + 1, sizeof(int64_t));
	}
	for (int i = 0; i < run->nthreads; i++) {
		struct thread *t = &run->threads[i];
		hist_merge(&R->hist, &t->hist);
		R->count += t->count;
		R->warm_count += t->warm_count;
		R->commits += t->commits;
		R->errors += t->errors;
		R->aborted += t->aborted;
		R->connected += t->connected;
		for (int s = 0; s < run->w->nscripts; s++) {
			R->script_commits[s] += t->script_commits[s];
			R->script_count[s] += t->script_count[s];
		}
		R->late += t->late;
		R->skipped += t->skipped;
		for (int k = 0; t->cmd_us && k < run->ncmds; k++) {
			R->cmd_us[k] += t->cmd_us[k];
			R->cmd_n[k] += t->cmd_n[k];
		}
		for (int e = 0; e < t->nerrs; e++) {
			int k;
			for (k = 0; k < R->nerrs; k++)
				if (!strcmp(R->errs[k].sqlstate, t->errs[e].sqlstate))
					break;
			if (k == R->nerrs && R->nerrs < ERR_KINDS)
				R->errs[R->nerrs++] = t->errs[e];
			else if (k < R->nerrs)
				R->errs[k].n += t->errs[e].n;
		}
		if (t->ntimeline > R->ntimeline) {
			R->timeline = xrealloc(R->timeline, t->ntimeline * sizeof(*R->timeline));
			memset(R->timeline + R->ntimeline, 0,
			       (t->ntimeline - R->ntimeline) * sizeof(*R->timeline));
			R->ntimeline = t->ntimeline;
		}
		for (size_t s = 0; s < t->ntimeline; s++) {
			R->timeline[s].count += t->timeline[s].count;
			R->timeline[s].sum_us += t->timeline[s].sum_us;
			R->timeline[s].errors += t->timeline[s].errors;
		}
		if (t->last_end > last)
			last = t->last_end;
		if (t->stop_us > stop)
			stop = t->stop_us;
	}
	/* the clients ran until the nominal end or until they stopped */
	if (run->end_us && (stop < run->end_us ? stop : run->end_us) > last)
		last = stop < run->end_us ? stop : run->end_us;
	R->elapsed = last > run->warm_end_us ? (last - run->warm_end_us) / 1e6 : 0;
	R->cpu_s = bench_cpu_seconds() - run->cpu_start;
	R->server_cpu_ok = run->cpu0_ok && run->cpu1_ok && R->count > 0 &&
			   run->cpu1.ticks >= run->cpu0.ticks;
	if (R->server_cpu_ok) {
		R->server_cpu_s = servercpu_seconds(&run->cpu0, &run->cpu1);
		R->server_procs = run->cpu1.processes;
	}
}

/* A command as -r shows it, into sb: its SQL as written (:var for each
 * variable), or the meta-command's name. */
static const char *command_words(const struct bench_workload *w, const struct bench_command *c,
				 struct strbuf *sb)
{
	strbuf_reset(sb);
	if (c->kind != BCMD_SQL)
		return c->kind == BCMD_SLEEP ? "\\sleep" : "\\set";
	for (int i = 0; i < c->nparams; i++)
		strbuf_addf(sb, "%s:%s", c->pieces[i], w->vars.names[c->param_var[i]]);
	strbuf_addstr(sb, c->pieces[c->nparams]);
	return sb->buf;
}

static void json_ms(struct json_writer *jw, const char *key, double us)
{
	json_key(jw, key);
	json_double(jw, round(us) / 1000.0);
}

void bench_write_json(struct strbuf *out, struct run *run, struct results *R,
		      const struct bench_checks *cs, int valid, int exit_code,
		      const struct bench_env *env, PGconn *conn)
{
	struct json_writer jw = JSON_WRITER_INIT(out);
	struct bench_opts *o = run->o;
	double tps = R->elapsed > 0 ? R->count / R->elapsed : 0;
	struct strbuf words = STRBUF_INIT;     /* -r: a command's text */

	json_object_begin(&jw);
	json_key(&jw, "tool"); json_string(&jw, "pgbuild bench");
	json_key(&jw, "version"); json_string(&jw, PGOPT_VERSION);
	json_key(&jw, "workload"); json_string(&jw, run->w->name);
	json_key(&jw, "transaction_type"); json_string(&jw, bench_workload_label(run->w));
	if (o->file) {
		json_key(&jw, "script"); json_string(&jw, o->file);
	}
	json_key(&jw, "protocol"); json_string(&jw, bench_protocol_names[o->protocol]);
	json_key(&jw, "scale"); json_int(&jw, run->scale);
	json_key(&jw, "clients"); json_int(&jw, o->clients);
	json_key(&jw, "threads"); json_int(&jw, run->nthreads);
	json_key(&jw, "warmup_s"); json_double(&jw, o->warmup);
	json_key(&jw, "duration_s");
	if (o->transactions) json_null(&jw); else json_double(&jw, o->duration);
	json_key(&jw, "transactions_per_client");
	if (o->transactions) json_int(&jw, o->transactions); else json_null(&jw);
	json_key(&jw, "tps"); json_double(&jw, round(tps * 1000) / 1000);
	json_key(&jw, "transactions"); json_int(&jw, R->count);
	json_key(&jw, "warmup_transactions"); json_int(&jw, R->warm_count);
	json_key(&jw, "elapsed_s"); json_double(&jw, round(R->elapsed * 1e6) / 1e6);
	json_key(&jw, "aborted_clients"); json_int(&jw, R->aborted);
	json_key(&jw, "rate");
	if (o->rate > 0) json_double(&jw, o->rate); else json_null(&jw);
	json_key(&jw, "latency_limit_ms");
	if (o->latency_limit) {
		json_double(&jw, (double)o->latency_limit / 1000);
		json_key(&jw, "late_transactions"); json_int(&jw, R->late);
		json_key(&jw, "skipped_transactions"); json_int(&jw, R->skipped);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "errors_total"); json_int(&jw, R->errors);
	json_key(&jw, "errors");
	json_object_begin(&jw);
	for (int i = 0; i < R->nerrs; i++) {
		json_key(&jw, R->errs[i].sqlstate);
		json_int(&jw, R->errs[i].n);
	}
	json_object_end(&jw);
	json_key(&jw, "latency_ms");
	json_object_begin(&jw);
	json_ms(&jw, "avg", hist_mean(&R->hist));
	json_ms(&jw, "stddev", hist_stddev(&R->hist));
	json_ms(&jw, "min", R->hist.count ? (double)R->hist.min : 0);
	json_ms(&jw, "p50", (double)hist_quantile(&R->hist, 0.50));
	json_ms(&jw, "p90", (double)hist_quantile(&R->hist, 0.90));
	json_ms(&jw, "p99", (double)hist_quantile(&R->hist, 0.99));
	json_ms(&jw, "p999", (double)hist_quantile(&R->hist, 0.999));
	json_ms(&jw, "max", (double)R->hist.max);
	json_object_end(&jw);
	json_key(&jw, "scripts");
	json_array_begin(&jw);
	for (int s = 0; s < run->w->nscripts; s++) {
		json_object_begin(&jw);
		json_key(&jw, "name"); json_string(&jw, run->w->scripts[s].name);
		json_key(&jw, "weight"); json_int(&jw, run->w->scripts[s].weight);
		json_key(&jw, "commits"); json_int(&jw, R->script_commits[s]);
		json_key(&jw, "transactions"); json_int(&jw, R->script_count[s]);
		if (R->cmd_us) {        /* -r */
			const struct bench_script *sc = &run->w->scripts[s];
			json_key(&jw, "commands");
			json_array_begin(&jw);
			for (int k = 0; k < sc->ncmds; k++) {
				int64_t n = R->cmd_n[run->cmd_base[s] + k];
				json_object_begin(&jw);
				json_key(&jw, "line"); json_int(&jw, sc->cmds[k].line);
				json_key(&jw, "command");
				json_string(&jw, command_words(run->w, &sc->cmds[k], &words));
				json_key(&jw, "count"); json_int(&jw, n);
				if (sc->cmds[k].kind == BCMD_SET) {     /* not timed */
					json_key(&jw, "latency_ms");
					json_null(&jw);
				} else {
					json_ms(&jw, "latency_ms", n ? (double)R->cmd_us[run->cmd_base[s] + k] / n : 0);
				}
				json_object_end(&jw);
			}
			json_array_end(&jw);
		}
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_key(&jw, "timeline");
	json_array_begin(&jw);
	for (size_t s = 0; s < R->ntimeline; s++) {
		json_object_begin(&jw);
		json_key(&jw, "t"); json_int(&jw, (int64_t)s + 1);
		json_key(&jw, "transactions"); json_int(&jw, R->timeline[s].count);
		json_key(&jw, "errors"); json_int(&jw, R->timeline[s].errors);
		json_key(&jw, "lat_avg_ms");
		json_double(&jw, R->timeline[s].count ?
			    round((double)R->timeline[s].sum_us / R->timeline[s].count) / 1000 : 0);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_key(&jw, "client_cpu_s"); json_double(&jw, round(R->cpu_s * 1000) / 1000);
	json_key(&jw, "client_cpu_s_per_10k");
	json_double(&jw, R->count + R->warm_count ?
		    round(R->cpu_s * 1e7 / (double)(R->count + R->warm_count)) / 1000 : 0);
	json_key(&jw, "server_cpu");
	if (R->server_cpu_ok) {
		json_object_begin(&jw);
		json_key(&jw, "s"); json_double(&jw, R->server_cpu_s);
		json_key(&jw, "us_per_tx"); json_double(&jw, R->server_cpu_s * 1e6 / (double)R->count);
		json_key(&jw, "processes"); json_int(&jw, R->server_procs);
		json_key(&jw, "method"); json_string(&jw, SERVER_CPU_METHOD);
		json_object_end(&jw);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "server_cpu_note"); json_string(&jw, R->server_cpu_ok ? NULL : env->cpu_why);
	json_key(&jw, "environment");
	bench_json_environment(&jw, o, run->nthreads, env, conn);
	json_key(&jw, "valid"); json_bool(&jw, valid);
	json_key(&jw, "invariants");
	json_object_begin(&jw);
	for (int i = 0; i < cs->nr; i++) {
		json_key(&jw, cs->c[i].name);
		json_object_begin(&jw);
		json_key(&jw, "ok");
		if (cs->c[i].ok < 0) json_null(&jw); else json_bool(&jw, cs->c[i].ok);
		json_key(&jw, "detail"); json_string(&jw, cs->c[i].detail);
		json_object_end(&jw);
	}
	json_object_end(&jw);
	json_key(&jw, "exit_code"); json_int(&jw, exit_code);
	json_key(&jw, "error"); json_string(&jw, bench_json.error[0] ? bench_json.error : NULL);
	json_object_end(&jw);
	strbuf_addch(out, '\n');
	strbuf_release(&words);
}

void bench_print_summary(struct run *run, struct results *R, const struct bench_checks *cs,
			 int valid, const char *server_version, const char *cpu_why,
			 const char *pinning)
{
	struct bench_opts *o = run->o;
	double tps = R->elapsed > 0 ? R->count / R->elapsed : 0;
	struct strbuf words = STRBUF_INIT;     /* -r: a command's text */
	printf("workload: %s (%s protocol), scale %d, %d client%s, %d thread%s\n",
	       bench_workload_label(run->w), bench_protocol_names[o->protocol], run->scale,
	       o->clients,
	       o->clients == 1 ? "" : "s", run->nthreads, run->nthreads == 1 ? "" : "s");
	printf("server: %s\n", server_version ? server_version : "?");
	printf("duration: %.3f s", R->elapsed);
	if (o->warmup)
		printf(" after %g s warm-up (%lld transactions)", o->warmup,
		       (long long)R->warm_count);
	printf("\n");
	printf("transactions: %lld, tps: %.1f, errors: %lld, aborted clients: %d\n",
	       (long long)R->count, tps, (long long)R->errors, R->aborted);
	if (R->server_cpu_ok)
		printf("server CPU: %.2f us per transaction (%.2f s user+system, postmaster and "
		       "%d other processes)\n", R->server_cpu_s * 1e6 / (double)R->count,
		       R->server_cpu_s, R->server_procs - 1);
	else
		printf("server CPU: unavailable (%s)\n", cpu_why ? cpu_why : "not measured");
	if (pinning)
		printf("pinning: %s\n", pinning);
	for (int i = 0; i < R->nerrs; i++)
		printf("  SQLSTATE %s: %lld\n", R->errs[i].sqlstate, (long long)R->errs[i].n);
	printf("latency ms: avg %.3f stddev %.3f p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f\n",
	       hist_mean(&R->hist) / 1000, hist_stddev(&R->hist) / 1000,
	       hist_quantile(&R->hist, 0.5) / 1000.0, hist_quantile(&R->hist, 0.9) / 1000.0,
	       hist_quantile(&R->hist, 0.99) / 1000.0, hist_quantile(&R->hist, 0.999) / 1000.0,
	       R->hist.max / 1000.0);
	printf("client CPU: %.2f s (%.3f s per 10k transactions)\n", R->cpu_s,
	       R->count + R->warm_count ? R->cpu_s * 10000 / (R->count + R->warm_count) : 0);
	if (o->latency_limit)
		printf("over the %.3f ms latency limit: %lld (%.1f%%)%s", o->latency_limit / 1000.0,
		       (long long)R->late, R->count ? 100.0 * R->late / R->count : 0,
		       o->rate > 0 ? "" : "\n");
	if (o->latency_limit && o->rate > 0)
		printf(", skipped (too late to start): %lld\n", (long long)R->skipped);
	/* several scripts: each by its name, as pgbench's "SQL script N:" */
	for (int s = 0; run->w->nscripts > 1 && s < run->w->nscripts; s++) {
		const struct bench_script *sc = &run->w->scripts[s];
		printf("SQL script %d: %s\n"
		       " - weight: %d (targets %.1f%% of total)\n"
		       " - %lld transactions (%.1f%% of total, tps = %.1f)\n",
		       s + 1, sc->name, sc->weight,
		       run->w->total_weight ? 100.0 * sc->weight / run->w->total_weight : 0,
		       (long long)R->script_count[s],
		       R->count ? 100.0 * (double)R->script_count[s] / (double)R->count : 0,
		       R->elapsed > 0 ? (double)R->script_count[s] / R->elapsed : 0);
	}
	for (int s = 0; R->cmd_us && s < run->w->nscripts; s++) {
		const struct bench_script *sc = &run->w->scripts[s];
		printf("statement latencies in milliseconds of %s:\n", sc->name);
		for (int k = 0; k < sc->ncmds; k++) {
			int64_t n = R->cmd_n[run->cmd_base[s] + k];
			if (sc->cmds[k].kind == BCMD_SET)       /* not timed */
				printf("  %10s  %s\n", "-", command_words(run->w, &sc->cmds[k], &words));
			else
				printf("  %10.3f  %s\n",
				       n ? R->cmd_us[run->cmd_base[s] + k] / 1000.0 / n : 0.0,
				       command_words(run->w, &sc->cmds[k], &words));
		}
	}
	for (int i = 0; i < cs->nr; i++)
		printf("check %-22s %-4s %s\n", cs->c[i].name,
		       cs->c[i].ok < 0 ? "n/a" : cs->c[i].ok ? "ok" : "FAIL", cs->c[i].detail);
	printf("result: %s\n", valid ? "valid" : "INVALID");
	strbuf_release(&words);
}
