/*
 * gate.h - thresholds, measurements and verdicts of `pgbuild gate`, shared by
 * measure.c (measuring), threshold.c (parsing), expr.c (deciding), json.c
 * (the --json document), junit.c, report/ and the commands that gate (gate,
 * run, build, pgo, tune).
 *
 * Threshold expressions (`--gate`, also built from --min-speedup and
 * --max-p99-regression) are comma-separated items:
 *
 *     select-only>=1.05        throughput of B / A at least 1.05
 *     tpcb>=-2%                the same as tpcb>=0.98
 *     p99<=+10%                p99 latency of B / A at most 1.10, every workload
 *     tpcb.p99<=1.2            ... one workload (keys: avg p50 p90 p99 p999 max)
 *     instructions>=1.03       instructions per transaction A / B at least 1.03
 *     select-only.instructions>=1.03
 *     tps>=1.05                throughput, every workload
 *     select-only.cycles>=1.05 cycles estimate per transaction A / B (metric/cycles.h)
 *     cpu>=1.02                server CPU time per transaction A / B, every
 *                              workload (also server-cpu; from the tps runs)
 *
 * Decision rule, one for every metric ("better" meaning faster), applied to
 * the metric's interval: for tps, latency and server CPU the confidence
 * interval of the pairs' ratios, for the deterministic metrics
 * (instructions, the cycles estimate: one number per build) the relative
 * interval [observed x (1 - r), observed x (1 + r)], r its resolution
 * (gate_resolution, set by the command from noise/floor.h's rule:
 * max(repeat, 1.96 x sqrt(a^2 + b^2)), a and b the 95% chi-square upper
 * bounds of the baseline's and the candidate's layout SDs, built for a
 * one-sided false-keep rate of 2.5% (z the quantile of (1 + conf) / 2 at
 * another --confidence, as the tps claims'); the repeat resolution,
 * GATE_INSTR_RESOLUTION 0.01% and CYCLES_RESOLUTION 0.1%, only with
 * --noise none), each result carrying its own:
 *   - a claim (the item asks for an improvement: ratio > 1 for speed, < 1 for
 *     latency) passes only when the whole interval lies on the good side of
 *     the threshold (speed: lower end >= X; latency: upper end <= X); for
 *     tps the one-sided test of "B/A >= X" at level (1 + conf) / 2.  A claim
 *     above what was observed never passes;
 *   - a bound (ratio <= 1 for speed, >= 1 for latency: "not slower than")
 *     fails only when the whole interval lies on the wrong side of it, so an
 *     A/A gate passes "cycles>=1" within the resolution;
 *   - server CPU per transaction is measured in the same runs as tps, one
 *     ratio A/B per pair, with the same interval statistics as tps;
 *   - a deterministic threshold without a layout floor (none given or
 *     found, one of another binary or of too few variants, none of the
 *     workload) is undecided (exit 3), with the reason and the command that
 *     measures one: never decided at the repeat resolution unasked;
 *   - a deterministic claim at a resolution that is no statistic (z 0:
 *     the repeat one, --noise none, or a library default) is undecided
 *     (exit 3) too: relinking alone moves the cycles estimate by 0.3-0.7%,
 *     so a no-change candidate passed "cycles>=1.01" there 15-43% of the
 *     time (simulated); only a bound is decided at the repeat resolution.
 * The results' ci_low/ci_high are that interval for every metric.
 * With --pairs auto, pairs are added until every tps, latency and server
 * CPU threshold is decided by an anytime-valid confidence sequence
 * (sequential.h): pass when its lower end reaches the value and the
 * estimate does too, fail when its upper end is below it; when the
 * --budget ends first the threshold and the gate are "undecided" (exit 3).
 * The sequence is unbounded before seq_min_pairs() pairs (10 at 95%), said
 * before the first pair; a budget too short for them is refused.  A pair
 * whose interval misses the running one ends the sequence inconsistent:
 * not significant, undecided, never the stale interval kept.
 * The family (issue 41): one gate run decides m tests, every workload x
 * threshold (a claim tested for "shown better", a bound for "shown
 * worse"), and each alone at the level above would let the chance of any
 * wrong one grow with m (an A/A gate of tps>=1.00 was "significantly
 * slower" on some workload 3.0% / 5.6% / 10.6% of the time with 1 / 2 / 4
 * workloads).  So the tests are decided by Holm's step-down procedure
 * (Holm 1979): each test's one-sided p-value is the smallest level at which
 * the rule above decides it (the signed-rank test's for tps, latency and
 * server CPU: exact up to 60 pairs, its normal approximation above, the
 * bootstrap's level found by search; the resolution's for a
 * deterministic metric); sorted, the k-th smallest is decided on its interval at the
 * one-sided level alpha / (m - k + 1), alpha = (1 - conf) / 2 (the
 * interval's confidence 1 - (1 - conf) / (m - k + 1)), until the first
 * that is not shown; it and every later one are decided at that level
 * (none of them is shown).  A deterministic metric's resolution is scaled
 * by the ratio of the level's Student t quantile to the one it was built
 * at (z's level), over the floors' degrees of freedom (gate_resolution.z,
 * df): the floor's SD is a sample SD of a few variants, and the normal
 * ratio under-covered (A/A with a candidate SD twice the baseline's, 5
 * variants: 4.8% at 6 tests, against 1.9% with t).  The chance of any
 * wrong result of a gate run is then at most alpha, as one test's was.
 * With --pairs auto the sequences are decided at 1 - (1 - conf) / m
 * (Bonferroni: a confidence sequence decides at one level, not by a
 * p-value, and the family's level must be fixed before the first pair;
 * seqgate.c), every other test of the run at the same level.  m counts
 * every result except those that cannot decide at any level for a reason
 * known before the data (no layout floor, a workload not measured); m = 1
 * decides exactly as before.  The results' interval (ci_low, ci_high, the
 * figures) stays the unadjusted one at conf; each result records the
 * level it was decided at and the interval there (gate_result).
 * Whatever the thresholds say, a candidate that failed its regression suite
 * or a correctness check of the benchmark fails the gate (exit 1); a gate
 * that could not measure (bench errors, too few valid pairs, metric
 * unavailable) exits 2.
 */
