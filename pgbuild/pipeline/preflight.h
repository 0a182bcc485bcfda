/*
 * preflight.h - the checks a long pipeline makes before its first build.
 *
 * `pgbuild run`, `tune` and `pgo` (and any later command that chains
 * builds, a regression suite and a gate) run for minutes to hours before
 * the step that would otherwise find a mistake in their options.  Every
 * check here is cheap, prints one error that names the option, the value
 * and the fix, and returns -1, so a command calls them all right after
 * parsing its options:
 *
 *   preflight_gate_expr     thresholds parse, name known workloads (did you
 *                           mean ...?) and fit the metric measured
 *   preflight_pairs         enough pairs for the gate's family of tests
 *                           (preflight_family: its size before the data)
 *   preflight_policy        a policy pgoptcc accepts (its hash, as build
 *                           records it)
 *   preflight_install       an installed PostgreSQL (bin/postgres)
 *   preflight_source        a --src that can be a source
 *
 * and cluster/workdir.h's two checks of the directories the server user
 * works in (workdir_server_reach, workdir_open), which the gate
 * makes too.
 */
#ifndef PGBUILD_PREFLIGHT_H
#define PGBUILD_PREFLIGHT_H

#include "pgbuild/gate/gate.h"
#include "wrapper/common/strvec.h"

/*
 * The thresholds of expr (--gate) parsed into th (may be NULL): every
 * workload they name must be one bench knows, and every threshold must be
 * of a kind metric (a --metric list; NULL: tps) measures, a cycles
 * threshold's workload one with a single-user script.  0 or -1 after the error.
 */
int preflight_gate_expr(const char *expr, const char *metric, struct gate_thresholds *th);

/* The workloads named by th are known (did you mean ...?).  0 or -1. */
int preflight_threshold_workloads(const struct gate_thresholds *th);

/* pairs (0: the gate's default) decide a family of m tests at conf
 * (gate_pairs_needed: the first Holm step has an interval; m from
 * gate_family_bound, or an upper bound) when tps is measured.  0 or -1. */
int preflight_pairs(int pairs, const char *metric, double conf, size_t m);

/* The family's size bound (gate_family_bound) of the gate expression
 * expr over workloads (NULL or none: workloads_csv, comma-separated;
 * NULL or "": those expr names, else one) with --noise noise (NULL: not
 * given); 1 when expr does not parse (preflight_gate_expr says why). */
size_t preflight_family(const char *expr, const struct strvec *workloads,
			const char *workloads_csv, const char *noise);

/* An installed PostgreSQL: prefix/bin/postgres.  0 or -1. */
int preflight_install(const char *opt, const char *prefix);

/* The policy (or "none") is readable and pgoptcc accepts it; *sha gets
 * its hash as pgbuild build records it (malloced; sha may be NULL).  0 or
 * -1 after pgoptcc's error. */
int preflight_policy(const char *opt, const char *policy, char **sha);

/* --src: a directory with configure, a readable tarball, or debian:PKG.
 * 0 or -1. */
int preflight_source(const char *src);

#endif
