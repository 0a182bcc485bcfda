/*
 * exitcodes.h - every exit code pgoptcc and pgbuild use of their own.
 *
 * The wrapper's own codes live in 100..119, deliberately far from anything
 * gcc returns (0, 1, 4 for an internal compiler error, 128+N for signals), so
 * a build log tells at once whether the compiler or the wrapper failed.
 * pgbuild follows pgbench and CI conventions: 0 success, 1 a check failed
 * (gate missed, regression failed, verification mismatch, bad data), 2 could
 * not do the work (bad usage, server would not start, clients aborted), 3 a
 * gate that could not decide.  Each has one table below, PGOPT_EXIT_TABLE
 * and PGBUILD_EXIT_TABLE: the one list of its codes and their meanings.
 */
#ifndef PGOPT_EXITCODES_H
#define PGOPT_EXITCODES_H

/*
 * pgoptcc: the one table of its own codes, each with the one-line meaning
 * that `pgoptcc --help` prints ("  CODE  meaning", ownopts.c) and
 * pgoptcc(1)'s EXIT STATUS quotes word for word; tests/t/91 reads the rows
 * here and holds the help and the page to them.  A row is X(NAME, CODE,
 * "meaning") as in PGBUILD_EXIT_TABLE below (CODE a literal, the line
 * within 80 columns, no '%').  In more detail:
 *
 *   USAGE      an unknown --pgopt-* option or wrong arguments to one;
 *              PGOPT_FAILSAFE set to a value other than the documented
 *              one, or a boolean (PGOPT_PASSTHROUGH, PGOPT_VERBOSE,
 *              unchecked-flags) to no boolean word; pgoptcc cannot resolve
 *              /proc/self/exe or its working directory; a profile bundle
 *              refused (not one, or not what its manifest lists:
 *              wrapper/bundle.h)
 *   POLICY     policy file unreadable (missing, a directory, a FIFO, a
 *              device, over 16 MiB) or invalid, a flag outside the policy
 *              vocabulary included; also --pgopt-check-policy, and a flag
 *              the real compiler does not take there
 *   NO_CC      the real compiler, or a PGOPT_PREFIX command, not found on
 *              PATH or not executable (also under PGOPT_FAILSAFE)
 *   RECURSION  the real compiler or a PGOPT_PREFIX command is pgoptcc
 *              itself, or pgoptcc was run by the compiler it runs
 *              (PGOPT_RECURSION set)
 *   LOG        the compile log cannot be created, opened or written (not
 *              under PGOPT_FAILSAFE); the object of a compile whose record
 *              cannot be written is removed first
 *   PLUGIN     the plugin file is missing or unreadable when a policy
 *              changes the compile (not under PGOPT_FAILSAFE); one gcc
 *              cannot load (built for another gcc, not a plugin) fails the
 *              compile with gcc's own error and status 1; also: the policy
 *              needs what the real compiler cannot give (hot/cold lists
 *              with a compiler that cannot load pgopt.so, lto = fat with
 *              one that is not GCC)
 *   NOMEM      out of memory
 *   EXEC       the compiler (or prefix) was found but could not be forked,
 *              executed or waited for
 *   CONFIG     the settings (wrapper/settings.h): the nearest pgoptcc.conf
 *              refused (not the caller's or root's, writable by others, not
 *              a regular file), unreadable or invalid (path:line: message);
 *              a relative path in a --pgopt-KEY=VALUE option with no
 *              pgoptcc.conf above to resolve it against; or a configure
 *              probe could not write pgoptcc.conf (make would lose
 *              configure's settings)
 *
 * An @response file that cannot be read or expanded has no code of its
 * own: the command line goes to gcc unchanged (classified too_hard), which
 * reads the @file itself or reports it, as everything pgoptcc does not
 * understand does.
 */
#define PGOPT_EXIT_TABLE(X) \
	X(PGOPT_EXIT_USAGE,     100, "bad invocation: an unknown or misused option, setting or bundle") \
	X(PGOPT_EXIT_POLICY,    101, "policy unreadable or invalid (or a flag the compiler does not take)") \
	X(PGOPT_EXIT_NO_CC,     102, "the real compiler or a prefix command not found or not executable") \
	X(PGOPT_EXIT_RECURSION, 103, "recursion: the compiler or a prefix command is pgoptcc itself") \
	X(PGOPT_EXIT_LOG,       104, "the compile log cannot be created, opened or written") \
	X(PGOPT_EXIT_PLUGIN,    105, "the plugin is missing, or the policy needs what the compiler cannot give") \
	X(PGOPT_EXIT_NOMEM,     106, "out of memory") \
	X(PGOPT_EXIT_EXEC,      107, "the compiler was found but could not be started or waited for") \
	X(PGOPT_EXIT_CONFIG,    108, "settings: pgoptcc.conf refused, unreadable, invalid or not writable")

#define PGOPT_EXIT_ENUM_(name, code, text) name = code,
enum pgopt_exit { PGOPT_EXIT_TABLE(PGOPT_EXIT_ENUM_) };
#undef PGOPT_EXIT_ENUM_

/*
 * pgbuild: the one table of its codes, each with the one-line meaning that
 * every --help (cli.h's CLI_EXIT_CODES_HELP, made from these rows) and
 * every man page's EXIT STATUS quote; tests/t/91 reads the rows here and
 * holds the helps and the pages to them.  A row is X(NAME, CODE, "meaning"):
 * CODE a literal (it is quoted into the help), the meaning short enough for
 * "  CODE  meaning" to fit 80 columns, with no '%' (helps are formats).
 * What a code means in one command, if more, that command's help says.
 */
#define PGBUILD_EXIT_TABLE(X) \
	X(PGBUILD_EXIT_OK,        0, "ok (done, or every check passed)") \
	X(PGBUILD_EXIT_FAIL,      1, "a check failed") \
	X(PGBUILD_EXIT_ERROR,     2, "could not run (bad usage, a missing input, a failed build or measurement)") \
	X(PGBUILD_EXIT_UNDECIDED, 3, "undecided (a gate that could not decide)")

#define PGBUILD_EXIT_ENUM_(name, code, text) name = code,
enum pgbuild_exit { PGBUILD_EXIT_TABLE(PGBUILD_EXIT_ENUM_) };
#undef PGBUILD_EXIT_ENUM_

#endif
