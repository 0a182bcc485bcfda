/*
 * engine.h - the flag search of `pgbuild tune`, as a pure module.
 *
 * The engine knows nothing about PostgreSQL, builds or benchmarks: it asks
 * an evaluator callback to compare a candidate flag set with a reference
 * set and decides from the answer.  tuner.c plugs in the real evaluator
 * (pgbuild build + regress + gate); tests/unit/test-tune-engine.c a synthetic one.
 *
 * Sets are bit masks over the candidate list (at most 64 candidates); the
 * empty set is "stock" (no policy: PostgreSQL's own flags).
 *
 * Strategy (after the COSCUP 2017 elimination):
 *   1. start: the full candidate set against stock.  If it fails (compiler
 *      crash, regression failure), the search starts from stock instead.
 *   2. elimination: drop each flag of the current best in turn; keep the
 *      drop when it does not hurt (the interval does not lie entirely below
 *      1 - tolerance); repeat passes until a whole pass drops nothing.
 *      A deterministic metric's interval is the gate's relative one,
 *      [ratio x (1 - p.resolution), ratio x (1 + p.resolution)].
 *   3. greedy re-add: add each flag not in the best; keep it when it helps
 *      (the interval lies above 1 and the estimate reaches 1 + min_gain).
 *   4. final: the best against stock (no build: both exist); if the best is
 *      significantly slower than stock, stock wins.
 *
 * Memory.  Every evaluation is a record (candidate, reference, outcome,
 * ratio and interval, times).  Records are the memo: the engine is
 * deterministic, so a rerun replays the search and every comparison already
 * made is answered from its record without calling the evaluator: that is
 * how a killed tune resumes (records are saved to the --state file after
 * every evaluation, atomically).  A set that failed to build or failed the
 * regression suite is never evaluated again, nor is any set containing it.
 * Evaluations that could not measure are not memoised: they are retried on
 * the next run.
 *
 * Budget: --max-builds counts evaluations that had to build their
 * candidate (across resumes); --max-time the evaluation seconds recorded
 * (across resumes).  The budget is checked before each new build.
 */
#ifndef PGBUILD_TUNE_ENGINE_H
#define PGBUILD_TUNE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

#define TUNE_MAX_FLAGS 64

typedef uint64_t tune_set;

enum tune_phase { TUNE_START, TUNE_DROP, TUNE_ADD, TUNE_FINAL };

enum tune_outcome {
	TUNE_OK,              /* built, regression passed, measured */
	TUNE_BUILD_FAILED,    /* the compiler failed or crashed */
	TUNE_REGRESS_FAILED,  /* the regression suite failed */
	TUNE_UNMEASURED,      /* the benchmark could not measure */
};

enum tune_verdict {
	TV_START,        /* the start set, measured against stock */
	TV_DROPPED,      /* drop did not hurt: flag removed from the best */
	TV_KEPT,         /* drop hurt: flag stays */
	TV_ADDED,        /* re-add helped: flag added */
	TV_REJECTED,     /* re-add did not help */
	TV_FAILED,       /* build or regression failed: set remembered */
	TV_SKIPPED,      /* contains a set that failed: not tried */
	TV_UNMEASURED,   /* no decision: nothing changed */
	TV_FINAL,        /* the best against stock */
	TV_STOCK_BETTER, /* the best is significantly slower than stock */
};

/* What the evaluator answers. */
struct tune_eval {
	enum tune_outcome outcome;
	double ratio;          /* candidate speed / reference speed (> 1 faster) */
	double lo, hi;         /* its interval (lo = hi = ratio when exact) */
	int builds;            /* builds this evaluation made (0 when cached) */
	double build_seconds;  /* wall time of those builds */
	double seconds;        /* wall time of the whole evaluation */
	char *note;            /* malloced one-line detail, or NULL */
};

/* One evaluation, kept in order; the memo and the state file. */
struct tune_record {
	enum tune_phase phase;
	tune_set cand, ref;
	struct tune_eval e;
	char *time;            /* ISO 8601 UTC when it was recorded */
	int loaded;            /* read from the state file */
};

