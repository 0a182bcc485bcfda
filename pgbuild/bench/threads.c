/*
 * threads.c - the client threads of `pgbuild bench` and the timed run,
 * after pgbench:
 *  - clients are spread evenly over threads; thread 0 runs in main;
 *  - three barriers: before connecting, after every client is connected and
 *    has prepared its statements (main takes the "before" counters here),
 *    and the start of the timed run; two more at the end: every client
 *    done, and the server's CPU time taken before any connection closes;
 *  - each thread poll()s the sockets of its clients only;
 *  - every thread owns its clients' PRNGs, its histogram, counters and
 *    timeline, so the hot path takes no lock; progress reports read a few
 *    relaxed atomics; everything is merged after the threads are joined
 *    (results.c).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pgbuild/bench/client.h"
#include "pgbuild/pgbuild.h"

/* CPU seconds (user + system) used by this process, all threads. */
double bench_cpu_seconds(void)
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
				char *m = bench_first_line(PQerrorMessage(c->conn));
				error("client %d: cannot prepare %s:%d: %s", c->id, sc->file,
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

void bench_flush_stats(struct run *run, PGconn *conn)
{
	if (run->flush_stats && PQstatus(conn) == CONNECTION_OK)
		/* the scan leaves pending table statistics: without any, the
		 * backend skips the flush, database counters included */
		PQclear(PQexec(conn, "SELECT pg_stat_force_next_flush() "
				     "FROM pg_catalog.pg_database LIMIT 1"));
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
		bench_flush_stats(run, run->ctrl);
		run->xact_ok = bench_query_int(run->ctrl,
			"SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
			&run->xact_before) == 0;
	}
	run->cpu_start = bench_cpu_seconds();
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
		bench_json.bar = 1;
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
			char *m = bench_first_line(PQerrorMessage(c->conn));
			error("client %d: cannot connect: %s", c->id, m);
			free(m);
			t->connect_failed = 1;
			break;
		}
		PQsetNoticeProcessor(c->conn, notice_processor, NULL);
		if (run->o->protocol == PROTO_PREPARED && prepare_client(run, c) < 0) {
			t->connect_failed = 2;
			break;
		}
		bench_flush_stats(run, c->conn);
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
	if (bar) /* the bar shows at once: a short run can end before the first redraw */
		progress_report(run, run->start_us, &last_t, &last_c, &last_s, &last_s2, &last_e, bar);
	for (;;) {
		int nwait = 0, active = 0, timeout = 1000, r;
		int64_t wake = 0;       /* the first sleeping client's time, us */
		for (int i = 0; i < t->nclients; i++) {
			struct client *c = &t->clients[i];
			if (c->state == CS_START || c->state == CS_COMMAND ||
			    c->state == CS_SLEEP || c->state == CS_THROTTLE)
				bench_client_run(run, t, c);
			if ((c->state == CS_SLEEP || c->state == CS_THROTTLE) &&
			    (!wake || c->wake_us < wake))
				wake = c->wake_us;
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
		if (wake) {
			int64_t left = (wake - clock_us() + 999) / 1000;
			if (left < timeout)
				timeout = left < 0 ? 0 : (int)left;
		}
		if (!nwait) {   /* only sleeping clients: sleep until the first wakes */
			if (timeout > 0)
				poll(NULL, 0, timeout);
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
					bench_client_abort(t, waiting[i], why);
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
				bench_client_abort(t, waiting[i], "poll failed");
			break;
		}
		for (int i = 0; r > 0 && i < nwait; i++)
			if (pfd[i].revents && waiting[i]->state != CS_ABORTED)
				bench_client_run(run, t, waiting[i]);
	}
	t->stop_us = clock_us();
	if (bar) {
		fprintf(stderr, "\r%*s\r", BAR_WIDTH + 50, "");
		bench_json.bar = 0;
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
	run->cmd_base = xcalloc((size_t)w->nscripts + 1, sizeof(int));
	for (int i = 0; i < w->nscripts; i++)
		run->cmd_base[i + 1] = run->cmd_base[i] + w->scripts[i].ncmds;
	run->ncmds = run->cmd_base[w->nscripts];
	the_run = run;
	for (int i = 0, next = 0; i < o->threads; i++) {
		struct thread *t = &run->threads[i];
		/* spread evenly: the first (clients % threads) get one more */
		t->id = i;
		t->nclients = o->clients / o->threads + (i < o->clients % o->threads);
		t->clients = xcalloc_lines((size_t)t->nclients, sizeof(*t->clients));
		t->script_commits = xcalloc_lines((size_t)w->nscripts, sizeof(int64_t));
		t->script_count = xcalloc_lines((size_t)w->nscripts, sizeof(int64_t));
		if (o->per_command) {
			t->cmd_us = xcalloc_lines((size_t)run->ncmds + 1, sizeof(int64_t));
			t->cmd_n = xcalloc_lines((size_t)run->ncmds + 1, sizeof(int64_t));
		}
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
int bench_run_clients(struct session *s)
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
	if (run->abort_run) {
		for (int i = 0; i < n; i++)
			if (run->threads[i].connect_failed == 2)
				return bench_error("a statement of the script could not be prepared "
						   "(-M prepared; the error above names its line); "
						   "nothing was run");
		return bench_error("not every client could connect; nothing was run");
	}
	bench_merge_results(run, &s->R);
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
