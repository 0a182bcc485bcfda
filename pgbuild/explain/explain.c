/*
 * explain/explain.c - the engine's phases in order (rows, decisions, sums)
 * and the result's life cycle; see explain.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/graph.h"
#include "pgbuild/pgbuild.h"

/* Sentences about what the inputs could not say. */
static void notes(struct explain_result *r, const struct explain_side sides[2])
{
	for (int s = 0; s < 2; s++) {
		if (!sides[s].nunits)
			strvec_pushf(&r->notes, "%s (%s) has no plugin records: what it inlined is not "
				     "known; its calls are callgrind's", sides[s].label, sides[s].binary);
		if (sides[s].nunits && !sides[s].nlog && !sides[s].prefix)
			strvec_pushf(&r->notes, "%s: no build record: flags and policy lines come from "
				     "the plugin's unit records only", sides[s].label);
	}
	if (!r->noise_measured)
		strvec_pushf(&r->notes, "the per-function layout spread is not measured (give --noise "
			     "FILE, measured over relinked variants); the repeat floor of the total, "
			     "the same binary measured twice, is about %s", EXPLAIN_REPEAT_FLOOR);
}

void explain_compute(struct explain_result *r, struct explain_side sides[2], long n,
		     const struct json_value *noise, const char *noise_source)
{
	struct xgraph g;
	memset(&g, 0, sizeof(g));
	strvec_init(&r->notes);
	explain_rows_build(r, &g, sides, n);
	explain_decide(r, &g, sides);
	xg_release(&g);
	explain_sum(r, noise, noise_source);
	notes(r, sides);
}

static void row_release(struct explain_row *row)
{
	free(row->key);
	free(row->object);
	free(row->tu);
	for (int s = 0; s < 2; s++) {
		free(row->symbols[s]);
		free(row->section[s]);
		free(row->flags[s]);
		free(row->rules[s]);
		free(row->bolt[s]);
	}
	for (size_t i = 0; i < row->nsites; i++) {
		free(row->sites[i].callee);
		free(row->sites[i].callee_file);
		free(row->sites[i].stage);
		free(row->sites[i].other);
		free(row->sites[i].froms);
	}
	free(row->sites);
	for (size_t i = 0; i < row->nabsorbed; i++)
		free(row->absorbed[i].callee);
	free(row->absorbed);
	for (size_t i = 0; i < row->ncallers; i++)
		free(row->callers[i].caller);
	free(row->callers);
}

void explain_result_release(struct explain_result *r)
{
	for (size_t i = 0; i < r->nr; i++)
		row_release(&r->rows[i]);
	free(r->rows);
	free(r->workload);
	free(r->noise_source);
	strvec_clear(&r->notes);
	memset(r, 0, sizeof(*r));
}
