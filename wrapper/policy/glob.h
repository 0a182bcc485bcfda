/*
 * glob.h - path globs for policy sections.
 *
 * Syntax, over a path relative to the source root:
 *   *        any run of characters except '/'
 *   **       any run of characters including '/'; two stars followed by
 *            a slash also match zero directories, so the pattern
 *            src, slash, two stars, slash, x.c matches src/x.c too
 *   ?        one character except '/'
 *   [abc] [a-z] [!a-z]   one character of (not of) a set, never '/'
 *   {x,y}    alternatives (may nest, may contain the other syntax)
 *   \c       the character c literally
 */
#ifndef PGOPT_GLOB_H
#define PGOPT_GLOB_H

#include "wrapper/common/strvec.h"

/*
 * Check a glob's syntax and expand its braces into out (one pattern per
 * alternative).  Returns 0, or -1 with a description of what was expected
 * in *why (a static string).
 */
int glob_compile(const char *glob, struct strvec *out, const char **why);

/* Match one brace-free pattern against a path: 1 on match. */
int glob_match(const char *pattern, const char *path);

/*
 * Can the brace-free pattern match some path that ends in suffix (".c":
 * can this section ever match a C translation unit)?  Exact for the
 * syntax above, as long as suffix holds no '/'.
 */
int glob_can_match_suffix(const char *pattern, const char *suffix);

#endif
