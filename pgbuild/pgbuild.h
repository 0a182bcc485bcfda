/*
 * pgbuild.h - what every pgbuild subcommand shares.
 *
 * A subcommand is defined in its own file as
 *
 *     PGBUILD_COMMAND(bench, "run the embedded benchmark on a private cluster")
 *     {
 *             ... argc/argv as for main, argv[0] is the command name ...
 *     }
 *
 * and returns a PGBUILD_EXIT_* code (exitcodes.h).  The Makefile collects
 * those lines into the dispatch table of main.c.
 */
#ifndef PGBUILD_H
#define PGBUILD_H

#include "clock.h"
#include "dir.h"
#include "error.h"
#include "exitcodes.h"
#include "fdio.h"
#include "json.h"
#include "path.h"
#include "rmtree.h"
#include "run-command.h"
#include "strbuf.h"
#include "strvec.h"
#include "textfile.h"
#include "xalloc.h"

#define PGBUILD_COMMAND(name, summary) int cmd_##name(int argc, char **argv)

/* Absolute path of the running pgbuild executable (for re-running itself). */
const char *pgbuild_self(void);
/* Directory of installed support files: <bindir>/../lib/pgoptcc */
const char *pgbuild_libdir(void);
/* Absolute path of pgoptcc next to pgbuild. */
const char *pgbuild_pgoptcc(void);
/* policy.sha256 as pgbuild build records it (text + named lists); NULL on error */
char *pgbuild_policy_sha(const char *policy);

/*
 * Option values (options.c).  Numbers: the whole string, range-checked; on
 * a bad value one error naming the option, the value and the range, then -1
 * (and *out untouched).
 *
 *   parse_int_option     an integer from min to max:
 *                        invalid value "0" for --pairs: expected an integer from 1 to 1000
 *   parse_number_option  a finite number from min to max (max INFINITY: no
 *                        upper bound):
 *                        invalid value "x" for --duration: expected a number >= 0.1
 */
int parse_int_option(const char *opt, const char *arg, int min, int max, int *out);
int parse_number_option(const char *opt, const char *arg, double min, double max, double *out);
/* A comma-separated list ("select-only,tpcb"): push each non-empty item. */
void parse_list_option(const char *arg, struct strvec *out);

#endif
