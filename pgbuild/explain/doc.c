/*
 * explain/doc.c - the explain result as its JSON document ("kind":
 * "pgbuild-explain", version 1), which the terminal, HTML and gate
 * outputs are rendered from; field names are documented in
 * pgbuild/README.md ("pgbuild explain") and stay stable within a version.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/explain.h"
#include "pgbuild/pgbuild.h"

static void write_tx(struct json_writer *jw, const struct cycles_tx *t)
{
	json_object_begin(jw);
	json_key(jw, "instructions"); json_double(jw, t->ir);
	json_key(jw, "i1_misses"); json_double(jw, t->i1mr);
	json_key(jw, "l1_misses"); json_double(jw, t->l1m);
	json_key(jw, "ll_misses"); json_double(jw, t->llm);
	json_key(jw, "branch_mispredictions"); json_double(jw, t->bm);
	json_key(jw, "estimate"); json_double(jw, t->estimate);
	json_object_end(jw);
}

static const char *side_name(int s)
{
	return s ? "B" : "A";
}

static int cmp_site(const void *pa, const void *pb)
{
	const struct explain_site *a = pa, *b = pb;
	if (a->cost_other != b->cost_other)
		return a->cost_other < b->cost_other ? 1 : -1;
	return strcmp(a->callee, b->callee);
}

static int cmp_absorbed(const void *pa, const void *pb)
{
	const struct explain_absorbed *a = pa, *b = pb;
	if (fabs(a->estimate) != fabs(b->estimate))
		return fabs(a->estimate) < fabs(b->estimate) ? 1 : -1;
	return strcmp(a->callee, b->callee);
}

static void write_sites(struct json_writer *jw, struct explain_row *row)
{
	if (row->nsites)
		qsort(row->sites, row->nsites, sizeof(*row->sites), cmp_site);
	json_key(jw, "inlined_one_side");
	json_array_begin(jw);
	for (size_t i = 0; i < row->nsites; i++) {
		const struct explain_site *st = &row->sites[i];
		json_object_begin(jw);
		json_key(jw, "callee"); json_string(jw, st->callee);
		json_key(jw, "callee_file"); json_string(jw, st->callee_file);
		json_key(jw, "cross_file"); json_bool(jw, st->cross_file);
		json_key(jw, "inlined_in"); json_string(jw, side_name(st->side));
		json_key(jw, "stage"); json_string(jw, st->stage);
		json_key(jw, "other"); json_string(jw, st->other);
		json_key(jw, "other_is_gcc_reason"); json_bool(jw, st->reason_is_gcc);
		json_key(jw, "calls_other"); json_double(jw, st->calls_other);
		json_key(jw, "cost_other"); json_double(jw, st->cost_other);
		json_object_end(jw);
	}
	json_array_end(jw);
	if (row->nabsorbed)
		qsort(row->absorbed, row->nabsorbed, sizeof(*row->absorbed), cmp_absorbed);
	json_key(jw, "absorbed");
	json_array_begin(jw);
	for (size_t i = 0; i < row->nabsorbed; i++) {
		json_object_begin(jw);
		json_key(jw, "callee"); json_string(jw, row->absorbed[i].callee);
		json_key(jw, "side"); json_string(jw, side_name(row->absorbed[i].side));
		json_key(jw, "estimate"); json_double(jw, row->absorbed[i].estimate);
		json_object_end(jw);
	}
	json_array_end(jw);
	json_key(jw, "callers");
	json_array_begin(jw);
	for (size_t i = 0; i < row->ncallers; i++) {
		const struct explain_caller *c = &row->callers[i];
		json_object_begin(jw);
		json_key(jw, "caller"); json_string(jw, c->caller);
		json_key(jw, "calls_a"); json_double(jw, c->calls[0]);
		json_key(jw, "calls_b"); json_double(jw, c->calls[1]);
		json_key(jw, "inclusive_a"); json_double(jw, c->incl[0]);
		json_key(jw, "inclusive_b"); json_double(jw, c->incl[1]);
		json_object_end(jw);
	}
	json_array_end(jw);
}

/* The per-side fields of a row: "a": {...}, "b": {...}. */
static void write_row_side(struct json_writer *jw, const struct explain_row *row, int s)
{
	json_key(jw, s ? "b" : "a");
	json_object_begin(jw);
	json_key(jw, "present"); json_bool(jw, row->present[s]);
	json_key(jw, "self"); write_tx(jw, &row->self[s]);
	json_key(jw, "inclusive"); write_tx(jw, &row->incl[s]);
	json_key(jw, "calls"); json_double(jw, row->calls[s]);
	json_key(jw, "symbols"); json_string(jw, row->symbols[s]);
	json_key(jw, "size"); json_double(jw, row->size[s]);
	json_key(jw, "cold_size"); json_double(jw, row->cold[s]);
	json_key(jw, "section"); json_string(jw, row->section[s]);
	json_key(jw, "flags"); json_string(jw, row->flags[s]);
	json_key(jw, "rules"); json_string(jw, row->rules[s]);
	json_key(jw, "bolt"); json_string(jw, row->bolt[s]);
	json_object_end(jw);
}