#ifndef PGBUILD_GATE_H
#define PGBUILD_GATE_H

#include <sched.h>
#include <signal.h>
#include <stddef.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/gate/stats.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/instr.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* --budget of --pairs auto when not given: 10 minutes. */
#define GATE_BUDGET 600

/* Instruction ratios closer than this count as equal (metric/instr.h). */
#define GATE_INSTR_RESOLUTION INSTR_RESOLUTION

/*
 * The resolution a deterministic metric of one workload is compared at
 * (the relative half-width r of [observed x (1 - r), observed x (1 + r)])
 * and where it came from: noise/floor.h's rule, set by the command.
 * value > 0: decided at it; NAN: no layout floor, its thresholds are
 * undecided (source says why); 0 (not set): the repeat resolution (a
 * library default: unit tests, documents of before the floor).
 */
struct gate_resolution {
	double value;
	char *source;   /* owned: "layout floor: 1.96 x sqrt(a^2 + b^2), a =
			   ...", "no layout floor: ..."; NULL with value 0 */
	double z;       /* the normal quantile value was built at (the rule's
			   max(repeat, z x s)), so that a level the family
			   correction asks for rescales it by z' / z (the
			   repeat part too: conservative); 0: not a
			   statistical resolution (the repeat one: --noise
			   none, a library default), the same at every level */
	double df;      /* the degrees of freedom of the floors' SDs (the
			   fewest variants less one): the rescaling is by
			   Student's t quantiles of df, t'/t, not z'/z (an SD
			   of few variants has heavier tails); 0 with z 0 */
};
/* The degrees of freedom a statistical resolution is assumed to have
 * when none is known (a document of before "resolution_df"): the fewest
 * noise/floor.h allows, 5 variants, so the rescaling errs wide. */
#define GATE_RESOLUTION_DF 4

/* Latency keys as in the bench JSON's latency_ms object. */
#define GATE_NLAT 6
extern const char *const gate_lat_keys[GATE_NLAT]; /* avg p50 p90 p99 p999 max */
int gate_lat_index(const char *key); /* -1 when unknown */

enum gate_kind {
	GATE_TPS,          /* throughput ratio B/A >= value */
	GATE_LATENCY,      /* latency ratio B/A <= value */
	GATE_INSTRUCTIONS, /* instructions ratio A/B >= value (a speedup) */
	GATE_CYCLES,       /* cycles estimate ratio A/B >= value */
	GATE_SERVER_CPU,   /* server CPU per transaction A/B >= value */
};



