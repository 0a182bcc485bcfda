/*
 * collect.h - where does a workload spend the server's time, function by
 * function and translation unit by translation unit, and what policy
 * follows from it (`pgbuild profile`): collect a profile, print it, emit
 * the lists and the policy.
 *
 *   install (--install) -> private cluster -> workload(s) through pgbuild bench
 *     perf:  `perf record -e cpu-clock -p <postmaster>` (follows every
 *            backend); samples per symbol from `perf report`
 *     gcov:  an instrumented install (built with PROF_INSTRUMENT_CFLAGS,
 *            e.g. by `pgbuild pgo`'s first stage): .gcda files written by
 *            every server process on its normal exit, read with
 *            `gcov --json-format`; weight = executed line count
 *   -> attribution to units (object files of the build, or pgopt.so's
 *      records in the binary for LTO builds), ranking
 *   -> hot list (plugin), cold list, and a policy that gives the files
 *      covering --coverage percent of the profile --cflags, nothing else.
 *
 * Hardware counters do not work in VMs like this one; cpu-clock sampling
 * does (a software timer), and so does gcov everywhere.  --from FILE
 * re-reads a profile saved with --json and emits lists and policies from it
 * without running anything.
 */
#ifndef PGBUILD_COLLECT_H
#define PGBUILD_COLLECT_H

#include "pgbuild/profile/data.h"
#include "pgbuild/profile/run.h"

#define PROFILE_DEFAULT_CFLAGS "-O3 -finline-functions"

/* What to profile and what to emit (the options of `pgbuild profile`). */
struct profile_opts {
	const char *prefix;        /* --install: the install profiled */
	const char *builddir;      /* --builddir, NULL: from its build record */
	const char *method;        /* auto, perf, gcov */
	const char *from;          /* --from FILE */
	const char *json;          /* --json FILE */
	const char *hotlist;       /* --emit-hotlist FILE */
	const char *coldlist;      /* --emit-coldlist FILE */
	const char *policy;        /* --emit-policy FILE */
	const char *cflags;        /* --cflags: flags for the hot files */
	const char *perf_data;     /* keep perf.data here */
	double coverage;           /* percent of the profile the policy covers */
	double hot_coverage;       /* percent the hot list covers */
	int max_files;             /* --max-files in the policy */
	int max_hot;               /* --max-hot functions in the hot list */
	int top;                   /* --top rows printed */
	int no_run;                /* read existing samples/counts only */
	int quiet;                 /* --quiet */
};

/* Run the workloads (run) on a private cluster of o->prefix under the
 * method (auto picks), read the samples or counts into p and attribute
 * them to units.  0, or -1 after the error. */
int profile_collect(struct profile_opts *o, struct prof_run *run, struct profile *p);

/* The ranked functions and files on stdout (top rows each). */
void profile_print(const struct profile *p, int top);

/* --json, --emit-hotlist, --emit-coldlist, --emit-policy.  0 or -1. */
int profile_emit(struct profile_opts *o, struct profile *p);

#endif
