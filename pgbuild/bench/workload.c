/*
 * workload.c - the built-in workloads of pgbuild bench, the tpcc-lite
 * transaction generator, and the correctness checks run before and after
 * every benchmark.
 *
 * Built-in workloads are written as scripts in the same pgbench subset that
 * `--workload sql FILE` accepts, so there is one client engine.  tpcc-lite
 * adds a C generator for what \set cannot express (distinct, sorted item
 * lists; NURand; remote warehouses).
 *
 * tpcc-lite ("lite": no Delivery, Order-Status or Stock-Level, no 1%
 * rolled-back New-Orders, no customer selection by last name, money in
 * integer cents, order tables start empty):
 *   New-Order (weight 45): read warehouse/customer, take the district's next
 *   order id, insert the order and new-order rows, lock the stock rows in
 *   key order (so concurrent New-Orders never deadlock), update them and
 *   insert 5-15 order lines priced from the item table.
 *   Payment (weight 43): add the amount to warehouse and district year-to-
 *   date, charge the customer (15% in a remote warehouse when there is more
 *   than one), insert a history row.
 * Checks after the run (TPC-C clause 3.3.2 where they apply, numbered as
 * there): 1 W_YTD = sum(D_YTD); 2 D_NEXT_O_ID - 1 = max(O_ID) =
 * max(NO_O_ID); 3 new-order ids contiguous; 4 sum(O_OL_CNT) = count of
 * order lines; 8/9 W_YTD and D_YTD grew by the history amounts; 10 each
 * customer's balance and payment count match its history; plus ours:
 * stock year-to-date equals the ordered quantities, and the number of new
 * orders and payments committed equals the rows the server has.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/bench.h"
#include "wrapper/common/error.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/suggest.h"
#include "wrapper/common/xalloc.h"

/* ---------------- built-in scripts ---------------- */

static const char select_only_sql[] =
	"\\set aid random(1, 100000 * :scale)\n"
	"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n";

static const char tpcb_sql[] =
	"\\set aid random(1, 100000 * :scale)\n"
	"\\set bid random(1, 1 * :scale)\n"
	"\\set tid random(1, 10 * :scale)\n"
	"\\set delta random(-5000, 5000)\n"
	"BEGIN;\n"
	"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
	"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
	"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
	"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
	"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
	"VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
	"END;\n";

static const char select1_sql[] = "SELECT 1;\n";

/* The held-out workload (metric/single.c's mixed: the same statements):
 * a 51-row range, an INSERT with md5() (delta 0: the balances stay in
 * step with the history), a sorted aggregate over the catalog. */
static const char mixed_sql[] =
	"\\set aid random(1, 100000 * :scale - 50)\n"
	"\\set tid random(1, 10 * :scale)\n"
	"SELECT count(*), sum(abalance) FROM pgbench_accounts WHERE aid BETWEEN :aid AND :aid + 50;\n"
	"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) "
	"VALUES (:tid, 1, :aid, 0, CURRENT_TIMESTAMP, left(md5(CAST(:aid AS text)), 22));\n"
	"SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class;\n";

static const char point_select_sql[] =
	"\\set id random(1, 1000000)\n"
	"select * from test01 where id=:id;\n";

#define OL_MAX 15
#define ITEMS 100000
#define CUST_PER_D 3000

/* generated variables of tpcc-lite, in gen_vars[] order */
enum {
	G_W, G_D, G_C, G_CW, G_CD, G_OLCNT, G_ALL_LOCAL, G_AMOUNT,
	G_I1, G_S1 = G_I1 + OL_MAX, G_Q1 = G_S1 + OL_MAX, G_NR = G_Q1 + OL_MAX
};

