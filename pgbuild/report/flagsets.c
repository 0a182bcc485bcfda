/*
 * report/flagsets.c - the translation units a policy changed, grouped by
 * the flags it gave them (what it added and removed): one line per flag
 * set ("1185 units: + -O2 -finline-functions -flto=auto") instead of one
 * per unit, the largest set first, and in each set the units whose
 * functions the policy's hot list marked before the others; see
 * report.h.
 */
#include <stdlib.h>
#include <string.h>

#include "pgbuild/pgbuild.h"
#include "pgbuild/report/report.h"

int report_tu_is_hot(const struct report_data *rd, const char *tu)
{
	for (size_t i = 0; i < rd->hot_tus.nr; i++)
		if (!strcmp(rd->hot_tus.v[i], tu))
			return 1;
	return 0;
}

/* Order inside a set: hot units first, then by path (rd->tus is sorted). */
struct unit_order {
	size_t idx;   /* into rd->tus */
	int hot;      /* a hot unit */
};

static int cmp_order(const void *pa, const void *pb)
{
	const struct unit_order *a = pa, *b = pb;
	if (a->hot != b->hot)
		return b->hot - a->hot;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_set(const void *pa, const void *pb)
{
	const struct report_flagset *a = pa, *b = pb;
	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return strcmp(a->added, b->added);
}

/* Add unit i to its set (made when new). */
static void add_unit(const struct report_data *rd, size_t i, struct report_flagset **v,
		     size_t *nr, size_t *alloc)
{
	const struct report_tu *t = &rd->tus[i];
	struct report_flagset *set = NULL;
	int seen = 0;
	for (size_t k = 0; k < *nr && !set; k++)
		if (!strcmp((*v)[k].added, t->added) && !strcmp((*v)[k].removed, t->removed))
			set = &(*v)[k];
	if (!set) {
		ALLOC_GROW(*v, *nr + 1, *alloc);
		set = &(*v)[(*nr)++];
		memset(set, 0, sizeof(*set));
		set->added = t->added;
		set->removed = t->removed;
		strvec_init(&set->rules);
	}
	ALLOC_GROW(set->units, set->n + 1, set->alloc);
	set->units[set->n++] = i;
	set->nhot += report_tu_is_hot(rd, t->tu);
	for (size_t k = 0; k < set->rules.nr && !seen; k++)
		seen = !strcmp(set->rules.v[k], t->rules);
	if (!seen && *t->rules)
		strvec_push(&set->rules, t->rules);
}

size_t report_flagsets(const struct report_data *rd, struct report_flagset **sets)
{
	struct report_flagset *v = NULL;
	size_t nr = 0, alloc = 0;
	for (size_t i = 0; i < rd->nr_tus; i++)
		add_unit(rd, i, &v, &nr, &alloc);
	for (size_t k = 0; k < nr; k++) {
		struct unit_order *o = xcalloc(v[k].n + 1, sizeof(*o));
		for (size_t j = 0; j < v[k].n; j++) {
			o[j].idx = v[k].units[j];
			o[j].hot = report_tu_is_hot(rd, rd->tus[o[j].idx].tu);
		}
		qsort(o, v[k].n, sizeof(*o), cmp_order);
		for (size_t j = 0; j < v[k].n; j++)
			v[k].units[j] = o[j].idx;
		free(o);
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_set);
	*sets = v;
	return nr;
}

void report_flagsets_free(struct report_flagset *sets, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		strvec_clear(&sets[k].rules);
		free(sets[k].units);
	}
	free(sets);
}
