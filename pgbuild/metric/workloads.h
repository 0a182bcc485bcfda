/*
 * metric/workloads.h - the workloads, one row each: the one table the
 * names, the -W checks, the single-user statement counts and the
 * defaults of --train and -W are derived from.  It sits in metric/, the
 * lowest layer both bench/ (which runs the tps scripts) and metric/
 * (which runs the single-user ones) include.  A new workload is one row
 * here, plus its script in bench/workload.c (tps) and/or
 * metric/single.c (instructions, cycles).
 */
#ifndef PGBUILD_WORKLOADS_H
#define PGBUILD_WORKLOADS_H

#include "wrapper/common/strvec.h"

#define WL_BENCH   1u   /* pgbuild bench runs it (tps) */
#define WL_BUILTIN 2u   /* a built-in script (not sql, which takes a file) */
#define WL_SINGLE  4u   /* the single-user metrics run it (instructions, cycles) */
#define WL_TRAIN   8u   /* a default training workload (pgo, bolt) */
#define WL_HELDOUT 16u  /* the default held-out workload */
#define WL_DEFAULT 32u  /* the default -W of gate, noise, sensitivity, profile */
#define WL_SUITE   64u  /* PostgreSQL's regression suite: a training workload
			 * of pgo, bolt and profile (profile/run.h), not a script */

struct workload_row {
	const char *name;        /* the -W / --workload value */
	const char *desc;        /* one line */
	unsigned flags;          /* WL_* */
	long single_n;           /* single-user transactions of the short run */
	const char *data;        /* the data set bench loads */
};

/* The rows, ended by one with a NULL name. */
extern const struct workload_row workloads[];

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

/*
 * The lists help texts concatenate at compile time: tests/unit/
 * test-metric-workloads.c checks each equals workloads_list() of its bits.
 */
#define WORKLOADS_BENCH   "select-only, tpcb, select1, point-select, tpcc-lite, mixed, sql"
#define WORKLOADS_BUILTIN "select-only, tpcb, select1, point-select, tpcc-lite, mixed"
#define WORKLOADS_SINGLE  "select-only, tpcb, select1, mixed"
#define WORKLOADS_TRAIN   "select-only,tpcb"
#define WORKLOADS_DEFAULT "select-only"   /* the one WL_DEFAULT row */
#define WORKLOADS_HELDOUT "mixed"         /* the one WL_HELDOUT row */

#endif
