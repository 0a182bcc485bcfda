/*
 * metric/workloads.c - the table of workloads (workloads.h): each row with
 * its bench script and, beside it, the writer of its single-user script.
 *
 * The two scripts of a row run the same statements: the bench script
 * draws its variables with \set (bench's script language), the single-
 * user writer draws them from the runs' LCG (three draws a transaction:
 * struct single_tx) and writes the statements with the values in place.
 * tests/unit/test-metric-workloads.c holds each writer to its bench
 * script, statement by statement.  A writer's text is a figure: select-
 * only's, tpcb's, select1's and mixed's are the text the single-user
 * metrics have always run (a changed script is a changed figure).
 *
 * The broad suite's rows (WL_BROAD) were written from PostgreSQL's
 * features; their N (single_n) was set from how long one callgrind run of
 * them takes on stock PostgreSQL 15 (instructions per transaction, N = 2:
 * agg-join 140M, bulk-index 24M, json-text 17M, plpgsql 0.70M,
 * select-only-s10 104k, tpcb-s10 694k), so that a measurement takes about
 * as long as mixed's (2.5M x 40); no build was measured against another
 * on them, and nothing about them was picked or tuned by a figure.
 */
#include <stdio.h>
#include <string.h>

#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/workloads.h"
#include "wrapper/common/xalloc.h"

/* ---------------- the scripts ---------------- */

static const char select_only_sql[] =
	"\\set aid random(1, 100000 * :scale)\n"
	"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n";

/* one primary-key read; aid over the row's scale */
static void single_select_only(struct strbuf *sb, const struct single_tx *t)
{
	unsigned long aid = t->r[0] % (100000UL * (unsigned long)t->scale) + 1;
	strbuf_addf(sb, "SELECT abalance FROM pgbench_accounts WHERE aid = %lu;\n", aid);
}

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

/* pgbench's simple-update (-N): TPC-B without the teller and branch
 * updates (bench only) */
static const char simple_update_sql[] =
	"\\set aid random(1, 100000 * :scale)\n"
	"\\set bid random(1, 1 * :scale)\n"
	"\\set tid random(1, 10 * :scale)\n"
	"\\set delta random(-5000, 5000)\n"
	"BEGIN;\n"
	"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
	"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
	"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
	"VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
	"END;\n";

/* TPC-B: the third draw gives delta and (above scale 1) the branch */
static void single_tpcb(struct strbuf *sb, const struct single_tx *t)
{
	unsigned long scale = (unsigned long)t->scale;
	unsigned long aid = t->r[0] % (100000UL * scale) + 1;
	unsigned long tid = t->r[1] % (10UL * scale) + 1;
	unsigned long bid = t->r[2] / 10001 % scale + 1;
	long delta = (long)(t->r[2] % 10001) - 5000;
	strbuf_addstr(sb, "BEGIN;\n");
	strbuf_addf(sb, "UPDATE pgbench_accounts SET abalance = abalance + %ld WHERE aid = %lu;\n", delta, aid);
	strbuf_addf(sb, "SELECT abalance FROM pgbench_accounts WHERE aid = %lu;\n", aid);
	strbuf_addf(sb, "UPDATE pgbench_tellers SET tbalance = tbalance + %ld WHERE tid = %lu;\n", delta, tid);
	strbuf_addf(sb, "UPDATE pgbench_branches SET bbalance = bbalance + %ld WHERE bid = %lu;\n", delta, bid);
	strbuf_addf(sb, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%lu, %lu, %lu, %ld, CURRENT_TIMESTAMP);\n",
		    tid, bid, aid, delta);
	strbuf_addstr(sb, "END;\n");
}

static const char select1_sql[] = "SELECT 1;\n";

static void single_select1(struct strbuf *sb, const struct single_tx *t)
{
	(void)t;
	strbuf_addstr(sb, "SELECT 1;\n");
}

static const char point_select_sql[] =
	"\\set id random(1, 1000000)\n"
	"select * from test01 where id=:id;\n";

