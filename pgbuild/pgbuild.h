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
 * those lines into the dispatch table of cmd/main.c.
 */
#ifndef PGBUILD_H
#define PGBUILD_H

#include "pgbuild/cli/cli.h"
#include "wrapper/common/clock.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/json.h"
#include "wrapper/common/path.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/textfile.h"
#include "wrapper/common/xalloc.h"

#define PGBUILD_COMMAND(name, summary) int cmd_##name(int argc, char **argv)

/* Find the running executable (main calls it first; self.c). */
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
