/*
 * workload.c - the workloads of pgbuild bench set up from their rows
 * (metric/workloads.c: scripts, data set, scale, checks), the C generator
 * tpcc-lite's scripts need, and the correctness checks run before and
 * after every benchmark (each a WLC_ bit a row names).
 *
 * Every built-in script is written in the same pgbench subset that
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
#include "pgbuild/bench/client.h"
#include "wrapper/common/error.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/suggest.h"
#include "wrapper/common/xalloc.h"

/* ---------------- tpcc-lite's generator ---------------- */

#define OL_MAX 15
#define ITEMS 100000
#define CUST_PER_D 3000

/* generated variables of tpcc-lite, in gen_vars[] order */
enum {
	G_W, G_D, G_C, G_CW, G_CD, G_OLCNT, G_ALL_LOCAL, G_AMOUNT,
	G_I1, G_S1 = G_I1 + OL_MAX, G_Q1 = G_S1 + OL_MAX, G_NR = G_Q1 + OL_MAX
};

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
	s->file = xstrdup(file);
	s->weight = weight;
	if (bench_script_parse(s, text, file, &w->vars, w->nscripts) < 0) {
		free(s->name);
		free(s->file);
		return -1;
	}
	w->nscripts++;
	w->total_weight += weight;
	return 0;
}

/* tpcc-lite's variables: the ones tpcc_gen fills, in gen_vars[] order */
static void tpcc_setup(struct bench_workload *w)
{
	static const char *const names[] = { "w_id", "d_id", "c_id", "c_w_id",
					     "c_d_id", "ol_cnt", "all_local", "h_amount" };
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
}

/* The C generators a row may name (its gen). */
static const struct {
	const char *name;                       /* the row's gen */
	void (*setup)(struct bench_workload *w); /* sets w->gen and its variables */
} generators[] = {
	{ "tpcc", tpcc_setup },
};

/* The script the caller gives (a row without built-in scripts: sql). */
#define UNCHECKED_SCRIPT "not checked: a script of yours (the data invariants are those " \
	"of the built-in workloads; the commit count and the server log are checked)"

static int caller_script(struct bench_workload *w, const char *file, int weight)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	const char *base;
	char *what;
	long got;
	int r;

	if (!file)
		return error("--workload %s needs a script: --workload %s FILE, --file FILE or "
			     "%s:FILE", w->name, w->name, w->name);
	what = xasprintf("script \"%s\"", file);
	got = sfs_read_as(AT_FDCWD, file, what, SFS_IN_TEXT, 0, &sb, &err);
	free(what);
	if (got < 0) {
		r = error("%s", err.buf);
		strbuf_release(&sb);
		strbuf_release(&err);
		return r;
	}
	/* the pgbench tables only for a script that uses them: one that
	 * does not must run on any --connect server, and gets no data loaded
	 * on a private cluster.  Its data invariants are its author's: what
	 * a built-in workload's checks assume (a balance changed only with
	 * a history row) need not hold for it */
	if (strcasestr(sb.buf, "pgbench_"))
		w->data = workloads_data("pgbench");
	w->checks = 0;
	w->unchecked = UNCHECKED_SCRIPT;
	base = strrchr(file, '/');
	r = add_script(w, base ? base + 1 : file, weight, sb.buf, file);
	strbuf_release(&sb);
	return r;
}

