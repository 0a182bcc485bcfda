/*
 * exitcodes.h - every exit code pgoptcc and pgbuild use of their own.
 *
 * The wrapper's own codes live in 100..119, deliberately far from anything
 * gcc returns (0, 1, 4 for an internal compiler error, 128+N for signals), so
 * a build log tells at once whether the compiler or the wrapper failed.
 * pgbuild follows pgbench and CI conventions: 0 success, 1 a check failed
 * (gate missed, regression failed, verification mismatch, bad data), 2 could
 * not do the work (bad usage, server would not start, clients aborted).
 */
#ifndef PGOPT_EXITCODES_H
#define PGOPT_EXITCODES_H

/* pgoptcc */
#define PGOPT_EXIT_USAGE      100 /* bad environment variable or invocation */
#define PGOPT_EXIT_POLICY     101 /* policy file unreadable or invalid */
#define PGOPT_EXIT_NO_CC      102 /* real compiler not found on PATH */
#define PGOPT_EXIT_RECURSION  103 /* pgoptcc ended up calling itself */
#define PGOPT_EXIT_LOG        104 /* compile log could not be written */
#define PGOPT_EXIT_PLUGIN     105 /* the plugin file is missing or unreadable; one
				     * gcc cannot load (built for another gcc, not
				     * a plugin) fails the compile with gcc's own
				     * error and exit status 1 */
#define PGOPT_EXIT_NOMEM      106 /* out of memory */
#define PGOPT_EXIT_EXEC       107 /* fork/exec/wait of the compiler failed */
#define PGOPT_EXIT_RESPFILE   108 /* @response file could not be read */

/* pgbuild */
#define PGBUILD_EXIT_OK       0   /* success, gate passed */
#define PGBUILD_EXIT_FAIL     1   /* a check failed: gate, regress, verify, invariants */
#define PGBUILD_EXIT_ERROR    2   /* could not measure / bad usage / clients aborted */

#endif
