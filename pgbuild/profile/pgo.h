/*
 * pgo.h - a profile-guided PostgreSQL build in one command (`pgbuild pgo`).
 *
 *   1. instrumented build: the user's policy (LTO switched off: the profile
 *      is taken and matched at compile time, LTO only costs link time here)
 *      built with PGOPT_PROFILE="generate GLOBS" in the build's environment,
 *      with which pgoptcc adds -fprofile-generate -ftest-coverage to the
 *      server's units (src/backend, src/pl, src/timezone, contrib; or the
 *      --files globs) and -fprofile-generate to links (a policy may not
 *      name profile flags: they write files), through `pgbuild build` into
 *      --prefix/--builddir;
 *   2. training: a private cluster of that install runs each workload
 *      (pgbuild bench); a fast shutdown makes every server process write its
 *      counts as .gcda files next to the objects in the build directory
 *      (handed to the server user first); the manifest
 *      <builddir>/pgopt-pgo.json records the workloads and a hash of every
 *      translation unit's source;
 *   3. optimized build in the same build directory: the user's policy (LTO
 *      as it says) under PGOPT_PROFILE="use GLOBS", with which pgoptcc adds
 *      -fprofile-use -fprofile-partial-training to those units (code the
 *      training never ran is optimized normally, not for size);
 *      pgbuild build's incremental mode recompiles every object whose flags
 *      changed, and GCC finds each object's .gcda next to it;
 *   4. PostgreSQL's regression suite on the result (pgbuild regress), and
 *      optionally a gate against a baseline (pgbuild gate).
 *
 * With clang as the compiler (PGOPT_CC; build_compiler_is_llvm) the same
 * stages are clang's instrumented PGO: the instrumented units get
 * -fprofile-generate, every process writes one raw profile per binary
 * where LLVM_PROFILE_FILE says (PROF_LLVM_PROFRAW in the server user's
 * directory), prof_profraw_merge copies them back and merges them with the
 * compiler's llvm-profdata into BUILDDIR/PROF_LLVM_PROFDATA, and the
 * optimized build runs under PGOPT_PROFILE="use=FILE GLOBS"
 * (-fprofile-use=FILE).  The manifest says which format it holds; staleness
 * is clang's own per-function hash check (one file holds every unit).
 *
 * Profiles are kept and reused: a later `pgbuild pgo` with the same
 * workloads and instrumentation (the instrumented stage's policy, comments
 * aside - so adding `lto = on` to the policy reuses them) skips stages 1-2.  Stale profiles are
 * detected from the manifest: a unit whose source changed since training
 * has its .gcda removed (it is compiled without a profile) and is reported;
 * --retrain trains again.  GCC's own check (coverage-mismatch, e.g. after a
 * header change) is kept as a warning instead of an error.
 */
#ifndef PGBUILD_PGO_H
#define PGBUILD_PGO_H

#include "pgbuild/profile/run.h"
#include "pgbuild/stage/stage.h"
#include "wrapper/common/strvec.h"

#define PGO_MANIFEST "pgopt-pgo.json"
/* ... and the optimized one, under PGOPT_PROFILE=use */
#define PGO_USE_CFLAGS POLICY_PROFILE_USE

/* What to build and train (the options of `pgbuild pgo`). */
struct pgo_opts {
	const char *src;         /* --src, NULL: the default source */
	const char *prefix;      /* --prefix OUT */
	const char *builddir;    /* --builddir, NULL: OUT.build */
	const char *policy;      /* user's policy, or NULL */
	const char *configure_args; /* --configure-args of both builds, or NULL */
	struct strvec files;     /* --files globs; empty: every file */
	const char *baseline;    /* --baseline PREFIX (with --gate) */
	const char *gate;        /* --gate EXPR */
	struct gate_step gate_step; /* the gate's --pairs, --budget,
				     * --gate-duration, --gate-clients */
	int jobs;                /* --jobs for make (0: build's default) */
	int retrain;             /* --retrain: train even when profiles are current */
	int instrument_only;     /* stop after the instrumented build */
	int regress;             /* 0 with --no-regress */
	int quiet;               /* --quiet */
	struct prof_run run;     /* the training: workloads, clients, duration */
};

/*
 * The user's policy (path, NULL: none) as the start of a policy generated
 * in another directory: relative hot and cold list paths made absolute
 * against the policy's own directory; lto lines commented out when
 * drop_lto (the instrumented stage); the rest as written, after a
 * "# from PATH" line.  Appends to out; 0, or -1 after an error naming the
 * policy.  A NULL path or "none" (build's --policy none) appends nothing.
 */
struct strbuf;
int pgo_policy_base(const char *path, int drop_lto, struct strbuf *out);

/* The same for a policy's text that is (or was) the file path (a policy
 * recorded in a build's pgopt-build.json, say), through the policy editor
 * (wrapper/policy/edit.h): appends to out; 0, or -1 after an error naming
 * path:line when the text is no valid policy. */
int pgo_policy_text(const char *text, const char *path, int drop_lto, struct strbuf *out);

/*
 * Before a stage's build in builddir: remove the targets make would not
 * relink from changed objects (objfiles.txt, *.so, *.so.*, *.a below
 * builddir/src and builddir/contrib, none below a tmp_install; a link is
 * removed by its name, never followed).  Returns how many were removed.
 */
long pgo_force_relink(const char *builddir);

/* Defaults: select-only,tpcb for 20 s each (set when no -W), regress on. */
void pgo_opts_init(struct pgo_opts *o);
void pgo_opts_release(struct pgo_opts *o);

/* Build, train (or reuse the profiles), build with them, check; writes
 * OUT/pgopt-pgo.json and one result line.  Returns the exit code. */
int pgo_run(struct pgo_opts *o);

#endif