static char *tpcc_unnest(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *arr[3] = { "i", "s", "q" };
	strbuf_addstr(&sb, "unnest(");
	for (int a = 0; a < 3; a++) {
		strbuf_addf(&sb, "%sARRAY[", a ? ", " : "");
		for (int k = 1; k <= OL_MAX; k++)
			strbuf_addf(&sb, "%s:%s%d::int", k > 1 ? "," : "", arr[a], k);
		strbuf_addch(&sb, ']');
	}
	strbuf_addch(&sb, ')');
	return strbuf_detach(&sb, NULL);
}

static char *tpcc_new_order_sql(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *un = tpcc_unnest();
	strbuf_addf(&sb,
		"BEGIN;\n"
		"SELECT c_discount, c_credit, w_tax FROM tpcc_customer, tpcc_warehouse "
		"WHERE w_id = :w_id AND c_w_id = w_id AND c_d_id = :d_id AND c_id = :c_id;\n"
		"UPDATE tpcc_district SET d_next_o_id = d_next_o_id + 1 "
		"WHERE d_w_id = :w_id AND d_id = :d_id RETURNING d_next_o_id - 1 AS o_id, d_tax;\n"
		"\\gset\n"
		"INSERT INTO tpcc_orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) "
		"VALUES (:o_id, :d_id, :w_id, :c_id, now(), :ol_cnt, :all_local);\n"
		"INSERT INTO tpcc_new_order (no_o_id, no_d_id, no_w_id) VALUES (:o_id, :d_id, :w_id);\n"
		"SELECT count(*) FROM (SELECT 1 FROM tpcc_stock WHERE (s_w_id, s_i_id) IN "
		"(SELECT x.s, x.i FROM %s AS x(i, s, q) WHERE x.i IS NOT NULL) "
		"ORDER BY s_w_id, s_i_id FOR UPDATE) AS locked;\n"
		"UPDATE tpcc_stock SET s_quantity = CASE WHEN s_quantity >= x.q + 10 "
		"THEN s_quantity - x.q ELSE s_quantity - x.q + 91 END, "
		"s_ytd = s_ytd + x.q, s_order_cnt = s_order_cnt + 1, "
		"s_remote_cnt = s_remote_cnt + (x.s <> :w_id)::int "
		"FROM %s AS x(i, s, q) WHERE x.i IS NOT NULL AND s_i_id = x.i AND s_w_id = x.s;\n"
		"INSERT INTO tpcc_order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
		"ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) "
		"SELECT :o_id, :d_id, :w_id, x.n, x.i, x.s, x.q, x.q * i_price, 'dist-info' "
		"FROM %s WITH ORDINALITY AS x(i, s, q, n) JOIN tpcc_item ON i_id = x.i "
		"WHERE x.i IS NOT NULL;\n"
		"COMMIT;\n", un, un, un);
	free(un);
	return strbuf_detach(&sb, NULL);
}

static const char tpcc_payment_sql[] =
	"BEGIN;\n"
	"UPDATE tpcc_warehouse SET w_ytd = w_ytd + :h_amount WHERE w_id = :w_id;\n"
	"UPDATE tpcc_district SET d_ytd = d_ytd + :h_amount WHERE d_w_id = :w_id AND d_id = :d_id;\n"
	"UPDATE tpcc_customer SET c_balance = c_balance - :h_amount, "
	"c_ytd_payment = c_ytd_payment + :h_amount, c_payment_cnt = c_payment_cnt + 1 "
	"WHERE c_w_id = :c_w_id AND c_d_id = :c_d_id AND c_id = :c_id;\n"
	"INSERT INTO tpcc_history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, "
	"h_amount, h_data) VALUES (:c_id, :c_d_id, :c_w_id, :d_id, :w_id, now(), :h_amount, "
	"'payment');\n"
	"COMMIT;\n";

/* TPC-C NURand(A, x, y) with a fixed C. */
static int64_t nurand(struct bench_prng *r, int64_t a, int64_t x, int64_t y, int64_t c)
{
	return (((bench_random(r, 0, a) | bench_random(r, x, y)) + c) % (y - x + 1)) + x;
}

