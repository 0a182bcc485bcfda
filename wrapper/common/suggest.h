/*
 * suggest.h - "did you mean ...?" for a misspelt key or option name.
 *
 * Used by the policy parser (cflag -> cflags, CFLAGS -> cflags), the
 * policy vocabulary (-fomit-frame-pointr -> -fomit-frame-pointer), the
 * pgoptcc.conf parser and pgoptcc's own options.
 */
#ifndef PGOPT_SUGGEST_H
#define PGOPT_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b: insertions, deletions, substitutions
 * and swaps of two neighbours each cost 1 (optimal string alignment). */
size_t suggest_distance(const char *a, const char *b);

/*
 * The candidate closest to word, or NULL when none is close enough.
 * candidates is NULL-terminated.  A candidate equal to word but for case
 * always wins; otherwise the closest one to word in lower case, within
 * distance 2 (1 for words of up to 3 characters), the first of equals in
 * table order.
 */
const char *suggest_word(const char *word, const char *const *candidates);

#endif
