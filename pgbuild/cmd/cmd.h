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

/*
 * cmd/gate.c: the options another command will pass to `pgbuild gate`
 * (argv[0] "gate", then the gate's options as that command will give them,
 * its candidate not built yet: the baseline stands in), checked now by the
 * gate's own parser and its checks of the options together, so that build
 * --gate-args "--pairs 3" or an unknown option fails before the build with
 * the gate's message (and the hint to pgbuild gate --help).  Nothing is
 * measured or written.  0, or the gate's exit code after its error.
 */
int cmd_gate_check(int argc, char **argv);

#endif
