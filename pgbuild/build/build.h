/*
 * build.h - one PostgreSQL build through pgoptcc (`pgbuild build`), in
 * named phases:
 *
 *   build_setup: source (directory, tarball or Debian source package;
 *      source.h), policy, compiler, environment
 *   -> build_configure: configure in a separate build directory with
 *      CC=<pgoptcc next to pgbuild> and AR/RANLIB = gcc-ar/gcc-ranlib
 *      (LTO-aware archivers, harmless without LTO: baseline and candidate
 *      configure identically)
 *   -> build_invalidate (incremental.c), build_compile: make -jN, make -C
 *      contrib -jN; build_install: make install (+ contrib) into --prefix
 *   -> build_checks: smoke benchmark (`pgbuild bench`, unless --no-bench)
 *      and an optional gate against a baseline (`pgbuild gate`)
 *   -> build_finish: <prefix>/pgopt-build.json (and a copy in the build
 *      directory; record.c), and a warning for each section of the policy
 *      that matched no translation unit the build compiled (a misspelt
 *      path leaves the build stock; `pgbuild verify` fails on it).
 *
 * The policy reaches the compiler through the environment of make
 * (PGOPT_POLICY, PGOPT_LOGDIR=<builddir>/pgopt-log, PGOPT_PREFIX=ccache), so
 * configure's probes and everything else pgoptcc decides stay pgoptcc's.
 * `--policy none` builds the baseline: the same configure, the same
 * compiler, pgoptcc in passthrough, still logged.
 *
 * Incremental rebuilds.  make does not know that objects depend on the
 * policy, so before make runs again in an existing build directory, pgbuild
 * asks pgoptcc what it would now do with each object's recorded compile: it
 * replays the argv of the last successful compile of every object from
 * compile.jsonl through pgoptcc with PGOPT_PREFIX=true (so the final command
 * line is computed and logged, but only `true` runs) and marks the objects
 * whose final command line changed as out of date (time stamp 0; see
 * make_stale()).  make then recompiles exactly those and relinks what
 * contains them; the compile log proves it.  Links are replayed the same
 * way: an output (postgres, a library, a contrib module) whose final link
 * command line changed is marked out of date too, so an ldflags-only policy
 * change relinks without recompiling.  The policy's hash (and the dry-run
 * shortcut of unchanged_since_last_build()) covers the files the policy
 * names (hot = FILE, cold = FILE) as well as the policy text.
 */
#ifndef PGBUILD_BUILD_H
#define PGBUILD_BUILD_H

#include "pgbuild/build/source.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* What `pgbuild build` was asked to do (its options). */
struct build_opts {
	const char *src;            /* --src, NULL = default */
	const char *policy;         /* --policy FILE or "none" */
	const char *prefix;         /* --prefix */
	const char *builddir;       /* --builddir, NULL = <prefix>.build */
	const char *configure_args; /* --configure-args, split on blanks */
	const char *baseline;       /* --baseline PREFIX (with --gate) */
	const char *gate;           /* --gate EXPR */
	const char *gate_args;      /* --gate-args: more `pgbuild gate` options */
	int jobs;                   /* --jobs, default: online CPUs */
	int cassert;                /* --enable-cassert */
	int bench;                  /* 0 with --no-bench */
	int contrib;                /* 0 with --no-contrib */
	int install;                /* 0 with --no-install */
	int quiet;                  /* --quiet: no progress */
	char *bundle;               /* --bundle DIR, absolute (owned): PGOPT_BUNDLE
				     * of every compile, checked after the build
				     * (cmd/build.c) */
	double min_applies;         /* --min-applies PCT (default 90) */
};

#define MAX_PHASES 12

struct phase {
	const char *name;  /* "configure", "make", ... */
	double seconds;    /* wall time */
};

struct build {
	struct build_opts o;
	struct build_source src;
	char *prefix;            /* absolute */
	char *builddir;          /* absolute */
	char *logdir;            /* <builddir>/pgopt-log */
	char *logfile;           /* <logdir>/compile.jsonl */
	char *policy;            /* absolute policy path, NULL for none */
	struct strbuf policy_text; /* its content ("" for none) */
	struct strvec policy_refs; /* files the policy names: key, path pairs
				    * ("hot", "/abs/hot.list", ...) */
	struct strvec policy_ref_text; /* their contents, NULL when unreadable */
	char *policy_sha;        /* sha256 of the content and of every file it
				  * names (a hot/cold list edit is a policy
				  * change) */
	int lto;                 /* the policy switches LTO on */
	unsigned weakened;       /* the hardening classes the policy weakens,
				  * with the caller's PGOPT_WEAKEN (vocab.h) */
	char *lto_mode;          /* "off", "on" or "fat" (the policy library's reading) */
	char *cc;                /* real compiler: $PGOPT_CC or gcc */
	char *cc_version;        /* first line of cc --version */
	char *ar, *ranlib;       /* gcc-ar/gcc-ranlib or NULL */
	struct strvec configure; /* configure's arguments */
	struct strvec env;       /* environment changes for configure/make */
	char *ccache_dir;        /* CCACHE_DIR we chose, or NULL */
	struct phase phases[MAX_PHASES];
	int nphases;
	double t0;               /* start (monotonic seconds) */
	char started[32];        /* start, ISO 8601 UTC */
	int fresh;               /* the build directory had no build yet */
	int reconfigured;        /* configure ran */
	long log_first;          /* first line of this build's log records */
	long log_last;           /* lines in the compile log at the end */
	long invalidated;        /* objects deleted because their flags changed */
	long replayed;           /* objects checked by the dry run */
	struct strvec invalidated_tus;
	long inval_contrib;      /* ... of which under contrib/ */
	long links_checked;      /* link outputs checked by the dry run */
	long relinked;           /* link outputs marked stale: their final
				  * link command line changed */
	long relink_contrib;     /* ... of which under contrib/ */
	struct strvec relinked_outputs; /* their paths (relative to builddir) */
	int tty;                 /* stderr is a terminal: progress line */
	int prog_step;           /* not a terminal: tenths of the total shown */
	double prog_last;        /* ... and when (seconds into the phase) */
	long phase_done;         /* translation units the last phase compiled */
	int compiled;            /* build_compile succeeded: the log holds the
				  * build's compiles (the unmatched-section
				  * warning at the end) */
	int quiet;               /* no progress output */
	struct strbuf bench;     /* JSON object: workload -> bench result */
	char *bench_note;        /* why the bench did not run, or NULL */
	int bench_code;          /* worst bench exit code */
	int gate_code;           /* -1 not run */
};

