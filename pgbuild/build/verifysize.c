/*
 * verifysize.c - what a policy did to code size (`pgbuild verify
 * --baseline`): total text, hot and unlikely code per function, and the top
 * growing and shrinking functions; see verifysize.h.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/verifysize.h"
#include "pgbuild/pgbuild.h"

struct fsize {
	char *name;
	long long a, b;   /* size in baseline / candidate (summed over duplicates) */
};

static int cmp_fname(const void *x, const void *y)
{
	return strcmp(((const struct fsize *)x)->name, ((const struct fsize *)y)->name);
}

static int cmp_delta(const void *x, const void *y)
{
	const struct fsize *p = x, *q = y;
	long long dp = p->b - p->a, dq = q->b - q->a;
	return (dp < dq) - (dp > dq);
}

/* "foo.lto_priv.0" -> "foo": LTO renames local symbols. */
static char *base_name(const char *s)
{
	const char *l = strstr(s, ".lto_priv.");
	return l ? xstrndup(s, (size_t)(l - s)) : xstrdup(s);
}

static void add_sizes(struct fsize **v, size_t *nr, size_t *alloc,
		      const struct elfrec_object *o, int which)
{
	for (size_t i = 0; i < o->nfuncs; i++) {
		if (!o->funcs[i].size || !o->funcs[i].section[0])
			continue;
		ALLOC_GROW(*v, *nr + 1, *alloc);
		(*v)[*nr].name = base_name(o->funcs[i].name);
		(*v)[*nr].a = which == 0 ? (long long)o->funcs[i].size : 0;
		(*v)[*nr].b = which == 1 ? (long long)o->funcs[i].size : 0;
		(*nr)++;
	}
}

/*
 * Hot and unlikely code of a binary, per function.  GNU ld's default script
 * merges .text.hot and .text.unlikely into .text, so a linked binary has no
 * such output sections: a function counts as hot or unlikely when its
 * pgopt.so record names that section (where GCC put it), and every split
 * part "NAME.cold" (-freorder-blocks-and-partition) counts as unlikely.
 * Each symbol counts once (an LTO binary holds compile and link-time
 * records of one function).  A file without records (or an unlinked
 * object) falls back to its section sizes.
 */
struct hotcold {
	uint64_t hot, unlikely;  /* bytes */
	long nhot, nunlikely;    /* functions */
	long ncold_parts;        /* split .cold parts (in nunlikely too) */
	int from_sections;       /* 1: no records, ELF section sizes used */
};

static int is_cold_part(const char *name)
{
	const char *c = strstr(name, ".cold");
	return c && (c[5] == '\0' || c[5] == '.');
}

static void hotcold_sizes(const struct elfrec_object *o, struct hotcold *hc)
{
	struct elfrec_unit *units = NULL;
	struct strbuf err = STRBUF_INIT;
	char *seen = xcalloc(o->nfuncs + 1, 1);
	long n = elfrec_units(o, &units, &err);

	memset(hc, 0, sizeof(*hc));
	for (long u = 0; u < n; u++)
		for (size_t k = 0; k < units[u].nfns; k++) {
			const char *sec = json_get_str(units[u].fns[k], "section");
			const struct elfrec_func *f;
			int hot;
			if (!sec)
				continue;
			if (elfrec_section_is(sec, ".text.hot"))
				hot = 1;
			else if (elfrec_section_is(sec, ".text.unlikely"))
				hot = 0;
			else
				continue;
			f = elfrec_record_func(o, units[u].unit, units[u].fns[k]);
			if (!f || !f->section[0] || seen[f - o->funcs])
				continue;
			seen[f - o->funcs] = 1;
			if (hot) {
				hc->hot += f->size;
				hc->nhot++;
			} else {
				hc->unlikely += f->size;
				hc->nunlikely++;
			}
		}
	for (size_t i = 0; i < o->nfuncs; i++)
		if (!seen[i] && o->funcs[i].section[0] && is_cold_part(o->funcs[i].name)) {
			seen[i] = 1;
			hc->unlikely += o->funcs[i].size;
			hc->nunlikely++;
			hc->ncold_parts++;
		}
	if (n <= 0 && o->elf_type == ET_REL) {
		hc->hot = o->text_hot_size;
		hc->unlikely = o->text_unlikely_size;
		hc->from_sections = 1;
	}
	if (n > 0)
		elfrec_units_free(units, (size_t)n);
	free(seen);
	strbuf_release(&err);
}

int verifysize_compare(const char *base_bin, const struct elfrec_object *cand, int top)
{
	struct hotcold hb, hcand;
	struct elfrec_file bf;
	struct strbuf err = STRBUF_INIT;
	struct fsize *v = NULL;
	size_t nr = 0, alloc = 0, w = 0;
	long only_a = 0, only_b = 0, both = 0;
	const struct elfrec_object *base;

	if (elfrec_open(base_bin, &bf, &err) < 0) {
		error("--baseline: %s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	base = &bf.objs[0];
	printf("size: text %llu -> %llu bytes (%+.2f%%)\n",
	       (unsigned long long)base->text_size, (unsigned long long)cand->text_size,
	       base->text_size ? 100.0 * ((double)cand->text_size - (double)base->text_size) /
					 (double)base->text_size : 0.0);
	hotcold_sizes(base, &hb);
	hotcold_sizes(cand, &hcand);
	printf("size: .text.hot %llu -> %llu bytes, .text.unlikely %llu -> %llu bytes "
	       "(per function: hot %ld -> %ld functions, unlikely %ld -> %ld of which "
	       "%ld -> %ld split .cold parts)\n",
	       (unsigned long long)hb.hot, (unsigned long long)hcand.hot,
	       (unsigned long long)hb.unlikely, (unsigned long long)hcand.unlikely,
	       hb.nhot, hcand.nhot, hb.nunlikely, hcand.nunlikely,
	       hb.ncold_parts, hcand.ncold_parts);
	add_sizes(&v, &nr, &alloc, base, 0);
	add_sizes(&v, &nr, &alloc, cand, 1);
	qsort(v, nr, sizeof(*v), cmp_fname);
	for (size_t i = 0; i < nr; i++) {
		if (w && !strcmp(v[w - 1].name, v[i].name)) {
			v[w - 1].a += v[i].a;
			v[w - 1].b += v[i].b;
			free(v[i].name);
		} else {
			v[w++] = v[i];
		}
	}
	nr = w;
	for (size_t i = 0; i < nr; i++) {
		if (v[i].a && v[i].b)
			both++;
		else if (v[i].a)
			only_a++;
		else
			only_b++;
	}
	printf("size: functions: %ld in both, %ld only in the baseline (inlined away or "
	       "renamed), %ld only in the candidate\n", both, only_a, only_b);
	qsort(v, nr, sizeof(*v), cmp_delta);
	printf("size: top growth:\n");
	for (size_t i = 0; i < nr && (int)i < top && v[i].b > v[i].a; i++)
		printf("  %+8lld  %-40s %lld -> %lld\n", v[i].b - v[i].a, v[i].name, v[i].a, v[i].b);
	printf("size: top shrink:\n");
	for (size_t i = 0; i < (size_t)top && i < nr && v[nr - 1 - i].b < v[nr - 1 - i].a; i++) {
		const struct fsize *f = &v[nr - 1 - i];
		printf("  %+8lld  %-40s %lld -> %lld\n", f->b - f->a, f->name, f->a, f->b);
	}
	for (size_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	elfrec_release(&bf);
	strbuf_release(&err);
	return 0;
}