/* mixed: a 51-row range, an INSERT with md5() (delta 0: the balances stay
 * in step with the history), a sorted aggregate over the catalog */
static const char mixed_sql[] =
	"\\set aid random(1, 100000 * :scale - 50)\n"
	"\\set tid random(1, 10 * :scale)\n"
	"SELECT count(*), sum(abalance) FROM pgbench_accounts WHERE aid BETWEEN :aid AND :aid + 50;\n"
	"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) "
	"VALUES (:tid, 1, :aid, 0, CURRENT_TIMESTAMP, left(md5(CAST(:aid AS text)), 22));\n"
	"SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class;\n";

static void single_mixed(struct strbuf *sb, const struct single_tx *t)
{
	unsigned long scale = (unsigned long)t->scale;
	unsigned long aid = (t->r[0] % (100000UL * scale) + 1) % (100000UL * scale - 50) + 1;
	unsigned long tid = t->r[1] % (10UL * scale) + 1;
	strbuf_addf(sb, "SELECT count(*), sum(abalance) FROM pgbench_accounts "
		    "WHERE aid BETWEEN %lu AND %lu;\n", aid, aid + 50);
	strbuf_addf(sb, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) "
		    "VALUES (%lu, 1, %lu, 0, CURRENT_TIMESTAMP, left(md5(CAST(%lu AS text)), 22));\n",
		    tid, aid, aid);
	strbuf_addstr(sb, "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class;\n");
}

/* tpcc-lite: New-Order's three item arrays, written out (bench's generator
 * fills :i1..:i15, :s1.., :q1..; NULLs past the order's line count) */
#define TPCC_A(v) "ARRAY[:" v "1::int,:" v "2::int,:" v "3::int,:" v "4::int,:" v "5::int," \
	":" v "6::int,:" v "7::int,:" v "8::int,:" v "9::int,:" v "10::int,:" v "11::int," \
	":" v "12::int,:" v "13::int,:" v "14::int,:" v "15::int]"
#define TPCC_UNNEST "unnest(" TPCC_A("i") ", " TPCC_A("s") ", " TPCC_A("q") ")"

static const char tpcc_new_order_sql[] =
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
	"(SELECT x.s, x.i FROM " TPCC_UNNEST " AS x(i, s, q) WHERE x.i IS NOT NULL) "
	"ORDER BY s_w_id, s_i_id FOR UPDATE) AS locked;\n"
	"UPDATE tpcc_stock SET s_quantity = CASE WHEN s_quantity >= x.q + 10 "
	"THEN s_quantity - x.q ELSE s_quantity - x.q + 91 END, "
	"s_ytd = s_ytd + x.q, s_order_cnt = s_order_cnt + 1, "
	"s_remote_cnt = s_remote_cnt + (x.s <> :w_id)::int "
	"FROM " TPCC_UNNEST " AS x(i, s, q) WHERE x.i IS NOT NULL AND s_i_id = x.i AND s_w_id = x.s;\n"
	"INSERT INTO tpcc_order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
	"ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) "
	"SELECT :o_id, :d_id, :w_id, x.n, x.i, x.s, x.q, x.q * i_price, 'dist-info' "
	"FROM " TPCC_UNNEST " WITH ORDINALITY AS x(i, s, q, n) JOIN tpcc_item ON i_id = x.i "
	"WHERE x.i IS NOT NULL;\n"
	"COMMIT;\n";

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

/* agg-join: revenue by region and segment over a 30-day window of orders
 * (hash joins of four tables, grouping, a sort), the top customers of a
 * region in it (window functions over an aggregate), and per part type
 * the median quantity, average price and distinct orders of 501 orders'
 * line items (ordered-set aggregate, DISTINCT) */
#define AJ_WINDOW(d) "o.o_date >= DATE '2020-01-01' + CAST(" d " AS int) AND " \
	"o.o_date < DATE '2020-01-01' + CAST(" d " AS int) + 30"
