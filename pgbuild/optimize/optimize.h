/*
 * optimize.h - `pgbuild optimize`: the fastest build this tool can prove,
 * one stage stacked on another, each one measured against stock.
 *
 *   stock   the baseline: pgbuild build --policy none, or --baseline PREFIX
 *   lto     pgbuild build with the lto policy (--policy, default
 *           OPTIMIZE_DEFAULT_POLICY; "bolt = ready" added when missing)
 *   pgo     pgbuild pgo with the lto policy and the workloads (PGO + LTO)
 *   tuned   pgbuild pgo with tune's best policy (+ lto, + bolt = ready),
 *           only when a tune state is given or found
 *   clang   the lto stage's build with clang (--clang; lto = on is ThinLTO
 *           linked by lld there): a second compiler, stacked on stock
 *   clang-pgo  pgbuild pgo with clang: instrumented PGO (-fprofile-generate,
 *           llvm-profdata merge, -fprofile-use) + ThinLTO, stacked on clang
 *           (on stock when clang was dropped)
 *   bolt    pgbuild bolt on the best build kept so far (of either compiler)
 *
 * The clang stages are a second column beside GCC's (lto, pgo, tuned):
 * each is judged against the build it stacks on in its own compiler's
 * chain, and becomes the best build only when its geometric mean beats
 * the best kept so far (optimize_score).  In the default --stages, skipped
 * (with the reason) when the default clang cannot build them.
 *
 * Every candidate is verified (pgbuild verify; not bolt, whose records are
 * its input's), regress-gated (lto: pgbuild regress; pgo and tuned: the
 * suite pgbuild pgo runs; bolt: the installcheck pgbuild bolt runs), and
 * gated against stock (pgbuild gate --metric tps,instructions,cycles) on
 * the evaluation workloads (-W; default the training workloads --train,
 * default OPTIMIZE_DEFAULT_TRAIN, plus OPTIMIZE_HELD_OUT).  The decision
 * (optimize_decide) reads the deterministic cycles estimate on held-out
 * evidence: a stage is kept when it is faster than the build it stacks on
 * by more than optimize_resolution on every workload it was not trained
 * on (pgo, tuned and bolt train on --train; stock and lto on nothing),
 * else dropped with the reason; the in-sample gain is shown beside it;
 * the next stage stacks on the best kept build.  The resolution must be a
 * statistic (stock's layout floor's): at the repeat resolution (--noise
 * none) no gain can be shown (relinking alone moves the estimate
 * 0.3-0.7%), so every stage is dropped ("no layout floor: ...") and the
 * run keeps nothing.  The false-keep rate is per stage: a run of k stages
 * can keep a no-change stage with up to about k times it (simulated: 0.07%
 * a run with stage SDs equal to stock's, 1.5-8% when they are 2-3 times
 * noisier than the stand-in assumes).  The best kept build is copied
 * to --prefix (a temporary sibling, then rename).
 *
 * The run is stage/stage.h's, so it resumes after an interrupt; a stage
 * build whose PREFIX/pgopt-build.json records the same source and the same
 * policy (its lines without comments and blank lines) is reused, so
 * WORKDIR/STAGE may be a symlink to an existing build (prefix/ and build/
 * inside).  The result is WORKDIR/optimize.json (kind "pgbuild-optimize"),
 * rendered as a waterfall by optimize_render_text / optimize_render_html
 * (also `pgbuild report --optimize FILE`).
 */
#ifndef PGBUILD_OPTIMIZE_H
#define PGBUILD_OPTIMIZE_H

#include <stdio.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/stage/stage.h"

/* The held-out workload the default evaluation set adds (the training
 * workloads of pgo, tuned and bolt when --train is not given are the
 * table's WL_TRAIN rows: metric/workloads.h). */
#define OPTIMIZE_HELD_OUT WORKLOADS_HELDOUT

/* What pgo, tuned and bolt train on when --train is not given: the
 * regression suite, as measured (examples/RESULTS.md, 2026-12-05: PGO
 * trained on it kept 1.1072x (gcc) and 1.1897x (clang) of stock held out,
 * where PGO trained on select-only and tpcb added nothing significant on a
 * workload it had not run). */
#define OPTIMIZE_DEFAULT_TRAIN "regress"

