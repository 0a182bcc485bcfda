/*
 * loader.c - loads a data set (a row of metric/datasets.c) into a bench
 * server through libpq: DROP TABLE IF EXISTS its tables; in one
 * transaction its DDL and its rows (its fill statements, or for the sets
 * whose rows follow a distribution SQL does not give, test01 and tpcc, a
 * COPY FREEZE generator here); then its keys, VACUUM ANALYZE of its tables
 * and a CHECKPOINT.  The statements are the ones the single-user template
 * runs (metric/single.c), one a line, ":scale" replaced.
 *
 * pgbench: the same tables, columns, row counts and keys as `pgbench -i -s
 * SCALE -I dtGvp` (server-side generation), so pgbench can run against
 * data we loaded and the other way round.
 *
 * test01: the seed experiment's table, ids 1..1000000 and md5-like info
 * from a seeded generator.
 *
 * tpcc: the tpcc_* tables for --scale warehouses (see workload.c): 100000
 * items, per warehouse 10 districts, 30000 customers, 100000 stock rows;
 * orders start empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/bench.h"
#include "wrapper/common/error.h"
#include "wrapper/common/xalloc.h"

#define COPY_CHUNK 65536

static int exec_ok(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(res);
	PQclear(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		return error("loading failed: %.200s: %s", sql, PQerrorMessage(conn));
	return 0;
}

/* A COPY in progress: rows are buffered and sent in 64 KB chunks. */
struct copy {
	PGconn *conn;
	struct strbuf buf;
};

static int copy_begin(struct copy *c, PGconn *conn, const char *table)
{
	char sql[200];
	PGresult *res;
	c->conn = conn;
	strbuf_init(&c->buf, COPY_CHUNK + 1024);
	snprintf(sql, sizeof(sql), "COPY %s FROM STDIN (FREEZE ON)", table);
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		PQclear(res);
		strbuf_release(&c->buf);
		return error("%s: %s", sql, PQerrorMessage(conn));
	}
	PQclear(res);
	return 0;
}

static int copy_flush(struct copy *c)
{
	if (c->buf.len && PQputCopyData(c->conn, c->buf.buf, (int)c->buf.len) != 1)
		return error("COPY failed: %s", PQerrorMessage(c->conn));
	strbuf_reset(&c->buf);
	return 0;
}

static int copy_row_done(struct copy *c)
{
	return c->buf.len >= COPY_CHUNK ? copy_flush(c) : 0;
}

static int copy_end(struct copy *c)
{
	PGresult *res;
	int r = copy_flush(c);
	strbuf_release(&c->buf);
	if (PQputCopyEnd(c->conn, NULL) != 1)
		return error("COPY failed: %s", PQerrorMessage(c->conn));
	while ((res = PQgetResult(c->conn))) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			r = error("COPY failed: %s", PQerrorMessage(c->conn));
		PQclear(res);
	}
	return r;
}

/* Append n as decimal (faster than printf for millions of rows). */
static void add_int(struct strbuf *sb, int64_t n)
{
	char tmp[24];
	int i = sizeof(tmp);
	int neg = n < 0;
	uint64_t u = neg ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		tmp[--i] = '-';
	strbuf_add(sb, tmp + i, sizeof(tmp) - (size_t)i);
}

static void add_hex(struct strbuf *sb, struct bench_prng *r, int n)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t x = 0;
	for (int i = 0; i < n; i++) {
		if (i % 16 == 0)
			x = bench_prng_next(r);
		strbuf_addch(sb, hex[x & 15]);
		x >>= 4;
	}
}

static int copy_test01(PGconn *conn, int scale)
{
	struct copy c;
	struct bench_prng r;
	(void)scale;
	bench_prng_seed(&r, 1);
	if (copy_begin(&c, conn, "test01") < 0)
		return -1;
	for (int64_t id = 1; id <= 1000000; id++) {
		add_int(&c.buf, id);
		strbuf_addch(&c.buf, '\t');
		add_hex(&c.buf, &r, 32);
		strbuf_addstr(&c.buf, "\t2017-08-01 12:00:00\n");
		if (copy_row_done(&c) < 0)
			return -1;
	}
	return copy_end(&c);
}