int bench_workload_init(struct bench_workload *w, const char *name, const char *file)
{
	const struct workload_row *row = workloads_find(name);

	memset(w, 0, sizeof(*w));
	w->name = name;
	w->var_scale = bench_var_index(&w->vars, "scale", 1);
	w->var_client_id = bench_var_index(&w->vars, "client_id", 1);
	if (!row || !(row->flags & WL_BENCH)) {
		const char *near = suggest_word(name, bench_workload_names);
		if (near)
			return error("unknown workload \"%s\" (did you mean \"%s\"?): expected %s",
				     name, near, BENCH_WORKLOAD_NAMES);
		return error("unknown workload \"%s\" (%s)", name, BENCH_WORKLOAD_NAMES);
	}
	w->row = row;
	w->data = workloads_data(row->data ? row->data : "none");
	w->checks = row->checks;
	if (!w->data)
		return error("workload \"%s\": its data set \"%s\" is not in metric/datasets.c",
			     name, row->data);
	if (!(row->flags & WL_BUILTIN))
		return caller_script(w, file, 1);
	if (row->gen) {
		size_t i;
		for (i = 0; i < sizeof(generators) / sizeof(generators[0]); i++)
			if (!strcmp(generators[i].name, row->gen))
				break;
		if (i == sizeof(generators) / sizeof(generators[0]))
			return error("workload \"%s\": no C generator \"%s\" in bench/workload.c",
				     name, row->gen);
		generators[i].setup(w);
	}
	for (int k = 0; k < WL_MAX_SCRIPTS && row->bench[k].text; k++) {
		char *where = xasprintf("<%s%s%s>", name, row->bench[1].text ? " " : "",
					row->bench[1].text ? row->bench[k].name : "");
		int r = add_script(w, row->bench[k].name, row->bench[k].weight, row->bench[k].text,
				   where);
		free(where);
		if (r < 0)
			return -1;
	}
	if (!w->nscripts)
		return error("workload \"%s\" has no bench script", name);
	return 0;
}

