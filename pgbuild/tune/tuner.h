/*
 * tuner.h - `pgbuild tune`'s evaluator and run: compiler flags for one
 * scope of PostgreSQL searched by measured elimination (the search itself
 * is engine.h, which knows nothing of builds).
 *
 * One evaluation = "is candidate set C as fast as reference set R?":
 *
 *   build C   `pgbuild build --no-install` in ONE build directory (reused:
 *             pgbuild build recompiles only the objects whose flags the
 *             policy changes, i.e. the scope, and ccache answers every
 *             object compiled before), then `make install DESTDIR=` into
 *             WORKDIR/sets/<id>/stage, then `pgbuild regress` on that tree
 *             (after the install, which brings make check's copies up to
 *             date), then the stage becomes WORKDIR/sets/<id>/prefix (an
 *             install is relocatable; the build directory keeps the prefix
 *             it was configured with, so it is never reconfigured);
 *   compare   `pgbuild gate --baseline R --candidate C --json`, read back:
 *             the ratio (candidate speed / reference speed) and its
 *             interval, exact for --metric instructions.
 *
 * Installs are kept per set, so a set is built once per work directory
 * whatever the search does with it.  Candidates come from a list (default
 * examples/tune-candidates.txt); flags PostgreSQL must not get (the wrapper's
 * policy_forbidden_add list: fast-math family, -fno-wrapv, ...) are refused
 * before anything runs, and every generated policy is parsed by the
 * wrapper's own parser, so no unsafe policy can ever be built.
 *
 * The state (--state, JSON lines) is rewritten atomically after every
 * evaluation: a killed tune rerun with the same options resumes; what the
 * state answers is neither rebuilt nor re-measured.
 */
#ifndef PGBUILD_TUNER_H
#define PGBUILD_TUNER_H

#include <stdio.h>

#include "pgbuild/stage/stage.h"
#include "pgbuild/tune/engine.h"

/* What `pgbuild tune` was asked to do (its options). */
struct tune_opts {
	const char *src;          /* --src */
	const char *workload;     /* --train (or its older spelling
				     -W, --workload): the search's workload */
	const char *held_out_arg; /* --held-out LIST|none (default
				     WORKLOADS_HELDOUT) */
	int held_out_given;       /* --held-out was given (not the default) */
	struct strvec held_out;   /* its workloads, judged after the search */
	double *held_res;         /* their resolutions (deterministic
				     metrics: the layout floor's, the repeat
				     one with --noise none, NAN without a
				     floor: undecided; tps 0) */
	const char *scope;        /* --scope global|GLOB|@FILE */
	const char *candidates;   /* --candidates FILE */
	const char *state;        /* --state FILE */
	const char *out;          /* --out POLICY */
	const char *workdir;      /* --workdir */
	const char *builddir;     /* --builddir */
	const char *baseline;     /* --baseline PREFIX (stock install) */
	const char *metric;       /* tps | instructions */
	const char *json;         /* --json FILE */
	const char *lock;         /* --lock FILE: flock it around each evaluation */
	const char *noise;        /* --noise FILE|none (resolved by cmd/tune.c) */
	char *bundle;             /* --bundle DIR, absolute (owned): every set is
				     built on the bundle's policy with its PGO
				     profile (PGOPT_BUNDLE), without training */
	double min_applies;       /* --min-applies PCT: the share of the
				     profile's weight a set must keep */
	char *resolution_source;  /* where p.resolution came from (owned;
				     NULL for tps); with p.resolution NAN (no
				     layout floor) why tuner_run refuses */
	char *noise_note;         /* which floor, or why none (owned) */
	int measure_floor;        /* no --baseline and no --noise: tune
				     measures stock's layout floor right
				     after building stock (tuner.c) */
	struct gate_step gate;    /* --pairs, --duration, --clients (tps) */
	int jobs;                 /* --jobs for make */
	int regress;              /* 0 with --no-regress */
	int dry_run;              /* --dry-run: show candidates and policies */
	int plugin;               /* --plugin on|off; -1: off under distcc */
	int quiet;                /* --quiet */
};

/* The best set against stock on one held-out workload: what the search
 * did not train on. */
struct tune_held {
	const char *workload;      /* of o.held_out */
	double resolution;         /* o.held_res's */
	struct tune_eval e;        /* the gate's ratio best/stock */
	const char *verdict;       /* "faster", "not significant", "slower",
				      "undecided", "unmeasured"
				      (tuner_held_verdict) */
};

