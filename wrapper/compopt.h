/*
 * compopt.h - what pgoptcc knows about gcc's command-line options.
 *
 * One sorted table (compopt.c) says, per option, whether it takes an
 * argument (as the next word, or glued on: "-I dir" / "-Idir"), whether that
 * argument is a path, and whether the option selects a mode (-c, -S, -E, -M,
 * -MM), only queries the compiler (--version, -dumpversion, -print-*), or
 * makes the command line too hard to reason about.  gcc's long aliases
 * (--compile, --output=FILE, --language c++ ...) have rows of their own
 * with the meaning of the short option.  Adding knowledge of a
 * flag is one row; a unit test checks that the rows stay sorted.
 */
#ifndef PGOPT_COMPOPT_H
#define PGOPT_COMPOPT_H

#define CO_TAKES_ARG        (1u << 0) /* argument in the next word */
#define CO_TAKES_CONCAT_ARG (1u << 1) /* argument may be glued on: -Idir */
#define CO_TAKES_PATH       (1u << 2) /* the argument is a path */
#define CO_MODE_COMPILE     (1u << 3) /* -c */
#define CO_MODE_ASSEMBLE    (1u << 4) /* -S: stop after compiling to assembler */
#define CO_MODE_PREPROCESS  (1u << 5) /* -E */
#define CO_MODE_DEPEND      (1u << 6) /* -M, -MM: dependencies only (implies -E) */
#define CO_QUERY            (1u << 7) /* asks the driver something, no compile */
#define CO_TOO_HARD         (1u << 8) /* do not touch such a command line */
#define CO_LINK_SHARED      (1u << 9) /* -shared */
#define CO_LINK_RELOC       (1u << 10) /* -r: relocatable (partial) link */
#define CO_LANGUAGE         (1u << 11) /* -x: sets the language of later inputs */
#define CO_OUTPUT           (1u << 12) /* -o */
#define CO_WRITE_DEPS       (1u << 13) /* -MD, -MMD: dependencies as a side effect */

struct compopt {
	const char *name;   /* the option exactly as written, e.g. "-include" */
	unsigned flags;     /* CO_* bits */
};

/* Exact lookup of arg in the table; NULL when unknown. */
const struct compopt *compopt_find(const char *arg);

/*
 * Lookup of an option with a glued-on argument ("-I/usr/include",
 * "-DFOO=1", "-ofile"): the longest CO_TAKES_CONCAT_ARG row that is a
 * proper prefix of arg.  NULL when none.
 */
const struct compopt *compopt_find_prefix(const char *arg);

/* For the unit test: the table and its length. */
const struct compopt *compopt_table(unsigned *n);

#endif
