/*
 * explain/names.c - the compilers' suffixes stripped from symbol names, and the
 * symbols of two builds matched into one row per source function; see
 * names.h.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/names.h"
#include "pgbuild/pgbuild.h"

const struct explain_suffix explain_suffixes[] = {
	{ ".lto_priv", EXPLAIN_NK_LTO_PRIV, "LTO rename" },
	{ ".isra", EXPLAIN_NK_ISRA, "IPA-SRA clone" },
	{ ".constprop", EXPLAIN_NK_CONSTPROP, "IPA-CP clone" },
	{ ".part", EXPLAIN_NK_PART, "partial inlining's rest" },
	{ ".cold", EXPLAIN_NK_COLD, "cold part" },
	{ ".localalias", EXPLAIN_NK_LOCALALIAS, "local alias" },
	{ ".org", EXPLAIN_NK_BOLT_ORG, "BOLT's jump at the old address" },
	{ ".llvm", EXPLAIN_NK_LLVM, "ThinLTO rename" },
	{ NULL, 0, NULL },
};

/* The table row whose word is s[0..len), or NULL. */
static const struct explain_suffix *suffix_of(const char *s, size_t len)
{
	for (const struct explain_suffix *x = explain_suffixes; x->word; x++)
		if (strlen(x->word) == len && !memcmp(x->word, s, len))
			return x;
	return NULL;
}

/* Where the dotted word ending at end (exclusive) starts, or NULL. */
static const char *word_start(const char *name, const char *end)
{
	const char *p = end;
	while (p > name && p[-1] != '.')
		p--;
	return p > name ? p - 1 : NULL;
}

unsigned explain_name_base(const char *sym, struct strbuf *base)
{
	const char *end = sym + strlen(sym);
	unsigned kinds = 0;

	/* callgrind's recursion level: fn'2 */
	{
		const char *q = end;
		while (q > sym && isdigit((unsigned char)q[-1]))
			q--;
		if (q < end && q > sym + 1 && q[-1] == '\'') {
			end = q - 1;
			kinds |= EXPLAIN_NK_RECURSION;
		}
	}
	for (;;) {
		const char *w = word_start(sym, end), *stop = end;
		const struct explain_suffix *x;
		if (!w)
			break;
		/* a number after the word: ".0" of ".isra.0" */
		if (w + 1 < end && strspn(w + 1, "0123456789") == (size_t)(end - w - 1)) {
			stop = w;
			if (!(w = word_start(sym, stop)))
				break;
		}
		if (!(x = suffix_of(w, (size_t)(stop - w))) || w == sym)
			break;
		kinds |= x->kind;
		end = w;
	}
	strbuf_reset(base);
	strbuf_add(base, sym, (size_t)(end - sym));
	return kinds;
}

void explain_name_kinds_text(unsigned kinds, struct strbuf *out)
{
	int any = 0;
	for (const struct explain_suffix *x = explain_suffixes; x->word; x++) {
		if (!(kinds & x->kind))
			continue;
		strbuf_addf(out, "%s%s", any ? ", " : "", x->meaning);
		any = 1;
	}
}

int explain_name_is_fragment(unsigned kinds)
{
	return (kinds & (EXPLAIN_NK_COLD | EXPLAIN_NK_PART | EXPLAIN_NK_LOCALALIAS |
			 EXPLAIN_NK_BOLT_ORG)) != 0;
}

/* ---------------- matching ---------------- */

/* One symbol, parsed. */
struct parsed {
	const struct explain_sym *s; /* the input */
	int side;                    /* 0 A, 1 B */
	char *base;                  /* its base name */
	const char *file;            /* base name of its file, "" unknown */
	unsigned kinds;              /* its suffixes */
	int fragment;                /* cold, part or alias */
	char *key;                   /* its row's key */
	int shared;                  /* its code is counted in an earlier row
					(or the same row) already */
};

