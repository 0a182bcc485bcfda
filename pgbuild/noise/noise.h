/*
 * noise.h - the layout noise floor of one build (`pgbuild noise`): how far
 * the deterministic metrics move when nothing changes but what must not
 * matter.
 *
 * From one build (its build tree and its prefix, as `pgbuild build` made
 * them) N variants are made that differ only in the order of the object
 * files on the `postgres` link line: the link of the build's compile log
 * (build/relink.h) run again with the objects in a seeded shuffled order,
 * a relink, not a recompile (with LTO a full LTO link: minutes per
 * variant).  Each variant's postgres goes into a copy of the prefix, at a
 * path of the same length as every other variant's (WORKDIR/v01/prefix,
 * WORKDIR/v02/prefix, ...), so the paths the server sees differ in their
 * names, never in their lengths.  Each variant is then measured like
 * `pgbuild gate --metric instructions,cycles` measures a build (instr.h,
 * cycles.h: single-user runs, N and 10N transactions differenced), and per
 * workload and metric the spread over the variants is reported: mean,
 * sample standard deviation and range, the last two also as a percentage
 * of the mean.
 *
 * The result, PREFIX/pgopt-noise.json unless --json names another file
 * (written atomically; its fields are in pgbuild/README.md, "pgbuild
 * noise"), records the postgres it was measured on (sha256), so a reader
 * can tell a floor of this binary from one a copy of the prefix inherited.
 */
#ifndef PGBUILD_NOISE_H
#define PGBUILD_NOISE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* ---------------- the statistics (noise/noise.c) ---------------- */

/* The spread of one metric over the variants. */
struct noise_stats {
	size_t n;          /* values */
	double mean;
	double sd;         /* sample standard deviation (n - 1); 0 for n = 1 */
	double min, max;
	double sd_pct;     /* 100 * sd / mean */
	double range_pct;  /* 100 * (max - min) / mean */
};

/* The statistics of v[0..n), n >= 1, all finite. */
void noise_stats_of(const double *v, size_t n, struct noise_stats *out);

/*
 * The seeded order of n objects: perm[i] is the index of the object put in
 * place i.  A Fisher-Yates shuffle driven by splitmix64 from seed, so one
 * seed gives one order on every machine; variant k of a run uses seed
 * noise_variant_seed(seed, k).
 */
void noise_shuffle(size_t *perm, size_t n, uint64_t seed);
uint64_t noise_variant_seed(uint64_t seed, int k);

/* ---------------- the run (noise/noise.c) ---------------- */

/* The per-transaction figures measured on every variant: metric/metrics.h's
 * noise columns, in their order (tests/unit/test-metric-metrics.c). */
enum noise_metric {
	NOISE_INSTR,       /* instructions (instr.h), --metric instructions */
	NOISE_CYC_EST,     /* the cycles estimate (cycles.h), --metric cycles */
	NOISE_CYC_IR,      /* its run's instructions */
	NOISE_CYC_I1MR,    /* its L1 instruction-cache misses */
	NOISE_CYC_L1M,     /* its L1 misses */
	NOISE_CYC_LLM,     /* its last-level misses */
	NOISE_CYC_BM,      /* its branch mispredictions */
	NOISE_NMETRICS
};
/* The JSON key of m (metrics_noise_column). */
const char *noise_metric_name(int m);

/* What `pgbuild noise` was asked to do (its options). */
struct noise_opts {
	const char *prefix;      /* --install: the build's installed PostgreSQL */
	const char *builddir;    /* --builddir, NULL: PREFIX/pgopt-build.json's */
	const char *builddir_as; /* what messages call builddir (a caller's own
				    option: "tune's --builddir"), NULL: --builddir */
	const char *workdir;     /* --workdir, NULL: PREFIX.noise */
	const char *json;        /* --json, NULL: PREFIX/pgopt-noise.json */
	int variants;            /* --variants N */
	uint64_t seed;           /* --seed */
	unsigned metrics;        /* METRIC_INSTR | METRIC_CYCLES */
	long statements;         /* --instr-statements, 0: per workload */
	struct strvec workloads; /* -W */
	int quiet;               /* -q */
	int reuse;               /* --reuse: keep a --json file that already answers */
	int no_table;            /* no table on stdout (a caller that reads the
				    document: tune, whose stdout is its report) */
};

/* Every option's default (5 variants, seed 1, instructions and cycles). */
void noise_opts_init(struct noise_opts *o);
void noise_opts_release(struct noise_opts *o);

/* One variant: how it was made. */
struct noise_variant {
	uint64_t seed;           /* of its object order */
	char *prefix;            /* WORKDIR/vNN/prefix */
	char sha256[65];         /* of its postgres */
	double link_seconds;     /* the relink's wall time */
};

/* One function's self cycles estimate per transaction over the variants
 * (noise/functions.c). */
struct noise_function {
	char *function;          /* explain's row key (names.h) */
	char *object;            /* "" the postgres binary, else the library */
	double *values;          /* one per variant */
	double mean, sd;         /* over the variants */
	double spread;           /* NOISE_FUNCTION_SDS x sd: explain --noise's bound */
};

/* Every function of one workload. */
struct noise_functions {
	struct noise_function *v;
	size_t nr, alloc;
};

/* What a run measured: the document and the table are made from it. */
struct noise_result {
	const struct noise_opts *o;
	char *prefix, *builddir, *workdir; /* absolute */
	char sha256[65];         /* the build's own postgres */
	int lto;                 /* the link is an LTO link */
	long link_line;          /* its compile-log line */
	size_t objects;          /* object files shuffled */
	const char *counter;     /* what counted instructions ("callgrind") */
	struct noise_variant *v; /* o->variants of them */
	double *values;          /* [workload][metric][variant], NAN: not measured */
	struct noise_functions *fns; /* per workload when the cycles estimate was
				      measured on 2 or more variants, else NULL */
	char started[32];        /* ISO 8601 UTC */
	double seconds;          /* wall time of the run */
};

/* The value of variant k, metric m, workload w. */
double *noise_value(const struct noise_result *r, size_t w, int m, int k);
/* Is metric m measured (its --metric is on)? */
int noise_metric_on(const struct noise_result *r, int m);

/*
 * The per-function spread of workload w (noise/functions.c): explain's rows
 * of variant 1 against each other variant, from the callgrind outputs the
 * cycles runs kept in the work directory.  0, or -1 after one error.
 */
int noise_functions_of(const struct noise_result *r, size_t w, struct noise_functions *t);
/* f's mean, sd and spread from its values. */
void noise_function_spread(struct noise_function *f, int variants);
void noise_functions_release(struct noise_functions *t);

/* The table (per workload and metric: mean, SD, range) on fp. */
void noise_print_table(const struct noise_result *r, FILE *fp);
/* The JSON document (pgbuild/README.md, "pgbuild noise") into sb. */
void noise_json(const struct noise_result *r, struct strbuf *sb);

/*
 * The whole run: find the link, make and measure every variant, print the
 * table on stdout and write the JSON.  Returns a PGBUILD_EXIT_* code (2:
 * could not relink or measure).
 */
int noise_run(const struct noise_opts *o);

/*
 * --reuse: is the --json file (default PREFIX/pgopt-noise.json) already a
 * floor of PREFIX/bin/postgres with every -W workload and --metric, over
 * at least --variants variants?  1 yes (a line on stderr says so: noise_run
 * then measures nothing), 0 no (the line says why, unless there is no
 * file).
 */
int noise_reusable(const struct noise_opts *o);

#endif