struct gate_threshold {
	char *text;      /* the item as written, e.g. "select-only>=1.05" */
	char *workload;  /* NULL: every measured workload */
	enum gate_kind kind;
	int lat;         /* GATE_LATENCY: index into gate_lat_keys */
	double value;    /* the limit as a ratio */
};

struct gate_thresholds {
	struct gate_threshold *v;
	size_t nr, alloc;
};

/*
 * Parse a comma-separated expression and append its items.  Returns 0, or
 * -1 with a message in err naming the item and what was wrong.
 */
int gate_expr_parse(struct gate_thresholds *th, const char *text, struct strbuf *err);
void gate_thresholds_add(struct gate_thresholds *th, const char *text,
			 const char *workload, enum gate_kind kind, int lat, double value);
void gate_thresholds_clear(struct gate_thresholds *th);
/* The --metric bit (metric/metric.h's METRIC_*) a threshold of kind needs
 * (expr.c's kinds[]: each kind's metric or sub-figure of metric/metrics.h). */
unsigned gate_kind_metric(enum gate_kind kind);
/* What a threshold of kind bounds, in a message: "throughput", "server CPU". */
const char *gate_kind_name(enum gate_kind kind);

struct strvec;
/*
 * Every threshold of th is of a kind metrics (METRIC_* bits) measures,
 * and every cycles threshold's workload (its own, else each of workloads,
 * which may be NULL) has a single-user script.  0, or -1 after one error
 * naming the threshold and the --metric it needs.
 */
int gate_thresholds_check(const struct gate_thresholds *th, unsigned metrics,
			  const struct strvec *workloads);
/* Is kind/value a claim of improvement (see header comment)? */
int gate_is_claim(const struct gate_threshold *t);

enum instr_state {
	INSTR_NOT_MEASURED,
	INSTR_OK,
	INSTR_UNAVAILABLE, /* tried and could not (SIGILL under valgrind ...) */
};

/* One bench run of one build. */
struct gate_run {
	int pair;                 /* 0-based pair number */
	char build;               /* 'A' baseline, 'B' candidate */
	int exit;                 /* bench exit code: 0 ok, 1 correctness, 2 error */
	double tps;               /* NAN when the run produced no number */
	double lat[GATE_NLAT];    /* latency_ms by gate_lat_keys, NAN when absent */
	double server_cpu_us;     /* server CPU microseconds per transaction
				     (bench's server_cpu.us_per_tx), NAN when absent */
	char *json;               /* the bench JSON text (owned), or NULL */
};

/* Everything measured for one workload. */
struct gate_workload {
	char *name;               /* bench --workload value */
	struct gate_run *runs;    /* in execution order */
	size_t nr_runs, alloc_runs;
	enum instr_state instr;   /* instructions per transaction */
	double instr_a, instr_b;  /* when INSTR_OK */
	char *instr_note;         /* why unavailable, or how measured */
	enum instr_state cycles;  /* the cycles estimate (same states) */
	struct cycles_tx cyc_a, cyc_b; /* per transaction, when INSTR_OK */
	char *cycles_note;        /* why unavailable, or how measured */
	char *cycles_callgrind;   /* the cycles runs' callgrind outputs kept in
				     --workdir, as JSON: {"statements": N, "a":
				     [N run, 10N run], "b": [...]}; NULL: not kept */
	char *explain_json;       /* where the estimate changed (explain.h's
				     document, its top rows); NULL: none */
	struct gate_resolution instr_res, cycles_res; /* their resolutions */

	/* filled by gate_analyse() */
	size_t valid_pairs;       /* pairs where both runs gave numbers */
	int correctness_failed;   /* some run exited 1 */
	int run_errors;           /* runs that exited 2 or gave no number */
	struct stats_ratio tps;   /* B/A */
	struct stats_ratio lat[GATE_NLAT]; /* B/A */
	struct stats_ratio cpu;   /* server CPU per transaction, A/B per pair */
	double cpu_a_median, cpu_b_median; /* us per transaction, over the pairs */
	double tps_a_median, tps_b_median;
	double lat_a_median[GATE_NLAT], lat_b_median[GATE_NLAT];
};

