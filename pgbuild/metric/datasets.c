/*
 * metric/datasets.c - the data sets the workloads run on, one row each
 * (workloads.h: struct workload_data): the only place their tables,
 * rows, keys and check figures are written.  bench loads a row on its
 * private cluster (bench/loader.c), the single-user metrics into their
 * template data directory (single.c), with the same statements: one per
 * line, ":scale" replaced.
 *
 * The sizes (mb) are the tables' and indexes' at scale 1 (or the one size
 * of an unscaled set), measured once on PostgreSQL 15 with
 * pg_total_relation_size after a load (pgbench's at scale 100, divided):
 * what the cache sizes of the cycles metric are set against
 * (workloads_size_note).
 */
#include <string.h>

#include "pgbuild/metric/workloads.h"

/* pgbench's tables, as `pgbench -i` makes them (its keys inline: the
 * single-user template has always been made so), filled on the server
 * like `pgbench -I G`: 1 branch, 10 tellers, 100000 accounts per scale
 * unit, balances 0, an empty history.  Snapshot: 0 accounts 1 tellers
 * 2 branches 3 history rows; sums 4 abalance 5 tbalance 6 bbalance
 * 7 history delta. */
static const char pgbench_ddl[] =
	"CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88)) WITH (fillfactor=100);\n"
	"CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84)) WITH (fillfactor=100);\n"
	"CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84)) WITH (fillfactor=100);\n"
	"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));\n";

static const char pgbench_fill[] =
	"INSERT INTO pgbench_branches SELECT g, 0, NULL FROM generate_series(1, :scale) g;\n"
	"INSERT INTO pgbench_tellers SELECT g, (g - 1) / 10 + 1, 0, NULL FROM generate_series(1, 10 * :scale) g;\n"
	"INSERT INTO pgbench_accounts SELECT g, (g - 1) / 100000 + 1, 0, '' FROM generate_series(1, 100000 * :scale) g;\n";

static const char pgbench_snapshot[] =
	"SELECT (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_tellers),"
	" (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_history),"
	" (SELECT sum(abalance::bigint) FROM pgbench_accounts),"
	" (SELECT sum(tbalance::bigint) FROM pgbench_tellers),"
	" (SELECT sum(bbalance::bigint) FROM pgbench_branches),"
	" (SELECT sum(delta::bigint) FROM pgbench_history)";

/* TPC-C's tables for --scale warehouses, filled by bench/loader.c's
 * generator (TPC-C's distributions: no SQL of its own): 100000 items, per
 * warehouse 10 districts, 30000 customers, 100000 stock rows; orders start
 * empty.  Snapshot: 0 orders 1 new_order 2 order_line 3 history
 * 4 customers 5 stock 6 items 7 sum w_ytd 8 sum h_amount. */
static const char tpcc_ddl[] =
	"CREATE TABLE tpcc_warehouse (w_id int, w_name text, w_tax int, w_ytd bigint);\n"
	"CREATE TABLE tpcc_district (d_id int, d_w_id int, d_name text, d_tax int, "
	"d_ytd bigint, d_next_o_id int);\n"
	"CREATE TABLE tpcc_customer (c_id int, c_d_id int, c_w_id int, c_last text, "
	"c_credit char(2), c_discount int, c_balance bigint, c_ytd_payment bigint, "
	"c_payment_cnt int, c_delivery_cnt int, c_data text);\n"
	"CREATE TABLE tpcc_history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, "
	"h_w_id int, h_date timestamp, h_amount bigint, h_data text);\n"
	"CREATE TABLE tpcc_item (i_id int, i_im_id int, i_name text, i_price int, i_data text);\n"
	"CREATE TABLE tpcc_stock (s_i_id int, s_w_id int, s_quantity int, s_ytd bigint, "
	"s_order_cnt int, s_remote_cnt int, s_dist_info char(24));\n"
	"CREATE TABLE tpcc_orders (o_id int, o_d_id int, o_w_id int, o_c_id int, "
	"o_entry_d timestamp, o_carrier_id int, o_ol_cnt int, o_all_local int);\n"
	"CREATE TABLE tpcc_new_order (no_o_id int, no_d_id int, no_w_id int);\n"
	"CREATE TABLE tpcc_order_line (ol_o_id int, ol_d_id int, ol_w_id int, ol_number int, "
	"ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp, ol_quantity int, "
	"ol_amount bigint, ol_dist_info char(24));\n";