#define AJ_1(d) "SELECT r.r_name, c.c_segment, count(*) AS lines, " \
	"sum(l.l_price * (1 - l.l_disc)) AS revenue FROM an_orders o " \
	"JOIN an_customer c ON c.c_id = o.o_cust JOIN an_region r ON r.r_id = c.c_region " \
	"JOIN an_lineitem l ON l.l_order = o.o_id WHERE " AJ_WINDOW(d) " " \
	"GROUP BY r.r_name, c.c_segment ORDER BY revenue DESC, 1, 2;\n"
#define AJ_2(r, d) "SELECT c_id, spend, rank() OVER w, sum(spend) OVER w FROM " \
	"(SELECT o.o_cust AS c_id, sum(l.l_price) AS spend FROM an_orders o " \
	"JOIN an_customer c ON c.c_id = o.o_cust JOIN an_lineitem l ON l.l_order = o.o_id " \
	"WHERE c.c_region = CAST(" r " AS int) AND " AJ_WINDOW(d) " GROUP BY o.o_cust) s " \
	"WINDOW w AS (ORDER BY spend DESC, c_id) ORDER BY spend DESC, c_id LIMIT 20;\n"
#define AJ_3(o) "SELECT p.p_type, percentile_cont(0.5) WITHIN GROUP (ORDER BY l.l_qty) AS median_qty, " \
	"avg(l.l_price) AS avg_price, count(DISTINCT l.l_order) AS orders FROM an_lineitem l " \
	"JOIN an_part p ON p.p_id = l.l_part WHERE l.l_order BETWEEN CAST(" o " AS int) AND " \
	"CAST(" o " AS int) + 500 GROUP BY p.p_type ORDER BY median_qty DESC, p.p_type;\n"

static const char agg_join_sql[] =
	"\\set d random(0, 1430)\n"
	"\\set r random(1, 5)\n"
	"\\set o random(1, 30000 * :scale - 500)\n"
	AJ_1(":d") AJ_2(":r", ":d") AJ_3(":o");

static void single_agg_join(struct strbuf *sb, const struct single_tx *t)
{
	char d[24], r[24], o[24];
	snprintf(d, sizeof(d), "%lu", t->r[0] % 1431);
	snprintf(r, sizeof(r), "%lu", t->r[1] % 5 + 1);
	snprintf(o, sizeof(o), "%lu", t->r[2] % (30000UL * (unsigned long)t->scale - 500) + 1);
	strbuf_addf(sb, AJ_1("%s") AJ_2("%s", "%s") AJ_3("%s"), d, d, r, d, d, o, o);
}

/* bulk-index: one bulk load with its index builds (bulk_round, datasets.c) */
static const char bulk_index_sql[] =
	"\\set lo random(1, 100000)\n"
	"\\set g random(0, 93)\n"
	"SELECT bulk_round(CAST(:lo AS int), CAST(:g AS int));\n";

static void single_bulk_index(struct strbuf *sb, const struct single_tx *t)
{
	strbuf_addf(sb, "SELECT bulk_round(CAST(%lu AS int), CAST(%lu AS int));\n",
		    t->r[0] % 100000 + 1, t->r[1] % 94);
}

/* json-text: jsonb containment on a GIN index, three-word full-text search
 * ranked, a jsonpath filter over 201 documents, a headline, and a view
 * counted into the document's jsonb (GIN maintenance), in one transaction */
#define JT_1(t) "SELECT count(*), sum((body->>'price')::int) FROM docs WHERE body @> " \
	"jsonb_build_object('tags', jsonb_build_array('t' || CAST(" t " AS int)));\n"
#define JT_2(a, b, c) "SELECT d.id, ts_rank(d.tsv, q.q) AS rank FROM docs d, " \
	"(SELECT to_tsquery('english', a.w || ' & ' || b.w || ' & ' || c.w) AS q " \
	"FROM docs_words a, docs_words b, docs_words c WHERE a.n = CAST(" a " AS int) AND " \
	"b.n = CAST(" b " AS int) AND c.n = CAST(" c " AS int)) q WHERE d.tsv @@ q.q " \
	"ORDER BY rank DESC, d.id LIMIT 10;\n"
