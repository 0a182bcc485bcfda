/*
 * bolt.h - post-link layout optimization of an installed build with LLVM
 * BOLT 15 (`pgbuild bolt`).
 *
 * The recipe (measured on PostgreSQL 15.18, gcc 12, Debian's bolt-15; see
 * pgbuild/README.md, "pgbuild bolt"):
 *
 *   0. readiness: the input postgres must have been built with the policy
 *      line `bolt = ready` ([global]): its code relocations are kept
 *      (.rela.text, from -Wl,--emit-relocs) and gcc split no function into
 *      a .cold fragment (-fno-reorder-blocks-and-partition).  A stock gcc
 *      -O2 postgres has neither, and BOLT's rewrite of it breaks initdb, so
 *      such an input is refused naming the policy line;
 *   1. instrument: llvm-bolt IN -instrument -instrument-calls=0
 *      -instrumentation-file=WORKDIR/prof/prof
 *      -instrumentation-file-append-pid -o WORKDIR/postgres.inst.
 *      -instrument-calls=0 is required: BOLT 15's runtime maps its counters
 *      MAP_SHARED before PostgreSQL forks, and its indirect-call tables,
 *      allocated at the same offsets in every forked process, alias; with
 *      call instrumentation backends die of SIGSEGV (a stack overflow) in
 *      the profile dump at exit;
 *   2. train: a copy of the prefix with the instrumented postgres runs
 *      every workload (pgbuild bench) on a private cluster made from a data
 *      directory that the original binary initialized, with
 *      max_parallel_workers_per_gather=0, max_parallel_maintenance_workers=0
 *      and autovacuum=off (autovacuum=off only when the regression suite is
 *      among the workloads: it expects parallel query), then stops; the stop waits for the postmaster
 *      process itself, which writes its profile after postmaster.pid is
 *      gone.  The counters are shared by all processes of the server, so
 *      every per-process file is a cumulative snapshot: the profile is the
 *      postmaster's (the last, complete one), never a merge of all files;
 *   3. optimize: llvm-bolt IN -o WORKDIR/postgres.bolt -data=PROFILE with
 *      the layout flags (BOLT_OPTIMIZE_FLAGS, or --bolt-flags); BOLT's coverage line and its
 *      two dyno-stats blocks are parsed and kept; the result goes into a
 *      NEW prefix OUT, a copy of IN with the rewritten postgres (mode 0755:
 *      BOLT writes 0777), and OUT/pgopt-build.json is IN's record with a
 *      "bolt" object (see pgbuild/README.md for its fields);
 *   4. regress: PostgreSQL's regression suite (installcheck, build/regress.h)
 *      from IN's build tree against a server started from OUT.
 *
 * The work directory (default OUT.bolt) keeps the profile (profile.fdata)
 * with its manifest (profile.fdata.json: the input's sha256, the workloads
 * and training settings, the postmaster's pid and counts) and the logs of
 * every step (logs/).  A rerun reuses the profile while the input binary
 * and the training are unchanged, and trains again, saying why in one line,
 * when they changed; a profile given with --profile is refused when its
 * manifest says it was trained on another binary (or other workloads, when
 * -W is given).
 */
#ifndef PGBUILD_BOLT_H
#define PGBUILD_BOLT_H

#include <stdint.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* Where Debian's bolt-15 installs the tools that find their runtime. */
#define BOLT_DEFAULT_DIR "/usr/lib/llvm-15/bin"
/* Overrides BOLT_DEFAULT_DIR (--bolt overrides both). */
#define BOLT_DIR_ENV "PGBUILD_BOLT"
/* The package, for errors. */
#define BOLT_PACKAGE "bolt-15"

#define BOLT_INSTRUMENT_FLAGS "-instrument -instrument-calls=0 -instrumentation-file-append-pid"
#define BOLT_OPTIMIZE_FLAGS \
	"-reorder-blocks=ext-tsp -reorder-functions=hfsort+ -split-functions -split-all-cold " \
	"-split-eh -icf=1 -use-gnu-stack -dyno-stats"
