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

/* ---------------- the rows ---------------- */

#define ONE(name, text) { { name, 1, text }, { NULL, 0, NULL } }

/* What was chosen on the workloads defaults were measured on (examples/
 * README.md has every run; the commits that set the defaults say why). */
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