/* One tune run. */
struct tuner {
	struct tune_opts o;
	struct tune_engine t;
	struct strvec scope_globs;  /* section headers of the scope */
	int global;                 /* scope is global */
	struct strvec refused;      /* "flag: reason" */
	char *workdir, *builddir;   /* absolute */
	char *build_prefix;         /* the prefix builddir is configured with */
	char *stock_prefix;         /* --baseline, or WORKDIR/sets/stock/prefix */
	double t0;                  /* start (monotonic seconds) */
	struct tune_held *held;     /* one per o.held_out, after the search */
	size_t nr_held;             /* 0: not judged (best is stock, or none) */
	/* o.measure_floor: measures the layout floor of the installed stock
	 * (tu->stock_prefix, its tree tu->builddir) into file, its variants
	 * in workdir (noise's engine, called as a library; --reuse: a floor
	 * already there answers), and reads it into t.p.resolution,
	 * o.held_res, o.resolution_source and o.noise_note by the rule the
	 * gate uses (cmd/tune.c: noise/ is above this layer); 0, or -1 after
	 * the error */
	int (*measure_floor)(struct tuner *tu, const char *file, const char *workdir);
};

/* WORKDIR/STOCK_FLOOR_FILE: stock's layout floor when tune measures it
 * (o.measure_floor), `pgbuild noise`'s document; its variants and runs in
 * WORKDIR/stock-noise. */
#define TUNE_STOCK_FLOOR "stock-noise.json"

/* Defaults of every option and of the search parameters p. */
void tuner_init(struct tuner *tu, struct tune_params *p);

/*
 * The whole tune: scope and candidates (refusing unsafe flags), the start
 * policy checked by pgoptcc's parser (printed with --dry-run), a refusal
 * when a deterministic metric has no resolution (p->resolution NAN: no
 * layout floor; before anything is made) unless tune measures stock's
 * (o.measure_floor: stock built, then `pgbuild noise` on it, before the
 * first gate), the state of an earlier run, the search, the best policy,
 * the report and --json.  Returns the exit
 * code (0 converged, 1 stopped by the budget, 2 error).
 */
int tuner_run(struct tuner *tu, const struct tune_params *p);

/* Release what tuner_init and tuner_run allocated. */
void tuner_release(struct tuner *tu);

/* The parts of the run (tuner.c), what is tuned (policy.c), what is
 * reported (output.c). */

/* The install prefix of set s (WORKDIR/sets/ID/prefix, or --baseline for
 * stock; with --bundle WORKDIR/pgo-sets/ID/prefix, the empty set too: it
 * is the bundle's own build); to free. */
char *tuner_set_prefix(struct tuner *tu, tune_set s);

/* Read the candidate list at path into the engine's flags, refusing (with
 * a warning, listed in tu->refused) the flags PostgreSQL must not get. */
int tuner_load_candidates(struct tuner *tu, const char *path);

/* DATADIR/pgoptcc/tune-candidates.txt, the default --candidates. */
const char *tuner_default_candidates(void);

/* --scope: global, a glob, or @FILE of globs, into tu->global and
 * tu->scope_globs. */
int tuner_load_scope(struct tuner *tu);

/* The text of set's policy (to be written at path), checked by the
 * wrapper's parser; NULL with the error printed when it refuses it. */
char *tuner_policy_text(struct tuner *tu, tune_set set, const char *path);

/* The step table, best set and totals (out_path: the policy written, or
 * NULL). */
void tuner_print_report(struct tuner *tu, FILE *fp, const char *out_path);

/* The --json document, written atomically to path. */
/* WORKDIR/best.json: tuner_write_json's document of the finished search,
 * beside best.policy, whatever --json says; its "workload" is what the
 * best policy was chosen on. */
#define TUNE_BEST_JSON "best.json"
int tuner_write_json(struct tuner *tu, const char *path, const char *out_path);

/* --dry-run --json: the plan as a document (kind "pgbuild-tune-plan": the
 * training and held-out workloads, the metric and its resolution, the
 * candidates kept and refused, and the start policy's text), written to
 * path ("-": the standard output) as write_result does.  0, or -1 after
 * the error. */
int tuner_write_plan_json(const struct tuner *tu, const char *path, const char *policy_text);

/*
 * A held-out ratio's verdict: "faster" when the ratio beats 1 beyond the
 * resolution (deterministic metrics: the gate's relative interval,
 * ratio x (1 - resolution) > 1; tps, resolution 0: the interval's lower
 * end above 1), "slower" the mirror (ratio x (1 + resolution) < 1), else
 * "not significant"; "undecided" when the resolution is NAN (no layout
 * floor: nothing is decided at the repeat resolution); "unmeasured"
 * without a ratio.  The gate's threshold rule with the claim 1.
 */
const char *tuner_held_verdict(const struct tune_eval *e, double resolution);

/*
 * What the held-out workloads say of the best set together: "slower" when
 * one is slower (tune exits 1: the search's gain does not transfer),
 * "unmeasured" when one could not be measured, "not significant" when one
 * is inside its resolution, "faster" when every one is faster; "not
 * judged" for none (nothing held out, or the best is stock).
 */
const char *tuner_held_overall(const struct tune_held *h, size_t n);

#endif
