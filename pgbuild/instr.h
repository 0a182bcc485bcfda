/*
 * instr.h - instructions per transaction of the PostgreSQL server, the
 * deterministic metric of `pgbuild gate --metric instructions`.
 *
 * perf stat cannot count instructions on this kind of machine (no PMU in the
 * VM), so the count comes from valgrind's callgrind running the server in
 * single-user mode:
 *
 *     valgrind --tool=callgrind PREFIX/bin/postgres --single -D COPY postgres < queries.sql
 *
 * as the unprivileged server user, on a fresh copy of a data directory
 * prepared once per install (initdb + pgbench-shaped tables at scale 1,
 * loaded in single-user mode).  The script runs N and 10N transactions and
 * the two totals are differenced, (I(10N) - I(N)) / 9N, which removes the
 * start-up and shut-down cost.  Repeated runs of one binary agree to about
 * 0.002% (37276.04 vs 37276.70 per SELECT 1 here), so the gate compares
 * ratios at a resolution of 0.01%.
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

#include "strbuf.h"

/*
 * Measure instructions per transaction of PREFIX's server on workload,
 * working below workdir.  statements = N (0: the workload's default).
 * Returns 0 and sets *per_tx, or -1 with the reason in note (never prints
 * a number for a build that could not be measured).
 */
int instr_measure(const char *prefix, const char *workload, const char *workdir,
		  long statements, double *per_tx, struct strbuf *note);

/* Does workload have a single-user script? */
int instr_supported(const char *workload);

/* "N and 10N transactions differenced" for the workload (static buffer). */
const char *instr_describe(const char *workload, long statements);

/* Total Ir from a callgrind output file's "summary:"/"totals:" line; -1 if none. */
double instr_parse_callgrind(const char *text);

#endif