/* Server settings of every training run (more with --set). */
#define BOLT_TRAIN_SETTINGS \
	"max_parallel_workers_per_gather=0", "max_parallel_maintenance_workers=0", \
	"autovacuum=off"
/* ... of one that runs the regression suite, whose expected output has
 * parallel plans and workers' messages (select_parallel, partition_prune
 * fail without them) */
#define BOLT_TRAIN_SUITE_SETTINGS "autovacuum=off"

/* The policy line a binary that is not ready needs, for errors. */
#define BOLT_POLICY_LINE "bolt = ready"

/* ---------------- BOLT's statistics (bolt/stats.c) ---------------- */

/* The 18 program-wide dyno-stats, in the order BOLT prints them. */
#define BOLT_DYNO_NR 18
extern const char *const bolt_dyno_names[BOLT_DYNO_NR];

/* What one llvm-bolt optimization said about its work. */
struct bolt_stats {
	long functions_profiled;   /* "N out of M functions ... have non-empty
				    * execution profile"; -1 when not printed */
	long functions;            /* M */
	double profiled_percent;   /* its percentage */
	int have_dyno;             /* both dyno-stats blocks were found */
	uint64_t before[BOLT_DYNO_NR]; /* the input's layout under the profile */
	uint64_t after[BOLT_DYNO_NR];  /* after BOLT's passes (before SCTC and FOP) */
	double change[BOLT_DYNO_NR];   /* BOLT's own "(+9.5%)"; 0 for "(=)" */
	long reordered_functions;  /* "basic block reordering modified layout of
				    * N ..."; -1 when not printed */
	long hot_bytes, cold_bytes;  /* "splitting separates N hot bytes from M
				      * cold bytes"; -1 when not printed */
	int build_id_patched;      /* "patched build-id (flipped last bit)" */
	long stale_functions;      /* "N (P% of all profiled) functions have invalid
				    * (possibly stale) profile"; 0 when not printed */
	int64_t stale_samples;     /* "N out of M samples in the binary (P%) belong to
				    * functions with invalid (possibly stale) profile" */
	int64_t samples;           /* M; both -1 when not printed */
};

/*
 * Parse the text llvm-bolt printed (stdout and stderr) into st.  Returns 0
 * when the coverage line was found (a rewrite with or without a profile
 * always prints it), -1 when not (the statistics that were found are kept).
 */
int bolt_parse_stats(const char *log, struct bolt_stats *st);

/*
 * One dyno-stats line, "   1464455493 : executed forward branches (+9.5%)":
 * its index in bolt_dyno_names, the value and the change (0 for "(=)" or
 * none; *has_change says whether there was one).  -1 when the line is not
 * a dyno-stats line.
 */
int bolt_parse_dyno_line(const char *line, uint64_t *value, double *change, int *has_change);

/* The "bolt" record's statistics: "coverage", "dyno_stats" and "layout". */
void bolt_stats_json(struct json_writer *jw, const struct bolt_stats *st);

/* BOLT's own error line in its output (the last "BOLT-ERROR" or "error"
 * line, else the last line), malloced. */
char *bolt_error_line(const char *log);

/* ---------------- the profile and its manifest (bolt/profile.c) ---------------- */

/* What a profile was trained on (and what a run wants). */
struct bolt_train_key {
	const char *input_sha256;  /* sha256 of the input postgres */
	const char *workloads;     /* comma-separated, in training order */
	double duration;           /* seconds per workload */
	int clients;               /* bench clients */
	int scale;                 /* pgbench scale */
	const char *settings;      /* the --set settings, space-separated ("" none) */
};

/* What bolt_profile_check compares. */
#define BOLT_CHECK_INPUT     0x1   /* the input binary */
#define BOLT_CHECK_WORKLOADS 0x2   /* the workloads */
#define BOLT_CHECK_TRAINING  0x4   /* duration, clients, scale, --set */

