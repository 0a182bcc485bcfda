/*
 * client.c - the embedded multi-threaded libpq benchmark of `pgbuild bench`.
 *
 * Design after pgbench (src/bin/pgbench/pgbench.c):
 *  - clients are spread evenly over threads; thread 0 runs in main;
 *  - three barriers: before connecting, after every client is connected and
 *    has prepared its statements (main takes the "before" counters here),
 *    and the start of the timed run;
 *  - each client is a non-blocking libpq state machine (PQsendQuery* /
 *    PQconsumeInput / PQisBusy); each thread poll()s the sockets of its
 *    clients only;
 *  - every thread owns its PRNGs (one per client), histogram, counters and
 *    timeline, so the hot path takes no lock; progress reports read a few
 *    relaxed atomics; everything is merged after the threads are joined.
 *  - latencies are int64 microseconds from the first command of a
 *    transaction to the last result.
 *
 * A transaction that fails with a serialization failure or deadlock
 * (SQLSTATE class 40) is rolled back, counted under its SQLSTATE and the
 * client goes on; any other error, or a lost connection, aborts the client
 * (exit 2, like pgbench).
 *
 * After the run come the correctness checks (workload.c), the commit count
 * check (pg_stat_database.xact_commit against what the clients committed),
 * and the server log scan (private clusters).  A failed check: exit 1.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wrapper/common/fdio.h"
#include "pgbuild/bench/bench.h"
#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/bench/histogram.h"
#include "pgbuild/pgbuild.h"

#define CACHE_LINE 64   /* bytes; per-thread data never shares one */
#define BAR_WIDTH 30    /* cells of the progress bar */
#define BAR_EVERY_US 250000 /* the bar is redrawn 4 times a second */

static const char *const protocol_names[] = { "simple", "extended", "prepared" };

/*
 * --json FILE is written on every exit after the options are parsed: the
 * full results after a run, else a document with "valid": false, the exit
 * code, the error and what is known so far.  Always atomically: written to
 * a temporary file and renamed over FILE (write_file_atomic_quiet, or the
 * signal handler's FILE.sig.PID), so a reader never sees a torn file
 * and an old result never survives a failed run.  A signal (the cleanup
 * handler of cluster.c calls bench_interrupted) writes a document rendered
 * in advance (json_arm) with async-signal-safe calls only.
 */
static struct {
	const char *path;       /* --json FILE, or NULL */
	char *sigtmp;           /* FILE.sig.PID: the signal handler writes here */
	char *doc;              /* the interrupt document without its final '}' */
	size_t len;
	volatile sig_atomic_t done; /* final document written: the handler keeps it */
	volatile sig_atomic_t bar;  /* a progress bar is on the terminal's last line */
	char error[512];        /* the first error of this run ("" if none) */
} bj;

/* ---------------- per-client and per-thread state ---------------- */

enum cstate {
	CS_START,       /* choose a script, start a transaction */
	CS_COMMAND,     /* run the current command (or finish the transaction) */
	CS_WAIT,        /* command sent, waiting for its results */
	CS_ROLLBACK,    /* ROLLBACK sent after a retryable error */
	CS_DONE,        /* finished normally */
	CS_ABORTED,     /* connection lost or a non-retryable error */
};

struct client {
	PGconn *conn;           /* its connection */
	int id;                 /* 0..clients-1 */
	enum cstate state;      /* see above */
	int script;             /* current script */
	int cmd;                /* current command of it */
	int64_t tx_start;       /* us, start of the current transaction */
	int64_t wait_start;     /* us, when the awaited command was sent */
	int64_t txs;            /* timed transactions done (for --transactions) */
	struct bench_value *vars; /* its variables */
	struct bench_prng rng;  /* its random numbers */
	int failed;             /* the current command returned an error */
	int rollback;           /* the last result was a ROLLBACK */
	char sqlstate[6];       /* of the error */
	char *errmsg;           /* first line of the error (malloced) */
};

struct timeline_sec {
	int64_t count;          /* transactions that ended in this second */
	int64_t sum_us;         /* their latencies */
	int64_t errors;         /* failed transactions */
};

struct err_count {
	char sqlstate[6];
	int64_t n;
};

#define ERR_KINDS 32

struct thread {
	_Alignas(CACHE_LINE) pthread_t tid; /* whole cache lines per thread */
	int id;
	struct client *clients; /* its clients */
	int nclients;
	struct histogram hist;  /* timed transactions */
	int64_t count;          /* timed transactions */
	int64_t warm_count;     /* warm-up transactions */
	int64_t commits;        /* commits the server reported (warm-up included) */
	int64_t *script_commits; /* per script */
	int64_t last_end;       /* us, end of its last transaction */
	int64_t stop_us;        /* us, when its clients had all stopped */
	struct timeline_sec *timeline; /* per second of the timed run */
	size_t ntimeline, timeline_alloc;
	struct err_count errs[ERR_KINDS];
	int nerrs;
	int64_t errors;         /* all failed transactions */
	int aborted;            /* clients aborted */
	int stalled;            /* a client got no answer within --statement-timeout */
	int connect_failed;     /* a client could not connect or prepare */
	int connected;          /* clients connected at the end (for the commit check) */
	struct strbuf text;     /* scratch: simple-protocol query text */
	int64_t all_count, all_sum, all_errors; /* warm-up included, for progress */
	uint64_t all_sum2;
	/* copies of the above read by thread 0 for --progress (relaxed
	 * atomics, no locks) */
	_Atomic int64_t p_count, p_sum, p_errors;
	_Atomic uint64_t p_sum2;
};

/* What all threads share; written before the barriers, read-only after. */
struct run {
	struct bench_opts *o;
	struct bench_workload *w;
	const char *conninfo;
	struct thread *threads;
	int nthreads;
	int scale;
	int flush_stats;        /* server has pg_stat_force_next_flush() */
	char appname[64];       /* application_name of our clients */
	pthread_barrier_t b_connect, b_ready, b_go;
	int64_t start_us;       /* after b_go */
	int64_t warm_end_us;    /* start + warmup */
	int64_t end_us;         /* warm_end + duration, or 0 with --transactions */
	int abort_run;          /* a client failed to connect: nobody runs */
	PGconn *ctrl;           /* main's control connection */
	int64_t xact_before;    /* pg_stat_database.xact_commit at b_ready */
	int xact_ok;            /* xact_before is valid */
	double cpu_start;       /* our CPU seconds at the start */
	pid_t postmaster;       /* the server's postmaster here, 0: unknown */
	struct servercpu_snap cpu0, cpu1; /* at the start and end of the timed run */
	int cpu0_ok, cpu1_ok;   /* those snapshots were taken */
	pthread_t sampler;      /* takes cpu0 when the warm-up ends */
	int sampler_on;         /* sampler was started */
	pthread_barrier_t b_done, b_snap; /* every client done; cpu1 taken */
};

