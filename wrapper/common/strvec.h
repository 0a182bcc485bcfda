/*
 * strvec.h - a NULL-terminated, growable array of owned strings, used to
 * build argument vectors and environments (after git's strvec).
 *
 * v[nr] is always NULL, so sv.v can be passed straight to execv().  The
 * strings are owned by the strvec: push copies them.
 */
#ifndef PGOPT_STRVEC_H
#define PGOPT_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;     /* the strings, v[nr] == NULL */
	size_t nr;    /* number of strings */
	size_t alloc; /* slots allocated */
};

extern char *strvec_empty[];
#define STRVEC_INIT { strvec_empty, 0, 0 }

void strvec_init(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Push each argument up to a terminating NULL. */
void strvec_pushl(struct strvec *sv, ...) __attribute__((sentinel));
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_pushn(struct strvec *sv, const char *const *v, size_t n);
void strvec_insert(struct strvec *sv, size_t at, const char *s);
void strvec_remove(struct strvec *sv, size_t at);
void strvec_pop(struct strvec *sv);
void strvec_clear(struct strvec *sv);
/* Split on runs of blanks (no quoting) and push each word. */
void strvec_split(struct strvec *sv, const char *s);
/* Index of the first string equal to s, or -1. */
long strvec_find(const struct strvec *sv, const char *s);

#endif
