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
 * a lost connection, aborts the client (exit 2, like pgbench).
 */

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
		char why[400];
		snprintf(why, sizeof(why), "%s (SQLSTATE %s) in %s line %d",
			 c->errmsg ? c->errmsg : "error", c->sqlstate,
			 run->w->scripts[c->script].name,
			 run->w->scripts[c->script].cmds[c->cmd].line);
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
					bench_client_abort(t, c, why);
					return;
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