static const char *file_base(const char *path)
{
	const char *slash;
	if (!path)
		return "";
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int cmp_parsed_base(const void *pa, const void *pb)
{
	const struct parsed *a = pa, *b = pb;
	int c = strcmp(a->base, b->base);
	return c ? c : a->side - b->side;
}

static int cmp_str(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* How many functions side defines in [g, e): its globals and the files
 * of its statics, counting fragments only when it has nothing else (the
 * .part rests of two statics whose bodies were inlined everywhere). */
static int side_definitions(const struct parsed *g, const struct parsed *e, int side,
			    int fragments)
{
	const char *first = NULL;
	int globals = 0, locals = 0;
	for (const struct parsed *p = g; p < e; p++) {
		if (p->side != side || p->fragment != fragments)
			continue;
		if (p->s->global)
			globals++;
		else if (!first)
			first = p->file, locals = 1;
		else if (strcmp(first, p->file))
			locals = 2;
	}
	return globals + locals;
}

/* Does one side of the group [g, e) define more than one function? */
static int group_ambiguous(const struct parsed *g, const struct parsed *e)
{
	for (int side = 0; side < 2; side++) {
		int n = side_definitions(g, e, side, 0);
		if (!n)
			n = side_definitions(g, e, side, 1);
		if (n > 1)
			return 1;
	}
	return 0;
}

/* Can [g, e) be told apart by file: every static of it (fragments too)
 * has a known file, and none is a header's (a static inline function of a
 * header is one function, however many files include it)? */
static int group_scopable(const struct parsed *g, const struct parsed *e)
{
	for (const struct parsed *p = g; p < e; p++) {
		size_t n = strlen(p->file);
		if (p->s->global)
			continue;
		if (!n || (n > 2 && !strcmp(p->file + n - 2, ".h")))
			return 0;
	}
	return 1;
}

/* Is there a LOCAL definition (not a fragment) in file on side? */
static int group_has_local(const struct parsed *g, const struct parsed *e, int side,
			   const char *file)
{
	for (const struct parsed *p = g; p < e; p++)
		if (p->side == side && !p->fragment && !p->s->global && !strcmp(p->file, file))
			return 1;
	return 0;
}

static int group_globals(const struct parsed *g, const struct parsed *e, int side)
{
	int n = 0;
	for (const struct parsed *p = g; p < e; p++)
		n += p->side == side && !p->fragment && p->s->global;
	return n;
}

/* The keys of a scoped group: statics base@file, the global base. */
static void scope_group(struct parsed *g, struct parsed *e)
{
	for (struct parsed *p = g; p < e; p++) {
		int local = !p->s->global;
		if (p->fragment && local && !group_has_local(g, e, p->side, p->file) &&
		    group_globals(g, e, p->side) == 1)
			local = 0; /* the cold part of the global function */
		if (local && *p->file)
			p->key = xasprintf("%s@%s", p->base, p->file);
		else if (local)
			p->key = xasprintf("%s@?", p->base);
		else
			p->key = xstrdup(p->base);
	}
}

static int cmp_parsed_key(const void *pa, const void *pb)
{
	const struct parsed *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	if (a->side != b->side)
		return a->side - b->side;
	return strcmp(a->s->name, b->s->name);
}

/* By side, address, then key: the first of an address carries its size. */
static int cmp_parsed_addr(const void *pa, const void *pb)
{
	const struct parsed *a = *(const struct parsed *const *)pa;
	const struct parsed *b = *(const struct parsed *const *)pb;
	if (a->side != b->side)
		return a->side - b->side;
	if (a->s->addr != b->s->addr)
		return a->s->addr < b->s->addr ? -1 : 1;
	return cmp_parsed_key(a, b);
}

/* Mark every symbol whose code an earlier one (by key) already counts. */
static void mark_shared(struct parsed *v, size_t nv)
{
	struct parsed **by = xcalloc(nv + 1, sizeof(*by));
	for (size_t i = 0; i < nv; i++)
		by[i] = &v[i];
	if (nv)
		qsort(by, nv, sizeof(*by), cmp_parsed_addr);
	for (size_t i = 1; i < nv; i++)
		by[i]->shared = by[i]->side == by[i - 1]->side && by[i]->s->addr == by[i - 1]->s->addr;
	free(by);
}

/* Parse every symbol of both sides. */
static struct parsed *parse_all(const struct explain_sym *const syms[2], const size_t n[2],
				size_t *np)
{
	struct parsed *v = xcalloc(n[0] + n[1] + 1, sizeof(*v));
	struct strbuf base = STRBUF_INIT;
	size_t k = 0;
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < n[side]; i++) {
			struct parsed *p = &v[k++];
			p->s = &syms[side][i];
			p->side = side;
			p->kinds = explain_name_base(p->s->name, &base);
			p->base = xstrdup(base.buf);
			p->file = file_base(p->s->file);
			p->fragment = explain_name_is_fragment(p->kinds);
		}
	}
	strbuf_release(&base);
	*np = k;
	return v;
}

