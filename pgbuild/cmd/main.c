/*
 * cmd/main.c - pgbuild's entry point: dispatch to a subcommand, and
 * pgbuild's own --help, --version and help COMMAND.
 *
 * The table of subcommands is generated from the PGBUILD_COMMAND lines of
 * the pgbuild sources (see pgbuild.mk); --help lists them in the groups
 * below, by task (a command in no group is listed with the plumbing), and
 * ends with the one list of exit codes (CLI_EXIT_CODES_HELP, cli/cli.h).
 * pgbuild.1's COMMANDS has the same groups (tests/t/91).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/cmd/cmd.h"
#include "wrapper/common/boolean.h"
#include "wrapper/common/suggest.h"

#define PGBUILD_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.inc"
#undef PGBUILD_CMD

struct command {
	const char *name;                 /* as typed on the command line */
	int (*fn)(int argc, char **argv); /* returns a PGBUILD_EXIT_* code */
	const char *summary;              /* one line for --help */
};

static const struct command commands[] = {
#define PGBUILD_CMD(name, summary) { #name, cmd_##name, summary },
#include "commands.inc"
#undef PGBUILD_CMD
	{ NULL, NULL, NULL }
};

/*
 * The groups of pgbuild --help, by task, as git help groups its commands:
 * the workflows first, then what measures and inspects, then the parts
 * they are built of.  A command in no group is listed in the last one, so
 * a new command is never left out of the help.
 */
struct group {
	const char *title;                /* the heading in --help */
	const char *const *names;         /* its commands, in order; NULL-terminated */
};

static const char *const workflows[] = {
	"build", "run", "gate", "optimize", "deb", "pgo", "bolt", "bundle", NULL
};
static const char *const measuring[] = {
	"bench", "noise", "explain", "report", "inspect", "verify", "regress", NULL
};
static const char *const none[] = { NULL };

static const struct group groups[] = {
	{ "build, gate and ship a PostgreSQL", workflows },
	{ "measure and inspect", measuring },
	{ "plumbing (the steps the workflows are made of)", none },
	{ NULL, NULL }
};

static int in_group(const char *const *names, const char *name)
{
	for (; *names; names++)
		if (!strcmp(*names, name))
			return 1;
	return 0;
}

/* Is name in any group? */
static int grouped(const char *name)
{
	for (const struct group *g = groups; g->title; g++)
		if (in_group(g->names, name))
			return 1;
	return 0;
}

static const struct command *find_command(const char *name);

static void usage(FILE *fp)
{
	fprintf(fp, "usage: pgbuild COMMAND [OPTIONS]\n"
		    "       pgbuild help [COMMAND]\n"
		    "       pgbuild --version\n");
	for (const struct group *g = groups; g->title; g++) {
		fprintf(fp, "\n%s:\n", g->title);
		for (const char *const *n = g->names; *n; n++) {
			const struct command *c = find_command(*n);
			if (c)
				fprintf(fp, "  %-12s %s\n", c->name, c->summary);
		}
		if (g[1].title)
			continue;
		for (const struct command *c = commands; c->name; c++)
			if (!grouped(c->name))
				fprintf(fp, "  %-12s %s\n", c->name, c->summary);
	}
	fprintf(fp, "\nRun \"pgbuild help COMMAND\" (or \"pgbuild COMMAND --help\") for a command's\n"
		    "options, \"man pgbuild-COMMAND\" for its manual page.\n\n" CLI_EXIT_CODES_HELP);
}

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* An unknown command: one error naming the nearest one, then the hint. */
static int unknown_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	const char *near;
	size_t n = 0;

	for (const struct command *c = commands; c->name; c++)
		names[n++] = c->name;
	names[n] = NULL;
	near = suggest_word(name, names);
	if (near)
		return cli_usage_error("unknown command \"%s\" (did you mean \"%s\"?)", name, near);
	return cli_usage_error("unknown command \"%s\"", name);
}

static int run_command_named(const struct command *c, int argc, char **argv)
{
	cli_set_command(c->name);
	return c->fn(argc, argv);
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *v;

	error_set_program("pgbuild", PGBUILD_EXIT_ERROR);
	/* a boolean as pgoptcc reads it (git's words, boolean.h): "yes"
	 * must not be silently no here and yes in the compiles */
	if ((v = getenv("PGOPT_VERBOSE")) && (error_verbose = boolean_parse(v)) < 0) {
		error("PGOPT_VERBOSE=%s: expected a boolean: " BOOLEAN_WORDS, v);
		return PGBUILD_EXIT_ERROR;
	}
	pgbuild_find_self();
	/*
	 * Every PostgreSQL make that pgbuild runs (build, regress, pgo, tune)
	 * is a top-level make: PostgreSQL builds its generated headers only at
	 * MAKELEVEL 0, so a MAKELEVEL inherited from an outer make (make demo,
	 * make check-pg) would break a fresh build.
	 */
	unsetenv("MAKELEVEL");
	unsetenv("MAKEFLAGS");
	unsetenv("MFLAGS");
	if (argc < 2) {
		usage(stderr);
		return PGBUILD_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pgbuild (pgoptcc) %s\n", PGOPT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		/* pgbuild help CMD: that command's --help */
		char *help_argv[] = { argv[2], "--help", NULL };
		if (argc > 3)
			return cli_usage_error("unexpected argument \"%s\"", argv[3]);
		if (!(c = find_command(argv[2])))
			return unknown_command(argv[2]);
		return run_command_named(c, 2, help_argv);
	}
	if (argv[1][0] == '-') {
		/* pgbuild's own options (those above) */
		static const struct option own[] = {
			CLI_OPT_HELP, { "version", no_argument, NULL, 'V' }, CLI_OPT_END
		};
		if (argv[1][1] == '-')
			cli_option_error(argv[1], own);
		else
			error("unknown option \"%s\" for pgbuild (its own options: --help, --version)",
			      argv[1]);
		return cli_usage();
	}
	if (!(c = find_command(argv[1])))
		return unknown_command(argv[1]);
	return run_command_named(c, argc - 1, argv + 1);
}
