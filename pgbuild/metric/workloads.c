/*
 * metric/workloads.c - the table of workloads; see workloads.h.
 */
#include <string.h>

#include "pgbuild/metric/workloads.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

const struct workload_row workloads[] = {
	{ "select-only", "one primary-key SELECT on pgbench_accounts",
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_TRAIN | WL_DEFAULT, 200, "pgbench" },
	{ "tpcb", "pgbench's TPC-B-like transaction",
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_TRAIN, 40, "pgbench" },
	{ "select1", "SELECT 1: the protocol and executor, no table",
	  WL_BENCH | WL_BUILTIN | WL_SINGLE, 400, "none" },
	{ "point-select", "a point SELECT by id on test01",
	  WL_BENCH | WL_BUILTIN, 0, "test01" },
	{ "tpcc-lite", "New-Order and Payment of a reduced TPC-C",
	  WL_BENCH | WL_BUILTIN, 0, "tpcc" },
	/* a sort of the catalog per transaction: 400 in the long run */
	{ "mixed", "range read, insert with md5(), catalog sort: the held-out one",
	  WL_BENCH | WL_BUILTIN | WL_SINGLE | WL_HELDOUT, 40, "pgbench" },
	{ "sql", "a script in pgbench's subset (--file FILE or sql:FILE)",
	  WL_BENCH, 0, "pgbench when it names pgbench_ tables, else none" },
	{ "regress", "PostgreSQL's core regression suite (installcheck): training only",
	  WL_SUITE, 0, "the suite's own" },
	{ NULL, NULL, 0, 0, NULL },
};

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

#define WL_NBITS 7

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
