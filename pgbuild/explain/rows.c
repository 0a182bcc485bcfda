/*
 * explain/rows.c - both sides' callgrind profiles turned into rows: every
 * function's cost per transaction ((10N - N) / 9N, cycles_per_tx), summed
 * into its row (names.h: one row per source function and object), and the
 * calls between rows; see explain.h and graph.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/graph.h"
#include "pgbuild/pgbuild.h"

void xg_tx_add(struct cycles_tx *a, const struct cycles_tx *b, double k)
{
	a->ir += k * b->ir;
	a->i1mr += k * b->i1mr;
	a->l1m += k * b->l1m;
	a->llm += k * b->llm;
	a->bm += k * b->bm;
	a->estimate += k * b->estimate;
}

static char *index_key(const char *object, const char *key)
{
	return xasprintf("%s\001%s", object, key);
}

long xg_find(const struct xgraph *g, const char *object, const char *key)
{
	char *k = index_key(object, key);
	void *v = strmap_get(&g->index, k);
	free(k);
	return v ? (long)((size_t)v - 1) : -1;
}

size_t xg_row(struct explain_result *r, struct xgraph *g, const char *object, const char *key)
{
	char *k = index_key(object, key);
	void **slot = strmap_slot(&g->index, k);
	struct explain_row *row;
	free(k);
	if (*slot)
		return (size_t)*slot - 1;
	ALLOC_GROW(r->rows, r->nr + 1, r->alloc);
	row = &r->rows[r->nr];
	memset(row, 0, sizeof(*row));
	row->key = xstrdup(key);
	row->object = xstrdup(object);
	for (int s = 0; s < 2; s++) {
		row->size[s] = NAN;
		row->calls[s] = 0;
		ALLOC_GROW(g->n[s], r->nr + 1, g->alloc[s]);
		memset(&g->n[s][r->nr], 0, sizeof(g->n[s][r->nr]));
	}
	row->noise = NAN;
	*slot = (void *)(r->nr + 1);
	g->nr = r->nr + 1;
	return r->nr++;
}

const struct xg_edge *xg_edge(const struct xgraph *g, int side, size_t from, size_t to)
{
	const struct xg_node *n = &g->n[side][from];
	for (size_t i = 0; i < n->nout; i++)
		if (n->out[i].to == to)
			return &n->out[i];
	return NULL;
}

/* The edge from -> to on side, added when missing. */
static struct xg_edge *edge_get(struct xgraph *g, int side, size_t from, size_t to)
{
	struct xg_node *n = &g->n[side][from];
	for (size_t i = 0; i < n->nout; i++)
		if (n->out[i].to == to)
			return &n->out[i];
	ALLOC_GROW(n->out, n->nout + 1, n->alloc);
	memset(&n->out[n->nout], 0, sizeof(n->out[n->nout]));
	n->out[n->nout].to = to;
	return &n->out[n->nout++];
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* "" for the side's own binary (callgrind's ob= is the resolved path),
 * else the library's file name.  Code valgrind found a symbol for but no
 * object ("???": the new text segment BOLT adds) is the binary's. */
static const char *object_label(const struct explain_side *s, const char *object,
				const char *name)
{
	if (!strcmp(object, s->real) || !strcmp(object, s->binary) ||
	    !strcmp(base_name(object), base_name(s->binary)))
		return "";
	if (!strcmp(object, "???") && strncmp(name, "0x", 2))
		return "";
	return base_name(object);
}

/* The row of every function of the side's (merged) profile. */
static size_t *map_functions(struct explain_result *r, struct xgraph *g,
			     const struct explain_side *s)
{
	const struct cg_profile *p = &s->prof[1];
	size_t *row = xcalloc(p->nr + 1, sizeof(*row));
	struct strbuf base = STRBUF_INIT;
	for (size_t i = 0; i < p->nr; i++) {
		explain_name_base(p->fns[i].name, &base);
		row[i] = xg_row(r, g, object_label(s, p->fns[i].object, p->fns[i].name), base.buf);
	}
	strbuf_release(&base);
	return row;
}

