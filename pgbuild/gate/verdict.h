/*
 * gate/verdict.h - the gate's verdict as every command that decides reads
 * it: optimize (a stage kept or dropped), tune and sensitivity (a
 * candidate measured or refused), pgo, build --gate, run and deb (a build
 * or a package passed or failed).  One object, one rule, so that no
 * command re-derives a decision from the numbers and gets part of it
 * wrong.
 *
 * The rule: whatever a candidate's speed, it is ruled out (never kept,
 * installed or shipped) when
 *   - its regression suite failed,
 *   - a correctness check of a benchmark failed on it (TPC-B's balances,
 *     an SQL error, a crashed backend: bench exit 1 or 2 on B),
 *   - a bound failed: a threshold that asks for "not slower" (tps>=1.00,
 *     p99<=1.10, cycles>=1) whose whole interval lies on the wrong side,
 *     i.e. the candidate is significantly slower there, or
 *   - the gate could not measure what its thresholds need (verdict error).
 * A claim of improvement that was not shown (its interval reaches below
 * the threshold) does not rule a candidate out: it is "not shown faster",
 * which the command's own rule (optimize's keep rule) then weighs.
 * Undecided (--pairs auto's budget ended) rules nothing out either.
 *
 * The verdict is computed from the gate itself (struct gate, filled by
 * gate_decide()), or from a gate's --json document through gate_load(),
 * the one reader of that file (the bounded reader, then gate_read_json).
 */
#ifndef PGBUILD_GATE_VERDICT_H
#define PGBUILD_GATE_VERDICT_H

#include <stdio.h>

#include "pgbuild/gate/gate.h"

struct gate_verdict {
	enum gate_status status;  /* the gate's own verdict */
	int ruled_out;            /* the rule above: the candidate may not be
				     kept, installed or shipped; one of: */
	int broken;               /*   its suite or a correctness check failed:
				     it computes wrong results */
	int slower;               /*   a bound failed: significantly slower */
	int unmeasured;           /*   the gate could not measure (error) */
	int claims_shown;         /* every threshold was a claim of
				     improvement, and each passed: "faster";
				     0 with status pass: some threshold was
				     a bound ("not slower than X"), and: */
	int bounds_shown;         /*   each bound's whole interval lies on
				     its good side (lower end >= X; latency:
				     upper end <= X): "not slower", shown;
				     0: some bound passed only because its
				     interval reaches both sides, i.e. a
				     loss was not shown, nor excluded: "not
				     shown slower" */
	char *why;                /* one sentence (owned): why it is ruled
				     out, else the gate's own reason */
};

#define GATE_VERDICT_INIT { GATE_ERROR, 1, 0, 0, 1, 0, 0, NULL }

/* The verdict of a decided (or stopped) gate g. */
void gate_verdict_of(const struct gate *g, struct gate_verdict *v);

/*
 * Read the gate document at path (pgbuild gate --json: a regular file,
 * SFS_IN_JSON's limit, never through a link) into g (gate_clear() it
 * after) and its verdict into v.  0, or -1 with the reason in err (v then
 * rules the candidate out: nothing known is nothing shown).
 */
int gate_load(const char *path, struct gate *g, struct gate_verdict *v, struct strbuf *err);

/* What the verdict says, in a few words for tables: "faster" (every claim
 * of improvement shown), "not slower" (a bound asked, and every bound's
 * whole interval on its good side), "not shown slower" (a bound passed
 * with an interval reaching below it: no loss shown, none excluded
 * either), "not shown faster" (a claim missed, nothing worse shown),
 * "slower" (a bound failed), "failed" (suite or correctness),
 * "undecided", "error". */
const char *gate_verdict_word(const struct gate_verdict *v);

void gate_verdict_clear(struct gate_verdict *v);

/* The verdict's headline, upper case, for the first line of a report:
 * "FASTER", "NOT SLOWER", "NOT SHOWN SLOWER", "NOT SHOWN FASTER", "SLOWER", "FAILED",
 * "UNDECIDED", "COULD NOT MEASURE" (static). */
const char *gate_verdict_headline(const struct gate_verdict *v);

/* Every verdict the gate gives, in the order a reader meets them: the one
 * table of their words, headlines, meanings and exit codes, which gate
 * --help prints (gate_verdicts_help), and pgbuild-gate(1) and README.md
 * quote (tests/t/92 holds both to it).  Ends with a NULL word. */
struct gate_verdict_desc {
	const char *word;      /* gate_verdict_word's, the JSON's verdict_word */
	const char *headline;  /* gate_verdict_headline's */
	const char *meaning;   /* what it says, one sentence */
	int exit;              /* the gate's exit code with it */
};
extern const struct gate_verdict_desc gate_verdicts[];

/* The table on fp as --help shows it: each headline and its exit code,
 * then its meaning wrapped at 80 columns. */
void gate_verdicts_help(FILE *fp);

/* "verdict: WORD: WHY" for the gate document at path, one line on fp
 * (the end of run, deb and pgo's output); "verdict: error: no gate
 * result: ..." when it cannot be read.  Returns the verdict's exit code. */
int gate_verdict_say(const char *path, FILE *fp);

/*
 * What g found, one sentence per workload, each on its own line (appended
 * to out), then the regression suite's (speed ratios on gate_ratio_found's
 * interval: with --pairs auto the confidence sequence):
 *   "select-only: tps no significant difference, 1.046 [0.880, 1.838];
 *    server CPU per transaction 4.1% lower [1.2%, 7.0%]; cycles estimate
 *    2.8% lower, beyond the 0.62% layout floor"
 *   "regression suite check: 217/217 tests passed"
 * A speed figure is called faster or slower only when its whole interval
 * says so (the gate's rule), else "no significant difference"; a
 * deterministic one "lower"/"higher" only beyond its resolution, else
 * "within the resolution".  The findings are a family of their own
 * (gate_findings_size: every figure x workload they can name), each
 * interval and resolution at gate_findings_conf (Bonferroni, the level
 * said: "(at 99.38%: 8 findings)"; --pairs auto: the sequence at it), so
 * that some finding names a difference that is not there at most 1 -
 * conf of the time, whatever the thresholds asked.  What the report, run
 * and deb show first.
 */
void gate_findings(const struct gate *g, struct strbuf *out);

/*
 * The speedup of B over A that g measured for workload wl, of a kind of
 * figure (GATE_TPS: B/A, GATE_SERVER_CPU: A/B, with the interval the
 * verdict reads, gate_ratio_of: --pairs auto's confidence sequence;
 * GATE_INSTRUCTIONS, GATE_CYCLES: A/B, lo = hi = the estimate: one number
 * per build; GATE_LATENCY has none here).  0, or -1 when g has no such
 * figure (*note, when not NULL, then says why if the gate recorded it).
 */
int gate_speedup(const struct gate *g, const char *wl, enum gate_kind kind, double *est,
		 double *lo, double *hi, const char **note);

#endif
