/*
 * session.c - bench_run, in phases: the outputs armed, the server opened,
 * the data read before, the server's side (postmaster, --cpus pinning),
 * the clients run, the checks after (commit count, invariants, server
 * log), the verdict.
 *
 * After the run come the correctness checks (workload.c), the commit count
 * check (pg_stat_database.xact_commit against what the clients committed),
 * and the server log scan (private clusters).  A failed check: exit 1.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bench/client.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/metric/workloads.h"
#include "wrapper/common/run-command.h"

/* From here on every exit writes --json (valid: false unless a run
 * completed), and a signal says in one line what it stopped. */
static void arm_outputs(struct session *s)
{
	struct bench_opts *o = s->o;

	if (o->json) {
		bench_json.path = o->json;
		if (!result_is_stdout(o->json))
			bench_json.sigtmp = xasprintf("%s.sig.%d", o->json, (int)getpid());
	}
	cluster_on_interrupt(bench_interrupted);
	cluster_install_handlers();
	if (o->prefix) {
		if (cluster_user_name()) {
			s->env.server_user = cluster_user_name();
			if (!o->quiet)
				fprintf(stderr, "%s: running the server as user %s (pgbuild runs as root)\n",
					error_program(), s->env.server_user);
		} else {
			struct cluster_user me = CLUSTER_USER_INIT;
			cluster_user_get(&me, NULL, NULL, NULL);
			s->our_user = xstrdup(me.name);
			s->env.server_user = s->our_user;
			cluster_user_release(&me);
		}
	}
	bench_json_arm(o, o->threads, &s->env);
}

/* The server: a private cluster made and loaded, or --connect's; the
 * control connection and what it says about the server. */
static int open_server(struct session *s)
{
	struct bench_opts *o = s->o;

	if (o->prefix) {
		if ((s->run.scale = bench_workload_scale(&s->w, o->scale)) < 0)
			return -1;
		if (bench_setup_cluster(o, &s->w, s->run.scale, &s->cl, &s->note) < 0) {
			if (s->cl.dir)
				cluster_destroy(&s->cl);
			return -1;
		}
		s->have_cluster = 1;
		s->conninfo = xstrdup(cluster_conninfo(&s->cl, "postgres"));
	} else {
		s->conninfo = xstrdup(o->connect);
	}
	s->env.dataset = s->note.buf;
	bench_json_arm(o, o->threads, &s->env);
	s->ctrl = PQconnectdb(s->conninfo);
	if (PQstatus(s->ctrl) != CONNECTION_OK) {
		char *m = bench_first_line(PQerrorMessage(s->ctrl));
		bench_error("cannot connect to \"%s\": %s", o->connect ? o->connect : s->conninfo, m);
		free(m);
		return -1;
	}
	PQclear(PQexec(s->ctrl, "SET client_min_messages = warning"));
	if (o->connect) {
		if (bench_existing_data(s) < 0)
			return -1;
		s->env.dataset = s->note.buf;
	}
	s->server_version = bench_query_text(s->ctrl, "SHOW server_version");
	{
		char *n = bench_query_text(s->ctrl, "SHOW server_version_num");
		s->env.version_num = n ? atoll(n) : 0;
		free(n);
	}
	s->cflags = bench_server_cflags(o->prefix, s->ctrl);
	s->env.server_version = s->server_version;
	s->env.cflags = s->cflags;
	bench_json_arm(o, o->threads, &s->env);
	s->run.flush_stats = s->env.version_num >= 150000;
	snprintf(s->run.appname, sizeof(s->run.appname), "pgbuild-bench-%d", (int)getpid());
	return 0;
}

/*
 * The postmaster (for the server CPU) and, with --cpus, the pinning of
 * the server and of our client threads (set here, before they exist, so
 * they inherit it).  What could not be done is said in the JSON and the
 * summary, never fatal.
 */
