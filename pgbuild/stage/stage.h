/*
 * stage/stage.h - a resumable pipeline of pgbuild stages (`pgbuild run`,
 * and any command that chains builds, checks and gates the same way).
 *
 * Each stage is usually a child pgbuild process, so the stages stay
 * decoupled and a crash in one cannot corrupt the others' records.  The
 * state file (WORKDIR/run-state.json for run) records every finished stage
 * with a key of its inputs; a rerun skips a stage whose key matches and
 * that finished with a definite answer (exit 0 or 1), and runs it again
 * otherwise, so an interrupted pipeline resumes from the last finished
 * stage and a changed input redoes what depends on it.  One progress line
 * per stage on stderr:
 *
 *     [2/6] candidate pgbuild build --policy coscup-2017.policy ...
 *     [2/6] candidate done in 3m12s: /work/run/candidate/prefix
 *
 * Each stage's stdout and stderr go to WORKDIR/logs/STAGE.log; the line
 * after "done" is the log's last line.
 */
#ifndef PGBUILD_STAGE_H
#define PGBUILD_STAGE_H

#include "wrapper/common/json.h"
#include "wrapper/common/strvec.h"

/* What the state file remembers of one stage. */
struct stage_state {
	char *key;     /* inputs it ran with (NULL: never ran) */
	int exit;      /* its exit code */
	double secs;   /* how long it took */
};

struct pipeline {
	const char *kind;             /* the state file's "kind" */
	const char *const *names;     /* stage names, in order */
	int nr;                       /* number of stages */
	struct stage_state *st;       /* per stage */
	char *state_path;             /* WORKDIR/run-state.json */
	char *logdir;                 /* WORKDIR/logs */
	int quiet;                    /* children's stderr into the logs too */
	/* more top-level fields of the state file (NULL: none) */
	void (*header)(struct json_writer *jw, void *ctx);
	void *ctx;                    /* for header and the stage functions */
};

/* A pipeline of nr stages below workdir (made already); logs directory
 * made.  The state of an earlier run is read unless restart. */
void stage_init(struct pipeline *p, const char *kind, const char *const *names, int nr,
		   const char *workdir, int restart);
void stage_release(struct pipeline *p);

/* Rewrite the state file (atomically). */
void stage_save(const struct pipeline *p);

/*
 * Run stage id unless an earlier run finished it with the same key (then
 * its exit code is returned and the line says so): print the stage line,
 * call fn(p, id), record key, exit code and time, save, print the result
 * line.  Returns the stage's exit code.
 */
int stage_run(struct pipeline *p, int id, const char *key, const char *what,
		   int (*fn)(struct pipeline *p, int id));

/* Forget what an earlier run recorded of stage id (it runs again). */
void stage_forget(struct pipeline *p, int id);

/* Did stage id finish with a definite answer (exit 0 or 1)? */
int stage_finished(const struct pipeline *p, int id);

/* WORKDIR/logs/STAGE.log, malloced. */
char *stage_log(const struct pipeline *p, int id);

/* The stage's log made afresh for writing (the one way a stage's log is
 * opened: what was there, a file or a link someone left, is removed, the
 * new one created O_EXCL, never through a link: safefs.h); its descriptor
 * (O_CLOEXEC), or -1 with error() said. */
int stage_log_open(const struct pipeline *p, int id);

/* The stage's log made afresh holding line (and a newline): a step that
 * reused an earlier result says so there. */
void stage_log_line(const struct pipeline *p, int id, const char *line);

/*
 * Run `pgbuild ARGS...` for stage id: stdout and stderr into the stage's
 * log, or stderr passed through (a build's progress line) when show_stderr
 * and not quiet.  Signals reach the child.  Returns its exit code (2 when
 * it could not run).
 */
int stage_run_pgbuild(struct pipeline *p, int id, struct strvec *args, int show_stderr);
/* The same for any program (args->v[0]), run in dir (NULL: here) with env
 * ("NAME=value", "NAME" to unset; NULL: none) added. */
int stage_run_command(struct pipeline *p, int id, const struct strvec *args, const char *dir,
		      const struct strvec *env, int show_stderr);
/* The same for an engine called as a library: fn(data) in a process of
 * its own (name: what messages call it; env as above), its exit code fn's
 * return. */
int stage_run_fn(struct pipeline *p, int id, const char *name, int (*fn)(void *), void *data,
		 const struct strvec *env, int show_stderr);
/* The engines a pipeline's stages call that way: verify's and the
 * regression suite's (their options as their commands take them; the
 * checks of the command line are the caller's). */
struct verify_opts;
struct regress_opts;
int stage_run_verify(struct pipeline *p, int id, const struct verify_opts *o,
		     const struct strvec *env);
int stage_run_regress(struct pipeline *p, int id, const struct regress_opts *o,
		      const struct strvec *env);

/* A `pgbuild build` step of a pipeline (run, pgo, sensitivity, tune). */
struct build_step {
	const char *src;            /* --src, NULL: build's default */
	const char *policy;         /* --policy FILE or "none" */
	const char *prefix;         /* --prefix */
	const char *builddir;       /* --builddir */
	const char *configure_args; /* --configure-args, or NULL */
	int jobs;                   /* --jobs, 0: build's default */
	int no_contrib;             /* --no-contrib */
	int no_install;             /* --no-install */
	int quiet;                  /* --quiet */
	const char *bundle;         /* --bundle DIR, or NULL */
};

/* Push `build --policy ... --no-bench` and the step's options onto args
 * (the smoke benchmark is the pipeline's business, never the step's). */
void stage_build_argv(struct strvec *args, const struct build_step *b);

/* The benchmark settings a pipeline passes on to its `pgbuild gate` steps
 * (tune, sensitivity, pgo); 0: the gate's default. */
struct gate_step {
	int pairs;          /* --pairs N */
	int auto_pairs;     /* --pairs auto: the sequential gate */
	double budget;      /* --budget seconds (0: the gate's default) */
	double duration;    /* -T, --duration seconds */
	int clients;        /* -c, --clients */
};

/* --pairs N|auto (cli_parse_pairs), --budget (OPT_BUDGET), -T/--duration,
 * -c/--clients (cli.h's ranges) into g: 1 when c was one of them, 0 when
 * not, -1 after the error.  A command whose -T and -c are its training's
 * (pgo) gives the gate's as --gate-duration S and --gate-clients N
 * (OPT_GATE_DURATION, OPT_GATE_CLIENTS: the same ranges, the error naming
 * the option given). */
int stage_gate_option(struct gate_step *g, int c, const char *arg);

/* After the options: gate's usage error when --budget came without --pairs
 * auto (its exit code, PGBUILD_EXIT_ERROR), else 0. */
int stage_gate_check(const struct gate_step *g);

/* Push the settings that are set onto a gate step's args. */
void stage_gate_argv(struct strvec *args, const struct gate_step *g);

#endif