static void tpcc_gen(const struct bench_workload *w, int script, struct bench_value *vars,
		     struct bench_prng *r, int scale)
{
#define SETV(k, val) do { vars[w->gen_vars[k]].i = (val); \
			  vars[w->gen_vars[k]].isnull = 0; } while (0)
	int64_t wid = bench_random(r, 1, scale), cw = wid, cd;
	int64_t did = bench_random(r, 1, 10);
	SETV(G_W, wid);
	SETV(G_D, did);
	SETV(G_C, nurand(r, 1023, 1, CUST_PER_D, 259));
	if (script == 0) {              /* New-Order */
		int n = (int)bench_random(r, 5, OL_MAX), all_local = 1;
		int64_t it[OL_MAX], sw[OL_MAX];
		for (int k = 0; k < n; k++) {
			int dup;
			do {            /* distinct items */
				it[k] = nurand(r, 8191, 1, ITEMS, 7911);
				dup = 0;
				for (int j = 0; j < k; j++)
					dup |= it[j] == it[k];
			} while (dup);
			sw[k] = wid;
			if (scale > 1 && bench_random(r, 1, 100) == 1) {
				do
					sw[k] = bench_random(r, 1, scale);
				while (sw[k] == wid);
				all_local = 0;
			}
		}
		/* sort by (supply warehouse, item): the order rows are locked in */
		for (int a = 1; a < n; a++)
			for (int b = a; b > 0 && (sw[b - 1] > sw[b] ||
						  (sw[b - 1] == sw[b] && it[b - 1] > it[b])); b--) {
				int64_t t = it[b]; it[b] = it[b - 1]; it[b - 1] = t;
				t = sw[b]; sw[b] = sw[b - 1]; sw[b - 1] = t;
			}
		SETV(G_OLCNT, n);
		SETV(G_ALL_LOCAL, all_local);
		for (int k = 0; k < OL_MAX; k++) {
			struct bench_value *vi = &vars[w->gen_vars[G_I1 + k]];
			struct bench_value *vs = &vars[w->gen_vars[G_S1 + k]];
			struct bench_value *vq = &vars[w->gen_vars[G_Q1 + k]];
			vi->isnull = vs->isnull = vq->isnull = k >= n;
			if (k < n) {
				vi->i = it[k];
				vs->i = sw[k];
				vq->i = bench_random(r, 1, 10);
			}
		}
	} else {                        /* Payment */
		cd = did;
		if (scale > 1 && bench_random(r, 1, 100) <= 15) {
			do
				cw = bench_random(r, 1, scale);
			while (cw == wid);
			cd = bench_random(r, 1, 10);
		}
		SETV(G_CW, cw);
		SETV(G_CD, cd);
		SETV(G_AMOUNT, bench_random(r, 100, 500000));
	}
#undef SETV
}

static int add_script(struct bench_workload *w, const char *name, int weight,
		      const char *text, const char *file)
{
	struct bench_script *s;
	w->scripts = xrealloc(w->scripts, sizeof(*w->scripts) * (w->nscripts + 1));
	s = &w->scripts[w->nscripts];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->weight = weight;
	if (bench_script_parse(s, text, file, &w->vars, w->nscripts) < 0) {
		free(s->name);
		return -1;
	}
	w->nscripts++;
	w->total_weight += weight;
	return 0;
}

/* The built-in workloads of one script. */
static const struct {
	const char *name;          /* --workload value, also the script's name */
	enum bench_dataset data;   /* what must be loaded */
	int read_only;             /* the script writes nothing */
	const char *sql;           /* the script */
	const char *file;          /* how errors name it */
} one_script[] = {
	{ "select-only", DATA_PGBENCH, 1, select_only_sql, "<select-only>" },
	{ "tpcb", DATA_PGBENCH, 0, tpcb_sql, "<tpcb>" },
	{ "select1", DATA_NONE, 1, select1_sql, "<select1>" },
	{ "point-select", DATA_TEST01, 1, point_select_sql, "<point-select>" },
	{ "mixed", DATA_PGBENCH, 0, mixed_sql, "<mixed>" },
};

