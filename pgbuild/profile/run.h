/*
 * run.h - the process side of `pgbuild profile` and `pgbuild pgo`:
 * run workloads on a private cluster of an install (optionally under
 * `perf record`), collect gcov counts of an instrumented build, and learn
 * which translation unit defines which function.
 *
 * Workloads run through `pgbuild bench --connect` (a child process of
 * pgbuild) against a cluster made with cluster.h, so the profile sees
 * exactly the server processes of that cluster: perf attaches to the
 * postmaster (`perf record -p`), which follows every backend it forks.
 *
 * gcov: an instrumented build (compiled with -fprofile-generate
 * -ftest-coverage, linked with -fprofile-generate) writes one .gcda file
 * per object when a process exits normally, at the object's path below
 * $GCOV_PREFIX.  The server runs as an unprivileged user and its build tree
 * stays ours (root would otherwise run make in a tree the server user can
 * change): the server writes its counts into a directory of its own
 * (prof_gcda_begin: TMPDIR/pgbuild-gcda-XXXXXX/d, GCOV_PREFIX), and we copy
 * each one back next to its object (prof_gcda_collect: read below
 * descriptors, O_NOFOLLOW, bounded; only where the build has that object's
 * .gcno).  The cluster is stopped with a fast shutdown (every backend
 * exits through proc_exit, which runs the gcov dump).
 */
#ifndef PGBUILD_PROFILE_RUN_H
#define PGBUILD_PROFILE_RUN_H

#include "wrapper/policy/policy.h"
#include "pgbuild/profile/data.h"
#include "wrapper/common/strvec.h"

/* The flags an instrumented build gets: pgoptcc adds them under
 * PGOPT_PROFILE=generate (a policy may not name them itself). */
#define PROF_INSTRUMENT_CFLAGS  POLICY_PROFILE_GENERATE
#define PROF_INSTRUMENT_LDFLAGS POLICY_PROFILE_LINK

struct prof_run {
	const char *prefix;       /* installed PostgreSQL */
	struct strvec workloads;  /* bench workload names, run in order */
	struct strvec settings;   /* "name=value" server settings */
	int clients;              /* bench --clients */
	double duration;          /* seconds per workload */
	int scale;                /* pgbench scale (0: bench's default) */
	const char *perf_data;    /* record perf samples into this file, or NULL */
	int perf_freq;            /* samples per second */
	int quiet;                /* no progress lines */
	const char *template_dir; /* start from a copy of this data directory
				   * instead of initdb (NULL: initdb) */
	const char *keep_log;     /* copy the server log here at the end, or NULL */
	const char *gcov_dir;     /* GCOV_PREFIX of initdb and the server, or NULL */
	const char *builddir;     /* the build tree prefix was installed from: the
				   * `regress` workload runs its suite from it */
	struct strbuf summary;    /* filled: one line per workload with tps */
	long postmaster;          /* filled: the postmaster's pid */
};

void prof_run_init(struct prof_run *r);
void prof_run_release(struct prof_run *r);

/*
 * The workload options shared by profile and pgo, with cli.h's meanings
 * and ranges: -W/--workload LIST, -c/--clients N, -T/--duration S,
 * -s/--scale N.  Returns 1 when c was one of them, 0 when not, -1 after
 * printing the error for a bad value.
 */
int prof_run_option(struct prof_run *r, int c, const char *arg);

/* The training workload that is PostgreSQL's regression suite, not a
 * bench script. */
#define PROF_WORKLOAD_REGRESS "regress"

/*
 * Make a private cluster of r->prefix (from r->template_dir when set), load
 * and run every workload (under perf when r->perf_data), stop the server
 * cleanly and remove the cluster.  The workload "regress" is PostgreSQL's
 * core regression suite (`make installcheck` from r->builddir, as pgbuild
 * regress --install runs it) against this same server, so one server
 * process tree counts it (gcov, BOLT's postmaster profile, perf); a test
 * that fails fails the run, and the server log is then judged by crashes
 * only (the suite makes workers exit with code 1 on purpose).  The stop waits for the postmaster
 * process itself to end (waitpid), so whatever it writes in its exit
 * handlers (gcov counts, BOLT's profile) is complete on return.  Returns
 * 0, or -1 after printing an error.
 */