enum gate_status {
	GATE_PASS,
	GATE_FAIL,
	GATE_ERROR,
	GATE_UNDECIDED, /* not decided (exit 3): --pairs auto's budget ended
			   with the threshold inside the confidence sequence,
			   or the sequence ended inconsistent; a deterministic
			   threshold without a layout floor */
};
const char *gate_status_name(enum gate_status s); /* "pass" "fail" "error" "undecided" */

/* The decision on one threshold for one workload. */
struct gate_result {
	const struct gate_threshold *th;
	const char *workload;     /* the workload it was applied to */
	enum gate_status status;
	double observed;          /* estimate of the ratio */
	double lo, hi;            /* its interval (deterministic metrics:
				     observed +- resolution) */
	double resolution;        /* deterministic metrics: the resolution
				     decided at; NAN for the others */
	const char *resolution_source; /* where it came from (the workload's
				     gate_resolution, or a static text) */
	int no_statistic;         /* deterministic metrics: decided at a
				     resolution that is no statistic (the repeat
				     one): a bound passed there is not shown,
				     one missed is undecided (expr.c) */
	int seq_inconsistent;     /* --pairs auto: the confidence sequence ended
				     inconsistent (sequential.h); status
				     undecided, and more pairs cannot decide */
	char *message;            /* one line explaining the decision (owned) */

	/* the family correction (header comment) */
	size_t family;            /* m: the tests of this gate run; 0: this
				     result is none (no floor, not measured) */
	size_t step;              /* Holm: its rank by p_value (1: the
				     smallest); 0 with --pairs auto
				     (Bonferroni) or when it is no test */
	double p_value;           /* one-sided: the smallest level at which the
				     rule decides it (a claim shown, a bound
				     shown worse), when at most alpha; NAN
				     above alpha (no step of the family can
				     decide it), with --pairs auto, or when it
				     is no test */
	double alpha;             /* the one-sided level of a test alone:
				     (1 - conf) / 2; --pairs auto 1 - conf (the
				     sequence's two-sided level bounds each
				     side) */
	double alpha_adjusted;    /* the level it was decided at: alpha / (m -
				     k + 1) at the Holm step k that decided it,
				     alpha / m with --pairs auto; = alpha when
				     m <= 1; NAN when it is no test */
	double conf_adjusted;     /* the confidence of the interval decided on:
				     1 - 2 alpha_adjusted (--pairs auto: 1 -
				     alpha_adjusted) */
	double dlo, dhi;          /* that interval: what status says; lo and hi
				     are the unadjusted one at conf, shown
				     (equal when m <= 1) */
};

/* Regression suite outcome fed into the verdict. */
enum regress_state { REGRESS_NOT_RUN, REGRESS_PASSED, REGRESS_FAILED };

struct gate {
	/* settings */
	enum stats_ci_method method;
	double conf;              /* 0.95 */
	size_t min_pairs;         /* fewer valid pairs: could not measure */
	int sequential;           /* --pairs auto: tps, latency and server CPU
				     are decided by the confidence sequence of
				     gate/sequential.h, not the fixed interval */
	int uncorrected;          /* tests only: decide every result at the
				     level alone, without the family
				     correction (the rule before issue 41),
				     to show what the correction corrects */
	double budget;            /* --budget seconds of --pairs auto */
	int64_t order_seed;       /* the seed of the pairs' order
				     (gate_pair_b_first); -1: none (no tps
				     pairs, or a document of before it) */
	char *seq_stop;           /* why --pairs auto stopped adding pairs
				     ("decided", "budget", ...), or NULL */

	struct gate_workload *wl;
	size_t nr_wl, alloc_wl;
	struct gate_thresholds th;
	char *counter;            /* what counted instructions: "perf" or
				     "callgrind" (NULL: not measured) */
	char *counter_note;       /* how it was chosen (the perf probe) */
	char *noise_state;        /* the layout floor: "used", "none", "absent",
				     "mismatch" (noise/floor.h); NULL: not asked */
	char *noise_note;         /* which file, or why none */
	char *noise_file;         /* the floor's file when used, else NULL: its
				     per-function spread goes to the explain
				     section too */
	enum regress_state regress;
	char *regress_note;       /* summary line from `pgbuild regress` */

	/* filled by gate_decide() */
	struct gate_result *res;
	size_t nr_res, alloc_res;
	enum gate_status verdict;
	char *verdict_reason;     /* one line (owned) */
	int interrupted;          /* the signal that stopped the gate before it
				     decided (verdict "interrupted" in the JSON) */
	int stopped;              /* stopped before deciding (error or signal):
				     no results, verdict_reason says why */
};

