/*
 * single.h - what the per-transaction metrics share: PostgreSQL's server
 * in single-user mode on a prepared data directory, fed a script of N
 * transactions (instr.c counts its instructions, cycles.c simulates its
 * caches and branch predictor).
 *
 * Once per install, below a work directory: initdb (trust, UTF8, C locale)
 * and pgbench-shaped tables at scale 1 loaded in single-user mode, kept as
 * a template.  Each counted run copies the template and feeds the server a
 * script generated here: the same statements (a fixed LCG) for every
 * build, so A and B execute the same transactions.
 */
#ifndef PGBUILD_SINGLE_H
#define PGBUILD_SINGLE_H

#include "cluster/serveruser.h"
#include "strbuf.h"

/* Does workload have a single-user script? */
int single_supported(const char *workload);
/* Its transactions in the short run (0 when it has no script). */
long single_default_n(const char *workload);
/* The workloads that have one, as one line of text. */
#define SINGLE_WORKLOADS "select-only, tpcb, select1"

/* The script of n transactions of workload, appended to sb. */
void single_make_script(const char *workload, long n, struct strbuf *sb);

/*
 * Run argv (as the server user u when it switches users) with stdin from
 * stdin_path (NULL: none), stdout and stderr appended to log.  Returns the
 * exit code as run_command does, -1 when stdin_path cannot be opened.
 */
int single_run_logged(const char *const *argv, const struct server_user *u,
		      const char *stdin_path, const char *log);

/* Append " (LAST LINE OF LOG; log LOG)" to note. */
void single_log_tail(const char *log, struct strbuf *note);

/*
 * Before a counted run: no data directory, output or log of an earlier one,
 * the script of n transactions written to script, and a fresh copy of the
 * template tmpl at data (as the server user).  0, or -1 with note.
 */
int single_fresh_run(const char *tmpl, const char *data, const char *workload, long n,
		     const char *script, const char *outfile, const char *log,
		     const struct server_user *u, struct strbuf *note);

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
 * The directory of prefix's runs below workdir (workdir/TAG + prefix with
 * '/' as '_'), given to the server user, and its template data directory,
 * prepared when missing.  0 with *base and *tmpl malloced, or -1 with the
 * reason in note.
 */
int single_prepare(const char *prefix, const char *workdir, const char *tag,
		   const struct server_user *u, char **base, char **tmpl,
		   struct strbuf *note);

#endif
