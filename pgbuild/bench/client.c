/*
 * client.c - one client of `pgbuild bench`: a non-blocking libpq state
 * machine (PQsendQuery* / PQconsumeInput / PQisBusy), after pgbench's
 * (src/bin/pgbench/pgbench.c).  Its thread (threads.c) advances it when
 * its socket is readable; it never blocks and takes no lock: counters,
 * histogram and timeline are its thread's, its PRNG its own.
 *
 * Latencies are int64 microseconds from the first command of a
 * transaction to the last result.  A transaction that fails with a
 * serialization failure or deadlock (SQLSTATE class 40) is rolled back,
 * counted under its SQLSTATE and the client goes on; any other error, or
 * a lost connection, aborts the client (exit 2, like pgbench), naming
 * the script's file and line.
 *
 * --rate schedules each client's transactions as a Poisson process (as
 * pgbench does: exponential gaps of mean clients/rate seconds); a
 * transaction's latency then counts from its scheduled start, and with
 * --latency-limit one already that late when its turn comes is skipped.
 * \sleep and the wait for a scheduled start are states of their own: the
 * thread wakes the client when its time comes (threads.c).
 */

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/client.h"
#include "pgbuild/pgbuild.h"

void bench_client_abort(struct thread *t, struct client *c, const char *why)
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
	t->script_count[c->script]++;
	if (run->o->latency_limit && lat > run->o->latency_limit)
		t->late++;
	c->txs++;
}

/* -r: the time command cmd of c's script took, in the timed run. */
static void cmd_done(struct run *run, struct thread *t, struct client *c, int64_t since)
{
	int64_t now;
	if (!t->cmd_us)
		return;
	now = clock_us();
	if (now < run->warm_end_us)
		return;
	t->cmd_us[run->cmd_base[c->script] + c->cmd] += now - since;
	t->cmd_n[run->cmd_base[c->script] + c->cmd]++;
}

static int choose_script(struct run *run, struct client *c);

/* --rate: the next gap of c's Poisson schedule, in us. */
static int64_t throttle_gap(struct run *run, struct client *c)
{
	double u = 1.0 - bench_random_double(&c->rng);     /* (0, 1] */
	return (int64_t)(-log(u) * 1e6 * run->o->clients / run->o->rate);
}

/* Start a transaction at start (us): its script and generated values. */
static void start_tx(struct run *run, struct client *c, int64_t start)
{
	c->script = choose_script(run, c);
	if (run->w->gen)
		run->w->gen(run->w, c->script, c->vars, &c->rng, run->scale);
	c->tx_start = start;
	c->cmd = 0;
	c->state = CS_COMMAND;
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

static void store_gset(struct run *run, struct client *c, PGresult *res, const char *prefix)
{
	char name[256];

	if (PQntuples(res) < 1)
		return;
	for (int f = 0; f < PQnfields(res); f++) {
		int v;
		snprintf(name, sizeof(name), "%s%s", prefix ? prefix : "", PQfname(res, f));
		v = bench_var_index(&run->w->vars, name, 0);
		if (v < 0)
			continue;
		c->vars[v].isnull = PQgetisnull(res, 0, f);
		c->vars[v].i = c->vars[v].isnull ? 0 : strtoll(PQgetvalue(res, 0, f), NULL, 10);
	}
}

/* Decimal text of v at the end of buf[24]; returns its start (no printf). */
const char *bench_format_int(char *buf, int64_t v)
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
			vals[i] = bench_format_int(buf[i], v->i);
		}
	}
	if (run->o->protocol == PROTO_PREPARED)
		ok = PQsendQueryPrepared(c->conn, cmd->stmt_name, cmd->nparams, vals, NULL, NULL, 0);
	else
		ok = PQsendQueryParams(c->conn, cmd->sql, cmd->nparams, NULL, vals, NULL, NULL, 0);
	return ok;
}

