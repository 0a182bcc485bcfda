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
 *   preflight_pairs         enough pairs for the gate's interval
 *   preflight_readable      a file the pipeline will read
 *   preflight_policy        a policy pgoptcc accepts (its hash, as build
 *                           records it)
 *   preflight_install       an installed PostgreSQL (bin/postgres)
 *   preflight_source        a --src that can be a source
 *   preflight_server_dirs   as root: the unprivileged server user can reach
 *                           the directories it will work in (and $TMPDIR),
 *                           so a 0700 `mktemp -d` is refused now, not after
 *                           a build, with the directory and the fix
 *   preflight_workdir       a work directory the caller names: made when
 *                           missing, never chmodded or chowned when it
 *                           exists; as root, refused when another user can
 *                           write in it or the server user cannot reach it
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

/* pairs (0: the gate's default) give a conf interval when tps is
 * measured.  0 or -1. */
int preflight_pairs(int pairs, const char *metric, double conf);

/* path can be read; opt names the option in the error.  0 or -1. */
int preflight_readable(const char *opt, const char *path);

/* An installed PostgreSQL: prefix/bin/postgres.  0 or -1. */
int preflight_install(const char *opt, const char *prefix);

/* The policy (or "none") is readable and pgoptcc accepts it; *sha gets
 * its hash as pgbuild build records it (malloced; sha may be NULL).  0 or
 * -1 after pgoptcc's error. */
int preflight_policy(const char *opt, const char *policy, char **sha);

/* --src: a directory with configure, a readable tarball, or debian:PKG.
 * 0 or -1. */
int preflight_source(const char *src);

/*
 * As root: the server user can enter every directory down to each of
 * dirs[] (NULL-terminated; a directory not made yet counts from its
 * nearest existing parent) and to $TMPDIR (or /tmp), where its private
 * clusters live.  Not root: nothing to check.  0 or -1 after one error
 * naming the directory, its mode and owner, and the fix.
 */
int preflight_server_dirs(const char *const *dirs);

/*
 * The work directory dir that opt names (--workdir): made with its missing
 * parents when it does not exist (0755: ours); an existing one is taken as
 * it is, never chmodded or chowned (a `--workdir ~` stays as private as it
 * was).  As root, pgbuild keeps its own files there and makes the
 * subdirectories it hands to the server user there (with fixed names,
 * through descriptors), so dir is refused when another user can create or
 * rename entries in it (writable by others or by another group, not
 * sticky; owned by another user than root), and when the server user
 * cannot enter it (the fix: chmod o+x, named with the blocking directory).
 * Returns a descriptor of dir (O_CLOEXEC), or -1 after one error naming
 * opt, the directory, its mode and owner, and the fix.
 */
int preflight_workdir(const char *opt, const char *dir);

#endif