int bench_workload_init(struct bench_workload *w, const char *name, const char *file)
{
	memset(w, 0, sizeof(*w));
	w->name = name;
	w->var_scale = bench_var_index(&w->vars, "scale", 1);
	w->var_client_id = bench_var_index(&w->vars, "client_id", 1);
	for (size_t i = 0; i < sizeof(one_script) / sizeof(one_script[0]); i++) {
		if (!strcmp(name, one_script[i].name)) {
			w->data = one_script[i].data;
			w->read_only = one_script[i].read_only;
			return add_script(w, name, 1, one_script[i].sql, one_script[i].file);
		}
	}
	if (!strcmp(name, "tpcc-lite")) {
		static const char *const names[] = { "w_id", "d_id", "c_id", "c_w_id",
						     "c_d_id", "ol_cnt", "all_local", "h_amount" };
		char *no;
		int r;
		w->data = DATA_TPCC;
		for (int k = 0; k < G_I1; k++)
			w->gen_vars[k] = bench_var_index(&w->vars, names[k], 1);
		for (int k = 0; k < OL_MAX; k++) {
			char nm[8];
			snprintf(nm, sizeof(nm), "i%d", k + 1);
			w->gen_vars[G_I1 + k] = bench_var_index(&w->vars, nm, 1);
			snprintf(nm, sizeof(nm), "s%d", k + 1);
			w->gen_vars[G_S1 + k] = bench_var_index(&w->vars, nm, 1);
			snprintf(nm, sizeof(nm), "q%d", k + 1);
			w->gen_vars[G_Q1 + k] = bench_var_index(&w->vars, nm, 1);
		}
		w->gen = tpcc_gen;
		no = tpcc_new_order_sql();
		r = add_script(w, "new-order", 45, no, "<tpcc-lite new-order>");
		free(no);
		if (r < 0)
			return -1;
		return add_script(w, "payment", 43, tpcc_payment_sql, "<tpcc-lite payment>");
	}
	if (!strcmp(name, "sql")) {
		struct strbuf sb = STRBUF_INIT;
		const char *base;
		int r;
		if (!file)
			return error("--workload sql needs a script: --workload sql FILE, "
				     "--file FILE or sql:FILE");
		struct strbuf err = STRBUF_INIT;
		char *name = xasprintf("script \"%s\"", file);
		long got = sfs_read_as(AT_FDCWD, file, name, SFS_IN_TEXT, 0, &sb, &err);
		free(name);
		if (got < 0) {
			r = error("%s", err.buf);
			strbuf_release(&sb);
			strbuf_release(&err);
			return r;
		}
		/* the pgbench tables only for a script that uses them: one
		 * that does not must run on any --connect server, and gets
		 * no data loaded on a private cluster */
		w->data = strcasestr(sb.buf, "pgbench_") ? DATA_PGBENCH : DATA_NONE;
		base = strrchr(file, '/');
		r = add_script(w, base ? base + 1 : file, 1, sb.buf, file);
		strbuf_release(&sb);
		return r;
	}
	{
		const char *near = suggest_word(name, bench_workload_names);
		if (near)
			return error("unknown workload \"%s\" (did you mean \"%s\"?): expected %s",
				     name, near, BENCH_WORKLOAD_NAMES);
	}
	return error("unknown workload \"%s\" (%s)", name, BENCH_WORKLOAD_NAMES);
}

void bench_workload_release(struct bench_workload *w)
{
	for (int i = 0; i < w->nscripts; i++)
		bench_script_free(&w->scripts[i]);
	free(w->scripts);
	w->scripts = NULL;
	w->nscripts = 0;
	bench_vars_free(&w->vars);
}