static const char tpcc_keys[] =
	"ALTER TABLE tpcc_warehouse ADD PRIMARY KEY (w_id);\n"
	"ALTER TABLE tpcc_district ADD PRIMARY KEY (d_w_id, d_id);\n"
	"ALTER TABLE tpcc_customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);\n"
	"ALTER TABLE tpcc_item ADD PRIMARY KEY (i_id);\n"
	"ALTER TABLE tpcc_stock ADD PRIMARY KEY (s_w_id, s_i_id);\n"
	"ALTER TABLE tpcc_orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);\n"
	"ALTER TABLE tpcc_new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);\n"
	"ALTER TABLE tpcc_order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);\n";

static const char tpcc_snapshot[] =
	"SELECT (SELECT count(*) FROM tpcc_orders), (SELECT count(*) FROM tpcc_new_order),"
	" (SELECT count(*) FROM tpcc_order_line), (SELECT count(*) FROM tpcc_history),"
	" (SELECT count(*) FROM tpcc_customer), (SELECT count(*) FROM tpcc_stock),"
	" (SELECT count(*) FROM tpcc_item), (SELECT sum(w_ytd) FROM tpcc_warehouse),"
	" (SELECT sum(h_amount) FROM tpcc_history)";

/* A small star schema for analytic queries (agg-join), TPC-H-like in
 * shape, its values from arithmetic on the row numbers (no random(): the
 * same rows everywhere): 5 regions, 2000 parts, per scale unit 3000
 * customers, 30000 orders over four years and 4 line items each. */
static const char analytic_ddl[] =
	"CREATE TABLE an_region (r_id int PRIMARY KEY, r_name text NOT NULL);\n"
	"CREATE TABLE an_customer (c_id int PRIMARY KEY, c_region int NOT NULL, c_segment text NOT NULL);\n"
	"CREATE TABLE an_part (p_id int PRIMARY KEY, p_type text NOT NULL, p_price numeric(10,2) NOT NULL);\n"
	"CREATE TABLE an_orders (o_id int PRIMARY KEY, o_cust int NOT NULL, o_date date NOT NULL, o_status char(1) NOT NULL);\n"
	"CREATE TABLE an_lineitem (l_order int NOT NULL, l_line int NOT NULL, l_part int NOT NULL, l_qty int NOT NULL, "
	"l_price numeric(12,2) NOT NULL, l_disc numeric(3,2) NOT NULL, PRIMARY KEY (l_order, l_line));\n";

static const char analytic_fill[] =
	"INSERT INTO an_region SELECT g, (ARRAY['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'])[g] "
	"FROM generate_series(1, 5) g;\n"
	"INSERT INTO an_customer SELECT g, 1 + g * 7 % 5, (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', "
	"'HOUSEHOLD', 'MACHINERY'])[1 + g * 13 % 5] FROM generate_series(1, 3000 * :scale) g;\n"
	"INSERT INTO an_part SELECT g, (ARRAY['BRASS', 'COPPER', 'NICKEL', 'STEEL', 'TIN'])[1 + g % 5] || ' ' || "
	"(ARRAY['ANODIZED', 'BRUSHED', 'BURNISHED', 'PLATED', 'POLISHED'])[1 + g / 5 % 5], 1 + g * 37 % 1000 / 10.0 "
	"FROM generate_series(1, 2000) g;\n"
	"INSERT INTO an_orders SELECT g, 1 + g * 7919 % (3000 * :scale), DATE '2020-01-01' + g * 31 % 1461, "
	"(ARRAY['F', 'O', 'P'])[1 + g % 3] FROM generate_series(1, 30000 * :scale) g;\n"
	"INSERT INTO an_lineitem SELECT o, l, p_id, 1 + (o + l * 7) % 50, (1 + (o + l * 7) % 50) * p_price, "
	"(o + l) % 11 / 100.0 FROM generate_series(1, 30000 * :scale) o CROSS JOIN generate_series(1, 4) l "
	"JOIN an_part ON p_id = 1 + (o * 17 + l * 101) % 2000;\n";

static const char analytic_keys[] =
	"CREATE INDEX an_orders_date ON an_orders (o_date);\n"
	"CREATE INDEX an_orders_cust ON an_orders (o_cust);\n";

/* Documents for jsonb and full-text search (json-text): per scale unit
 * 20000 documents, each a jsonb body (title, two of 400 tags, a price,
 * attributes) and 16 words of a 64-word vocabulary (picked by md5 of the
 * document and position: the same everywhere), with a stored tsvector;
 * GIN indexes on both. */
static const char docs_ddl[] =
	"CREATE TABLE docs_words (n int PRIMARY KEY, w text NOT NULL);\n"
	"CREATE TABLE docs (id int PRIMARY KEY, body jsonb NOT NULL, words text NOT NULL, "
	"tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', words)) STORED, views int NOT NULL);\n";