/* The N run's calls of f0 (or none) to the callee named like p10's callee. */
static const struct cycles_counts *calls_in_n(const struct cg_profile *p0, long f0,
					      const struct cg_fn *callee, double *count)
{
	long c0;
	*count = 0;
	if (f0 < 0 || (c0 = cg_find(p0, callee->object, callee->name)) < 0)
		return NULL;
	for (size_t k = 0; k < p0->fns[f0].ncalls; k++) {
		if (p0->fns[f0].calls[k].callee == (size_t)c0) {
			*count = p0->fns[f0].calls[k].count;
			return &p0->fns[f0].calls[k].incl;
		}
	}
	return NULL;
}

/* One side: self costs into rows, calls between rows into its graph. */
static void side_rows(struct explain_result *r, struct xgraph *g, struct explain_side *s,
		      int side, long n)
{
	struct cg_profile *p0 = &s->prof[0], *p1 = &s->prof[1];
	static const struct cycles_counts zero;
	size_t *row;

	/* every function of either run, in the 10N run's table */
	for (size_t i = 0; i < p0->nr; i++)
		cg_intern(p1, p0->fns[i].object, p0->fns[i].name);
	row = map_functions(r, g, s);
	for (size_t i = 0; i < p1->nr; i++) {
		const struct cg_fn *f = &p1->fns[i];
		long f0 = cg_find(p0, f->object, f->name);
		struct cycles_tx tx;
		struct explain_row *rw = &r->rows[row[i]];
		cycles_per_tx(f0 >= 0 ? &p0->fns[f0].self : &zero, &f->self, n, &tx);
		xg_tx_add(&rw->self[side], &tx, 1);
		rw->present[side] = 1;
		for (size_t k = 0; k < f->ncalls; k++) {
			const struct cg_call *c = &f->calls[k];
			double c0;
			const struct cycles_counts *in0 = calls_in_n(p0, f0, &p1->fns[c->callee], &c0);
			size_t to = row[c->callee];
			struct xg_edge *e;
			cycles_per_tx(in0 ? in0 : &zero, &c->incl, n, &tx);
			if (to == row[i])
				continue; /* within the function: clones, parts, recursion */
			e = edge_get(g, side, row[i], to);
			e->calls += (c->count - c0) / (9.0 * (double)n);
			xg_tx_add(&e->incl, &tx, 1);
			g->n[side][to].in_calls += (c->count - c0) / (9.0 * (double)n);
			xg_tx_add(&g->n[side][to].in_incl, &tx, 1);
		}
	}
	free(row);
}

/* Inclusive = self + the calls to other rows; calls = calls into it. */
static void inclusive(struct explain_result *r, struct xgraph *g)
{
	for (size_t i = 0; i < r->nr; i++) {
		for (int s = 0; s < 2; s++) {
			const struct xg_node *nd = &g->n[s][i];
			r->rows[i].incl[s] = r->rows[i].self[s];
			for (size_t k = 0; k < nd->nout; k++)
				xg_tx_add(&r->rows[i].incl[s], &nd->out[k].incl, 1);
			r->rows[i].calls[s] = nd->in_calls;
		}
	}
}

/* The files' summary lines, per transaction: what the gate reported. */
static void summaries(struct explain_result *r, const struct explain_side sides[2], long n)
{
	for (int s = 0; s < 2; s++)
		cycles_per_tx(&sides[s].prof[0].summary, &sides[s].prof[1].summary, n,
			      &r->summary[s]);
}

void explain_rows_build(struct explain_result *r, struct xgraph *g, struct explain_side sides[2],
			long n)
{
	r->statements = n;
	for (int s = 0; s < 2; s++)
		side_rows(r, g, &sides[s], s, n);
	inclusive(r, g);
	summaries(r, sides, n);
}

void xg_release(struct xgraph *g)
{
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < g->nr && g->n[s]; i++)
			free(g->n[s][i].out);
		free(g->n[s]);
	}
	strmap_clear(&g->index);
	explain_symtab_clear(&g->syms);
	memset(g, 0, sizeof(*g));
}
