/*
 * instr.h - instructions per transaction of the PostgreSQL server, the
 * deterministic metric of `pgbuild gate --metric instructions`.
 *
 * Two counters run the server in single-user mode:
 *
 *     perf stat -x, -e instructions:u -o FILE -- PREFIX/bin/postgres --single -D COPY postgres < queries.sql
 *     valgrind --tool=callgrind PREFIX/bin/postgres --single -D COPY postgres < queries.sql
 *
 * perf needs working hardware counters (a PMU; most VMs have none: perf
 * then says "<not supported>"), callgrind works everywhere but is ~50x
 * slower.  "auto" probes once with `perf stat -x, -e instructions:u --
 * true`: a numeric count means perf, anything else callgrind.  Both count
 * user-space instructions only.
 *
 * as the unprivileged server user, on a fresh copy of a data directory
 * prepared once per install (initdb + pgbench-shaped tables at scale 1,
 * loaded in single-user mode).  The script runs N and 10N transactions and
 * the two totals are differenced, (I(10N) - I(N)) / 9N, which removes the
 * start-up and shut-down cost.  Repeated runs of one binary agree to about
 * 0.002% (37276.04 vs 37276.70 per SELECT 1 here), so the gate compares
 * ratios at a resolution of 0.01% (INSTR_RESOLUTION).
 *
 * It is a proxy: instructions do not see cache misses, branch mispredictions
 * or memory stalls, so a build can execute fewer instructions and still run
 * slower.  Builds that valgrind cannot run (AVX-512 code from -march=native
 * dies with SIGILL under valgrind 3.19) are reported as unavailable, never
 * as a number.
 *
 * Workloads with a single-user script: select-only (one primary-key lookup),
 * tpcb (the pgbench TPC-B-like transaction, 7 statements), select1.
 */
#ifndef PGBUILD_INSTR_H
#define PGBUILD_INSTR_H

#include "wrapper/common/strbuf.h"

/* Instruction ratios closer than this count as equal (repeat-run noise). */
#define INSTR_RESOLUTION 1e-4

enum instr_counter {
	INSTR_COUNTER_AUTO,      /* perf when the probe counts, else callgrind */
	INSTR_COUNTER_PERF,      /* perf stat: hardware counters */
	INSTR_COUNTER_CALLGRIND, /* valgrind --tool=callgrind */
};
const char *instr_counter_name(enum instr_counter c); /* "auto" "perf" "callgrind" */
/* "auto", "perf" or "callgrind" -> 0 and *out; -1 otherwise. */
int instr_counter_parse(const char *s, enum instr_counter *out);

/*
 * Resolve want to the counter to use.  auto and perf probe once with
 * `perf stat -x, -e instructions:u -- true`; the probe's finding goes to
 * probe_note either way ("hardware counters work" or why not).  auto falls
 * back to callgrind; a forced perf that cannot count returns -1.
 */
int instr_pick_counter(enum instr_counter want, enum instr_counter *use,
		       struct strbuf *probe_note);

/*
 * Measure instructions per transaction of PREFIX's server on workload with
 * counter (perf or callgrind), working below workdir.  statements = N (0:
 * the workload's default).  Returns 0 and sets *per_tx, or -1 with the
 * reason in note (never prints a number for a build that could not be
 * measured).
 */
int instr_measure(const char *prefix, const char *workload, const char *workdir,
		  long statements, enum instr_counter counter, double *per_tx,
		  struct strbuf *note);

/* Does workload have a single-user script? */
int instr_supported(const char *workload);

/* "N and 10N transactions differenced" for the workload (static buffer). */
const char *instr_describe(const char *workload, long statements);

/* Total Ir from a callgrind output file's "summary:"/"totals:" line; -1 if none. */
double instr_parse_callgrind(const char *text);

/*
 * The instructions count from `perf stat -x,` output (perf-stat(1), "CSV
 * FORMAT": [time,] [cpu,] [cpus,] value, unit, event, run time, percentage
 * [, variance] [, metric value, metric unit]; lines starting with '#' are
 * comments).  Every line whose event is instructions (instructions,
 * instructions:u, cpu_core/instructions:u/ on hybrid CPUs) is summed.
 * Returns the count, or -1 with *why set ("<not supported>", "<not
 * counted>", "no instructions line").
 */
double instr_parse_perf(const char *text, const char **why);

#endif