/* "0-1,3" of set into buf. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && len + 16 < n; c++) {
		int e = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		len += (size_t)snprintf(buf + len, n - len, len ? ",%d" : "%d", c);
		if (e > c)
			len += (size_t)snprintf(buf + len, n - len, "-%d", e);
		c = e;
	}
}

/* CPU seconds (user + system) used by this process, all threads. */
static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * Zeroed memory on its own cache lines: what one thread writes on every
 * transaction must not share a line with what another thread touches
 * (false sharing costs more than the whole transaction bookkeeping).
 */
static void *xcalloc_lines(size_t n, size_t size)
{
	size_t bytes = (n * size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	void *p = aligned_alloc(CACHE_LINE, bytes ? bytes : CACHE_LINE);
	if (!p)
		die(PGBUILD_EXIT_ERROR, "out of memory");
	memset(p, 0, bytes ? bytes : CACHE_LINE);
	return p;
}

/* ---------------- the client state machine ---------------- */

static void client_abort(struct thread *t, struct client *c, const char *why)
{
	if (c->state == CS_ABORTED)
		return;
	if (!cluster_interrupted)
		warning("client %d aborted: %s", c->id, why);
	c->state = CS_ABORTED;
	t->aborted++;
}

static void count_error(struct run *run, struct thread *t, const char *sqlstate)
{
	int64_t now = clock_us();
	int i;
	t->errors++;
	atomic_store_explicit(&t->p_errors, ++t->all_errors, memory_order_relaxed);
	for (i = 0; i < t->nerrs; i++)
		if (!strcmp(t->errs[i].sqlstate, sqlstate))
			break;
	if (i == t->nerrs) {
		if (t->nerrs == ERR_KINDS)
			i = ERR_KINDS - 1;      /* lump the rest together */
		else
			snprintf(t->errs[t->nerrs++].sqlstate, 6, "%s", sqlstate);
	}
	t->errs[i].n++;
	if (now >= run->warm_end_us) {
		size_t sec = (size_t)((now - run->warm_end_us) / 1000000);
		if (sec >= t->ntimeline) {
			ALLOC_GROW(t->timeline, sec + 1, t->timeline_alloc);
			memset(t->timeline + t->ntimeline, 0,
			       (sec + 1 - t->ntimeline) * sizeof(*t->timeline));
			t->ntimeline = sec + 1;
		}
		t->timeline[sec].errors++;
	}
}

static void tx_done(struct run *run, struct thread *t, struct client *c, int64_t now)
{
	int64_t lat = now - c->tx_start;
	t->last_end = now;
	/* single writer: relaxed stores of thread-local sums, no locked ops */
	t->all_count++;
	t->all_sum += lat;
	t->all_sum2 += (uint64_t)lat * (uint64_t)lat;
	atomic_store_explicit(&t->p_count, t->all_count, memory_order_relaxed);
	atomic_store_explicit(&t->p_sum, t->all_sum, memory_order_relaxed);
	atomic_store_explicit(&t->p_sum2, t->all_sum2, memory_order_relaxed);
	if (now < run->warm_end_us) {
		t->warm_count++;
		return;
	}
	{
		size_t sec = (size_t)((now - run->warm_end_us) / 1000000);
		/* transactions in flight at the end belong to the last second */
		if (run->end_us && now >= run->end_us && run->end_us > run->warm_end_us)
			sec = (size_t)((run->end_us - run->warm_end_us - 1) / 1000000);
		if (sec >= t->ntimeline) {
			ALLOC_GROW(t->timeline, sec + 1, t->timeline_alloc);
			memset(t->timeline + t->ntimeline, 0,
			       (sec + 1 - t->ntimeline) * sizeof(*t->timeline));
			t->ntimeline = sec + 1;
		}
		t->timeline[sec].count++;
		t->timeline[sec].sum_us += lat;
	}
	hist_record(&t->hist, lat);
	t->count++;
	c->txs++;
}

static int choose_script(struct run *run, struct client *c)
{
	int x;
	if (run->w->nscripts == 1)
		return 0;
	x = (int)bench_random(&c->rng, 1, run->w->total_weight);
	for (int i = 0; i < run->w->nscripts; i++) {
		x -= run->w->scripts[i].weight;
		if (x <= 0)
			return i;
	}
	return run->w->nscripts - 1;
}

static void store_gset(struct run *run, struct client *c, PGresult *res)
{
	if (PQntuples(res) < 1)
		return;
	for (int f = 0; f < PQnfields(res); f++) {
		int v = bench_var_index(&run->w->vars, PQfname(res, f), 0);
		if (v < 0)
			continue;
		c->vars[v].isnull = PQgetisnull(res, 0, f);
		c->vars[v].i = c->vars[v].isnull ? 0 : strtoll(PQgetvalue(res, 0, f), NULL, 10);
	}
}

/* Decimal text of v at the end of buf[24]; returns its start (no printf). */
static const char *format_int(char *buf, int64_t v)
{
	char *p = buf + 23;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	*p = '\0';
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return p;
}

static int send_command(struct run *run, struct thread *t, struct client *c,
			const struct bench_command *cmd)
{
	const char *vals[BENCH_MAX_PARAMS];
	char buf[BENCH_MAX_PARAMS][24];
	int ok;

	if (run->o->protocol == PROTO_SIMPLE) {
		bench_command_text(cmd, c->vars, &t->text);
		return PQsendQuery(c->conn, t->text.buf);
	}
	for (int i = 0; i < cmd->nparams; i++) {
		const struct bench_value *v = &c->vars[cmd->param_var[i]];
		if (v->isnull) {
			vals[i] = NULL;
		} else {
			vals[i] = format_int(buf[i], v->i);
		}
	}
	if (run->o->protocol == PROTO_PREPARED)
		ok = PQsendQueryPrepared(c->conn, cmd->stmt_name, cmd->nparams, vals, NULL, NULL, 0);
	else
		ok = PQsendQueryParams(c->conn, cmd->sql, cmd->nparams, NULL, vals, NULL, NULL, 0);
	return ok;
}

/* First line of libpq's error message, for the abort message. */
static char *first_line(const char *msg)
{
	size_t n = strcspn(msg, "\n");
	return xstrndup(msg, n);
}

/* A command failed: a serialization failure or deadlock (SQLSTATE class
 * 40) is rolled back and the client goes on; anything else aborts it.
 * Returns 1 when the client goes on now, 0 when it waits or stopped. */
static int client_failed(struct run *run, struct thread *t, struct client *c)
{
	count_error(run, t, c->sqlstate);
	if (strncmp(c->sqlstate, "40", 2) != 0) {
		char why[400];
		snprintf(why, sizeof(why), "%s (SQLSTATE %s) in %s line %d",
			 c->errmsg ? c->errmsg : "error", c->sqlstate,
			 run->w->scripts[c->script].name,
			 run->w->scripts[c->script].cmds[c->cmd].line);
		client_abort(t, c, why);
		return 0;
	}
	if (PQtransactionStatus(c->conn) != PQTRANS_IDLE) {
		c->failed = 0;
		if (!PQsendQuery(c->conn, "ROLLBACK")) {
			client_abort(t, c, "cannot send ROLLBACK");
			return 0;
		}
		c->state = CS_ROLLBACK;
		c->wait_start = clock_us();
		return 0;
	}
	c->state = CS_START;
	return 1;
}

/*
 * CS_WAIT and CS_ROLLBACK: read what arrived of the command's results.
 * Returns 1 when the client can go on (its state advanced), 0 when it
 * must wait for more input or stopped (aborted).
 */
static int client_results(struct run *run, struct thread *t, struct client *c)
{
	PGresult *res;

	if (!PQconsumeInput(c->conn)) {
		char *m = first_line(PQerrorMessage(c->conn));
		client_abort(t, c, m);
		free(m);
		return 0;
	}
	while (!PQisBusy(c->conn)) {
		res = PQgetResult(c->conn);
		if (!res)
			break;
		switch (PQresultStatus(res)) {
		case PGRES_COMMAND_OK:
			c->rollback = !strcmp(PQcmdStatus(res), "ROLLBACK");
			break;
		case PGRES_TUPLES_OK:
			c->rollback = 0;
			if (c->state == CS_WAIT && run->w->scripts[c->script].cmds[c->cmd].gset)
				store_gset(run, c, res);
			break;
		case PGRES_EMPTY_QUERY:
			break;
		default:
			if (!c->failed) {
				const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
				c->failed = 1;
				snprintf(c->sqlstate, sizeof(c->sqlstate), "%s", st ? st : "?????");
				free(c->errmsg);
				c->errmsg = first_line(PQresultErrorMessage(res));
			}
			break;
		}
		PQclear(res);
	}
	if (PQisBusy(c->conn))
		return 0;         /* wait for more input */
	if (PQstatus(c->conn) == CONNECTION_BAD) {
		client_abort(t, c, "connection to the server was lost");
		return 0;
	}
	if (c->state == CS_ROLLBACK) {
		if (c->failed) {
			client_abort(t, c, c->errmsg ? c->errmsg : "ROLLBACK failed");
			return 0;
		}
		c->state = CS_START;
		return 1;
	}
	if (c->failed)
		return client_failed(run, t, c);
	/* a command ending outside a transaction block committed */
	if (PQtransactionStatus(c->conn) == PQTRANS_IDLE && !c->rollback) {
		t->commits++;
		t->script_commits[c->script]++;
	}
	c->cmd++;
	c->state = CS_COMMAND;
	return 1;
}

/* Advance c as far as it can go without waiting. */
static void client_run(struct run *run, struct thread *t, struct client *c)
{
	const struct bench_script *s;
	const struct bench_command *cmd;
	int64_t now;

	for (;;) {
		switch (c->state) {
		case CS_START:
			now = clock_us();
			if (run->end_us && now >= run->end_us) {
				c->state = CS_DONE;
				return;
			}
			if (run->o->transactions && c->txs >= run->o->transactions) {
				c->state = CS_DONE;
				return;
			}
			c->script = choose_script(run, c);
			if (run->w->gen)
				run->w->gen(run->w, c->script, c->vars, &c->rng, run->scale);
			c->tx_start = now;
			c->cmd = 0;
			c->state = CS_COMMAND;
			break;

		case CS_COMMAND:
			s = &run->w->scripts[c->script];
			if (c->cmd >= s->ncmds) {
				tx_done(run, t, c, clock_us());
				c->state = CS_START;
				break;
			}
			cmd = &s->cmds[c->cmd];
			if (cmd->kind == BCMD_SET) {
				const char *msg = NULL;
				int64_t v;
				if (bench_expr_eval(cmd->expr, c->vars, &c->rng, &v, &msg) < 0) {
					char why[200];
					snprintf(why, sizeof(why), "%s line %d: %s", s->name,
						 cmd->line, msg);
					client_abort(t, c, why);
					return;
				}
				c->vars[cmd->set_var].i = v;
				c->vars[cmd->set_var].isnull = 0;
				c->cmd++;
				break;
			}
			c->failed = 0;
			if (!send_command(run, t, c, cmd)) {
				char *m = first_line(PQerrorMessage(c->conn));
				client_abort(t, c, m);
				free(m);
				return;
			}
			c->state = CS_WAIT;
			c->wait_start = clock_us();
			return;

		case CS_WAIT:
		case CS_ROLLBACK:
			if (!client_results(run, t, c))
				return;
			break;

		case CS_DONE:
		case CS_ABORTED:
			return;
		}
	}
}

/* ---------------- threads ---------------- */

/* Server notices: printed, except while we are being interrupted. */
static void notice_processor(void *arg, const char *message)
{
	if (!cluster_interrupted)
		fputs(message, stderr);
}

static int prepare_client(struct run *run, struct client *c)
{
	for (int s = 0; s < run->w->nscripts; s++) {
		const struct bench_script *sc = &run->w->scripts[s];
		for (int i = 0; i < sc->ncmds; i++) {
			PGresult *res;
			if (sc->cmds[i].kind != BCMD_SQL)
				continue;
			res = PQprepare(c->conn, sc->cmds[i].stmt_name, sc->cmds[i].sql,
					sc->cmds[i].nparams, NULL);
			if (PQresultStatus(res) != PGRES_COMMAND_OK) {
				char *m = first_line(PQerrorMessage(c->conn));
				error("client %d: cannot prepare %s line %d: %s", c->id, sc->name,
				      sc->cmds[i].line, m);
				free(m);
				PQclear(res);
				return -1;
			}
			PQclear(res);
		}
	}
	return 0;
}

static void flush_stats(struct run *run, PGconn *conn)
{
	if (run->flush_stats && PQstatus(conn) == CONNECTION_OK)
		/* the scan leaves pending table statistics: without any, the
		 * backend skips the flush, database counters included */
		PQclear(PQexec(conn, "SELECT pg_stat_force_next_flush() "
				     "FROM pg_catalog.pg_database LIMIT 1"));
}

static void between_barriers(struct run *run);
static void cpu_end(struct run *run);

static void progress_report(struct run *run, int64_t now, int64_t *last_t, int64_t *last_c,
			    int64_t *last_s, uint64_t *last_s2, int64_t *last_e, int bar)
{
	int64_t cnt = 0, sum = 0, errs = 0;
	uint64_t sum2 = 0;
	double dt = (now - *last_t) / 1e6, n, avg, sd, tps;
	for (int i = 0; i < run->nthreads; i++) {
		struct thread *t = &run->threads[i];
		cnt += atomic_load_explicit(&t->p_count, memory_order_relaxed);
		sum += atomic_load_explicit(&t->p_sum, memory_order_relaxed);
		sum2 += atomic_load_explicit(&t->p_sum2, memory_order_relaxed);
		errs += atomic_load_explicit(&t->p_errors, memory_order_relaxed);
	}
	n = (double)(cnt - *last_c);
	tps = dt > 0 ? n / dt : 0;
	avg = n > 0 ? (double)(sum - *last_s) / n : 0;
	sd = n > 1 ? sqrt(fmax(0, (double)(sum2 - *last_s2) / n - avg * avg)) : 0;
	if (bar) {
		/* [#########...........]  12/30 s   1234.5 tps  0 failed: the
		 * time done (warm-up included), or with --transactions the
		 * transactions done of clients x N */
		char cells[BAR_WIDTH + 1];
		double frac, el = (now - run->start_us) / 1e6;
		int64_t total_tx = run->o->transactions * run->o->clients;
		if (run->o->transactions)
			frac = total_tx > 0 ? (double)cnt / (double)total_tx : 0;
		else
			frac = el / (run->o->warmup + run->o->duration);
		frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
		for (int i = 0; i < BAR_WIDTH; i++)
			cells[i] = i < (int)(frac * BAR_WIDTH + 0.5) ? '#' : '.';
		cells[BAR_WIDTH] = '\0';
		bj.bar = 1;
		if (run->o->transactions)
			fprintf(stderr, "\r[%s] %lld/%lld tx %10.1f tps  %lld failed ", cells,
				(long long)cnt, (long long)total_tx, tps, (long long)errs);
		else
			fprintf(stderr, "\r[%s] %5.1f/%.0f s %10.1f tps  %lld failed ", cells, el,
				run->o->warmup + run->o->duration, tps, (long long)errs);
	} else {
		fprintf(stderr, "progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %lld failed\n",
			(now - run->start_us) / 1e6, tps, avg / 1000, sd / 1000,
			(long long)(errs - *last_e));
	}
	*last_t = now;
	*last_c = cnt;
	*last_s = sum;
	*last_s2 = sum2;
	*last_e = errs;
}

/* The run all threads share (one benchmark per process). */
static struct run *the_run;

static void *thread_body(void *arg)
{
	struct thread *t = arg;
	struct run *run = the_run;
	struct pollfd *pfd = xcalloc((size_t)t->nclients, sizeof(*pfd));
	struct client **waiting = xcalloc((size_t)t->nclients, sizeof(*waiting));
	int progress = t->id == 0 && run->o->progress > 0;
	/* a bar only for a person watching: stderr is a terminal */
	int bar = t->id == 0 && !run->o->progress && !run->o->quiet && isatty(2);
	int64_t next_report = 0, last_t = 0, last_c = 0, last_s = 0, last_e = 0;
	uint64_t last_s2 = 0;

	pthread_barrier_wait(&run->b_connect);
	for (int i = 0; i < t->nclients; i++) {
		struct client *c = &t->clients[i];
		{
			const char *keys[] = { "dbname", "application_name", NULL };
			const char *vals[] = { run->conninfo, run->appname, NULL };
			c->conn = PQconnectdbParams(keys, vals, 1);
		}
		if (PQstatus(c->conn) != CONNECTION_OK) {
			char *m = first_line(PQerrorMessage(c->conn));
			error("client %d: cannot connect: %s", c->id, m);
			free(m);
			t->connect_failed = 1;
			break;
		}
		PQsetNoticeProcessor(c->conn, notice_processor, NULL);
		if (run->o->protocol == PROTO_PREPARED && prepare_client(run, c) < 0) {
			t->connect_failed = 1;
			break;
		}
		flush_stats(run, c->conn);
	}
	pthread_barrier_wait(&run->b_ready);
	if (t->id == 0)
		between_barriers(run);
	pthread_barrier_wait(&run->b_go);
	if (run->abort_run)
		goto out;

	if (progress || bar) {
		last_t = run->start_us;
		next_report = run->start_us + (progress ? run->o->progress * 1000000LL : BAR_EVERY_US);
	}
	for (;;) {
		int nwait = 0, active = 0, timeout = 1000, r;
		for (int i = 0; i < t->nclients; i++) {
			struct client *c = &t->clients[i];
			if (c->state == CS_START || c->state == CS_COMMAND)
				client_run(run, t, c);
			if (c->state == CS_WAIT || c->state == CS_ROLLBACK) {
				pfd[nwait].fd = PQsocket(c->conn);
				pfd[nwait].events = POLLIN;
				pfd[nwait].revents = 0;
				waiting[nwait++] = c;
			}
			if (c->state != CS_DONE && c->state != CS_ABORTED)
				active++;
		}
		if (!active)
			break;
		if (next_report) {
			int64_t now = clock_us();
			if (now >= next_report) {
				progress_report(run, now, &last_t, &last_c, &last_s, &last_s2,
						&last_e, bar);
				next_report += progress ? run->o->progress * 1000000LL : BAR_EVERY_US;
			}
			timeout = (int)((next_report - now + 999) / 1000);
			if (timeout < 0)
				timeout = 0;
		}
		if (run->end_us) {
			/* wake up to stop clients that are between transactions */
			int64_t left = (run->end_us - clock_us() + 999) / 1000;
			if (left >= 0 && left < timeout)
				timeout = (int)left;
		}
		if (!nwait) {
			continue;
		}
		if (run->o->stmt_timeout > 0) {
			/* a stopped or hung server must not hang the run */
			int64_t limit = (int64_t)(run->o->stmt_timeout * 1e6), now = clock_us();
			for (int i = 0; i < nwait; i++) {
				int64_t left = (waiting[i]->wait_start + limit - now + 999) / 1000;
				if (left <= 0) {
					char why[100];
					snprintf(why, sizeof(why), "no answer from the server within "
						 "%g s (--statement-timeout)", run->o->stmt_timeout);
					client_abort(t, waiting[i], why);
					t->stalled = 1;
					pfd[i].fd = -1; /* poll ignores it */
				} else if (left < timeout) {
					timeout = (int)left;
				}
			}
		}
		r = poll(pfd, (nfds_t)nwait, timeout);
		if (r < 0 && errno != EINTR) {
			error("poll failed: %s", strerror(errno));
			for (int i = 0; i < nwait; i++)
				client_abort(t, waiting[i], "poll failed");
			break;
		}
		for (int i = 0; r > 0 && i < nwait; i++)
			if (pfd[i].revents && waiting[i]->state != CS_ABORTED)
				client_run(run, t, waiting[i]);
	}
	t->stop_us = clock_us();
	if (bar) {
		fprintf(stderr, "\r%*s\r", BAR_WIDTH + 50, "");
		bj.bar = 0;
	}
	/* the server's CPU time before any connection closes */
	pthread_barrier_wait(&run->b_done);
	if (t->id == 0)
		cpu_end(run);
	pthread_barrier_wait(&run->b_snap);
out:
	for (int i = 0; i < t->nclients; i++) {
		struct client *c = &t->clients[i];
		if (!c->conn)
			continue;
		if (c->state != CS_ABORTED && PQstatus(c->conn) == CONNECTION_OK &&
		    !t->connect_failed)
			t->connected++;
		PQfinish(c->conn);
		c->conn = NULL;
	}
	free(pfd);
	free(waiting);
	return NULL;
}

/* The server's CPU time when the warm-up ends (a thread of its own, so
 * no client waits for it). */
static void *cpu_sampler(void *arg)
{
	struct run *run = arg;
	int64_t left;
	while ((left = run->warm_end_us - clock_us()) > 0)
		usleep(left > 100000 ? 100000 : (useconds_t)left);
	run->cpu0_ok = servercpu_snapshot("/proc", run->postmaster, &run->cpu0) == 0;
	return NULL;
}

/* Thread 0, when every client is done and none has closed its connection. */
static void cpu_end(struct run *run)
{
	if (!run->postmaster)
		return;
	if (run->sampler_on)
		pthread_join(run->sampler, NULL);
	run->sampler_on = 0;
	run->cpu1_ok = servercpu_snapshot("/proc", run->postmaster, &run->cpu1) == 0;
}

/* Main, between "all connected" and "go": take the before counters. */
static void between_barriers(struct run *run)
{
	for (int i = 0; i < run->nthreads; i++)
		if (run->threads[i].connect_failed)
			run->abort_run = 1;
	if (!run->abort_run && run->flush_stats) {
		flush_stats(run, run->ctrl);
		run->xact_ok = bench_query_int(run->ctrl,
			"SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
			&run->xact_before) == 0;
	}
	run->cpu_start = cpu_seconds();
	run->start_us = clock_us();
	run->warm_end_us = run->start_us + (int64_t)(run->o->warmup * 1e6);
	run->end_us = run->o->transactions ? 0 :
		run->warm_end_us + (int64_t)(run->o->duration * 1e6);
	if (run->postmaster && !run->abort_run) {
		if (run->o->warmup <= 0) {
			run->cpu0_ok = servercpu_snapshot("/proc", run->postmaster, &run->cpu0) == 0;
		} else {
			cluster_block_signals(SIG_BLOCK);
			run->sampler_on = pthread_create(&run->sampler, NULL, cpu_sampler, run) == 0;
			cluster_block_signals(SIG_UNBLOCK);
		}
	}
}

/* ---------------- --json on every exit path ---------------- */


/* error() that also records the first error for the JSON "error" key. */
static int bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bench_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!bj.error[0])
		snprintf(bj.error, sizeof(bj.error), "%s", buf);
	return error("%s", buf);
}

