/*
 * run.h - the whole pipeline in one command (`pgbuild run`), on
 * stage/stage.h's resumable stages:
 *
 *   1 baseline   pgbuild build --policy none     (reused when present)
 *   2 candidate  pgbuild build --policy FILE     (reused when present)
 *   3 verify     pgbuild verify --install CAND
 *   4 regress    pgbuild regress --builddir CAND.build
 *   5 floor      pgbuild noise --install BASE --reuse (the layout floor)
 *   6 gate       pgbuild gate --baseline BASE --candidate CAND --gate EXPR
 *                --noise FLOOR
 *   7 report     pgbuild report --gate-result ... --html FILE
 *
 * Each stage is a child pgbuild process, so the stages stay decoupled and
 * a crash in one cannot corrupt the others' records.  WORKDIR/run-state.json
 * records every finished stage with a key of its inputs (source, policy
 * hash, gate settings, the keys of the stages it depends on); a rerun skips
 * a stage whose key matches and that finished (exit 0 or 1: a definite
 * answer), and redoes it otherwise, so an interrupted run resumes from the
 * last finished stage and a changed policy redoes what depends on it.
 * A build is also reused, whatever the state file says, when its
 * PREFIX/pgopt-build.json records a successful build of the same source and
 * policy (sha256).
 *
 * The floor stage measures the baseline's layout noise floor (relinked
 * variants of its postgres, noise/noise.h) when the gate compares a
 * deterministic metric (instructions, the cycles estimate) and the
 * baseline has a build tree to relink: into BASE/pgopt-noise.json when run
 * built it, else WORKDIR/baseline-noise.json; --noise FILE|none gives it
 * instead.  The gate then compares those metrics at max(repeat
 * resolution, 3 layout SDs).
 *
 * Exit: the gate's verdict (0 pass, 1 fail, 2 could not measure, 3
 * undecided); 1 when verification fails; 2 when a build or the floor
 * fails.
 */
#ifndef PGBUILD_RUN_H
#define PGBUILD_RUN_H

#include "pgbuild/stage/stage.h"

enum run_stage {
	ST_BASELINE, ST_CANDIDATE, ST_VERIFY, ST_REGRESS, ST_FLOOR, ST_GATE, ST_REPORT, ST_NR
};

/* The options of `pgbuild run`; the values passed on to the stages are
 * kept as given (they are part of the stages' keys). */
struct run_opts {
	const char *policy;            /* --policy FILE (required) */
	const char *src;               /* --src */
	const char *workdir;           /* --workdir */
	const char *gate;              /* --gate EXPR */
	const char *html;              /* --html FILE, NULL: WORKDIR/report.html */
	const char *baseline_prefix;   /* --baseline PREFIX, NULL: build one */
	const char *cand_prefix_opt;   /* --candidate-prefix */
	const char *cand_builddir_opt; /* --candidate-builddir */
	const char *pairs, *duration, *clients, *metric; /* for pgbuild gate */
	const char *budget;         /* --budget, with --pairs auto */
	unsigned metrics;              /* --metric as METRIC_* bits */
	const char *cpus, *counter;    /* for pgbuild gate */
	const char *workloads_csv;     /* --workload LIST, comma-separated */
	int jobs;                      /* --jobs for the builds (0: build's default) */
	const char *configure_args;    /* --configure-args for both builds */
	int no_regress, no_verify;     /* --no-regress, --no-verify */
	const char *noise;             /* --noise FILE|none, NULL: the floor stage decides */
	int noise_variants;            /* --noise-variants N */
	int restart;                   /* --restart: ignore an earlier run's state */
	int quiet;                     /* --quiet */
};

/* Run (or resume) the pipeline; returns the exit code (the gate's
 * verdict; 1 when verification fails; 2 when a stage could not run). */
int run_pipeline(const struct run_opts *o);

#endif
