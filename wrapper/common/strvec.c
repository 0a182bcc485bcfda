/*
 * strvec.c - NULL-terminated growable string arrays; see strvec.h.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"

char *strvec_empty[] = { NULL };

void strvec_init(struct strvec *sv)
{
	sv->v = strvec_empty;
	sv->nr = sv->alloc = 0;
}

static void strvec_make_room(struct strvec *sv, size_t extra)
{
	if (sv->v == strvec_empty)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->nr + extra + 1, sv->alloc);
}

void strvec_push_nodup(struct strvec *sv, char *s)
{
	strvec_make_room(sv, 1);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		p = NULL;
	va_end(ap);
	if (!p)
		p = xstrdup(""); /* unreachable in practice; keeps type */
	strvec_push_nodup(sv, p);
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;
	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

void strvec_pushn(struct strvec *sv, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strvec_push(sv, v[i]);
}

void strvec_insert(struct strvec *sv, size_t at, const char *s)
{
	if (at > sv->nr)
		at = sv->nr;
	strvec_make_room(sv, 1);
	memmove(sv->v + at + 1, sv->v + at, (sv->nr - at + 1) * sizeof(char *));
	sv->v[at] = xstrdup(s);
	sv->nr++;
}

void strvec_remove(struct strvec *sv, size_t at)
{
	if (at >= sv->nr)
		return;
	free(sv->v[at]);
	memmove(sv->v + at, sv->v + at + 1, (sv->nr - at) * sizeof(char *));
	sv->nr--;
}

void strvec_pop(struct strvec *sv)
{
	if (sv->nr)
		strvec_remove(sv, sv->nr - 1);
}

void strvec_clear(struct strvec *sv)
{
	if (sv->v != strvec_empty) {
		for (size_t i = 0; i < sv->nr; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

void strvec_split(struct strvec *sv, const char *s)
{
	while (s && *s) {
		const char *e;
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		e = s;
		while (*e && !isspace((unsigned char)*e))
			e++;
		strvec_push_nodup(sv, xstrndup(s, (size_t)(e - s)));
		s = e;
	}
}

long strvec_find(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}
