/*
 * boolean.h - the one reader of a boolean value, for pgoptcc's settings
 * (the environment, --pgopt-KEY=VALUE, pgoptcc.conf) and pgbuild's reading
 * of the same variables: git's words (git_parse_maybe_bool), so a value
 * written for git or ccache means the same here.
 */
#ifndef PGOPT_BOOLEAN_H
#define PGOPT_BOOLEAN_H

/*
 * "yes", "on", "true", "1" are 1; "no", "off", "false", "0" and "" (git:
 * an empty value is false) are 0; any case.  Anything else, NULL too, is
 * -1: the caller's error names the variable and BOOLEAN_WORDS, never a
 * silent default.
 */
int boolean_parse(const char *v);

/* The words boolean_parse takes, for messages. */
#define BOOLEAN_WORDS "yes, no, true, false, on, off, 1 or 0 (empty is no)"

#endif
