/*
 * explain/strmap.h - a string -> pointer hash map for explain's indexes
 * (symbol names to record files, row keys to rows, function names to
 * their records): open addressing, keys copied, values the caller's.
 */
#ifndef PGBUILD_EXPLAIN_STRMAP_H
#define PGBUILD_EXPLAIN_STRMAP_H

#include <stddef.h>

/* One slot. */
struct strmap_entry {
	char *key;      /* owned; NULL: empty */
	void *value;    /* the caller's */
};

struct strmap {
	struct strmap_entry *v;  /* slots */
	size_t size;             /* slots (a power of two, 0 before the first put) */
	size_t nr;               /* keys */
};

#define STRMAP_INIT { NULL, 0, 0 }

/* The value of key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Set key's value (added when missing). */
void strmap_put(struct strmap *m, const char *key, void *value);
/* The value's slot of key, added with a NULL value when missing. */
void **strmap_slot(struct strmap *m, const char *key);
/* Free the keys (values are the caller's). */
void strmap_clear(struct strmap *m);

#endif