/*
 * The defaults of the workload sets: train (--train) empty becomes
 * OPTIMIZE_DEFAULT_TRAIN; eval (-W) empty becomes train's single-user
 * workloads (the WL_TRAIN ones when it has none: training on the suite
 * alone) plus OPTIMIZE_HELD_OUT (when they do not hold it) plus the broad
 * suite's single-user workloads (WL_BROAD | WL_SINGLE: nothing was chosen on
 * them).  An eval given is kept as given.
 */
void optimize_default_workloads(struct strvec *train, struct strvec *eval);

/* The lto stage's policy when --policy is not given: link-time
 * optimization plus what BOLT needs. */
#define OPTIMIZE_DEFAULT_POLICY "[global]\nlto = on\nbolt = ready\n"

/* The stages, in order. */
enum optimize_stage { OS_STOCK, OS_LTO, OS_PGO, OS_TUNED, OS_CLANG, OS_CLANG_PGO, OS_BOLT, OS_NR };
extern const char *const optimize_stage_names[OS_NR]; /* "stock" "lto" ... */

/* The stages when --stages is not given: all of them (the clang ones are
 * skipped, with the reason, when the default clang is not usable). */
#define OPTIMIZE_DEFAULT_STAGES ((1u << OS_NR) - 1)
/* The clang stages' compiler when --clang is not given: the LLVM of
 * bolt-15 (its lld and llvm-profdata beside it). */
#define OPTIMIZE_DEFAULT_CLANG "clang-15"
/* Is stage s built by clang? */
#define OPTIMIZE_IS_CLANG(s) ((s) == OS_CLANG || (s) == OS_CLANG_PGO)

/*
 * --stages LIST (comma-separated, repeatable: call once per value) into
 * *mask (bits 1 << enum optimize_stage; stock is always added).  0, or -1
 * after one error naming the bad word and the stages there are.
 */
int optimize_parse_stages(const char *arg, unsigned *mask);

/*
 * A stage's policy text from the user's (NULL: the default; path names it
 * in messages): the text with "bolt = ready" added to [global] when it has
 * no bolt key (and, when lto, "lto = on" when it has no lto key: the tuned
 * stage), where the policy editor puts a new key (wrapper/policy/edit.h).
 * A policy whose [global] says "bolt = off", and text that is no valid
 * policy, are refused (-1, reason in err).
 */
int optimize_policy_text(const char *user_text, const char *path, int lto, struct strbuf *out,
			 struct strbuf *err);

/* Do two policy texts say the same (every line but comments and blank
 * lines, leading and trailing blanks ignored)? */
int optimize_policy_same(const char *a, const char *b);

/* ---------------- the waterfall (waterfall.c) ---------------- */

/* One measured figure of one workload: stock's value, the stage's, and
 * its interval where the metric has one (tps, server CPU). */
struct optimize_figure {
	double stock, build;  /* per transaction (tps: transactions/s); NAN: none */
	double total;         /* speedup over stock (stock/build; tps build/stock) */
	double lo, hi;        /* interval of total, NAN when the metric has none */
	double floor;         /* deterministic metrics: the resolution the stage's
				 gate decided at from stock's layout floor
				 (pgbuild noise), rescaled to the run's
				 Bonferroni level over its stages: what a
				 "faster" (a keep) is decided at; 0: none,
				 the repeat one */
	double veto_floor;    /* the same at the gate's own level: what a
				 "significantly slower" (a drop) is decided
				 at, a guard that widening would weaken */
	int statistic;        /* deterministic metrics: floor is a statistic
				 (a layout floor's, built at some z:
				 gate_resolution.z > 0); 0: the repeat
				 resolution (--noise none) or none, on which
				 no gain can be shown (optimize_decide drops
				 the stage) */
	int undecided;        /* tps: --pairs auto's budget ended with the
				 gate's threshold undecided (informational:
				 the cycles estimate decides a stage) */
};

/* The figures of the waterfall, in their order. */
enum optimize_metric {
	OM_CYCLES,        /* cycles estimate (the deciding metric) */
	OM_INSTRUCTIONS,  /* instructions */
	OM_I1,            /* L1 instruction-cache misses */
	OM_TPS,           /* throughput, with its interval */
	OM_CPU,           /* server CPU per transaction, with its interval */
	OM_NR
};
extern const char *const optimize_metric_names[OM_NR]; /* JSON keys */