static void server_side(struct session *s)
{
	struct bench_opts *o = s->o;
	cpu_set_t all, client, server;
	int64_t backend = 0;
	const char *why = NULL;

	if (bench_query_int(s->ctrl, "SELECT pg_backend_pid()", &backend) < 0 ||
	    servercpu_postmaster_of("/proc", (pid_t)backend, &s->run.postmaster, &why) < 0) {
		s->env.cpu_why = why ? why : "pg_backend_pid() failed";
		s->run.postmaster = 0;
	}
	if (!o->cpus)
		return;
	if (servercpu_parse_cpus(o->cpus, &all) < 0) {   /* checked with the options */
		s->env.pinning = "not pinned: bad --cpus";
		return;
	}
	if (!servercpu_split(&all, &client, &server)) {
		snprintf(s->pinning, sizeof(s->pinning), "client and server share CPU %s: --cpus "
			 "gives one CPU, so they could not be separated", o->cpus);
	} else if (!s->run.postmaster || servercpu_pin("/proc", s->run.postmaster, &server) < 0) {
		sched_setaffinity(0, sizeof(all), &all);
		snprintf(s->pinning, sizeof(s->pinning), "client and server could not be separated "
			 "(%s): everything on CPUs %s", s->run.postmaster ? "the server's processes "
			 "cannot be pinned" : s->env.cpu_why, o->cpus);
		s->env.pinning = s->pinning;
		return;
	} else {
		char c[64], v[64];
		servercpu_cpu_list(&client, c, sizeof(c));
		servercpu_cpu_list(&server, v, sizeof(v));
		snprintf(s->pinning, sizeof(s->pinning), "client threads on CPU %s, server on CPU %s",
			 c, v);
	}
	if (sched_setaffinity(0, sizeof(client), &client) < 0)
		snprintf(s->pinning, sizeof(s->pinning), "the client threads cannot be pinned: %s",
			 strerror(errno));
	s->env.pinning = s->pinning;
}

/* pg_stat_database.xact_commit against what the clients committed. */
static void check_commits(struct session *s)
{
	struct run *run = &s->run;
	int64_t xa, left = 1, nq = 0;
	char *sql;

	if (!run->xact_ok) {
		if (!s->stalled)
			bench_check_add(&s->cs, "xact_commits", -1, "not available before PostgreSQL 15");
		return;
	}
	sql = xasprintf("SELECT count(*) FROM pg_stat_activity "
			"WHERE application_name = '%s'", run->appname);
	/* a backend flushes its statistics when it exits, which happens a
	 * little after the client disconnected: wait for that */
	for (int i = 0; i < 1000 && left; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		if (bench_query_int(s->ctrl, sql, &left) < 0)
			break;
		nq++;
		if (left)
			nanosleep(&ts, NULL);
	}
	free(sql);
	bench_flush_stats(run, s->ctrl);
	if (bench_query_int(s->ctrl, "SELECT xact_commit FROM pg_stat_database "
			    "WHERE datname = current_database()", &xa) == 0) {
		/* ours: the "before" read, the waits, the flush just now */
		int64_t server = xa - run->xact_before - 2 - nq;
		/* exact where nobody else can commit: our private cluster
		 * without autovacuum (its workers commit in our database too);
		 * elsewhere the server may count more than we did */
		char *av = bench_query_text(s->ctrl, "SHOW autovacuum");
		int exact = s->have_cluster && av && !strcmp(av, "off");
		const char *why = !s->have_cluster ? "not our server: other sessions may commit" :
				  exact ? "private cluster, autovacuum off: must be equal" :
				  "autovacuum on: its workers commit too";
		free(av);
		if (s->R.aborted)
			bench_check_add(&s->cs, "xact_commits", -1, "not compared: clients aborted");
		else
			bench_check_add(&s->cs, "xact_commits",
					exact ? server == s->R.commits : server >= s->R.commits,
					"clients committed %lld, server counted %lld%s (%s)",
					(long long)s->R.commits, (long long)server,
					server == s->R.commits ? " (exact)" :
					server > s->R.commits ? " (more)" : " (commits missing)", why);
	}
}