int bench_workload_check(const char *spec)
{
	struct bench_workload w;
	int r = !strncmp(spec, "sql:", 4) ? bench_workload_init(&w, "sql", spec + 4) :
		bench_workload_init(&w, spec, NULL);
	bench_workload_release(&w);
	return r < 0 ? -1 : 0;
}

const char *bench_dataset_name(enum bench_dataset d)
{
	switch (d) {
	case DATA_NONE: return "none";
	case DATA_PGBENCH: return "pgbench";
	case DATA_TEST01: return "test01";
	case DATA_TPCC: return "tpcc";
	}
	return "?";
}

/* ---------------- checks ---------------- */

void bench_check_add(struct bench_checks *cs, const char *name, int ok, const char *fmt, ...)
{
	struct bench_check *c;
	va_list ap;
	if (cs->nr >= BENCH_CHECK_MAX)
		return;
	c = &cs->c[cs->nr++];
	c->name = name;
	c->ok = ok;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

int bench_query_int(PGconn *conn, const char *sql, int64_t *out)
{
	PGresult *res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) < 1) {
		int r = error("query failed: %s: %s", sql, PQerrorMessage(conn));
		PQclear(res);
		return r;
	}
	*out = PQgetisnull(res, 0, 0) ? 0 : strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return 0;
}

/* One query whose single row holds all the snapshot's numbers. */
static int snapshot_query(PGconn *conn, const char *sql, struct bench_snapshot *s)
{
	PGresult *res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		error("check query failed: %s", PQerrorMessage(conn));
		PQclear(res);
		return -1;
	}
	s->nr = PQnfields(res) < BENCH_SNAP_MAX ? PQnfields(res) : BENCH_SNAP_MAX;
	for (int i = 0; i < s->nr; i++)
		s->v[i] = PQgetisnull(res, 0, i) ? 0 : strtoll(PQgetvalue(res, 0, i), NULL, 10);
	PQclear(res);
	s->ok = 1;
	return 0;
}

/* pgbench: 0 accounts 1 tellers 2 branches 3 history rows; sums 4 a 5 t 6 b 7 h */
static const char pgbench_snap_sql[] =
	"SELECT (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_tellers),"
	" (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_history),"
	" (SELECT sum(abalance::bigint) FROM pgbench_accounts),"
	" (SELECT sum(tbalance::bigint) FROM pgbench_tellers),"
	" (SELECT sum(bbalance::bigint) FROM pgbench_branches),"
	" (SELECT sum(delta::bigint) FROM pgbench_history)";

static const char test01_snap_sql[] =
	"SELECT count(*), sum(id::bigint) FROM test01";

/* tpcc: 0 orders 1 new_order 2 order_line 3 history 4 customers 5 stock 6 items
 * 7 sum w_ytd 8 sum h_amount */
static const char tpcc_snap_sql[] =
	"SELECT (SELECT count(*) FROM tpcc_orders), (SELECT count(*) FROM tpcc_new_order),"
	" (SELECT count(*) FROM tpcc_order_line), (SELECT count(*) FROM tpcc_history),"
	" (SELECT count(*) FROM tpcc_customer), (SELECT count(*) FROM tpcc_stock),"
	" (SELECT count(*) FROM tpcc_item), (SELECT sum(w_ytd) FROM tpcc_warehouse),"
	" (SELECT sum(h_amount) FROM tpcc_history)";

int bench_snapshot_take(PGconn *conn, enum bench_dataset d, struct bench_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	switch (d) {
	case DATA_NONE:
		s->ok = 1;
		return 0;
	case DATA_PGBENCH:
		return snapshot_query(conn, pgbench_snap_sql, s);
	case DATA_TEST01:
		return snapshot_query(conn, test01_snap_sql, s);
	case DATA_TPCC:
		return snapshot_query(conn, tpcc_snap_sql, s);
	}
	return -1;
}

