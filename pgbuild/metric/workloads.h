/*
 * metric/workloads.h - the workloads and their data sets, one row each:
 * the only place a workload is written.  A row holds everything about it:
 * name, description, kind, roles, the data set it runs on (and at what
 * scale), the bench script (in bench's script language, bench.h), the
 * single-user script (SQL, instructions and cycles: single.h), and the
 * checks bench runs after it.  bench/ (the tps runs: workload.c, loader.c,
 * dataset.c) and metric/ (the single-user runs: single.c) both read the
 * rows; every -W check, name list and default of the commands is derived
 * from them.  It sits in metric/, the lowest layer both include.
 *
 * A new workload is one row in workloads.c (and, when it needs new data,
 * one data set in datasets.c), plus a single-user writer beside the row
 * when instructions and cycles should count it; a check it needs that no
 * row has yet is a WLC_ bit here and its code in bench/workload.c.
 *
 * Roles (issue 41: a figure is only as held out as its workload):
 *   WL_TRAIN    a default training workload of pgo and bolt;
 *   WL_CHOSEN   a default, flag or training set was chosen by looking at
 *               figures on it (the row's chosen says which): its figures are
 *               selection-biased, never held-out evidence;
 *   WL_BROAD    the broad held-out suite (issue 44): workloads of other
 *               kinds and sizes written from PostgreSQL's features, on which
 *               nothing was measured to pick or tune them, and nothing is
 *               chosen: a row with WL_BROAD never gets WL_CHOSEN or
 *               WL_TRAIN (a choice made on it takes it out of the suite);
 *   WL_HELDOUT  the one workload optimize and tune hold out by default
 *               (OPTIMIZE_HELD_OUT, tune --held-out): mixed, which was held
 *               out when it was added and has since been used to choose
 *               (WL_CHOSEN);
 *   WL_DEFAULT  the default -W of gate, noise, sensitivity and profile
 *               (select-only: unchanged by the suite).
 * The evaluation set the suite defines: its rows with a single-user
 * script (WL_BROAD | WL_SINGLE: workloads_names) for the deterministic
 * metrics, whose geometric mean is the figure a stage is judged on, and
 * its bench rows (WL_BROAD | WL_BENCH) for the machine.  No command's
 * default -W includes it yet: the callers that judge (optimize, tune,
 * gate) add it themselves.
 */
#ifndef PGBUILD_WORKLOADS_H
#define PGBUILD_WORKLOADS_H

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

#define WL_BENCH   1u   /* pgbuild bench runs it (tps) */
#define WL_BUILTIN 2u   /* a built-in script (not sql, which takes a file) */
#define WL_SINGLE  4u   /* the single-user metrics run it (instructions, cycles) */
#define WL_TRAIN   8u   /* a default training workload (pgo, bolt) */
#define WL_HELDOUT 16u  /* the default held-out workload of optimize and tune */
#define WL_DEFAULT 32u  /* the default -W of gate, noise, sensitivity, profile */
#define WL_SUITE   64u  /* PostgreSQL's regression suite: a training workload
			 * of pgo, bolt and profile (profile/run.h), not a script */
#define WL_CHOSEN  128u /* something was chosen on it: the row's chosen says what */
#define WL_BROAD   256u /* the broad held-out suite: nothing chosen on it */

/* What a workload exercises (the suite spans the kinds). */
enum workload_kind {
	WK_OLTP,        /* point reads and short write transactions */
	WK_PROTOCOL,    /* the round trip itself (SELECT 1) */
	WK_ANALYTIC,    /* aggregation over joins, sorts, window functions */
	WK_BULK,        /* bulk load and index builds */
	WK_TEXT,        /* jsonb and full-text search */
	WK_PLPGSQL,     /* PL/pgSQL: loops, exceptions, dynamic SQL */
	WK_SCRIPT,      /* the caller's script (sql FILE) */
	WK_SUITE,       /* the regression suite (regress) */
	WK_NKINDS
};

/*
 * The checks bench runs after a workload (bench/workload.c has their
 * code; the row says which apply):
 */
#define WLC_PGBENCH_READ  1u  /* pgbench tables: row counts and balance sums
			       * unchanged (a read-only script) */
#define WLC_TPCB          2u  /* TPC-B: every balance sum changes by the
			       * history's deltas; history rows = commits */
#define WLC_PGBENCH_STEP  4u  /* pgbench tables: account changes recorded in
			       * the history; tellers, branches untouched or in
			       * step (mixed, sql scripts) */
#define WLC_TPCC          8u  /* TPC-C consistency conditions 1-4, 8-10 */
#define WLC_UNCHANGED    16u  /* every figure of the data set's snapshot
			       * unchanged (read-only, or conserved) */
#define WLC_COUNTED      32u  /* the snapshot's first figure (rows) unchanged,
			       * its second grown by the transactions committed */

/*
 * A data set: the tables a workload runs on, written once for bench's
 * private clusters (and --connect --init) and the single-user template.
 * Statements are one per line (the single-user server reads a line as a
 * statement), each ending in ';'; ":scale" is replaced by the scale.  The
 * load is ddl, fill, keys, then bench runs VACUUM ANALYZE of tables and a
 * CHECKPOINT, the single-user template a VACUUM ANALYZE of the whole
 * database and a CHECKPOINT.
 */