static void write_row(struct json_writer *jw, struct explain_row *row, size_t rank)
{
	json_object_begin(jw);
	json_key(jw, "rank"); json_int(jw, (int64_t)rank);
	json_key(jw, "function"); json_string(jw, row->key);
	json_key(jw, "object"); json_string(jw, row->object);
	json_key(jw, "change"); json_double(jw, row->change);
	json_key(jw, "change_instructions"); json_double(jw, row->self[1].ir - row->self[0].ir);
	json_key(jw, "change_i1_misses"); json_double(jw, row->self[1].i1mr - row->self[0].i1mr);
	json_key(jw, "share"); json_double(jw, row->share);
	json_key(jw, "noise"); json_double(jw, row->noise);
	json_key(jw, "inside_noise");
	if (isfinite(row->noise))
		json_bool(jw, fabs(row->change) <= row->noise);
	else
		json_null(jw);
	json_key(jw, "tu"); json_string(jw, row->tu);
	write_row_side(jw, row, 0);
	write_row_side(jw, row, 1);
	write_sites(jw, row);
	json_object_end(jw);
}

/* totals, summary, reconciliation, coverage, noise. */
static void write_sums(struct json_writer *jw, const struct explain_result *r, size_t shown)
{
	struct cycles_tx d = r->total[1];
	int rec = 1;
	double rest = r->change;
	d.ir -= r->total[0].ir;
	d.i1mr -= r->total[0].i1mr;
	d.l1m -= r->total[0].l1m;
	d.llm -= r->total[0].llm;
	d.bm -= r->total[0].bm;
	d.estimate -= r->total[0].estimate;
	for (int s = 0; s < 2; s++)
		rec &= fabs(r->total[s].estimate - r->summary[s].estimate) <=
		       CYCLES_RESOLUTION * fabs(r->summary[s].estimate);
	json_key(jw, "totals");
	json_object_begin(jw);
	json_key(jw, "a"); write_tx(jw, &r->total[0]);
	json_key(jw, "b"); write_tx(jw, &r->total[1]);
	json_key(jw, "change"); write_tx(jw, &d);
	json_key(jw, "ratio_a_over_b");
	json_double(jw, r->total[1].estimate > 0 ? r->total[0].estimate / r->total[1].estimate : NAN);
	json_object_end(jw);
	json_key(jw, "summary");
	json_object_begin(jw);
	json_key(jw, "a"); write_tx(jw, &r->summary[0]);
	json_key(jw, "b"); write_tx(jw, &r->summary[1]);
	json_object_end(jw);
	json_key(jw, "reconciled"); json_bool(jw, rec);
	for (size_t i = 0; i < r->nr && i < 50; i++)
		rest -= r->rows[i].change;
	json_key(jw, "coverage");
	json_object_begin(jw);
	json_key(jw, "rows"); json_int(jw, (int64_t)r->nr);
	json_key(jw, "rows_shown"); json_int(jw, (int64_t)shown);
	json_key(jw, "top10_share"); json_double(jw, r->top10);
	json_key(jw, "top50_share"); json_double(jw, r->top50);
	json_key(jw, "rest_change"); json_double(jw, rest);
	json_key(jw, "gross_change"); json_double(jw, r->gross);
	json_object_end(jw);
	json_key(jw, "noise");
	json_object_begin(jw);
	json_key(jw, "measured"); json_bool(jw, r->noise_measured);
	json_key(jw, "source"); json_string(jw, r->noise_source);
	json_key(jw, "in_noise_share"); json_double(jw, r->in_noise);
	json_key(jw, "rows_in_noise");
	if (r->noise_measured)
		json_int(jw, (int64_t)r->rows_in_noise);
	else
		json_null(jw);
	json_key(jw, "repeat_floor"); json_string(jw, EXPLAIN_REPEAT_FLOOR);
	json_object_end(jw);
}

void explain_write_json(const struct explain_result *r, const char *baseline,
			const char *candidate, size_t max_rows, struct strbuf *out)
{
	struct json_writer jw;
	size_t shown = max_rows && max_rows < r->nr ? max_rows : r->nr;
	json_writer_init(&jw, out);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, EXPLAIN_KIND);
	json_key(&jw, "version"); json_int(&jw, EXPLAIN_VERSION);
	json_key(&jw, "workload"); json_string(&jw, r->workload);
	json_key(&jw, "statements"); json_int(&jw, r->statements);
	json_key(&jw, "baseline"); json_string(&jw, baseline);
	json_key(&jw, "candidate"); json_string(&jw, candidate);
	json_key(&jw, "metric"); json_string(&jw, "cycles estimate per transaction, self (exclusive), "
					     "B - A: negative is cheaper in B");
	json_key(&jw, "simulation"); json_string(&jw, CYCLES_SIMULATION);
	json_key(&jw, "resolution"); json_double(&jw, CYCLES_RESOLUTION);
	write_sums(&jw, r, shown);
	json_key(&jw, "notes"); json_strvec(&jw, &r->notes);
	json_key(&jw, "rows");
	json_array_begin(&jw);
	for (size_t i = 0; i < shown; i++)
		write_row(&jw, &r->rows[i], i + 1);
	json_array_end(&jw);
	json_object_end(&jw);
	strbuf_addch(out, '\n');
}

int explain_doc_check(const struct json_value *doc, struct strbuf *why)
{
	const char *kind = json_get_str(doc, "kind");
	double v = json_get_num(doc, "version", NAN);
	struct strbuf none = STRBUF_INIT;
	int rc = -1;
	if (!why)
		why = &none;
	if (!kind || strcmp(kind, EXPLAIN_KIND))
		strbuf_addf(why, "not a %s document (kind %s)", EXPLAIN_KIND, kind ? kind : "missing");
	else if (v != EXPLAIN_VERSION)
		strbuf_addf(why, "version %g, this pgbuild reads version %d", v, EXPLAIN_VERSION);
	else if (!json_get(doc, "rows") || json_get(doc, "rows")->type != JSON_ARRAY ||
		 !json_get(doc, "totals"))
		strbuf_addstr(why, "no rows or totals");
	else
		rc = 0;
	strbuf_release(&none);
	return rc;
}