/* Run a query that counts violations; adds a check named name. */
static void violation_check(PGconn *conn, struct bench_checks *cs, const char *name,
			    const char *what, const char *sql)
{
	int64_t n;
	if (bench_query_int(conn, sql, &n) < 0) {
		bench_check_add(cs, name, 0, "%s: query failed", what);
		return;
	}
	bench_check_add(cs, name, n == 0, "%s: %lld violation%s", what, (long long)n,
			n == 1 ? "" : "s");
}

static void tpcc_checks(PGconn *conn, const struct bench_snapshot *b,
			const struct bench_snapshot *a, const int64_t *commits,
			struct bench_checks *cs)
{
	int64_t orders = a->v[0] - b->v[0], hist = a->v[3] - b->v[3];
	violation_check(conn, cs, "tpcc_1_w_ytd", "W_YTD = sum(D_YTD)",
		"SELECT count(*) FROM tpcc_warehouse w WHERE w_ytd <> "
		"(SELECT sum(d_ytd) FROM tpcc_district WHERE d_w_id = w_id)");
	violation_check(conn, cs, "tpcc_2_next_o_id", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
		"SELECT count(*) FROM tpcc_district d WHERE d_next_o_id - 1 <> "
		"coalesce((SELECT max(o_id) FROM tpcc_orders WHERE o_w_id = d_w_id AND o_d_id = d_id), 0)"
		" OR d_next_o_id - 1 <> coalesce((SELECT max(no_o_id) FROM tpcc_new_order "
		"WHERE no_w_id = d_w_id AND no_d_id = d_id), 0)");
	violation_check(conn, cs, "tpcc_3_new_order", "new-order ids contiguous",
		"SELECT count(*) FROM (SELECT no_w_id, no_d_id FROM tpcc_new_order "
		"GROUP BY 1, 2 HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)) x");
	violation_check(conn, cs, "tpcc_4_ol_cnt", "sum(O_OL_CNT) = count(order lines)",
		"SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) s FROM tpcc_orders "
		"GROUP BY 1, 2) o LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) n FROM tpcc_order_line "
		"GROUP BY 1, 2) l ON ol_w_id = o_w_id AND ol_d_id = o_d_id WHERE s <> coalesce(n, 0)");
	violation_check(conn, cs, "tpcc_8_9_ytd_history", "W_YTD and D_YTD = initial + history",
		"SELECT (SELECT count(*) FROM tpcc_warehouse WHERE w_ytd <> 30000000 + coalesce("
		"(SELECT sum(h_amount) FROM tpcc_history WHERE h_w_id = w_id), 0)) + "
		"(SELECT count(*) FROM tpcc_district WHERE d_ytd <> 3000000 + coalesce("
		"(SELECT sum(h_amount) FROM tpcc_history WHERE h_w_id = d_w_id AND h_d_id = d_id), 0))");
	violation_check(conn, cs, "tpcc_10_customer", "C_BALANCE and C_PAYMENT_CNT match history",
		"SELECT count(*) FROM tpcc_customer LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, "
		"sum(h_amount) s, count(*) n FROM tpcc_history GROUP BY 1, 2, 3) h "
		"ON h_c_w_id = c_w_id AND h_c_d_id = c_d_id AND h_c_id = c_id "
		"WHERE c_balance <> -1000 - coalesce(s, 0) OR c_payment_cnt <> 1 + coalesce(n, 0)");
	violation_check(conn, cs, "tpcc_stock_ytd", "sum(S_YTD) = ordered quantities",
		"SELECT count(*) FROM (SELECT s_w_id, sum(s_ytd) y FROM tpcc_stock GROUP BY 1) s "
		"LEFT JOIN (SELECT ol_supply_w_id, sum(ol_quantity) q FROM tpcc_order_line GROUP BY 1) l "
		"ON ol_supply_w_id = s_w_id WHERE y <> coalesce(q, 0)");
	bench_check_add(cs, "tpcc_committed", orders == commits[0] && hist == commits[1] &&
			a->v[1] - b->v[1] == orders,
			"new orders committed %lld, orders added %lld, new_order rows added %lld; "
			"payments committed %lld, history rows added %lld",
			(long long)commits[0], (long long)orders, (long long)(a->v[1] - b->v[1]),
			(long long)commits[1], (long long)hist);
	bench_check_add(cs, "row_counts", a->v[4] == b->v[4] && a->v[5] == b->v[5] &&
			a->v[6] == b->v[6], "customers %lld -> %lld, stock %lld -> %lld, items %lld -> %lld",
			(long long)b->v[4], (long long)a->v[4], (long long)b->v[5],
			(long long)a->v[5], (long long)b->v[6], (long long)a->v[6]);
}

