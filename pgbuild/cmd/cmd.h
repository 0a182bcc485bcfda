/*
 * cmd/cmd.h - what every pgbuild subcommand shares: the base header, the
 * command-line vocabulary (cli/cli.h) and the registration of a command.
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
#ifndef PGBUILD_CMD_H
#define PGBUILD_CMD_H

#include "pgbuild/cli/cli.h"
#include "pgbuild/pgbuild.h"

#define PGBUILD_COMMAND(name, summary) int cmd_##name(int argc, char **argv)

#endif