/* One step of this run's search, for the report. */
struct tune_step {
	enum tune_phase phase;
	tune_set cand, ref;
	int flag;              /* flag dropped/added, -1 */
	long record;           /* index into records, -1 when skipped */
	int cached;            /* answered from a record of an earlier run */
	enum tune_verdict verdict;
};

struct tune_engine;
/* Compare cand with ref.  Fill *out; return 0, or -1 to abort the search
 * (an error that makes going on pointless, e.g. stock does not build). */
typedef int (*tune_evaluate_fn)(struct tune_engine *t, tune_set cand, tune_set ref,
				struct tune_eval *out, void *ctx);

struct tune_params {
	double tolerance;      /* a drop is kept unless hi < 1 - tolerance */
	double min_gain;       /* an add is kept when lo > 1 and ratio >= 1 + min_gain */
	double resolution;     /* a deterministic metric's (instructions, cycles:
				  lo = hi = ratio) resolution: the interval is
				  widened to [lo x (1 - r), hi x (1 + r)]
				  before either rule, as the gate's
				  (noise/floor.h's rule); 0 for tps, whose
				  interval is measured; NAN (no layout
				  floor): tune_engine_run refuses to search */
	int max_builds;        /* 0: unlimited */
	double time_budget;    /* seconds, 0: unlimited */
	int readd;             /* run the greedy re-add pass */
	int start_stock;       /* start from stock instead of the full set */
};

struct tune_engine {
	struct strvec flags;          /* the candidates, index = bit */
	struct tune_params p;
	char *key;                    /* what the state belongs to (tuner.c) */
	char *state_path;             /* save here after every evaluation */
	tune_evaluate_fn evaluate;
	void *ctx;

	struct tune_record *records;
	size_t nr_records, alloc_records;
	struct tune_step *steps;
	size_t nr_steps, alloc_steps;

	/* results */
	tune_set best;
	long final_record;            /* best vs stock, -1 if none */
	const char *stop_reason;      /* "converged", "max-builds", ... */
	int builds;                   /* builds recorded (all runs) */
	double seconds;               /* evaluation seconds recorded (all runs) */
	int new_evaluations;          /* evaluator calls in this run */
};

void tune_engine_init(struct tune_engine *t, const struct tune_params *p);
void tune_engine_release(struct tune_engine *t);
/* Append a candidate; returns its index or -1 when full or a duplicate. */
int tune_engine_add_flag(struct tune_engine *t, const char *flag);

/*
 * Run the search.  Returns 0 when it ended normally (converged or budget
 * spent: see stop_reason), -1 when the evaluator aborted, the state could
 * not be saved, or there is no resolution to decide at (p.resolution NAN:
 * nothing is evaluated).
 */
int tune_engine_run(struct tune_engine *t);

/* The set's flags, space separated, in candidate order ("" for stock). */
char *tune_set_text(const struct tune_engine *t, tune_set s);
/* Stable short name of a set: "stock" or "s" + 12 hex digits. */
char *tune_set_id(const struct tune_engine *t, tune_set s);
int tune_set_count(tune_set s);

const char *tune_phase_name(enum tune_phase p);
const char *tune_outcome_name(enum tune_outcome o);
const char *tune_verdict_name(enum tune_verdict v);

/* State file (JSON lines): a header with key and candidates, then one line
 * per record.  Save writes PATH.tmp and renames it over PATH. */
int tune_state_save(const struct tune_engine *t, const char *path);
/* Load records from path (missing file: 0, nothing loaded).  A header whose
 * key differs from t->key is an error (-1, message in err). */
int tune_state_load(struct tune_engine *t, const char *path, struct strbuf *err);

/* Append one record as a JSON object (also used by tuner.c's --json). */
struct json_writer;
void tune_record_json(const struct tune_engine *t, const struct tune_record *r,
		      struct json_writer *jw);

#endif