int prof_run_workloads(struct prof_run *r);

/* Does `perf record -e cpu-clock` work here?  Sets why on failure. */
int prof_perf_usable(struct strbuf *why);

/* `perf report` of data into p (server_dso: "postgres").  0 or -1. */
int prof_perf_report(const char *data, const char *server_dso, struct profile *p);

/* The build record of an install: PREFIX/pgopt-build.json, or NULL. */
struct json_value *prof_build_record(const char *prefix);

/* Was the install built with -fprofile-generate (from its record)? */
int prof_is_instrumented(const struct json_value *record);

/*
 * Which unit defines which function: from the object files of the build
 * (compile log of builddir; non-LTO objects), then from the pgopt.so
 * records in PREFIX/bin/postgres (LTO builds).  Returns the number of
 * definitions found.
 */
long prof_map_build(struct prof_map *m, const char *builddir, const char *binary);

/* The training directory of a gcov run (prof_gcda_begin). */
struct prof_gcda {
	char *builddir;   /* the build tree the counts belong to (resolved) */
	char *top;        /* TMPDIR/pgbuild-gcda-XXXXXX: ours, 0755 */
	char *dir;        /* top/d: the server user's, GCOV_PREFIX */
	long skipped;     /* data files not taken back (no such object) */
};

#define PROF_GCDA_INIT { NULL, NULL, NULL, 0 }

/*
 * Before training with builddir's instrumented install: builddir must be
 * a tree nobody else can change (as root: one an earlier pgbuild handed to
 * the server user is refused with the fix, never used); its old .gcda
 * files are removed; g->dir is made for the server user's counts.  0, or
 * -1 after the error.
 */
int prof_gcda_begin(struct prof_gcda *g, const char *builddir);

/*
 * After training: every DIR/ABSPATH.gcda the server wrote is copied to
 * ABSPATH.gcda when ABSPATH's directory is in the build tree and holds
 * ABSPATH.gcno (an object of the instrumented build); anything else (a
 * link too: never followed) is counted in g->skipped.  The walk is
 * sfs_walk_tree's.  Returns the files copied, or -1 after the error (the
 * walk's: a directory replaced by a link while walked, or nested deeper
 * than SFS_MAX_DEPTH).
 */
long prof_gcda_collect(struct prof_gcda *g);

/* clang: the raw profile of each binary below the training directory
 * (LLVM_PROFILE_FILE; %m: every process of one binary merges into one
 * file), and the merged profile in the build tree the use build reads. */
#define PROF_LLVM_PROFRAW  "pgopt-%m.profraw"
#define PROF_LLVM_PROFDATA "pgopt-pgo.profdata"

/*
 * After training a clang build: every .profraw the server and the suite's
 * programs wrote at the top of g->dir is copied into a directory of ours
 * (read below descriptors, O_NOFOLLOW, bounded), then `tool merge` (the
 * compiler's llvm-profdata) merges the copies into out, written under a
 * temporary name and renamed.  Returns the raw files merged (0: none, out
 * untouched), or -1 after the error.
 */
long prof_profraw_merge(struct prof_gcda *g, const char *tool, const char *out);

/* Remove the training directory (idempotent). */
void prof_gcda_end(struct prof_gcda *g);

/* Remove every .gcda below dir (not below its BUILD_CHECK_TREE, none
 * behind a link: sfs_walk_tree); returns how many, or -1 after the error. */
long prof_remove_gcda(const char *dir);

/* Count them, the same way. */
long prof_count_gcda(const char *dir);

/*
 * Read the .gcda files below builddir with `gcov --json-format --stdout`
 * into p: the unit of each comes from the compile log (object -> tu);
 * objects of front-end programs and libraries are kept but not counted as
 * server code.  Returns the number of data files read, or -1.
 */
long prof_gcov_collect(const char *builddir, struct profile *p);

#endif