static const char docs_fill[] =
	"INSERT INTO docs_words SELECT n, w FROM unnest(ARRAY['account', 'balance', 'branch', 'buffer', "
	"'cache', 'catalog', 'checkpoint', 'column', 'commit', 'cursor', 'database', 'deadlock', 'driver', "
	"'engine', 'extension', 'fetch', 'filter', 'function', 'garbage', 'hashing', 'heap', 'index', "
	"'insert', 'join', 'journal', 'kernel', 'latch', 'ledger', 'lock', 'logging', 'memory', 'merge', "
	"'network', 'number', 'optimizer', 'packet', 'page', 'parser', 'planner', 'pointer', 'process', "
	"'query', 'record', 'replica', 'rollback', 'schema', 'segment', 'sequence', 'server', 'session', "
	"'snapshot', 'sorting', 'statement', 'storage', 'subquery', 'table', 'teller', 'thread', "
	"'timestamp', 'transaction', 'trigger', 'tuple', 'vacuum', 'window']) WITH ORDINALITY AS u(w, n);\n"
	"INSERT INTO docs (id, body, words, views) SELECT g, jsonb_build_object('title', 'document ' || g, "
	"'tags', jsonb_build_array('t' || g % 400, 't' || g * 7 % 400), 'price', g * 37 % 1000, 'attrs', "
	"jsonb_build_object('color', (ARRAY['red', 'green', 'blue', 'black', 'white'])[1 + g % 5], "
	"'size', 1 + g % 9)), (SELECT string_agg(w.w, ' ' ORDER BY k) FROM generate_series(1, 16) k "
	"JOIN docs_words w ON w.n = 1 + get_byte(decode(md5(g || '/' || k), 'hex'), 0) % 64), 0 "
	"FROM generate_series(1, 20000 * :scale) g;\n";

static const char docs_keys[] =
	"CREATE INDEX docs_body ON docs USING gin (body jsonb_path_ops);\n"
	"CREATE INDEX docs_tsv ON docs USING gin (tsv);\n";

/* Accounts moved between by a PL/pgSQL function (plpgsql): per scale unit
 * 10000 accounts of balance 1000.  pl_transfer(src, dst, amount) reads ten
 * accounts in a loop, runs arithmetic and string loops, moves amount from
 * src to dst in a block whose overdraft exception rolls the move back
 * (a subtransaction), and counts accounts with dynamic SQL (format, EXECUTE
 * ... USING).  Money is only moved: the sum of balances never changes. */
static const char plpgsql_ddl[] =
	"CREATE TABLE pl_accounts (id int PRIMARY KEY, balance bigint NOT NULL, ops int NOT NULL);\n"
	"CREATE OR REPLACE FUNCTION pl_transfer(src int, dst int, amount int) RETURNS int LANGUAGE plpgsql AS $$ "
	"DECLARE total bigint := 0; r record; i int; n int; s text := ''; q text; "
	"BEGIN "
	"IF src = dst THEN RETURN 0; END IF; "
	"FOR r IN SELECT id, balance FROM pl_accounts WHERE id BETWEEN src AND src + 9 ORDER BY id LOOP "
	"total := total + r.balance % 97; END LOOP; "
	"FOR i IN 1 .. 40 LOOP total := total + (i * amount) % 13; "
	"IF i % 5 = 0 THEN total := total - 1; ELSIF i % 7 = 0 THEN s := s || chr(65 + (i * amount) % 26); "
	"END IF; END LOOP; "
	"total := total + length(s) + position('Q' IN s); "
	"BEGIN "
	"UPDATE pl_accounts SET balance = balance + CASE WHEN id = src THEN -amount ELSE amount END, "
	"ops = ops + 1 WHERE id IN (src, dst); "
	"IF (SELECT balance FROM pl_accounts WHERE id = src) < 0 THEN "
	"RAISE EXCEPTION 'overdraft on account %', src; END IF; "
	"EXCEPTION WHEN raise_exception THEN total := -total; "
	"END; "
	"q := format('SELECT count(*) FROM %I WHERE id BETWEEN $1 AND $2 AND balance > $3', 'pl_accounts'); "
	"EXECUTE q INTO n USING dst, dst + 20, 500; "
	"RETURN n + (total % 1000)::int; "
	"END $$;\n";

static const char plpgsql_fill[] =
	"INSERT INTO pl_accounts SELECT g, 1000, 0 FROM generate_series(1, 10000 * :scale) g;\n";

