/*
 * loader.c - the data loaders of pgbuild bench, through libpq COPY.
 *
 * pgbench: the same tables, columns, row counts and keys as `pgbench -i -s
 * SCALE` (so pgbench can run against data we loaded and the other way
 * round): branches, 10 tellers and 100000 accounts per scale unit, balances
 * 0, empty history, primary keys added after the data.  Tables are created
 * and filled in one transaction with COPY FREEZE, like pgbench 14+.
 *
 * test01: the seed experiment's table: test01(id int primary key, info text,
 * crt_time timestamp) with ids 1..1000000 and md5-like info.
 *
 * tpcc: tpcc_* tables for --scale warehouses (see workload.c): 100000
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

static int load_pgbench(PGconn *conn, int scale)
{
	struct copy c;
	if (exec_ok(conn, "DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, "
			  "pgbench_history, pgbench_tellers") < 0 ||
	    exec_ok(conn, "BEGIN") < 0 ||
	    exec_ok(conn, "CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, "
			  "mtime timestamp, filler char(22))") < 0 ||
	    exec_ok(conn, "CREATE TABLE pgbench_tellers (tid int not null, bid int, "
			  "tbalance int, filler char(84)) WITH (fillfactor=100)") < 0 ||
	    exec_ok(conn, "CREATE TABLE pgbench_accounts (aid int not null, bid int, "
			  "abalance int, filler char(84)) WITH (fillfactor=100)") < 0 ||
	    exec_ok(conn, "CREATE TABLE pgbench_branches (bid int not null, bbalance int, "
			  "filler char(88)) WITH (fillfactor=100)") < 0)
		return -1;
	if (copy_begin(&c, conn, "pgbench_branches") < 0)
		return -1;
	for (int64_t b = 1; b <= scale; b++) {
		add_int(&c.buf, b);
		strbuf_addstr(&c.buf, "\t0\t\n");
	}
	if (copy_end(&c) < 0 || copy_begin(&c, conn, "pgbench_tellers") < 0)
		return -1;
	for (int64_t t = 1; t <= 10LL * scale; t++) {
		add_int(&c.buf, t);
		strbuf_addch(&c.buf, '\t');
		add_int(&c.buf, (t - 1) / 10 + 1);
		strbuf_addstr(&c.buf, "\t0\t\n");
	}
	if (copy_end(&c) < 0 || copy_begin(&c, conn, "pgbench_accounts") < 0)
		return -1;
	for (int64_t a = 1; a <= 100000LL * scale; a++) {
		add_int(&c.buf, a);
		strbuf_addch(&c.buf, '\t');
		add_int(&c.buf, (a - 1) / 100000 + 1);
		strbuf_addstr(&c.buf, "\t0\t\n");
		if (copy_row_done(&c) < 0)
			return -1;
	}
	if (copy_end(&c) < 0 || exec_ok(conn, "COMMIT") < 0)
		return -1;
	if (exec_ok(conn, "VACUUM ANALYZE pgbench_branches, pgbench_tellers, "
			  "pgbench_accounts, pgbench_history") < 0 ||
	    exec_ok(conn, "ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)") < 0 ||
	    exec_ok(conn, "ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)") < 0 ||
	    exec_ok(conn, "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)") < 0)
		return -1;
	return 0;
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

static int load_test01(PGconn *conn)
{
	struct copy c;
	struct bench_prng r;
	bench_prng_seed(&r, 1);
	if (exec_ok(conn, "DROP TABLE IF EXISTS test01") < 0 || exec_ok(conn, "BEGIN") < 0 ||
	    exec_ok(conn, "CREATE TABLE test01 (id int, info text, crt_time timestamp)") < 0 ||
	    copy_begin(&c, conn, "test01") < 0)
		return -1;
	for (int64_t id = 1; id <= 1000000; id++) {
		add_int(&c.buf, id);
		strbuf_addch(&c.buf, '\t');
		add_hex(&c.buf, &r, 32);
		strbuf_addstr(&c.buf, "\t2017-08-01 12:00:00\n");
		if (copy_row_done(&c) < 0)
			return -1;
	}
	if (copy_end(&c) < 0 || exec_ok(conn, "COMMIT") < 0 ||
	    exec_ok(conn, "ALTER TABLE test01 ADD PRIMARY KEY (id)") < 0 ||
	    exec_ok(conn, "VACUUM ANALYZE test01") < 0)
		return -1;
	return 0;
}

static const char *const tpcc_ddl[] = {
	"CREATE TABLE tpcc_warehouse (w_id int, w_name text, w_tax int, w_ytd bigint)",
	"CREATE TABLE tpcc_district (d_id int, d_w_id int, d_name text, d_tax int, "
	"d_ytd bigint, d_next_o_id int)",
	"CREATE TABLE tpcc_customer (c_id int, c_d_id int, c_w_id int, c_last text, "
	"c_credit char(2), c_discount int, c_balance bigint, c_ytd_payment bigint, "
	"c_payment_cnt int, c_delivery_cnt int, c_data text)",
	"CREATE TABLE tpcc_history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, "
	"h_w_id int, h_date timestamp, h_amount bigint, h_data text)",
	"CREATE TABLE tpcc_item (i_id int, i_im_id int, i_name text, i_price int, i_data text)",
	"CREATE TABLE tpcc_stock (s_i_id int, s_w_id int, s_quantity int, s_ytd bigint, "
	"s_order_cnt int, s_remote_cnt int, s_dist_info char(24))",
	"CREATE TABLE tpcc_orders (o_id int, o_d_id int, o_w_id int, o_c_id int, "
	"o_entry_d timestamp, o_carrier_id int, o_ol_cnt int, o_all_local int)",
	"CREATE TABLE tpcc_new_order (no_o_id int, no_d_id int, no_w_id int)",
	"CREATE TABLE tpcc_order_line (ol_o_id int, ol_d_id int, ol_w_id int, ol_number int, "
	"ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp, ol_quantity int, "
	"ol_amount bigint, ol_dist_info char(24))",
	NULL
};

static const char *const tpcc_keys[] = {
	"ALTER TABLE tpcc_warehouse ADD PRIMARY KEY (w_id)",
	"ALTER TABLE tpcc_district ADD PRIMARY KEY (d_w_id, d_id)",
	"ALTER TABLE tpcc_customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id)",
	"ALTER TABLE tpcc_item ADD PRIMARY KEY (i_id)",
	"ALTER TABLE tpcc_stock ADD PRIMARY KEY (s_w_id, s_i_id)",
	"ALTER TABLE tpcc_orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id)",
	"ALTER TABLE tpcc_new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id)",
	"ALTER TABLE tpcc_order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
	"VACUUM ANALYZE",
	NULL
};

static int load_tpcc(PGconn *conn, int warehouses)
{
	struct copy c;
	struct bench_prng r;
	bench_prng_seed(&r, 2);
	if (exec_ok(conn, "DROP TABLE IF EXISTS tpcc_warehouse, tpcc_district, tpcc_customer, "
			  "tpcc_history, tpcc_item, tpcc_stock, tpcc_orders, tpcc_new_order, "
			  "tpcc_order_line") < 0 || exec_ok(conn, "BEGIN") < 0)
		return -1;
	for (int i = 0; tpcc_ddl[i]; i++)
		if (exec_ok(conn, tpcc_ddl[i]) < 0)
			return -1;
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
	if (copy_end(&c) < 0 || exec_ok(conn, "COMMIT") < 0)
		return -1;
	for (int i = 0; tpcc_keys[i]; i++)
		if (exec_ok(conn, tpcc_keys[i]) < 0)
			return -1;
	return 0;
}

int bench_load(PGconn *conn, enum bench_dataset d, int scale, int quiet)
{
	int r = 0;
	if (!quiet && d != DATA_NONE)
		fprintf(stderr, "%s: loading %s data (scale %d)...\n", error_program(),
			bench_dataset_name(d), scale);
	switch (d) {
	case DATA_NONE:
		return 0;
	case DATA_PGBENCH:
		r = load_pgbench(conn, scale);
		break;
	case DATA_TEST01:
		r = load_test01(conn);
		break;
	case DATA_TPCC:
		r = load_tpcc(conn, scale);
		break;
	}
	if (r < 0)
		return -1;
	/* make the data durable and the timed run free of the load's dirty pages;
	 * may be refused on a server where we are not superuser: fine */
	{
		PGresult *res = PQexec(conn, "CHECKPOINT");
		PQclear(res);
	}
	return 0;
}

int bench_detect_scale(PGconn *conn, enum bench_dataset d)
{
	const char *sql;
	PGresult *res;
	int n;
	switch (d) {
	case DATA_NONE:
		return 1;
	case DATA_PGBENCH:
		sql = "SELECT count(*) FROM pgbench_branches";
		break;
	case DATA_TEST01:
		sql = "SELECT 1 FROM test01 LIMIT 1";
		break;
	case DATA_TPCC:
		sql = "SELECT count(*) FROM tpcc_warehouse";
		break;
	default:
		return -1;
	}
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		PQclear(res);
		return -1;
	}
	n = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return n > 0 ? n : -1;
}
