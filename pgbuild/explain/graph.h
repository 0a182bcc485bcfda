/*
 * explain/graph.h - what explain's computing steps share (rows.c builds
 * it, decide.c and sum.c read it): the call graph between rows, per side,
 * per transaction, and arithmetic on struct cycles_tx.
 */
#ifndef PGBUILD_EXPLAIN_GRAPH_H
#define PGBUILD_EXPLAIN_GRAPH_H

#include "pgbuild/explain/explain.h"
#include "pgbuild/explain/strmap.h"

/* The calls from one row to another, per transaction. */
struct xg_edge {
	size_t to;              /* the callee's row */
	double calls;           /* calls */
	struct cycles_tx incl;  /* their inclusive cost */
};

/* One row on one side. */
struct xg_node {
	struct xg_edge *out;    /* its calls to other rows */
	size_t nout, alloc;     /* used, allocated */
	double in_calls;        /* calls into it from other rows */
	struct cycles_tx in_incl; /* their inclusive cost */
};

/* Both sides' graphs over the result's rows. */
struct xgraph {
	struct xg_node *n[2];   /* per side, indexed like the rows */
	size_t alloc[2];        /* allocated */
	size_t nr;              /* rows (initialised entries of n[]) */
	struct strmap index;    /* "object\001key" -> row index + 1 */
	struct explain_symtab syms; /* the binaries' symbols, one row per base */
};

/* a += k * b, every figure. */
void xg_tx_add(struct cycles_tx *a, const struct cycles_tx *b, double k);

/* The row of (object, key), added when missing; its index. */
size_t xg_row(struct explain_result *r, struct xgraph *g, const char *object, const char *key);
/* The row of (object, key), or -1. */
long xg_find(const struct xgraph *g, const char *object, const char *key);
/* The edge from row `from` to row `to` on side, or NULL. */
const struct xg_edge *xg_edge(const struct xgraph *g, int side, size_t from, size_t to);

/* rows.c: rows and graphs from both sides' profiles. */
void explain_rows_build(struct explain_result *r, struct xgraph *g, struct explain_side sides[2],
			long n);
/* decide.c: attribution of inlined-away callees and every row's decisions. */
void explain_decide(struct explain_result *r, struct xgraph *g, struct explain_side sides[2]);
/* sum.c: changes, shares, order, noise. */
void explain_sum(struct explain_result *r, const struct json_value *noise, const char *source);

void xg_release(struct xgraph *g);

#endif
