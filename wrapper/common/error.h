/*
 * error.h - diagnostics for pgoptcc and pgbuild.
 *
 * Every message is one line on stderr: "<prog>: error: <text>".  Results go
 * to stdout and never through these functions.  pgoptcc is silent by default
 * (autoconf treats any stderr output as a failed probe), so its verbose
 * messages only appear when PGOPT_VERBOSE=1.
 *
 *   error()  prints and returns -1, for `return error("...")`
 *   die()    prints and exits with the given code
 *   BUG()    a programmer mistake: prints the location and aborts
 */
#ifndef PGOPT_ERROR_H
#define PGOPT_ERROR_H

#include <stdarg.h>

/* Name used as message prefix and the exit code used by xalloc on OOM. */
void error_set_program(const char *name, int oom_exit_code);
const char *error_program(void);
int error_oom_exit_code(void);

/* 1 when verbose() messages are printed. */
extern int error_verbose;

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