struct gate_workload *gate_workload_get(struct gate *g, const char *name, int create);
/*
 * The resolution of w's deterministic metric kind (GATE_INSTRUCTIONS,
 * GATE_CYCLES): its gate_resolution, else the repeat one; NAN when there
 * is no floor; *source says where it came from (or why none).
 */
double gate_resolution_of(const struct gate_workload *w, enum gate_kind kind,
			  const char **source);
/* Set it (source copied): value > 0, or NAN with the reason in source (no
 * floor: undecided); anything else goes back to the repeat one.  Its z is
 * 0 (the same at every level) until gate_set_resolution_z. */
void gate_set_resolution(struct gate_workload *w, enum gate_kind kind, double value,
			 const char *source);
/* The normal quantile the resolution set was built at (the floor rule's
 * z, gate_resolution.z) and its SDs' degrees of freedom (df <= 0:
 * GATE_RESOLUTION_DF), so the family correction rescales it. */
void gate_set_resolution_z(struct gate_workload *w, enum gate_kind kind, double z, double df);
struct gate_run *gate_workload_add_run(struct gate_workload *w);
/* Compute per-pair ratios and intervals for every workload. */
void gate_analyse(struct gate *g);
/* The figures every output of the cycles metric shows, in their order:
 * metric/metrics.c's rows of the cycles metric (their labels there). */
#define GATE_CYCLES_ROWS CYCLES_ROWS
/* Is any workload's cycles estimate measured (or tried)? */
int gate_any_cycles(const struct gate *g);
/* w's figures of A and B in that order. */
void gate_cycles_rows(const struct gate_workload *w, double *a, double *b);
/*
 * The simulation next to the machine (agree.c, its rule): the cycles
 * estimate's A/B against the interval of the server CPU per transaction's
 * A/B.  YES: inside it, and the interval narrow enough to have said
 * otherwise (its log half-width at most GATE_AGREE_SHARE of the
 * estimate's distance from 1, at least of GATE_AGREE_MIN_EFFECT);
 * UNTESTED: inside an interval wider than that, which cannot contradict
 * it; OVER/UNDER: the estimate claims more/less than the machine measured
 * (whatever the width); NA: one of them was not measured (or has no
 * interval).  *estimate is the estimate's A/B, NAN when not measured;
 * *cpu the server CPU's interval it was compared with: gate_ratio_of's,
 * so with --pairs auto the confidence sequence's, never the fixed
 * interval of pairs added until it said something.
 */
#define GATE_AGREE_SHARE 0.5
#define GATE_AGREE_MIN_EFFECT 0.02
enum gate_agree { GATE_AGREE_NA, GATE_AGREE_YES, GATE_AGREE_OVER, GATE_AGREE_UNDER,
		  GATE_AGREE_UNTESTED };
extern const char *const gate_agree_names[]; /* "agree", ... */
enum gate_agree gate_agreement(const struct gate *g, const struct gate_workload *w,
			       double *estimate, struct stats_ratio *cpu);
/* The same rule on two figures already taken (optimize's stages): an
 * estimate's speedup against the server CPU's interval [lo, hi] (NAN: NA). */
enum gate_agree gate_agree_ratio(double estimate, double lo, double hi);
/* The widest half-width (a fraction: 0.025 = +-2.5%, as a ratio's) the
 * machine's interval may have for "agree" with estimate (NAN: none). */
double gate_agree_needed(double estimate);
/* The cycles figures of w (A, B, A/B of each), appended to sb. */
void gate_cycles_describe(const struct gate_workload *w, struct strbuf *sb);
/*
 * --pairs auto (seqgate.c): decide the ratio threshold of res on w's pairs
 * by the confidence sequence at confidence conf (gate_seq_conf: the
 * family's level): pass when its lower end reaches the value (latency:
 * upper end), fail when its upper end is below it, else undecided.
 */
void gate_decide_sequential(const struct gate *g, struct gate_result *res,
			    const struct gate_workload *w, double conf);
/*
 * The family of the next gate_decide() (header comment): m, the results
 * its thresholds and workloads make that are tests; known before the
 * first pair (the layout floors are set first).
 */