/* What one gate (stage against stock) measured for one workload. */
struct optimize_wl {
	char *name;                          /* the workload */
	struct optimize_figure f[OM_NR];     /* by enum optimize_metric */
};

/* A stage's measurements (from its gate JSON). */
struct optimize_measure {
	struct optimize_wl *wl;  /* one per workload, in the gate's order */
	size_t nr;
};

/*
 * The measurements of a gate (read by gate_load, gate/verdict.h) into m.
 * stages: the candidate stages the run asked for, k (optimize_family):
 * each stage is kept or dropped at 1 - (1 - conf) / k (Bonferroni), so
 * the chance that a run keeps any stage that changed nothing is at most
 * one stage's at conf; a layout floor's resolution is rescaled to that
 * level (gate_resolution_at), the repeat one is no statistic either way.
 * 1 for a gate on its own.
 */
struct gate;
void optimize_measure_of(struct optimize_measure *m, const struct gate *g, size_t stages);
/* k of optimize_measure_of: the candidate stages in the mask of stages
 * asked for (stock is none), at least 1. */
size_t optimize_family(unsigned stages);
/* Read a gate JSON document (pgbuild gate --json) into m.  0, or -1 with
 * the reason in err. */
int optimize_measure_read(struct optimize_measure *m, const char *text, size_t len,
			  struct strbuf *err);
void optimize_measure_clear(struct optimize_measure *m);
/* The figure of workload wl (NULL: none measured). */
const struct optimize_figure *optimize_measure_get(const struct optimize_measure *m,
						   const char *wl, enum optimize_metric k);

/* What a stage added over the build it stacks on: total / parent's total
 * (parent NULL: stock, whose total is 1). */
double optimize_added(const struct optimize_figure *f, const struct optimize_figure *parent);

/*
 * The resolution of metric k on workload wl for the stage measured in m:
 * ratios closer to 1 than this count as equal.  The one place the keep
 * rule reads it: what the stage's gate decided at, the larger of the repeat
 * resolution (CYCLES_RESOLUTION for cycles, GATE_INSTR_RESOLUTION for
 * instructions) and noise/floor.h's rule on stock's layout floor and the
 * stage's stand-in (1.96 x sqrt(2) x the 95% bound of stock's SD: 6.58 SDs
 * over 5 variants); INFINITY when that gate had no floor (nothing is kept
 * on it); NAN for the metrics with an interval.
 */
double optimize_resolution(const struct optimize_measure *m, const char *wl,
			   enum optimize_metric k);
/* The same at the stage's gate's own level, unadjusted for the stages'
 * family (veto_floor): what "significantly slower" is decided at. */
double optimize_veto_resolution(const struct optimize_measure *m, const char *wl,
				enum optimize_metric k);

/* Is workload wl held out, i.e. not one of trained_on (NULL or empty:
 * nothing trained, every workload held out)? */
int optimize_held_out(const struct strvec *trained_on, const char *wl);

/*
 * The decision on stage s (trained on trained_on: the stage's profile
 * runs, NULL for stock and lto) stacked on parent (NULL: stock): kept (1)
 * when, on every workload of s it was not trained on, its cycles estimate
 * is faster than parent's by more than optimize_resolution; the in-sample
 * workloads decide only when s measured no held-out one.  Else 0 with the
 * reason in reason (one sentence naming the workload, in-sample or
 * held-out, and both ratios).  A workload without a cycles estimate, in
 * or out of sample, drops the stage too.
 */
int optimize_decide(const struct optimize_measure *s, const struct optimize_measure *parent,
		    const char *parent_name, const struct strvec *trained_on,
		    struct strbuf *reason);

/*
 * The whole decision on a stage: its gate's verdict first (gate/verdict.h:
 * a failed suite or correctness check, a significantly slower tps, or a
 * gate that could not measure drops it, whatever its cycles estimate),
 * then optimize_decide's keep rule.  1 kept, 0 dropped with the reason.
 */
struct gate_verdict;
int optimize_keep(const struct gate_verdict *v, const struct optimize_measure *s,
		  const struct optimize_measure *parent, const char *parent_name,
		  const struct strvec *in_sample, struct strbuf *reason);