/*
 * The staleness decision: is a profile whose manifest is m (NULL: none)
 * current for want, comparing what says?  Returns 1 when it is, 0 when
 * it is stale or cannot be judged, with one reason in why ("the input
 * binary changed (sha256 ab12... now, cd34... when trained)", "the
 * workloads changed (trained on select-only,tpcb; now select-only)", "the
 * training changed (...)", "it has no manifest").
 */
int bolt_profile_check(const struct json_value *m, const struct bolt_train_key *want,
		       unsigned what, struct strbuf *why);

/* Sum of the counts (last field of every line) of the .fdata file name
 * below dirfd (the server user's directory: O_NOFOLLOW, a regular file, at
 * most SFS_IN_PROFILE's limit); -1 when it cannot be read. */
int64_t bolt_fdata_count(int dirfd, const char *name);

/* The manifest of the profile at path: path + ".json", malloced. */
char *bolt_manifest_path(const char *profile);

/* sha256 of a file's contents into hex; 0 or -1 after the error. */
int bolt_file_sha256(const char *path, char hex[65]);

/* ---------------- the run (bolt/run.c, train.c, tools.c, prefix.c) ---------------- */

/* What to do (the options of `pgbuild bolt`). */
struct bolt_opts {
	const char *install;      /* --install IN: the BOLT-ready install */
	const char *prefix;       /* --prefix OUT: the new install */
	const char *workdir;      /* --workdir (NULL: OUT.bolt) */
	const char *profile;      /* --profile FILE: use it, no training */
	const char *builddir;     /* --builddir (NULL: from IN's record) */
	const char *bolt_dir;     /* --bolt DIR (NULL: $PGBUILD_BOLT, default) */
	const char *json;         /* --json FILE: the "bolt" record, or NULL */
	const char *flags;        /* --bolt-flags: the layout flags (NULL: the default) */
	struct strvec workloads;  /* -W, training workloads */
	struct strvec settings;   /* --set, more training settings */
	double duration;          /* -T, seconds per workload */
	int clients;              /* -c */
	int scale;                /* -s */
	int jobs;                 /* -j, make jobs of the suites */
	int workloads_given;      /* -W was given */
	int retrain;              /* --retrain */
	int regress;              /* 0 with --no-regress */
	int contrib;              /* --contrib: contrib's installcheck too */
	int force;                /* --force: replace an installed OUT */
	int quiet;                /* -q */
};

void bolt_opts_init(struct bolt_opts *o);
void bolt_opts_release(struct bolt_opts *o);

/* The layout flags of the rewrite: --bolt-flags, else BOLT_OPTIMIZE_FLAGS. */
const char *bolt_optimize_flags(const struct bolt_opts *o);

/*
 * Check FLAGS, given as option OPT (--bolt-flags, a bundle manifest's
 * bolt.optimize_flags), as llvm-bolt's layout flags: one or more words,
 * each an option ("-name" or "-name=value") of the allow-list of
 * vocab_bolt_check (wrapper/policy/vocab.h): layout and optimization
 * options with checked values, none that names a path, prints or writes
 * a file, takes a runtime library or is one pgbuild gives itself (-o,
 * -data, -instrument...).  0, or -1 after an error naming the word and
 * why, before llvm-bolt runs.
 */
int bolt_check_flags(const char *opt, const char *flags);

/* Push FLAGS' words onto args, and -dyno-stats when they lack it (the
 * record's statistics are parsed from its output). */
void bolt_push_flags(struct strvec *args, const char *flags);

/* Everything a run works with; filled by bolt_prepare. */
struct bolt_run {
	const struct bolt_opts *o;
	char *in;                 /* IN, absolute and resolved */
	char *in_binary;          /* IN/bin/postgres */
	char *out;                /* OUT, absolute */
	char *workdir;            /* absolute */
	char *builddir;           /* the build tree for regress, or NULL */
	char *llvm_bolt;          /* DIR/llvm-bolt */
	char *bolt_version;       /* first line of llvm-bolt --version */
	char in_sha[65];          /* sha256 of IN/bin/postgres */
	char *profile;            /* the profile to use (after train/reuse) */
	int reuse;                /* 1: the profile is current, no training */
	int replace_out;          /* OUT exists and is replaced */
	struct strbuf workloads;  /* o->workloads joined by "," */
	struct strbuf settings;   /* o->settings joined by " " */
	struct json_value *in_record; /* IN/pgopt-build.json, or NULL */
	double secs[4];           /* instrument, train, optimize, regress */
	struct bolt_stats stats;  /* of the optimization */
	struct json_value *manifest; /* the profile's manifest, or NULL */
	int regress_rc;           /* exit code of the suite (-1: not run) */
	char *regress_json;       /* its --json file */
};