/* Record why we fail when nothing was recorded yet (no message printed). */
static void bench_note_error(const char *msg)
{
	if (!bj.error[0] && msg && *msg)
		snprintf(bj.error, sizeof(bj.error), "%s", msg);
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

static const char *format_int(char *buf, int64_t v);

/*
 * The cleanup handler's hook (a signal handler: async-signal-safe calls
 * only): write the interrupt document, then say in one line what happened.
 */
static void bench_interrupted(int sig, const char *what)
{
	char num[24];
	const char *name = signal_name(sig);
	if (bj.path && bj.doc && !bj.done) {
		int fd = open(bj.sigtmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			int bad = write_all(fd, bj.doc, bj.len) < 0 ||
				  write_all(fd, ",\"exit_code\":", 13) < 0;
			const char *n = format_int(num, 128 + sig);
			bad = bad || write_all(fd, n, strlen(n)) < 0 ||
			      write_all(fd, ",\"error\":\"interrupted by ", 25) < 0 ||
			      write_all(fd, name, strlen(name)) < 0 ||
			      write_all(fd, "\"}\n", 3) < 0;
			if (close(fd) < 0)
				bad = 1;
			if (bad || rename(bj.sigtmp, bj.path) < 0)
				unlink(bj.sigtmp);
		}
	}
	{
		const char *p = error_program();
		ssize_t r;
		if (bj.bar)     /* wipe the bar: the message gets a line of its own */
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

/* Write buf to --json FILE atomically.  0 or -1 with the error printed. */
static int json_publish(const char *buf, size_t len)
{
	int e;
	if (write_file_atomic_quiet(bj.path, buf, len) == 0)
		return 0;
	e = errno;
	/* an old result must not pass for this run's */
	if (unlink(bj.path) == 0)
		return error("cannot write %s: %s (the old %s was removed)", bj.path,
			     strerror(e), bj.path);
	return error("cannot write %s: %s", bj.path, strerror(e));
}

/* What is known of the environment so far; NULL fields are not known yet. */
struct bench_env {
	const char *server_version;     /* SHOW server_version */
	int64_t version_num;            /* SHOW server_version_num, or 0 */
	const char *cflags;             /* pg_config --cflags */
	const char *dataset;            /* what was loaded or found */
	const char *server_user;        /* who runs the private cluster's server */
	const char *cpu_why;            /* why the server's CPU is not measured */
	const char *pinning;            /* where client and server run (--cpus) */
};

static char *cpu_model(void);

/* The environment object, as far as it is known (conn may be NULL). */
static void json_environment(struct json_writer *jw, const struct bench_opts *o, int nthreads,
			     const struct bench_env *env, PGconn *conn);

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
	json_key(&jw, "protocol"); json_string(&jw, protocol_names[o->protocol]);
	json_key(&jw, "clients"); json_int(&jw, o->clients);
	json_key(&jw, "threads"); json_int(&jw, nthreads);
	json_key(&jw, "tps"); json_null(&jw);
	json_key(&jw, "transactions"); json_null(&jw);
	json_key(&jw, "environment");
	json_environment(&jw, o, nthreads, env, NULL);
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
static void json_arm(const struct bench_opts *o, int nthreads, const struct bench_env *env)
{
	struct strbuf sb = STRBUF_INIT;
	char *old;
	if (!bj.path)
		return;
	render_failure(&sb, o, nthreads, env, -1, NULL);
	cluster_block_signals(SIG_BLOCK);
	old = bj.doc;
	bj.len = sb.len;
	bj.doc = strbuf_detach(&sb, NULL);
	cluster_block_signals(SIG_UNBLOCK);
	free(old);
}

/* The failure document for a run that stopped with exit_code. */
static void json_fail(const struct bench_opts *o, int nthreads, const struct bench_env *env,
		      int exit_code)
{
	struct strbuf sb = STRBUF_INIT;
	if (!bj.path || bj.done)
		return;
	render_failure(&sb, o, nthreads, env, exit_code, bj.error);
	json_publish(sb.buf, sb.len);
	bj.done = 1;
	strbuf_release(&sb);
}

/* ---------------- environment ---------------- */

static char *cpu_model(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;
	if (strbuf_read_file(&sb, "/proc/cpuinfo") > 0) {
		char *p = strstr(sb.buf, "model name");
		if (p && (p = strchr(p, ':'))) {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			r = xstrndup(p, strcspn(p, "\n"));
		}
	}
	strbuf_release(&sb);
	return r ? r : xstrdup("unknown");
}

static char *query_text(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	char *r = NULL;
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
	    !PQgetisnull(res, 0, 0))
		r = xstrdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return r;
}

/* pg_config --cflags of the install; else the server's pg_config view. */
static char *server_cflags(const char *prefix, PGconn *conn)
{
	if (prefix) {
		struct child_process cp = CHILD_PROCESS_INIT;
		struct strbuf out = STRBUF_INIT;
		char *path = xasprintf("%s/bin/pg_config", prefix);
		if (access(path, X_OK) == 0) {
			strvec_pushl(&cp.args, path, "--cflags", NULL);
			cp.no_stdin = 1;
			cp.no_stderr = 1;
			if (capture_command(&cp, &out, 0) == 0) {
				child_process_clear(&cp);
				free(path);
				strbuf_trim(&out);
				return strbuf_detach(&out, NULL);
			}
		}
		child_process_clear(&cp);
		strbuf_release(&out);
		free(path);
	}
	return query_text(conn, "SELECT setting FROM pg_config WHERE name = 'CFLAGS'");
}

/* ---------------- results ---------------- */

struct results {
	struct histogram hist;
	int64_t count, warm_count, commits, errors;
	int64_t *script_commits;
	struct err_count errs[ERR_KINDS];
	int nerrs;
	int aborted, connected;
	double elapsed;         /* seconds of the timed run, as measured */
	struct timeline_sec *timeline;
	size_t ntimeline;
	double cpu_s;           /* client CPU seconds, warm-up and run */
	int server_cpu_ok;      /* server_cpu_s was measured */
	double server_cpu_s;    /* the server's CPU seconds over the timed run */
	int server_procs;       /* its processes at the end */
};

/*
 * The timed run is measured, never taken from -T: it lasts from the end
 * of the warm-up to the last completed transaction, or to the nominal end
 * when the clients were still running then.  A run whose clients stopped
 * early (the server died at 4.5 s of 30) lasted until they stopped, so
 * its elapsed time and tps are those of 4.5 s, not of 30.
 */
static void merge_results(struct run *run, struct results *R)
{
	int64_t last = 0, stop = 0;
	memset(R, 0, sizeof(*R));
	hist_init(&R->hist);
	R->script_commits = xcalloc((size_t)run->w->nscripts, sizeof(int64_t));
	for (int i = 0; i < run->nthreads; i++) {
		struct thread *t = &run->threads[i];
		hist_merge(&R->hist, &t->hist);
		R->count += t->count;
		R->warm_count += t->warm_count;
		R->commits += t->commits;
		R->errors += t->errors;
		R->aborted += t->aborted;
		R->connected += t->connected;
		for (int s = 0; s < run->w->nscripts; s++)
			R->script_commits[s] += t->script_commits[s];
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
	R->cpu_s = cpu_seconds() - run->cpu_start;
	R->server_cpu_ok = run->cpu0_ok && run->cpu1_ok && R->count > 0 &&
			   run->cpu1.ticks >= run->cpu0.ticks;
	if (R->server_cpu_ok) {
		R->server_cpu_s = servercpu_seconds(&run->cpu0, &run->cpu1);
		R->server_procs = run->cpu1.processes;
	}
}

static void json_environment(struct json_writer *jw, const struct bench_opts *o, int nthreads,
			     const struct bench_env *env, PGconn *conn)
{
	char *cpu = cpu_model();
	json_object_begin(jw);
	json_key(jw, "server_version"); json_string(jw, env->server_version);
	json_key(jw, "server_version_num");
	if (env->version_num) json_int(jw, env->version_num); else json_null(jw);
	json_key(jw, "pg_config_cflags"); json_string(jw, env->cflags);
	json_key(jw, "cpu_model"); json_string(jw, cpu);
	json_key(jw, "cores"); json_int(jw, sysconf(_SC_NPROCESSORS_ONLN));
	json_key(jw, "clients"); json_int(jw, o->clients);
	json_key(jw, "threads"); json_int(jw, nthreads);
	json_key(jw, "prefix"); json_string(jw, o->prefix);
	json_key(jw, "private_cluster"); json_bool(jw, o->prefix != NULL);
	json_key(jw, "dataset"); json_string(jw, env->dataset);
	json_key(jw, "server_user"); json_string(jw, env->server_user);
	json_key(jw, "cpus"); json_string(jw, o->cpus);
	json_key(jw, "pinning"); json_string(jw, env->pinning);
	json_key(jw, "settings_requested");
	json_strvec(jw, &o->settings);
	json_key(jw, "settings");
	json_object_begin(jw);
	if (conn && PQstatus(conn) == CONNECTION_OK) {
		static const char *const std[] = { "shared_buffers", "max_connections", "fsync",
			"synchronous_commit", "full_page_writes", "wal_level", "max_wal_size",
			"autovacuum", "jit", NULL };
		struct strvec names = STRVEC_INIT;
		for (int i = 0; std[i]; i++)
			strvec_push(&names, std[i]);
		for (size_t i = 0; i < o->settings.nr; i++) {
			char *n = xstrndup(o->settings.v[i], strcspn(o->settings.v[i], "="));
			if (strvec_find(&names, n) < 0)
				strvec_push(&names, n);
			free(n);
		}
		for (size_t i = 0; i < names.nr; i++) {
			char *sql, *v;
			char *q = PQescapeLiteral(conn, names.v[i], strlen(names.v[i]));
			sql = xasprintf("SELECT current_setting(%s, true)", q ? q : "''");
			PQfreemem(q);
			v = query_text(conn, sql);
			json_key(jw, names.v[i]);
			json_string(jw, v);
			free(v);
			free(sql);
		}
		strvec_clear(&names);
	}
	json_object_end(jw);
	json_object_end(jw);
	free(cpu);
}

static void json_ms(struct json_writer *jw, const char *key, double us)
{
	json_key(jw, key);
	json_double(jw, round(us) / 1000.0);
}

static void write_json(struct strbuf *out, struct run *run, struct results *R,
		       const struct bench_checks *cs, int valid, int exit_code,
		       const struct bench_env *env, PGconn *conn)
{
	struct json_writer jw = JSON_WRITER_INIT(out);
	struct bench_opts *o = run->o;
	double tps = R->elapsed > 0 ? R->count / R->elapsed : 0;

	json_object_begin(&jw);
	json_key(&jw, "tool"); json_string(&jw, "pgbuild bench");
	json_key(&jw, "version"); json_string(&jw, PGOPT_VERSION);
	json_key(&jw, "workload"); json_string(&jw, run->w->name);
	if (o->file) {
		json_key(&jw, "script"); json_string(&jw, o->file);
	}
	json_key(&jw, "protocol"); json_string(&jw, protocol_names[o->protocol]);
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
	json_environment(&jw, o, run->nthreads, env, conn);
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
	json_key(&jw, "error"); json_string(&jw, bj.error[0] ? bj.error : NULL);
	json_object_end(&jw);
	strbuf_addch(out, '\n');
}

static void print_summary(struct run *run, struct results *R, const struct bench_checks *cs,
			  int valid, const char *server_version, const char *cpu_why,
			  const char *pinning)
{
	struct bench_opts *o = run->o;
	double tps = R->elapsed > 0 ? R->count / R->elapsed : 0;
	printf("workload: %s (%s protocol), scale %d, %d client%s, %d thread%s\n",
	       run->w->name, protocol_names[o->protocol], run->scale, o->clients,
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
	for (int i = 0; i < cs->nr; i++)
		printf("check %-22s %-4s %s\n", cs->c[i].name,
		       cs->c[i].ok < 0 ? "n/a" : cs->c[i].ok ? "ok" : "FAIL", cs->c[i].detail);
	printf("result: %s\n", valid ? "valid" : "INVALID");
}

/* ---------------- data set preparation ---------------- */

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-')
			*s = '_';
}

/* Create, start and load the private cluster; returns 0 or -1. */
static int setup_cluster(struct bench_opts *o, struct bench_workload *w, int scale,
			 struct cluster *cl, struct strbuf *note)
{
	struct cluster_options co = CLUSTER_OPTIONS_INIT;
	char *tmpl = NULL;
	int lockfd = -1, need_load = 1, r = -1;
	PGconn *conn = NULL;

	co.prefix = o->prefix;
	co.keep = o->keep;
	strvec_pushv(&co.settings, (const char *const *)o->settings.v);
	{
		int have_maxconn = 0;
		for (size_t i = 0; i < o->settings.nr; i++)
			if (!strncmp(o->settings.v[i], "max_connections=", 16))
				have_maxconn = 1;
		if (!have_maxconn && o->clients > 90)
			strvec_pushf(&co.settings, "max_connections=%d", o->clients + 10);
	}
	if (o->template_dir) {
		char *version = cluster_server_version(o->prefix);
		char *key;
		struct stat st;
		if (!version) {
			bench_note_error(cluster_last_error());
			goto out;
		}
		key = xasprintf("%s-s%d-%s", bench_dataset_name(w->data), scale,
				strchr(version, ')') ? strchr(version, ')') + 1 : version);
		free(version);
		sanitize(key);
		tmpl = xasprintf("%s/%s", o->template_dir, key);
		free(key);
		lockfd = cluster_template_lock(o->template_dir);
		if (lockfd < 0) {
			bench_note_error(cluster_last_error());
			goto out;
		}
		if (stat(tmpl, &st) == 0) {
			co.template_dir = tmpl;
			need_load = 0;
			strbuf_addf(note, "%s scale %d from template %s", bench_dataset_name(w->data),
				    scale, tmpl);
		}
	}
	if (w->data == DATA_NONE && need_load)
		strbuf_addstr(note, "none");
	else if (need_load)
		strbuf_addf(note, "%s scale %d loaded", bench_dataset_name(w->data), scale);
	if (cluster_create(cl, &co) < 0 || cluster_start(cl) < 0) {
		bench_note_error(cluster_last_error());
		goto out;
	}
	if (need_load && (w->data != DATA_NONE || tmpl)) {
		conn = PQconnectdb(cluster_conninfo(cl, "postgres"));
		if (PQstatus(conn) != CONNECTION_OK) {
			char *m = first_line(PQerrorMessage(conn));
			bench_error("cannot connect to the private cluster: %s", m);
			free(m);
			goto out;
		}
		PQclear(PQexec(conn, "SET client_min_messages = warning"));
		if (bench_load(conn, w->data, scale, o->quiet) < 0) {
			bench_note_error("loading the data set failed");
			goto out;
		}
		PQfinish(conn);
		conn = NULL;
		if (tmpl) {
			if (cluster_save_template(cl, tmpl, 1) < 0) {
				bench_note_error(cluster_last_error());
				goto out;
			}
			strbuf_addf(note, " (saved as template %s)", tmpl);
		}
	}
	r = 0;
out:
	if (conn)
		PQfinish(conn);
	if (lockfd >= 0)
		close(lockfd);
	free(tmpl);
	strvec_clear(&co.settings);
	return r;
}

/* ---------------- the run, in phases ---------------- */

/* Everything one benchmark run works with. */
struct session {
	struct bench_opts *o;
	struct bench_workload w;        /* the workload's scripts */
	struct cluster cl;              /* the private cluster (have_cluster) */
	int have_cluster;
	struct run run;                 /* what the threads share */
	struct results R;               /* merged after the run */
	struct bench_checks cs;         /* correctness checks */
	struct bench_snapshot before, after;
	struct strbuf note;             /* the data set, for the JSON */
	PGconn *ctrl;                   /* main's control connection */
	char *conninfo;                 /* what the clients connect to */
	char *server_version, *cflags;  /* for the summary and the JSON */
	char *our_user;                 /* who runs the server when not root */
	struct bench_env env;           /* what the JSON knows so far */
	int stalled;                    /* a client got no answer in time */
	char pinning[200];              /* what --cpus did, for env.pinning */
	int exit_code;
};

/* From here on every exit writes --json (valid: false unless a run
 * completed), and a signal says in one line what it stopped. */
static void arm_outputs(struct session *s)
{
	struct bench_opts *o = s->o;

	if (o->json) {
		bj.path = o->json;
		bj.sigtmp = xasprintf("%s.sig.%d", o->json, (int)getpid());
	}
	cluster_on_interrupt(bench_interrupted);
	cluster_install_handlers();
	if (o->prefix) {
		if (server_user_name()) {
			s->env.server_user = server_user_name();
			if (!o->quiet)
				fprintf(stderr, "%s: running the server as user %s (pgbuild runs as root)\n",
					error_program(), s->env.server_user);
		} else {
			struct server_user me = SERVER_USER_INIT;
			server_user_get(&me, NULL, NULL, NULL);
			s->our_user = xstrdup(me.name);
			s->env.server_user = s->our_user;
			server_user_release(&me);
		}
	}
	json_arm(o, o->threads, &s->env);
}

/* --connect: load the data (--init), or find what is loaded. */
static int existing_data(struct session *s)
{
	struct bench_opts *o = s->o;
	struct bench_workload *w = &s->w;
	int sc;

	if (o->init) {
		s->run.scale = o->scale ? o->scale : 1;
		if (bench_load(s->ctrl, w->data, s->run.scale, o->quiet) < 0) {
			bench_note_error("loading the data set failed");
			return -1;
		}
		strbuf_addf(&s->note, "%s scale %d loaded", bench_dataset_name(w->data), s->run.scale);
		return 0;
	}
	if (w->data == DATA_NONE) {
		s->run.scale = o->scale ? o->scale : 1;
		strbuf_addstr(&s->note, "none");
		return 0;
	}
	sc = bench_detect_scale(s->ctrl, w->data);
	if (sc < 0)
		return bench_error("the %s tables are not there (or empty): load them with --init",
				   bench_dataset_name(w->data));
	if (o->scale && o->scale != sc && w->data != DATA_TEST01)
		warning("--scale %d given, but the data has scale %d: using %d", o->scale, sc, sc);
	s->run.scale = w->data == DATA_TEST01 && o->scale ? o->scale : sc;
	strbuf_addf(&s->note, "%s scale %d (existing)", bench_dataset_name(w->data), s->run.scale);
	return 0;
}

/* The server: a private cluster made and loaded, or --connect's; the
 * control connection and what it says about the server. */
static int open_server(struct session *s)
{
	struct bench_opts *o = s->o;

	if (o->prefix) {
		s->run.scale = o->scale ? o->scale : 1;
		if (setup_cluster(o, &s->w, s->run.scale, &s->cl, &s->note) < 0) {
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
	json_arm(o, o->threads, &s->env);
	s->ctrl = PQconnectdb(s->conninfo);
	if (PQstatus(s->ctrl) != CONNECTION_OK) {
		char *m = first_line(PQerrorMessage(s->ctrl));
		bench_error("cannot connect to \"%s\": %s", o->connect ? o->connect : s->conninfo, m);
		free(m);
		return -1;
	}
	PQclear(PQexec(s->ctrl, "SET client_min_messages = warning"));
	if (o->connect) {
		if (existing_data(s) < 0)
			return -1;
		s->env.dataset = s->note.buf;
	}
	s->server_version = query_text(s->ctrl, "SHOW server_version");
	{
		char *n = query_text(s->ctrl, "SHOW server_version_num");
		s->env.version_num = n ? atoll(n) : 0;
		free(n);
	}
	s->cflags = server_cflags(o->prefix, s->ctrl);
	s->env.server_version = s->server_version;
	s->env.cflags = s->cflags;
	json_arm(o, o->threads, &s->env);
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
		cpu_list(&client, c, sizeof(c));
		cpu_list(&server, v, sizeof(v));
		snprintf(s->pinning, sizeof(s->pinning), "client threads on CPU %s, server on CPU %s",
			 c, v);
	}
	if (sched_setaffinity(0, sizeof(client), &client) < 0)
		snprintf(s->pinning, sizeof(s->pinning), "the client threads cannot be pinned: %s",
			 strerror(errno));
	s->env.pinning = s->pinning;
}

/* Threads and their clients, spread evenly, each client seeded. */
static void setup_threads(struct session *s)
{
	struct bench_opts *o = s->o;
	struct run *run = &s->run;
	struct bench_workload *w = &s->w;

	run->o = o;
	run->w = w;
	run->conninfo = s->conninfo;
	run->ctrl = s->ctrl;
	run->nthreads = o->threads;
	run->threads = xcalloc_lines((size_t)o->threads, sizeof(*run->threads));
	the_run = run;
	for (int i = 0, next = 0; i < o->threads; i++) {
		struct thread *t = &run->threads[i];
		/* spread evenly: the first (clients % threads) get one more */
		t->id = i;
		t->nclients = o->clients / o->threads + (i < o->clients % o->threads);
		t->clients = xcalloc_lines((size_t)t->nclients, sizeof(*t->clients));
		t->script_commits = xcalloc_lines((size_t)w->nscripts, sizeof(int64_t));
		hist_init(&t->hist);
		strbuf_init(&t->text, 256);
		for (int k = 0; k < t->nclients; k++) {
			struct client *c = &t->clients[k];
			c->id = next++;
			c->vars = xcalloc_lines((size_t)w->vars.nr + 1, sizeof(*c->vars));
			for (int x = 0; x < w->vars.nr; x++)
				c->vars[x].isnull = 1;
			c->vars[w->var_scale].i = run->scale;
			c->vars[w->var_scale].isnull = 0;
			c->vars[w->var_client_id].i = c->id;
			c->vars[w->var_client_id].isnull = 0;
			bench_prng_seed(&c->rng, o->seed + (uint64_t)c->id * 0x9e3779b97f4a7c15ULL);
		}
	}
}

/* The timed run: thread 0 in main, the others in threads of their own. */
static int run_clients(struct session *s)
{
	struct run *run = &s->run;
	int n = s->o->threads;

	setup_threads(s);
	pthread_barrier_init(&run->b_connect, NULL, (unsigned)n);
	pthread_barrier_init(&run->b_ready, NULL, (unsigned)n);
	pthread_barrier_init(&run->b_go, NULL, (unsigned)n);
	pthread_barrier_init(&run->b_done, NULL, (unsigned)n);
	pthread_barrier_init(&run->b_snap, NULL, (unsigned)n);
	/* worker threads never take the cluster's cleanup signals */
	cluster_block_signals(SIG_BLOCK);
	for (int i = 1; i < n; i++) {
		int e = pthread_create(&run->threads[i].tid, NULL, thread_body, &run->threads[i]);
		if (e)
			die(PGBUILD_EXIT_ERROR, "cannot create thread: %s", strerror(e));
	}
	cluster_block_signals(SIG_UNBLOCK);
	thread_body(&run->threads[0]);
	for (int i = 1; i < n; i++)
		pthread_join(run->threads[i].tid, NULL);
	if (run->abort_run)
		return bench_error("not every client could connect; nothing was run");
	merge_results(run, &s->R);
	if (run->postmaster && run->cpu0_ok && !run->cpu1_ok && !s->env.cpu_why)
		s->env.cpu_why = "the server's postmaster was gone when the run ended";
	for (int i = 0; i < run->nthreads; i++)
		s->stalled |= run->threads[i].stalled;
	if (s->stalled) {
		/* the server does not answer: no further query would return */
		bench_check_add(&s->cs, "server_answers", 0, "no answer within %g s "
				"(--statement-timeout): the server is stopped or hung",
				s->o->stmt_timeout);
		PQfinish(s->ctrl);
		s->ctrl = NULL;
		run->xact_ok = 0;
	}
	return 0;
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
	flush_stats(run, s->ctrl);
	if (bench_query_int(s->ctrl, "SELECT xact_commit FROM pg_stat_database "
			    "WHERE datname = current_database()", &xa) == 0) {
		/* ours: the "before" read, the waits, the flush just now */
		int64_t server = xa - run->xact_before - 2 - nq;
		/* exact where nobody else can commit: our private cluster
		 * without autovacuum (its workers commit in our database too);
		 * elsewhere the server may count more than we did */
		char *av = query_text(s->ctrl, "SHOW autovacuum");
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
	print_summary(&s->run, R, &s->cs, valid, s->server_version, s->env.cpu_why, s->env.pinning);
	if (s->o->json) {
		write_json(&json, &s->run, R, &s->cs, valid, s->exit_code, &s->env, s->ctrl);
		if (json_publish(json.buf, json.len) < 0)
			s->exit_code = PGBUILD_EXIT_ERROR;
		bj.done = 1;    /* even when it failed: no second attempt */
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
		free(t->timeline);
		strbuf_release(&t->text);
	}
	free(run->threads);
	free(s->R.script_commits);
	free(s->R.timeline);
	free(s->conninfo);
	free(s->server_version);
	free(s->cflags);
	free(s->our_user);
	free(bj.sigtmp);
	cluster_block_signals(SIG_BLOCK);
	free(bj.doc);
	bj.doc = NULL;
	bj.path = NULL;
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
	if (bench_workload_init(&s.w, o->workload, o->file) < 0) {
		char *m = xasprintf("cannot set up workload \"%s\"%s%s", o->workload,
				    o->file ? " from " : "", o->file ? o->file : "");
		bench_note_error(m);
		free(m);
		goto out_early;
	}
	if (open_server(&s) < 0)
		goto out;
	if (bench_snapshot_take(s.ctrl, s.w.data, &s.before) < 0) {
		bench_note_error("cannot read the data before the run");
		goto out;
	}
	server_side(&s);
	if (run_clients(&s) < 0)
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
		json_fail(o, o->threads, &s.env, s.exit_code);
	session_release(&s);
	return s.exit_code;
}
