/*
 * report.h - what `pgbuild report` knows, shared by its loading (load.c),
 * the terminal summary (report.c), the HTML page (html.c), `pgbuild gate`
 * (prints the same summary) and `pgbuild run`.
 *
 * Inputs, all optional:
 *   a gate result (gate --json)                 -> verdict, runs, ratios
 *   a compile log directory (PGOPT_LOGDIR)      -> per-file flags
 *   `pgbuild inspect --json` of A's and B's postgres (or the binaries)
 *                                               -> per-function changes
 *   OUT/pgopt-build.json of either build        -> build facts
 */
#ifndef PGBUILD_REPORT_H
#define PGBUILD_REPORT_H

#include <stdio.h>
#include "pgbuild/gate/gate.h"

#include "wrapper/common/strvec.h"

/* One translation unit the policy changed (or not). */
struct report_tu {
	char *tu;        /* path relative to the source root */
	char *added;     /* flags added, space separated ("" when none) */
	char *removed;   /* flags removed */
	char *rules;     /* policy file:line list */
};

/* One function whose record differs between A and B. */
struct report_fn {
	char *name;
	char *tu;        /* where B (else A) has it */
	double size_a, size_b;   /* estimated size; NAN when absent in that build */
	double inl_a, inl_b;     /* inlined callees; NAN when absent */
	char *note;              /* how its symbols were matched ("B:
				    ExplainNode.lto_priv.0", "+ grouping_planner
				    (inlined into it in B)"), or NULL */
};

struct report_data {
	struct gate gate;        /* valid when have_gate */
	int have_gate;
	char *baseline, *candidate;  /* prefixes from the gate result */
	char *settings_json;     /* gate settings object, text */

	struct report_tu *tus;   /* changed units, sorted by path */
	size_t nr_tus, alloc_tus;
	size_t tus_total;        /* compiles seen in the log */
	size_t tus_unchanged;
	int have_log;

	struct report_fn *fns;   /* sorted by |size change| descending */
	size_t nr_fns, alloc_fns;
	size_t fns_a, fns_b;     /* functions recorded in each build */
	double text_a, text_b;   /* summed function sizes */
	size_t recs_a, recs_b;   /* functions with a plugin record (inlining
				    counts) in each build: a baseline built
				    without the plugin has none, and then B's
				    counts are B's alone, not changes */
	int have_inspect;
	struct strvec hot_tus;   /* units with functions a hot list marked */

	char *build_a, *build_b; /* pgopt-build.json texts, or NULL */
};

/* The changed units grouped by the flags the policy gave them
 * (flagsets.c): the largest set first, hot units first in each set. */
struct report_flagset {
	const char *added, *removed; /* the set's flags (borrowed from rd->tus) */
	struct strvec rules;         /* the distinct policy lines behind them */
	size_t *units;               /* indexes into rd->tus */
	size_t n, alloc;             /* used, allocated */
	size_t nhot;                 /* units of it with hot-marked functions */
};
size_t report_flagsets(const struct report_data *rd, struct report_flagset **sets);
void report_flagsets_free(struct report_flagset *sets, size_t n);
/* Did a hot list mark functions in unit tu (rd->hot_tus)? */
int report_tu_is_hot(const struct report_data *rd, const char *tu);

/* Terminal summary of a gate: per workload tps A/B, ratio with CI, p99,
 * instructions, regress, thresholds and the verdict. */
/* The levels a reader must tell apart, appended to sb (nothing when they
 * are one): the tables' intervals are each at the gate's confidence, the
 * findings of the summary at their family's (gate_findings_conf). */
void report_levels_note(const struct gate *g, struct strbuf *sb);
void report_gate_terminal(const struct gate *g, const char *baseline,
			  const char *candidate, FILE *fp);

/* What `pgbuild report` was given (any may be NULL). */
struct report_inputs {
	const char *gate;        /* --gate-result FILE: a gate result */
	const char *log;         /* --log DIR; NULL: the candidate's, from its record */
	const char *baseline;    /* --baseline PREFIX; NULL: the gate's */
	const char *candidate;   /* --candidate PREFIX; NULL: the gate's */
	const char *inspect_a;   /* --inspect-baseline FILE; NULL: A's postgres */
	const char *inspect_b;   /* --inspect-candidate FILE; NULL: B's postgres */
};

/* Load everything in names (and what it leads to: the gate's prefixes,
 * their records and postgres, the candidate's compile log).  0, or -1
 * after the error, also when there is nothing to show. */
int report_load(struct report_data *rd, const struct report_inputs *in);

/* Loaders (load.c); each returns 0 or -1 after printing an error.  The size table
 * (report_load_inspect, sizes.c) matches functions by source name:
 * explain/names.h. */
int report_load_gate(struct report_data *rd, const char *path);
int report_load_log(struct report_data *rd, const char *logdir);
int report_load_inspect(struct report_data *rd, const char *a, const char *b);
void report_data_clear(struct report_data *rd);

/* The whole terminal report. */
void report_terminal(const struct report_data *rd, FILE *fp);

/* Is there anything to show: a gate result, a compile log with compiles,
 * or functions of a build? */
int report_has_content(const struct report_data *rd);

/* The per-file and per-function tables as one JSON document (--json). */
struct strbuf;
void report_write_json(const struct report_data *rd, struct strbuf *out);

/* The text of PREFIX/FILE (a build record), malloced, or NULL. */
char *report_read_optional(const char *prefix, const char *file);

#endif
