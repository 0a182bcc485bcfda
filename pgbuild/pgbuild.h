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

#include "cli/cli.h"
#include "clock.h"
#include "dir.h"
#include "error.h"
#include "exitcodes.h"
#include "fdio.h"
#include "json.h"
#include "path.h"
#include "rmtree.h"
#include "run-command.h"
#include "safefs.h"
#include "strbuf.h"
#include "strvec.h"
#include "textfile.h"
#include "xalloc.h"

#define PGBUILD_COMMAND(name, summary) int cmd_##name(int argc, char **argv)

/* Find the running executable (main calls it first; cli/self.c). */
void pgbuild_find_self(void);
/* Absolute path of the running pgbuild executable (for re-running itself). */
const char *pgbuild_self(void);
/* LIBDIR/pgoptcc: the plugin and the masquerade links (installdirs.h) */
const char *pgbuild_libdir(void);
/* DATADIR/pgoptcc: the files defaults name (tune-candidates.txt) */
const char *pgbuild_datadir(void);
/* Absolute path of pgoptcc next to pgbuild. */
const char *pgbuild_pgoptcc(void);

#endif