/* ---------------- phases (build.c), in order ---------------- */

/* Defaults of every option (jobs: the online CPUs; bench, contrib, install on). */
void build_init(struct build *b);
/* Policy (checked as pgoptcc checks it), absolute prefix and build directory, the
 * source, the compiler, make's environment and configure's arguments. */
int build_setup(struct build *b);
/* configure, unless the build directory is configured the same way; after
 * a new configuration, make clean. */
int build_configure(struct build *b);

/*
 * How configure is called from builddir: SRCDIR/configure, or, when
 * builddir is inside the source tree, by its relative path
 * ("../configure" for SRC/build), as debhelper calls it for Debian's
 * packages.  It matters to PGO: PostgreSQL's makefiles name every source
 * by abs_top_srcdir, which configure makes "BUILDDIR/.." then, and GCC's
 * profile id of a static function hashes that name, so a profile applies
 * to a package build's static functions only when the training compiled
 * the same names.  Malloced.
 */
char *build_configure_path(const char *srcdir, const char *builddir);
/* make and make -C contrib, with the progress line. */
int build_compile(struct build *b);
/* make install (and contrib's), unless --no-install. */
int build_install(struct build *b);
/* The smoke benchmark and the gate; returns the exit code so far (0, 1
 * when a check failed, 2 when one could not run). */
int build_checks(struct build *b);
/* Write the record (whenever there is a build directory), print the
 * result's path when rc is 0, free b. */
void build_finish(struct build *b, int rc);
/* Free what b holds (build_finish's last step; a b of build_init only is
 * fine). */
void build_release(struct build *b);

/* Remember a phase's wall time for the record. */
void build_add_phase(struct build *b, const char *name, double seconds);

/* ---------------- the policy (policy.c) ---------------- */

/* Read the policy (--policy, or "none"), check it as pgoptcc does and take its
 * LTO mode, the files it names and the hardening it weakens, and hash all
 * of it.  0 or -1. */
int build_load_policy(struct build *b);
/*
 * What the caller allows policies, from the environment as pgoptcc reads
 * it: PGOPT_UNCHECKED_FLAGS=yes (POLICY_UNCHECKED_FLAGS) and PGOPT_WEAKEN's
 * hardening classes (POLICY_WEAKEN; pgbuild --weaken sets it), the flags
 * of policy_load.  0, or -1 after an error naming the bad value.
 */
int build_policy_flags(unsigned *flags);
/*
 * The hash pgbuild build records as policy.sha256 for a policy: its text and
 * every file it names (hot/cold lists); "none" hashes the empty text.  NULL,
 * with the error printed, when the policy is unreadable or rejected.
 */
char *build_policy_sha(const char *policy);

/* ---------------- incremental rebuilds (incremental.c) ---------------- */

/*
 * In a build directory built before: mark for rebuilding the objects and
 * link outputs whose final command line the policy now in effect changes
 * (nothing when the directory is exactly as its last successful build of
 * the same policy left it).  0 or -1.
 */
int build_invalidate(struct build *b);

/* ---------------- the record (record.c) ---------------- */

/* Write pgopt-build.json into the build directory (and the prefix, when
 * installed and ok) and print the one-line summary. */
void build_write_record(struct build *b, int ok);

/*
 * Is the build tree builddir ours alone?  Root never runs make in, or
 * reads build instructions from, a tree another user could change: one an
 * earlier pgbuild handed to the server user (regress, profile and pgo used
 * to chown it) holds Makefiles that user may have edited.  Walks the tree
 * (sfs_tree_foreign; the top-level names in skip not looked at).  0 when
 * nobody else can change anything in it (or it does not exist yet, or we
 * are not root), else -1 after one error naming the entry, its owner and
 * the fix.
 */
int build_tree_ours(const char *builddir, const char *const *skip);

/* The compiler builds use: $PGOPT_CC, else gcc. */
const char *build_compiler(void);

/* Is the compiler cc clang (its --version says so)? */
int build_compiler_is_llvm(const char *cc);

/*
 * A tool of the compiler cc's own toolchain: gcc-TOOL for gcc (gcc-ar-12
 * for gcc-12: the archivers that keep LTO objects usable); for clang,
 * llvm-TOOL beside the compiler's resolved path (/usr/lib/llvm-15/bin
 * for clang-15: llvm-ar, llvm-profdata; a TOOL with a dot is taken as
 * named: ld.lld), else llvm-TOOL-15 (ld.lld-15) on PATH.
 * Malloced; NULL when not installed.
 */
char *build_compiler_tool(const char *cc, const char *tool);

/* The test tree `pgbuild regress` makes in a build tree (regress.c): the
 * server user's, removed at the end; never part of the build. */
#define BUILD_CHECK_TREE "pgopt-check"

#endif