#define JT_3(id, s) "SELECT count(*) FROM docs WHERE id BETWEEN CAST(" id " AS int) AND " \
	"CAST(" id " AS int) + 200 AND jsonb_path_exists(body, " \
	"'$.attrs ? (@.size > $s && @.color == \"red\")', jsonb_build_object('s', CAST(" s " AS int)));\n"
#define JT_4(id, a) "SELECT ts_headline('english', d.words, to_tsquery('english', w.w), " \
	"'MaxWords=8, MinWords=3') FROM docs d, docs_words w WHERE d.id = CAST(" id " AS int) " \
	"AND w.n = CAST(" a " AS int);\n"
#define JT_5(id) "UPDATE docs SET views = views + 1, body = jsonb_set(body, '{views}', " \
	"to_jsonb(views + 1)) WHERE id = CAST(" id " AS int);\n"

static const char json_text_sql[] =
	"\\set t random(0, 399)\n"
	"\\set a random(1, 64)\n"
	"\\set b random(1, 64)\n"
	"\\set c random(1, 64)\n"
	"\\set id random(1, 20000 * :scale - 200)\n"
	"\\set s random(1, 9)\n"
	"BEGIN;\n"
	JT_1(":t") JT_2(":a", ":b", ":c") JT_3(":id", ":s") JT_4(":id", ":a") JT_5(":id")
	"COMMIT;\n";

/* six variables from three draws: each draw split into two */
static void single_json_text(struct strbuf *sb, const struct single_tx *t)
{
	char tg[24], a[24], b[24], c[24], id[24], s[24];
	snprintf(tg, sizeof(tg), "%lu", t->r[0] % 400);
	snprintf(a, sizeof(a), "%lu", t->r[0] / 400 % 64 + 1);
	snprintf(b, sizeof(b), "%lu", t->r[1] % 64 + 1);
	snprintf(c, sizeof(c), "%lu", t->r[1] / 64 % 64 + 1);
	snprintf(id, sizeof(id), "%lu", t->r[2] % (20000UL * (unsigned long)t->scale - 200) + 1);
	snprintf(s, sizeof(s), "%lu", t->r[2] / 20000 % 9 + 1);
	strbuf_addstr(sb, "BEGIN;\n");
	strbuf_addf(sb, JT_1("%s") JT_2("%s", "%s", "%s") JT_3("%s", "%s") JT_4("%s", "%s") JT_5("%s"),
		    tg, a, b, c, id, id, s, id, a, id);
	strbuf_addstr(sb, "COMMIT;\n");
}

/* plpgsql: one call of pl_transfer (datasets.c); amounts up to 1500 on
 * balances of 1000, so the overdraft exception is taken too */
static const char plpgsql_sql[] =
	"\\set a random(1, 10000 * :scale)\n"
	"\\set b random(1, 10000 * :scale)\n"
	"\\set m random(1, 1500)\n"
	"SELECT pl_transfer(CAST(:a AS int), CAST(:b AS int), CAST(:m AS int));\n";

static void single_plpgsql(struct strbuf *sb, const struct single_tx *t)
{
	unsigned long n = 10000UL * (unsigned long)t->scale;
	strbuf_addf(sb, "SELECT pl_transfer(CAST(%lu AS int), CAST(%lu AS int), CAST(%lu AS int));\n",
		    t->r[0] % n + 1, t->r[1] % n + 1, t->r[2] % 1500 + 1);
}

/* ---------------- the rows ---------------- */

#define ONE(name, text) { { name, 1, text }, { NULL, 0, NULL } }

/* What was chosen on the workloads defaults were measured on (examples/
 * RESULTS.md has every run; the commits that set the defaults say why). */
#define CHOSEN_LEVERS "the no-pie lever of coscup-no-pie.policy (optimize's lto policy in the " \
	"recorded runs), BOLT's default layout flags (three sets, -plt=hot and -hugify measured " \
	"and dropped), -march=x86-64-v3 (dropped), the clang stages of optimize's default " \
	"--stages and its default --train regress were each judged on it"

