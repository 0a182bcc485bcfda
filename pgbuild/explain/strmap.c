/*
 * explain/strmap.c - a string -> pointer hash map; see strmap.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/strmap.h"
#include "pgbuild/pgbuild.h"

static size_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

/* The slot of key: its entry or the empty one it would take. */
static struct strmap_entry *find(const struct strmap *m, const char *key)
{
	size_t mask = m->size - 1, i = hash_of(key) & mask;
	while (m->v[i].key && strcmp(m->v[i].key, key))
		i = (i + 1) & mask;
	return &m->v[i];
}

static void grow(struct strmap *m)
{
	struct strmap_entry *old = m->v;
	size_t n = m->size;
	m->size = n ? 2 * n : 256;
	m->v = xcalloc(m->size, sizeof(*m->v));
	for (size_t i = 0; i < n; i++)
		if (old[i].key)
			*find(m, old[i].key) = old[i];
	free(old);
}

void *strmap_get(const struct strmap *m, const char *key)
{
	return m->size ? find(m, key)->value : NULL;
}

void **strmap_slot(struct strmap *m, const char *key)
{
	struct strmap_entry *e;
	if (2 * (m->nr + 1) > m->size)
		grow(m);
	e = find(m, key);
	if (!e->key) {
		e->key = xstrdup(key);
		e->value = NULL;
		m->nr++;
	}
	return &e->value;
}

void strmap_put(struct strmap *m, const char *key, void *value)
{
	*strmap_slot(m, key) = value;
}

void strmap_clear(struct strmap *m)
{
	for (size_t i = 0; i < m->size; i++)
		free(m->v[i].key);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