int bench_workload_init_mix(struct bench_workload *w, const struct bench_script_spec *mix,
			    int n)
{
	const struct workload_data *data = NULL;

	memset(w, 0, sizeof(*w));
	w->name = "sql";
	w->row = workloads_find("sql");
	w->var_scale = bench_var_index(&w->vars, "scale", 1);
	w->var_client_id = bench_var_index(&w->vars, "client_id", 1);
	w->data = workloads_data("none");
	for (int i = 0; i < n; i++) {
		const struct workload_row *row;
		const struct workload_data *d;
		if (mix[i].file) {
			/* caller_script sets w->data when the script needs pgbench's */
			w->data = workloads_data("none");
			if (caller_script(w, mix[i].file, mix[i].weight) < 0)
				return -1;
			d = strcmp(w->data->name, "none") ? w->data : NULL;
		} else {
			row = workloads_find(mix[i].builtin);
			if (!row || !(row->flags & WL_BUILTIN) || row->gen || row->bench[1].text)
				return error("-b %s: expected a built-in workload of one script "
					     "(select-only, tpcb or tpcb-like, simple-update, ...)",
					     mix[i].builtin);
			if (row->scale)
				return error("-b %s: its scale (%ld) is part of it, so it runs alone; "
					     "in a mix give its script's workload and --scale", row->name,
					     row->scale);
			{
				char *where = xasprintf("<%s>", row->name);
				int r = add_script(w, row->name, mix[i].weight, row->bench[0].text, where);
				free(where);
				if (r < 0)
					return -1;
			}
			d = row->data && strcmp(row->data, "none") ? workloads_data(row->data) : NULL;
		}
		if (d && data && d != data)
			return error("the scripts need different data sets (%s and %s): a mix runs "
				     "on one", data->name, d->name);
		if (d)
			data = d;
	}
	w->data = data ? data : workloads_data("none");
	w->checks = 0;
	w->unchecked = "not checked: a mix of scripts (each workload's data invariants assume "
		       "it runs alone; the commit count and the server log are checked)";
	return 0;
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

const char *bench_workload_label(const struct bench_workload *w)
{
	if (strcmp(w->name, "sql"))
		return w->name;
	return w->nscripts == 1 ? w->scripts[0].name : "multiple scripts";
}

int bench_workload_check(const char *spec)
{
	struct bench_workload w;
	int r = !strncmp(spec, "sql:", 4) ? bench_workload_init(&w, "sql", spec + 4) :
		bench_workload_init(&w, spec, NULL);
	bench_workload_release(&w);
	return r < 0 ? -1 : 0;
}

int bench_workload_scale(const struct bench_workload *w, int asked)
{
	long sc = w->row ? workloads_scale(w->row, asked) : asked ? asked : 1;
	if (sc < 0)
		return bench_error("--scale %d: workload \"%s\" runs at scale %ld (the size is "
				   "part of it); leave --scale out", asked, w->name, w->row->scale);
	return (int)sc;
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

int bench_snapshot_take(PGconn *conn, const struct workload_data *d, struct bench_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	if (!d->snapshot) {
		s->ok = 1;
		return 0;
	}
	return snapshot_query(conn, d->snapshot, s);
}

/* The name of figure i of d's snapshot ("test01 rows") into buf. */
static const char *figure_name(const struct workload_data *d, int i, char *buf, size_t len)
{
	const char *p = d->figures ? d->figures : "";
	const char *e;
	for (; i > 0 && (p = strchr(p, ',')); i--)
		p++;
	if (!p) {
		snprintf(buf, len, "figure %d", i);
		return buf;
	}
	e = strchr(p, ',');
	snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return buf;
}

/* WLC_UNCHANGED and WLC_COUNTED: the data set's snapshot figures, each
 * unchanged, but for WLC_COUNTED's first, which grew by the commits. */
static void snapshot_checks(const struct bench_workload *w, const struct bench_snapshot *b,
			    const struct bench_snapshot *a, const int64_t *commits,
			    struct bench_checks *cs)
{
	struct strbuf sb = STRBUF_INIT;
	int counted = !!(w->checks & WLC_COUNTED), ok = a->nr == b->nr && a->nr > 0;
	char name[64];

	for (int i = 0; i < a->nr && i < b->nr; i++) {
		int64_t want = b->v[i] + (counted && i == 0 ? commits[0] : 0);
		ok &= a->v[i] == want;
		strbuf_addf(&sb, "%s%s %lld -> %lld", i ? ", " : "",
			    figure_name(w->data, i, name, sizeof(name)), (long long)b->v[i],
			    (long long)a->v[i]);
		if (counted && i == 0)
			strbuf_addf(&sb, " (transactions committed %lld)", (long long)commits[0]);
	}
	bench_check_add(cs, counted ? "counted" : "row_counts", ok, "%s", sb.buf);
	strbuf_release(&sb);
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
	if (w->unchecked) {
		bench_check_add(cs, "invariants", -1, "%s", w->unchecked);
		return;
	}
	if (!b->ok || !a->ok) {
		bench_check_add(cs, "snapshot", 0, "could not read the data before and after");
		return;
	}
	if (w->checks & (WLC_UNCHANGED | WLC_COUNTED))
		snapshot_checks(w, b, a, commits, cs);
	if (w->checks & WLC_TPCC)
		tpcc_checks(conn, b, a, commits, cs);
	if (w->checks & (WLC_PGBENCH_READ | WLC_TPCB | WLC_PGBENCH_STEP)) {
		int64_t da = a->v[4] - b->v[4], dt = a->v[5] - b->v[5];
		int64_t db = a->v[6] - b->v[6], dh = a->v[7] - b->v[7];
		int64_t dn = a->v[3] - b->v[3];
		int same_rows = a->v[0] == b->v[0] && a->v[1] == b->v[1] && a->v[2] == b->v[2];
		if (w->checks & WLC_PGBENCH_READ) {
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
		if (w->checks & WLC_TPCB) {
			bench_check_add(cs, "balances", da == dh && dt == dh && db == dh,
					"change of sum(abalance) %lld, sum(tbalance) %lld, "
					"sum(bbalance) %lld, sum(history.delta) %lld",
					(long long)da, (long long)dt, (long long)db, (long long)dh);
			bench_check_add(cs, "history", dn == commits[0],
					"transactions committed %lld, history rows added %lld",
					(long long)commits[0], (long long)dn);
		} else {
			/* account changes must be recorded in the history;
			 * tellers and branches either untouched or in step */
			bench_check_add(cs, "balances", da == dh && (dt == 0 || dt == dh) &&
					(db == 0 || db == dh),
					"change of sum(abalance) %lld, sum(tbalance) %lld, "
					"sum(bbalance) %lld, sum(history.delta) %lld",
					(long long)da, (long long)dt, (long long)db, (long long)dh);
		}
	}
}