void bench_snapshot_compare(PGconn *conn, const struct bench_workload *w,
			    const struct bench_snapshot *b, const struct bench_snapshot *a,
			    const int64_t *commits, struct bench_checks *cs)
{
	if (!b->ok || !a->ok) {
		bench_check_add(cs, "snapshot", 0, "could not read the data before and after");
		return;
	}
	switch (w->data) {
	case DATA_NONE:
		return;
	case DATA_TEST01:
		bench_check_add(cs, "row_counts", a->v[0] == b->v[0] && a->v[1] == b->v[1],
				"test01 rows %lld -> %lld", (long long)b->v[0], (long long)a->v[0]);
		return;
	case DATA_TPCC:
		tpcc_checks(conn, b, a, commits, cs);
		return;
	case DATA_PGBENCH:
		break;
	}
	{
		int64_t da = a->v[4] - b->v[4], dt = a->v[5] - b->v[5];
		int64_t db = a->v[6] - b->v[6], dh = a->v[7] - b->v[7];
		int64_t dn = a->v[3] - b->v[3];
		int same_rows = a->v[0] == b->v[0] && a->v[1] == b->v[1] && a->v[2] == b->v[2];
		if (w->read_only) {
			bench_check_add(cs, "row_counts", same_rows && dn == 0,
					"accounts %lld -> %lld, history %lld -> %lld",
					(long long)b->v[0], (long long)a->v[0],
					(long long)b->v[3], (long long)a->v[3]);
			bench_check_add(cs, "balances", da == 0 && dt == 0 && db == 0 && dh == 0,
					"read-only: balance sums changed by %lld/%lld/%lld",
					(long long)da, (long long)dt, (long long)db);
			return;
		}
		bench_check_add(cs, "row_counts", same_rows, "accounts %lld -> %lld, tellers "
				"%lld -> %lld, branches %lld -> %lld",
				(long long)b->v[0], (long long)a->v[0], (long long)b->v[1],
				(long long)a->v[1], (long long)b->v[2], (long long)a->v[2]);
		if (!strcmp(w->name, "tpcb")) {
			bench_check_add(cs, "balances", da == dh && dt == dh && db == dh,
					"change of sum(abalance) %lld, sum(tbalance) %lld, "
					"sum(bbalance) %lld, sum(history.delta) %lld",
					(long long)da, (long long)dt, (long long)db, (long long)dh);
			bench_check_add(cs, "history", dn == commits[0],
					"transactions committed %lld, history rows added %lld",
					(long long)commits[0], (long long)dn);
		} else {
			/* custom scripts: account changes must be recorded in the
			 * history; tellers and branches either untouched or in step */
			bench_check_add(cs, "balances", da == dh && (dt == 0 || dt == dh) &&
					(db == 0 || db == dh),
					"change of sum(abalance) %lld, sum(tbalance) %lld, "
					"sum(bbalance) %lld, sum(history.delta) %lld",
					(long long)da, (long long)dt, (long long)db, (long long)dh);
		}
	}
}
