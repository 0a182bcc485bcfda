/*
 * sensitivity.h - the compiler-sensitivity watermarks of a workload
 * (`pgbuild sensitivity`).
 *
 * The same source is built twice through pgoptcc, once with every unit at
 * the low watermark (default -O0) and once at the high one (default -O3),
 * and `pgbuild gate` measures the high build against the low one on the
 * workload(s).  The ratio bounds what any choice of optimization flags can
 * do for this workload on this machine: a workload bound by I/O, locks or
 * the network barely moves between -O0 and -O3, and then tuning flags is
 * not worth an afternoon; one that doubles is worth a closer look.  With
 * --baseline (the stock build) the stock -O2 build is placed between the
 * two: how much of the range stock already takes.
 *
 * Builds live in WORKDIR/low and WORKDIR/high and are reused (pgbuild
 * build is incremental) - or are given as --low-install/--high-install.
 */
#ifndef PGBUILD_SENSITIVITY_H
#define PGBUILD_SENSITIVITY_H

#include "pgbuild/stage/stage.h"
#include "wrapper/common/strvec.h"

/* What to build and measure (the options of `pgbuild sensitivity`). */
struct sens_opts {
	const char *src;                 /* --src, NULL: the default source */
	const char *workdir;             /* --workdir: builds and results */
	const char *low, *high;          /* --low, --high: the watermarks' flags */
	const char *low_prefix;          /* --low-install: an install instead of building */
	const char *high_prefix;         /* --high-install: likewise */
	const char *baseline;            /* stock build, optional */
	const char *metric;              /* --metric for pgbuild gate, or NULL */
	unsigned metrics;                /* its METRIC_* bits (0: tps) */
	const char *json;                /* --json FILE */
	struct strvec workloads;         /* --workload */
	struct gate_step gate;           /* passed to pgbuild gate (0: gate's) */
	int jobs;                        /* --jobs for the builds */
	int quiet;                       /* --quiet */
};

/* Build (or take) both watermarks, gate high against low (and stock
 * between them with --baseline), print and --json the ratios.  Returns the
 * exit code (0 measured, 2 could not build or measure). */
int sens_run(const struct sens_opts *o);

#endif