/* The workload's invariants and the server log. */
static void check_data(struct session *s)
{
	struct strbuf problems = STRBUF_INIT;

	if (s->stalled)
		;       /* reported as server_answers */
	else if (bench_snapshot_take(s->ctrl, s->w.data, &s->after) < 0)
		bench_check_add(&s->cs, "snapshot", 0, "could not read the data after the run");
	else
		bench_snapshot_compare(s->ctrl, &s->w, &s->before, &s->after, s->R.script_commits,
				       &s->cs);
	if (s->have_cluster) {
		int n = cluster_check_log(&s->cl, &problems);
		strbuf_rtrim(&problems);
		bench_check_add(&s->cs, "server_log", n == 0, "%s",
				n ? problems.buf : "no PANIC, crash or assertion failure");
	} else {
		bench_check_add(&s->cs, "server_log", -1, "not checked: not our server");
	}
	strbuf_release(&problems);
}

/* The exit code from the checks; the summary and --json. */
static void verdict(struct session *s)
{
	struct strbuf json = STRBUF_INIT;
	struct results *R = &s->R;
	int valid = 1;

	for (int i = 0; i < s->cs.nr; i++)
		if (s->cs.c[i].ok == 0)
			valid = 0;
	/* nothing measured is no result: could not run, like aborted clients */
	if (R->aborted || !R->count)
		s->exit_code = PGBUILD_EXIT_ERROR;
	else if (!valid)
		s->exit_code = PGBUILD_EXIT_FAIL;
	else
		s->exit_code = PGBUILD_EXIT_OK;
	if (R->aborted || !R->count)
		valid = 0;
	for (int i = 0; i < s->cs.nr; i++)
		if (s->cs.c[i].ok == 0)
			bench_error("check %s failed: %s", s->cs.c[i].name, s->cs.c[i].detail);
	if (R->aborted)
		bench_error("%d client%s aborted", R->aborted, R->aborted == 1 ? "" : "s");
	if (!R->count)
		bench_error("no transaction completed in the timed run (%g s%s): nothing was "
			    "measured", R->elapsed, R->errors ? ", every one failed" : "");
	bench_print_summary(&s->run, R, &s->cs, valid, s->server_version, s->env.cpu_why, s->env.pinning);
	if (s->o->json) {
		bench_write_json(&json, &s->run, R, &s->cs, valid, s->exit_code, &s->env, s->ctrl);
		if (bench_json_publish(json.buf, json.len) < 0)
			s->exit_code = PGBUILD_EXIT_ERROR;
		bench_json.done = 1;    /* even when it failed: no second attempt */
	}
	strbuf_release(&json);
}

static void session_release(struct session *s)
{
	struct run *run = &s->run;
	for (int i = 0; run->threads && i < run->nthreads; i++) {
		struct thread *t = &run->threads[i];
		for (int k = 0; k < t->nclients; k++) {
			free(t->clients[k].vars);
			free(t->clients[k].errmsg);
		}
		free(t->clients);
		free(t->script_commits);
		free(t->script_count);
		free(t->cmd_us);
		free(t->cmd_n);
		free(t->timeline);
		strbuf_release(&t->text);
	}
	free(run->threads);
	free(s->R.script_commits);
	free(s->R.script_count);
	free(s->R.cmd_us);
	free(s->R.cmd_n);
	free(run->cmd_base);
	free(s->R.timeline);
	free(s->conninfo);
	free(s->server_version);
	free(s->cflags);
	free(s->our_user);
	free(bench_json.sigtmp);
	cluster_block_signals(SIG_BLOCK);
	free(bench_json.doc);
	bench_json.doc = NULL;
	bench_json.path = NULL;
	cluster_block_signals(SIG_UNBLOCK);
	strbuf_release(&s->note);
	bench_workload_release(&s->w);
}

