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
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};