size_t gate_family_size(const struct gate *g);
/* --pairs auto: the confidence each sequence is decided at, 1 - (1 -
 * conf) / m (Bonferroni; conf when m <= 1). */
double gate_seq_conf(const struct gate *g);
/* Fixed pairs: the fewest with which the first Holm step can decide
 * anything (the exact signed-rank's smallest p, 2^-n, at most (1 -
 * conf) / 2m); min_pairs when m <= 1. */
size_t gate_family_min_pairs(const struct gate *g);
/* The fewest pairs below which no interval is given, whatever the level:
 * cli.h's CLI_PAIRS_MIN, which every --pairs error names. */
#define GATE_MIN_PAIRS CLI_PAIRS_MIN
/* The fewest pairs with which a family of m tests at confidence conf can
 * decide its first step: 2^-n (the exact signed-rank test's smallest
 * one-sided p over n pairs) <= (1 - conf) / 2 / m; at least
 * GATE_MIN_PAIRS.  The one rule for gate, optimize, run, deb and tune. */
size_t gate_pairs_needed(double conf, size_t m);
/* The family's size as far as it is known before the data, from the
 * thresholds th and the workloads measured (those given and every one th
 * names, as the gate measures both; none: one): every threshold x
 * workload (an unqualified threshold applies to each), the deterministic ones
 * left out with --noise none (noise_none: the repeat resolution is no
 * statistic and joins no family); an upper bound of gate_family_size, so
 * gate_pairs_needed(conf, it) pairs are never too few.  What gate, run,
 * deb and optimize check --pairs against before anything runs. */
size_t gate_family_bound(const struct gate_thresholds *th, const struct strvec *workloads,
			 int noise_none);
/*
 * The findings' own family (gate_findings): everything they can call
 * faster, slower, lower or higher, every figure x workload: tps and
 * server CPU per transaction of each workload with pairs, the cycles
 * estimate and instructions of each with a statistical resolution (not
 * the repeat one).  They are read at its Bonferroni level,
 * gate_findings_conf = 1 - (1 - conf) / m (conf when m <= 1 or
 * uncorrected), whatever the thresholds asked (a "faster" is no test of
 * the gate's family, nor a server CPU the thresholds do not name), so
 * the chance that any finding of a run names a difference that is not
 * there is at most 1 - conf.
 */
size_t gate_findings_size(const struct gate *g);
double gate_findings_conf(const struct gate *g);
/* The interval the findings name for tps or server CPU: at
 * gate_findings_conf, the fixed pairs' or, with --pairs auto, the
 * confidence sequence's at that level. */
void gate_ratio_found(const struct gate *g, const struct gate_workload *w, enum gate_kind kind,
		      struct stats_ratio *out);
/* The confidence sequence's interval of w's speed ratio of kind at conf
 * into out (its n, estimate, lo, hi, conf, ok; the rest untouched). */
void gate_seq_ratio(const struct gate_workload *w, enum gate_kind kind, double conf,
		    struct stats_ratio *out);
/* The resolution of w's deterministic kind at confidence conf (the
 * family's rescaling: Student's t ratio for a layout floor, the same at
 * every level for the repeat one; NAN without a floor). */
double gate_resolution_at(const struct gate *g, const struct gate_workload *w,
			  enum gate_kind kind, double conf, const char **source);
/*
 * The interval of w's speed ratio of kind (GATE_TPS: B/A, GATE_SERVER_CPU:
 * A/B) that the gate's verdict is decided on, into out: the fixed-sample
 * one (w->tps, w->cpu), or with --pairs auto the confidence sequence
 * (seqgate.c), since the fixed interval of pairs added until it said
 * something is not valid (the peeking the sequence exists to avoid); a
 * sequence that ended inconsistent has no interval ([0, inf]).  What every
 * figure that says faster or slower reads: findings, gate_speedup.
 */
void gate_ratio_of(const struct gate *g, const struct gate_workload *w, enum gate_kind kind,
		   struct stats_ratio *out);
/* Is any result of the last gate_decide() undecided? */
int gate_any_undecided(const struct gate *g);
/* Apply thresholds and the regress/correctness rules; returns the exit code. */
int gate_decide(struct gate *g);
int gate_exit_code(enum gate_status verdict);
void gate_clear(struct gate *g);

/*
 * Mark a gate that stopped before deciding (an error, or the signal sig when
 * not 0): verdict error with reason, no results; the runs measured so far
 * are kept and analysed for the record.
 */