int bench_run(struct bench_opts *o)
{
	struct session s;

	memset(&s, 0, sizeof(s));
	s.o = o;
	strbuf_init(&s.note, 0);
	arm_outputs(&s);
	s.exit_code = PGBUILD_EXIT_ERROR;
	if ((o->mix ? bench_workload_init_mix(&s.w, o->mix, o->nmix) :
	     bench_workload_init(&s.w, o->workload, o->file)) < 0) {
		char *m = xasprintf("cannot set up workload \"%s\"%s%s", o->workload,
				    o->file ? " from " : "", o->file ? o->file : "");
		bench_note_error(m);
		free(m);
		goto out_early;
	}
	if (o->no_checks) {
		s.w.checks = 0;
		s.w.unchecked = "not checked: --no-checks (the commit count and the server log are "
				"checked)";
	}
	if (open_server(&s) < 0)
		goto out;
	if (bench_snapshot_take(s.ctrl, s.w.data, &s.before) < 0) {
		bench_note_error("cannot read the data before the run");
		goto out;
	}
	server_side(&s);
	if (bench_run_clients(&s) < 0)
		goto out;
	check_commits(&s);
	check_data(&s);
	verdict(&s);
out:
	if (s.ctrl)
		PQfinish(s.ctrl);
	if (s.have_cluster)
		cluster_destroy(&s.cl);
out_early:
	if (s.exit_code != PGBUILD_EXIT_OK)
		bench_json_fail(o, o->threads, &s.env, s.exit_code);
	session_release(&s);
	return s.exit_code;
}

void bench_opts_init(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workload = WORKLOADS_DEFAULT;
	o->protocol = PROTO_SIMPLE;     /* pgbench's default */
	o->clients = 1;
	o->duration = 10;
	o->stmt_timeout = 60;
	strvec_init(&o->settings);
}

void bench_opts_release(struct bench_opts *o)
{
	strvec_clear(&o->settings);
}

void bench_opts_default_threads(struct bench_opts *o)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (!o->threads)
		o->threads = cores < 1 ? 1 : cores < o->clients ? (int)cores : o->clients;
}

void bench_opts_set_workload(struct bench_opts *o, const char *spec)
{
	if (!strncmp(spec, "sql:", 4)) {
		o->file = spec + 4;
		o->workload = "sql";
	} else {
		o->workload = spec;
	}
}

int bench_protocol_parse(const char *name)
{
	for (int i = PROTO_SIMPLE; i <= PROTO_PREPARED; i++)
		if (!strcmp(name, bench_protocol_names[i]))
			return i;
	return -1;
}

static int bench_fn(void *o)
{
	return bench_run(o);
}

int bench_run_child(struct bench_opts *o, int fd, struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct cluster_engine_call call = { bench_fn, o };
	int rc;

	if ((int)o->protocol < PROTO_SIMPLE || (int)o->protocol > PROTO_PREPARED ||
	    o->clients < 1 || o->threads < 1 || o->threads > o->clients ||
	    (o->duration <= 0 && o->transactions <= 0))
		return error("bench: a run of protocol %d, %d clients, %d threads, %g s, %lld "
			     "transactions cannot run", (int)o->protocol, o->clients, o->threads,
			     o->duration, (long long)o->transactions) < 0 ? PGBUILD_EXIT_ERROR : 0;
	strvec_push(&cp.args, "pgbuild bench");
	cluster_engine_child(&cp, &call);
	cp.no_stdin = 1;
	if (fd >= 0 && !out) {
		cp.out = fd;
		cp.err = fd;
	}
	rc = out ? capture_command(&cp, out, 1) : run_command(&cp);
	child_process_clear(&cp);
	return rc < 0 ? PGBUILD_EXIT_ERROR : rc;
}