/* What optimize_decide read: "held-out", or "in-sample" when s measured
 * no workload outside trained_on. */
const char *optimize_evidence(const struct optimize_measure *s, const struct strvec *trained_on);

/* The rule, in the document and the renderings. */
#define OPTIMIZE_KEEP_RULE "a stage is kept when, on the workloads it was neither " \
	"trained on nor chosen on (held out), none is significantly slower than the build " \
	"it stacks on and the geometric mean of what it added to their cycles estimate is " \
	"beyond the mean of their resolutions (each from the two builds' layout spreads, " \
	"at 1 - (1 - confidence) / k for the k candidate stages the run asked for); " \
	"only when no evaluation workload is held out do the in-sample ones decide, each " \
	"beyond its resolution"

/* The cycles gain of a stage on one side of the sample: the geometric
 * means over its held-out (held_out 1) or in-sample (0) workloads of its
 * speedup over stock and of what it added over parent (NAN: none). */
struct optimize_gain {
	size_t n;               /* workloads on that side */
	double total, added;
};
void optimize_gain(const struct optimize_measure *s, const struct optimize_measure *parent,
		   const struct strvec *trained_on, int held_out, struct optimize_gain *g);

/* The geometric mean over workloads of the cycles speedup over stock (NAN
 * when none measured). */
double optimize_score(const struct optimize_measure *m);

/*
 * What "best" compares, across the compilers' columns: is a's build faster
 * than b's on the workloads held out for both (a_in, b_in: their
 * in-sample sets), as the geometric mean of a's cycles speedup over b's,
 * by more than the larger resolution of those workloads?  1 or 0, with
 * the comparison ("1.0123x on 3 workloads held out for both (resolution
 * 0.55%)", or why there is none) in why.  No common held-out workload:
 * 0 (the build that was best stays best).
 */
int optimize_beats(const struct optimize_measure *a, const struct strvec *a_in,
		   const struct optimize_measure *b, const struct strvec *b_in,
		   struct strbuf *why);

/* ---------------- rendering (render.c) ---------------- */

/* A finished run's document (WORKDIR/optimize.json) as text: the
 * waterfall table, dropped stages with their reasons, the verdict. */
void optimize_render_text(const struct json_value *doc, FILE *fp);
/* ... as one self-contained HTML page (inline CSS and SVG, no script). */
void optimize_render_html(const struct json_value *doc, struct strbuf *out);
/* doc is an optimize document (kind "pgbuild-optimize")?  0, or -1 with
 * the reason in err. */
int optimize_doc_check(const struct json_value *doc, struct strbuf *err);

/* ---------------- the pipeline (run.c) ---------------- */

/* The options of `pgbuild optimize` (checked by cmd/optimize.c). */
struct optimize_opts {
	struct strvec workloads;   /* -W, every item: the evaluation set */
	struct strvec train;       /* --train: what pgo, tuned and bolt train on */
	const char *prefix;        /* --prefix OUT: the best build's copy, or NULL */
	const char *workdir;       /* --workdir */
	const char *src;           /* --src */
	const char *baseline;      /* --baseline PREFIX: stock given */
	const char *policy;        /* --policy FILE, NULL: the default */
	unsigned stages;           /* --stages as 1 << enum optimize_stage bits */
	const char *tune_state;    /* --tune-state DIR, NULL: look in ./pgbuild-tune */
	const char *clang;         /* --clang CC: the clang stages' compiler */
	const char *bolt_flags;    /* --bolt-flags: the bolt stage's layout flags, or NULL */
	const char *bolt_dir;      /* --bolt DIR: where the bolt stage's llvm-bolt is;
				      NULL: $PGBUILD_BOLT, else the --clang
				      compiler's LLVM's when the clang stages
				      run and it has one (bolt_dir_auto), else
				      pgbuild bolt's default */
	char *bolt_dir_auto;       /* that LLVM's bin directory (owned), or NULL
				      (none, or pgbuild bolt's default itself) */
	char *clang_skip;          /* why the default stages' clang ones are
				      skipped (no usable clang), or NULL */
	int stages_given;          /* --stages (or --clang) was given */
	int pairs;                 /* --pairs (0: 6) */
	int auto_pairs;            /* --pairs auto: the sequential tps gate */
	double budget;             /* --budget seconds (0: the gate's) */
	double duration;           /* -T (0: the gate's) */
	int clients;               /* -c (0: the gate's) */
	const char *cpus;          /* --cpus LIST */
	int jobs;                  /* -j (0: the builds') */
	int restart;               /* --restart */
	int force;                 /* --force: replace a --prefix that is not ours */
	const char *html, *json;   /* --html, --json FILE, or NULL */
	const char *noise;         /* --noise FILE|none, NULL: auto (optimize_floor) */
	int noise_variants;        /* --noise-variants N (default CLI_NOISE_VARIANTS) */
	int quiet;                 /* -q */
};

