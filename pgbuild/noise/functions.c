/*
 * noise/functions.c - the per-function layout spread of a noise run: for
 * each workload, each function's self cycles estimate per transaction on
 * every variant (explain's rows of variant 1 against variant k, from the
 * callgrind outputs the cycles runs kept), and its spread, NOISE_FUNCTION_SDS
 * sample standard deviations, the bound `pgbuild explain --noise` counts a
 * row's change inside; see noise.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/explain.h"
#include "pgbuild/explain/strmap.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/pgbuild.h"

/* Load variant k's side for workload wl (its N and 10N profiles). */
static int load_side(const struct noise_result *r, int k, const char *wl, long n,
		     struct explain_side *s)
{
	char *f1 = cycles_output_path(r->v[k].prefix, wl, r->workdir, n);
	char *f10 = cycles_output_path(r->v[k].prefix, wl, r->workdir, 10 * n);
	char label[16];
	int rc;
	snprintf(label, sizeof(label), "v%02d", k + 1);
	memset(s, 0, sizeof(*s));
	rc = explain_side_load(s, label, r->v[k].prefix) < 0 ||
	     explain_side_profiles(s, f1, f10) < 0 ? -1 : 0;
	free(f1);
	free(f10);
	return rc;
}

/* The function of row in t (added when new), its values all 0. */
static struct noise_function *function_of(struct noise_functions *t, struct strmap *idx,
					  const struct explain_row *row, int variants)
{
	char *key = xasprintf("%s\001%s", row->object, row->key);
	void **slot = strmap_slot(idx, key);
	free(key);
	if (!*slot) {
		struct noise_function *f;
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		f = &t->v[t->nr];
		memset(f, 0, sizeof(*f));
		f->function = xstrdup(row->key);
		f->object = xstrdup(row->object);
		f->values = xcalloc((size_t)variants, sizeof(*f->values));
		*slot = (void *)(uintptr_t)(t->nr + 1);
		t->nr++;
	}
	return &t->v[(uintptr_t)*slot - 1];
}

void noise_function_spread(struct noise_function *f, int variants)
{
	struct noise_stats st;
	noise_stats_of(f->values, (size_t)variants, &st);
	f->mean = st.mean;
	f->sd = st.sd;
	f->spread = NOISE_FUNCTION_SDS * st.sd;
}

int noise_functions_of(const struct noise_result *r, size_t w, struct noise_functions *t)
{
	const char *wl = r->o->workloads.v[w];
	long n = r->o->statements > 0 ? r->o->statements : single_default_n(wl);
	struct explain_side sides[2];
	struct strmap idx = STRMAP_INIT;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (r->o->variants < 2 || load_side(r, 0, wl, n, &sides[0]) < 0)
		return -1;
	for (int k = 1; k < r->o->variants; k++) {
		struct explain_result er;
		memset(&er, 0, sizeof(er));
		if (load_side(r, k, wl, n, &sides[1]) < 0)
			goto out;
		explain_compute(&er, sides, n, NULL, NULL);
		for (size_t i = 0; i < er.nr; i++) {
			struct noise_function *f = function_of(t, &idx, &er.rows[i], r->o->variants);
			f->values[0] = er.rows[i].self[0].estimate;
			f->values[k] = er.rows[i].self[1].estimate;
		}
		explain_result_release(&er);
		explain_side_release(&sides[1]);
	}
	for (size_t i = 0; i < t->nr; i++)
		noise_function_spread(&t->v[i], r->o->variants);
	rc = 0;
out:
	explain_side_release(&sides[0]);
	strmap_clear(&idx);
	return rc;
}

void noise_functions_release(struct noise_functions *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->v[i].function);
		free(t->v[i].object);
		free(t->v[i].values);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