static int copy_tpcc(PGconn *conn, int warehouses)
{
	struct copy c;
	struct bench_prng r;
	bench_prng_seed(&r, 2);
	if (copy_begin(&c, conn, "tpcc_item") < 0)
		return -1;
	for (int64_t i = 1; i <= 100000; i++) {
		add_int(&c.buf, i);
		strbuf_addch(&c.buf, '\t');
		add_int(&c.buf, bench_random(&r, 1, 10000));
		strbuf_addstr(&c.buf, "\titem-");
		add_hex(&c.buf, &r, 10);
		strbuf_addch(&c.buf, '\t');
		add_int(&c.buf, bench_random(&r, 100, 10000));  /* cents */
		strbuf_addstr(&c.buf, "\tdata\n");
		if (copy_row_done(&c) < 0)
			return -1;
	}
	if (copy_end(&c) < 0 || copy_begin(&c, conn, "tpcc_warehouse") < 0)
		return -1;
	for (int64_t w = 1; w <= warehouses; w++) {
		add_int(&c.buf, w);
		strbuf_addstr(&c.buf, "\twarehouse\t");
		add_int(&c.buf, bench_random(&r, 0, 2000));
		strbuf_addstr(&c.buf, "\t30000000\n");
	}
	if (copy_end(&c) < 0 || copy_begin(&c, conn, "tpcc_district") < 0)
		return -1;
	for (int64_t w = 1; w <= warehouses; w++)
		for (int64_t d = 1; d <= 10; d++) {
			add_int(&c.buf, d);
			strbuf_addch(&c.buf, '\t');
			add_int(&c.buf, w);
			strbuf_addstr(&c.buf, "\tdistrict\t");
			add_int(&c.buf, bench_random(&r, 0, 2000));
			strbuf_addstr(&c.buf, "\t3000000\t1\n");
		}
	if (copy_end(&c) < 0 || copy_begin(&c, conn, "tpcc_customer") < 0)
		return -1;
	for (int64_t w = 1; w <= warehouses; w++)
		for (int64_t d = 1; d <= 10; d++)
			for (int64_t cu = 1; cu <= 3000; cu++) {
				add_int(&c.buf, cu);
				strbuf_addch(&c.buf, '\t');
				add_int(&c.buf, d);
				strbuf_addch(&c.buf, '\t');
				add_int(&c.buf, w);
				strbuf_addstr(&c.buf, "\tlast-");
				add_int(&c.buf, cu % 1000);
				strbuf_addstr(&c.buf, bench_random(&r, 1, 10) == 1 ? "\tBC\t" : "\tGC\t");
				add_int(&c.buf, bench_random(&r, 0, 5000));
				strbuf_addstr(&c.buf, "\t-1000\t1000\t1\t0\tcustomer-data\n");
				if (copy_row_done(&c) < 0)
					return -1;
			}
	if (copy_end(&c) < 0 || copy_begin(&c, conn, "tpcc_stock") < 0)
		return -1;
	for (int64_t w = 1; w <= warehouses; w++)
		for (int64_t i = 1; i <= 100000; i++) {
			add_int(&c.buf, i);
			strbuf_addch(&c.buf, '\t');
			add_int(&c.buf, w);
			strbuf_addch(&c.buf, '\t');
			add_int(&c.buf, bench_random(&r, 10, 100));
			strbuf_addstr(&c.buf, "\t0\t0\t0\t");
			add_hex(&c.buf, &r, 24);
			strbuf_addch(&c.buf, '\n');
			if (copy_row_done(&c) < 0)
				return -1;
		}
	return copy_end(&c);
}

/* The COPY generators, by data set name (a row with copy set). */
static const struct {
	const char *name;                       /* the data set */
	int (*fill)(PGconn *conn, int scale);   /* its rows, inside the load's transaction */
} generators[] = {
	{ "test01", copy_test01 },
	{ "tpcc", copy_tpcc },
};

/* Run text's statements, one a line, ":scale" replaced. */
static int exec_lines(PGconn *conn, const char *text, int scale)
{
	struct strbuf sb = STRBUF_INIT;
	char *p, *next;
	int r = 0;
	if (!text)
		return 0;
	workloads_expand(&sb, text, scale);
	for (p = sb.buf; *p && r == 0; p = next) {
		char *eol = strchr(p, '\n');
		next = eol ? eol + 1 : p + strlen(p);
		if (eol)
			*eol = '\0';
		if (*p)
			r = exec_ok(conn, p);
	}
	strbuf_release(&sb);
	return r;
}

int bench_load(PGconn *conn, const struct workload_data *d, int scale, int quiet)
{
	char *sql;
	int r;

	if (!d->tables)
		return 0;
	if (!quiet)
		fprintf(stderr, "%s: loading %s data (scale %d)...\n", error_program(), d->name, scale);
	sql = xasprintf("DROP TABLE IF EXISTS %s", d->tables);
	r = exec_ok(conn, sql);
	free(sql);
	if (r < 0 || exec_ok(conn, "BEGIN") < 0 || exec_lines(conn, d->ddl, scale) < 0)
		return -1;
	if (d->copy) {
		size_t i;
		for (i = 0; i < sizeof(generators) / sizeof(generators[0]); i++)
			if (!strcmp(generators[i].name, d->name))
				break;
		if (i == sizeof(generators) / sizeof(generators[0]))
			return error("data set \"%s\": no COPY generator in bench/loader.c", d->name);
		if (generators[i].fill(conn, scale) < 0)
			return -1;
	} else if (exec_lines(conn, d->fill, scale) < 0) {
		return -1;
	}
	if (exec_ok(conn, "COMMIT") < 0 || exec_lines(conn, d->keys, scale) < 0)
		return -1;
	sql = xasprintf("VACUUM ANALYZE %s", d->tables);
	r = exec_ok(conn, sql);
	free(sql);
	if (r < 0)
		return -1;
	/* make the data durable and the timed run free of the load's dirty pages;
	 * may be refused on a server where we are not superuser: fine */
	PQclear(PQexec(conn, "CHECKPOINT"));
	return 0;
}

int bench_has_copy_generator(const char *name)
{
	for (size_t i = 0; i < sizeof(generators) / sizeof(generators[0]); i++)
		if (!strcmp(generators[i].name, name))
			return 1;
	return 0;
}

int bench_detect_scale(PGconn *conn, const struct workload_data *d)
{
	PGresult *res;
	char *sql;
	int n;

	if (!d->tables)
		return 1;
	/* an unscaled set: there when all its tables are */
	sql = d->scale_sql ? xstrdup(d->scale_sql) :
		xasprintf("SELECT CASE WHEN count(*) = count(to_regclass(t)) THEN 1 ELSE 0 END "
			  "FROM unnest(string_to_array('%s', ', ')) t", d->tables);
	res = PQexec(conn, sql);
	free(sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		PQclear(res);
		return -1;
	}
	n = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return n > 0 ? n : -1;
}