/* Run (or resume) the whole optimize; returns the exit code: 0 the best
 * build beat stock and was installed, 1 no stage beat stock (nothing
 * installed), 2 a stage could not build or measure. */
int optimize_run(const struct optimize_opts *o);

/* ---------------- one run (run.c, document.c) ---------------- */

/* The gate's thresholds: faster than stock on the cycles estimate (exit 0),
 * and tps not significantly below stock's. */
#define OPT_GATE_EXPR "cycles>=1.001,tps>=1.00"

/* The steps of one stage. */
enum step { STEP_BUILD, STEP_VERIFY, STEP_REGRESS, STEP_GATE, STEP_NR };
/* stock has no gate: its gate step is the layout floor's (optimize_floor) */
#define STEP_FLOOR STEP_GATE
#define STEP_ID(s, k) ((s) * STEP_NR + (k))
#define STEP_INSTALL (OS_NR * STEP_NR)
#define NSTEPS (STEP_INSTALL + 1)

/* What became of a stage. */
enum ostage_state { SS_NOT_RUN, SS_BASELINE, SS_KEPT, SS_DROPPED, SS_SKIPPED };

/* One stage of this run. */
struct ostage {
	char *prefix, *builddir;     /* where it is built (absolute) */
	char *policy;                /* its policy file (lto, tuned), or NULL */
	char *key;                   /* its build step's key */
	char *gate_json;             /* WORKDIR/gates/STAGE.json */
	int parent;                  /* the stage it stacks on (-1: none) */
	enum ostage_state state;
	char *reason;                /* why dropped or skipped */
	int reused;                  /* its build was reused (seeded) */
	struct strvec in_sample;     /* what it trained on or was chosen on
				      * (optimize_in_sample), filled on use */
	struct optimize_measure m;   /* its gate against stock */
};

/* Where the layout floor the gates decide at came from (optimize_floor). */
enum optimize_floor_state {
	OF_PENDING,      /* not resolved yet (no gate has run) */
	OF_GIVEN,        /* --noise FILE */
	OF_FOUND,        /* STOCK/pgopt-noise.json, of stock's postgres, every -W workload */
	OF_MEASURED,     /* measured here: pgbuild noise on stock (WORKDIR/gates/stock-noise.json) */
	OF_NONE,         /* --noise none */
	OF_UNAVAILABLE,  /* no floor and no build tree of stock to relink: the
			    run stops before its first gate */
	OF_NR
};
extern const char *const optimize_floor_state_names[OF_NR]; /* "pending" "given" ... */

/* One optimize run. */
struct orun {
	const struct optimize_opts *o;
	struct pipeline p;           /* the steps and their state */
	char *workdir;               /* absolute */
	char *tune_policy;           /* tune's best.policy, NULL: none */
	char *tune_bundle;           /* the profile bundle that tune searched on
				      * (TUNE/best.bundle: tune --bundle), NULL:
				      * none; the tuned stage is then a build
				      * with it, not a new training */
	struct strvec tune_trained;  /* what that bundle's PGO trained on */
	struct strvec tune_chosen;   /* what tune searched on (TUNE/best.json's
				      * "workload"): the tuned stage's policy
				      * was chosen on it */
	int tune_chosen_unknown;     /* no best.json: what tune searched on is
				      * unknown, so no workload of the tuned
				      * stage counts as held out */
	struct ostage s[OS_NR];
	int best;                    /* the best kept stage so far */
	int cur;                     /* the stage whose step runs */
	const char *stop;            /* why the run stopped early, or NULL */
	enum optimize_floor_state floor_state;
	char *floor;                 /* the gates' --noise (a file, "none"), NULL: none */
	char *floor_note;            /* where it came from, in words */
	unsigned stages_seen;        /* the stages earlier runs of this workdir
				      * asked for (WORKDIR/stage-family) */
	size_t family_seen;          /* the family an earlier run of this
				      * workdir decided at (its optimize.json's
				      * stage_family; 0: none):
				      * its gates are never decided again at a
				      * smaller one (optimize_run_family) */
};

