/*
 * single.h - what the per-transaction metrics share: PostgreSQL's server
 * in single-user mode on a prepared data directory, fed a script of N
 * transactions (instr.c counts its instructions, cycles.c simulates its
 * caches and branch predictor).
 *
 * Once per install and data set, below a work directory: initdb (trust,
 * UTF8, C locale) and the workload's data set (metric/datasets.c: its
 * DDL, rows and keys at the row's scale, then VACUUM ANALYZE and a
 * CHECKPOINT) loaded in single-user mode, kept as a template
 * (template-pgbench-s1, template-docs-s1, template-none ...).  Each
 * counted run copies the template and feeds the server the workload's
 * single-user script (its row's writer, metric/workloads.c): the same
 * statements (a fixed LCG) for every build, so A and B execute the same
 * transactions.  A statement that fails (an ERROR line in the server's
 * log) fails the load or the run: a failed statement is not the one
 * measured.
 */
#ifndef PGBUILD_SINGLE_H
#define PGBUILD_SINGLE_H

#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/metric/workloads.h"
#include "wrapper/common/strbuf.h"

/* Does workload have a single-user script? */
int single_supported(const char *workload);
/* Its transactions in the short run (0 when it has no script). */
long single_default_n(const char *workload);
/* The workloads that have one, as one line of text (workloads.h). */
#define SINGLE_WORKLOADS WORKLOADS_SINGLE

/* The script of n transactions of workload, appended to sb; -1 with an
 * error printed for a workload without one (never another's script). */
int single_make_script(const char *workload, long n, struct strbuf *sb);
/* The statements that load workload's data set into a fresh template,
 * appended to sb; -1 with an error printed when it has none the
 * single-user server can load. */
int single_load_sql(const char *workload, struct strbuf *sb);
/* The template directory's name of workload's data set: "template-NAME-sS"
 * ("template-NAME" for an unscaled set); malloced, NULL without one. */
char *single_template_name(const char *workload);
/* After a counted run logged to log: 0, or -1 when the server reported an
 * ERROR (which, in note). */
int single_log_errors(const char *log, struct strbuf *note);

/*
 * The directories of one install's runs below a work directory, and the
 * privilege boundary between them: base is ours (made below the work
 * directory's descriptor, 0755, never handed over): the scripts, the
 * logs, load.sql; template and out belong to the server user (made by us
 * through base's descriptor), who writes the data directories and the
 * tools' output files there.  We read those outputs back through outfd
 * only (O_NOFOLLOW, bounded), and remove what the server user wrote below
 * descriptors, never by path.
 */
struct single_dirs {
	char *base;     /* workdir/TAG + prefix with '/' as '_' */
	char *tmpl;     /* base/template-DATA: the prepared data directory */
	char *out;      /* base/out: valgrind's and perf's output files */
	int basefd;     /* base, or -1 */
	int outfd;      /* base/out, or -1 */
};

#define SINGLE_DIRS_INIT { NULL, NULL, NULL, -1, -1 }

/*
 * Run argv (as the server user u when it switches users) with stdin from
 * stdin_path (NULL: none; a file of ours), stdout and stderr appended to
 * log (ours).  Returns the exit code as run_command does, -1 when
 * stdin_path cannot be opened.
 */
int single_run_logged(const char *const *argv, const struct cluster_user *u,
		      const char *stdin_path, const char *log);

/*
 * Before a counted run: the data directory data_rel below parentfd (its
 * full path data) made empty and the server user's, the output out_rel of
 * an earlier run removed from d->out, the script of n transactions written
 * to script and log emptied (both below d->base: ours), and the template
 * copied into data (as the server user).  0, or -1 with note.
 */
int single_fresh_run(const struct single_dirs *d, int parentfd, const char *data_rel,
		     const char *data, const char *workload, long n, const char *script,
		     const char *out_rel, const char *log, const struct cluster_user *u,
		     struct strbuf *note);

/* Read the tool output out_rel of d->out (bounded, O_NOFOLLOW) into sb;
 * 0, or -1 with note. */
int single_read_out(const struct single_dirs *d, const char *out_rel, struct strbuf *sb,
		    struct strbuf *note);

/*
 * The runs' clock (pgbuild/metric/shim/frozen-clock.c): every counted run
 * starts as `env -i SINGLE_RUN_ENV LD_PRELOAD=DIR/frozen-clock.so TOOL ...`,
 * so the server's timer-driven paths (statistics flushes) are the same
 * whatever the machine's load, and A and B run with one environment,
 * whoever calls pgbuild (a longer environment alone moved the estimate by
 * up to 0.27%: it shifts the stack).
 */
#define SINGLE_FROZEN_CLOCK "frozen-clock.so"
#define SINGLE_RUN_ENV "env", "-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"

/*
 * Copy LIBDIR/pgoptcc/frozen-clock.so into the directory dir, open as
 * dirfd (ours, which the server user can read), and set *preload to the
 * malloced "LD_PRELOAD=DIR/frozen-clock.so".  0, or -1 with note.
 */
int single_frozen_clock(int dirfd, const char *dir, char **preload, struct strbuf *note);

/*
 * After `valgrind ... postgres --single` exited rc with its output in log:
 * 0 when it ran, else -1 with the reason in note.  A server that died of
 * SIGILL runs instructions valgrind cannot (AVX-512 from -march=native):
 * the note says so and how to build a measurable binary.
 */
int single_valgrind_status(int rc, const char *log, struct strbuf *note);

/* The directory of prefix's runs below workdir: workdir/TAG + prefix with
 * '/' as '_' (malloced). */
char *single_base(const char *prefix, const char *workdir, const char *tag);

/*
 * The directories of prefix's runs below workdir (a directory of ours: a
 * link in base's place is refused, as is a base another user owns), and
 * the template data directory of workload's data set, prepared when
 * missing.  0 with d filled (single_dirs_release), or -1 with the reason
 * in note.
 */
int single_prepare(const char *prefix, const char *workdir, const char *tag,
		   const char *workload, const struct cluster_user *u, struct single_dirs *d,
		   struct strbuf *note);
void single_dirs_release(struct single_dirs *d);

#endif
