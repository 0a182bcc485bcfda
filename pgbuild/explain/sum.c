/*
 * explain/sum.c - does it add up: every row's change of the estimate, its
 * share of the total change, the rows in order, the shares of the top 10
 * and top 50, and the part inside the per-function layout spread when a
 * "pgbuild-noise" document gives one; see explain.h.
 *
 * The noise document (any producer of this shape works; `pgbuild noise`
 * writes one per workload into PREFIX/pgopt-noise.json, as
 * workloads.W.functions, which explain/run.c picks for -W's workload):
 *
 *     {"kind": "pgbuild-noise", "version": 1, "workload": "select-only",
 *      "functions": [{"function": "ExecScan", "object": "", "spread": 41.5}, ...]}
 *
 * spread is the function's spread of the self estimate per transaction
 * over the variants (the same unit as a row's change); a row whose
 * |change| is at most its spread is inside the layout noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/graph.h"
#include "pgbuild/pgbuild.h"

static int cmp_row(const void *pa, const void *pb)
{
	const struct explain_row *a = pa, *b = pb;
	double x = fabs(a->change), y = fabs(b->change);
	int c;
	if (x != y)
		return x < y ? 1 : -1;
	if ((c = strcmp(a->object, b->object)))
		return c;
	return strcmp(a->key, b->key);
}

/* The spread of every row the document names. */
static void read_noise(struct explain_result *r, const struct json_value *noise)
{
	const struct json_value *fns = json_get(noise, "functions");
	struct strmap idx = STRMAP_INIT;
	for (size_t i = 0; i < r->nr; i++) {
		char *k = xasprintf("%s\001%s", r->rows[i].object, r->rows[i].key);
		strmap_put(&idx, k, &r->rows[i]);
		free(k);
	}
	for (size_t i = 0; i < json_len(fns); i++) {
		const struct json_value *f = json_at(fns, i);
		const char *name = json_get_str(f, "function"), *obj = json_get_str(f, "object");
		double spread = json_get_num(f, "spread", NAN);
		struct explain_row *row;
		char *k;
		if (!name || !(spread >= 0))
			continue;
		k = xasprintf("%s\001%s", obj ? obj : "", name);
		if ((row = strmap_get(&idx, k)))
			row->noise = spread;
		free(k);
	}
	strmap_clear(&idx);
}

void explain_sum(struct explain_result *r, const struct json_value *noise, const char *source)
{
	double in = 0, t10 = 0, t50 = 0;
	memset(r->total, 0, sizeof(r->total));
	r->gross = 0;
	for (size_t i = 0; i < r->nr; i++) {
		struct explain_row *row = &r->rows[i];
		for (int s = 0; s < 2; s++)
			xg_tx_add(&r->total[s], &row->self[s], 1);
		row->change = row->self[1].estimate - row->self[0].estimate;
		r->gross += fabs(row->change);
	}
	r->change = r->total[1].estimate - r->total[0].estimate;
	if (r->nr)
		qsort(r->rows, r->nr, sizeof(*r->rows), cmp_row);
	if (noise) {
		read_noise(r, noise);
		r->noise_measured = 1;
		r->noise_source = source ? xstrdup(source) : NULL;
	}
	for (size_t i = 0; i < r->nr; i++) {
		struct explain_row *row = &r->rows[i];
		row->share = r->change != 0 ? row->change / r->change : NAN;
		if (i < 10)
			t10 += row->change;
		if (i < 50)
			t50 += row->change;
		if (isfinite(row->noise) && fabs(row->change) <= row->noise) {
			in += row->change;
			r->rows_in_noise++;
		}
	}
	r->top10 = r->change != 0 ? t10 / r->change : NAN;
	r->top50 = r->change != 0 ? t50 / r->change : NAN;
	r->in_noise = r->noise_measured && r->change != 0 ? in / r->change : NAN;
}