/*
 * Every check before the long work: BOLT installed (and its
 * instrumentation runtime when training), IN an install whose postgres is
 * BOLT-ready and not BOLT's output, OUT not IN, not inside it, absent or
 * a previous bolt output (or an install, with --force), the work
 * directory outside both, the --profile and its manifest, the build tree
 * of the regression suite, and (as root) the directories the server user
 * must reach.  Decides whether the kept profile is reused (one line says
 * why not).  0, or -1 after one error.
 */
int bolt_prepare(struct bolt_run *b, const struct bolt_opts *o);
void bolt_release(struct bolt_run *b);

/* llvm-bolt in b->o->bolt_dir (--bolt), $PGBUILD_BOLT or Debian's
 * directory, into b->llvm_bolt, and its version into b->bolt_version.  0,
 * or -1 after one error (BOLT not installed: how to install it). */
int bolt_prepare_tools(struct bolt_run *b);
/*
 * Where llvm-bolt is: given (--bolt DIR), else $PGBUILD_BOLT, else
 * BOLT_DEFAULT_DIR; *origin says which ("--bolt", "$PGBUILD_BOLT", "the
 * default").  bolt_check_dir: 0 when DIR/llvm-bolt is a program, else -1
 * after the error naming DIR, origin and the package.
 */
const char *bolt_dir_of(const char *given, const char **origin);
int bolt_check_dir(const char *dir, const char *origin);
/* The same check, silent: 0 when DIR/llvm-bolt is a program, else -1. */
int bolt_check_dir_quiet(const char *dir);

/* The word of llvm-bolt's FLAGS that rewrites PLT calls (-plt=hot,
 * -plt=all; allocated), or NULL. */
char *bolt_plt_flag(const char *flags);

/* Is the binary BOLT-ready for llvm-bolt's layout FLAGS (NULL: the
 * default ones)?  1 ready; 0 not, with the sentence naming the policy line
 * in why; -1 when it cannot be read (why says so).  -plt=hot and -plt=all
 * need a binary linked with -z now: BOLT refuses one without it, after
 * training. */
int bolt_binary_ready(const char *binary, const char *flags, struct strbuf *why);

/* The steps; each returns 0, or the exit code (2) after its error. */
int bolt_instrument(struct bolt_run *b);
int bolt_train(struct bolt_run *b);
int bolt_optimize(struct bolt_run *b);
/* The regression suite against OUT: 0 passed, 1 failed, 2 could not run. */
int bolt_regress(struct bolt_run *b);

/* Write OUT/pgopt-build.json (and --json): IN's record with "bolt". */
int bolt_write_record(struct bolt_run *b);

/* Run llvm-bolt with args (after the program), output into log; its exit
 * code, or -1 when it could not run.  When it fails, one error says
 * "llvm-bolt WHAT (exit N): BOLT's own error line (log: LOG)". */
int bolt_exec(const struct bolt_run *b, const struct strvec *args, const char *log,
	      const char *what);

/* dst (removed first) = a copy of the install src (cp -a) with binary as
 * its bin/postgres, mode 0755.  0 or -1 after the error. */
int bolt_copy_prefix(const char *src, const char *dst, const char *binary);

/* WORKDIR/NAME, malloced. */
char *bolt_path(const struct bolt_run *b, const char *name);

/* The whole run: the steps with a progress line each.  Exit code. */
int bolt_run_all(struct bolt_run *b);

#endif