/* A log the bulk loads append to (bulk-index): the load itself goes into
 * a temporary table made per transaction by bulk_round(lo, g) (a function:
 * bench prepares its statements when a client connects, before any
 * temporary table exists): 1000 rows by INSERT ... SELECT, a B-tree and a
 * unique index built on them, ANALYZE, a grouped count, one row into the
 * log. */
static const char bulk_ddl[] =
	"CREATE TABLE bulk_log (batch int NOT NULL, rows bigint NOT NULL, keysum bigint NOT NULL);\n"
	"CREATE OR REPLACE FUNCTION bulk_round(lo int, g int) RETURNS bigint LANGUAGE plpgsql AS $$ "
	"DECLARE n bigint; "
	"BEGIN "
	"CREATE TEMP TABLE bulk_batch (k int NOT NULL, grp int NOT NULL, pad text NOT NULL) ON COMMIT DROP; "
	"INSERT INTO bulk_batch SELECT s, s * 7919 % 97, md5(CAST(s AS text)) FROM generate_series(lo, lo + 999) s; "
	"CREATE INDEX bulk_batch_grp ON bulk_batch (grp, k); "
	"CREATE UNIQUE INDEX bulk_batch_k ON bulk_batch (k); "
	"ANALYZE bulk_batch; "
	"SELECT count(*) INTO n FROM bulk_batch WHERE grp BETWEEN g AND g + 3; "
	"INSERT INTO bulk_log SELECT lo, count(*), sum(k) FROM bulk_batch; "
	"RETURN n; "
	"END $$;\n";

const struct workload_data workload_datasets[] = {
	{ "none", "no tables", NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
	{ "pgbench", "pgbench's tables (pgbench -i -s SCALE)",
	  "pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
	  pgbench_ddl, pgbench_fill, 0, NULL, "SELECT count(*) FROM pgbench_branches",
	  pgbench_snapshot, "accounts,tellers,branches,history rows,sum(abalance),sum(tbalance),"
	  "sum(bbalance),sum(delta)", 15.7 },
	{ "test01", "test01(id int primary key, info text, crt_time timestamp), 1M rows",
	  "test01", "CREATE TABLE test01 (id int, info text, crt_time timestamp);\n", NULL, 1,
	  "ALTER TABLE test01 ADD PRIMARY KEY (id);\n", NULL,
	  "SELECT count(*), sum(id::bigint) FROM test01", "test01 rows,sum(id)", 99 },
	{ "tpcc", "TPC-C's tables, --scale warehouses",
	  "tpcc_warehouse, tpcc_district, tpcc_customer, tpcc_history, tpcc_item, tpcc_stock, "
	  "tpcc_orders, tpcc_new_order, tpcc_order_line",
	  tpcc_ddl, NULL, 1, tpcc_keys, "SELECT count(*) FROM tpcc_warehouse", tpcc_snapshot,
	  "orders,new orders,order lines,history rows,customers,stock,items,sum(w_ytd),sum(h_amount)",
	  25 },
	{ "analytic", "regions, customers, parts, orders and line items (agg-join)",
	  "an_region, an_customer, an_part, an_orders, an_lineitem",
	  analytic_ddl, analytic_fill, 0, analytic_keys, "SELECT count(*) / 3000 FROM an_customer",
	  "SELECT (SELECT count(*) FROM an_lineitem), (SELECT count(*) FROM an_orders),"
	  " (SELECT sum(l_price * 100)::bigint FROM an_lineitem)",
	  "line items,orders,sum(l_price) in cents", 14.5 },
	{ "docs", "jsonb documents with words and a tsvector, GIN-indexed (json-text)",
	  "docs_words, docs", docs_ddl, docs_fill, 0, docs_keys, "SELECT count(*) / 20000 FROM docs",
	  "SELECT (SELECT sum(views) FROM docs), (SELECT count(*) FROM docs)",
	  "sum(views),documents", 13.7 },
	{ "plpgsql", "accounts and the PL/pgSQL function pl_transfer (plpgsql)",
	  "pl_accounts", plpgsql_ddl, plpgsql_fill, 0, NULL, "SELECT count(*) / 10000 FROM pl_accounts",
	  "SELECT (SELECT count(*) FROM pl_accounts), (SELECT sum(balance) FROM pl_accounts)",
	  "accounts,sum(balance)", 0.8 },
	{ "bulk", "the log of bulk loads and the function bulk_round (bulk-index)",
	  "bulk_log", bulk_ddl, NULL, 0, NULL, NULL, "SELECT count(*) FROM bulk_log", "log rows", 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};
