/*
 * verify.h - prove from the installed binary that every object in
 * `postgres` was compiled with exactly the flags its policy assigns, and
 * (with --baseline) show what the policy did to code size (`pgbuild
 * verify`).
 *
 * The build: an install made by `pgbuild build` (--install: its record
 * names the build directory, policy and compile log; the binary checked is
 * PREFIX/bin/postgres), or any build through pgoptcc (--log DIR --builddir
 * DIR: a package build; every program and shared library its links made,
 * or --binary's), see verifysrc.h.  Each binary is checked the same way.
 *
 * Expected flags: the objects of postgres are taken from the link of
 * src/backend/postgres in the build's compile log (object files on the link
 * line, and the members of the static libraries on it).  Each object's
 * recorded compile is replayed through pgoptcc under the policy being
 * verified (PGOPT_PREFIX=true: pgoptcc computes the final command line, only
 * `true` runs), so the expectation comes from the policy file itself - give
 * --policy to check the binary against another policy than it was built
 * with.  The log and the record are data, never commands: the compiler
 * pgoptcc asks is the caller's (PGOPT_CC, default gcc, on the caller's
 * PATH; the one the log or record names is compared, a mismatch warned
 * about), the replay's environment the caller's plus the checked names of
 * the record (buildlog_env: PGOPT_PROFILE, PGOPT_BUNDLE), and nothing
 * reaches a shell.
 *
 * Recorded flags: the pgopt.so record of each translation unit inside the
 * binary (.pgopt.log, read with elfrec.h): what pgoptcc added and removed,
 * and the options cc1 really ran with.  This works for LTO builds too, where
 * the linker drops each object's .GCC.command.line but keeps the plugin's
 * record (it travels as a top-level asm statement with the IR).
 *
 * An object whose policy adds or removes flags must have a record whose
 * added/removed lists equal the expectation, and whose cc1 options contain
 * every added flag and no removed flag.  An object the policy leaves alone
 * must not carry added or removed flags.  Members of static libraries that
 * the linker did not pull in have no record and are only counted.  A
 * record in the binary whose translation unit matches no object on the
 * link line is reported as EXTRA.
 *
 * With --baseline: total text size, hot and unlikely code per function
 * (see hotcold_sizes(): a linked binary has no .text.hot/.text.unlikely
 * sections of its own), and the top growing and shrinking functions.
 *
 * A policy section that matched no translation unit the build compiled
 * (verify_unmatched: a misspelt path leaves the build stock, and every
 * object then carries exactly what the policy assigns it - nothing) is a
 * failure too, one UNMATCHED line each naming the section's file:line and
 * glob, unless the caller expects it (--allow-unmatched: then a warning).
 * [global] always applies and is never one.
 *
 * Output: one line per problem (UNMATCHED first, then MISSING / EXTRA /
 * NORECORD / NOTAPPLIED / STILL), then the verdict line of the binary;
 * with several binaries, a last line over all; with unmatched sections, a
 * last line saying so.  Exit 0 verified, 1 a mismatch, 2 error.
 */
#ifndef PGBUILD_VERIFY_H
#define PGBUILD_VERIFY_H

#include "wrapper/common/strvec.h"

/* What to verify (the options of `pgbuild verify`). */
struct verify_opts {
	const char *prefix;    /* --install: an install made by pgbuild build */
	const char *logdir;    /* --log: pgoptcc's log directory of any build
				* (instead of --install; needs --builddir) */
	const char *binary;    /* --binary: with --log, only this link output */
	const char *policy;    /* --policy FILE|none, NULL: the one it was built with */
	const char *builddir;  /* --builddir, NULL: from the build record */
	const char *baseline;  /* --baseline PREFIX: compare sizes, or NULL */
	int top;               /* --top N functions of growth and shrink */
	int verbose;           /* --verbose: list every object checked */
	int quiet;             /* --quiet: the findings and FAILED verdicts
				* only (an OK verify prints nothing) */
	int allow_unmatched;   /* --allow-unmatched: a section that matched no
				* unit is a warning, not a failure */
};

/* Every option's default, as `pgbuild verify` has it (--top 10). */
#define VERIFY_OPTS_INIT { .top = 10 }

/* Check, print the problems and the verdict; returns the exit code (0
 * verified, 1 a mismatch, 2 error). */
int verify_run(const struct verify_opts *o);

/*
 * The sections of the policy at policy that no compile of logfile whose
 * working directory is in builddir (NULL: any) matched, one
 * "FILE:LINE: section [GLOB] matched none of the N translation units
 * compiled" line each appended to out (policy_unmatched).  Returns how
 * many, or -1 after an error (the policy cannot be read).  `pgbuild build`
 * warns with these lines at its end; verify fails on them.
 */
long verify_unmatched(const char *policy, const char *logfile, const char *builddir,
		      struct strvec *out);

#endif