/* First line of libpq's error message, for the abort message. */
char *bench_first_line(const char *msg)
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
		char why[600];
		snprintf(why, sizeof(why), "%s:%d: %s (SQLSTATE %s)",
			 run->w->scripts[c->script].file,
			 run->w->scripts[c->script].cmds[c->cmd].line,
			 c->errmsg ? c->errmsg : "error", c->sqlstate);
		bench_client_abort(t, c, why);
		return 0;
	}
	if (PQtransactionStatus(c->conn) != PQTRANS_IDLE) {
		c->failed = 0;
		if (!PQsendQuery(c->conn, "ROLLBACK")) {
			bench_client_abort(t, c, "cannot send ROLLBACK");
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
		char *m = bench_first_line(PQerrorMessage(c->conn));
		bench_client_abort(t, c, m);
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
				store_gset(run, c, res,
					   run->w->scripts[c->script].cmds[c->cmd].gset_prefix);
			break;
		case PGRES_EMPTY_QUERY:
			break;
		default:
			if (!c->failed) {
				const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
				c->failed = 1;
				snprintf(c->sqlstate, sizeof(c->sqlstate), "%s", st ? st : "?????");
				free(c->errmsg);
				c->errmsg = bench_first_line(PQresultErrorMessage(res));
			}
			break;
		}
		PQclear(res);
	}
	if (PQisBusy(c->conn))
		return 0;         /* wait for more input */
	if (PQstatus(c->conn) == CONNECTION_BAD) {
		bench_client_abort(t, c, "connection to the server was lost");
		return 0;
	}
	if (c->state == CS_ROLLBACK) {
		if (c->failed) {
			bench_client_abort(t, c, c->errmsg ? c->errmsg : "ROLLBACK failed");
			return 0;
		}
		c->state = CS_START;
		return 1;
	}
	cmd_done(run, t, c, c->wait_start);
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
void bench_client_run(struct run *run, struct thread *t, struct client *c)
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
			if (run->o->rate > 0) {
				c->sched_us = (c->sched_us ? c->sched_us : now) + throttle_gap(run, c);
				if (run->o->latency_limit && now > c->sched_us + run->o->latency_limit) {
					/* already too late: skipped, as pgbench does */
					if (c->sched_us >= run->warm_end_us)
						t->skipped++;
					c->txs += c->sched_us >= run->warm_end_us;
					break;
				}
				if (now < c->sched_us) {
					c->wake_us = c->sched_us;
					c->state = CS_THROTTLE;
					return;
				}
				start_tx(run, c, c->sched_us);
				break;
			}
			start_tx(run, c, now);
			break;

		case CS_THROTTLE:
			now = clock_us();
			if (run->end_us && now >= run->end_us) {
				c->state = CS_DONE;
				return;
			}
			if (now < c->wake_us)
				return;
			start_tx(run, c, c->sched_us);
			break;

		case CS_SLEEP:
			now = clock_us();
			if (now < c->wake_us) {
				/* the run's end stops a sleep outside a transaction */
				if (run->end_us && now >= run->end_us &&
				    PQtransactionStatus(c->conn) == PQTRANS_IDLE)
					c->state = CS_DONE;
				return;
			}
			cmd_done(run, t, c, c->wait_start);
			c->cmd++;
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
			if (cmd->kind == BCMD_SET || cmd->kind == BCMD_SLEEP) {
				const char *msg = NULL;
				int64_t v;
				if (bench_expr_eval(cmd->expr, c->vars, &c->rng, &v, &msg) < 0) {
					char why[600];
					snprintf(why, sizeof(why), "%s:%d: %s", s->file, cmd->line, msg);
					bench_client_abort(t, c, why);
					return;
				}
				if (cmd->kind == BCMD_SLEEP) {
					c->wait_start = clock_us();
					/* no overflow: a sleep past 2^63 us is forever */
					c->wake_us = v <= 0 ? c->wait_start :
						v > (INT64_MAX - c->wait_start) / cmd->sleep_unit ?
						INT64_MAX : c->wait_start + v * cmd->sleep_unit;
					c->state = CS_SLEEP;
					break;
				}
				c->vars[cmd->set_var].i = v;
				c->vars[cmd->set_var].isnull = 0;
				c->cmd++;
				break;
			}
			c->failed = 0;
			if (!send_command(run, t, c, cmd)) {
				char *m = bench_first_line(PQerrorMessage(c->conn));
				bench_client_abort(t, c, m);
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