struct workload_data {
	const char *name;       /* bench's messages and template key: "pgbench" */
	const char *desc;       /* one line */
	const char *tables;     /* its tables, comma-separated: dropped before a
				 * load, vacuumed after (bench), or NULL: none */
	const char *ddl;        /* CREATE statements (tables, their keys, functions) */
	const char *fill;       /* the rows, or NULL: none, or copy's */
	int copy;               /* its rows come from bench/loader.c's COPY
				 * generator of this name (TPC-C's distributions,
				 * the seed experiment's table): bench only */
	const char *keys;       /* indexes built after the fill, or NULL */
	const char *scale_sql;  /* the scale of loaded data (one integer), or NULL:
				 * its size does not depend on --scale */
	const char *snapshot;   /* one row of integers the checks compare before
				 * and after a run, or NULL */
	const char *figures;    /* their names, comma-separated (messages) */
	double mb;              /* its size in MB, about: at scale 1, or its one
				 * size when scale_sql is NULL (what the cache
				 * sizes are set against) */
};

/* What a single-user transaction is written from: three draws of the runs'
 * LCG (the same for A and B, three per transaction whatever the script
 * uses), the transaction's number and the row's scale. */
struct single_tx {
	unsigned long r[3];     /* the draws, each < 2^31 */
	long i;                 /* 0 for the first transaction */
	long scale;             /* the row's scale (1 when it has none) */
};

/* Append one transaction of the single-user script: whole statements, one
 * per line, each ending in ";\n", stmts of them. */
typedef void workload_single_fn(struct strbuf *sb, const struct single_tx *t);

/* One script of a bench workload (tpcc-lite has two). */
struct workload_script {
	const char *name;       /* the script's name in results: "new-order" */
	int weight;             /* relative frequency among the row's scripts */
	const char *text;       /* in bench's script language (bench.h) */
};

#define WL_MAX_SCRIPTS 2

struct workload_row {
	const char *name;        /* the -W / --workload value */
	const char *desc;        /* one line */
	enum workload_kind kind; /* what it exercises */
	unsigned flags;          /* WL_* */
	const char *data;        /* its data set (datasets.c), or NULL: sql's,
				  * decided by its script */
	long scale;              /* 0: --scale (default 1); N: always N, the size
				  * is part of the workload (its name says it) */
	struct workload_script bench[WL_MAX_SCRIPTS]; /* bench's scripts (WL_BUILTIN) */
	const char *gen;         /* bench's C generator of the scripts' variables
				  * (bench/workload.c), or NULL */
	unsigned checks;         /* WLC_* bench runs after it */
	workload_single_fn *single; /* the single-user script (WL_SINGLE) */
	int single_stmts;        /* statements one single-user transaction has */
	long single_n;           /* single-user transactions of the short run
				  * (10N in the long one) */
	const char *chosen;      /* WL_CHOSEN: what was chosen on it, and where
				  * that is recorded */
	const char *note;        /* what else a reader of its figures must know,
				  * or NULL */
};

/* The rows, ended by one with a NULL name. */
extern const struct workload_row workloads[];
/* The data sets, ended by one with a NULL name. */
extern const struct workload_data workload_datasets[];

/* The row of name, or NULL. */
const struct workload_row *workloads_find(const char *name);
/* Does the row of name have every bit of flags? */
int workloads_has(const char *name, unsigned flags);
/* The names of the rows with every bit of flags, NULL-terminated, in
 * table order (static; built once). */
const char *const *workloads_names(unsigned flags);
/* The same as one line, "a, b, c" (static; built once). */
const char *workloads_list(unsigned flags);
/* Push the names of the rows with flags onto sv. */
void workloads_push(struct strvec *sv, unsigned flags);
/* "oltp", "analytic", ... */
const char *workloads_kind_name(enum workload_kind k);

/* The data set of name, or NULL. */
const struct workload_data *workloads_data(const char *name);
/* The scale a row runs at when --scale is asked (0: not given): the row's
 * own when it has one (-1 when asked differs), else asked, else 1. */
long workloads_scale(const struct workload_row *w, long asked);
/* Append text with every ":scale" replaced by scale. */
void workloads_expand(struct strbuf *sb, const char *text, long scale);

/*
 * The role of name in one line, for every figure printed on it: what it
 * was trained on or used to choose, or that it is held out ("held out:
 * nothing was chosen on it (the broad suite)"); NULL for an unknown name.
 * Static, built once per row.
 */
const char *workloads_role_note(const char *name);
/* The size of name's data against the cycles metric's caches, one phrase:
 * "about 15 MB at scale 1: inside the cost model's 32 MiB LL" (static,
 * built once per row); NULL for an unknown name or one without data. */
const char *workloads_size_note(const char *name);

/*
 * The lists help texts concatenate at compile time: tests/unit/
 * test-metric-workloads.c checks each equals workloads_list() of its bits.
 */
#define WORKLOADS_BENCH   "select-only, tpcb, select1, point-select, tpcc-lite, mixed, " \
			  "agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10, " \
			  "select-only-s100, tpcb-s100, simple-update, sql"
#define WORKLOADS_BUILTIN "select-only, tpcb, select1, point-select, tpcc-lite, mixed, " \
			  "agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10, " \
			  "select-only-s100, tpcb-s100, simple-update"
#define WORKLOADS_SINGLE  "select-only, tpcb, select1, mixed, agg-join, bulk-index, " \
			  "json-text, plpgsql, select-only-s10, tpcb-s10"
#define WORKLOADS_BROAD   "agg-join, bulk-index, json-text, plpgsql, select-only-s10, " \
			  "tpcb-s10, select-only-s100, tpcb-s100"
#define WORKLOADS_TRAIN   "select-only,tpcb"
#define WORKLOADS_DEFAULT "select-only"   /* the one WL_DEFAULT row */
#define WORKLOADS_HELDOUT "mixed"         /* the one WL_HELDOUT row */

#endif