/* Give every parsed symbol its key; scoped bases go to t->scoped. */
static void assign_keys(struct explain_symtab *t, struct parsed *v, size_t nv, int scoped)
{
	size_t alloc = 0;
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_parsed_base);
	for (size_t i = 0; i < nv;) {
		size_t j = i;
		while (j < nv && !strcmp(v[j].base, v[i].base))
			j++;
		if (scoped && group_ambiguous(&v[i], &v[j]) && group_scopable(&v[i], &v[j])) {
			scope_group(&v[i], &v[j]);
			ALLOC_GROW(t->scoped, t->nscoped + 1, alloc);
			t->scoped[t->nscoped++] = xstrdup(v[i].base);
		} else {
			for (size_t k = i; k < j; k++)
				v[k].key = xstrdup(v[k].base);
		}
		i = j;
	}
	if (t->nscoped)
		qsort(t->scoped, t->nscoped, sizeof(*t->scoped), cmp_str);
}

/* Add symbol p to row r: its code once per address and side. */
static void row_add(struct explain_symrow *r, const struct parsed *p, struct strbuf *names)
{
	int side = p->side;
	if (!isfinite(r->size[side]))
		r->size[side] = 0;
	if (!p->shared && !(p->kinds & EXPLAIN_NK_LOCALALIAS)) {
		r->size[side] += (double)p->s->size;
		if (p->kinds & EXPLAIN_NK_COLD)
			r->cold[side] += (double)p->s->size;
	}
	r->kinds[side] |= p->kinds;
	r->nsyms[side]++;
	if (names[side].len)
		strbuf_addch(&names[side], ' ');
	strbuf_addstr(&names[side], p->s->name);
}

/* The rows, from the key-sorted symbols. */
static void make_rows(struct explain_symtab *t, struct parsed *v, size_t nv)
{
	struct strbuf names[2] = { STRBUF_INIT, STRBUF_INIT };
	for (size_t i = 0; i < nv;) {
		struct explain_symrow *r;
		const char *at = strchr(v[i].key + strlen(v[i].base), '@');
		size_t j = i;
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		r = &t->v[t->nr++];
		memset(r, 0, sizeof(*r));
		r->key = xstrdup(v[i].key);
		r->base = xstrdup(v[i].base);
		r->file = at ? xstrdup(at + 1) : NULL;
		r->size[0] = r->size[1] = NAN;
		for (; j < nv && !strcmp(v[j].key, v[i].key); j++)
			row_add(r, &v[j], names);
		for (int s = 0; s < 2; s++) {
			r->names[s] = strbuf_detach(&names[s], NULL);
			strbuf_init(&names[s], 0);
		}
		i = j;
	}
}

void explain_symtab_build(struct explain_symtab *t, const struct explain_sym *const syms[2],
			  const size_t n[2], int scoped)
{
	size_t nv;
	struct parsed *v = parse_all(syms, n, &nv);
	assign_keys(t, v, nv, scoped);
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_parsed_key);
	mark_shared(v, nv);
	make_rows(t, v, nv);
	for (size_t i = 0; i < nv; i++) {
		free(v[i].base);
		free(v[i].key);
	}
	free(v);
}

static int cmp_row_key(const void *pk, const void *pr)
{
	return strcmp(pk, ((const struct explain_symrow *)pr)->key);
}

const struct explain_symrow *explain_symtab_find(const struct explain_symtab *t,
						 const char *key)
{
	if (!t->nr)
		return NULL;
	return bsearch(key, t->v, t->nr, sizeof(*t->v), cmp_row_key);
}

void explain_symtab_key(const struct explain_symtab *t, const char *name, const char *file,
			struct strbuf *key)
{
	const char *base;
	explain_name_base(name, key);
	base = key->buf;
	if (file && *file && t->nscoped &&
	    bsearch(&base, t->scoped, t->nscoped, sizeof(*t->scoped), cmp_str)) {
		char *scoped = xasprintf("%s@%s", key->buf, file_base(file));
		if (explain_symtab_find(t, scoped)) {
			strbuf_reset(key);
			strbuf_addstr(key, scoped);
		}
		free(scoped);
	}
}

void explain_symtab_clear(struct explain_symtab *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->v[i].key);
		free(t->v[i].base);
		free(t->v[i].file);
		free(t->v[i].names[0]);
		free(t->v[i].names[1]);
	}
	free(t->v);
	for (size_t i = 0; i < t->nscoped; i++)
		free(t->scoped[i]);
	free(t->scoped);
	memset(t, 0, sizeof(*t));
}