void gate_stop(struct gate *g, const char *reason, int sig);

/*
 * Serialise the whole gate (settings, every run, analysis, verdict).  A
 * stopped gate has "verdict":"error" (or "interrupted" with "signal") and
 * no results.
 */
void gate_write_json(const struct gate *g, struct strbuf *out,
		     const char *baseline, const char *candidate,
		     const char *extra_settings_json);
/* A parsed JSON value as compact text (malloced). */
struct json_value;
char *gate_json_text(const struct json_value *v);
/* Read back what gate_write_json wrote (for report/junit); -1 with err set. */
int gate_read_json(struct gate *g, const char *text, size_t len, struct strbuf *err);

/* ---------------- measuring (measure.c) ---------------- */

/* What `pgbuild gate` measures and how (its options). */
struct gate_opts {
	const char *baseline;     /* --baseline PREFIX (A) */
	const char *candidate;    /* --candidate PREFIX (B) */
	struct strvec workloads;  /* --workload: bench workloads, in order */
	struct strvec settings;   /* --set name=value, passed to bench */
	int clients, threads;     /* --clients, --threads or -j (0: bench's) */
	const char *protocol;     /* -M, --protocol: bench's (default prepared) */
	double duration, warmup;  /* --duration, --warmup seconds per run */
	int scale;                /* --scale (0: bench's) */
	int pairs;                /* --pairs; with --pairs auto the pairs run */
	int auto_pairs;           /* --pairs auto: until decided or --budget */
	int pairs_given;          /* --pairs N given (else 9, or the family's
				     gate_pairs_needed when more) */
	double budget;            /* --budget seconds (default GATE_BUDGET) */
	unsigned metrics;         /* --metric: METRIC_* bits (metric/metric.h) */
	long instr_statements;    /* --instr-statements (0: per workload) */
	enum instr_counter counter; /* --counter */
	const char *json, *junit; /* --json, --junit FILE, or NULL */
	const char *workdir;      /* --workdir, NULL: a temporary directory */
	const char *require_regress; /* --require-regress BUILDDIR */
	const char *regress_result;  /* --regress-result passed|failed|FILE (a
				       `pgbuild regress --json` document) */
	const char *cpus;         /* --cpus LIST */
	const char *noise;        /* --noise FILE|none, NULL: the baseline's
				     pgopt-noise.json when it is of its postgres
				     (resolved by cmd/gate.c, noise/floor.h) */
	int quiet;                /* --quiet */
	int64_t seed;             /* --seed: the pair order's seed, 0 to
				     GATE_SEED_MAX; -1: drawn (getrandom) */
};

/* The largest pair-order seed (exact in a JSON number). */
#define GATE_SEED_MAX ((INT64_C(1) << 53) - 1)

/*
 * The order of pair `pair` of the workload at index `workload`: 1 when B
 * runs first, from a coin flip seeded by seed (splitmix64 of the three),
 * so machine drift (an AR(1) over runs) neither correlates consecutive
 * pairs' ratios, as the old A B / B A alternation by parity did (an A/A
 * wrong call ~3% against 2.5%), nor always puts A first after the load.
 * The same seed gives the same order (--seed, recorded in the JSON).
 */
int gate_pair_b_first(uint64_t seed, int pair, size_t workload);


/* SIGINT, SIGTERM, SIGHUP: stop after the bench child in flight; the
 * signal is kept in gate_interrupted and gate_finish dies of it. */
extern volatile sig_atomic_t gate_interrupted;
void gate_catch_signals(void);

/*
 * Measure (the tps pairs and/or instructions, after the regression suite
 * when asked) and decide.  Returns the verdict's exit code, or -1 when it
 * stopped before deciding (the reason in *stop_reason, or a signal in
 * gate_interrupted).  The command then prints the summary
 * (report_gate_terminal) and writes the outputs.
 */
int gate_measure(struct gate_opts *o, struct gate *g, const char **stop_reason);

/* Write --json and --junit of g (either may be unset).  0, or -1 after
 * the error. */
int gate_write_outputs(const struct gate_opts *o, const struct gate *g);

/* After the gate: a gate that did not decide writes --json/--junit saying
 * why (never leaving an older document in place); a signal kills us. */
void gate_finish(const struct gate_opts *o, struct gate *g, int decided,
		 const char *stop_reason);

#endif