/*
 * The layout floor of stock, resolved once before the first gate (floor.c):
 * --noise FILE or none as given; else STOCK/pgopt-noise.json when it is of
 * stock's postgres and has both deterministic metrics of every -W workload;
 * else measured by a step of the run (stock-floor: pgbuild noise --install
 * STOCK -W the -W workloads, --noise-variants variants) into
 * WORKDIR/gates/stock-noise.json; else, when stock has no build tree to
 * relink (a --baseline not made by pgbuild build), unavailable: the run
 * stops there, saying so (optimize never decides at the repeat resolution
 * unless --noise none says so).  0, or -1 (r->stop set) when the floor is
 * unavailable or the measurement could not run.
 */
int optimize_floor(struct orun *r);

/* The workloads stage s trained on (NULL: none). */
const struct strvec *optimize_trained_on(const struct orun *r, int s);

/*
 * The role a workload plays for a stage, recorded per workload in the
 * document and shown in every figure: trained on (the stage's profile ran
 * it), used to choose (the stage's policy was chosen on it: tune's search
 * for the tuned stage), or held out (neither).  Only held-out workloads
 * are evidence the keep rule reads (optimize_decide); the others are shown
 * as in-sample.
 */
enum optimize_role { OR_HELD_OUT, OR_TRAINED, OR_CHOSEN };
extern const char *const optimize_role_names[]; /* "held-out" "trained" "chosen" */
enum optimize_role optimize_role_of(struct orun *r, int s, const char *wl);
/* The workloads of stage s that are not held out (trained on or used to
 * choose), the set the decision's held-out test reads; the whole
 * evaluation set when what the stage was chosen on is unknown.  What tune
 * searched on is in-sample for the tuned stage and for every stage
 * stacked on it (its parents: bolt on a tuned best build), whose figures
 * of stock include the tuned policy's. */
const struct strvec *optimize_in_sample(struct orun *r, int s);
/*
 * The family every stage of r is decided in (k of optimize_measure_of,
 * "stage_family" in optimize.json): the union of the candidate stages this
 * run asks for (optimize_asked_stages: known before any gate) and those
 * earlier runs of the workdir asked for (WORKDIR/stage-family, written
 * before any gate is decided; an older run's recorded k at least): asking
 * for fewer or other stages after seeing a verdict would loosen the level
 * of the same data.  A new --workdir starts afresh.
 */
size_t optimize_run_family(const struct orun *r);
size_t optimize_asked_family(const struct orun *r);
unsigned optimize_asked_stages(const struct orun *r);
#define OPTIMIZE_FAMILY_FILE "stage-family"
/* r->stages_seen from WORKDIR/stage-family and r->family_seen from
 * WORKDIR/optimize.json's stage_family (this tool's own files in root's
 * directory), with --restart too: its builds and gates measure the same
 * again.  0, or -1 after the error (a stage-family that is not a list of
 * stages, or unreadable). */
int optimize_read_family_seen(struct orun *r);
/* WORKDIR/stage-family: the union, written atomically.  0 or -1. */
int optimize_write_family(struct orun *r);
/* The bolt stage's --bolt DIR: o->bolt_dir, else o->bolt_dir_auto, else
 * NULL (pgbuild bolt's own: $PGBUILD_BOLT or its default). */
const char *optimize_bolt_dir(const struct optimize_opts *o);

/* The measure of the stage s stacks on (NULL: stock). */
const struct optimize_measure *optimize_parent_measure(const struct orun *r, int s);

/* WORKDIR/optimize.json, the whole run (rc: its exit code), into out. */
void optimize_write_doc(struct orun *r, struct strbuf *out, int rc);

#endif