const struct workload_row workloads[] = {
	{ "select-only", "one primary-key SELECT on pgbench_accounts", WK_OLTP,
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_TRAIN | WL_DEFAULT | WL_CHOSEN, "pgbench", 0,
	  ONE("select-only", select_only_sql), NULL, WLC_PGBENCH_READ,
	  single_select_only, 1, 200,
	  "gate's default -W; pgo's and bolt's default --train; tune's default --train and its "
	  "candidate list (examples/tune-candidates.txt, what tune found for select-only); the "
	  "metrics' repeat resolution (its A/A spread); " CHOSEN_LEVERS, NULL },
	{ "tpcb", "pgbench's TPC-B-like transaction", WK_OLTP,
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_TRAIN | WL_CHOSEN, "pgbench", 0,
	  ONE("tpcb", tpcb_sql), NULL, WLC_TPCB,
	  single_tpcb, 7, 40,
	  "pgo's and bolt's default --train (with select-only); " CHOSEN_LEVERS, NULL },
	{ "select1", "SELECT 1: the protocol and executor, no table", WK_PROTOCOL,
	  WL_BENCH | WL_BUILTIN | WL_SINGLE, "none", 0,
	  ONE("select1", select1_sql), NULL, 0,
	  single_select1, 1, 400, NULL,
	  "its default N (400) was set by the cycles metric's A/A spread on it, not a choice of "
	  "build" },
	{ "point-select", "a point SELECT by id on test01", WK_OLTP,
	  WL_BENCH | WL_BUILTIN, "test01", 0,
	  ONE("point-select", point_select_sql), NULL, WLC_UNCHANGED,
	  NULL, 0, 0, NULL, NULL },
	{ "tpcc-lite", "New-Order and Payment of a reduced TPC-C", WK_OLTP,
	  WL_BENCH | WL_BUILTIN, "tpcc", 0,
	  { { "new-order", 45, tpcc_new_order_sql }, { "payment", 43, tpcc_payment_sql } },
	  "tpcc", WLC_TPCC,
	  NULL, 0, 0, NULL, NULL },
	/* a sort of the catalog per transaction: 400 in the long run */
	{ "mixed", "range read, insert with md5(), catalog sort", WK_OLTP,
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_HELDOUT | WL_CHOSEN, "pgbench", 0,
	  ONE("mixed", mixed_sql), NULL, WLC_PGBENCH_STEP,
	  single_mixed, 3, 40,
	  "optimize's default --train regress (PGO trained on the suite kept its gain on mixed, "
	  "trained on select-only and tpcb it did not); " CHOSEN_LEVERS,
	  "optimize's and tune's default held-out workload since before these choices: figures "
	  "on it are selection-biased now" },
	{ "agg-join", "aggregation over joins, window functions, sorts",
	  WK_ANALYTIC, WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_BROAD, "analytic", 0,
	  ONE("agg-join", agg_join_sql), NULL, WLC_UNCHANGED,
	  single_agg_join, 3, 2, NULL, NULL },
	{ "bulk-index", "INSERT ... SELECT of 1000 rows, 2 index builds",
	  WK_BULK, WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_BROAD, "bulk", 0,
	  ONE("bulk-index", bulk_index_sql), NULL, WLC_COUNTED,
	  single_bulk_index, 1, 10, NULL,
	  "the load goes into a temporary table (per session: no WAL, clients never wait on "
	  "each other); one row a transaction into a logged table" },
	{ "json-text", "jsonb containment and paths, full-text search",
	  WK_TEXT, WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_BROAD, "docs", 0,
	  ONE("json-text", json_text_sql), NULL, WLC_COUNTED,
	  single_json_text, 7, 10, NULL, NULL },
	{ "plpgsql", "PL/pgSQL: loops, an exception block, dynamic SQL",
	  WK_PLPGSQL, WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_BROAD, "plpgsql", 0,
	  ONE("plpgsql", plpgsql_sql), NULL, WLC_UNCHANGED,
	  single_plpgsql, 1, 100, NULL, NULL },
	{ "select-only-s10", "select-only at scale 10: beyond the LL cache", WK_OLTP,
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_BROAD, "pgbench", 10,
	  ONE("select-only-s10", select_only_sql), NULL, WLC_PGBENCH_READ,
	  single_select_only, 1, 200, NULL,
	  "select-only's statements, on which defaults were chosen at scale 1; nothing was "
	  "chosen at this size" },
	{ "tpcb-s10", "tpcb at scale 10: beyond the LL cache", WK_OLTP,
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_BROAD, "pgbench", 10,
	  ONE("tpcb-s10", tpcb_sql), NULL, WLC_TPCB,
	  single_tpcb, 7, 40, NULL,
	  "tpcb's statements, on which defaults were chosen at scale 1; nothing was chosen at "
	  "this size" },
	{ "select-only-s100", "select-only at scale 100 (bench only)",
	  WK_OLTP, WL_BENCH | WL_BUILTIN | WL_BROAD, "pgbench", 100,
	  ONE("select-only-s100", select_only_sql), NULL, WLC_PGBENCH_READ,
	  NULL, 0, 0, NULL,
	  "bench only: its single-user template would be 1.5 GB per install and metric; "
	  "select-only-s10 is its single-user size" },
	{ "tpcb-s100", "tpcb at scale 100 (bench only)",
	  WK_OLTP, WL_BENCH | WL_BUILTIN | WL_BROAD, "pgbench", 100,
	  ONE("tpcb-s100", tpcb_sql), NULL, WLC_TPCB,
	  NULL, 0, 0, NULL,
	  "bench only: its single-user template would be 1.5 GB per install and metric; "
	  "tpcb-s10 is its single-user size" },
	{ "simple-update", "pgbench's -N: tpcb without teller/branch updates",
	  WK_OLTP, WL_BENCH | WL_BUILTIN, "pgbench", 0,
	  ONE("simple-update", simple_update_sql), NULL, WLC_PGBENCH_STEP,
	  NULL, 0, 0, NULL, "bench only: pgbench's built-in of that name (pgbench -N)" },
	{ "sql", "a script in pgbench's subset (-f FILE, sql:FILE)", WK_SCRIPT,
	  WL_BENCH, NULL, 0,
	  { { NULL, 0, NULL } }, NULL, 0,
	  NULL, 0, 0, NULL,
	  "the pgbench tables when the script names pgbench_ tables, else none" },
	{ "regress", "PostgreSQL's core regression suite (installcheck): training only", WK_SUITE,
	  WL_SUITE, NULL, 0,
	  { { NULL, 0, NULL } }, NULL, 0,
	  NULL, 0, 0, NULL, NULL },
	{ NULL, NULL, 0, 0, NULL, 0, { { NULL, 0, NULL } }, NULL, 0, NULL, 0, 0, NULL, NULL },
};

