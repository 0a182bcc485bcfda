/*
 * xalloc.h - allocation wrappers that never return NULL.
 *
 * On out-of-memory they print "<prog>: error: out of memory" and exit with
 * PGOPT_EXIT_NOMEM (pgoptcc) or PGBUILD_EXIT_ERROR (pgbuild), chosen by
 * error_set_program().
 */
#ifndef PGOPT_XALLOC_H
#define PGOPT_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array so that (nr) elements fit, doubling like git's ALLOC_GROW. */
#define ALLOC_GROW(arr, nr, alloc)                                          \
	do {                                                                \
		if ((size_t)(nr) > (size_t)(alloc)) {                       \
			(alloc) = (alloc) ? (alloc) * 2 : 8;                \
			if ((size_t)(alloc) < (size_t)(nr))                 \
				(alloc) = (nr);                             \
			(arr) = xrealloc((arr), sizeof(*(arr)) * (alloc));  \
		}                                                           \
	} while (0)

#endif
