/*
 * pgbench.c - pgbench's letters as every command that runs bench takes
 * them (bench, gate): -S, -N, -b NAME[@W], -f FILE[@W], -M, -j and
 * --threads, one parser with pgbench's meanings; see cli.h.  What a
 * command does with the scripts (bench: one workload or a mix; gate: one
 * workload each) is the command's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pgbuild.h"

static const char *const protocol_choices[] = { "simple", "extended", "prepared", NULL };

/* -b NAME: a workload of ours by its name, else pgbench's built-ins by
 * theirs or, as pgbench, a prefix of one of them ("-b si"); returned as
 * ours (tpcb-like is tpcb).  Anything else is left for the workload's
 * error (unknown, did you mean). */
static const char *builtin_name(const char *name)
{
	static const char *const pgbench[][2] = {
		{ "tpcb-like", "tpcb" }, { "simple-update", "simple-update" },
		{ "select-only", "select-only" },
	};
	const char *found = NULL;
	size_t n = strlen(name);

	if (workloads_has(name, WL_BUILTIN))
		return name;
	for (size_t i = 0; n && i < sizeof(pgbench) / sizeof(pgbench[0]); i++)
		if (!strncmp(pgbench[i][0], name, n)) {
			if (found)
				return name;    /* ambiguous, as pgbench says */
			found = pgbench[i][1];
		}
	return found ? found : name;
}

/* -S, -N, -b NAME[@W], -f FILE[@W]: one more script.  0, or -1 after the
 * error. */
static int add_spec(struct cli_pgbench *p, const char *opt, const char *builtin,
		    const char *file)
{
	const char *arg = builtin ? builtin : file;
	const char *at = strrchr(arg, '@');
	struct bench_script_spec *sp;
	char *name;
	int weight = 1;

	if (at && at > arg && at[1]) {
		if (cli_parse_int(opt, at + 1, 0, 1000000, &weight) < 0)
			return -1;
		p->weighted = 1;
		name = xstrndup(arg, (size_t)(at - arg));
	} else {
		name = xstrdup(arg);
	}
	p->names = xrealloc(p->names, sizeof(char *) * (size_t)(p->nspecs + 1));
	p->names[p->nspecs] = name;
	ALLOC_GROW(p->specs, p->nspecs + 1, p->alloc_specs);
	sp = &p->specs[p->nspecs++];
	sp->builtin = builtin ? builtin_name(name) : NULL;
	/* known before anything runs; a prefix of "list" is -b list cut short */
	if (sp->builtin && *sp->builtin && !strncmp("list", sp->builtin, strlen(sp->builtin)))
		return error("%s %s: no workload of that name (did you mean -b list, which lists "
			     "them?)", opt, sp->builtin);
	{
		/* -b names a built-in script, as pgbench's; a workload that
		 * takes the caller's script (sql) is -f FILE */
		const struct workload_row *row = sp->builtin ? workloads_find(sp->builtin) : NULL;
		if (row && row->kind == WK_SCRIPT && !strcmp(opt, "--builtin"))
			return error("-b %s: no built-in script: a script of yours is -f FILE, as "
				     "pgbench's (or -W %s:FILE)", sp->builtin, sp->builtin);
	}
	if (sp->builtin && bench_workload_check(sp->builtin) < 0)
		return -1;
	sp->file = file ? name : NULL;
	sp->weight = weight;
	return 0;
}

void cli_pgbench_list(FILE *fp)
{
	fprintf(fp, "Workloads (kind, what it runs; * the broad held-out suite, on which "
		"nothing\nwas chosen; c: a single-user script, which instructions and the "
		"cycles\nestimate measure):\n");
	for (const struct workload_row *w = workloads; w->name; w++)
		if (w->flags & WL_BENCH)
			fprintf(fp, "  %-17s%c%c %-9s %s\n", w->name, w->flags & WL_BROAD ? '*' : ' ',
				w->flags & WL_SINGLE ? 'c' : ' ', workloads_kind_name(w->kind),
				w->desc);
	fprintf(fp, "pgbench's built-in names (-b): tpcb-like is tpcb, simple-update and "
		"select-only\nare themselves, a prefix of one is that one (-b si).\n");
}

int cli_pgbench_option(struct cli_pgbench *p, int c, const char *arg)
{
	int k;

	switch (c) {
	case 'S':
		return add_spec(p, "--select-only", "select-only", NULL) < 0 ? -1 : 1;
	case 'N':
		return add_spec(p, "--skip-some-updates", "simple-update", NULL) < 0 ? -1 : 1;
	case 'b':
		if (!strcmp(arg, "list")) {     /* as pgbench: the list, then stop */
			cli_pgbench_list(stdout);
			return CLI_PGBENCH_LISTED;
		}
		return add_spec(p, "--builtin", arg, NULL) < 0 ? -1 : 1;
	case 'f':
		return add_spec(p, "--file", NULL, arg) < 0 ? -1 : 1;
	case 'M':
		if (cli_parse_choice("--protocol", arg, protocol_choices, &k) < 0)
			return -1;
		p->protocol = k;
		return 1;
	case 'j':
		return cli_parse_int("--jobs", arg, 1, 1000, &p->jobs) < 0 ? -1 : 1;
	case OPT_THREADS:
		return cli_parse_int("--threads", arg, 1, 1000, &p->threads) < 0 ? -1 : 1;
	default:
		return 0;
	}
}

int cli_pgbench_threads(const struct cli_pgbench *p, int clients, int *threads)
{
	if (p->jobs && p->threads && p->jobs != p->threads)
		return cli_usage_error("-j %d and --threads %d say different things: give one",
				       p->jobs, p->threads);
	/* pgbench's -j: at most one thread per client */
	*threads = p->jobs ? (p->jobs < clients ? p->jobs : clients) : p->threads;
	if (*threads > clients)
		return cli_usage_error("--threads %d is more than --clients %d", *threads, clients);
	return 0;
}

void cli_pgbench_release(struct cli_pgbench *p)
{
	for (int i = 0; i < p->nspecs; i++)
		free(p->names[i]);
	free(p->names);
	free(p->specs);
	p->names = NULL;
	p->specs = NULL;
	p->nspecs = p->alloc_specs = 0;
}