/* ---------------- lookups ---------------- */

const struct workload_row *workloads_find(const char *name)
{
	for (const struct workload_row *w = workloads; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

int workloads_has(const char *name, unsigned flags)
{
	const struct workload_row *w = workloads_find(name);
	return w && (w->flags & flags) == flags;
}

#define WL_NBITS 9

const char *const *workloads_names(unsigned flags)
{
	static const char **cache[1u << WL_NBITS];
	size_t n = 0;

	flags &= (1u << WL_NBITS) - 1;
	if (cache[flags])
		return cache[flags];
	cache[flags] = xcalloc(sizeof(workloads) / sizeof(workloads[0]), sizeof(char *));
	for (const struct workload_row *w = workloads; w->name; w++)
		if ((w->flags & flags) == flags)
			cache[flags][n++] = w->name;
	return cache[flags];
}

const char *workloads_list(unsigned flags)
{
	static char *cache[1u << WL_NBITS];
	struct strbuf sb = STRBUF_INIT;

	flags &= (1u << WL_NBITS) - 1;
	if (cache[flags])
		return cache[flags];
	for (const char *const *n = workloads_names(flags); *n; n++)
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", *n);
	cache[flags] = strbuf_detach(&sb, NULL);
	return cache[flags];
}

void workloads_push(struct strvec *sv, unsigned flags)
{
	for (const char *const *n = workloads_names(flags); *n; n++)
		strvec_push(sv, *n);
}

const char *workloads_kind_name(enum workload_kind k)
{
	static const char *const names[WK_NKINDS] = {
		[WK_OLTP] = "oltp", [WK_PROTOCOL] = "protocol", [WK_ANALYTIC] = "analytic",
		[WK_BULK] = "bulk", [WK_TEXT] = "json-text", [WK_PLPGSQL] = "plpgsql",
		[WK_SCRIPT] = "script", [WK_SUITE] = "suite",
	};
	return (unsigned)k < WK_NKINDS ? names[k] : "?";
}

const struct workload_data *workloads_data(const char *name)
{
	for (const struct workload_data *d = workload_datasets; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

long workloads_scale(const struct workload_row *w, long asked)
{
	if (w->scale)
		return asked && asked != w->scale ? -1 : w->scale;
	return asked ? asked : 1;
}

void workloads_expand(struct strbuf *sb, const char *text, long scale)
{
	static const char key[] = ":scale";
	const char *p;
	while ((p = strstr(text, key))) {
		strbuf_add(sb, text, (size_t)(p - text));
		strbuf_addf(sb, "%ld", scale);
		text = p + sizeof(key) - 1;
	}
	strbuf_addstr(sb, text);
}

/* ---------------- roles and sizes ---------------- */

/* A note per row, built once (the table is constant): a cache of one
 * slot per row. */
static const char **note_slots(const char ***cache)
{
	if (!*cache)
		*cache = xcalloc(sizeof(workloads) / sizeof(workloads[0]), sizeof(char *));
	return *cache;
}

const char *workloads_role_note(const char *name)
{
	static const char **cache;
	const struct workload_row *w = workloads_find(name);
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!w)
		return NULL;
	note_slots(&cache);
	i = (size_t)(w - workloads);
	if (cache[i])
		return cache[i];
	if (w->flags & WL_BROAD)
		strbuf_addstr(&sb, "held out: nothing was chosen on it (the broad suite)");
	if (w->flags & WL_TRAIN)
		strbuf_addstr(&sb, "a default training workload (pgo, bolt)");
	if (w->flags & WL_CHOSEN)
		strbuf_addf(&sb, "%sused to choose: %s", sb.len ? "; " : "", w->chosen);
	if (!sb.len)
		strbuf_addstr(&sb, w->flags & WL_SUITE ? "a training workload only" :
			      "nothing recorded as chosen on it; not part of the broad suite");
	cache[i] = strbuf_detach(&sb, NULL);
	return cache[i];
}

const char *workloads_size_note(const char *name)
{
	static const char **cache;
	const struct workload_row *w = workloads_find(name);
	const struct workload_data *d;
	struct strbuf sb = STRBUF_INIT;
	double mb;
	long scale;
	size_t i;

	if (!w || !w->data || !(d = workloads_data(w->data)) || !d->tables)
		return NULL;
	note_slots(&cache);
	i = (size_t)(w - workloads);
	if (cache[i])
		return cache[i];
	scale = d->scale_sql ? workloads_scale(w, 0) : 0;
	mb = d->mb * (scale ? (double)scale : 1);
	strbuf_addf(&sb, "about %.0f MB", mb);
	if (scale)
		strbuf_addf(&sb, " at scale %ld%s", scale, w->scale ? "" : " (--scale)");
	strbuf_addf(&sb, ": %s the cost model's %d MiB LL", mb > CYCLES_LL_MIB ? "beyond" : "inside",
		    CYCLES_LL_MIB);
	cache[i] = strbuf_detach(&sb, NULL);
	return cache[i];
}
